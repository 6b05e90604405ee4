"""Every simulated sensor of a robot in one process, sharing one scene: ``robot_sensors_node``.

Run: ``ros2 run nps_sonar robot_sensors_node --ros-args --params-file config/demo_robot.yaml``
(``launch/demo_robot.launch.py`` starts the same). The node ``robot_sensors`` reads the robot
description (default: the demo robot) and the scene (default: the box room) once, builds one
``Raycaster`` and hosts, in the same executor, one node per simulated sensor, named after
the sensor and sharing that robot and raycaster:

* each ``<sensor type="sonar">``: a sonar node (``sonar_node.SonarNode``), ``/<sensor>``;
* each ``<sensor type="ray">``: a ranger node scanner (``ranger_node.RangerNode``), ``/<sensor>``.

Sensors of other types are listed in the log as read but not simulated; ``sensors`` (names
or globs) restricts the set. Every node reads the same parameter files and ``-p`` values:
key them ``/**`` for all, ``/**/<sensor>`` for one sensor. The robot's files and pose, and
each node's sensor (``sensor`` or ``sensors``), are given to the sensor nodes as
``parameter_overrides``, which rclpy applies over the command line and the files. Each node
follows the robot's motion (``ros/motion.py``), and they share one scene time. Each sensor
node publishes its own sensor frames on ``/tf_static``; only the first publishes the robot's
root link on ``/tf`` (``publish_tf``), so that it goes out once per reading, not once per sensor.

Do not remap ``__node`` for this executable (launch: no ``name=``): a global remap renames
every node of the process, so the host refuses to start under another name. ``-r __ns:=/robot``
(``namespace=``) applies to all, as intended.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

from rclpy.exceptions import InvalidNodeNameException
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.validate_node_name import validate_node_name

from nps_sonar_py.description import SensorType
from nps_sonar_py.devices import load_robot_from, robot_root_pose, select_sensors
from nps_sonar_py.devices.sensors import sensor_error
from nps_sonar_py.devices.settings import RobotSettings, SelectionSettings
from nps_sonar_py.errors import ConfigurationError, DescriptionError
from nps_sonar_py.records import plain
from nps_sonar_py.ros.device_node import DeviceNode
from nps_sonar_py.ros.motion import SceneStart, SharedTf
from nps_sonar_py.ros.params import declare_settings, read_settings
from nps_sonar_py.ros.ranger_node import RangerNode
from nps_sonar_py.ros.robot_topic import listen
from nps_sonar_py.ros.sonar_node import SonarNode
from nps_sonar_py.ros.startup import run_node
from nps_sonar_py.scene import load_world

__all__ = [
    'DEMO_ROBOT',
    'DEMO_SCENE',
    'HOST_NAME',
    'HOST_RECORDS',
    'SIMULATED',
    'RobotSensors',
    'main',
]

#: The host node's name; the sensor nodes take their sensors' names.
HOST_NAME = 'robot_sensors'
#: What an empty ``robot_description_file`` and ``scene_file`` mean here (share directory files).
DEMO_ROBOT = 'config/robots/demo_robot.urdf.xacro'
DEMO_SCENE = 'config/worlds/box_room.world'

#: The host's settings: the robot and world it shares, and which sensors it simulates.
HOST_RECORDS = (RobotSettings, SelectionSettings)

#: The node class and its sensor-choosing parameter, per simulated sensor type.
SIMULATED: dict[SensorType, tuple[type[DeviceNode], str]] = {
    SensorType.SONAR: (SonarNode, 'sensor'),
    SensorType.RAY: (RangerNode, 'sensors'),
}


class RobotSensors(Node):
    """The host: reads the robot and the world once and holds one node per simulated sensor.

    ``kwargs`` go to ``rclpy.node.Node`` for the host and every sensor node (``context``,
    ``cli_args``, ``parameter_overrides``...).
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(HOST_NAME, **kwargs)
        self.sensor_nodes: list[Node] = []
        if (
            self.get_name() != HOST_NAME
        ):  # a node-name remap would give every node of the process this name
            raise ConfigurationError(
                f'robot_sensors_node names its nodes ({HOST_NAME} and one per sensor), '
                f'got "{self.get_name()}": do not remap __node (launch: no name=)'
            )
        declare_settings(self, HOST_RECORDS, runtime=False)
        settings = read_settings(self, HOST_RECORDS)
        topic = listen(self, settings[RobotSettings])
        where = settings[RobotSettings].with_defaults(DEMO_ROBOT, DEMO_SCENE)
        robot_root_pose(where.robot_pose)  # a bad robot_pose is refused here, once
        world = load_world(where.scene_file)  # meanwhile a robot_description publisher is found
        self.robot = (topic.robot() if topic else None) or load_robot_from(where)
        patterns = settings[SelectionSettings].sensors
        chosen = (
            select_sensors(self.robot, patterns) if patterns.strip() else list(self.robot.sensors)
        )
        simulated = [s for s in chosen if s.type in SIMULATED]
        not_simulated = [f'{s.name} ({s.type.value})' for s in chosen if s.type not in SIMULATED]
        not_simulated += [f'{u.name} ({u.type}, not parsed)' for u in self.robot.unread_sensors]
        others = ', '.join(not_simulated) or 'none'
        if not simulated:
            raise DescriptionError(
                f'has no sonar or ray <sensor> to simulate; other sensors: {others}',
                file=self.robot.source,
                element='<robot>',
            )
        for sensor in simulated:  # each names a node
            try:
                validate_node_name(sensor.name)
            except InvalidNodeNameException:
                raise sensor_error(
                    sensor,
                    'its name is not a valid ROS node name (letters, digits and _, '
                    'not starting with a digit)',
                ) from None
        from nps_sonar_py.scene.raycaster import Raycaster  # Open3D: once the input is good

        self.raycaster = Raycaster(world)
        listed = ', '.join(f'{s.name} ({s.type.value})' for s in simulated)
        self.get_logger().info(
            f'robot "{self.robot.name}" from {self.robot.source}: simulating {listed}; '
            f'read but not simulated: {others}',
        )
        n = len(world.entity_names)
        self.get_logger().info(
            f'world loaded once from {where.scene_file} '
            f'({n} entit{"y" if n == 1 else "ies"}): one '
            f'raycaster shared by {len(simulated)} sensor nodes',
        )
        start, tf = SceneStart(), SharedTf()
        shared = [
            Parameter(f.name, value=plain(getattr(where, f.name)))
            for f in dataclasses.fields(where)
        ]
        own = list(kwargs.pop('parameter_overrides', None) or [])
        for index, sensor in enumerate(simulated):
            node_class, choice = SIMULATED[sensor.type]
            overrides = [*own, *shared, Parameter(choice, value=sensor.name)]
            node = node_class(
                node_name=sensor.name,
                robot=self.robot,
                raycaster=self.raycaster,
                scene_start=start,
                shared_tf=tf,
                root_tf=index == 0,
                parameter_overrides=overrides,
                **kwargs,
            )
            self.sensor_nodes.append(node)

    # One executor spins the host and its sensor nodes: ``run_node`` adds the host, which
    # brings them.
    @Node.executor.setter  # type: ignore[attr-defined]  # rclpy types the property as overloads
    def executor(self, new_executor: Any) -> None:
        """Join (or leave) ``new_executor`` with every sensor node."""
        Node.executor.fset(self, new_executor)  # type: ignore[attr-defined]  # as above
        for node in self.sensor_nodes:
            node.executor = new_executor

    def destroy_node(self) -> None:
        """Destroy the sensor nodes, then the host."""
        for node in self.sensor_nodes:
            node.destroy_node()
        self.sensor_nodes = []
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    """Entry point of ``ros2 run nps_sonar robot_sensors_node``."""
    return run_node(RobotSensors, args=args)


if __name__ == '__main__':
    sys.exit(main())
