"""What a coherent image stores per range bin: one sample of the matched filter's output.

A uniform floor of many scatterers gives fully developed speckle: each stored sample's
intensity is exponential (Goodman, *Speckle Phenomena in Optics*, 2007, ch. 3), so its
scintillation index ``var(I) / mean(I)**2`` is 1 and ``var(ln I)`` is ``psi'(1) = pi**2 / 6``
(ln of an exponential is Gumbel distributed, its cumulants ``psi^(n-1)(1)``), whatever the
number of simulation samples per bin. Controls: the mean of a bin's ``p`` sample intensities
(what the model stored before) is an average of correlated looks, with the index
``sum_ij |mu_ij|**2 / p**2`` of its samples' complex correlations ``mu`` (Goodman, ch. 5),
which the tests reject. The mean level is the scatterers' energy per bin, worked here. The
scatterers lie evenly (their amplitudes complex Gaussian): at random places their count in
a resolution cell would add a texture of relative variance ``1 / count`` to the speckle.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import polygamma

from nps_sonar_py.echo.array_response import Shading, SteeredArray
from nps_sonar_py.echo.coherent import CoherentConfig, CoherentModel
from nps_sonar_py.echo.config import EchoConfig
from nps_sonar_py.echo.formed_beams import BeamFormer, BeamSetup
from nps_sonar_py.echo.matched_filter import bin_intensity, pulse_share, white_share
from nps_sonar_py.echo.pulse import Pulse, PulseKind, kernel_table
from nps_sonar_py.echo.sonar_equation import ReceiverNoise

C = 1500.0
BINS = 600
MAX_RANGE = 30.0
LINES = 32
PER_LINE = 30_000  # 50 scatterers a bin: many in each resolution cell
NEAR, FAR = 1.0, 29.0  # where the scatterers lie; the bins used are 1 m inside


def _floor(per_bin_band: float, seed: int = 5) -> tuple[CoherentModel, np.ndarray, np.ndarray]:
    """A chirp of ``per_bin_band`` times the bin rate ``c / (2 dr)`` over a uniform floor.

    Returns the model, the stored image (LINES, BINS) and the baseband (LINES, count).
    """
    echo = EchoConfig(
        min_range=0.0, max_range=MAX_RANGE, n_bins=BINS, frequency=600e3, sound_speed=C
    )
    bandwidth = per_bin_band * C / (2.0 * echo.bin_width)
    model = CoherentModel(CoherentConfig.of(pulse=Pulse(PulseKind.CHIRP, 2e-3, bandwidth)), echo)
    rng = np.random.default_rng(seed)
    ranges = np.tile(np.linspace(NEAR, FAR, PER_LINE), LINES)  # even: a steady mean level
    amplitudes = (rng.standard_normal(ranges.size) + 1j * rng.standard_normal(ranges.size)) / (
        math.sqrt(2.0)
    )
    beams = np.repeat(np.arange(LINES), PER_LINE)
    ping = model.scatterer_ping(beams, ranges, amplitudes.astype(np.complex64), LINES)
    return model, ping.intensity, ping.baseband


def _inner(image: np.ndarray) -> np.ndarray:
    """The bins 1 m inside the floor's ends (no edge of the pulse)."""
    centres = (np.arange(image.shape[-1]) + 0.5) * (MAX_RANGE / image.shape[-1])
    return image[:, (centres > NEAR + 1.0) & (centres < FAR - 1.0)]


def _index(values: np.ndarray) -> float:
    return float(values.var() / values.mean() ** 2)


def _looks_index(baseband: np.ndarray, p: int) -> float:
    """The index of a mean of ``p`` neighbouring samples' intensities, from their correlations."""
    inner = baseband[:, baseband.shape[1] // 8 : -baseband.shape[1] // 8]
    power = float(np.vdot(inner, inner).real)
    mu = [abs(np.vdot(inner[:, : inner.shape[1] - k], inner[:, k:])) / power for k in range(p)]
    return sum(mu[abs(i - j)] ** 2 for i in range(p) for j in range(p)) / p**2


@pytest.mark.parametrize(('band', 'per_bin'), [(0.9, 1), (1.01, 2), (2.5, 3)])
def test_a_floors_stored_samples_are_one_look_speckle(band: float, per_bin: int) -> None:
    """Index 1 and ``var(ln I) = pi**2 / 6`` within four standard errors, 1, 2 or 3 samples a bin.

    Standard errors of ``n`` samples (counted as ``n / 2``: neighbouring bins, at least
    ``0.9 / B`` apart, correlate a little): the index's ``2 / sqrt(n)`` (the delta method on
    ``m2 / m1**2`` of exponential moments), ``var(ln I)``'s ``sqrt((mu4 - k2**2) / n)`` with
    ``k2 = psi'(1)``, ``mu4 = psi'''(1) + 3 k2**2``. Control: the mean of the bin's sample
    intensities has its looks' index, far outside (2 and 3 samples a bin).
    """
    model, image, baseband = _floor(band)
    assert model.grid.per_bin == per_bin
    stored = _inner(image)
    n = stored.size / 2.0
    assert _index(stored) == pytest.approx(1.0, abs=4.0 * 2.0 / math.sqrt(n))
    k2, k4 = float(polygamma(1, 1)), float(polygamma(3, 1))
    assert k2 == pytest.approx(math.pi**2 / 6.0)
    spread = math.sqrt((k4 + 3.0 * k2**2 - k2**2) / n)
    assert float(np.log(stored).var()) == pytest.approx(k2, abs=4.0 * spread)
    if per_bin == 1:
        return
    power = np.abs(baseband.astype(np.complex128)) ** 2
    averaged = _inner(power.reshape(LINES, BINS, per_bin).mean(axis=2))
    expected = _looks_index(baseband, per_bin)
    assert _index(averaged) == pytest.approx(expected, abs=0.03)
    assert _index(averaged) < 1.0 - 10.0 * 2.0 / math.sqrt(n)
    assert float(np.log(averaged).var()) < k2 - 10.0 * spread


def test_the_stored_mean_level_is_the_floors_energy_per_bin() -> None:
    """The mean stored intensity is ``E|a|**2`` times the scatterers in a bin, ``PER_LINE dr / L``,
    within four standard errors (``mean / sqrt(n / 2)``, exponential). Control: a sample's
    ``|s|**2`` without the ``per_bin`` factor is half of it."""
    model, image, baseband = _floor(1.01)
    stored = _inner(image)
    expected = PER_LINE * model.echo.bin_width / (FAR - NEAR)
    error = expected / math.sqrt(stored.size / 2.0)
    assert float(stored.mean()) == pytest.approx(expected, abs=4.0 * error)
    one = _inner(np.abs(baseband[:, 1::2].astype(np.complex128)) ** 2)
    assert abs(float(one.mean()) - expected) > 20.0 * error


def test_formed_beams_store_one_look_speckle() -> None:
    """A formed fan over a uniform floor, 2 samples a bin: every fourth beam (0.08 apart in
    sine, beyond one another's first null at ``1 / (N d)`` = 0.0625) has index 1 and
    ``var(ln I) = pi**2 / 6`` within four standard errors; control: the mean of each bin's
    two sample intensities has its looks' index."""
    bandwidth = 10e3
    interval = C / (4.0 * bandwidth)  # 2 samples of a bin resolving c / (2 B)
    setup = BeamSetup(
        SteeredArray(32, 0.5, Shading.NONE),
        np.linspace(-0.4, 0.4, 81),
        Pulse(PulseKind.CHIRP, 2e-3, bandwidth),
        C,
        3.0,
        interval,
        1200,
        per_bin=2,
        blank=False,
    )
    rng = np.random.default_rng(3)
    grid = np.meshgrid(np.linspace(3.0, 3.0 + 1200 * interval, 6000), np.linspace(-0.6, 0.6, 100))
    ranges, sines = grid[0].ravel(), grid[1].ravel()
    amplitudes = rng.standard_normal(ranges.size) + 1j * rng.standard_normal(ranges.size)
    formed = BeamFormer(setup).form(ranges, sines, amplitudes)
    stored = formed.intensity[::4, 20:-20]
    n = stored.size / 2.0
    assert _index(stored) == pytest.approx(1.0, abs=4.0 * 2.0 / math.sqrt(n))
    k2, k4 = float(polygamma(1, 1)), float(polygamma(3, 1))
    spread = math.sqrt((k4 + 2.0 * k2**2) / n)
    assert float(np.log(stored).var()) == pytest.approx(k2, abs=4.0 * spread)
    power = np.abs(formed.baseband[::4].astype(np.complex128)) ** 2
    averaged = power.reshape(power.shape[0], -1, 2).mean(axis=2)[:, 20:-20]
    expected = _looks_index(formed.baseband[::4], 2)
    assert _index(averaged) == pytest.approx(expected, abs=4.0 * 2.0 / math.sqrt(n))
    assert _index(averaged) < 1.0 - 10.0 * 2.0 / math.sqrt(n)


def test_a_lone_echos_stored_bins_hold_its_energy_wherever_it_lies() -> None:
    """A lone echo at 33 places across a bin, 2 samples a bin: its stored bins add up to the
    energy of its samples within 1 % (the receive filter's band lies inside the stored
    samples' Nyquist band, so sampling it once a bin keeps ``1 / per_bin`` of its energy
    wherever it lies; the spread is 0.5 %). Control: each bin's second sample read without
    the filter (``per_bin |s|**2``) keeps 94 % to 106 % of it by place (a spread over 10 %)."""
    echo = EchoConfig(
        min_range=0.0, max_range=MAX_RANGE, n_bins=BINS, frequency=600e3, sound_speed=C
    )
    bandwidth = 1.01 * C / (2.0 * echo.bin_width)
    model = CoherentModel(CoherentConfig.of(pulse=Pulse(PulseKind.CHIRP, 2e-3, bandwidth)), echo)
    assert model.grid.per_bin == 2
    places = 10.0 + np.linspace(0.0, echo.bin_width, 33)
    ping = model.scatterer_ping(
        np.arange(places.size), places, np.ones(places.size, np.complex64), places.size
    )
    energy = np.sum(np.abs(ping.baseband.astype(np.complex128)) ** 2, axis=1)
    stored = ping.intensity.sum(axis=1) / energy
    assert stored == pytest.approx(np.ones(places.size), abs=0.01)
    unfiltered = 2.0 * np.sum(np.abs(ping.baseband[:, 1::2].astype(np.complex128)) ** 2, axis=1)
    assert np.ptp(unfiltered / energy) > 0.1


@pytest.mark.parametrize(('band', 'per_bin'), [(1.9, 2), (3.0, 3)])
def test_a_lone_echos_stored_energy_is_its_intensity_wherever_it_lies(
    band: float, per_bin: int
) -> None:
    """A lone unit echo at 65 places across a bin, an unwindowed chirp of ``band`` times the
    bin rate ``f_b``: its stored bins add up to its intensity, 1, within 1 % at every place,
    and each bin is the closed form.

    Closed form: the chirp's spectrum is flat over ``|f| < B / 2``, wider than the receive
    filter's band, so what a bin stores is the filter's own response,
    ``h(t) = integral over |g| < 1/2 of cos(pi g) exp(2 i pi g t) dg
    = (2 / pi) cos(pi t) / (1 - 4 t**2)`` (``t`` in bins from the echo), with
    ``integral h**2 = 1/2``; sampled once a bin it keeps that energy wherever it lies (its
    band is inside the bins' Nyquist band), so bin ``k`` stores ``2 h(k - u)**2`` and the sum
    is 1. Control: the stored bins as the model formed them before, the published samples
    (the compressed pulse cut at ``2 / B``, ``pulse.CHIRP_SUPPORT``) through the same filter
    (``bin_intensity``), vary with the place from 0.95 to 1.10 (1.9 times) and 0.92 to 1.16
    (3 times): rejected."""
    echo = EchoConfig(
        min_range=0.0, max_range=MAX_RANGE, n_bins=BINS, frequency=600e3, sound_speed=C
    )
    pulse = Pulse(PulseKind.CHIRP, 2e-3, band * C / (2.0 * echo.bin_width))
    model = CoherentModel(CoherentConfig.of(pulse=pulse), echo)
    assert model.grid.per_bin == per_bin
    places = 10.0 + np.linspace(0.0, echo.bin_width, 65)
    ping = model.scatterer_ping(
        np.arange(places.size), places, np.ones(places.size, np.complex64), places.size
    )
    sums = ping.intensity.sum(axis=1)
    assert sums == pytest.approx(np.ones(places.size), abs=0.01)
    assert np.ptp(sums) < 0.01
    t = ((np.arange(BINS) + 0.5) * echo.bin_width - places[:, None]) / echo.bin_width
    h = (2.0 / math.pi) * np.cos(math.pi * t) / (1.0 - 4.0 * t**2)
    np.testing.assert_allclose(ping.intensity, 2.0 * h**2, atol=0.005)
    share = pulse_share(kernel_table(pulse, 2.0 * model.grid.interval / C), per_bin)
    cut = bin_intensity(ping.baseband, per_bin, share).sum(axis=1)
    assert np.ptp(cut) > 0.1
    assert np.abs(cut - 1.0).max() > 0.05


def test_the_stored_noise_floor_is_the_sonar_equations() -> None:
    """Noise alone, 2 samples a bin: the mean stored intensity is the model's ``noise_power``
    (the sonar equation's per bin) within four standard errors, and its index 1. It is the
    published samples' noise through the receive filter with the gain of white noise
    (``bin_intensity`` with ``white_share``: the bins' noise is the samples' filtered once,
    not drawn apart), within 1e-3 of the norm 20 bins inside the ends (where the window's
    edge cuts the filter's tails). Control: the published samples' white noise read as
    stored samples with the pulse's share has ``white_share / share`` of it, about half
    (rejected)."""
    echo = EchoConfig(
        min_range=0.0, max_range=MAX_RANGE, n_bins=BINS, frequency=600e3, sound_speed=C
    )
    bandwidth = 1.01 * C / (2.0 * echo.bin_width)
    pulse = Pulse(PulseKind.CHIRP, 2e-3, bandwidth)
    model = CoherentModel(CoherentConfig.of(pulse=pulse, noise=ReceiverNoise(True)), echo)
    assert model.grid.per_bin == 2
    assert model.noise_power > 0.0
    none = np.zeros(0)
    ping = model.scatterer_ping(none.astype(np.intp), none, none.astype(np.complex64), LINES)
    n = ping.intensity.size / 2.0
    error = model.noise_power / math.sqrt(n)
    assert float(ping.intensity.mean()) == pytest.approx(model.noise_power, abs=4.0 * error)
    assert _index(ping.intensity) == pytest.approx(1.0, abs=4.0 * 2.0 / math.sqrt(n))
    read = bin_intensity(ping.baseband, 2, white_share(2))[:, 20:-20]
    inner = ping.intensity[:, 20:-20]
    assert float(np.linalg.norm(read - inner) / np.linalg.norm(inner)) < 1e-3
    share = pulse_share(kernel_table(pulse, 2.0 * model.grid.interval / C), 2)
    published = bin_intensity(ping.baseband, 2, share)
    assert abs(float(published.mean()) - model.noise_power) > 20.0 * error


@pytest.mark.parametrize('per_bin', [2, 3, 7, 100, 5000])
def test_white_share_is_the_filter_s_mean_power_over_the_band(per_bin: int) -> None:
    """The share of white noise the receive filter keeps, against a midpoint sum of
    ``cos(pi f p)**2`` over ``|f| < 1 / (2 p)`` of 4000 points across the band itself (so
    a wide ``per_bin``, whose band a fixed grid of frequencies barely sees, is summed as
    finely as a narrow one). Control: 4096 frequencies over the whole axis see the band of
    ``per_bin`` 5000 by its zero frequency alone, twice and more the true share."""
    half = 0.5 / per_bin
    f = (np.arange(4000) + 0.5) / 4000 * 2 * half - half
    integral = float(np.mean(np.cos(np.pi * f * per_bin) ** 2)) * 2 * half
    assert white_share(per_bin) == pytest.approx(integral, rel=1e-6)
    if per_bin == 5000:
        grid = np.fft.fftfreq(4096)
        coarse = float(
            np.mean(np.where(np.abs(grid) < half, np.cos(np.pi * grid * per_bin), 0) ** 2)
        )
        assert coarse > 2 * integral
