"""The configuration of the echo model: ``EchoConfig`` and the choices it names.

``EchoConfig`` holds everything about a single-beam sensor that ``EchoModel`` needs, checked
on creation by the one mechanism of every setting (``records``: bounds declared once, here,
and taken by the ROS parameters that set the same quantity through ``same_as``); enum fields
take enum members only (the ROS parameters are converted once, in ``devices/settings.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from nps_sonar_py.echo.absorption import (
    Absorption,
    Environment,
    absorption_db_per_m,
    min_ping_interval,
)
from nps_sonar_py.echo.beam import BeamPattern, first_null_half_angle
from nps_sonar_py.echo.noise import RangeNoise
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.records import Record, setting

__all__ = ['WEBOTS_CRITICAL_ANGLE', 'CastLimit', 'EchoConfig', 'RangeEstimator', 'Scattering']

#: Webots' sonar cut-off: rays whose incidence exceeds 22.5 degrees never return
#: (cyberbotics/webots ``docs/reference/distancesensor.md``).
WEBOTS_CRITICAL_ANGLE = math.pi / 8
HALF_PI = math.pi / 2


class Scattering(Enum):
    """How a surface returns sound: diffuse (Lambert) or mirror-like (specular lobe)."""

    LAMBERT = 'lambert'
    SPECULAR = 'specular'


class RangeEstimator(Enum):
    """How the scalar range of a ping is derived.

    * ``NEAREST``: the nearest return, as Gazebo's sonar and Webots' ``sonar`` type.
    * ``MEAN_IN_BEAM``: the solid-angle weighted mean range of the returns in
      ``[min_range, max_range]`` whose rays lie within the one-way -3 dB half width
      ``beam_width / 2`` (the mean of the distances over the rays of at most 3 dB loss,
      ``docs/physics.md#range-bins-and-estimators``); with equal-solid-angle rays it is their
      plain mean.
    * ``INTENSITY_WEIGHTED``: the intensity-weighted mean of the bin centres of the profile
      (after any speckle and gain noise), so resolved to the bin width.
    * ``FIRST_ABOVE_THRESHOLD``: the centre of the first bin whose level
      ``source_level + 10 log10(I_k)`` is at least ``threshold_db`` and whose intensity is
      positive (echosounder style).
    """

    NEAREST = 'nearest'
    MEAN_IN_BEAM = 'mean_in_beam'
    INTENSITY_WEIGHTED = 'intensity_weighted'
    FIRST_ABOVE_THRESHOLD = 'first_above_threshold'


class CastLimit(Enum):
    """Named half angles of the cast cone: the -3 dB half width or the pattern's first null."""

    HALF_POWER = 'half_power'
    FIRST_NULL = 'first_null'


@dataclass(frozen=True)
class EchoConfig(Record):
    """Everything about a single-beam sensor that the echo model needs, validated on creation.

    Enum fields take enum members only (a string is refused: ``devices/settings.py`` turns
    the ROS parameters into members). Every invalid value raises
    ``ConfigurationError('<field> must be <what>, got <value>')`` (``records``). Defaults
    describe a Blue Robotics Ping2-like echosounder (``docs/physics.md#defaults``).

    Attributes:
        beam_width: one-way -3 dB full beam width, radians, in [1e-6, 3.14].
        pattern: one-way intensity pattern (``beam.BeamPattern``).
        n_way: 1 (pattern applied once) or 2 (same transducer transmits and receives).
        cast_limit: half angle of the cone of rays to cast: ``CastLimit.HALF_POWER``
            (``beam_width / 2``, the 3 dB gate of ``docs/physics.md#the-model``, which holds
            ~49 % of the one-way and ~77 % of the two-way energy of the default 25 degree
            piston), ``CastLimit.FIRST_NULL``, or
            an angle in radians in [1e-6, pi/2]. Rays beyond it are ignored.
        min_range: near end of the range window, m, >= 0 (SDF's sonar default is 0).
        max_range: far end of the range window, m, > min_range.
        n_bins: number of range bins, >= 1 (each sonar caps its own: ``range_bins``).
        frequency: carrier frequency, Hz, in [1, 1e8] (absorption and wavelength).
        environment: medium, temperature, salinity, ... (``absorption.Environment``).
        sound_speed: m/s, in [1, 10000]; ``None`` derives it from ``environment``.
        absorption: absorption model; ``AUTO`` is Francois-Garrison in water, ISO 9613-1 in air.
        fixed_absorption: one-way dB/m used by ``Absorption.FIXED``, in [0, 1000].
        scattering: ``LAMBERT`` (diffuse) or ``SPECULAR`` (image source, smooth walls in air).
        specular_lobe_width: width ``sigma`` of the specular lobe
            ``exp((cos(alpha) - 1) / sigma**2)``, radians, in (0, pi/4]; about the angular
            spread of ``alpha``.
        specular_cutoff: drop rays whose incidence exceeds ``critical_angle`` (Webots rule).
        critical_angle: incidence cut-off in radians, in (0, pi/2]; default pi/8 (Webots).
        source_level: SL in dB (re 1 uPa at 1 m, or 0 for levels relative to the source).
        estimator: how the scalar range is derived (``RangeEstimator``).
        threshold_db: level in dB for ``FIRST_ABOVE_THRESHOLD``; ``-inf`` takes the first
            non-empty bin.
        range_noise: SDF-style noise on the scalar range (``noise.RangeNoise``), off by default.
        speckle: coherent-sum speckle on the profile (``noise.coherent_speckle``), off by default.
        gain_stddev: standard deviation of a per-ping multiplicative gain ``N(1, s)`` (clipped
            at 0) on the profile, >= 0; 0 is off.
        seed: seed of the model's random generator (``numpy.random.default_rng``), ``None`` for
            fresh entropy; only drawn from when some noise is on.
    """

    members_only = True

    beam_width: float = setting(
        math.radians(25.0), 'one-way -3 dB full beam width [rad]', 1e-6, 3.14
    )
    pattern: BeamPattern = setting(BeamPattern.PISTON, 'one-way intensity pattern')
    n_way: int = setting(2, 'pattern applied once (1) or on transmit and receive (2)', 1, 2)
    cast_limit: CastLimit | float = setting(
        CastLimit.HALF_POWER,
        'cone of rays cast: a named limit or a half angle [rad]',
        1e-6,
        HALF_PI,
    )
    min_range: float = setting(0.5, 'near end of the range window [m]', 0.0)
    max_range: float = setting(30.0, 'far end of the range window [m], > min_range', 0.0)
    n_bins: int = setting(200, 'bins of the intensity profile', 1)
    frequency: float = setting(115e3, 'carrier frequency [Hz]', 1.0, 1e8)
    environment: Environment = setting(Environment(), 'the medium and its state')
    sound_speed: float | None = setting(
        None, "speed of sound [m/s]; None: the environment's", 1.0, 10000.0
    )
    absorption: Absorption = setting(Absorption.AUTO, 'absorption model')
    fixed_absorption: float = setting(
        0.0, 'one-way absorption of Absorption.FIXED [dB/m]', 0.0, 1000.0
    )
    scattering: Scattering = setting(Scattering.LAMBERT, 'diffuse or mirror-like surfaces')
    specular_lobe_width: float = setting(
        math.radians(1.0), 'width of the specular lobe [rad]', 0.0, math.pi / 4, above=True
    )
    specular_cutoff: bool = setting(False, 'drop rays beyond critical_angle (Webots)')
    critical_angle: float = setting(
        WEBOTS_CRITICAL_ANGLE, 'incidence cut-off [rad]', 0.0, HALF_PI, above=True
    )
    source_level: float = setting(0.0, 'source level [dB re 1 uPa at 1 m]', -1000.0, 1000.0)
    estimator: RangeEstimator = setting(RangeEstimator.NEAREST, 'how the range is derived')
    threshold_db: float = setting(-math.inf, 'level of first_above_threshold [dB]', -math.inf)
    range_noise: RangeNoise = setting(RangeNoise(), 'SDF-style noise on the range')
    speckle: bool = setting(False, 'coherent-sum speckle on the profile')
    gain_stddev: float = setting(0.0, 'standard deviation of the gain N(1, s)', 0.0, 10.0)
    seed: int | None = setting(None, 'seed of the random generator', 0, 2**31 - 1)

    def __post_init__(self) -> None:
        """Each field by the one mechanism (``records``), then the relations between fields."""
        super().__post_init__()
        if not self.max_range > self.min_range:
            raise ConfigurationError(
                f'max_range must be > min_range ({self.min_range!r}), got {self.max_range!r}'
            )
        if self.cast_limit is CastLimit.FIRST_NULL and not self.cast_half_angle <= HALF_PI:
            raise ConfigurationError(
                f'cast_limit must be an angle in radians: the {self.pattern.value} pattern of '
                f"this width has no null before pi/2, got 'first_null'"
            )
        # Raises on a water model in air and vice versa.
        absorption_db_per_m(
            self.absorption, self.frequency, self.environment, self.fixed_absorption
        )

    @property
    def cast_half_angle(self) -> float:
        """Half angle in radians of the cone of rays to cast, for ``cone_pattern``."""
        if self.cast_limit is CastLimit.HALF_POWER:
            return 0.5 * self.beam_width
        if self.cast_limit is CastLimit.FIRST_NULL:
            return first_null_half_angle(self.pattern, self.beam_width)
        return float(self.cast_limit)

    @property
    def speed_of_sound(self) -> float:
        """``sound_speed``, or the environment's when it is ``None``, m/s."""
        return self.sound_speed if self.sound_speed is not None else self.environment.sound_speed

    @property
    def wavelength(self) -> float:
        """Acoustic wavelength in metres, ``c / f``."""
        return self.speed_of_sound / self.frequency

    @property
    def effective_absorption(self) -> float:
        """One-way absorption in force, dB/m: the chosen model's at ``frequency``.

        Not ``fixed_absorption``, the value ``Absorption.FIXED`` uses (the setting
        ``absorption_db_per_m``); this is what every model gives, that one included.
        """
        return absorption_db_per_m(
            self.absorption, self.frequency, self.environment, self.fixed_absorption
        )

    @property
    def min_ping_interval(self) -> float:
        """Shortest time between pings, ``2 max_range / c``, seconds."""
        return min_ping_interval(self.max_range, self.speed_of_sound)

    @property
    def bin_width(self) -> float:
        """Width of a range bin, m."""
        return (self.max_range - self.min_range) / self.n_bins

    @property
    def noise_enabled(self) -> bool:
        """Whether any random effect is on (then pings draw from the random generator)."""
        return self.range_noise.enabled or self.speckle or self.gain_stddev > 0.0
