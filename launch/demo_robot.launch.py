r"""Run a robot's simulated sensors in one process: `ros2 launch nps_sonar demo_robot.launch.py`.

robot_sensors_node reads the robot and the scene once and hosts one node per sonar and ray
sensor, named after it (the demo robot: /sonar, /front_scanner, /rear_ranger), all casting
into one shared raycaster (docs/processes.md). Arguments: robot_description (URDF or xacro
path), scene (scene file), params_file (YAML; default config/demo_robot.yaml), namespace,
use_sim_time; an empty robot_description, scene or use_sim_time leaves the params_file
value (config/demo_robot.yaml: the demo robot in the box room, wall-clock time). The same
without launch, in the package's share directory (`ros2 pkg prefix --share nps_sonar`):
    ros2 run nps_sonar robot_sensors_node --ros-args --params-file config/demo_robot.yaml \
      [-p robot_description_file:=<urdf>] [-p scene_file:=<world>] [-p use_sim_time:=true] \
      [-r __ns:=/<namespace>]
The node gets no `name=`: a node-name remap would rename every node of the process.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the shared arguments beside it

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from nps_sonar_launch_arguments import given, namespace_argument, use_sim_time_argument

#: launch argument -> (node parameter, type); a non-empty argument wins over the params_file.
OVERRIDES = {
    'robot_description': ('robot_description_file', str),
    'scene': ('scene_file', str),
    'use_sim_time': ('use_sim_time', bool),
}


def _robot_sensors_node(context):
    """Return the robot_sensors_node: the params_file, then the launch arguments given."""
    return [
        Node(
            package='nps_sonar',
            executable='robot_sensors_node',
            namespace=LaunchConfiguration('namespace'),
            output='screen',
            parameters=[LaunchConfiguration('params_file'), given(context, OVERRIDES)],
        )
    ]


def generate_launch_description() -> LaunchDescription:
    """The launch arguments and the one robot_sensors_node process (ros2 launch calls this)."""
    share = get_package_share_directory('nps_sonar')
    arguments = [
        DeclareLaunchArgument(
            'robot_description',
            default_value='',
            description='URDF or xacro file of the robot; empty: the params_file value '
            '(config/demo_robot.yaml: the demo robot)',
        ),
        DeclareLaunchArgument(
            'scene',
            default_value='',
            description='scene file; empty: the params_file value '
            '(config/demo_robot.yaml: the box room)',
        ),
        DeclareLaunchArgument(
            'params_file',
            default_value=os.path.join(share, 'config', 'demo_robot.yaml'),
            description="YAML parameters of every node of the process, keyed '/**'",
        ),
        namespace_argument('the nodes and topics'),
        use_sim_time_argument(),
    ]
    return LaunchDescription([*arguments, OpaqueFunction(function=_robot_sensors_node)])
