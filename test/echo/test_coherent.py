"""The coherent model against closed forms (``docs/coherent.md#checks``), each with a control."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from coherent_scenes import (
    C,
    X,
    chirp,
    fine_echo,
    first_side_lobe_db,
    lossless_echo,
    point_echo,
    psf_figures,
    seabed_model,
    seabed_rays,
)

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig, EchoModel
from nps_sonar_py.echo.coherent import CoherentConfig, CoherentModel
from nps_sonar_py.echo.line_array import LineArray
from nps_sonar_py.echo.pulse import Pulse, PulseKind, PulseWindow
from nps_sonar_py.echo.sonar_equation import ReceiverNoise
from nps_sonar_py.errors import ConfigurationError

RESOLUTION = C / (2.0 * 10e3)  # c / (2 B) of point_echo's chirp, m


@pytest.mark.parametrize(
    ('window', 'width', 'side_lobe'),
    [(PulseWindow.NONE, 0.886, -13.26), (PulseWindow.HAMMING, 1.30, -42.7)],
)
def test_range_psf_after_the_matched_filter(
    window: PulseWindow, width: float, side_lobe: float
) -> None:
    """-3 dB width 0.886 c / (2 B) and -13.26 dB unwindowed; 1.30 and -42.7 dB Hamming."""
    ping = point_echo(window)
    measured_width, measured_lobe = psf_figures(np.abs(ping.baseband[0]) ** 2, ping.grid.interval)
    assert measured_width / RESOLUTION == pytest.approx(width, rel=0.01)
    assert measured_lobe == pytest.approx(side_lobe, abs=0.3)
    # Negative control: the other window's figures are not met.
    other = point_echo(PulseWindow.HAMMING if window is PulseWindow.NONE else PulseWindow.NONE)
    other_width, other_lobe = psf_figures(np.abs(other.baseband[0]) ** 2, other.grid.interval)
    assert other_width / RESOLUTION != pytest.approx(width, rel=0.01)
    assert other_lobe != pytest.approx(side_lobe, abs=0.3)


def test_the_psf_sits_at_the_target_range() -> None:
    """The envelope's peak is at the scatterer's range, to a sample."""
    ping = point_echo(PulseWindow.NONE, target=9.9)
    peak = int(np.argmax(np.abs(ping.baseband[0])))
    assert ping.grid.start + peak * ping.grid.interval == pytest.approx(
        9.9, abs=ping.grid.interval
    )


def _sinc_array_power(offset: np.ndarray, elements: int, spacing: float) -> np.ndarray:
    """|sin(N psi / 2) / (N sin(psi / 2))|**2, psi = 2 pi d offset (d in wavelengths)."""
    psi = 2.0 * math.pi * spacing * offset
    with np.errstate(invalid='ignore', divide='ignore'):
        ratio = np.sin(elements * psi / 2.0) / (elements * np.sin(psi / 2.0))
    return np.where(np.abs(psi) < 1e-12, 1.0, ratio**2)


@pytest.mark.parametrize(('window', 'width', 'side_lobe'), [(PulseWindow.NONE, 0.886, -13.26)])
def test_array_factor_width_and_side_lobe(
    window: PulseWindow, width: float, side_lobe: float
) -> None:
    """Uniform line array: -3 dB width 0.886 lambda / (N d), first side lobe -13.26 dB."""
    n, d = 64, 0.5
    u = np.linspace(0.0, 4.0 / (n * d), 20001)
    power = np.abs(LineArray(n, d, window).factor(u)) ** 2
    assert np.allclose(power, _sinc_array_power(u, n, d), atol=1e-9)  # the closed form itself
    half = float(u[power >= 0.5].max())
    assert 2.0 * half * n * d == pytest.approx(width, rel=2e-3)
    assert first_side_lobe_db(power) == pytest.approx(side_lobe, abs=0.05)
    # Negative control: a Hamming-weighted array has neither figure.
    hamming = np.abs(LineArray(n, d, PulseWindow.HAMMING).factor(u)) ** 2
    assert 2.0 * float(u[hamming >= 0.5].max()) * n * d == pytest.approx(1.30, rel=0.02)
    assert first_side_lobe_db(hamming) < side_lobe - 20.0


def test_a_strong_echo_leaks_across_beams_as_the_array_factor() -> None:
    """One scatterer in beam 0 is heard in beam b at |AF(sin a_b - sin a_0)|**2 coverage."""
    echo = lossless_echo(5.0, 15.0, 200, 200e3, beam_width=math.radians(2.0), sound_speed=C)
    array = LineArray(50, 0.5)  # 0.886 / 25 rad = 2.03 deg: about beam_width
    azimuths = np.radians(np.linspace(-30.0, 30.0, 601))
    coverage = 0.25
    config = chirp(1e-3, 10e3, array=array)
    model = CoherentModel(config, echo, azimuths=azimuths, coverage=coverage)
    intensity = np.zeros((601, 1))
    intensity[300] = 1.0  # beam 300 (azimuth 0) alone hears the scatterer
    ping = model.ping(intensity, np.full((601, 1), 10.0), np.zeros(3), np.tile(X, (601, 1)))
    column = int(np.argmax(ping.intensity[300]))
    heard = ping.intensity[:, column] / ping.intensity[300, column]
    expected = _sinc_array_power(np.sin(azimuths), 50, 0.5) * coverage
    outside = np.abs(np.sin(azimuths)) >= 1.0 / 25.0  # beyond the first null
    assert np.allclose(heard[outside], expected[outside], rtol=1e-3, atol=1e-9)
    assert np.all(heard[~outside & (np.arange(601) != 300)] == 0.0)  # the rays' own main lobe
    first_lobe = float(heard[outside].max() / coverage)
    assert 10.0 * math.log10(first_lobe) == pytest.approx(-13.26, abs=0.1)
    # Negative control: without the array nothing leaks.
    plain = CoherentModel(CoherentConfig.of(pulse=config.transmitted), echo)
    alone = plain.ping(intensity, np.full((601, 1), 10.0), np.zeros(3), np.tile(X, (601, 1)))
    assert np.count_nonzero(alone.intensity[:, column]) == 1


def test_fully_developed_speckle_is_exponential_and_n_looks_divide_its_index() -> None:
    """A rough flat seabed: scintillation index 1; the mean of N independent looks: 1 / N."""
    ranges, cos, directions = seabed_rays(40, 2000, 10.0)
    intensity = 1e-4 * cos / ranges**2
    looks = np.stack(
        [
            seabed_model(seed)[0].ping(intensity, ranges, np.zeros(3), directions).intensity
            for seed in range(60)
        ]
    )  # (seeds, beams, bins)
    mean = looks.mean(axis=0)
    lit = mean > 0.2 * mean.max()  # bins well inside the seabed's echo
    normalised = looks[:, lit] / mean[lit]
    index = float(np.mean(normalised**2) - 1.0)
    samples = normalised.size
    assert index == pytest.approx(1.0, abs=5.0 * math.sqrt(20.0 / samples))  # Var(I^2) = 20
    above = [float(np.mean(normalised > t)) for t in (1.0, 2.0, 3.0)]
    assert above == pytest.approx([math.exp(-1), math.exp(-2), math.exp(-3)], abs=0.01)
    four = normalised.reshape(15, 4, -1).mean(axis=1)  # 4 independent looks averaged
    assert float(np.mean(four**2) / np.mean(four) ** 2 - 1.0) == pytest.approx(0.25, abs=0.03)
    # Negative control: the same seed every look is one look repeated: index 1, not 1/4.
    same = np.stack([looks[0][lit] / mean[lit]] * 4).mean(axis=0)
    assert float(np.mean(same**2) / np.mean(same) ** 2 - 1.0) > 0.5


@pytest.mark.parametrize('pulse', [Pulse(PulseKind.CHIRP, 1e-3, 10e3), Pulse(PulseKind.CW, 1e-4)])
def test_mean_coherent_intensity_is_the_incoherent_model_bin_by_bin(pulse: Pulse) -> None:
    """Over scatterer seeds, the mean coherent image equals the incoherent one within MC error."""
    n_beams, n_rays = 4, 4000
    ranges, cos, directions = seabed_rays(n_beams, n_rays, 8.0, seed=3)
    echo = seabed_model(pulse=pulse)[1]
    pattern = EchoModel(echo, np.zeros(n_rays), np.full(n_rays, 1e-4), pattern=np.ones(n_rays))
    incoherent = pattern.echoes(ranges, cos, 0.3).intensity
    per_ray = pattern.ray_intensities(ranges, cos, 0.3)
    seeds = 150
    images = np.stack(
        [
            seabed_model(seed, pulse)[0].ping(per_ray, ranges, np.zeros(3), directions).intensity
            for seed in range(seeds)
        ]
    )
    mean = images.mean(axis=0)
    # The standard error of a mean of one-look (exponential) intensities, whose standard
    # deviation is their mean: a bin is one sample of the speckle. (The draws' own standard
    # deviation is low where their mean is, which would inflate a low bin's deviation.)
    error = incoherent / math.sqrt(seeds)
    lit = incoherent > 0.0
    inside = lit & np.roll(lit, 1, axis=1) & np.roll(lit, -1, axis=1)  # not the echo's edges
    inside[:, 0] = False  # nor the window's first bin, where echoes from before it spill in
    z = (mean - incoherent)[inside] / error[inside]
    assert float(np.max(np.abs(z))) < 4.5
    assert float(np.mean(z**2)) < 2.0  # chi-square per bin about 1 (the PSF's blur adds some)
    # Negative control: an incoherent model 20 % brighter is far outside the Monte Carlo error.
    brighter = pattern.echoes(ranges, cos, 0.36).intensity
    assert float(np.mean(((mean - brighter)[inside] / error[inside]) ** 2)) > 3.0


def _correlation(a: np.ndarray, b: np.ndarray) -> float:
    """``|sum a b*| / sqrt(sum |a|**2 sum |b|**2)``: the complex correlation of two echoes."""
    cross = abs(np.vdot(b.ravel(), a.ravel()))
    return float(cross / math.sqrt(np.vdot(a, a).real * np.vdot(b, b).real))


def test_a_static_scene_gives_identical_pings_and_a_new_seed_another_one() -> None:
    """Same scene and pose: the same bits; scatterer_seed 1: an independent realisation."""
    ranges, cos, directions = seabed_rays(40, 2000, 10.0)
    intensity = cos / ranges**2
    model = seabed_model()[0]
    first = model.ping(intensity, ranges, np.zeros(3), directions)
    again = model.ping(intensity, ranges, np.zeros(3), directions)
    assert np.array_equal(first.baseband, again.baseband)
    other = seabed_model(seed=1)[0].ping(intensity, ranges, np.zeros(3), directions)
    assert _correlation(first.baseband, other.baseband) < 0.1  # MC error about 0.03


@pytest.mark.parametrize('fraction', [0.0, 0.25, 0.5, 1.0, 2.0])
def test_moving_along_the_seabed_decorrelates_as_predicted(fraction: float) -> None:
    """Sliding the sonar by s along a level seabed: echo correlation ``max(0, 1 - s / q)``.

    The ranges do not change; each hit moves by ``s`` along x, so it stays in its speckle
    cell of edge ``q`` with probability ``1 - s / q`` (its scatterer unchanged) and meets an
    independent one otherwise: the complex correlation of the echoes is ``1 - s / q``.
    """
    model, echo = seabed_model()
    cell = 0.25 * echo.wavelength
    altitude = 10.0 + 0.5 * cell - (10.0 % cell)  # the plane mid-cell: no z cell changes
    ranges, cos, directions = seabed_rays(40, 2000, altitude)
    intensity = cos / ranges**2
    before = model.ping(intensity, ranges, np.zeros(3), directions).baseband
    moved = np.array([fraction * cell, 0.0, 0.0])
    after = model.ping(intensity, ranges, moved, directions).baseband
    correlation = _correlation(before, after)
    assert correlation == pytest.approx(max(0.0, 1.0 - fraction), abs=0.03)
    # Negative control: the intensities' correlation is the square (Siegert), not this.
    if fraction == 0.5:
        assert correlation != pytest.approx(0.25, abs=0.03)


def _snr(config: CoherentConfig, echo: EchoConfig, intensity: np.ndarray, r: float) -> float:
    """SNR in dB of one scatterer at ``r`` m: its pulse's energy over a bin's noise.

    Averaged over 300 pings, each with another realisation of the scatterer (its ``|xi|**2``
    is one exponential draw per speckle cell) and of the noise (the model's generator moves
    on). One model makes them all (its noise table is built once): ping k is sent from 1 m
    further along y, square to the ray, so the hit is in another cell, and its range moves
    evenly over one bin: each bin stores one sample, at its centre, and the stored samples of
    a point hold its pulse's energy on average over where in a bin it falls (sampled at less
    than the pulse's band, ``n_bins`` 400 and 10 kHz here, they straddle its peak).
    """
    target = round((r - echo.min_range) / echo.bin_width - 0.5)
    signal, floor = 0.0, 0.0
    model = CoherentModel(config, echo)
    for k in range(300):
        origin = np.array([0.0, float(k), 0.0])
        moved = r + ((k + 0.5) / 300 - 0.5) * echo.bin_width
        image = model.ping(intensity, np.array([[moved]]), origin, X).intensity[0]
        noise = float(image[:100].mean())  # bins far from the target: noise alone
        signal += float(image[target - 3 : target + 4].sum()) - 7 * noise
        floor += noise
    return 10.0 * math.log10(signal / floor)


def test_snr_over_the_noise_floor_is_the_sonar_equation() -> None:
    """One target: SL - 2 TL + TS - (N0 + 10 log B - DI) within 0.5 dB, TS of its footprint."""
    source, n0, di, bandwidth = 180.0, 60.0, 20.0, 10e3
    r, mu, solid = 40.0, 0.5, 1e-3
    absorption = 0.05  # dB/m
    echo = EchoConfig(
        min_range=20.0,
        max_range=60.0,
        n_bins=400,
        frequency=200e3,
        sound_speed=C,
        absorption=Absorption.FIXED,
        fixed_absorption=absorption,
        source_level=source,
        beam_width=math.radians(10.0),
    )
    config = CoherentConfig.of(
        pulse=Pulse(PulseKind.CHIRP, 1e-3, bandwidth), noise=ReceiverNoise(True, n0, di)
    )
    ray = EchoModel(echo, np.zeros(1), np.array([solid]), pattern=np.ones(1))
    intensity = ray.ray_intensities(np.array([[r]]), np.ones((1, 1)), mu)
    transmission = 20.0 * math.log10(r) + absorption * r
    strength = 10.0 * math.log10(mu) + 10.0 * math.log10(r**2 * solid)  # Lambert, normal
    expected = source - 2 * transmission + strength - (n0 + 10 * math.log10(bandwidth) - di)
    assert 15.0 < expected < 40.0  # a target well above the floor, the noise still visible
    assert _snr(config, echo, intensity, r) == pytest.approx(expected, abs=0.5)
    # Negative control: a directivity index of 0 dB lowers the measured SNR by DI.
    deaf = dataclasses.replace(config, directivity_index=0.0)
    assert _snr(deaf, echo, intensity, r) == pytest.approx(expected - di, abs=0.5)


@pytest.mark.parametrize(
    ('make', 'words'),
    [
        (
            lambda: CoherentModel(
                CoherentConfig.of(pulse=Pulse(bandwidth=500e3)), fine_echo(1e3, 1)
            ),
            'wider than the carrier',
        ),
        (
            lambda: CoherentModel(CoherentConfig.of(sample_rate=1e3), fine_echo(10e3, 16)),
            'narrower than the sample spacing',
        ),
        (
            lambda: CoherentModel(
                CoherentConfig.of(array=LineArray(8, 0.5)),
                EchoConfig(beam_width=math.radians(1.0), frequency=200e3),
                azimuths=np.radians(np.linspace(-45, 45, 256)),
            ),
            'too short for its beams',
        ),
    ],
)
def test_bad_settings_are_refused_in_one_line(make: object, words: str) -> None:
    """A chirp wider than the carrier, a bin finer than the samples, a short array."""
    with pytest.raises(ConfigurationError) as error:
        make()  # type: ignore[operator]
    assert words in str(error.value)
    assert '\n' not in str(error.value)


def test_pattern_is_unused_here() -> None:
    """BeamPattern imported for the echo configurations: the default piston."""
    assert EchoConfig().pattern is BeamPattern.PISTON
