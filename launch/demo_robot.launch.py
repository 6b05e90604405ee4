"""Start every simulated sensor of a robot in one process: `ros2 launch nps_sonar demo_robot.launch.py`.

robot_sensors_node reads the robot and the scene once and hosts one node per sonar and ray
sensor, named after it (the demo robot: /sonar, /front_scanner, /rear_ranger), all casting
into one shared raycaster (docs/processes.md). Arguments: robot_description (URDF or xacro
path; default the demo robot), scene (scene file; default the box room), params_file (YAML;
default config/demo_robot.yaml), namespace, use_sim_time. The same without launch, in the
package's share directory (`ros2 pkg prefix --share nps_sonar`):
    ros2 run nps_sonar robot_sensors_node --ros-args --params-file config/demo_robot.yaml \\
      -p robot_description_file:=config/robots/demo_robot.urdf.xacro \\
      -p scene_file:=config/worlds/box_room.world -p use_sim_time:=false [-r __ns:=/<namespace>]
The node gets no `name=`: a node-name remap would rename every node of the process.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

#: Default files of the arguments, relative to the share directory (test/ros/test_robot_sensors.py reads it).
DEFAULTS = {
    'robot_description': 'config/robots/demo_robot.urdf.xacro',
    'scene': 'config/worlds/box_room.world',
    'params_file': 'config/demo_robot.yaml',
}


def generate_launch_description() -> LaunchDescription:
    share = get_package_share_directory('nps_sonar')
    arguments = [
        DeclareLaunchArgument(
            'robot_description',
            default_value=os.path.join(share, DEFAULTS['robot_description']),
            description='URDF or xacro file of the robot whose sensors are simulated',
        ),
        DeclareLaunchArgument(
            'scene',
            default_value=os.path.join(share, DEFAULTS['scene']),
            description='scene file: the models of the world and their scene_state',
        ),
        DeclareLaunchArgument(
            'params_file',
            default_value=os.path.join(share, DEFAULTS['params_file']),
            description="YAML parameters of every node of the process, keyed '/**'",
        ),
        DeclareLaunchArgument('namespace', default_value='', description='namespace of the nodes and topics'),
        DeclareLaunchArgument('use_sim_time', default_value='false', description='stamp with /clock'),
    ]
    sensors = Node(
        package='nps_sonar',
        executable='robot_sensors_node',
        namespace=LaunchConfiguration('namespace'),
        output='screen',
        parameters=[
            LaunchConfiguration('params_file'),
            {
                'robot_description_file': LaunchConfiguration('robot_description'),
                'scene_file': LaunchConfiguration('scene'),
                'use_sim_time': LaunchConfiguration('use_sim_time'),
            },
        ],
    )
    return LaunchDescription([*arguments, sensors])
