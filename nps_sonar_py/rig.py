"""A robot's sensor placed in a world: the files read, the sensor chosen, the rays ready to cast.

This is where the layers meet (description, scene, sensing); the ROS nodes build one rig
from their parameters and call :meth:`SonarRig.ping` on a timer. No rclpy here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nps_sonar_py.description import Robot, Sensor, SensorType, load_robot, parse_robot
from nps_sonar_py.echo import EchoConfig, Ping
from nps_sonar_py.errors import ConfigurationError, DescriptionError
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.sonar import SonarDevice, sonar_echo_config
from nps_sonar_py.transforms import transform_from_xyz_rpy

__all__ = ['SonarRig', 'build_sonar_rig', 'find_share_file', 'reference_robot_file', 'reference_world_file']

_REPOSITORY = Path(__file__).resolve().parent.parent


def find_share_file(relative: str) -> str:
    """A file of this package's ``share/nps_sonar`` (installed) or of the source tree.

    The installed copy is found through ``AMENT_PREFIX_PATH`` (the ament index is a file
    layout, so this needs no ROS import); the source tree serves a checkout.
    """
    for prefix in filter(None, os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep)):
        candidate = Path(prefix, 'share', 'nps_sonar', relative)
        if candidate.is_file():
            return str(candidate)
    return str(_REPOSITORY / relative)


def reference_robot_file() -> str:
    """The robot of the reference scenario: a sonar at (2.1, 1.0, 1.0) looking along +y."""
    return find_share_file('config/robots/reference_sonar.urdf')


def reference_world_file() -> str:
    """The world of the reference scenario (NPS ``blueview_basement_cylinder``): tank and cylinder."""
    return find_share_file('config/worlds/reference_tank.world')


@dataclass
class SonarRig:
    """One sonar of a robot, posed in a world, with the raycaster it pings."""

    robot: Robot
    sensor: Sensor
    device: SonarDevice
    raycaster: Raycaster
    world_from_root: np.ndarray

    def set_robot_state(self, world_from_root: np.ndarray, joint_positions: Mapping[str, float]) -> None:
        """Move the robot: its root link's pose in the world and its joints (others are ignored)."""
        known = {name: value for name, value in joint_positions.items() if name in self.robot.joints}
        self.world_from_root = np.asarray(world_from_root, dtype=np.float64)
        self.device.set_pose(world_from_root @ self.robot.sensor_transform(self.sensor.name, known))

    def ping(self) -> Ping:
        """Cast the sonar's cone once: the echo, whose ``range`` follows REP 117."""
        return self.device.ping(self.raycaster)

    def echo_config(self, **overrides: Any) -> EchoConfig:
        """The echo configuration of this sonar's URDF ``<sonar>`` with ``overrides`` (validated)."""
        return sonar_echo_config(self.sensor.sonar, **overrides)

    def reconfigure(self, echo: EchoConfig, n_rays: int) -> None:
        """Use a new configuration from the next ping on (the ray pattern is rebuilt once)."""
        self.device = self.device.reconfigured(echo, n_rays)


def choose_sensor(robot: Robot, name: str | None, kind: SensorType) -> Sensor:
    """The sensor called ``name``, or the first of type ``kind``; an error says what there is."""
    if name:
        sensor = robot.sensor(name)
        if sensor.type is not kind:
            raise DescriptionError(
                f'is of type "{sensor.type.value}", not "{kind.value}"',
                file=robot.source, line=sensor.line, element=f'<sensor name="{name}">',
            )
        return sensor
    for sensor in robot.sensors:
        if sensor.type is kind:
            return sensor
    names = ', '.join(f'{s.name} ({s.type.value})' for s in robot.sensors) or 'none'
    raise DescriptionError(
        f'has no <sensor type="{kind.value}">; sensors: {names}', file=robot.source, element='<robot>',
    )


def build_sonar_rig(
    *,
    robot_file: str | None,
    world_file: str,
    robot_xml: str | None = None,
    sensor_name: str | None = None,
    robot_pose: Sequence[float] = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    n_rays: int = 500,
    echo_overrides: Mapping[str, Any] | None = None,
    robot: Robot | None = None,
    raycaster: Raycaster | None = None,
) -> SonarRig:
    """Read the robot and the world, choose the sonar, and place its cone in the world.

    ``robot`` and ``raycaster``, when given, are used instead of reading the files (sensors
    of one robot sharing one world: ``robot_sensors_node``).
    """
    if len(robot_pose) != 6:
        raise ConfigurationError(f'robot_pose must be [x, y, z, roll, pitch, yaw], got {list(robot_pose)!r}')
    if robot is None and robot_xml:
        robot = parse_robot(robot_xml, source='<robot_description>')
    elif robot is None and robot_file:
        robot = load_robot(robot_file)
    elif robot is None:
        raise ConfigurationError('no robot: give robot_description or robot_description_file')
    sensor = choose_sensor(robot, sensor_name, SensorType.SONAR)
    echo = sonar_echo_config(sensor.sonar, **dict(echo_overrides or {}))
    world_from_root = transform_from_xyz_rpy(robot_pose[:3], robot_pose[3:])
    world_from_optical = world_from_root @ robot.sensor_transform(sensor.name)
    device = SonarDevice(echo, n_rays, np.asarray(world_from_optical))
    if raycaster is None:
        raycaster = Raycaster(load_world(world_file))
    return SonarRig(
        robot=robot, sensor=sensor, device=device, raycaster=raycaster, world_from_root=world_from_root,
    )
