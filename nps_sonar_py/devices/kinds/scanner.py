"""The ray scanner (``ranger_node``): one ``<sensor type="ray">`` (``docs/ranger.md``).

One row publishes ``LaserScan``, several an organised ``PointCloud2``, with ``RangerData``
(``ros/outputs.py``, part ``scanner``). Its settings are the ranger node's
(``RangerSettings``: ``device_name``, ``intensity``).
"""

from __future__ import annotations

import numpy as np

from nps_sonar_py.description import Robot, SensorType
from nps_sonar_py.devices.kinds.base import Built, Family, Kind, Setup
from nps_sonar_py.devices.mount import SensorMount
from nps_sonar_py.devices.scanner import ScannerRanger
from nps_sonar_py.devices.sensors import located, reading_rate, select_sensors, sensor_error
from nps_sonar_py.devices.settings import (
    BeamSettings,
    GeometrySettings,
    OutputSettings,
    RangerSettings,
    SelectionSettings,
)
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.sensing.scan import ScanConfig

__all__ = ['KIND']


def build(robot: Robot, setup: Setup, _entities: int) -> Built:
    """The one ray sensor ``sensors`` selects; an array of them is refused."""
    sensors = select_sensors(robot, setup[SelectionSettings].sensors)
    ranger = setup[RangerSettings]
    sensor = sensors[0]
    if len(sensors) > 1:
        raise sensor_error(
            sensors[1], 'an array of ray sensors is not supported; name one ray sensor'
        )
    if ranger.element_poses:
        raise ConfigurationError('element_poses applies to a sonar, not to a ray sensor')
    limits = located(
        sensor,
        lambda: ScanConfig.from_ray_spec(
            sensor.ray,
            update_rate=reading_rate(setup[OutputSettings], sensor),
            intensity=ranger.intensity,
            seed=setup[BeamSettings].noise_seed,
        ),
    )
    name = ranger.device_name or sensor.name
    mount = SensorMount(
        robot, sensor, name, name, (name,), setup[GeometrySettings].element_size, np.eye(4)[None]
    )
    geometry = mount.geometry({})
    return mount, ScannerRanger(limits, geometry.pose, geometry)


KIND = Kind(
    name='scanner',
    family=Family.RANGER,
    summary='a ray sensor',
    device=ScannerRanger,
    build=build,
    outputs=('scanner',),
    sensor=SensorType.RAY,
)
