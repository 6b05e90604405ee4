"""Pulse compression: the transmitted replica, the matched filter, and the blanked range.

The receiver hears the echo ``sum_i a_i p(t - tau_i)`` plus white noise of spectral density
``N0``, and correlates it with the replica ``h(t) = w(t / T) p(t)`` (the matched filter,
weighted by a window to lower the range side lobes): noise enters before the filter. For a
unit-amplitude envelope of length ``T`` the output SNR is ``|a|**2 T / N0`` (the energy over
the noise density): a chirp of bandwidth ``B`` gains ``10 log10(B T)`` over the band-limited
input SNR ``|a|**2 / (N0 B)``, so a four times longer chirp of the same band gains 6.02 dB
(Richards, *Fundamentals of Radar Signal Processing*, 2005, ch. 4; ``docs/beamforming.md``).

The compressed pulse is computed whole, by FFT correlation: nothing is cut (the unwindowed
chirp's side lobes fall as ``1 / (pi B t)``, under -40 dB only past ``32 / B``). A monostatic
sonar cannot listen while it transmits: the first ``c T / 2`` metres are blanked.

What a sonar stores is that output sampled, once a sample: the complex value at the sample's
instant, then its squared modulus (Richards, ch. 3 and 4). The simulation's baseband may hold
``p`` samples a range bin (to sample the compressed pulse at its bandwidth); a bin's stored
value is the output, filtered to the bin rate as a receiver that samples once a bin
filters it, at the bin's centre (:func:`stored_samples`), not the sum of its samples'
intensities: that sum averages correlated looks and is no sample a device stores
(``docs/coherent.md#the-stored-sample``). The per-ray model does not filter its samples each
ping: it deposits the compressed pulse through the filter on the bins' centres
(:func:`stored_table`) and draws noise already filtered (:func:`stored_noise`), both made once.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numpy.typing import NDArray
from scipy import fft

from nps_sonar_py.echo.pulse import (
    PHASES,
    KernelTable,
    Pulse,
    PulseKind,
    pulse_spectrum,
    tabulate,
    window,
)

#: Threads of the stored samples' FFTs.
_WORKERS = 2
#: Frequencies of the compressed pulse's spectrum for its band share.
_SPECTRUM = 4096
#: Frequencies across the receive band for the filtered pulse's spectral sum.
_BAND_SAMPLES = 512
#: Least taps each side of the stored pulse's table, in bins: the filtered pulse falls as
#: ``1 / t**2`` (:func:`_response`); 3 (the taps reach 2 to 3 bins from the echo) keep a lone
#: echo's stored energy within 0.08 % of its intensity wherever it lies (5: 0.015 %).
_STORED_HALF = 3

__all__ = [
    'band_share',
    'bin_intensity',
    'blanked_range',
    'compress',
    'pulse_share',
    'reference',
    'replica',
    'stored_noise',
    'stored_samples',
    'stored_table',
    'white_share',
]


def replica(pulse: Pulse, rate: float) -> NDArray[np.complex128]:
    """The transmitted baseband envelope at ``rate`` (Hz): unit amplitude, ``T rate`` samples.

    Chirp: ``exp(i pi B t**2 / T)`` for ``t`` in ``[-T/2, T/2)`` (a linear sweep over
    ``[-B/2, B/2]``); CW: ones.
    """
    count = max(1, round(pulse.length * rate))
    t = (np.arange(count) - 0.5 * (count - 1)) / rate
    if pulse.kind is PulseKind.CW:
        return np.ones(count, dtype=np.complex128)
    out: NDArray[np.complex128] = np.exp(1j * math.pi * pulse.bandwidth / pulse.length * t**2)
    return out


def reference(pulse: Pulse, rate: float) -> NDArray[np.complex128]:
    """The matched filter's reference ``w(t / T) p(t)``, normalised so that ``sum |h| = 1``.

    With this scale a unit-amplitude echo compresses to a peak of 1 (unwindowed) and white
    noise of variance ``s**2`` per sample leaves with ``s**2 sum |h|**2``: for the unwindowed
    reference, ``s**2 / (T rate)``.
    """
    p = replica(pulse, rate)
    x = (np.arange(p.size) + 0.5) / p.size - 0.5
    h = window(pulse.window, x) * p
    out: NDArray[np.complex128] = h / np.sum(np.abs(h))
    return out


def compress(
    received: NDArray[np.complexfloating], pulse: Pulse, rate: float
) -> NDArray[np.complex128]:
    """The matched-filter output of ``received`` (last axis, samples at ``rate``), whole.

    ``y[j] = sum_k r[j + k - K // 2] conj(h[k])``: a linear correlation by FFT (no wrap, no
    cut), aligned so that an echo whose replica starts at sample ``j0`` peaks at
    ``j0 + K // 2`` (the pulse's centre), ``K`` the replica's length.
    """
    h = reference(pulse, rate)
    n = received.shape[-1]
    size = fft.next_fast_len(n + h.size - 1)
    spectrum = fft.fft(received, size, axis=-1) * np.conj(fft.fft(h, size))
    full = fft.ifft(spectrum, axis=-1)
    shift = h.size // 2
    out: NDArray[np.complex128] = np.roll(full, shift, axis=-1)[..., :n]
    return out


def blanked_range(pulse: Pulse, sound_speed: float) -> float:
    """Range the receiver cannot hear while the sonar transmits, ``c T / 2``, m."""
    return 0.5 * sound_speed * pulse.length


def stored_samples(series: NDArray[np.complexfloating], per_bin: int) -> NDArray[np.complex64]:
    """(..., count / per_bin) the receiver's output at each range bin's centre, complex64.

    ``series`` (..., count): ``per_bin`` samples a bin, sample ``i`` of bin ``j`` at
    ``j per_bin + i``, the bin's centre at ``j per_bin + (per_bin - 1) / 2``. One sample a
    bin: the series itself. More: the receiver's band is the bin rate's (a device sampling
    once a bin filters its input to about that band, or noise and echo would alias), so the
    series goes through a filter of the bin rate's band (:func:`_response`) and is read at
    the centres (for an even ``per_bin`` half a sample on: ``exp(i pi f / f_s)``), both on
    its spectrum, zero-padded by at least half its length (to ``per_bin L`` frequencies) so
    that its far end does not wrap onto its near end.

    Only what is read is computed: the filter keeps the ``L`` frequencies under the bin
    rate's Nyquist band, so the spectrum there is the sum over the ``per_bin`` phases (the
    series' samples ``r``, ``r + per_bin``, ...) of their ``L``-point FFTs, each times
    ``exp(-2 i pi f r)`` (the FFT split by decimation in time), and the output at the
    centres, ``per_bin`` samples apart, is one ``L``-point inverse FFT of it (the filter,
    the shift and the first centre's phase in the same weights, :func:`_weights`).
    """
    p = per_bin
    if p == 1:
        return np.asarray(series, dtype=np.complex64)
    n = series.shape[-1]
    bins = n // p
    samples = np.asarray(series, dtype=np.complex64).reshape(*series.shape[:-1], bins, p)
    phases = np.ascontiguousarray(samples.swapaxes(-1, -2))  # (..., p, bins)
    weights = _weights(n, p)
    spectra = fft.fft(phases, weights.shape[-1], axis=-1, workers=_WORKERS)
    spectra *= weights
    spectrum = spectra.sum(axis=-2)
    stored: NDArray[np.complex64] = fft.ifft(spectrum, axis=-1, workers=_WORKERS)[..., :bins]
    return np.ascontiguousarray(stored)


def _response(f: NDArray[np.float64], per_bin: int) -> NDArray[np.float64]:
    """The receive filter's gain at ``f`` (cycles a sample): the bin rate's band, Hann-shaped.

    ``cos(pi f per_bin)`` for ``|f| < 1 / (2 per_bin)``, 0 beyond: no echo or noise beyond the
    stored samples' Nyquist band (none aliases, and a lone echo's stored bins hold its
    filtered energy wherever it lies), and no sharp edge (a brick-wall band's response rings
    on, ``1 / t``, and would fill a shadow from the seabed beside it; this one falls as
    ``1 / t**2``).
    """
    inside = np.abs(f) < 0.5 / per_bin
    gain: NDArray[np.float64] = np.where(inside, np.cos(math.pi * f * per_bin), 0.0)
    return gain


@functools.lru_cache(maxsize=8)
def _weights(count: int, per_bin: int) -> NDArray[np.complex64]:
    """(per_bin, L) what multiplies phase ``r``'s ``L``-point FFT in :func:`stored_samples`.

    The spectrum is ``S = per_bin L`` points, ``L`` the fast FFT length that pads ``count``
    samples by at least half; frequency ``f = k / S`` (``k`` signed, ``|k| < L / 2``) of
    phase ``r`` is weighted by the filter, the half-sample shift (even ``per_bin``), the
    first centre's phase ``exp(2 i pi f first)`` and ``exp(-2 i pi f r)``, over ``per_bin``
    (the ``1 / S`` of the inverse FFT, which gives ``1 / L``).
    """
    p = per_bin
    length = fft.next_fast_len(-(-(count + max(count // 2, 64)) // p))
    f = fft.fftfreq(length) / p
    first = p // 2 - 1 if p % 2 == 0 else (p - 1) // 2
    lead = first + 0.5 if p % 2 == 0 else float(first)
    r = np.arange(p)[:, None]
    weights = _response(f, p) * np.exp(2j * math.pi * f * (lead - r)) / p
    out: NDArray[np.complex64] = weights.astype(np.complex64)
    out.flags.writeable = False
    return out


def band_share(power: NDArray[np.floating], f: NDArray[np.floating], per_bin: int) -> float:
    """The share of a spectrum's ``power`` at ``f`` (cycles a sample) the receive filter keeps.

    The stored samples keep that share of the compressed pulse's energy
    (:func:`stored_samples`); 1 for one sample a bin.
    """
    if per_bin == 1:
        return 1.0
    weight = _response(np.asarray(f, dtype=np.float64), per_bin) ** 2
    return float(np.sum(power * weight) / np.sum(power))


def white_share(per_bin: int) -> float:
    """The share of white noise's power the receive filter keeps (1 for one sample a bin).

    The mean of :func:`_response` squared over the band, in closed form: the integral of
    ``cos(pi f p)**2`` over ``|f| < 1 / (2 p)`` is ``1 / (2 p)`` (exact for any ``p``, where a
    sum over a fixed grid of frequencies misses once the band holds few of its points).
    """
    if per_bin == 1:
        return 1.0
    return 0.5 / per_bin


def pulse_share(table: KernelTable, per_bin: int) -> float:
    """:func:`band_share` of a compressed pulse's table (``pulse.kernel_table``).

    Its power spectrum averaged over the table's positions within a sample: what reads a
    published baseband's samples as stored bins (:func:`bin_intensity`).
    """
    if per_bin == 1:
        return 1.0
    spectrum = np.abs(np.fft.fft(table.taps[:PHASES], _SPECTRUM, axis=1)) ** 2
    return band_share(spectrum.mean(axis=0), np.fft.fftfreq(_SPECTRUM), per_bin)


def bin_intensity(
    series: NDArray[np.complexfloating], per_bin: int, share: float = 1.0
) -> NDArray[np.float64]:
    """(..., count / per_bin) each bin's stored intensity, ``per_bin |s(centre)|**2 / share``.

    A sample's squared modulus is the intensity of ``1 / per_bin`` of a bin (a lone echo's
    samples carry its energy, ``coherent.py``), and the band keeps ``share`` of the pulse's
    energy (:func:`band_share`, the receiver's gain restoring it): so a floor's mean level,
    and the sum of a lone echo's stored bins, are the energy's (the incoherent model's), while
    each bin is one sample of the speckle, as a device stores it.
    """
    stored = stored_samples(series, per_bin)
    power = np.square(stored.real, dtype=np.float64)
    power += np.square(stored.imag, dtype=np.float64)
    power *= per_bin / share
    return power


def stored_table(pulse: Pulse, sample_interval: float, per_bin: int) -> KernelTable:
    """The compressed pulse through the receive filter, tabulated on the bins' grid.

    What a bin stores of a lone echo is the filtered pulse ``R_f`` at the bin's centre:
    ``R_f(t) = integral of S(f) H(f) exp(2 i pi f t) df`` over the filter's band (``S`` the
    pulse's spectrum, ``pulse.pulse_spectrum``; ``H`` :func:`_response`), by a midpoint sum
    over the band (or the chirp's, if narrower). Tabulated whole where it matters: its
    spectrum lies inside the bins' Nyquist band and falls to 0 at its edges, so it decays as
    ``1 / t**2`` and ``_STORED_HALF`` bins each side hold nearly all its energy (at least the
    pulse's own support: where the chirp's band is inside the filter's, its edges stay).
    Normalised as every ``KernelTable`` (a mean energy of 1 over the positions in a bin):
    band-limited, its energy over the bins is the same at every position, so a lone echo's
    stored bins add up to its intensity wherever it lies, the gain ``per_bin / F`` of
    :func:`bin_intensity` included. Depositing it costs a few taps
    a ray, where filtering the samples costs FFTs of every sample of every ping.
    """
    interval = per_bin * sample_interval  # s between bins
    edge = 0.5 / interval
    if pulse.kind is PulseKind.CHIRP:
        edge = min(edge, 0.5 * pulse.bandwidth)
    f = ((np.arange(_BAND_SAMPLES) + 0.5) / _BAND_SAMPLES - 0.5) * 2.0 * edge
    weights = pulse_spectrum(pulse, f) * _response(f * sample_interval, per_bin)

    def response(t: NDArray[np.float64]) -> NDArray[np.complex128]:
        phase = np.exp(2j * math.pi * np.multiply.outer(t, f))
        out: NDArray[np.complex128] = phase @ weights.astype(np.complex128)
        return out

    half = max(_STORED_HALF, round(pulse.support / interval))
    return tabulate(response, half, interval)


def stored_noise(noise: NDArray[np.complex64], per_bin: int) -> NDArray[np.complex64]:
    """White noise ``noise`` (``per_bin`` samples a bin, a whole number of bins) as stored.

    Circular, for a table of noise whose windows at any bin are stationary: its DFT through
    the receive filter (:func:`_response`), read at the bins' centres (``per_bin`` samples
    apart, the first at ``(per_bin - 1) / 2``), by an inverse DFT of the frequencies the
    band keeps; times ``1 / sqrt(per_bin white_share)``, so that a stored bin's intensity,
    ``|z|**2``, has the mean of ``per_bin`` samples' (the noise power per bin). That is the
    samples' noise filtered to the pulse band's density (``docs/coherent.md``).
    """
    p = per_bin
    length = noise.size // p
    spectrum = fft.fft(np.asarray(noise, dtype=np.complex64), workers=_WORKERS)  # single: once
    k = np.rint(fft.fftfreq(length) * length).astype(np.int64)  # signed, |k| < length / 2
    f = k / noise.size
    weights = _response(f, p) * np.exp(2j * math.pi * f * 0.5 * (p - 1))
    weights /= math.sqrt(p * white_share(p))
    kept = spectrum[k % noise.size] * weights.astype(np.complex64)
    out: NDArray[np.complex64] = fft.ifft(kept, workers=_WORKERS).astype(np.complex64, copy=False)
    return out
