"""Beams formed by a line array over fixed scatterers, pulse-compressed, at FFT cost.

Beam ``b`` (steered to the sine ``s_b``) hears, after the matched filter,

    y_b(t) = sum_i a_i AF(s_i - s_b) R(t - 2 r_i / c) + noise,

``a_i`` each scatterer's complex echo (its fixed amplitude, the incoherent model's intensity,
the transmit pattern and the carrier phase of its true path), ``s_i`` its direction cosine
along the array, ``R`` the compressed pulse (``matched_filter.py``) and ``AF`` the array's
response (``array_response.py``). ``AF`` is a sum over the elements, so the sum over the
scatterers is done once per element and range, as a real array does: the scatterers are
spread on a grid in (range, sine) and two FFTs give every element's echo spectrum
``E_n(f) = sum_i a_i exp(2 i pi d x_n s_i - 2 i pi f 2 r_i / c)`` (``gridding.py``). There
the receiver's noise is added, white and independent per element, before the matched filter;
the matched filter is a product with the replica's spectrum, and the beams are the shaded
sum over the elements, evaluated at the beams' sines by an FFT and interpolation. The cost
is the FFTs of a (range x sine) grid and ``taps**2`` deposits per scatterer, not a sum per
scatterer per beam (``docs/beamforming.md``).

Scale: a lone scatterer's samples carry the energy ``|a|**2 |AF|**2`` (``sum_j |y_j|**2``),
so a bin's stored intensity, ``per_bin`` times the squared output at its centre, band-limited
to the bin rate (one sample, as a device stores it: ``matched_filter.bin_intensity``, over
the share of the echo's energy in that band), is in the incoherent model's units
and its mean over scatterer realisations is the incoherent image with the array's pattern
``|AF|**2``.
The noise goes through the same scale: the output SNR of a point is ``|a|**2 T / (N0 g)``
(``g = sum w**2 / (sum w)**2``, the beam's share of the element noise), growing with ``T``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import fft, sparse

from nps_sonar_py.background import beside, in_halves
from nps_sonar_py.echo.array_response import Aperture, SteeredArray
from nps_sonar_py.echo.fixed_scatterers import unit_phasor
from nps_sonar_py.echo.gridding import OVERSAMPLING, PHASES, Kernel
from nps_sonar_py.echo.matched_filter import (
    band_share,
    bin_intensity,
    blanked_range,
    reference,
    replica,
)
from nps_sonar_py.echo.pulse import Pulse

__all__ = ['BeamFormer', 'BeamSetup', 'FormedBeams', 'form_beams']

_WORKERS = 2
#: Echoes deposited at a time.
_CHUNK = 32768
#: A grid position in table steps: ``>> _SHIFT`` its cell, ``& _FRACTION`` its table row.
_SHIFT = PHASES.bit_length() - 1
_FRACTION = PHASES - 1


@dataclass(frozen=True)
class BeamSetup:
    """What a formed-beams sonar is: its array, beams, pulse and range samples.

    Attributes:
        array: the receive line array, along the sensor's y axis.
        beam_sines: (B,) the sines ``s_b`` the beams are steered to.
        pulse: the transmitted pulse and its matched-filter window.
        sound_speed: m/s.
        start: range of sample 0, m.
        interval: range between samples, m (``c / (2 f_s)``).
        samples: samples per beam.
        per_bin: samples per range bin.
        noise_density: each element's noise spectral density ``N0``, in the echoes' intensity
            units times seconds (0: no noise).
        blank: zero what the receiver hears while the sonar transmits (``c T / 2``).
    """

    array: SteeredArray
    beam_sines: NDArray[np.float64]
    pulse: Pulse
    sound_speed: float
    start: float
    interval: float
    samples: int
    per_bin: int = 1
    noise_density: float = 0.0
    blank: bool = True
    kernel: Kernel = field(default_factory=Kernel)

    def __post_init__(self) -> None:
        if self.samples < 1 or self.per_bin < 1 or self.samples % self.per_bin:
            raise ValueError(
                f'samples: {self.samples} is not a positive multiple of per_bin {self.per_bin}'
            )
        if not (self.interval > 0.0 and self.sound_speed > 0.0):
            raise ValueError(
                f'interval: {self.interval} m and sound_speed: {self.sound_speed} m/s must be > 0'
            )
        if self.noise_density < 0.0:
            raise ValueError(f'noise_density: {self.noise_density} (must be >= 0)')

    @property
    def rate(self) -> float:
        """Complex sample rate, Hz."""
        return self.sound_speed / (2.0 * self.interval)

    def ranges(self) -> NDArray[np.float64]:
        """(samples,) range of each sample, m."""
        return np.multiply(np.arange(self.samples), self.interval, dtype=np.float64) + self.start


@dataclass(frozen=True)
class FormedBeams:
    """One ping's beams: ``baseband`` (B, samples) complex64, ``intensity`` (B, bins) stored."""

    baseband: NDArray[np.complex64]
    intensity: NDArray[np.float64]


class BeamFormer:
    """Forms a setup's beams from scatterers' echoes; tables built once (module docstring)."""

    def __init__(self, setup: BeamSetup) -> None:
        self.setup = setup
        kernel, array = setup.kernel, setup.array
        self._pad = math.ceil(setup.pulse.length * setup.rate) + kernel.taps  # samples each side
        self._rows = fft.next_fast_len(setup.samples + 2 * self._pad)  # output rows, with pads
        self._grid_rows = OVERSAMPLING * self._rows
        n = array.elements
        self._columns = max(8, 1 << math.ceil(math.log2(OVERSAMPLING * n)))  # sine grid
        self._grid_step = setup.interval / OVERSAMPLING  # range between grid rows, m
        # Element n sits at d (m_n + c0): m_n = n - N // 2 centred on 0 (the kernel's band).
        m = np.arange(n) - n // 2
        self._element_columns = np.mod(m, self._columns)
        self._column_gain = self._columns / kernel.transform(m / self._columns)
        rows = np.fft.fftfreq(self._rows, 1.0 / self._rows).astype(np.int64)  # kept bins
        self._keep = np.mod(rows, self._grid_rows)
        self._row_gain = 1.0 / kernel.transform(rows / self._grid_rows)
        self._sig, self._mf, scale = self._filters(rows)
        # The shares of the echo's and the noise's power the stored samples' band keeps.
        self.share = band_share(np.abs(self._sig) ** 2, rows / self._rows, setup.per_bin)
        self.noise_share = band_share(np.abs(self._mf) ** 2, rows / self._rows, setup.per_bin)
        self._sig *= scale * self._row_gain
        self._mf *= scale
        w = array.weights()
        self._shade = (setup.rate * w / w.sum() / kernel.transform(m / self._columns)).astype(
            np.complex64
        )
        self._c0 = array.spacing * (n // 2 - 0.5 * (n - 1))  # wavelengths: 0, or d / 2 for even N
        # The deposits: the kernel's table (taps, PHASES) in single precision, each weight
        # twice (real and imaginary parts of a complex64: one gather gives the weights of an
        # amplitude's two parts). Tap pair (t, u) of an echo whose first tap is at (row r,
        # padded column c) lands at r * width + c + t * width + u, the padded grid being
        # ``left`` columns wider on the left than the sine period (taps - 1 in all).
        table = kernel.table[:PHASES].T.astype(np.float32)
        self._doubled = (table + 1j * table).astype(np.complex64)
        self._left = kernel.taps // 2 - 1
        width = self._columns + kernel.taps - 1
        offsets = np.arange(kernel.taps)
        self._offsets = [int(x) for x in (offsets[:, None] * width + offsets[None, :]).ravel()]
        # Each beam: the kernel's taps at its sine on the grid, times exp(-2 i pi c0 s_b).
        sines = np.asarray(setup.beam_sines, dtype=np.float64)
        index, weight = kernel.weights(sines * array.spacing * self._columns)
        phase = np.exp(-2j * math.pi * self._c0 * sines)
        beams = np.repeat(np.arange(sines.size), kernel.taps)
        self._beams = sparse.csr_matrix(
            ((weight * phase[:, None]).ravel(), (beams, (index % self._columns).ravel())),
            shape=(sines.size, self._columns),
            dtype=np.complex64,
        )

    @property
    def span(self) -> tuple[float, float]:
        """Nearest and farthest range (m) of an echo the grid holds; the others are dropped."""
        setup, taps = self.setup, self.setup.kernel.taps
        origin = setup.start - self._pad * setup.interval
        return origin + taps * self._grid_step, origin + (self._grid_rows - taps) * self._grid_step

    def _filters(
        self, rows: NDArray[np.int64]
    ) -> tuple[NDArray[np.complex128], NDArray[np.complex128], float]:
        """The echo's compressed spectrum, the noise's filter, and the output scale, at ``rows``.

        At frequency ``f``: the echo ``P(f) conj(H(f)) / f_g`` (``P`` the replica's, ``H`` the
        matched filter's reference, both sampled at the grid rate ``f_g``), the noise
        ``conj(H(f))``; times ``1 / sqrt(f_s integral |P H* / f_g|**2 df)`` so that a lone
        echo's samples at the rate ``f_s`` carry the energy ``|a|**2``.
        """
        setup = self.setup
        rate = OVERSAMPLING * setup.rate
        p, h = replica(setup.pulse, rate), reference(setup.pulse, rate)
        t = (np.arange(p.size) - 0.5 * (p.size - 1)) / rate  # centred on the echo's delay
        f = rows / (self._rows / setup.rate)  # Hz
        kernel = np.exp(-2j * math.pi * np.multiply.outer(f, t))
        spectrum_p, spectrum_h = kernel @ p, kernel @ h
        signal = spectrum_p * np.conj(spectrum_h) / rate
        df = setup.rate / self._rows
        energy = setup.rate * float(np.sum(np.abs(signal) ** 2)) * df
        return signal, np.conj(spectrum_h), 1.0 / math.sqrt(energy)

    def noise_per_sample(self) -> float:
        """Mean power of the noise in a beam's sample (over the beams), from ``noise_density``.

        Element noise of density ``N0`` at each kept frequency, through the matched filter
        and the inverse FFT: ``N0 T sum |mf|**2 / rows**2`` an element sample (``T`` the
        record's duration); the beams are a linear map of the elements (the shading, the FFT
        along them and the interpolation onto the beams' sines), each beam's noise the sum
        over the elements of its squared weights times that.
        """
        setup = self.setup
        duration = self._rows / setup.rate
        element = setup.noise_density * duration * float(np.sum(np.abs(self._mf) ** 2))
        element /= self._rows**2
        grid = np.exp(
            -2j
            * math.pi
            * np.outer(np.arange(self._columns), self._element_columns)
            / self._columns
        )
        weights = np.asarray(self._beams @ grid) * self._shade  # (beams, elements)
        return float(element * np.mean(np.sum(np.abs(weights) ** 2, axis=1)))

    def form(
        self,
        ranges: ArrayLike,
        sines: ArrayLike,
        amplitudes: ArrayLike,
        rng: np.random.Generator | None = None,
    ) -> FormedBeams:
        """The beams of echoes at ``ranges`` (m), ``sines`` along the array, ``amplitudes``.

        ``rng`` draws the element noise (needed when the setup has ``noise_density``).
        """
        setup = self.setup
        draw = self._noise_draw(rng)
        spectra = self._element_spectra(ranges, sines, amplitudes)
        if draw is not None:
            duration = self._rows / setup.rate
            sigma = math.sqrt(setup.noise_density * duration / 2.0)
            noise = draw().view(np.complex64)[..., 0]
            noise *= (sigma * self._mf)[:, None].astype(np.complex64)
            spectra += noise
        # Back to time at the output rate: sum_k X_k exp(2 i pi k j / rows) df, rows x N
        # (the rate, df rows, is in the shading).
        series = fft.ifft(spectra, axis=0, workers=_WORKERS)
        shaded = np.zeros((self._rows, self._columns), dtype=np.complex64)
        shaded[:, self._element_columns] = series * self._shade
        grid = fft.fft(shaded, axis=1, workers=_WORKERS)  # the beams on the sine grid
        rows = grid[self._pad : self._pad + setup.samples]
        beams: NDArray[np.complex64] = np.asarray(self._beams @ rows.T)
        if setup.blank:
            beams[:, setup.ranges() < blanked_range(setup.pulse, setup.sound_speed)] = 0.0
        return FormedBeams(beams, bin_intensity(beams, setup.per_bin, self.share))

    def _noise_draw(
        self, rng: np.random.Generator | None
    ) -> Callable[[], NDArray[np.float32]] | None:
        """The element noise's normal pairs (rows, N, 2), drawn beside the caller's work.

        None without ``noise_density``. The draws release the GIL: on a second core they
        cost the ping nothing (``background.beside``); the generator is used by nothing else
        meanwhile, so the ping is the same as drawn in line.
        """
        if self.setup.noise_density <= 0.0:
            return None
        if rng is None:
            raise ValueError('rng: a noise_density needs a generator for the noise')
        shape = (self._rows, self.setup.array.elements, 2)
        return beside(math.prod(shape), lambda: rng.standard_normal(shape, dtype=np.float32))

    def _element_spectra(
        self,
        ranges: ArrayLike,
        sines: ArrayLike,
        amplitudes: ArrayLike,
    ) -> NDArray[np.complex64]:
        """(rows, N) each element's echo spectrum at the kept frequencies, compressed.

        The echoes spread on the (range, sine) grid (:meth:`_grid`); an FFT along sine gives
        the elements (their ``N`` columns), one along range the spectra; each divided by the
        kernel's transform.
        """
        setup = self.setup
        row, column, a = self._echo_cells(ranges, sines, amplitudes)
        # Only the grid rows the echoes' taps reach are spread and transformed (the rest are 0).
        first = int(row.min()) >> _SHIFT if row.size else 0
        last = (int(row.max()) >> _SHIFT) + setup.kernel.taps if row.size else 1
        slab = self._grid(row, column, a, first, last - first)
        elements = np.zeros((self._grid_rows, setup.array.elements), dtype=np.complex64)
        transformed = fft.ifft(slab, axis=1, workers=_WORKERS)
        elements[first:last] = transformed[:, self._element_columns] * self._column_gain
        spectra: NDArray[np.complex64] = fft.fft(elements, axis=0, workers=_WORKERS)[self._keep]
        spectra *= self._sig[:, None]
        return spectra

    def _echo_cells(
        self, ranges: ArrayLike, sines: ArrayLike, amplitudes: ArrayLike
    ) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.complex64]]:
        """The echoes the grid holds: first tap's row and column, in ``1 / PHASES`` of a cell.

        ``position >> _SHIFT`` is the first tap's grid row (or padded column), ``position &
        _FRACTION`` the kernel table's row (the fraction of a cell, rounded). The columns wrap
        onto the sine period. The amplitude times ``exp(2 i pi c0 s)``, in single precision (a
        phase error of 1e-7).
        """
        setup = self.setup
        taps, left = setup.kernel.taps, self._left
        # Grid row ``(r - origin) / step``, less ``left`` (the first tap), in table steps,
        # + 0.5 so that the truncation rounds (all positive inside).
        origin = setup.start - self._pad * setup.interval
        row = np.multiply(ranges, PHASES / self._grid_step, dtype=np.float64)
        row += PHASES * (-origin / self._grid_step - left) + 0.5
        sine = np.asarray(sines, dtype=np.float64)
        a = np.asarray(amplitudes).astype(np.complex64)
        low, high = PHASES * (taps - left) + 0.5, PHASES * (self._grid_rows - taps - left) + 0.5
        if row.size and not (row.min() > low and row.max() < high):
            inside = (row > low) & (row < high)
            row, sine, a = row[inside], sine[inside], a[inside]
        # exp(2 i pi d x_n s) = exp(2 i pi c0 s) exp(2 i pi d m_n s).
        if self._c0 != 0.0:
            a *= unit_phasor(sine.astype(np.float32) * np.float32(2.0 * math.pi * self._c0))
        # The column ``s d columns``, shifted by whole periods to be positive, then wrapped.
        period = self._columns * PHASES
        column = np.multiply(sine, setup.array.spacing * period, dtype=np.float64)
        column += period * math.ceil(setup.array.spacing + 1.0) + 0.5
        wrapped = column.astype(np.intp)
        wrapped &= period - 1  # columns and PHASES are powers of two
        return row.astype(np.intp), wrapped, a

    def _grid(
        self,
        row: NDArray[np.intp],
        column: NDArray[np.intp],
        a: NDArray[np.complex64],
        first: int,
        rows: int,
    ) -> NDArray[np.complex64]:
        """(rows, columns) the echoes at ``row``, ``column`` (:meth:`_echo_cells`) spread.

        Grid rows ``first`` to ``first + rows``. ``taps**2`` deposits each. The grid has
        ``taps - 1`` columns more, so that no index wraps; they are folded back onto the sine
        period after. In chunks of ``_CHUNK`` echoes (the temporaries stay in cache): each
        tap pair's weighted amplitudes (float32 products, the complex amplitude's two parts
        times a table that holds each weight twice) added at the echoes' first cells in a
        view of the grid shifted by the pair's offset, one ``np.add.at`` (numpy's fast path;
        it holds the GIL, so threads would not share it).
        """
        taps, left = self.setup.kernel.taps, self._left
        width = self._columns + taps - 1
        padded = np.zeros(rows * width, dtype=np.complex64)
        views = [padded[offset:] for offset in self._offsets]
        parts = a.view(np.float32)
        spread = np.empty(2 * min(a.size, _CHUNK), dtype=np.float32)
        for start in range(0, a.size, _CHUNK):
            chunk = slice(start, start + _CHUNK)
            cell = row[chunk] >> _SHIFT
            cell -= first
            cell *= width
            cell += column[chunk] >> _SHIFT
            size = 2 * cell.size
            by_row = np.take(self._doubled, row[chunk] & _FRACTION, axis=1).view(np.float32)
            by_row *= parts[2 * start : 2 * start + size]
            by_column = np.take(self._doubled, column[chunk] & _FRACTION, axis=1).view(np.float32)
            out = spread[:size]
            for t in range(taps):
                for u in range(taps):
                    np.multiply(by_row[t], by_column[u], out=out)
                    np.add.at(views[t * taps + u], cell, out.view(np.complex64))
        wide = padded.reshape(rows, width)
        grid = wide[:, left : left + self._columns].copy()
        grid[:, self._columns - left :] += wide[:, :left]
        grid[:, : taps - 1 - left] += wide[:, left + self._columns :]
        return grid


def form_beams(
    former: BeamFormer,
    positions: NDArray[np.floating],
    amplitudes: NDArray[np.complexfloating],
    wavelength: float,
    transmit: Aperture | None = None,
    rng: np.random.Generator | None = None,
    ranges: NDArray[np.float64] | None = None,
) -> FormedBeams:
    """The beams of scatterers at ``positions`` (m, 3) in the sensor frame.

    The frame: x ahead, y along the array (starboard), z down.

    ``amplitudes``: each scatterer's echo without its phase, ``xi sqrt(I)`` (``I`` the
    incoherent model's intensity of its area); this adds the carrier phase of the two-way path
    ``2 r`` and the transmit pattern's one-way amplitude at its azimuth and elevation.
    Scatterers out of the grid's ranges (``BeamFormer.span``) are dropped first. ``ranges``:
    the positions' ``sqrt(x * x + y * y + z * z)`` if the caller has them already.
    """
    x, y, z = np.asarray(positions, dtype=np.float64).T
    r = np.sqrt(x * x + y * y + z * z) if ranges is None else ranges
    a = np.asarray(amplitudes)
    near, far = former.span
    if r.size and not (r.min() > near and r.max() < far):  # culled before their phases
        keep = (r > near) & (r < far)
        r, y, a = r[keep], y[keep], a[keep]
        if transmit is not None:
            x, z = x[keep], z[keep]
    phased = np.empty(r.size, dtype=np.complex64)
    sines = np.empty(r.size)

    def phase(span: slice) -> None:
        """The carrier phase and sine of the scatterers of ``span``."""
        turns = r[span] * (2.0 / wavelength)
        turns -= np.floor(turns)  # the fraction in double precision, its phasor in single
        carrier = unit_phasor(np.multiply(turns, -2.0 * math.pi, dtype=np.float32))
        np.multiply(a[span].astype(np.complex64), carrier, out=phased[span])
        np.divide(y[span], r[span], out=sines[span])

    in_halves(r.size, phase)  # each scatterer's own: the same as in one pass
    a = phased
    if transmit is not None:
        azimuth = np.arctan2(y, x)
        elevation = np.arcsin(np.clip(z / r, -1.0, 1.0))
        a *= transmit.amplitude(azimuth, elevation).astype(np.float32)
    return former.form(r, sines, a, rng)
