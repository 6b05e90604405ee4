"""Ray patterns and devices, in the sensor's body frame (x forward, REP 103).

A single-beam sonar's cone (``cone``, ``sonar``), ray scanners (``scan``), scanning and
multibeam sonars (``sweep``, ``multibeam``) and the Ranger devices built on them
(``ranger``; docs/ranger.md).
"""

from nps_sonar_py.sensing.cone import RayPattern, cone_half_angle, cone_pattern
from nps_sonar_py.sensing.multibeam import FanConfig, MultibeamSonar
from nps_sonar_py.sensing.ranger import RangerConfig, RangerGeometry, ScannerRanger, SonarArray
from nps_sonar_py.sensing.scan import IntensityMode, ScanConfig, Scanner
from nps_sonar_py.sensing.sweep import ScanningSonar, SweepConfig

__all__ = [
    'FanConfig',
    'IntensityMode',
    'MultibeamSonar',
    'RangerConfig',
    'RangerGeometry',
    'RayPattern',
    'ScanConfig',
    'Scanner',
    'ScannerRanger',
    'ScanningSonar',
    'SonarArray',
    'SweepConfig',
    'cone_half_angle',
    'cone_pattern',
]
