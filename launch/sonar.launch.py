"""Start one simulated sonar: `ros2 launch nps_sonar sonar.launch.py`.

Arguments: robot_description (URDF or xacro path), scene (scene file), params_file
(YAML), sensor (the <sensor> name; empty takes the first sonar), namespace, use_sim_time.
The same configuration without launch:
    ros2 run nps_sonar sonar_node --ros-args --params-file config/sonar.yaml
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


def generate_launch_description() -> LaunchDescription:
    """The launch arguments and the sonar node (ros2 launch calls this)."""
    share = get_package_share_directory('nps_sonar')
    arguments = [
        DeclareLaunchArgument(
            'robot_description',
            default_value='',
            description='URDF or xacro file of the robot carrying the sonar; empty: the '
            'params_file value (config/sonar.yaml: the reference robot)',
        ),
        DeclareLaunchArgument(
            'scene',
            default_value='',
            description='scene file; empty: the params_file value '
            '(config/sonar.yaml: the reference tank)',
        ),
        DeclareLaunchArgument(
            'params_file',
            default_value=os.path.join(share, 'config', 'sonar.yaml'),
            description='YAML parameters of the sonar node',
        ),
        DeclareLaunchArgument(
            'sensor',
            default_value='',
            description='<sensor> name; empty: the params_file value '
            '(config/sonar.yaml: the first sonar)',
        ),
        namespace_argument(),
        use_sim_time_argument(),
    ]
    return LaunchDescription([*arguments, OpaqueFunction(function=_sonar_node)])


#: launch argument -> (node parameter, type); a non-empty argument wins over the params_file.
OVERRIDES = {
    'robot_description': ('robot_description_file', str),
    'scene': ('scene_file', str),
    'sensor': ('sensor', str),
    'use_sim_time': ('use_sim_time', bool),
}


def _sonar_node(context):
    """Return the sonar node: the params_file, then the launch arguments that were given."""
    return [
        Node(
            package='nps_sonar',
            executable='sonar_node',
            name='sonar',
            namespace=LaunchConfiguration('namespace'),
            output='screen',
            parameters=[LaunchConfiguration('params_file'), given(context, OVERRIDES)],
        )
    ]
