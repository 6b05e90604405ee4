"""Devices: every simulated sensor built from a robot, a world and typed settings.

One :class:`Device` protocol (``interface``) that every device implements: a single-beam
sonar or an array of them (``sonar``), a ray scanner (``scanner``), a scanning or multibeam
sonar (``scanning``). ``settings`` holds the typed records every configuration is read
into, ``build`` makes a device of them, ``mount`` places it on its robot and ``rig`` puts
robot and device in a world. ``docs/architecture.md`` shows how the layers meet. No rclpy.
"""

from nps_sonar_py.devices.build import (
    DeviceSetup,
    RangerSetup,
    ScanningSetup,
    SonarSetup,
    build_device,
    choose_sensor,
    element_poses_from_flat,
    load_robot_from,
    reference_robot_file,
    reference_world_file,
    ring_poses,
    robot_root_pose,
    select_sensors,
)
from nps_sonar_py.devices.echosounder import EchosounderRanger
from nps_sonar_py.devices.interface import (
    Beam,
    Device,
    RangerConfig,
    RangerGeometry,
    config_problem,
)
from nps_sonar_py.devices.mount import RobotMount
from nps_sonar_py.devices.rig import Rig
from nps_sonar_py.devices.scanner import ScannerRanger
from nps_sonar_py.devices.scanning import FanRanger, SweepRanger, SweepReading, SweepScan
from nps_sonar_py.devices.sonar import ArrayReading, SingleBeamSonar, SonarArray

__all__ = [
    'ArrayReading',
    'Beam',
    'Device',
    'DeviceSetup',
    'EchosounderRanger',
    'FanRanger',
    'RangerConfig',
    'RangerGeometry',
    'RangerSetup',
    'Rig',
    'RobotMount',
    'ScannerRanger',
    'ScanningSetup',
    'SingleBeamSonar',
    'SonarArray',
    'SonarSetup',
    'SweepRanger',
    'SweepReading',
    'SweepScan',
    'build_device',
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
