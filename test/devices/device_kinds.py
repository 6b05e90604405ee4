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
    RangerSetup,
    ScanningSetup,
    SonarSetup,
    build_device,
    load_robot_from,
)
from nps_sonar_py.devices.build import DeviceSetup
from nps_sonar_py.devices.settings import (
    BeamSettings,
    EchosounderSettings,
    GeometrySettings,
    OutputSettings,
    RangerSettings,
    RobotSettings,
    ScanningSettings,
    SelectionSettings,
    SensorSettings,
    SidescanSettings,
)

ROBOTS = Path(__file__).resolve().parents[2] / 'config' / 'robots'

#: Each kind: its robot file and its setup's records (few rays: fast to build).
KINDS: dict[str, tuple[str, DeviceSetup]] = {
    'sonar': (
        'reference_sonar.urdf',
        SonarSetup(SensorSettings(), OutputSettings(), BeamSettings(rays=20)),
    ),
    'array': (
        'sonar_ring.urdf',
        RangerSetup(
            SelectionSettings('ring_0*'),
            RangerSettings(),
            GeometrySettings(),
            OutputSettings(update_rate=5.0),
            BeamSettings(rays=10),
        ),
    ),
    'scanner': (
        'ranger_scanner.urdf',
        RangerSetup(
            SelectionSettings(),
            RangerSettings(),
            GeometrySettings(),
            OutputSettings(),
            BeamSettings(),
        ),
    ),
    'sweep': (
        'ranger_scanning_sonar.urdf',
        ScanningSetup(
            SensorSettings(),
            ScanningSettings(min_angle=-0.3, max_angle=0.3, step=0.1),
            GeometrySettings(),
            OutputSettings(),
            BeamSettings(rays=10),
        ),
    ),
    'multibeam': (
        'ranger_scanning_sonar.urdf',
        ScanningSetup(
            SensorSettings(),
            ScanningSettings(
                mode='multibeam',  # type: ignore[arg-type]
                min_angle=-0.3,
                max_angle=0.3,
                beams=7,
                rays_vertical=4,
            ),
            GeometrySettings(),
            OutputSettings(update_rate=5.0),
            BeamSettings(),
        ),
    ),
    'sidescan': (
        'sidescan_sonar.urdf',
        ScanningSetup(
            SensorSettings(),
            ScanningSettings(mode='sidescan'),  # type: ignore[arg-type]
            GeometrySettings(),
            OutputSettings(update_rate=5.0),
            BeamSettings(range_bins=40),
            sidescan=SidescanSettings(sidescan_rays_along=1),
        ),
    ),
    'echosounder': (
        'echosounder.urdf',
        ScanningSetup(
            SensorSettings(),
            ScanningSettings(mode='echosounder'),  # type: ignore[arg-type]
            GeometrySettings(),
            OutputSettings(update_rate=1.0),
            BeamSettings(),
            echosounder=EchosounderSettings(
                swath_beams=7, rays_across_track=2, rays_along_track=2
            ),
        ),
    ),
}

_ROBOTS: dict[str, Robot] = {}


def robot_of(kind: str) -> Robot:
    """The robot of ``kind`` (read once)."""
    name = KINDS[kind][0]
    if name not in _ROBOTS:
        _ROBOTS[name] = load_robot_from(RobotSettings(robot_description_file=str(ROBOTS / name)))
    return _ROBOTS[name]


def setup_of(kind: str, record: type[Any] | None = None, **changes: Any) -> DeviceSetup:
    """The setup of ``kind`` with ``changes`` to the fields of its ``record`` (made anew)."""
    setup = KINDS[kind][1]
    if record is None:
        return setup
    for f in dataclasses.fields(setup):
        old = getattr(setup, f.name)
        if type(old) is record:
            return dataclasses.replace(setup, **{f.name: dataclasses.replace(old, **changes)})
    raise KeyError(f'{kind} has no {record.__name__}')


def build(kind: str, setup: DeviceSetup | None = None) -> Device[Any]:
    """The device of ``kind`` (or of ``setup`` on its robot)."""
    return build_device(robot_of(kind), setup or setup_of(kind))[1]
