"""Devices: every simulated sensor built from a robot, a world and typed settings.

One :class:`Device` protocol (``interface``) that every device implements, and one module
per kind of device in ``kinds`` (single beam, array, scanner, sweep, multibeam, side-scan,
echosounder), registered in one table, ``kinds.KINDS``. ``settings`` holds the records
the kinds share, ``build`` makes a device of a :class:`Setup`, ``mount`` places it on its
robot and ``rig`` puts robot and device in a world. ``docs/architecture.md`` shows how the
layers meet. No rclpy.
"""

from nps_sonar_py.devices.build import (
    build_device,
    choose_kind,
    load_robot_from,
    reference_robot_file,
    reference_world_file,
    robot_root_pose,
)
from nps_sonar_py.devices.interface import (
    Beam,
    Device,
    RangerConfig,
    RangerGeometry,
    config_problem,
)
from nps_sonar_py.devices.kinds import KINDS, Family, Kind, Setup
from nps_sonar_py.devices.kinds.echosounder import EchosounderRanger
from nps_sonar_py.devices.kinds.multibeam import FanRanger
from nps_sonar_py.devices.kinds.sidescan import SidescanRanger, SidescanReading
from nps_sonar_py.devices.kinds.sweep import SweepRanger, SweepReading, SweepScan
from nps_sonar_py.devices.mount import RobotMount
from nps_sonar_py.devices.rig import Rig
from nps_sonar_py.devices.scanner import ScannerRanger
from nps_sonar_py.devices.sensors import (
    choose_sensor,
    element_poses_from_flat,
    ring_poses,
    select_sensors,
)
from nps_sonar_py.devices.sonar import ArrayReading, SingleBeamSonar, SonarArray

__all__ = [
    'KINDS',
    'ArrayReading',
    'Beam',
    'Device',
    'EchosounderRanger',
    'Family',
    'FanRanger',
    'Kind',
    'RangerConfig',
    'RangerGeometry',
    'Rig',
    'RobotMount',
    'ScannerRanger',
    'Setup',
    'SidescanRanger',
    'SidescanReading',
    'SingleBeamSonar',
    'SonarArray',
    'SweepRanger',
    'SweepReading',
    'SweepScan',
    'build_device',
    'choose_kind',
    'choose_sensor',
    'config_problem',
    'element_poses_from_flat',
    'load_robot_from',
    'reference_robot_file',
    'reference_world_file',
    'ring_poses',
    'robot_root_pose',
    'select_sensors',
]
