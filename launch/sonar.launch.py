"""Start one simulated sonar: `ros2 launch nps_sonar sonar.launch.py`.

Arguments: robot_description (URDF or xacro path), scene (scene file), params_file
(YAML), sensor (the <sensor> name; empty takes the first sonar), namespace, use_sim_time.
The same configuration without launch:
    ros2 run nps_sonar sonar_node --ros-args --params-file config/sonar.yaml
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue


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
        DeclareLaunchArgument(
            'namespace', default_value='', description='namespace of the node and topics'
        ),
        DeclareLaunchArgument(
            'use_sim_time',
            default_value='',
            description='stamp with /clock (true/false); empty: the params_file value, else false',
        ),
    ]
    return LaunchDescription([*arguments, OpaqueFunction(function=_sonar_node)])


#: launch argument -> node parameter; a non-empty argument wins over the params_file.
OVERRIDES = {
    'robot_description': 'robot_description_file',
    'scene': 'scene_file',
    'sensor': 'sensor',
}


def _sonar_node(context):
    """Return the sonar node: the params_file, then the launch arguments that were given."""
    overrides = {}
    for argument, parameter in OVERRIDES.items():
        if LaunchConfiguration(argument).perform(context):
            overrides[parameter] = ParameterValue(LaunchConfiguration(argument), value_type=str)
    if LaunchConfiguration('use_sim_time').perform(context):
        overrides['use_sim_time'] = ParameterValue(
            LaunchConfiguration('use_sim_time'), value_type=bool
        )
    return [
        Node(
            package='nps_sonar',
            executable='sonar_node',
            name='sonar',
            namespace=LaunchConfiguration('namespace'),
            output='screen',
            parameters=[LaunchConfiguration('params_file'), overrides],
        )
    ]
