"""Start one simulated sonar: `ros2 launch nps_sonar sonar.launch.py`.

Arguments: robot_description (URDF or xacro path), scene (scene file), params_file
(YAML), sensor (the <sensor> name; empty takes the first sonar), namespace, use_sim_time.
The same configuration without launch:
    ros2 run nps_sonar sonar_node --ros-args --params-file config/sonar.yaml
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def generate_launch_description() -> LaunchDescription:
    share = get_package_share_directory('nps_sonar')
    arguments = [
        DeclareLaunchArgument(
            'robot_description',
            default_value=os.path.join(share, 'config', 'robots', 'reference_sonar.urdf'),
            description='URDF or xacro file of the robot carrying the sonar',
        ),
        DeclareLaunchArgument(
            'scene',
            default_value=os.path.join(share, 'config', 'worlds', 'reference_tank.world'),
            description='scene file: the models of the world and their scene_state',
        ),
        DeclareLaunchArgument(
            'params_file',
            default_value=os.path.join(share, 'config', 'sonar.yaml'),
            description='YAML parameters of the sonar node',
        ),
        DeclareLaunchArgument('sensor', default_value='', description='<sensor> name; empty: the first sonar'),
        DeclareLaunchArgument('namespace', default_value='', description='namespace of the node and topics'),
        DeclareLaunchArgument('use_sim_time', default_value='false', description='stamp with /clock'),
    ]
    sonar = Node(
        package='nps_sonar',
        executable='sonar_node',
        name='sonar',
        namespace=LaunchConfiguration('namespace'),
        output='screen',
        parameters=[
            LaunchConfiguration('params_file'),
            {
                'robot_description_file': LaunchConfiguration('robot_description'),
                'scene_file': LaunchConfiguration('scene'),
                'sensor': LaunchConfiguration('sensor'),
                'use_sim_time': LaunchConfiguration('use_sim_time'),
            },
        ],
    )
    return LaunchDescription([*arguments, sonar])
