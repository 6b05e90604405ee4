"""The echosounder with the coherent echo model, over the flat seabed of ``test_echosounder``.

Closed forms (docs/coherent.md, docs/echosounder.md):

* energy: each ray's amplitude is ``sqrt(I_i) xi exp(2 i k r)`` with ``E |xi|^2 = 1`` and the
  compressed pulse has unit energy over the samples, so the mean over scatterer realisations
  of a beam's total, and of a bin well inside a smooth footprint, is the incoherent model's;
* a static scene and pose give the same ping bit for bit;
* depth: a beam at ``a`` of half widths ``u`` (across), ``v`` (along) sees the bed ``D``
  below at the ranges ``[D / cos(max(|a| - u, 0)), D / (cos v cos(|a| + u))]``; the
  detection, the centre of the compressed echo above the threshold, lies in that interval
  widened by the pulse's range resolution ``c / (2 B)`` (bins ten times narrower), so the
  depth in it times ``cos a``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from test_echosounder import WIDTH, C, D, echo, pose, seabed, swath

from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.line_array import LineArray
from nps_sonar_py.echo.pulse import Pulse, PulseKind
from nps_sonar_py.echo.sonar_equation import ReceiverNoise
from nps_sonar_py.echo.sound_speed import SoundSpeedProfile
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.scene.raycaster import Raycaster
from nps_sonar_py.sensing.echosounder import Echosounder, EchosounderPing, Quality, detect_bottom

B = 15e3  # chirp bandwidth: c / (2 B) = 5 cm
RESOLUTION = C / (2.0 * B)
FINE = {'n_bins': 14900}  # 1 cm bins over 1 .. 150 m: one sample a bin


def coherent(seed: int = 0, bandwidth: float = B, **more: object) -> CoherentConfig:
    pulse = Pulse(PulseKind.CHIRP, 2e-3, bandwidth)
    return CoherentConfig.of(pulse=pulse, scatterer_seed=seed, **more)


@pytest.fixture(scope='module')
def bed() -> Raycaster:
    return seabed()


def energy_sounder(seed: int | None) -> Echosounder:
    """13 beams of 2 degrees, 401 x 3 rays: footprints smooth at the scale of a bin.

    A 60 kHz chirp: ``c / (2 B)`` = 1.25 cm, a quarter of the 5 cm bins, so that the pulse
    moves little energy across bins (docs/coherent.md).
    """
    sw = swath(
        beams=13,
        across_width=2.0 * WIDTH,
        rays_across=401,
        rays_along=3,
        pulse_duration=0.0,  # the incoherent reference: the model's own sums, no window
    )
    wide = None if seed is None else coherent(seed, bandwidth=60e3)
    return Echosounder(echo(), sw, pose(), coherent=wide)


def test_the_mean_over_seeds_is_the_incoherent_model(bed: Raycaster) -> None:
    reference = energy_sounder(None).ping(bed).profiles
    runs = 40
    pings = np.stack([energy_sounder(seed).ping(bed).profiles for seed in range(runs)])
    # Every beam's total.
    totals = pings.sum(axis=2)
    mean, error = totals.mean(axis=0), totals.std(axis=0) / math.sqrt(runs)
    z = (mean - reference.sum(axis=1)) / error
    assert float(np.mean(z**2)) < 3.0
    # Bin by bin, well inside the footprints of the beams 30 degrees or more off nadir.
    sounder = energy_sounder(None)
    a, centres = sounder.angles, sounder.model.bin_centres
    u, inside = WIDTH, np.zeros(reference.shape, dtype=bool)
    for beam in np.flatnonzero(np.abs(a) >= math.radians(30.0)):
        lo = D / math.cos(abs(a[beam]) - u) + 4 * RESOLUTION
        hi = D / math.cos(abs(a[beam]) + u) - 4 * RESOLUTION
        inside[beam] = (centres > lo) & (centres < hi)
    assert inside.sum() > 200
    bins_mean = pings.mean(axis=0)[inside]
    bins_error = pings.std(axis=0)[inside] / math.sqrt(runs)
    chi = ((bins_mean - reference[inside]) / bins_error) ** 2
    assert float(np.mean(chi)) < 2.0
    # Negative control: an incoherent model 20 % stronger is far outside the error.
    wrong = ((bins_mean - 1.2 * reference[inside]) / bins_error) ** 2
    assert float(np.mean(wrong)) > 4.0
    # Each ping is speckled there: a bin stores one sample of the output in the bin rate's
    # band (docs/coherent.md#the-stored-sample), one look of an exponential intensity, index 1
    # within four standard errors (2 / sqrt(n), n the bins counted at half: neighbours
    # correlate). Control: the mean of a bin's 4 samples' intensities, 1 / B apart, is 4
    # independent looks, index 1 / 4.
    sounder = energy_sounder(0)
    grid = sounder.engine.grid
    assert grid is not None
    assert grid.per_bin == 4
    index = float(np.var(pings[0][inside] / bins_mean))
    assert index == pytest.approx(1.0, abs=4.0 * 2.0 / math.sqrt(inside.sum() / 2.0))
    baseband = sounder.ping(bed).echo.coherent.baseband
    looks = (np.abs(baseband) ** 2).reshape(*reference.shape, 4).sum(axis=2)[inside] / bins_mean
    assert float(np.var(looks) / np.mean(looks) ** 2) == pytest.approx(0.25, abs=0.08)
    assert float(np.var(reference[inside] / bins_mean)) < 0.05  # control: the sums are smooth


def test_a_static_scene_gives_identical_pings(bed: Raycaster) -> None:
    sounder = Echosounder(echo(**FINE), swath(), pose(), coherent=coherent())
    first, again = sounder.ping(bed), sounder.ping(bed)
    assert first.echo.coherent is not None
    assert again.echo.coherent is not None
    assert np.array_equal(first.echo.coherent.baseband, again.echo.coherent.baseband)
    assert np.array_equal(first.profiles, again.profiles)
    assert np.array_equal(first.two_way_time, again.two_way_time, equal_nan=True)
    assert np.array_equal(first.profiles, first.echo.coherent.intensity)
    assert first.echo.coherent.baseband.shape == (61, first.echo.coherent.grid.count)
    # Negative control: another realisation of the scatterers is another ping.
    other = Echosounder(echo(**FINE), swath(), pose(), coherent=coherent(seed=1)).ping(bed)
    assert not np.array_equal(first.profiles, other.profiles)


def footprint_depths(sounder: Echosounder) -> tuple[np.ndarray, np.ndarray]:
    """The depths the detections may read: the footprint interval widened by ``c / (2 B)``."""
    a, u, v = sounder.angles, 0.5 * sounder.swath.across_width, 0.5 * sounder.swath.along_width
    r_lo = D / np.cos(np.maximum(np.abs(a) - u, 0.0)) - RESOLUTION
    r_hi = D / (math.cos(v) * np.cos(np.abs(a) + u)) + RESOLUTION
    return r_lo * np.cos(a), r_hi * np.cos(a)


def read(ping: EchosounderPing, lo: np.ndarray, hi: np.ndarray, offset: float = 0.0) -> bool:
    """Whether every beam's sounding depth (plus ``offset``) lies in ``[lo, hi]``."""
    depth = -ping.points[:, 2] + offset
    return bool(np.all((depth >= lo) & (depth <= hi)))


def test_the_detected_depth_is_the_seabed_within_the_range_resolution(bed: Raycaster) -> None:
    sounder = Echosounder(echo(**FINE), swath(), pose(), coherent=coherent())
    ping = sounder.ping(bed)
    assert ping.detected.all()
    lo, hi = footprint_depths(sounder)
    assert read(ping, lo, hi)
    # Near nadir the footprint is millimetres: the depth itself within c / (2 B).
    near = np.abs(sounder.angles) < math.radians(5.0)
    np.testing.assert_allclose(-ping.points[near, 2], D, atol=RESOLUTION, rtol=0.0)
    assert not np.allclose(-ping.points[near, 2] + RESOLUTION, D, atol=RESOLUTION, rtol=0.0)
    # Negative controls: a sounding two resolutions deeper, or computed with a wrong speed.
    assert not read(ping, lo, hi, offset=2.0 * RESOLUTION)
    wrong = Echosounder(
        echo(**FINE),
        swath(),
        pose(),
        processing=SoundSpeedProfile.constant(1450.0),
        coherent=coherent(),
    ).ping(bed)
    assert not read(wrong, lo, hi)


def test_with_the_noise_floor_a_beam_that_hears_no_echo_detects_nothing(bed: Raycaster) -> None:
    """Source level 220 dB: the seabed far above the noise; beyond max_range, only noise."""
    noise = ReceiverNoise(enabled=True)
    loud = echo(source_level=220.0, **FINE)
    sounder = Echosounder(loud, swath(), pose(), coherent=coherent(noise=noise))
    assert sounder.engine.grid is not None
    assert sounder.engine.noise_power > 0.0
    ping = sounder.ping(bed)
    assert ping.detected.all()
    assert read(ping, *footprint_depths(sounder))
    short = dataclasses.replace(loud, max_range=40.0, n_bins=3900)  # the bed is 50 m below
    deaf = Echosounder(short, swath(), pose(), coherent=coherent(noise=noise)).ping(bed)
    assert deaf.profiles.min() > 0.0  # noise everywhere
    assert np.all(deaf.quality == Quality.NONE)
    assert not deaf.detected.any()
    # Negative control: without the noise gate every beam would "detect" its loudest noise.
    centres = 0.5 * (deaf.bin_edges[1:] + deaf.bin_edges[:-1])
    ungated = detect_bottom(deaf.profiles, centres, -10.0, 3)
    assert np.all(ungated.quality > Quality.NONE)


def test_the_swath_is_a_line_array_across_track(bed: Raycaster) -> None:
    """Leakage across beams; an array too short for across_track_width is refused in one line."""
    plain = Echosounder(echo(**FINE), swath(), pose(), coherent=coherent()).ping(bed)
    elements = math.ceil(0.886 / (0.5 * WIDTH))
    arrayed = Echosounder(
        echo(**FINE), swath(), pose(), coherent=coherent(array=LineArray(elements, 0.5))
    ).ping(bed)
    assert arrayed.echo.coherent is not None
    assert plain.echo.coherent is not None
    # The nadir echo, strongest, leaks into far beams (where plain has only its own echo, later).
    far = np.abs(arrayed.angles) > math.radians(40.0)
    grid = plain.echo.coherent.grid
    early = grid.start + np.arange(grid.count) * grid.interval < D + 1.0
    assert np.abs(plain.echo.coherent.baseband[far][:, early]).max() == 0.0
    assert np.abs(arrayed.echo.coherent.baseband[far][:, early]).max() > 0.0
    with pytest.raises(ConfigurationError, match='across_track_width') as error:
        Echosounder(
            echo(), swath(), pose(), coherent=coherent(array=LineArray(elements // 2, 0.5))
        )
    assert '\n' not in str(error.value)
