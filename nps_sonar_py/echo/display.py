"""A sonar's display chain: what the device does to the echo before it stores or shows it.

The echo model gives linear intensity per slant-range bin of the simulation. A real sonar
stores something else: its own samples (its sample rate, not the simulation's bins), after its
receiver noise, its gain and time-varied gain (TVG), an optional automatic gain control, a
compression (a power law, "gamma", or a logarithm) and a quantisation to 8 or 16 bits. A
forward-looking sonar may show a near-field band of transducer ringing. Before all that, the
water column adds what a real record holds where the seabed does not echo: volume
reverberation and a one-bounce surface multipath fill at the sonar equation's levels
(``echo.reverberation``; the receiver noise is the noise floor, left out on coherent input,
which already carries it). :class:`DisplayChain`
holds one device's settings and :meth:`DisplayChain.apply` runs them in that order; the linear
intensity on the device's samples stays in the result (``docs/realism.md``).

Conventions: intensities are linear (power); a TVG law ``n log r + 2 alpha r`` multiplies the
intensity by ``r**(n/10) * 10**(2 alpha r / 10)`` (``r`` in m, ``alpha`` the one-way absorption
in dB/m), so that it exactly undoes ``n log r`` of spreading and the two-way absorption.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo.reverberation import SV_COASTAL_DB, volume_reverberation
from nps_sonar_py.errors import ConfigurationError

__all__ = [
    'Compression',
    'DisplayChain',
    'DisplayImage',
    'Tvg',
    'resample_bins',
    'sample_bins',
    'tvg_gain',
]


class Tvg(Enum):
    """The device's time-varied gain law: none, ``20 log r`` or ``40 log r`` + ``2 alpha r``."""

    NONE = 'none'
    SPREAD_20 = '20log'
    SPREAD_40 = '40log'

    @property
    def exponent(self) -> float:
        """The power of ``r`` the law multiplies the intensity by (0, 2 or 4)."""
        return {Tvg.NONE: 0.0, Tvg.SPREAD_20: 2.0, Tvg.SPREAD_40: 4.0}[self]


class Compression(Enum):
    """How the gained intensity becomes a code: linear, a power law (gamma) or decibels."""

    NONE = 'none'
    GAMMA = 'gamma'
    LOG = 'log'


@dataclass(frozen=True)
class DisplayImage:
    """The stored or shown image of one ping and the linear intensity it came from.

    Attributes:
        codes: (..., samples) the device's integers (uint8 or uint16).
        linear: (..., samples) linear intensity on the device's samples: the echo and the water
            column's fill, before receiver noise and gain.
        ranges: (samples,) the samples' centre ranges, m.
    """

    codes: NDArray[np.unsignedinteger]
    linear: NDArray[np.float64]
    ranges: NDArray[np.float64]


@dataclass(frozen=True)
class DisplayChain:
    """One device's display chain, checked on creation (``ConfigurationError`` names the setting).

    Attributes:
        name: what the chain is (a preset's name).
        samples: samples the device stores per beam or channel over ``[0, max_range]``.
        max_range: range of the last sample's far edge, m.
        tvg: the TVG law.
        alpha: one-way absorption the TVG restores, dB/m (``2 alpha r`` two-way).
        gain_db: fixed gain, dB, applied with the TVG.
        agc_window: samples of the moving mean an AGC divides by (0: no AGC).
        agc_level: the level, as a fraction of ``reference``, the AGC brings the mean to.
        compression: linear, gamma or log.
        gamma: exponent of the power law on the gained intensity (``GAMMA``); Oculus' setting
            ``g`` of 0-255 is ``g / 255``.
        db_window: (low, high) dB of gained intensity mapped to 0 and full scale (``LOG``).
        reference: gained intensity that maps to full scale (``NONE`` and ``GAMMA``).
        full_scale: the largest code (255 for 8 bits; 32767 for a 15-bit uint16 record).
        noise_floor: mean linear intensity of receiver noise added before the gain (0: none);
            exponentially distributed (Rayleigh amplitude) when a generator is given.
        near_field: e-folding range of a near-field band of ringing, m (0: none).
        near_field_level: the band's gained intensity at range 0.
        sv_db: the water's volume scattering strength ``Sv``, dB re 1/m (default: coastal
            water, ``echo.reverberation.SV_COASTAL_DB``).
        solid_angle: the beam's equivalent two-way solid angle ``Psi``, sr (0: no volume
            reverberation; ``reverberation.fan_solid_angle`` of a fan beam).
        multipath_db: loss of the one-bounce surface path against the seabed's direct echo,
            dB (surface reflection loss plus the beam pattern toward it,
            ``reverberation.surface_bounce``); inf: no multipath fill.
        multipath_from: the range from which the one-bounce path arrives, m (the sonar's
            depth plus its altitude).
    """

    name: str
    samples: int
    max_range: float
    tvg: Tvg = Tvg.NONE
    alpha: float = 0.0
    gain_db: float = 0.0
    agc_window: int = 0
    agc_level: float = 0.25
    compression: Compression = Compression.GAMMA
    gamma: float = 1.0
    db_window: tuple[float, float] = (-60.0, 0.0)
    reference: float = 1.0
    full_scale: int = 255
    noise_floor: float = 0.0
    near_field: float = 0.0
    near_field_level: float = 0.0
    sv_db: float = SV_COASTAL_DB
    solid_angle: float = 0.0
    multipath_db: float = math.inf
    multipath_from: float = 0.0
    dtype: type[np.unsignedinteger] = field(init=False)

    def __post_init__(self) -> None:
        _check(self.samples >= 1, 'samples', 'must be >= 1', self.samples)
        _check(self.max_range > 0.0, 'max_range', 'must be > 0 m', self.max_range)
        _check(self.alpha >= 0.0, 'alpha', 'must be >= 0 dB/m', self.alpha)
        _check(self.agc_window >= 0, 'agc_window', 'must be >= 0 samples', self.agc_window)
        _check(self.agc_level > 0.0, 'agc_level', 'must be > 0', self.agc_level)
        _check(self.gamma > 0.0, 'gamma', 'must be > 0', self.gamma)
        low, high = self.db_window
        _check(high > low, 'db_window', 'must be (low, high) with high > low', self.db_window)
        _check(self.reference > 0.0, 'reference', 'must be > 0', self.reference)
        _check(1 <= self.full_scale <= 65535, 'full_scale', 'must be 1-65535', self.full_scale)
        _check(self.noise_floor >= 0.0, 'noise_floor', 'must be >= 0', self.noise_floor)
        _check(self.near_field >= 0.0, 'near_field', 'must be >= 0 m', self.near_field)
        _check(
            self.near_field_level >= 0.0, 'near_field_level', 'must be >= 0', self.near_field_level
        )
        _check(-150.0 <= self.sv_db <= 0.0, 'sv_db', 'must be -150 to 0 dB re 1/m', self.sv_db)
        _check(self.solid_angle >= 0.0, 'solid_angle', 'must be >= 0 sr', self.solid_angle)
        _check(self.multipath_db >= 0.0, 'multipath_db', 'must be >= 0 dB', self.multipath_db)
        _check(self.multipath_from >= 0.0, 'multipath_from', 'must be >= 0 m', self.multipath_from)
        dtype = np.uint8 if self.full_scale <= 255 else np.uint16
        object.__setattr__(self, 'dtype', dtype)

    @property
    def ranges(self) -> NDArray[np.float64]:
        """(samples,) the centre range of each stored sample, m."""
        step = self.max_range / self.samples
        centres = (np.arange(self.samples, dtype=np.float64) + 0.5) * step
        return centres

    def gain(self) -> NDArray[np.float64]:
        """(samples,) the fixed gain times the TVG law at each sample's range."""
        gain: NDArray[np.float64] = tvg_gain(self.ranges, self.tvg, self.alpha)
        scaled: NDArray[np.float64] = gain * float(10.0 ** (0.1 * self.gain_db))
        return scaled

    def apply(
        self,
        intensity: NDArray[np.float64],
        bin_edges: NDArray[np.float64],
        rng: np.random.Generator | None = None,
        coherent: bool = False,
    ) -> DisplayImage:
        """The device's image of ``intensity`` (..., n_bins) over slant-range ``bin_edges``.

        ``rng``: draws the water column's fill and the receiver noise (exponential intensity
        of their means); without one they add their means. ``coherent``: the input is the
        coherent model's, which already carries receiver noise (no ``noise_floor`` is added)
        and whose bins are samples of the receiver's output: on the bins' own grid or a finer
        one each stored sample is the bin at its centre (:func:`sample_bins`), not a mean over
        bins; on a coarser grid the mean over its interval (:func:`resample_bins`), which
        keeps a lone echo's energy wherever it lies, where picking one bin of several would
        alias (an echo between picked bins would vanish).
        """
        values = np.asarray(intensity, dtype=np.float64)
        fill = self.water_column(values, bin_edges)
        if np.any(fill > 0.0):
            values = values + (
                fill * rng.exponential(1.0, np.broadcast_shapes(values.shape, fill.shape))
                if rng is not None
                else fill
            )
        coarser = self.max_range / self.samples > float(np.min(np.diff(bin_edges))) * (1 + 1e-9)
        onto = sample_bins if coherent and not coarser else resample_bins
        linear = onto(values, bin_edges, self.samples, self.max_range)
        noisy = linear
        if self.noise_floor > 0.0 and not coherent:
            noise = (
                rng.exponential(self.noise_floor, linear.shape)
                if rng is not None
                else np.full(linear.shape, self.noise_floor)
            )
            noisy = linear + noise
        gained = noisy * self.gain()
        if self.near_field > 0.0:
            gained = gained + self.near_field_level * np.exp(-self.ranges / self.near_field)
        if self.agc_window > 0:
            gained = gained * (
                self.agc_level * self.reference / _moving_mean(gained, self.agc_window)
            )
        return DisplayImage(self.encode(gained), linear, self.ranges)

    def water_column(
        self, intensity: NDArray[np.float64], bin_edges: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """(n_bins,) mean fill of the simulation's bins, for every line: volume + multipath.

        Volume: ``s_v Psi dr / r**2 10**(-2 alpha r / 10)`` of each bin (``dr`` its width,
        the water's absorption the one the TVG restores). Multipath: the seabed's mean echo at
        that range (the mean of ``intensity`` over all its lines) lowered by ``multipath_db``,
        from ``multipath_from`` on. Both on the echo model's scale (relative to the source).
        """
        edges = np.asarray(bin_edges, dtype=np.float64)
        centres = np.maximum(0.5 * (edges[:-1] + edges[1:]), 0.01)
        fill = np.zeros(centres.shape)
        if self.solid_angle > 0.0:
            fill = fill + volume_reverberation(
                centres, np.diff(edges), self.sv_db, self.solid_angle, self.alpha
            )
        if math.isfinite(self.multipath_db):
            lines = intensity.reshape(-1, intensity.shape[-1]).mean(axis=0)
            reach = (centres >= self.multipath_from).astype(np.float64)
            fill = fill + lines * reach * 10.0 ** (-0.1 * self.multipath_db)
        return fill

    def encode(self, gained: NDArray[np.float64]) -> NDArray[np.unsignedinteger]:
        """Codes of gained intensity: compressed, rounded and clipped to ``[0, full_scale]``."""
        scale = float(self.full_scale)
        if self.compression is Compression.LOG:
            low, high = self.db_window
            with np.errstate(divide='ignore'):
                level = 10.0 * np.log10(np.maximum(gained, 0.0))
            unit = (level - low) / (high - low)
        elif self.compression is Compression.GAMMA:
            unit = (np.maximum(gained, 0.0) / self.reference) ** self.gamma
        else:
            unit = gained / self.reference
        codes = np.rint(np.clip(unit, 0.0, 1.0) * scale)
        return codes.astype(self.dtype)

    def decode(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """Gained intensity of ``codes`` (the inverse of :meth:`encode` up to its rounding).

        Code 0 of a log chain decodes to the window's low end.
        """
        unit = np.asarray(codes, dtype=np.float64) / self.full_scale
        if self.compression is Compression.LOG:
            low, high = self.db_window
            decoded: NDArray[np.float64] = 10.0 ** (0.1 * (low + unit * (high - low)))
            return decoded
        if self.compression is Compression.GAMMA:
            return self.reference * unit ** (1.0 / self.gamma)
        return self.reference * unit

    def linear_of(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """Intensity before gain of ``codes``: :meth:`decode` divided by the gain and TVG."""
        return self.decode(codes) / self.gain()


def tvg_gain(ranges: NDArray[np.float64], law: Tvg, alpha: float) -> NDArray[np.float64]:
    """``r**(n/10) * 10**(2 alpha r / 10)``: the intensity gain of TVG ``n log r + 2 alpha r``.

    ``r`` below 1 cm counts as 1 cm (no infinite or zero gain at the transducer's face).
    """
    r = np.maximum(np.asarray(ranges, dtype=np.float64), 0.01)
    gain: NDArray[np.float64] = r**law.exponent * 10.0 ** (0.2 * alpha * r)
    return gain


def resample_bins(
    intensity: NDArray[np.float64], bin_edges: NDArray[np.float64], samples: int, max_range: float
) -> NDArray[np.float64]:
    """(..., samples) mean intensity of each of ``samples`` equal intervals of ``[0, max_range]``.

    The intensity is a step function over ``bin_edges`` (0 outside them); each sample is its
    mean over the sample's interval (the integral of the cumulative sum, so energy is kept
    whatever the ratio of bins to samples).
    """
    values, edges = _binned(intensity, bin_edges)
    widths = np.diff(edges)
    cumulative = np.concatenate(
        (np.zeros((*values.shape[:-1], 1)), np.cumsum(values * widths, axis=-1)), axis=-1
    )
    targets = np.linspace(0.0, max_range, samples + 1)
    # linear interpolation of every row at once: the targets' fractional bin-edge indices
    position = np.interp(targets, edges, np.arange(edges.size, dtype=np.float64))
    low = np.minimum(np.floor(position).astype(np.intp), edges.size - 2)
    fraction = position - low
    integral = cumulative[..., low] * (1.0 - fraction) + cumulative[..., low + 1] * fraction
    mean: NDArray[np.float64] = np.diff(integral, axis=-1) / (max_range / samples)
    return mean


def sample_bins(
    intensity: NDArray[np.float64], bin_edges: NDArray[np.float64], samples: int, max_range: float
) -> NDArray[np.float64]:
    """(..., samples) a coherent image at each of ``samples`` equal intervals' centres.

    A device stores its receiver's output sampled once a sample; the coherent model's bins
    are such samples (``matched_filter.bin_intensity``). Averaging them over a stored sample's
    interval, as :func:`resample_bins` does for incoherent input, would be an incoherent
    average of looks the device does not make: each stored sample is the bin holding its
    centre (the bins themselves when the grids are equal), 0 outside ``bin_edges``.
    """
    values, edges = _binned(intensity, bin_edges)
    centres = (np.arange(samples, dtype=np.float64) + 0.5) * (max_range / samples)
    index = np.searchsorted(edges, centres, side='right') - 1
    inside = (index >= 0) & (index < edges.size - 1)
    picked = values[..., np.clip(index, 0, edges.size - 2)]
    stored: NDArray[np.float64] = np.where(inside, picked, 0.0)
    return stored


def _binned(
    intensity: NDArray[np.float64], bin_edges: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``intensity`` and ``bin_edges`` as float64; ``ConfigurationError`` if they disagree."""
    values = np.asarray(intensity, dtype=np.float64)
    edges = np.asarray(bin_edges, dtype=np.float64)
    if values.shape[-1] != edges.size - 1:
        msg = f'intensity has {values.shape[-1]} bins but bin_edges {edges.size} edges'
        raise ConfigurationError(msg)
    return values, edges


def _moving_mean(values: NDArray[np.float64], window: int) -> NDArray[np.float64]:
    """Mean of ``window`` samples centred on each one along the last axis (shorter at the ends)."""
    n = values.shape[-1]
    cumulative = np.concatenate(
        (np.zeros((*values.shape[:-1], 1)), np.cumsum(values, axis=-1)), axis=-1
    )
    index = np.arange(n)
    low = np.clip(index - window // 2, 0, n)
    high = np.clip(index + window - window // 2, 0, n)
    mean = (cumulative[..., high] - cumulative[..., low]) / (high - low)
    floor = np.finfo(np.float64).tiny
    result: NDArray[np.float64] = np.maximum(mean, floor)
    return result


def _check(ok: bool, name: str, must: str, value: object) -> None:
    """``ConfigurationError`` naming the display chain's setting ``name`` unless ``ok``."""
    if not ok or (isinstance(value, float) and math.isnan(value)):
        msg = f'display chain: {name} {must}, not {value!r}'
        raise ConfigurationError(msg)
