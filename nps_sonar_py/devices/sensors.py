"""Choosing a robot's sensors for a device, and what every kind's builder shares.

Which ``<sensor>`` a device is made of (:func:`choose_sensor`, :func:`select_sensors`), an
error located at a sensor's element (:func:`sensor_error`, :func:`located`), the reading
rate of a sensor (:func:`reading_rate`) and element poses. No rclpy here.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.description import Robot, Sensor, SensorType
from nps_sonar_py.devices.interface import frequency_problem
from nps_sonar_py.devices.mount import SensorMount
from nps_sonar_py.devices.settings import GeometrySettings, OutputSettings, SensorSettings
from nps_sonar_py.errors import ConfigurationError, DescriptionError
from nps_sonar_py.limits import MAX_ANGLE, MAX_POSITION
from nps_sonar_py.transforms import transform_from_xyz_rpy

__all__ = [
    'DEFAULT_RATE_HZ',
    'choose_sensor',
    'element_poses_from_flat',
    'located',
    'one_sonar_mount',
    'pose_problem',
    'reading_rate',
    'ring_poses',
    'scanning_sonar_mount',
    'select_sensors',
    'sensor_error',
]

#: Readings per second when neither the settings nor the ``<sensor update_rate>`` give one.
DEFAULT_RATE_HZ = 10.0


def pose_problem(values: Sequence[float]) -> str | None:
    """Why ``[x, y, z, roll, pitch, yaw]`` is not a pose within ``nps_sonar_py.limits``."""
    if not all(math.isfinite(v) for v in values):
        return 'must be finite (no nan or inf)'
    if any(abs(v) > MAX_POSITION for v in values[:3]):
        return f'positions must be within {MAX_POSITION:g} m'
    if any(abs(v) > MAX_ANGLE for v in values[3:]):
        return f'angles must be within {MAX_ANGLE:g} rad'
    return None


def _listing(robot: Robot) -> str:
    return ', '.join(f'{s.name} ({s.type.value})' for s in robot.sensors) or 'none'


def choose_sensor(robot: Robot, name: str | None, kind: SensorType) -> Sensor:
    """The sensor called ``name``, or the first of type ``kind``; an error says what there is."""
    if name:
        sensor = robot.sensor(name)
        if sensor.type is not kind:
            raise sensor_error(sensor, f'is of type "{sensor.type.value}", not "{kind.value}"')
        return sensor
    for sensor in robot.sensors:
        if sensor.type is kind:
            return sensor
    raise DescriptionError(
        f'has no <sensor type="{kind.value}">; sensors: {_listing(robot)}',
        file=robot.source,
        element='<robot>',
    )


def select_sensors(robot: Robot, patterns: str) -> list[Sensor]:
    """The sensors named by ``patterns``: comma-separated names or shell globs, in URDF order.

    Empty: the first ``ray`` sensor, else every ``sonar`` sensor. A name that matches nothing
    is an error listing the robot's sensors.
    """
    names = [p.strip() for p in patterns.split(',') if p.strip()]
    chosen: list[Sensor] = []
    if not names:
        rays = robot.sensors_of_type(SensorType.RAY)
        chosen += list(rays[:1]) or list(robot.sensors_of_type(SensorType.SONAR))
        if not chosen:
            raise DescriptionError(
                f'has no ray or sonar <sensor>; sensors: {_listing(robot)}',
                file=robot.source,
                element='<robot>',
            )
        return chosen
    for pattern in names:
        matched = [s for s in robot.sensors if fnmatch.fnmatchcase(s.name, pattern)]
        if not matched:
            raise DescriptionError(
                f'no <sensor> matches "{pattern}"; sensors: {_listing(robot)}',
                file=robot.source,
                element='<robot>',
            )
        chosen += [s for s in matched if s not in chosen]
    return chosen


def element_poses_from_flat(values: Sequence[float]) -> NDArray[np.float64]:
    """(k, 4, 4) poses from ``[x, y, z, roll, pitch, yaw] * k`` (URDF conventions, m and rad)."""
    flat = [float(v) for v in values]
    if len(flat) % 6 or not flat:
        raise ConfigurationError(
            f'element_poses needs 6 numbers (x y z roll pitch yaw) per element, got {len(flat)}'
        )
    rows = np.array(flat).reshape(-1, 6)
    for k, row in enumerate(rows.tolist()):
        problem = pose_problem(row)
        if problem:
            raise ConfigurationError(f'element_poses: element {k} {problem}, got {row!r}')
    return np.array([transform_from_xyz_rpy(row[:3], row[3:]) for row in rows])


def ring_poses(count: int, radius: float, *, start: float = 0.0) -> NDArray[np.float64]:
    """(count, 4, 4) elements on a circle about +z looking outwards, the first at ``start`` rad."""
    yaw = start + 2.0 * math.pi * np.arange(count) / count
    poses = np.tile(np.eye(4), (count, 1, 1))
    c, s = np.cos(yaw), np.sin(yaw)
    poses[:, 0, 0], poses[:, 0, 1], poses[:, 1, 0], poses[:, 1, 1] = c, -s, s, c
    poses[:, 0, 3], poses[:, 1, 3] = radius * c, radius * s
    return poses


def sensor_error(sensor: Sensor, problem: str) -> DescriptionError:
    """An error at ``sensor``'s element: in its file, or in xacro's output, marked so."""
    return DescriptionError(
        problem, file=sensor.source, line=sensor.line, element=f'<sensor name="{sensor.name}">'
    )


def reading_rate(output: OutputSettings, sensor: Sensor) -> float:
    """Readings per second: the setting, else the sensor's, within the devices' bounds."""
    rate = float(output.update_rate or sensor.update_rate or DEFAULT_RATE_HZ)
    problem = frequency_problem(rate)
    if problem:
        raise ConfigurationError(f'update_rate: {problem}')
    return rate


D = TypeVar('D')


def located(sensor: Sensor, make: Callable[[], D]) -> D:
    """``make()``, with a ``ConfigurationError`` turned into an error located at ``sensor``."""
    try:
        return make()
    except ConfigurationError as error:
        raise sensor_error(sensor, str(error)) from None


def one_sonar_mount(
    robot: Robot, sensor_name: str, frame_id: str, element_size: tuple[float, ...]
) -> tuple[Sensor, SensorMount]:
    """The sonar ``sensor_name`` (or the first) on its mount, in ``frame_id`` (or its own)."""
    sensor = choose_sensor(robot, sensor_name or None, SensorType.SONAR)
    frame = frame_id or sensor.name
    poses = np.eye(4)[None]
    mount = SensorMount(robot, sensor, sensor.name, frame, (frame,), element_size, poses)
    return sensor, mount


def scanning_sonar_mount(
    robot: Robot, chosen: SensorSettings, geometry: GeometrySettings
) -> tuple[Sensor, SensorMount]:
    """:func:`one_sonar_mount` as the scanning node's kinds choose it: from their records."""
    return one_sonar_mount(robot, chosen.sensor, chosen.frame_id, geometry.element_size)
