"""The sonar beside Gazebo on one SDF world: `ros2 launch nps_sonar gazebo_sonar.launch.py`.

Starts, on config/worlds/underwater.sdf by default (docs/gazebo.md):
  * `gz sim -r <world>` (gazebo:=true), with GZ_SIM_RESOURCE_PATH naming the world's models;
  * ros_gz_bridge's parameter_bridge with config/ros_gz_bridge.yaml (bridge:=true): /clock,
    and each moving model's pose (underwater -> buoy, underwater -> ring_buoy) onto /tf;
  * the sonar node with config/gazebo_sonar.yaml: sim time, the robot's base_link and the
    models from /tf in Gazebo's world frame (the SDF world's name).
Arguments: world (SDF file), world_frame (Gazebo's world frame: the world's name),
entity_frames (models following /tf), robot_description (URDF or xacro), params_file,
namespace, use_sim_time, gazebo, bridge. The sonar node without launch, in the package's
share directory (`ros2 pkg prefix --share nps_sonar`):
    GZ_SIM_RESOURCE_PATH=config/worlds/models ros2 run nps_sonar sonar_node --ros-args \
      -r __node:=sonar --params-file config/gazebo_sonar.yaml \
      -p scene_file:=config/worlds/underwater.sdf -p world_frame:=underwater \
      -p "entity_frames:='buoy, ring_buoy'" \
      -p robot_description_file:=config/robots/reference_sonar.urdf -p use_sim_time:=true
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the shared arguments beside it

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import (
    DeclareLaunchArgument,
    ExecuteProcess,
    SetEnvironmentVariable,
)
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from nps_sonar_launch_arguments import namespace_argument

#: The models of config/worlds/underwater.sdf with a PosePublisher, as entity_frames.
MOVING_MODELS = 'buoy, ring_buoy'


def generate_launch_description() -> LaunchDescription:
    """The launch arguments, Gazebo, the bridge and the sonar node (ros2 launch calls this)."""
    share = get_package_share_directory('nps_sonar')
    config = os.path.join(share, 'config')
    models = os.path.join(config, 'worlds', 'models')
    resource_path = os.pathsep.join(
        p for p in (models, os.environ.get('GZ_SIM_RESOURCE_PATH', '')) if p
    )
    arguments = [
        DeclareLaunchArgument(
            'world',
            default_value=os.path.join(config, 'worlds', 'underwater.sdf'),
            description='SDF world, run by Gazebo and read by the sonar',
        ),
        DeclareLaunchArgument(
            'world_frame',
            default_value='underwater',
            description="Gazebo's world frame on /tf: the SDF <world name>",
        ),
        DeclareLaunchArgument(
            'entity_frames',
            default_value=MOVING_MODELS,
            description='models following their poses on /tf: model or model=frame, '
            'comma-separated',
        ),
        DeclareLaunchArgument(
            'robot_description',
            default_value=os.path.join(config, 'robots', 'reference_sonar.urdf'),
            description='URDF or xacro file of the robot carrying the sonar',
        ),
        DeclareLaunchArgument(
            'params_file',
            default_value=os.path.join(config, 'gazebo_sonar.yaml'),
            description='YAML parameters of the sonar node',
        ),
        namespace_argument('the sonar node and topics'),
        DeclareLaunchArgument(
            'use_sim_time', default_value='true', description="stamp with Gazebo's /clock"
        ),
        DeclareLaunchArgument(
            'gazebo', default_value='true', description='start gz sim -r on the world'
        ),
        DeclareLaunchArgument(
            'bridge',
            default_value='true',
            description='start ros_gz_bridge with config/ros_gz_bridge.yaml',
        ),
    ]
    world = LaunchConfiguration('world')
    return LaunchDescription(
        [
            *arguments,
            SetEnvironmentVariable('GZ_SIM_RESOURCE_PATH', resource_path),
            ExecuteProcess(
                cmd=['gz', 'sim', '-r', world],
                output='screen',
                condition=IfCondition(LaunchConfiguration('gazebo')),
            ),
            Node(
                package='ros_gz_bridge',
                executable='parameter_bridge',
                name='ros_gz_bridge',
                output='screen',
                parameters=[{'config_file': os.path.join(config, 'ros_gz_bridge.yaml')}],
                condition=IfCondition(LaunchConfiguration('bridge')),
            ),
            Node(
                package='nps_sonar',
                executable='sonar_node',
                name='sonar',
                namespace=LaunchConfiguration('namespace'),
                output='screen',
                parameters=[
                    LaunchConfiguration('params_file'),
                    {
                        'scene_file': world,
                        'world_frame': LaunchConfiguration('world_frame'),
                        'entity_frames': ParameterValue(
                            LaunchConfiguration('entity_frames'), value_type=str
                        ),
                        'robot_description_file': LaunchConfiguration('robot_description'),
                        'use_sim_time': ParameterValue(
                            LaunchConfiguration('use_sim_time'), value_type=bool
                        ),
                    },
                ],
            ),
        ]
    )
