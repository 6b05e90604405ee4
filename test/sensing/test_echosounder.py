"""The echosounder over a flat seabed in a real Open3D scene, against closed forms.

Geometry: the transducer is ``H`` below the sea surface (world z = 0) and the seabed ``D``
below the transducer. A ray at ``(phi, psi)`` (across, along) meets the bed at the range
``D / (cos psi cos phi)``; a beam at ``a`` from nadir of half widths ``u`` (across) and ``v``
(along) thus sees ranges in ``[D / cos(max(|a| - u, 0)), D / (cos v cos(|a| + u))]``. Any
weighted centre of the bins those ranges fall in, after a centred window of ``2 m + 1`` bins,
lies within that interval widened by ``(m + 1/2)`` bin widths on each side: the bound the
amplitude detection is held to, turned into depth by ``cos a`` and offset by ``sin a``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig
from nps_sonar_py.echo.sound_speed import SoundSpeedProfile
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.scene.raycaster import Raycaster
from nps_sonar_py.scene.scene_state import SceneState
from nps_sonar_py.scene.tessellation import Triangles, plane_triangles
from nps_sonar_py.scene.world import Entity, World
from nps_sonar_py.sensing.echosounder import (
    Detection,
    Echosounder,
    Quality,
    SwathConfig,
    detect_bottom,
)
from nps_sonar_py.sensing.refraction import RefractingCaster

H = 5.0  # transducer depth below the surface (world z = 0)
D = 50.0  # seabed below the transducer
C = 1500.0
WIDTH = math.radians(1.0)


def seabed(size: float = 400.0) -> Raycaster:
    plane = plane_triangles([size, size])
    bed = Triangles(plane.vertices + np.array([0.0, 0.0, -H - D]), plane.triangles)
    world = World('bed', (Entity('bed', bed),), SceneState('bed', 0.0, ()))
    return Raycaster(world)


def echo(**kwargs: object) -> EchoConfig:
    settings: dict[str, object] = {
        'beam_width': WIDTH,
        'pattern': BeamPattern.PISTON,
        'absorption': Absorption.NONE,
        'min_range': 1.0,
        'max_range': 150.0,
        'n_bins': 2980,  # 0.05 m bins
        'sound_speed': C,
        'frequency': 300e3,
    }
    settings.update(kwargs)
    return EchoConfig(**settings)  # type: ignore[arg-type]


def swath(**kwargs: object) -> SwathConfig:
    settings: dict[str, object] = {
        'beams': 61,
        'across_width': WIDTH,
        'along_width': WIDTH,
        'rays_across': 31,
        'rays_along': 3,
        'pulse_duration': 240e-6,  # c tau / 4 = 0.09 m: m = 2, a window of 5 bins
    }
    settings.update(kwargs)
    return SwathConfig(**settings)  # type: ignore[arg-type]


def pose() -> np.ndarray:
    p = np.eye(4)
    p[2, 3] = -H
    return p


@pytest.fixture(scope='module')
def bed() -> Raycaster:
    return seabed()


def test_flat_seabed_depth_and_offset_within_the_footprint_bound(bed: Raycaster) -> None:
    config, sw = echo(), swath()
    sounder = Echosounder(config, sw, pose())
    assert sounder.pulse_bins == 2
    ping = sounder.ping(bed)
    a = sw.angles()
    u = v = WIDTH / 2
    slack = (sounder.pulse_bins + 0.5) * config.bin_width
    r_lo = D / np.cos(np.maximum(np.abs(a) - u, 0.0)) - slack
    r_hi = D / (math.cos(v) * np.cos(np.abs(a) + u)) + slack
    assert ping.detected.all()
    assert np.all(ping.quality == Quality.GOOD)
    depth = -ping.points[:, 2]
    offset = ping.points[:, 1]
    assert np.all(depth >= r_lo * np.cos(a) - 1e-9)
    assert np.all(depth <= r_hi * np.cos(a) + 1e-9)
    # across-track offset: D tan a within the same range interval times sin a
    lo_y, hi_y = np.sort(np.stack((r_lo * np.sin(a), r_hi * np.sin(a))), axis=0)
    assert np.all((offset >= lo_y - 1e-9) & (offset <= hi_y + 1e-9))
    assert np.all((D * np.tan(a) >= lo_y) & (D * np.tan(a) <= hi_y))
    np.testing.assert_allclose(ping.points[:, 0], 0.0, atol=1e-9)
    # near nadir the footprint is a few centimetres: depth to about a bin
    near = np.abs(a) < math.radians(5.0)
    np.testing.assert_allclose(depth[near], D, atol=slack)
    # two-way times: 2 r / c with r the detected range, inside the footprint's
    r = 0.5 * C * ping.two_way_time
    assert np.all((r >= r_lo - 1e-9) & (r <= r_hi + 1e-9))
    # world soundings: the sensor frame moved by the pose
    np.testing.assert_allclose(ping.world_points[:, 2], ping.points[:, 2] - H, atol=1e-9)


def test_axis_detection_reads_the_depth_exactly(bed: Raycaster) -> None:
    sw = swath(detection=Detection.AXIS)
    ping = Echosounder(echo(), sw, pose()).ping(bed)
    a = sw.angles()
    np.testing.assert_allclose(ping.two_way_time, 2.0 * D / np.cos(a) / C, rtol=1e-6)
    np.testing.assert_allclose(-ping.points[:, 2], D, rtol=1e-6)
    np.testing.assert_allclose(ping.points[:, 1], D * np.tan(a), rtol=1e-6, atol=1e-6)


def test_beams_that_miss_give_no_sounding_and_quality_zero() -> None:
    # a bed 60 m wide: beams beyond atan(30 / D) = 31 degrees see nothing
    ping = Echosounder(echo(), swath(), pose()).ping(seabed(60.0))
    a = ping.angles
    outside = np.abs(a) > math.atan2(30.0 + 2.0, D)
    inside = np.abs(a) < math.atan2(30.0 - 2.0, D)
    assert np.all(ping.quality[outside] == Quality.NONE)
    assert np.all(np.isnan(ping.points[outside]))
    assert np.all(np.isnan(ping.two_way_time[outside]))
    assert np.all(ping.intensities[outside] == 0.0)
    assert np.all(ping.quality[inside] > Quality.NONE)
    assert ping.detected[inside].all()


def test_the_detection_is_the_weighted_centre_of_the_first_run_within_the_threshold() -> None:
    centres = np.arange(10.0)
    # a peak of 10 at bin 4; -10 dB keeps >= 1: bins 3..6 (bin 7 is 0.5). Bin 1 (0.5) is an
    # earlier echo below the threshold; bin 8 a later, separate echo above it (a ghost).
    row = np.array([0.0, 0.5, 0.2, 2.0, 10.0, 4.0, 1.0, 0.5, 6.0, 0.0])
    found = detect_bottom(np.stack((row, np.zeros(10))), centres, -10.0, 3)
    expected = (3 * 2.0 + 4 * 10.0 + 5 * 4.0 + 6 * 1.0) / 17.0
    assert found.ranges[0] == pytest.approx(expected, rel=1e-12)
    assert found.intensities[0] == pytest.approx(17.0)
    assert found.bins.tolist() == [4, 0]
    assert found.quality.tolist() == [Quality.GOOD, Quality.NONE]
    assert np.isnan(found.ranges[1])
    # a later echo stronger than the first: the first, within -6 dB (>= 2.51) of it, is kept
    first = detect_bottom(
        np.array([[0.0, 3.0, 4.0, 0.0, 0.0, 10.0, 9.0, 0.0]]), centres[:8], -6.0, 2
    )
    assert first.ranges[0] == pytest.approx((1 * 3.0 + 2 * 4.0) / 7.0, rel=1e-12)
    assert first.bins.tolist() == [2]
    assert first.quality.tolist() == [Quality.GOOD]
    # too few bins, or a run touching the window's end: low quality
    few = detect_bottom(row[None], centres, -3.0, 3)  # -3 dB keeps >= 5.01: bin 4 alone
    assert few.bins.tolist() == [1]
    assert few.quality.tolist() == [Quality.LOW]
    edge = detect_bottom(np.array([[9.0, 10.0, 9.0, 0.0]]), np.arange(4.0), -3.0, 1)
    assert edge.quality.tolist() == [Quality.LOW]


def linear() -> SoundSpeedProfile:
    """c(z) = 1520 - 0.15 z: a downward-refracting gradient."""
    return SoundSpeedProfile.from_rows([(0.0, 1520.0), (200.0, 1490.0)], source='test')


G = -0.15


def arc_time(c0: float, depression: np.ndarray, dz: float) -> tuple[np.ndarray, np.ndarray]:
    """One-way time and offset of an arc in c = c0 + G (z - z0), from depression b0 to dz below.

    With ``cos b = p c``: ``dt = -db / (G cos b)`` and ``dx = -cos b db / (p G)``, so
    ``t = (1/G) [ln tan(pi/4 + b/2)]_{b1}^{b0}`` and ``x = (sin b0 - sin b1) / (p G)``;
    straight down (``p = 0``): ``t = ln(c1 / c0) / G``, ``x = 0``.
    """
    vertical = np.abs(depression - math.pi / 2) < 1e-12
    b0 = np.where(vertical, 1.0, depression)  # any slanted angle: replaced below
    p = np.cos(b0) / c0
    b1 = np.arccos(p * (c0 + G * dz))
    t = (np.log(np.tan(math.pi / 4 + b0 / 2)) - np.log(np.tan(math.pi / 4 + b1 / 2))) / G
    x = (np.sin(b0) - np.sin(b1)) / (p * G)
    t = np.where(vertical, math.log((c0 + G * dz) / c0) / G, t)
    return t, np.where(vertical, 0.0, x)


def test_a_linear_profile_with_the_true_processing_reads_the_depth(bed: Raycaster) -> None:
    caster = RefractingCaster(bed, linear(), surface_z=0.0)
    sw = swath(detection=Detection.AXIS)
    ping = Echosounder(echo(), sw, pose()).ping(caster)
    a = sw.angles()
    c0 = 1520.0 + G * H
    t, x = arc_time(c0, math.pi / 2 - np.abs(a), D)
    np.testing.assert_allclose(ping.two_way_time, 2.0 * t, rtol=1e-6)
    assert ping.sound_speed == pytest.approx(c0)
    np.testing.assert_allclose(-ping.points[:, 2], D, rtol=1e-6)
    np.testing.assert_allclose(np.abs(ping.points[:, 1]), x, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize('speed', [1500.0, 1519.25])
def test_a_constant_processing_speed_bends_the_outer_beams_as_the_closed_form(
    bed: Raycaster, speed: float
) -> None:
    caster = RefractingCaster(bed, linear(), surface_z=0.0)
    sw = swath(detection=Detection.AXIS)
    processing = SoundSpeedProfile.constant(speed)
    ping = Echosounder(echo(), sw, pose(), processing=processing).ping(caster)
    a = sw.angles()
    c0 = 1520.0 + G * H
    t, _ = arc_time(c0, math.pi / 2 - np.abs(a), D)
    # straight processing: depth c_p t cos a below the transducer, offset c_p t sin a
    expected = speed * t * np.cos(a)
    np.testing.assert_allclose(-ping.points[:, 2], expected, rtol=1e-6)
    np.testing.assert_allclose(ping.points[:, 1], speed * t * np.sin(a), rtol=1e-6, atol=1e-6)
    error = expected - D
    # the artefact (a frown here) is real: it grows from nadir outwards, beyond 0.2 % of the
    # depth at the outermost beams, and is symmetric
    half = np.abs(error[a >= 0.0] - error[a == 0.0])
    assert np.all(np.diff(half) > 0.0)
    assert abs(error[0]) > 0.002 * D
    np.testing.assert_allclose(error, error[::-1], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    ('field', 'value'),
    [
        ('beams', 0),
        ('beams', 1025),
        ('max_angle', math.radians(89.0)),
        ('across_width', 0.0),
        ('threshold_db', 0.0),
        ('rays_along', 0),
        ('pulse_duration', -1.0),
        ('detection', 'peak'),
    ],
)
def test_bad_swaths_are_refused(field: str, value: object) -> None:
    with pytest.raises(ConfigurationError, match=field):
        swath(**{field: value})
