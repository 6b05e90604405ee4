"""Start a Ranger device: `ros2 launch nps_sonar ranger.launch.py [device:=<device>]`.

device chooses the node, the robot and the parameter file:
    scanner    ranger_node, config/robots/ranger_scanner.urdf, config/ranger.yaml
    ring       ranger_node, config/robots/sonar_ring.urdf, config/ranger_ring.yaml
    sweep      scanning_sonar_node (mode sweep), config/robots/ranger_scanning_sonar.urdf,
               config/scanning_sonar.yaml
    multibeam  scanning_sonar_node (mode multibeam), the same robot, config/multibeam_sonar.yaml
    sidescan   scanning_sonar_node (mode sidescan), config/robots/sidescan_sonar.urdf,
               config/sidescan_sonar.yaml, over config/worlds/sidescan_survey.sdf
    echosounder  scanning_sonar_node (mode echosounder), config/robots/echosounder.urdf,
               config/echosounder.yaml
Other arguments: robot_description (a URDF or xacro path instead of the device's robot),
scene (scene file), params_file, namespace, use_sim_time. Without launch, e.g.:
    ros2 run nps_sonar ranger_node --ros-args --params-file config/ranger.yaml
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

#: device -> (executable, node name, robot file, parameter file, extra parameters)
DEVICES = {
    'scanner': ('ranger_node', 'ranger', 'ranger_scanner.urdf', 'ranger.yaml', {}),
    'ring': ('ranger_node', 'ranger', 'sonar_ring.urdf', 'ranger_ring.yaml', {}),
    'sweep': (
        'scanning_sonar_node',
        'scanning_sonar',
        'ranger_scanning_sonar.urdf',
        'scanning_sonar.yaml',
        {'mode': 'sweep'},
    ),
    'multibeam': (
        'scanning_sonar_node',
        'scanning_sonar',
        'ranger_scanning_sonar.urdf',
        'multibeam_sonar.yaml',
        {'mode': 'multibeam', 'min_angle': -0.7853981633974483, 'max_angle': 0.7853981633974483},
    ),
    'sidescan': (
        'scanning_sonar_node',
        'scanning_sonar',
        'sidescan_sonar.urdf',
        'sidescan_sonar.yaml',
        {'mode': 'sidescan'},
    ),
    'echosounder': (
        'scanning_sonar_node',
        'scanning_sonar',
        'echosounder.urdf',
        'echosounder.yaml',
        {'mode': 'echosounder'},
    ),
}
#: device -> its world in config/worlds when no scene is given (others: the params_file's)
SCENES = {'sidescan': 'sidescan_survey.sdf'}
#: launch argument -> (node parameter, type); a non-empty argument wins over the params_file.
OVERRIDES = {'scene': ('scene_file', str), 'use_sim_time': ('use_sim_time', bool)}


def _node(context, share):
    device = LaunchConfiguration('device').perform(context)
    if device not in DEVICES:
        raise RuntimeError(f'device must be one of {", ".join(DEVICES)}, got {device!r}')
    executable, name, robot, params, extra = DEVICES[device]
    robot_file = LaunchConfiguration('robot_description').perform(context) or os.path.join(
        share, 'config', 'robots', robot
    )
    params_file = LaunchConfiguration('params_file').perform(context) or os.path.join(
        share, 'config', params
    )
    return [
        Node(
            package='nps_sonar',
            executable=executable,
            name=name,
            namespace=LaunchConfiguration('namespace'),
            output='screen',
            parameters=[
                params_file,
                {
                    'robot_description_file': robot_file,
                    **_scene(device, share),
                    **extra,
                    **given(context, OVERRIDES),
                },
            ],
        )
    ]


def _scene(device, share):
    """Return the device's own world (SCENES), if it has one; a scene argument wins."""
    if device not in SCENES:
        return {}
    return {'scene_file': os.path.join(share, 'config', 'worlds', SCENES[device])}


def generate_launch_description() -> LaunchDescription:
    """The launch arguments and the node of the chosen device (ros2 launch calls this)."""
    share = get_package_share_directory('nps_sonar')
    arguments = [
        DeclareLaunchArgument(
            'device',
            default_value='scanner',
            choices=list(DEVICES),
            description=f'one of {", ".join(DEVICES)} (the docstring says what each starts)',
        ),
        DeclareLaunchArgument(
            'robot_description',
            default_value='',
            description="URDF or xacro file; empty: the device's robot in config/robots",
        ),
        DeclareLaunchArgument(
            'scene',
            default_value='',
            description="scene file; empty: the device's world (sidescan: "
            'sidescan_survey.sdf), else the params_file value (the reference tank)',
        ),
        DeclareLaunchArgument(
            'params_file',
            default_value='',
            description="YAML parameters; empty: the device's file in config/",
        ),
        namespace_argument(),
        use_sim_time_argument(),
    ]
    return LaunchDescription([*arguments, OpaqueFunction(function=_node, args=[share])])
