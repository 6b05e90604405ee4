"""Ray tracing through a sound-speed profile against closed forms and numerical integration.

Expected values come from Snell's law integrated numerically (``scipy.integrate.quad`` of
``dx = cot(theta) dz``, ``dt = dz / (c sin(theta))``, ``ds = dz / sin(theta)`` with
``cos(theta) = p c(z)``) and from the textbook arc formulas written here independently,
never from the code's output.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import quad

from nps_sonar_py.echo.ray_trace import sounding, trace
from nps_sonar_py.echo.sound_speed import SoundSpeedProfile

C0 = 1500.0
G = 0.05  # 1/s: a strong gradient, so that the arcs bend visibly
H = 400.0


def linear(gradient: float = G) -> SoundSpeedProfile:
    return SoundSpeedProfile.from_rows([(0.0, C0), (H, C0 + gradient * H)], source='test')


def integrated(c, p: float, z1: float, z2: float) -> tuple[float, float, float]:
    """Offset, time and length of a down-going ray from z1 to z2 by quadrature of Snell's law."""

    def sin_theta(z: float) -> float:
        return math.sqrt(1.0 - (p * c(z)) ** 2)

    opts = {'epsabs': 0.0, 'epsrel': 1e-13, 'limit': 200}
    x = quad(lambda z: p * c(z) / sin_theta(z), z1, z2, **opts)[0]
    t = quad(lambda z: 1.0 / (c(z) * sin_theta(z)), z1, z2, **opts)[0]
    s = quad(lambda z: 1.0 / sin_theta(z), z1, z2, **opts)[0]
    return x, t, s


def test_zero_gradient_gives_straight_rays_exactly() -> None:
    profile = SoundSpeedProfile.from_rows([(0.0, C0), (50.0, C0), (300.0, C0)], source='test')
    theta = np.radians([90.0, 70.0, 45.0, 20.0, 5.0])
    paths = trace(profile, 10.0, theta, until_depth=250.0)
    dz = 240.0
    np.testing.assert_allclose(paths.offset, dz / np.tan(theta), rtol=1e-14, atol=1e-12)
    np.testing.assert_allclose(paths.path_length, dz / np.sin(theta), rtol=1e-14)
    np.testing.assert_allclose(paths.time, dz / np.sin(theta) / C0, rtol=1e-14)
    np.testing.assert_allclose(paths.sine, np.sin(theta), rtol=1e-14)
    up = trace(profile, 100.0, -theta, until_time=np.full(theta.size, 0.01))
    np.testing.assert_allclose(up.depth, 100.0 - 15.0 * np.sin(theta), rtol=1e-14)
    np.testing.assert_allclose(up.offset, 15.0 * np.cos(theta), rtol=1e-13, atol=1e-12)


@pytest.mark.parametrize('gradient', [G, -G, 0.017])
def test_one_gradient_layer_matches_integration_and_textbook(gradient: float) -> None:
    profile = linear(gradient)
    theta = np.radians([80.0, 60.0, 45.0, 30.0])
    z2 = 300.0
    paths = trace(profile, 20.0, theta, until_depth=z2)

    def c(z: float) -> float:
        return C0 + gradient * z

    c1, c2 = c(20.0), c(z2)
    for i, th in enumerate(theta):
        p = math.cos(th) / c1
        x, t, s = integrated(c, p, 20.0, z2)
        assert paths.offset[i] == pytest.approx(x, rel=1e-9)
        assert paths.time[i] == pytest.approx(t, rel=1e-9)
        assert paths.path_length[i] == pytest.approx(s, rel=1e-9)
        # the textbook constant-gradient forms (Medwin and Clay; mb_rt), independently
        s1, s2 = math.sqrt(1 - (p * c1) ** 2), math.sqrt(1 - (p * c2) ** 2)
        assert paths.offset[i] == pytest.approx((s1 - s2) / (p * gradient), rel=1e-9)
        t_book = math.log(c2 * (1 + s1) / (c1 * (1 + s2))) / gradient
        assert paths.time[i] == pytest.approx(t_book, rel=1e-9)
        th2 = math.acos(p * c2)
        assert paths.path_length[i] == pytest.approx((th - th2) / (p * gradient), rel=1e-9)
        assert paths.sine[i] == pytest.approx(s2, rel=1e-12)


def test_one_gradient_layer_is_an_arc_of_radius_one_over_pg() -> None:
    profile = linear()
    theta0 = math.radians(40.0)
    p = math.cos(theta0) / C0
    radius = 1.0 / abs(p * G)
    # the centre: at the depth where the speed would be 0, offset R sin(theta0) ahead
    zc, xc = -C0 / G, radius * math.sin(theta0)
    depths = np.linspace(5.0, 350.0, 12)
    paths = trace(profile, 0.0, np.full(depths.size, theta0), until_depth=depths)
    distance = np.hypot(paths.offset - xc, paths.depth - zc)
    np.testing.assert_allclose(distance, radius, rtol=1e-12)


def test_two_constant_speed_layers_obey_snell() -> None:
    c1, c2 = 1480.0, 1530.0
    rows = [(0.0, c1), (100.0, c1), (100.5, c2), (400.0, c2)]
    profile = SoundSpeedProfile.from_rows(rows, source='test')
    theta = np.radians([75.0, 50.0, 30.0, 15.0])
    deep = trace(profile, 0.0, theta, until_depth=300.0)
    cos2 = np.cos(theta) * c2 / c1  # Snell: cos(theta) / c is kept
    np.testing.assert_allclose(np.sqrt(1.0 - deep.sine**2), cos2, rtol=1e-12)
    shallower = trace(profile, 0.0, theta, until_depth=200.0)
    sin2 = np.sqrt(1.0 - cos2**2)
    np.testing.assert_allclose(deep.offset - shallower.offset, 100.0 * cos2 / sin2, rtol=1e-11)
    np.testing.assert_allclose(deep.time - shallower.time, 100.0 / sin2 / c2, rtol=1e-11)
    above = trace(profile, 0.0, theta, until_depth=100.0)
    np.testing.assert_allclose(above.offset, 100.0 / np.tan(theta), rtol=1e-13)


def test_a_ray_that_turns_back_ends_at_its_turning_depth() -> None:
    profile = linear()
    theta0 = math.radians(8.0)
    turning = (C0 / math.cos(theta0) - C0) / G  # where c = 1 / p
    assert turning < H
    paths = trace(profile, 0.0, [theta0, theta0], until_depth=[turning * 0.5, turning + 1.0])
    assert paths.turned.all()
    assert paths.reached[0]
    assert not paths.reached[1]
    assert math.isnan(paths.depth[1])
    pieces = paths.pieces
    last = np.flatnonzero(pieces.valid[0])[-1]
    assert pieces.z_in[0, last] + pieces.dz[0, last] == pytest.approx(turning, rel=1e-12)


def test_rays_leaving_the_water_end_at_the_surface() -> None:
    paths = trace(linear(), 50.0, [-math.radians(45.0)], until_time=[1.0])
    assert paths.surfaced[0]
    assert not paths.reached[0]


def test_the_speed_below_the_last_row_holds() -> None:
    profile = linear()
    theta = math.radians(60.0)
    at_h = trace(profile, 0.0, [theta], until_depth=H)
    below = trace(profile, 0.0, [theta], until_depth=H + 100.0)
    cos_h = math.cos(theta) * (C0 + G * H) / C0
    sin_h = math.sqrt(1.0 - cos_h**2)
    assert below.offset[0] - at_h.offset[0] == pytest.approx(100.0 * cos_h / sin_h, rel=1e-11)
    assert below.time[0] - at_h.time[0] == pytest.approx(100.0 / sin_h / (C0 + G * H), rel=1e-11)


def test_sounding_inverts_the_trace() -> None:
    rows = [(0.0, 1510.0), (30.0, 1505.0), (80.0, 1480.0), (150.0, 1485.0), (400.0, 1495.0)]
    profile = SoundSpeedProfile.from_rows(rows, source='test')
    theta = np.radians(np.linspace(30.0, 90.0, 13))
    depth = np.linspace(40.0, 600.0, theta.size)
    paths = trace(profile, 5.0, theta, until_depth=depth)
    z, x = sounding(profile, 5.0, theta, 2.0 * paths.time)
    np.testing.assert_allclose(z, depth, rtol=1e-10)
    np.testing.assert_allclose(x, paths.offset, rtol=1e-9, atol=1e-9)


def test_trace_refuses_bad_requests() -> None:
    with pytest.raises(ValueError, match='exactly one'):
        trace(linear(), 0.0, [0.5])
    with pytest.raises(ValueError, match='>= 0'):
        trace(linear(), -1.0, [0.5], until_depth=10.0)


def test_sounding_of_a_miss_is_nan() -> None:
    z, x = sounding(linear(), 5.0, [0.5, 0.5], [np.inf, np.nan])
    assert np.isnan(z).all()
    assert np.isnan(x).all()
