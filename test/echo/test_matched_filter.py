"""Pulse compression against closed forms (docs/beamforming.md#pulse-compression), with controls.

The output SNR of a matched filter is ``E / N0`` (Richards 2005, ch. 4): at a fixed echo
amplitude a chirp four times longer gains 10 log10(4) = 6.02 dB; the compressed pulse is the
chirp's closed form ``(1 - |t| / T) sinc(B t (1 - |t| / T))`` out to where it is under -40 dB;
the first ``c T / 2`` metres are blanked.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from beam_scenes import C, chirp_psf

from nps_sonar_py.echo.array_response import SteeredArray
from nps_sonar_py.echo.formed_beams import BeamFormer, BeamSetup
from nps_sonar_py.echo.matched_filter import blanked_range, compress, replica
from nps_sonar_py.echo.pulse import Pulse, PulseKind

BANDWIDTH = 10e3
#: Samples per second of the element signals, four per resolution cell.
RATE = 4.0 * BANDWIDTH


def output_snr_db(
    length: float, rng: np.random.Generator, n0: float = 1.0, noise_after: bool = False
) -> float:
    """Peak power of a unit echo over the mean noise power, after the matched filter.

    ``noise_after``: the control's wrong model, the noise added after the filter, unfiltered.

    The received series: the replica (unit amplitude) plus white complex noise of spectral
    density ``n0`` (variance ``n0 RATE`` per sample), both before the filter.
    """
    pulse = Pulse(PulseKind.CHIRP, length, BANDWIDTH)
    p = replica(pulse, RATE)
    size = 1 << 16
    echo = np.zeros(size, dtype=np.complex128)
    echo[1000 : 1000 + p.size] = p
    peak = float(np.max(np.abs(compress(echo, pulse, RATE)) ** 2))
    noise = rng.standard_normal((size, 2)) @ np.array([1.0, 1j]) * math.sqrt(n0 * RATE / 2.0)
    filtered = noise if noise_after else compress(noise, pulse, RATE)
    power = float(np.mean(np.abs(filtered[p.size : -p.size]) ** 2))
    return 10.0 * math.log10(peak / power)


def test_a_four_times_longer_chirp_gains_6_db() -> None:
    """+10 log10(4) = 6.02 dB within 0.3 dB; the SNR is E / N0 = T / N0."""
    rng = np.random.default_rng(3)
    short, long = output_snr_db(1e-3, rng), output_snr_db(4e-3, rng)
    assert long - short == pytest.approx(6.02, abs=0.3)
    assert short == pytest.approx(10.0 * math.log10(1e-3 / 1.0), abs=0.3)  # |a|**2 T / N0
    # Control: a wrong model whose noise enters after the filter (unfiltered, at the input's
    # power) gains nothing from the longer chirp, and the same check rejects it.
    wrong = output_snr_db(4e-3, rng, noise_after=True) - output_snr_db(1e-3, rng, noise_after=True)
    assert wrong != pytest.approx(6.02, abs=0.3)


def test_the_compressed_pulse_is_not_cut_while_above_minus_40_db() -> None:
    """The output follows the closed form wherever that is above -40 dB of its peak."""
    pulse = Pulse(PulseKind.CHIRP, 4e-3, BANDWIDTH)
    p = replica(pulse, RATE)
    echo = np.zeros(4096, dtype=np.complex128)
    start = 1000
    echo[start : start + p.size] = p
    out = compress(echo, pulse, RATE)
    centre = start + p.size // 2
    t = (np.arange(out.size) - centre) / RATE  # the peak at the pulse centre: lag 0
    expected = chirp_psf(t, BANDWIDTH, pulse.length)
    loud = np.abs(expected) > 0.01  # above -40 dB
    assert np.max(np.abs(np.abs(out[loud]) - np.abs(expected[loud]))) < 0.01
    far = np.abs(t) > 20.0 / BANDWIDTH  # beyond ten side lobes
    assert np.any(loud & far)
    assert np.max(np.abs(out[loud & far])) > 0.01
    # Control: the compressed pulse cut at +-2/B (the former support) misses those lobes.
    cut = np.where(np.abs(t) <= 2.0 / BANDWIDTH, expected, 0.0)
    assert np.max(np.abs(np.abs(cut[loud]) - np.abs(expected[loud]))) > 0.01


def _beam_of(target: float, blank: bool) -> np.ndarray:
    """A 4 ms chirp's beam (one, broadside) with a unit target at ``target`` m."""
    pulse = Pulse(PulseKind.CHIRP, 4e-3, BANDWIDTH)
    interval = C / (2.0 * RATE)
    setup = BeamSetup(SteeredArray(8), np.zeros(1), pulse, C, 0.5, interval, 600, blank=blank)
    out = BeamFormer(setup).form(np.array([target]), np.zeros(1), np.ones(1))
    return np.abs(out.baseband[0]) ** 2


def test_the_receiver_hears_nothing_while_the_sonar_transmits() -> None:
    """A 4 ms pulse at 1500 m/s: nothing in the first 3 m; a target beyond is heard."""
    pulse = Pulse(PulseKind.CHIRP, 4e-3, BANDWIDTH)
    assert blanked_range(pulse, C) == pytest.approx(3.0)
    ranges = 0.5 + C / (2.0 * RATE) * np.arange(600)
    near = _beam_of(2.5, blank=True)
    assert np.all(near[ranges < 3.0] == 0.0)
    far = _beam_of(3.5, blank=True)
    assert far[np.abs(ranges - 3.5) < 0.05].max() > 0.5 * far.max() > 0.0
    # Control: without the blanking the near target is heard.
    assert _beam_of(2.5, blank=False)[ranges < 3.0].max() > 0.1
