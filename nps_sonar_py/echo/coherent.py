"""Coherent echoes: each ray a scatterer with phase, the pulse, the array and the noise floor.

The incoherent model (``model.py``) sums intensities. This one sums complex amplitudes
(``docs/coherent.md``): ray ``i`` of beam ``b``, with incoherent intensity ``I_i`` (the
model's law: patterns, incidence, reflectivity, spreading, absorption) and range ``r_i``,
has the amplitude

    a_i = sqrt(I_i) xi_i exp(2 i k r_i),    k = 2 pi f / c,

``xi_i`` the unit complex Gaussian of the scene point it hit (``scatterers.py``). Beam
``b``'s complex baseband after the matched filter is ``s_b(t) = sum_i a_i R(t - 2 r_i / c)``
(``pulse.py``), sampled every ``delta = c / (2 f_s)`` of range from ``min_range``; each
return is deposited on the samples it reaches by a table of ``R`` (one complex64
``np.add.at`` per tap of the pulse, over all beams at once). A fan's line array then adds the
side-lobe leakage of the strongest cells across beams (``line_array.py``), and the receiver
adds a complex Gaussian noise floor from the sonar equation (``sonar_equation.py``). The image is
what a sonar stores: the output, filtered to the bin rate's band, at each range bin's
centre, ``per_bin |z(centre)|**2 / F`` (a sample's ``|s|**2`` is ``1 / per_bin`` of a bin's
energy, ``F`` the pulse's energy the band keeps), one sample of the speckle, not the sum of
the bin's samples' intensities (an average of correlated looks no device makes). With more
than one sample a bin the returns are deposited a second time, on the bins' centres, by a
table of the compressed pulse through the filter with that gain
(``matched_filter.stored_table``), and the noise there is the samples' noise through the
filter, tabulated once (``matched_filter.stored_noise``): no filtering per ping. Its mean
over scatterer realisations is the
incoherent image blurred by the pulse (equal to it bin by bin when the pulse is shorter than
a bin and the profile smooth).

Sample grid: ``per_bin`` samples per range bin, ``per_bin = max(1, ceil(B_eff / f_bin))``
with ``f_bin = c / (2 dr)`` when ``sample_rate`` is 0 (the smallest whole number that samples
the compressed pulse at its bandwidth ``B_eff`` or faster), else ``round(dr / delta)`` for
the given rate. Sample ``j`` is centred at ``min_range + (j + 1/2) delta``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import fft

from nps_sonar_py.echo.config import EchoConfig
from nps_sonar_py.echo.line_array import LineArray, array_problem, leakage_matrix
from nps_sonar_py.echo.matched_filter import stored_noise, stored_table
from nps_sonar_py.echo.pulse import (
    PHASES,
    KernelTable,
    Pulse,
    PulseKind,
    PulseWindow,
    kernel_table,
    pulse_problem,
)
from nps_sonar_py.echo.scatterers import scatterer_draws
from nps_sonar_py.echo.sonar_equation import ReceiverNoise, noise_intensity
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.records import Record, same_as, setting

__all__ = [
    'Baseband',
    'BasebandOf',
    'CoherentConfig',
    'CoherentModel',
    'CoherentPing',
    'SampleGrid',
    'coherent_problem',
    'sample_grid',
    'sample_grid_problem',
]

#: Most complex samples per ping, all beams together (about 64 MB of complex64).
MAX_SAMPLES = 8_000_000
#: Complex normal numbers the noise windows are taken from (``CoherentModel._add_noise``).
_NOISE_TABLE = 1 << 20
#: The noise tables: the samples' and the stored bins' (``None`` at one sample a bin).
_NoiseTables = tuple[NDArray[np.complex64], NDArray[np.complex64] | None]


@dataclass(frozen=True)
class CoherentConfig(Record):
    """What the coherent model adds to ``EchoConfig``, checked on creation (``records``).

    Flat, one field per setting (the sonars' ``coherent`` settings declare theirs with the
    same bounds: ``devices/settings.py``, ``CoherentSettings``); :meth:`of` builds one from
    its parts, and :attr:`transmitted`, :attr:`receive_array` and :attr:`receiver_noise`
    give them back.

    Attributes:
        pulse, pulse_duration, bandwidth, pulse_window: the pulse (``pulse.Pulse``;
            ``pulse_duration`` its ``length``, the transmitted pulse's length in seconds).
        sample_rate: complex baseband samples per second, Hz; 0 picks the rate from the
            pulse and the bins (module docstring).
        speckle_cell: edge of the cells hit points are quantised to for their scatterer,
            in wavelengths (a quarter by default: a hit that moves a quarter wavelength
            meets another scatterer).
        scatterer_seed: selects another, independent realisation of the scene's scatterers.
        scatterer_density: the surfaces' fixed scatterers per m2 of a formed fan
            (``formed_engine.formed_density``); 0: automatic.
        array_elements, array_spacing, array_window: the fan's receive line array
            (``line_array.LineArray``); 0 elements: none (no leakage across beams).
        noise, noise_spectrum_level, directivity_index: the receiver's noise floor
            (``sonar_equation.ReceiverNoise``).
        leak_cells: how many of a ping's strongest cells leak across beams through the
            array's side lobes.
        seabed_images: the side-scan, sweep, single beam and formed fan also hear the fixed
            scatterers of objects over a seabed by their images in it, the paths by one and
            two bounces off the seabed (``seabed_images.py``, ``docs/multipath.md``).
    """

    pulse: PulseKind = same_as(Pulse, 'kind', 'coherent: the pulse, chirp (linear FM) or cw')
    pulse_duration: float = same_as(Pulse, 'length', 'coherent: pulse length [s]')
    bandwidth: float = same_as(Pulse, 'bandwidth', 'coherent: swept bandwidth of a chirp [Hz]')
    pulse_window: PulseWindow = same_as(
        Pulse, 'window', 'coherent: matched-filter window, none, hann, hamming or tukey'
    )
    sample_rate: float = setting(
        0.0,
        'coherent: complex baseband sample rate [Hz]; 0: the pulse bandwidth or more, a whole '
        'number of samples per range bin',
        1.0,
        1e9,
        zero=True,
    )
    speckle_cell: float = setting(0.25, 'coherent: speckle cell edge [wavelengths]', 1e-3, 100.0)
    scatterer_seed: int = setting(0, 'coherent: realisation of the scene scatterers', 0, 2**31 - 1)
    scatterer_density: float = setting(
        0.0,
        'coherent: fixed scatterers per m2 on the surfaces a fan sees; 0: 4 in a resolution '
        'cell at a quarter of the range window',
        1e-6,
        1e9,
        zero=True,
    )
    array_elements: int = setting(
        0,
        'coherent: elements of the receive line array of a fan; 0: none (no leakage across beams)',
        2,
        100_000,
        zero=True,
    )
    array_spacing: float = same_as(
        LineArray, 'spacing', 'coherent: line array element spacing [wavelengths]'
    )
    array_window: PulseWindow = same_as(
        LineArray, 'window', 'coherent: line array weighting, none, hann, hamming or tukey'
    )
    noise: bool = same_as(ReceiverNoise, 'enabled', 'coherent: add the sonar equation noise')
    noise_spectrum_level: float = same_as(
        ReceiverNoise,
        'spectrum_level',
        'coherent: ambient noise spectrum level [dB re 1 uPa^2/Hz]',
    )
    directivity_index: float = same_as(
        ReceiverNoise, 'directivity_index', 'coherent: receive directivity index [dB]'
    )
    leak_cells: int = setting(
        256, 'coherent: strongest cells of a ping that leak across beams', 1, 1_000_000
    )
    seabed_images: bool = setting(
        True, "coherent: hear objects' images in the seabed (one and two bounces off it)"
    )

    @classmethod
    def of(
        cls,
        pulse: Pulse | None = None,
        array: LineArray | None = None,
        noise: ReceiverNoise | None = None,
        **rest: Any,
    ) -> CoherentConfig:
        """The configuration of these parts (defaults for those not given) and fields."""
        pulse = pulse or Pulse()
        noise = noise or ReceiverNoise()
        parts: dict[str, Any] = {
            'pulse': pulse.kind,
            'pulse_duration': pulse.length,
            'bandwidth': pulse.bandwidth,
            'pulse_window': pulse.window,
            'noise': noise.enabled,
            'noise_spectrum_level': noise.spectrum_level,
            'directivity_index': noise.directivity_index,
        }
        if array is not None:
            parts.update(
                array_elements=array.elements,
                array_spacing=array.spacing,
                array_window=array.window,
            )
        return cls(**parts, **rest)

    @property
    def transmitted(self) -> Pulse:
        """The pulse."""
        return Pulse(self.pulse, self.pulse_duration, self.bandwidth, self.pulse_window)

    @property
    def receive_array(self) -> LineArray | None:
        """The fan's receive line array, or ``None``."""
        if self.array_elements == 0:
            return None
        return LineArray(self.array_elements, self.array_spacing, self.array_window)

    @property
    def receiver_noise(self) -> ReceiverNoise:
        """The noise floor."""
        return ReceiverNoise(self.noise, self.noise_spectrum_level, self.directivity_index)


@dataclass(frozen=True)
class SampleGrid:
    """The complex baseband samples of a beam (module docstring).

    Attributes:
        per_bin: samples per range bin, >= 1.
        interval: range between samples ``delta``, m.
        count: samples per beam, ``per_bin * n_bins``.
        rate: the sample rate ``c / (2 delta)``, Hz.
        start: range of sample 0's centre, m.
    """

    per_bin: int
    interval: float
    count: int
    rate: float
    start: float


def sample_grid_problem(config: CoherentConfig, echo: EchoConfig) -> str | None:
    """Why a given ``sample_rate`` gives no sample grid for these bins and pulse, or ``None``."""
    if config.sample_rate == 0.0:
        return None
    dr = echo.bin_width
    spacing = echo.speed_of_sound / (2.0 * config.sample_rate)
    bandwidth = config.transmitted.effective_bandwidth
    if dr < spacing * (1.0 - 1e-9):
        return (
            f'n_bins: a bin of {dr:.4g} m is narrower than the sample spacing '
            f'{spacing:.4g} m of sample_rate {config.sample_rate:g} Hz'
        )
    if config.sample_rate < bandwidth * (1.0 - 1e-9):
        return (
            f'sample_rate: {config.sample_rate:g} Hz is below the pulse bandwidth '
            f'{bandwidth:g} Hz (the envelope would alias)'
        )
    return None


def sample_grid(config: CoherentConfig, echo: EchoConfig) -> SampleGrid:
    """The sample grid of this configuration (module docstring).

    Raises:
        ConfigurationError: the reason of :func:`sample_grid_problem`.
    """
    problem = sample_grid_problem(config, echo)
    if problem:
        raise ConfigurationError(problem)
    c, dr = echo.speed_of_sound, echo.bin_width
    if config.sample_rate == 0.0:
        bandwidth = config.transmitted.effective_bandwidth
        per_bin = max(1, math.ceil(bandwidth * 2.0 * dr / c * (1.0 - 1e-9)))
    else:
        per_bin = max(1, round(dr / (c / (2.0 * config.sample_rate))))
    interval = dr / per_bin
    count = per_bin * echo.n_bins
    return SampleGrid(
        per_bin, interval, count, c / (2.0 * interval), echo.min_range + interval / 2
    )


def coherent_problem(
    config: CoherentConfig, echo: EchoConfig, beams: int = 1, azimuths: ArrayLike | None = None
) -> str | None:
    """Why the coherent model cannot run with this pulse, sampling and array, or ``None``."""
    problem = pulse_problem(config.transmitted, echo.frequency)
    if problem:
        return problem
    problem = sample_grid_problem(config, echo)
    if problem:
        return problem
    grid = sample_grid(config, echo)
    if grid.count * beams > MAX_SAMPLES:
        return (
            f'{grid.count * beams} complex samples per ping ({beams} beams x {grid.count}) is '
            f'over the limit of {MAX_SAMPLES}; fewer bins, beams or a lower sample_rate'
        )
    array = config.receive_array
    if array is not None and azimuths is not None:
        return array_problem(array, echo.beam_width, azimuths)
    return None


@dataclass(frozen=True, eq=False)
class CoherentPing:
    """The coherent echo of one ping of ``N`` beams.

    Attributes:
        intensity: (N, n_bins) float64 stored intensity of each range bin: ``per_bin / F``
            times the squared modulus of the filtered output at its centre (module docstring),
            linear, relative to the source at 1 m (the incoherent model's scale).
        baseband: (N, count) complex64 baseband after the matched filter (and the array and
            the noise), per beam, sample ``j`` at ``grid.start + j grid.interval``; its
            squared modulus is in the same units as ``intensity``.
        grid: the samples' grid.
    """

    intensity: NDArray[np.float64]
    baseband: NDArray[np.complex64]
    grid: SampleGrid

    def beam(self, index: int) -> CoherentPing:
        """The echo of beam ``index`` alone, as a ping of one beam (views, no copy)."""
        rows = slice(index, index + 1)
        return CoherentPing(self.intensity[rows], self.baseband[rows], self.grid)


class Baseband(Protocol):
    """What forms a baseband: its sample grid and noise (``CoherentModel``, the engines)."""

    @property
    def grid(self) -> SampleGrid | None:
        """The baseband's sample grid, ``None`` where none is formed."""
        ...

    @property
    def noise_power(self) -> float:
        """The receiver's mean noise power per bin, linear (0: none)."""
        ...


class BasebandOf:
    """The sample grid and noise of the baseband ``coherent`` forms, as an engine's own.

    For the engines that hand their scatterers to another model to form their baseband
    (``engine.CoherentEngine``, ``channel_echoes.ChannelEngine``).
    """

    coherent: Baseband

    @property
    def grid(self) -> SampleGrid | None:
        """The baseband's sample grid."""
        return self.coherent.grid

    @property
    def noise_power(self) -> float:
        """The receiver's mean noise power per bin, linear (0: none)."""
        return self.coherent.noise_power


class CoherentModel:
    """The coherent echo of ``N`` beams sharing an echo configuration, built once.

    Args:
        config: the coherent settings.
        echo: the echo configuration (range window, bins, carrier, sound speed, seed).
        azimuths: (N,) the beams' axes, rad, for the array's leakage (a fan); ``None``:
            no leakage.
        coverage: the beam spacing over the equivalent width of a beam's pattern, in
            (0, 1] (``line_array.leakage_matrix``).

    Raises:
        ConfigurationError: the reason of :func:`coherent_problem`, in one line.
    """

    def __init__(
        self,
        config: CoherentConfig,
        echo: EchoConfig,
        *,
        azimuths: ArrayLike | None = None,
        coverage: float = 1.0,
    ) -> None:
        beams = 1 if azimuths is None else int(np.size(azimuths))
        problem = coherent_problem(config, echo, beams, azimuths)
        if problem:
            raise ConfigurationError(problem)
        grid = sample_grid(config, echo)
        self.config, self.echo, self.grid = config, echo, grid
        pulse, interval = config.transmitted, 2.0 * grid.interval / echo.speed_of_sound
        self._samples = _Deposits.of(kernel_table(pulse, interval), grid.count, grid.start, grid)
        # More than one sample a bin: the bins' stored samples deposited on their own grid,
        # from the compressed pulse through the receive filter (the stored sample).
        self._bins: _Deposits | None = None
        if grid.per_bin > 1:
            table = stored_table(pulse, interval, grid.per_bin)
            centre = echo.min_range + 0.5 * echo.bin_width
            self._bins = _Deposits.of(table, echo.n_bins, centre, grid, grid.per_bin)
        self._cell = config.speckle_cell * echo.wavelength
        self._turns_per_m = 2.0 / echo.wavelength  # exp(2 i k r) = exp(2 i pi r (2 / lambda))
        # Row b' holds what every beam hears of beam b' (the leakage matrix transposed).
        self._heard_from: NDArray[np.complex64] | None = None
        array = config.receive_array
        if array is not None and azimuths is not None and beams > 1:
            matrix = leakage_matrix(array, azimuths, coverage)
            self._heard_from = np.ascontiguousarray(matrix.T)
        self._noise_power = 0.0
        if config.noise:
            bandwidth = config.transmitted.effective_bandwidth
            noise = config.receiver_noise
            self._noise_power = noise_intensity(noise, echo.source_level, bandwidth)
        self.rng = np.random.default_rng(echo.seed)
        self._noise_tables: _NoiseTables | None = None

    @property
    def noise_power(self) -> float:
        """Mean power of the receiver's noise per range bin, linear (0: no noise)."""
        return self._noise_power

    def ping(
        self,
        intensity: NDArray[np.floating],
        ranges: NDArray[np.floating],
        origin: NDArray[np.floating],
        directions: NDArray[np.floating],
        rng: np.random.Generator | None = None,
    ) -> CoherentPing:
        """The coherent echo of one ping (module docstring).

        Args:
            intensity: (N, n) each ray's incoherent echo, linear, 0 for none
                (``EchoModel.ray_intensities``).
            ranges: (N, n) each ray's range, m (inf on a miss).
            origin: (3,) or (N n, 3) ray origins in the world, m.
            directions: (N n, 3) unit ray directions in the world.
            rng: the noise's generator instead of the model's.

        Returns:
            The ``CoherentPing``.
        """
        beam, r, amplitude = self._live_rays(intensity, ranges, origin, directions)
        return self._finish(beam, r, amplitude, intensity.shape[0], rng)

    def scatterer_ping(
        self,
        beams: NDArray[np.intp],
        ranges: NDArray[np.float64],
        amplitudes: NDArray[np.complexfloating],
        n_beams: int,
        rng: np.random.Generator | None = None,
    ) -> CoherentPing:
        """The coherent echo of point scatterers fixed on the surfaces (``channel_echoes.py``).

        Args:
            beams: (m,) the beam that hears each scatterer.
            ranges: (m,) each one's true range, m: its two-way carrier phase
                ``exp(2 i k r)`` is added here.
            amplitudes: (m,) each one's amplitude ``xi sqrt(I)`` (its pattern included).
            n_beams: the beams of the ping.
            rng: the noise's generator instead of the model's.
        """
        near, far = self._reach
        r = np.asarray(ranges, dtype=np.float64)
        live = np.flatnonzero((r > near) & (r < far))
        r = r.take(live)
        carrier = r * self._turns_per_m
        carrier -= np.floor(carrier)
        carrier *= 2.0 * math.pi
        amplitude = np.asarray(amplitudes.take(live), dtype=np.complex64)
        amplitude *= (np.cos(carrier) + 1j * np.sin(carrier)).astype(np.complex64)
        return self._finish(beams.take(live), r, amplitude, n_beams, rng)

    @property
    def _reach(self) -> tuple[float, float]:
        """The ranges (m) between which a return reaches a sample or a bin (open)."""
        grids = [self._samples] if self._bins is None else [self._samples, self._bins]
        return min(g.reach[0] for g in grids), max(g.reach[1] for g in grids)

    def _finish(
        self,
        beam: NDArray[np.integer],
        r: NDArray[np.float64],
        amplitude: NDArray[np.complex64],
        n_beams: int,
        rng: np.random.Generator | None,
    ) -> CoherentPing:
        """The ping of returns of ``amplitude`` at ranges ``r`` (m) in ``beam``.

        The samples: the compressed pulses, the leakage, the noise. The stored bins: with one
        sample a bin the samples; with more, the pulses through the receive filter deposited
        on the bins' centres, their leakage, and the samples' noise through the same filter
        (``matched_filter.stored_table``, ``stored_noise``): the output at each bin's centre,
        one sample of the speckle, as a device stores it.
        """
        series = self._heard(self._samples.deposit(beam, r, amplitude, n_beams))
        stored = series
        if self._bins is not None:
            stored = self._heard(self._bins.deposit(beam, r, amplitude, n_beams))
        if self._noise_power > 0.0:
            self._add_noise(series, stored, rng if rng is not None else self.rng)
        intensity = np.square(stored.real, dtype=np.float64)
        intensity += np.square(stored.imag, dtype=np.float64)
        return CoherentPing(intensity, series, self.grid)

    def _heard(self, signal: NDArray[np.complex64]) -> NDArray[np.complex64]:
        """A copy of the echo ``signal`` (N, n) with the array's leakage across the beams."""
        echo = signal.copy()
        if self._heard_from is not None and self._heard_from.shape[0] == signal.shape[0]:
            self._add_leakage(signal, echo)
        return echo

    def _live_rays(
        self,
        intensity: NDArray[np.floating],
        ranges: NDArray[np.floating],
        origin: NDArray[np.floating],
        directions: NDArray[np.floating],
    ) -> tuple[NDArray[np.intp], NDArray[np.float64], NDArray[np.complex64]]:
        """The beam, range (m) and complex amplitude of each ray that reaches a sample or bin.

        Only those are worked on ("live"): their amplitudes are the scatterer hash's work.
        """
        n_rays = intensity.shape[1]
        near, far = self._reach
        flat_intensity = np.asarray(intensity, dtype=np.float32).ravel()
        flat_ranges = np.asarray(ranges, dtype=np.float32).ravel()  # NaN, inf not live
        live = flat_intensity > 0.0
        live &= flat_ranges > np.float32(near)
        live &= flat_ranges < np.float32(far)
        index = np.flatnonzero(live)
        r = np.asarray(ranges).ravel().take(index).astype(np.float64)
        amplitude = self._amplitudes(index, r, flat_intensity.take(index), origin, directions)
        return index // n_rays, r, amplitude

    def _amplitudes(
        self,
        index: NDArray[np.intp],
        r: NDArray[np.float64],
        intensity: NDArray[np.float32],
        origin: NDArray[np.floating],
        directions: NDArray[np.floating],
    ) -> NDArray[np.complex64]:
        """(m,) ``sqrt(I) xi exp(2 i k r)`` of the rays ``index`` at ranges ``r`` (m)."""
        points = []  # origin + r d, axis by axis
        for axis in range(3):
            coordinate = directions[:, axis].take(index).astype(np.float64, copy=False)
            coordinate *= r
            coordinate += origin[axis] if np.ndim(origin) == 1 else origin[:, axis].take(index)
            points.append(coordinate)
        power, turns = scatterer_draws(points, self._cell, self.config.scatterer_seed)
        carrier = r * self._turns_per_m
        carrier -= np.floor(carrier)
        turns += carrier.astype(np.float32)
        turns *= np.float32(2.0 * math.pi)
        power *= intensity
        np.sqrt(power, out=power)
        amplitude = np.empty(index.size, dtype=np.complex64)
        np.cos(turns, out=amplitude.real)
        np.sin(turns, out=amplitude.imag)
        amplitude *= power
        return amplitude

    def _strongest(self, series: NDArray[np.complex64]) -> NDArray[np.intp]:
        """Flat indices of at most ``leak_cells`` of the strongest cells of ``series``.

        A threshold from the quantile of a regular subsample (16384 cells) that leaves about
        twice as many, then the strongest of those: a full partition of a mostly empty image
        is slow (its many equal zeros).
        """
        magnitude = np.abs(series).ravel()
        count = min(self.config.leak_cells, magnitude.size)
        step = max(1, magnitude.size // 16384)
        sample = np.sort(magnitude[::step])
        rank = max(0, sample.size - 1 - (2 * count * sample.size) // magnitude.size)
        threshold = max(float(sample[rank]), float(np.finfo(np.float32).tiny))
        candidates = np.flatnonzero(magnitude >= threshold)
        if candidates.size > count:
            values = magnitude.take(candidates)
            candidates = candidates[np.argpartition(values, values.size - count)[-count:]]
        return candidates

    def _add_leakage(self, signal: NDArray[np.complex64], series: NDArray[np.complex64]) -> None:
        """Add to ``series`` the leakage of the ``leak_cells`` strongest cells of ``signal``.

        Each strong cell (beam ``b'``, sample or bin ``j``) adds ``L[b, b'] s_b'(j)`` to every
        beam ``b`` at ``j``: the rows of ``L`` transposed for the strong cells' beams, scaled
        by their values, added in place by one ``np.add.at`` (cells at the same place sum).
        ``signal`` is the echo before the noise; ``series`` is C-contiguous.
        """
        assert self._heard_from is not None
        strongest = self._strongest(signal)
        beam, sample = np.divmod(strongest, signal.shape[1])
        heard = self._heard_from.take(beam, axis=0)  # (k, N): what every beam hears of each
        heard *= signal[beam, sample][:, None]
        starts = np.arange(0, signal.size, signal.shape[1], dtype=np.intp)  # each beam's first
        cells = np.add(sample[:, None], starts)  # (k, N) flat cells of series
        np.add.at(series.ravel(), cells.ravel(), heard.ravel())

    def _add_noise(
        self,
        series: NDArray[np.complex64],
        stored: NDArray[np.complex64],
        rng: np.random.Generator,
    ) -> None:
        """Add the receiver's complex Gaussian noise to ``series`` and to ``stored``, in place.

        The samples get ``noise_power / per_bin`` a sample, white; the stored bins the same
        noise through the receive filter at their centres, ``noise_power`` a bin
        (``matched_filter.stored_noise``). Each beam takes a window at a random start (a
        whole bin) of tables drawn once from the model's generator (drawing a ping's million
        numbers afresh would cost more than the cast): two windows of a ping or of two pings
        overlap with a chance of about ``count / table`` (under 1 % per beam and ping at the
        tables' 2**20 numbers or more).
        """
        per_bin, count = self.grid.per_bin, self.grid.count
        samples, bins = self._noise_table(count)
        starts = rng.integers(0, (samples.size - count) // per_bin, series.shape[0])
        windows = np.lib.stride_tricks.sliding_window_view(samples, count)
        series += windows[starts * per_bin]
        if bins is not None:
            stored += np.lib.stride_tricks.sliding_window_view(bins, stored.shape[1])[starts]

    def _noise_table(self, count: int) -> _NoiseTables:
        """The noise the windows are taken from, scaled once: the samples' and the bins'.

        ``E |z|**2 = noise_power / per_bin`` a sample (a bin's stored intensity, ``per_bin``
        times a sample's, has the sonar equation's noise power), a whole number of bins; the
        bins' table is it as stored (``None`` at one sample a bin: the samples are the bins).
        """
        if self._noise_tables is None:
            per_bin = self.grid.per_bin
            size = per_bin * fft.next_fast_len(-(-max(_NOISE_TABLE, 64 * count) // per_bin))
            pairs = self.rng.standard_normal(2 * size, dtype=np.float32)
            pairs *= np.float32(math.sqrt(self._noise_power / per_bin / 2.0))
            samples = pairs.view(np.complex64)
            bins = None if per_bin == 1 else stored_noise(samples, per_bin)
            self._noise_tables = (samples, bins)
        return self._noise_tables


@dataclass(frozen=True, eq=False)
class _Deposits:
    """Deposits compressed pulses on a grid of ``count`` points a beam (samples or bins).

    Attributes:
        by_offset: (2 half, PHASES + 1) the pulse's table by tap, each tap's phases contiguous.
        half: the table's taps each side.
        count: points a beam.
        start: range of point 0, m.
        interval: range between points, m.
    """

    by_offset: NDArray[np.complex64]
    half: int
    count: int
    start: float
    interval: float

    @classmethod
    def of(
        cls, table: KernelTable, count: int, start: float, grid: SampleGrid, step: int = 1
    ) -> _Deposits:
        """The deposits of ``table`` on every ``step``-th sample of ``grid``, from ``start``."""
        by_offset = np.ascontiguousarray(table.taps.T)
        return cls(by_offset, table.half, count, start, step * grid.interval)

    @property
    def reach(self) -> tuple[float, float]:
        """The ranges (m) between which a return's taps reach a point (open)."""
        return (
            self.start - self.half * self.interval,
            self.start + (self.count - 1 + self.half) * self.interval,
        )

    def deposit(
        self,
        beam: NDArray[np.integer],
        r: NDArray[np.float64],
        amplitude: NDArray[np.complex64],
        n_beams: int,
    ) -> NDArray[np.complex64]:
        """(N, count) the compressed pulses of returns of ``amplitude`` at ranges ``r`` (m).

        Those whose taps reach a point ("live") deposit ``2 half`` taps, scaled by their
        amplitude, on the points about their position: one complex64 ``np.add.at`` per tap
        over all beams at once. The beams lie end to end in one contiguous array (the fast
        one for every later pass), with ``2 half`` points spare at both ends (a live return's
        taps reach ``2 half - 1`` points past the window): the taps of a return near its
        beam's ends that fall outside the window add 0 there or to a neighbour.
        """
        count, half = self.count, self.half
        position = (r - self.start) * (1.0 / self.interval)
        live = (position > -half) & (position < count - 1 + half)
        if not live.all():
            index = np.flatnonzero(live)
            beam, position, amplitude = beam.take(index), position.take(index), amplitude[index]
        u = position.astype(np.float32)
        floor = np.floor(u)
        u -= floor
        u *= np.float32(PHASES)
        row = np.rint(u, out=u).astype(np.intp)
        first = floor.astype(np.intp) - (half - 1)  # the point of the first tap
        # The returns near an end of the window, and their first tap's point.
        edge = np.flatnonzero((first < 0) | (first > count - 2 * half))
        edge_first = first.take(edge)
        spare = 2 * half
        first += beam * count + spare  # in the flat array
        flat = np.zeros(n_beams * count + 2 * spare, dtype=np.complex64)
        for tap, taps in enumerate(self.by_offset):  # 2 half passes over the returns
            values = taps.take(row)
            values *= amplitude
            point = edge_first + tap
            values[edge[(point < 0) | (point >= count)]] = 0.0  # outside the window
            np.add.at(flat, first, values)
            first += 1
        series: NDArray[np.complex64] = flat[spare : spare + n_beams * count].reshape(
            n_beams, count
        )
        return series
