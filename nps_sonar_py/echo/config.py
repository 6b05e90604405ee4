"""The configuration of the echo model: ``EchoConfig`` and the choices it names.

``EchoConfig`` holds everything about a single-beam sensor that ``EchoModel`` needs, checked
on creation with one message format (``checks``); enum fields take enum members only (the ROS
parameters are converted once, in ``devices/settings.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

import numpy as np

from nps_sonar_py.echo.absorption import (
    Absorption,
    Environment,
    absorption_db_per_m,
    min_ping_interval,
)
from nps_sonar_py.echo.beam import BeamPattern, first_null_half_angle
from nps_sonar_py.echo.checks import check, enum_member, fail, finite
from nps_sonar_py.echo.noise import RangeNoise

__all__ = ['WEBOTS_CRITICAL_ANGLE', 'CastLimit', 'EchoConfig', 'RangeEstimator', 'Scattering']

#: Webots' sonar cut-off: rays whose incidence exceeds 22.5 degrees never return
#: (cyberbotics/webots ``docs/reference/distancesensor.md``).
WEBOTS_CRITICAL_ANGLE = math.pi / 8


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
class EchoConfig:
    """Everything about a single-beam sensor that the echo model needs, validated on creation.

    Enum fields take enum members only (a string is refused: ``devices/settings.py`` turns
    the ROS parameters into members). Every invalid value raises
    ``ConfigurationError('<field>: <reason>, got <value>')``. Defaults describe a
    Blue Robotics Ping2-like echosounder (``docs/physics.md#defaults``).

    Attributes:
        beam_width: one-way -3 dB full beam width, radians, in (0, pi).
        pattern: one-way intensity pattern (``beam.BeamPattern``).
        n_way: 1 (pattern applied once) or 2 (same transducer transmits and receives).
        cast_limit: half angle of the cone of rays to cast: ``CastLimit.HALF_POWER``
            (``beam_width / 2``, the 3 dB gate of ``docs/physics.md#the-model``, which holds
            ~49 % of the one-way and ~77 % of the two-way energy of the default 25 degree
            piston), ``CastLimit.FIRST_NULL``, or
            an angle in radians in (0, pi/2]. Rays beyond it are ignored.
        min_range: near end of the range window, m, >= 0 (SDF's sonar default is 0).
        max_range: far end of the range window, m, > min_range.
        n_bins: number of range bins, >= 1.
        frequency: carrier frequency, Hz, > 0 (absorption and wavelength).
        environment: medium, temperature, salinity, ... (``absorption.Environment``).
        sound_speed: m/s, > 0; ``None`` derives it from ``environment``.
        absorption: absorption model; ``AUTO`` is Francois-Garrison in water, ISO 9613-1 in air.
        fixed_absorption: one-way dB/m used by ``Absorption.FIXED``, >= 0.
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

    beam_width: float = math.radians(25.0)
    pattern: BeamPattern = BeamPattern.PISTON
    n_way: int = 2
    cast_limit: CastLimit | float = CastLimit.HALF_POWER
    min_range: float = 0.5
    max_range: float = 30.0
    n_bins: int = 200
    frequency: float = 115e3
    environment: Environment = Environment()
    sound_speed: float | None = None
    absorption: Absorption = Absorption.AUTO
    fixed_absorption: float = 0.0
    scattering: Scattering = Scattering.LAMBERT
    specular_lobe_width: float = math.radians(1.0)
    specular_cutoff: bool = False
    critical_angle: float = WEBOTS_CRITICAL_ANGLE
    source_level: float = 0.0
    estimator: RangeEstimator = RangeEstimator.NEAREST
    threshold_db: float = -math.inf
    range_noise: RangeNoise = RangeNoise()
    speckle: bool = False
    gain_stddev: float = 0.0
    seed: int | None = None

    def __post_init__(self) -> None:
        self._check_beam()
        self._check_window()
        self._check_medium()
        self._check_scattering()
        self._check_estimator()
        self._check_noise()

    def _put(self, name: str, value: object) -> None:
        """Store a checked (normalised) value in the frozen record."""
        object.__setattr__(self, name, value)

    def _check_beam(self) -> None:
        """``beam_width``, ``pattern``, ``n_way`` and ``cast_limit``."""
        width = finite('beam_width', self.beam_width)
        check(
            0.0 < width < math.pi,
            'beam_width',
            'must be in (0, pi) radians (full -3 dB width)',
            width,
        )
        self._put('beam_width', width)
        self._put('pattern', enum_member(BeamPattern, self.pattern, 'pattern'))
        n_way_ok = _is_int(self.n_way) and self.n_way in (1, 2)
        check(n_way_ok, 'n_way', 'must be 1 or 2', self.n_way)
        if isinstance(self.cast_limit, (CastLimit, str)):
            self._put('cast_limit', enum_member(CastLimit, self.cast_limit, 'cast_limit'))
        else:
            limit = finite('cast_limit', self.cast_limit)
            check(0.0 < limit <= math.pi / 2, 'cast_limit', 'must be in (0, pi/2] radians', limit)
            self._put('cast_limit', limit)
        if self.cast_limit is CastLimit.FIRST_NULL and not self.cast_half_angle <= math.pi / 2:
            reason = f'the {self.pattern.value} pattern of this width has no null before pi/2'
            reason += '; give radians'
            fail('cast_limit', reason, self.cast_limit.value)

    def _check_window(self) -> None:
        """``min_range``, ``max_range`` and ``n_bins``."""
        near = finite('min_range', self.min_range)
        far = finite('max_range', self.max_range)
        check(near >= 0.0, 'min_range', 'must be >= 0 m', near)
        check(far > near, 'max_range', f'must be > min_range ({near!r} m)', far)
        self._put('min_range', near)
        self._put('max_range', far)
        bins_ok = _is_int(self.n_bins) and self.n_bins >= 1
        check(bins_ok, 'n_bins', 'must be an integer >= 1', self.n_bins)

    def _check_medium(self) -> None:
        """``frequency``, ``environment``, ``sound_speed`` and the absorption fields."""
        frequency = finite('frequency', self.frequency)
        check(frequency > 0.0, 'frequency', 'must be > 0 Hz', frequency)
        self._put('frequency', frequency)
        is_environment = isinstance(self.environment, Environment)
        check(is_environment, 'environment', 'must be an Environment', self.environment)
        if self.sound_speed is not None:
            speed = finite('sound_speed', self.sound_speed)
            check(speed > 0.0, 'sound_speed', 'must be > 0 m/s or None', speed)
            self._put('sound_speed', speed)
        self._put('absorption', enum_member(Absorption, self.absorption, 'absorption'))
        fixed = finite('fixed_absorption', self.fixed_absorption)
        check(fixed >= 0.0, 'fixed_absorption', 'must be >= 0 dB/m', fixed)
        self._put('fixed_absorption', fixed)
        # Raises on a water model in air and vice versa.
        absorption_db_per_m(self.absorption, frequency, self.environment, fixed)

    def _check_scattering(self) -> None:
        """``scattering``, ``specular_lobe_width``, ``specular_cutoff``, ``critical_angle``."""
        self._put('scattering', enum_member(Scattering, self.scattering, 'scattering'))
        lobe = finite('specular_lobe_width', self.specular_lobe_width)
        lobe_ok = 0.0 < lobe <= math.pi / 4
        check(lobe_ok, 'specular_lobe_width', 'must be in (0, pi/4] radians', lobe)
        self._put('specular_lobe_width', lobe)
        cutoff = self.specular_cutoff
        check(isinstance(cutoff, bool), 'specular_cutoff', 'must be a bool', cutoff)
        critical = finite('critical_angle', self.critical_angle)
        critical_ok = 0.0 < critical <= math.pi / 2
        check(critical_ok, 'critical_angle', 'must be in (0, pi/2] radians', critical)
        self._put('critical_angle', critical)

    def _check_estimator(self) -> None:
        """``source_level``, ``estimator`` and ``threshold_db``."""
        self._put('source_level', finite('source_level', self.source_level))
        self._put('estimator', enum_member(RangeEstimator, self.estimator, 'estimator'))
        threshold = self.threshold_db
        check(
            isinstance(threshold, (int, float))
            and not isinstance(threshold, bool)
            and threshold < math.inf,
            'threshold_db',
            'must be a number below +inf (-inf takes any echo)',
            threshold,
        )
        self._put('threshold_db', float(threshold))

    def _check_noise(self) -> None:
        """``range_noise``, ``speckle``, ``gain_stddev`` and ``seed``."""
        noise = self.range_noise
        check(isinstance(noise, RangeNoise), 'range_noise', 'must be a RangeNoise', noise)
        check(isinstance(self.speckle, bool), 'speckle', 'must be a bool', self.speckle)
        gain = finite('gain_stddev', self.gain_stddev)
        check(gain >= 0.0, 'gain_stddev', 'must be >= 0', gain)
        self._put('gain_stddev', gain)
        seed_ok = self.seed is None or (_is_int(self.seed) and self.seed >= 0)
        check(seed_ok, 'seed', 'must be None or an integer >= 0', self.seed)

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


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)
