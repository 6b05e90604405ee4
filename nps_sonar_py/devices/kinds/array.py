"""An array of sonars (``ranger_node``): several ``<sensor type="sonar">``, or one posed.

One sonar becomes an array with ``element_poses`` (``docs/ranger.md``). Each element
publishes ``Range`` in its own frame, the device ``RangerData``
(``ros/outputs.py``, part ``array``). Its settings are the ranger node's (``RangerSettings``:
``element_poses``, ``device_name``, ``range_resolution``) and the beam's.
"""

from __future__ import annotations

import numpy as np

from nps_sonar_py.description import Robot, Sensor, SensorType
from nps_sonar_py.devices.kinds.base import Built, Family, Kind, Setup
from nps_sonar_py.devices.memory import budget_problem, echo_sizes
from nps_sonar_py.devices.mount import ArrayMount, RobotMount, SensorMount
from nps_sonar_py.devices.sensors import (
    element_poses_from_flat,
    located,
    reading_rate,
    select_sensors,
    sensor_error,
)
from nps_sonar_py.devices.settings import (
    BeamSettings,
    GeometrySettings,
    OutputSettings,
    RangerSettings,
    SelectionSettings,
)
from nps_sonar_py.devices.sonar import SonarArray
from nps_sonar_py.errors import ConfigurationError

__all__ = ['KIND']


def _same_beam(a: Sensor, b: Sensor) -> bool:
    first, second = a.sonar, b.sonar
    return bool(
        np.allclose(
            [first.min, first.max, first.radius],
            [second.min, second.max, second.radius],
            rtol=1e-12,
            atol=0.0,
        )
    )


def build(robot: Robot, setup: Setup, _entities: int) -> Built:
    """The sonars ``sensors`` selects (one beam for all), or one with ``element_poses``."""
    sensors = select_sensors(robot, setup[SelectionSettings].sensors)
    ranger, beam = setup[RangerSettings], setup[BeamSettings]
    first = sensors[0]
    for other in sensors[1:]:
        if not _same_beam(other, first):
            raise sensor_error(
                other,
                f'the elements of an array need the <sonar> (min, max, radius) of "{first.name}"',
            )
    size = setup[GeometrySettings].element_size
    if ranger.element_poses:
        if len(sensors) > 1:
            raise ConfigurationError(
                'element_poses applies to one sonar; several <sensor> were named'
            )
        name = ranger.device_name or first.name
        element_poses = element_poses_from_flat(ranger.element_poses)
        frames = tuple(f'{name}_{k}' for k in range(len(element_poses)))
        mount: RobotMount = SensorMount(robot, first, name, name, frames, size, element_poses)
    else:  # the device frame: at the centroid of the elements, parallel to the root link
        name = ranger.device_name or (first.name if len(sensors) == 1 else 'ranger')
        frames = tuple(s.name for s in sensors)
        mount = ArrayMount(robot, sensors, name, name, frames, size)
    geometry = mount.geometry({})
    n = len(geometry.element_frames)  # its elements, known from the robot: held to the budget here
    problem = budget_problem(
        echo_sizes(
            (f'{n} elements', n),
            (f'rays {beam.rays} x {n} elements', beam.rays * n),
            beam.range_bins,
            coherent=False,
        )
    )
    if problem:
        raise ConfigurationError(problem)
    device = located(
        first,
        lambda: SonarArray(
            beam.echo_config(first.sonar),
            geometry.pose,
            geometry,
            n_rays=beam.rays,
            range_resolution=ranger.range_resolution,
            frequency=reading_rate(setup[OutputSettings], first),
            multipath=beam.multipath_config(),
        ),
    )
    return mount, device


KIND = Kind(
    name='array',
    family=Family.RANGER,
    summary='sonars as one device',
    device=SonarArray,
    build=build,
    outputs=('array',),
    sensor=SensorType.SONAR,
)
