"""Ray patterns and the sensors made of them, in the sensor's body frame (x forward, REP 103).

A single-beam sonar's cone (``cone``), ray scanners (``scan``), scanning and multibeam
sonars (``sweep``, ``multibeam``), a side-scan and its waterfall (``sidescan``,
``waterfall``), and what they need of a raycaster (``caster``). The
devices built on them live in ``nps_sonar_py.devices``.
"""

from nps_sonar_py.sensing.caster import RayHits, SurfaceCaster
from nps_sonar_py.sensing.cone import RayPattern, cone_half_angle, cone_pattern
from nps_sonar_py.sensing.multibeam import FanConfig, MultibeamSonar
from nps_sonar_py.sensing.scan import IntensityMode, ScanConfig, Scanner
from nps_sonar_py.sensing.sidescan import SidescanConfig, SidescanPing, SidescanSonar
from nps_sonar_py.sensing.sweep import ScanningSonar, SweepConfig
from nps_sonar_py.sensing.waterfall import Waterfall, ground_range_profiles

__all__ = [
    'FanConfig',
    'IntensityMode',
    'MultibeamSonar',
    'RayHits',
    'RayPattern',
    'ScanConfig',
    'Scanner',
    'ScanningSonar',
    'SidescanConfig',
    'SidescanPing',
    'SidescanSonar',
    'SurfaceCaster',
    'SweepConfig',
    'Waterfall',
    'cone_half_angle',
    'cone_pattern',
    'ground_range_profiles',
]
