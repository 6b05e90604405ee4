"""Formed beams against a brute-force fixed-scatterer sum and closed forms, with controls.

The brute force (``beam_scenes.brute_force``) sums every scatterer into every beam through
the array factor written element by element and the chirp's closed-form compressed pulse;
the FFT path of ``formed_beams`` must give the same complex samples. The rest follows from
it: the mean over scatterer phases is the incoherent image with ``|AF|**2``; speckle of fixed
scatterers survives a sub-wavelength move; neighbouring beams correlate as ``|AF(du)|**2``
(van Cittert-Zernike; docs/beamforming.md#checks).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from beam_scenes import C, brute_force, chirp_psf, psf_energy, seabed

from nps_sonar_py.echo.array_response import Aperture, Shading, SteeredArray
from nps_sonar_py.echo.formed_beams import BeamFormer, BeamSetup, form_beams
from nps_sonar_py.echo.pulse import Pulse, PulseKind

BANDWIDTH = 10e3
PULSE = Pulse(PulseKind.CHIRP, 2e-3, BANDWIDTH)


def small_setup(shading: Shading = Shading.NONE, per_bin: int = 2) -> BeamSetup:
    """32 elements, 41 beams over +-20 degrees, 300 samples of c / (4 B) from 3 m."""
    beams = np.sin(np.radians(np.linspace(-20.0, 20.0, 41)))
    array = SteeredArray(32, 0.5, shading)
    interval = C / (4.0 * BANDWIDTH)
    return BeamSetup(array, beams, PULSE, C, 3.0, interval, 300, per_bin=per_bin, blank=False)


def random_echoes(m: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ranges = rng.uniform(4.0, 12.0, m)
    sines = rng.uniform(-0.5, 0.5, m)
    amplitudes = rng.standard_normal(m) + 1j * rng.standard_normal(m)
    return ranges, sines, amplitudes


def relative_error(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


@pytest.mark.parametrize('shading', [Shading.NONE, Shading.CHEBYSHEV])
def test_the_formed_beams_are_the_brute_force_sum(shading: Shading) -> None:
    """Every complex sample within 1 % (rms) of the sum per scatterer per beam."""
    setup = small_setup(shading)
    ranges, sines, amplitudes = random_echoes(300, 1)
    formed = BeamFormer(setup).form(ranges, sines, amplitudes).baseband
    reference = brute_force(setup, ranges, sines, amplitudes)
    assert relative_error(formed, reference) < 0.01
    # Control: beams of rays (a cone of the beam's width, no array) are not this.
    inside = np.abs(sines[None, :] - setup.beam_sines[:, None]) < 0.886 / 16 / 2
    t = 2.0 * (setup.ranges()[:, None] - ranges[None, :]) / C
    psf = chirp_psf(t, BANDWIDTH, PULSE.length) / math.sqrt(
        psf_energy(BANDWIDTH, PULSE.length, setup.rate)
    )
    cone = np.einsum('bm,tm,m->bt', inside.astype(float), psf, amplitudes)
    assert relative_error(cone, reference) > 0.3


def stored_psf(setup: BeamSetup) -> tuple[np.ndarray, np.ndarray, float]:
    """The compressed pulse in the stored samples' band: delays (s), ``R_band``, its share.

    ``R`` (``chirp_psf``) on a fine grid through the receive filter of the bin rate
    ``f_b = f_s / p`` (a device sampling once a bin filters to that band): ``cos(pi f / f_b)``
    for ``|f| < f_b / 2``; and the share of ``R``'s energy it keeps.
    """
    step = 1.0 / (64.0 * setup.rate)
    t = np.arange(-2.0 * PULSE.length, 2.0 * PULSE.length, step)
    psf = chirp_psf(t, BANDWIDTH, PULSE.length)
    f = np.fft.fftfreq(t.size, step)
    rate = setup.rate / setup.per_bin
    response = np.where(np.abs(f) < 0.5 * rate, np.cos(np.pi * f / rate), 0.0)
    kept = np.fft.ifft(np.fft.fft(psf) * response)
    return t, kept, float(np.sum(np.abs(kept) ** 2) / np.sum(psf**2))


def incoherent_image(
    setup: BeamSetup, ranges: np.ndarray, sines: np.ndarray, power: np.ndarray, way: int = 2
) -> np.ndarray:
    """(B, bins) ``sum_i |a_i|**2 |AF|**way p |R_band(t_bin)|**2 / share``: the power at each
    bin's centre of the pulse in the stored samples' band (``p`` samples a bin), in the
    samples' energy scale, the band's share restored."""
    p = setup.per_bin
    centres = setup.start + setup.interval * (p * np.arange(setup.samples // p) + 0.5 * (p - 1))
    t = 2.0 * (centres[:, None] - ranges[None, :]) / C
    delays, kept, share = stored_psf(setup)
    band = np.interp(t, delays, np.abs(kept) ** 2)
    per_bin = p * band / share / psf_energy(BANDWIDTH, PULSE.length, setup.rate)  # (bins, m)
    offset = sines[None, :] - setup.beam_sines[:, None]
    n, d = setup.array.elements, setup.array.spacing
    psi = math.pi * d * offset
    factor = np.where(
        np.abs(psi) < 1e-12, 1.0, np.sin(n * psi) / (n * np.sin(np.where(psi == 0, 1, psi)))
    )
    return np.einsum('bm,km,m->bk', np.abs(factor) ** way, per_bin, power)


def test_the_mean_over_phases_is_the_incoherent_image_with_the_array_pattern() -> None:
    """Over 64 orthogonal phase codes (the exact mean over independent phases): bin by bin
    within 2 %, every range row's energy within 2 % (bins above 5 % of the peak, rows above
    10 %: each bin is one sample at its centre, so the FFT path's 1 % rms error is not
    averaged over the bin), against ``sum |a|**2 |AF|**2 p |R_band(t_bin)|**2 / share``."""
    setup = small_setup()
    m = 64
    ranges, sines, amplitudes = random_echoes(m, 2)
    former = BeamFormer(setup)
    codes = np.exp(2j * math.pi * np.outer(np.arange(m), np.arange(m)) / m)  # (seed, scatterer)
    mean = sum(former.form(ranges, sines, amplitudes * code).intensity for code in codes) / m
    expected = incoherent_image(setup, ranges, sines, np.abs(amplitudes) ** 2)
    lit = expected > 5e-2 * expected.max()
    assert np.max(np.abs(mean[lit] / expected[lit] - 1.0)) < 0.02
    rows, expected_rows = mean.sum(axis=0), expected.sum(axis=0)
    full = expected_rows > 0.1 * expected_rows.max()
    assert np.max(np.abs(rows[full] / expected_rows[full] - 1.0)) < 0.02
    # Controls: the two-way pattern of a transmit-receive array (|AF|**4), and the beams'
    # cast cone, are not this image.
    four = incoherent_image(setup, ranges, sines, np.abs(amplitudes) ** 2, way=4)
    assert np.max(np.abs(mean[lit] / four[lit] - 1.0)) > 0.1


def test_the_mean_over_seeds_of_a_seabed_is_its_incoherent_image() -> None:
    """Fixed scatterers redrawn by seed: the mean image agrees bin by bin within its spread."""
    setup = small_setup()
    former = BeamFormer(setup)
    seeds = 40
    coherent, incoherent = [], []
    for seed in range(seeds):
        bed = seabed((4.0, 9.0), (-1.5, 1.5), 40.0, seed)
        p = bed.positions + np.array([0.0, 0.0, 2.0])  # 2 m below the sonar
        r = np.linalg.norm(p, axis=1)
        sines = p[:, 1] / r
        a = bed.amplitudes * np.exp(-4j * math.pi * r / 0.00375) / r**2
        coherent.append(former.form(r, sines, a).intensity)
        incoherent.append(incoherent_image(setup, r, sines, np.abs(a / bed.amplitudes) ** 2))
    mean, expected = np.mean(coherent, axis=0), np.mean(incoherent, axis=0)
    lit = expected > 0.05 * expected.max()
    # Each bin's mean of `seeds` nearly exponential draws: relative spread 1 / sqrt(seeds).
    z2 = ((mean[lit] - expected[lit]) / (expected[lit] / math.sqrt(seeds))) ** 2
    assert 0.5 < z2.mean() < 1.5
    assert abs(mean[lit].sum() / expected[lit].sum() - 1.0) < 0.03
    # Control: an image 20 % off is rejected by the same statistic.
    wrong = ((mean[lit] - 1.2 * expected[lit]) / (expected[lit] / math.sqrt(seeds))) ** 2
    assert wrong.mean() > 2.0


def test_a_still_scene_gives_the_same_ping_bit_for_bit() -> None:
    setup = small_setup()
    bed = seabed((4.0, 9.0), (-1.5, 1.5), 40.0, 7)
    p = bed.positions + np.array([0.0, 0.0, 2.0])
    r = np.linalg.norm(p, axis=1)
    args = (r, p[:, 1] / r, bed.amplitudes / r**2)
    first = BeamFormer(setup).form(*args)
    assert np.array_equal(first.baseband, BeamFormer(setup).form(*args).baseband)
    # Control: the next seed's seabed is another image.
    other = seabed((4.0, 9.0), (-1.5, 1.5), 40.0, 8)
    q = other.positions + np.array([0.0, 0.0, 2.0])
    s = np.linalg.norm(q, axis=1)
    again = BeamFormer(setup).form(s, q[:, 1] / s, other.amplitudes / s**2)
    # Speckle against speckle: each image over its mean (the r**-4 trend removed), in the
    # beams within 8 degrees (inside the seabed patch at every range).
    trend = first.intensity.mean(axis=0) + again.intensity.mean(axis=0)
    lit = trend > 0.05 * trend.max()
    inside = np.abs(np.degrees(np.arcsin(setup.beam_sines))) < 8.0
    one, two = (image[inside][:, lit] / trend[lit] for image in (first.intensity, again.intensity))
    assert abs(np.corrcoef(one.ravel(), two.ravel())[0, 1]) < 0.2


def test_form_beams_takes_scatterers_in_the_sensor_frame_with_the_transmit_pattern() -> None:
    """Positions (x ahead, y along the array): range, sine y / r, phase exp(-4 i pi r / lambda),
    and the transmit aperture's one-way amplitude, against the brute force given those."""
    setup = small_setup()
    rng = np.random.default_rng(9)
    m = 200
    r = rng.uniform(4.0, 12.0, m)
    azimuth, elevation = rng.uniform(-0.5, 0.5, m), rng.uniform(-0.2, 0.2, m)
    p = r[:, None] * np.stack(
        [
            np.cos(elevation) * np.cos(azimuth),
            np.cos(elevation) * np.sin(azimuth),
            np.sin(elevation),
        ],
        axis=1,
    )
    xi = rng.standard_normal(m) + 1j * rng.standard_normal(m)
    wavelength = C / 400e3
    transmit = Aperture(math.radians(40.0), math.radians(15.0))
    formed = form_beams(BeamFormer(setup), p, xi, wavelength, transmit).baseband
    tx = np.sinc(0.443 / math.sin(math.radians(20.0)) * np.sin(azimuth)) * np.sinc(
        0.443 / math.sin(math.radians(7.5)) * np.sin(elevation)
    )
    echoes = xi * tx * np.exp(-4j * math.pi * r / wavelength)
    sines = np.cos(elevation) * np.sin(azimuth)
    reference = brute_force(setup, r, sines, echoes)
    assert relative_error(formed, reference) < 0.01
    # Control: without the transmit pattern the echoes are others.
    plain = brute_force(setup, r, sines, xi * np.exp(-4j * math.pi * r / wavelength))
    assert relative_error(plain, reference) > 0.1


def test_scatterers_out_of_the_grids_ranges_are_dropped_before_their_phases() -> None:
    """``form_beams`` culls what the grid cannot hold (``BeamFormer.span``) first: scatterers
    nearer or farther added to a set leave its ping the same bit for bit."""
    former = BeamFormer(small_setup())
    near, far = former.span
    rng = np.random.default_rng(4)
    inside = rng.uniform(4.0, 12.0, 300)[:, None] * np.array([1.0, 0.1, 0.05])
    outside = np.array([[0.5 * near, 0.0, 0.0], [far + 1.0, 0.5, 0.0], [3.0 * far, -1.0, 1.0]])
    xi = rng.standard_normal(303) + 1j * rng.standard_normal(303)
    transmit = Aperture(math.radians(40.0), math.radians(15.0))
    for aperture in (None, transmit):
        alone = form_beams(former, inside, xi[:300], 0.004, aperture)
        mixed = form_beams(former, np.vstack((inside, outside)), xi, 0.004, aperture)
        assert np.array_equal(alone.baseband, mixed.baseband)
    # Control: one more scatterer inside the span is heard.
    one_more = np.vstack((inside, [[0.5 * (near + far), 0.0, 0.0]]))
    heard = form_beams(former, one_more, xi[:301], 0.004)
    assert not np.array_equal(heard.baseband, form_beams(former, inside, xi[:300], 0.004).baseband)


def test_a_diffuse_patch_has_its_side_lobe_floor() -> None:
    """Beams 10 to 20 degrees off a patch of scatterers (sines within +-0.05) hear it through
    their side lobes, at the level ``sum |a|**2 |AF|**2`` says (mean over phase codes, 5 %)."""
    setup = small_setup()
    m = 64
    rng = np.random.default_rng(4)
    ranges, sines = rng.uniform(5.0, 10.0, m), rng.uniform(-0.05, 0.05, m)
    amplitudes = np.ones(m, dtype=complex)
    former = BeamFormer(setup)
    codes = np.exp(2j * math.pi * np.outer(np.arange(m), np.arange(m)) / m)
    mean = sum(former.form(ranges, sines, amplitudes * code).intensity for code in codes) / m
    expected = incoherent_image(setup, ranges, sines, np.abs(amplitudes) ** 2)
    off = np.abs(np.degrees(np.arcsin(setup.beam_sines))) >= 10.0
    floor, peak = mean[off].sum(axis=1), mean.sum(axis=1).max()
    assert floor == pytest.approx(expected[off].sum(axis=1), rel=0.05)
    assert np.all(10 * np.log10(floor / peak) > -45.0)  # a floor, not silence
    # Control: the rays' beams (a cone of the beam's width) hear nothing there.
    cone = 0.886 / (setup.array.elements * setup.array.spacing) / 2
    assert np.all(np.abs(setup.beam_sines[off][:, None] - sines[None, :]) > cone)


def test_a_bad_setup_is_refused_in_one_line() -> None:
    base = small_setup()
    with pytest.raises(ValueError, match='samples: 301 is not a positive multiple of per_bin 2'):
        BeamSetup(base.array, base.beam_sines, PULSE, C, 3.0, base.interval, 301, per_bin=2)
    with pytest.raises(ValueError, match='noise_density'):
        BeamSetup(base.array, base.beam_sines, PULSE, C, 3.0, base.interval, 300, noise_density=-1)
    # Control: the good setup is accepted.
    assert BeamSetup(base.array, base.beam_sines, PULSE, C, 3.0, base.interval, 300).samples == 300
