"""The transmitted pulse and its matched-filter response, as a complex baseband kernel.

A sonar transmits either a CW pulse (a tone of length ``tau``) or a linear frequency
modulated chirp of bandwidth ``B``; the receiver correlates the echo with a replica (the
matched filter), optionally weighted by a window to lower the side lobes
(``docs/coherent.md#the-pulse``). After the matched filter, a point scatterer at two-way
delay ``t0`` gives the compressed pulse ``R(t - t0)``:

* chirp: ``R(t) = integral over |f| < B/2 of W(f / B) exp(2 i pi f t) df``, the compressed
  pulse of a chirp of large time-bandwidth product whose spectrum is flat over the band and
  weighted by the window ``W`` on receive. Unwindowed, ``R(t) = B sinc(B t)``: -3 dB full
  width ``0.886 / B`` in time (``0.886 c / (2 B)`` in range), first side lobe -13.26 dB
  (Harris 1978, Table 1; Hamming: ``1.30 / B``, -42.7 dB).
* CW: the autocorrelation of the windowed envelope ``w(t / tau)`` of length ``tau``: a
  triangle of half width ``tau`` when unwindowed (range resolution about ``c tau / 2``).

The model samples ``R`` on a table of fractional sample offsets once per configuration
(:func:`kernel_table`), so that each ray's echo is deposited on the sample grid by a lookup.
The table holds ``PHASES + 1`` rows of ``2 half`` complex64 taps, ``half`` the pulse's half
length in samples: a long pulse (a chirp of a few hertz, a CW pulse of a second) on a fine
grid needs millions of taps. Its memory is bounded by ``MAX_PULSE_TABLE_BYTES`` and refused
in one line beyond (:func:`pulse_table_problem`); it is built a block of delays at a time, so
building it holds at most ``_BUILD_BYTES`` more.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.records import Record, setting

__all__ = [
    'CHIRP_SUPPORT',
    'MAX_PULSE_TABLE_BYTES',
    'KernelTable',
    'Pulse',
    'PulseKind',
    'PulseWindow',
    'compressed_pulse',
    'kernel_table',
    'pulse_problem',
    'pulse_spectrum',
    'pulse_table_problem',
    'tabulate',
    'window',
]

#: Frequency samples across the band for the chirp's spectral sum.
_SPECTRUM_SAMPLES = 512
#: Time samples across a CW pulse for its autocorrelation.
_CW_SAMPLES = 512
#: Fractional sample offsets the kernel is tabulated at (per sample).
PHASES = 64
#: The memory budget of a pulse's kernel table, 1 MiB: 2016 taps of 65 phases, complex64, a
#: compressed pulse 2016 samples long. Each return is deposited by one pass per tap, so a
#: longer pulse would also cost seconds a ping; building the table at the budget takes a few
#: seconds once.
MAX_PULSE_TABLE_BYTES = 1 << 20
#: Most bytes the table's construction holds at once besides it (complex128 terms of a block
#: of delays: 2048 delays of the 512 spectrum or envelope samples).
_BUILD_BYTES = 16 << 20


class PulseKind(Enum):
    """The transmitted waveform: a CW tone or a linear FM chirp."""

    CW = 'cw'
    CHIRP = 'chirp'


class PulseWindow(Enum):
    """Weighting of the matched filter (Harris 1978): none, Hann, Hamming or Tukey (0.5)."""

    NONE = 'none'
    HANN = 'hann'
    HAMMING = 'hamming'
    TUKEY = 'tukey'


#: The Tukey window's cosine fraction.
TUKEY_ALPHA = 0.5

#: Half length of the chirp's compressed pulse kept, in resolution cells ``1 / B``, per
#: window: the main lobe and the highest side lobe on each side (unwindowed and Tukey: the
#: first, at 1.43 and 1.53; Hann: the first, at 2.36; Hamming: its highest, -42.7 dB at 4.5).
#: The rest (5 % of the unwindowed energy, under 1 % of a windowed one) is dropped and the
#: kept part renormalised to the same energy.
CHIRP_SUPPORT: dict[PulseWindow, float] = {
    PulseWindow.NONE: 2.0,
    PulseWindow.TUKEY: 2.0,
    PulseWindow.HANN: 3.0,
    PulseWindow.HAMMING: 5.0,
}


@dataclass(frozen=True)
class Pulse(Record):
    """A pulse, checked on creation (``nps_sonar_py.records``).

    Attributes:
        kind: ``CW`` or ``CHIRP``.
        length: pulse length ``tau``, s.
        bandwidth: swept bandwidth ``B`` of a chirp, Hz (unused by CW).
        window: matched-filter weighting.
    """

    kind: PulseKind = setting(PulseKind.CHIRP, 'the transmitted pulse: chirp (linear FM) or cw')
    length: float = setting(1e-3, 'pulse length [s]', 1e-6, 1.0)
    bandwidth: float = setting(30e3, 'swept bandwidth of a chirp [Hz]', 1.0, 1e7)
    window: PulseWindow = setting(
        PulseWindow.NONE, 'matched-filter window: none, hann, hamming or tukey'
    )

    @property
    def effective_bandwidth(self) -> float:
        """The band the compressed pulse occupies, Hz: ``B`` for a chirp, ``1 / tau`` for CW."""
        return self.bandwidth if self.kind is PulseKind.CHIRP else 1.0 / self.length

    @property
    def support(self) -> float:
        """Half length of the compressed pulse kept, s (``CHIRP_SUPPORT`` / ``B``, or ``tau``)."""
        if self.kind is PulseKind.CHIRP:
            return CHIRP_SUPPORT[self.window] / self.bandwidth
        return self.length

    def resolution(self, sound_speed: float) -> float:
        """Nominal range resolution ``c / (2 B_eff)``, m."""
        return sound_speed / (2.0 * self.effective_bandwidth)


def pulse_problem(pulse: Pulse, frequency: float) -> str | None:
    """Why this pulse cannot be sent on this carrier (Hz), or ``None``.

    A chirp's band ``f +- B / 2`` must stay above 0 Hz: ``B < 2 f``.
    """
    if pulse.kind is PulseKind.CHIRP and pulse.bandwidth >= 2.0 * frequency:
        return (
            f'bandwidth: a chirp of {pulse.bandwidth:g} Hz is wider than the carrier of '
            f'{frequency:g} Hz allows (its band would reach 0 Hz; must be < {2 * frequency:g})'
        )
    return None


def window(kind: PulseWindow, x: NDArray[np.float64]) -> NDArray[np.float64]:
    """The window at ``x`` in [-1/2, 1/2] (its span), 0 outside; 1 at the centre."""
    inside = np.abs(x) <= 0.5
    if kind is PulseWindow.NONE:
        w = np.ones_like(x)
    elif kind is PulseWindow.HANN:
        w = 0.5 + 0.5 * np.cos(2.0 * math.pi * x)
    elif kind is PulseWindow.HAMMING:
        w = 0.54 + 0.46 * np.cos(2.0 * math.pi * x)
    else:  # Tukey: flat in the middle, cosine tapers over TUKEY_ALPHA of the span
        edge = np.clip((np.abs(x) - 0.5 * (1.0 - TUKEY_ALPHA)) / TUKEY_ALPHA, 0.0, 1.0)
        w = 0.5 + 0.5 * np.cos(math.pi * edge)
    return np.where(inside, w, 0.0)


def compressed_pulse(pulse: Pulse, t: NDArray[np.float64]) -> NDArray[np.complex128]:
    """The matched-filter output ``R(t)`` at delays ``t`` (s), any shape, peak 1 at ``t = 0``.

    Chirp: the spectral sum of the module docstring (midpoint rule, ``_SPECTRUM_SAMPLES``
    frequencies); CW: the autocorrelation of the windowed envelope.
    """
    t = np.asarray(t, dtype=np.float64)
    if pulse.kind is PulseKind.CHIRP:
        n = _SPECTRUM_SAMPLES
        x = (np.arange(n) + 0.5) / n - 0.5  # f / B
        w = window(pulse.window, x)
        phase = np.exp(2j * math.pi * np.multiply.outer(t * pulse.bandwidth, x))
        out: NDArray[np.complex128] = (phase @ w) / w.sum()
        return out
    n = _CW_SAMPLES
    x = (np.arange(n) + 0.5) / n - 0.5  # t / tau across the pulse
    w = window(pulse.window, x)
    lag = t / pulse.length  # the envelope slid by t / tau, both real: R(t) = sum w(x) w(x - lag)
    shifted = window(pulse.window, np.subtract.outer(lag, x).ravel()).reshape(*lag.shape, n)
    result: NDArray[np.complex128] = ((shifted @ w) / (w @ w)).astype(np.complex128)
    return result


def pulse_spectrum(pulse: Pulse, f: NDArray[np.float64]) -> NDArray[np.float64]:
    """The compressed pulse's spectrum at ``f`` (Hz), real, up to a constant factor.

    Chirp: the window over the band, ``W(f / B)`` for ``|f| <= B / 2``, 0 beyond; CW: the
    squared spectrum of the windowed envelope (``R`` is its autocorrelation), by a midpoint
    sum over ``_CW_SAMPLES`` points of the pulse (real: the window is even).
    """
    f = np.asarray(f, dtype=np.float64)
    if pulse.kind is PulseKind.CHIRP:
        return window(pulse.window, f / pulse.bandwidth)
    x = (np.arange(_CW_SAMPLES) + 0.5) / _CW_SAMPLES - 0.5
    envelope = np.cos(2.0 * math.pi * np.multiply.outer(f * pulse.length, x)) @ window(
        pulse.window, x
    )
    spectrum: NDArray[np.float64] = (envelope / _CW_SAMPLES) ** 2
    return spectrum


@dataclass(frozen=True)
class KernelTable:
    """``R`` tabulated for depositing a return on a sample grid (``coherent.py``).

    A return at fractional sample position ``u`` (sample ``j`` centred at ``j``) adds
    ``a * taps[p, o]`` to sample ``floor(u) + o - half + 1`` for ``o`` in ``[0, 2 half)``,
    with ``p = round((u - floor(u)) * PHASES)``. Normalised so that the mean over ``p`` of
    ``sum_o |taps[p, o]|**2`` is 1: a return's energy over the samples is its intensity on
    average over its position, whatever the sample rate.

    Attributes:
        half: taps on each side, >= 1.
        taps: (PHASES + 1, 2 half) complex64.
    """

    half: int
    taps: NDArray[np.complex64]


def _half(pulse: Pulse, sample_interval: float) -> int:
    """Taps on each side of the kernel: the pulse's support in samples, at least 1."""
    return max(1, round(pulse.support / sample_interval))


def pulse_table_problem(pulse: Pulse, sample_interval: float) -> str | None:
    """Why the kernel table of this pulse on this grid is over its memory budget, or ``None``.

    One line naming the setting that makes the pulse long (``bandwidth`` of a chirp,
    ``pulse_duration`` of a CW pulse), the memory it implies and the budget.
    """
    taps = 2.0 * max(1.0, pulse.support / sample_interval)  # before rounding: no overflow
    needed = (PHASES + 1) * taps * np.dtype(np.complex64).itemsize
    if needed <= MAX_PULSE_TABLE_BYTES:
        return None
    if pulse.kind is PulseKind.CHIRP:
        what, fix = f'bandwidth: a chirp of {pulse.bandwidth:g} Hz', 'a wider band'
    else:
        what, fix = f'pulse_duration: a cw pulse of {pulse.length:g} s', 'a shorter pulse'
    return (
        f'{what} spans {taps:.4g} samples of {sample_interval:.3g} s: its pulse table would '
        f'need {needed / 2**20:.4g} MiB, over the budget of {MAX_PULSE_TABLE_BYTES >> 20} MiB '
        f'(docs/coherent.md); {fix} or wider range bins'
    )


def kernel_table(pulse: Pulse, sample_interval: float) -> KernelTable:
    """The compressed pulse on a grid of ``sample_interval`` s (``KernelTable``).

    Raises:
        ConfigurationError: the table is over ``MAX_PULSE_TABLE_BYTES``
            (:func:`pulse_table_problem`), refused before anything is allocated.
    """
    problem = pulse_table_problem(pulse, sample_interval)
    if problem:
        raise ConfigurationError(problem)
    half = _half(pulse, sample_interval)
    return tabulate(lambda t: compressed_pulse(pulse, t), half, sample_interval)


def tabulate(
    response: Callable[[NDArray[np.float64]], NDArray[np.complex128]],
    half: int,
    sample_interval: float,
) -> KernelTable:
    """The ``KernelTable`` of ``response`` (its values at delays in s) on ``sample_interval``.

    ``half`` taps each side; normalised to a mean energy of 1 over the positions within a
    sample. Built a block of delays at a time (at most ``_BUILD_BYTES`` besides the table).
    """
    width = 2 * half
    taps = np.empty((PHASES + 1) * width, dtype=np.complex64)
    energy = 0.0
    block = _BUILD_BYTES // (16 * max(_SPECTRUM_SAMPLES, _CW_SAMPLES))
    for start in range(0, taps.size, block):  # blocks of delays: bounded memory, not per tap
        entry = np.arange(start, min(start + block, taps.size))
        phase, offset = np.divmod(entry, width)  # offset: sample minus floor(u), + half - 1
        x = (offset - (half - 1)) - phase / PHASES  # sample minus u, in samples
        values = response(x * sample_interval)
        taps[entry[0] : entry[-1] + 1] = values
        # the energy over the phases 0 .. PHASES - 1 (the last row repeats the first)
        energy += float(np.sum(np.abs(values[phase < PHASES]) ** 2))
    taps /= np.float32(math.sqrt(energy / PHASES))
    return KernelTable(half, taps.reshape(PHASES + 1, width))
