"""One device of every kind, built from settings records as a node builds it (no ROS).

``KINDS`` names each setup; :func:`setup_of` gives its records (with changes to any record's
fields), :func:`build` the device. Rays are few: these devices are for configuration tests.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from nps_sonar_py.description import Robot
from nps_sonar_py.devices import (
    Device,
    Family,
    Setup,
    build_device,
    load_robot_from,
)
from nps_sonar_py.devices.kinds import ModeSettings, family_records
from nps_sonar_py.devices.kinds.echosounder import EchosounderSettings
from nps_sonar_py.devices.kinds.multibeam import FanSettings
from nps_sonar_py.devices.kinds.sidescan import SidescanSettings
from nps_sonar_py.devices.kinds.sweep import SweepSettings
from nps_sonar_py.devices.settings import (
    BeamSettings,
    GeometrySettings,
    OutputSettings,
    RangerSettings,
    RobotSettings,
    ScanningSettings,
    SelectionSettings,
    SensorSettings,
)

ROBOTS = Path(__file__).resolve().parents[2] / 'config' / 'robots'

#: Each kind: its robot file and its setup's records (few rays: fast to build).
KINDS: dict[str, tuple[str, Setup]] = {
    'sonar': (
        'reference_sonar.urdf',
        Setup(Family.SONAR, SensorSettings(), OutputSettings(), BeamSettings(rays=20)),
    ),
    'array': (
        'sonar_ring.urdf',
        Setup(
            Family.RANGER,
            SelectionSettings('ring_0*'),
            RangerSettings(),
            GeometrySettings(),
            OutputSettings(update_rate=5.0),
            BeamSettings(rays=10),
        ),
    ),
    'scanner': (
        'ranger_scanner.urdf',
        Setup(
            Family.RANGER,
            SelectionSettings(),
            RangerSettings(),
            GeometrySettings(),
            OutputSettings(),
            BeamSettings(),
        ),
    ),
    'sweep': (
        'ranger_scanning_sonar.urdf',
        Setup(
            Family.SCANNING,
            SensorSettings(),
            ScanningSettings(min_angle=-0.3, max_angle=0.3),
            SweepSettings(step=0.1),
            GeometrySettings(),
            OutputSettings(),
            BeamSettings(rays=10),
        ),
    ),
    'multibeam': (
        'ranger_scanning_sonar.urdf',
        Setup(
            Family.SCANNING,
            SensorSettings(),
            ModeSettings('multibeam'),
            ScanningSettings(min_angle=-0.3, max_angle=0.3),
            FanSettings(beams=7, rays_vertical=4),
            GeometrySettings(),
            OutputSettings(update_rate=5.0),
            BeamSettings(),
        ),
    ),
    'sidescan': (
        'sidescan_sonar.urdf',
        Setup(
            Family.SCANNING,
            SensorSettings(),
            ModeSettings('sidescan'),
            GeometrySettings(),
            OutputSettings(update_rate=5.0),
            BeamSettings(range_bins=40),
            SidescanSettings(sidescan_rays_along=1),
        ),
    ),
    'echosounder': (
        'echosounder.urdf',
        Setup(
            Family.SCANNING,
            SensorSettings(),
            ModeSettings('echosounder'),
            GeometrySettings(),
            OutputSettings(update_rate=1.0),
            BeamSettings(),
            EchosounderSettings(swath_beams=7, rays_across_track=2, rays_along_track=2),
        ),
    ),
}

_ROBOTS: dict[str, Robot] = {}


def robot_file(name: str) -> Robot:
    """The robot of ``config/robots/<name>``, read anew."""
    return load_robot_from(RobotSettings(robot_description_file=str(ROBOTS / name)))


def robot_of(kind: str) -> Robot:
    """The robot of ``kind`` (read once)."""
    name = KINDS[kind][0]
    if name not in _ROBOTS:
        _ROBOTS[name] = robot_file(name)
    return _ROBOTS[name]


def setup_of(kind: str, record: type[Any] | None = None, **changes: Any) -> Setup:
    """The setup of ``kind`` with ``changes`` to the fields of its ``record`` (made anew)."""
    setup = KINDS[kind][1]
    if record is None:
        return setup
    if record not in family_records(setup.family):
        raise KeyError(f'{kind} has no {record.__name__}')
    return setup.replaced(dataclasses.replace(setup[record], **changes))


def build(kind: str, setup: Setup | None = None) -> Device[Any]:
    """The device of ``kind`` (or of ``setup`` on its robot)."""
    return build_device(robot_of(kind), setup or setup_of(kind))[1]
