"""Range estimation and the acoustic intensity of a single-beam sonar or ranger (numpy, scipy).

Modules:

- ``beam``: axially symmetric beam patterns (piston, Gaussian, sinc, uniform) by beam width.
- ``absorption``: Francois-Garrison, Thorp and ISO 9613-1 absorption; sound speed; ping rate.
- ``reflectivity``: Gazebo ``laser_retro`` to a Lambert coefficient.
- ``noise``: SDF-style range noise and speckle, off by default.
- ``config``: ``EchoConfig``, everything about a sensor the model needs, and its choices
  (``Scattering``, ``RangeEstimator``, ``CastLimit``).
- ``model``: ``EchoModel``, from ray hits to a ``Ping`` (profile, range, confidence), or to
  ``Echoes`` of many beams at once.
- ``records``: what the model returns, ``Ping`` and ``Echoes``, and the ``ExtraReturns`` it
  takes beside the rays (multipath ghosts).
- ``deposits``: the flat layout of the beams' bins the model sums its returns in.
- ``ray_cells``: a fan's rays' angular cells, and where the echo of a whole cell falls in
  range (the side-scan's nadir and first return).
- ``profile_effects``: what an imaging sonar applies to its beams' profiles (time-varied
  gain, speckle per cell, side-lobe leakage).
- ``checks``: the checks every configuration record shares (one message format), public so
  that the records of other layers use the same ones.

The physics, its sources and the analytic test cases are in ``docs/physics.md``.
"""

from nps_sonar_py.echo.absorption import (
    Absorption,
    Environment,
    Medium,
    absorption_db_per_m,
    francois_garrison,
    iso9613_air,
    min_ping_interval,
    sound_speed_air,
    sound_speed_water,
    thorp,
)
from nps_sonar_py.echo.beam import (
    BeamPattern,
    beam_intensity,
    first_null_half_angle,
    piston_diameter,
    piston_ka,
)
from nps_sonar_py.echo.config import (
    WEBOTS_CRITICAL_ANGLE,
    CastLimit,
    EchoConfig,
    RangeEstimator,
    Scattering,
)
from nps_sonar_py.echo.model import EchoModel, cos_incidence
from nps_sonar_py.echo.noise import NoiseType, RangeNoise, coherent_speckle
from nps_sonar_py.echo.records import Echoes, ExtraReturns, Ping
from nps_sonar_py.echo.reflectivity import DEFAULT_LAMBERT, lambert_from_retro

__all__ = [
    'DEFAULT_LAMBERT',
    'WEBOTS_CRITICAL_ANGLE',
    'Absorption',
    'BeamPattern',
    'CastLimit',
    'EchoConfig',
    'EchoModel',
    'Echoes',
    'Environment',
    'ExtraReturns',
    'Medium',
    'NoiseType',
    'Ping',
    'RangeEstimator',
    'RangeNoise',
    'Scattering',
    'absorption_db_per_m',
    'beam_intensity',
    'coherent_speckle',
    'cos_incidence',
    'first_null_half_angle',
    'francois_garrison',
    'iso9613_air',
    'lambert_from_retro',
    'min_ping_interval',
    'piston_diameter',
    'piston_ka',
    'sound_speed_air',
    'sound_speed_water',
    'thorp',
]
