"""T1 of docs/physics.md#analytic-test-cases: beam patterns, first nulls, 3 dB gate, cast cone."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq, minimize_scalar
from scipy.special import j1, jn_zeros

from nps_sonar_py.echo import (
    Absorption,
    BeamPattern,
    CastLimit,
    EchoConfig,
    EchoModel,
    beam_intensity,
    first_null_half_angle,
    piston_diameter,
    piston_ka,
)
from nps_sonar_py.sensing.cone import cone_pattern

WIDTHS_DEG = [1.0, 2.0, 25.0, 30.0, 90.0, 150.0]
SHAPED = [BeamPattern.PISTON, BeamPattern.GAUSSIAN, BeamPattern.SINC]


def piston_x3db() -> float:
    """x with (2 J1(x)/x)^2 = 1/2, found here independently of the module's constant."""
    return brentq(lambda x: (2.0 * j1(x) / x) ** 2 - 0.5, 0.5, 3.0, xtol=1e-15)


def piston_b(psi: float, beam_width: float) -> float:
    x = piston_x3db() / math.sin(beam_width / 2) * math.sin(psi)
    return 1.0 if x == 0.0 else (2.0 * j1(x) / x) ** 2


@pytest.mark.parametrize('pattern', list(BeamPattern))
@pytest.mark.parametrize('n_way', [1, 2])
def test_pattern_is_one_on_axis(pattern: BeamPattern, n_way: int) -> None:
    assert beam_intensity(pattern, [0.0], math.radians(25.0), n_way).tolist() == [1.0]


@pytest.mark.parametrize('pattern', SHAPED)
@pytest.mark.parametrize('width_deg', WIDTHS_DEG)
def test_half_power_at_half_beam_width(pattern: BeamPattern, width_deg: float) -> None:
    bw = math.radians(width_deg)
    assert beam_intensity(pattern, [bw / 2], bw, 1)[0] == pytest.approx(0.5, abs=1e-9)
    two_way = beam_intensity(pattern, [bw / 2], bw, 2)[0]
    assert two_way == pytest.approx(0.25, abs=1e-9)
    assert 10 * math.log10(two_way) == pytest.approx(-6.0206, abs=1e-4)


def test_piston_pattern_matches_its_formula() -> None:
    bw = math.radians(25.0)
    psi = np.linspace(0.0, math.radians(80.0), 57)
    expected = [piston_b(p, bw) for p in psi]
    np.testing.assert_allclose(
        beam_intensity(BeamPattern.PISTON, psi, bw), expected, rtol=1e-12, atol=1e-15
    )


def test_gaussian_pattern_matches_its_formula() -> None:
    bw = math.radians(30.0)
    psi = np.linspace(0.0, 1.0, 41)
    expected = np.exp(-4.0 * math.log(2.0) * (psi / bw) ** 2)
    np.testing.assert_allclose(beam_intensity(BeamPattern.GAUSSIAN, psi, bw), expected, rtol=1e-14)


@pytest.mark.parametrize(('width_deg', 'expected'), [(1.0, 0.5016), (2.0, 0.5016), (25.0, 0.5075)])
def test_dave_sinc_small_angle_error(width_deg: float, expected: float) -> None:
    bw = math.radians(width_deg)
    u = math.pi * (0.884 / bw) * math.sin(bw / 2)  # DAVE: sinc(pi (0.884 / theta_bw) sin(psi))
    b = (math.sin(u) / u) ** 2
    assert b == pytest.approx(expected, abs=1e-4)
    assert beam_intensity(BeamPattern.SINC_DAVE, [bw / 2], bw)[0] == pytest.approx(b, rel=1e-12)


def test_exact_sinc_uses_length_over_wavelength() -> None:
    u3 = brentq(lambda u: (math.sin(u) / u) ** 2 - 0.5, 0.5, 3.0, xtol=1e-15)
    assert u3 / math.pi == pytest.approx(0.44295, abs=1e-5)
    bw = math.radians(25.0)
    psi = 0.1
    u = u3 / math.sin(bw / 2) * math.sin(psi)  # pi (L / lambda) sin(psi)
    assert beam_intensity(BeamPattern.SINC, [psi], bw)[0] == pytest.approx(
        (math.sin(u) / u) ** 2, rel=1e-12
    )


def test_uniform_pattern_is_a_hard_cone() -> None:
    bw = math.radians(20.0)
    w = beam_intensity(BeamPattern.UNIFORM, [0.0, bw / 2, bw / 2 + 1e-12, 1.0], bw)
    assert w.tolist() == [1.0, 1.0, 0.0, 0.0]


@pytest.mark.parametrize('pattern', list(BeamPattern))
@pytest.mark.parametrize('width_deg', WIDTHS_DEG)
def test_monotone_inside_the_half_power_cone(pattern: BeamPattern, width_deg: float) -> None:
    bw = math.radians(width_deg)
    w = beam_intensity(pattern, np.linspace(0.0, bw / 2, 1001), bw, 2)
    assert np.all(np.diff(w) <= 0.0)
    assert w[-1] >= 0.25 - 1e-9


def test_piston_null_and_side_lobe() -> None:
    bw = math.radians(25.0)
    ka = piston_x3db() / math.sin(bw / 2)
    x_null = jn_zeros(1, 1)[0]
    assert x_null == pytest.approx(3.8317, abs=1e-4)
    null = first_null_half_angle(BeamPattern.PISTON, bw)
    assert math.sin(null) == pytest.approx(x_null / ka, rel=1e-12)
    assert beam_intensity(BeamPattern.PISTON, [null], bw)[0] < 1e-25
    # Side-lobe peak: d/dx (J1(x)/x) = -J2(x)/x, so at the first zero of J2.
    x_peak = jn_zeros(2, 1)[0]
    assert x_peak == pytest.approx(5.1356, abs=1e-4)
    second_null = math.asin(jn_zeros(1, 2)[1] / ka)
    found = minimize_scalar(
        lambda p: -beam_intensity(BeamPattern.PISTON, [p], bw)[0],
        bounds=(null, second_null),
        method='bounded',
        options={'xatol': 1e-12},
    )
    assert math.sin(found.x) * ka == pytest.approx(x_peak, abs=1e-4)
    peak_db = 10 * math.log10(-found.fun)
    assert peak_db == pytest.approx(20 * math.log10(abs(2 * j1(x_peak) / x_peak)), abs=1e-6)
    assert peak_db == pytest.approx(-17.57, abs=0.01)
    two_way = 10 * math.log10(beam_intensity(BeamPattern.PISTON, [found.x], bw, 2)[0])
    assert two_way == pytest.approx(-35.1, abs=0.05)


def test_sinc_null_and_side_lobe() -> None:
    bw = math.radians(10.0)
    u3 = brentq(lambda u: (math.sin(u) / u) ** 2 - 0.5, 0.5, 3.0, xtol=1e-15)
    null = first_null_half_angle(BeamPattern.SINC, bw)
    assert math.sin(null) == pytest.approx(math.pi * math.sin(bw / 2) / u3, rel=1e-12)
    u_peak = brentq(lambda u: math.tan(u) - u, math.pi + 0.1, 1.5 * math.pi - 1e-9)  # 4.4934
    psi_peak = math.asin(u_peak * math.sin(bw / 2) / u3)
    peak_db = 10 * math.log10(beam_intensity(BeamPattern.SINC, [psi_peak], bw)[0])
    assert peak_db == pytest.approx(-13.26, abs=0.01)
    dave_null = first_null_half_angle(BeamPattern.SINC_DAVE, bw)
    assert math.sin(dave_null) == pytest.approx(bw / 0.884, rel=1e-12)


def test_first_null_of_uniform_gaussian_and_wide_beams() -> None:
    bw = math.radians(25.0)
    assert first_null_half_angle(BeamPattern.UNIFORM, bw) == bw / 2
    assert first_null_half_angle(BeamPattern.GAUSSIAN, bw) == math.inf
    assert first_null_half_angle(BeamPattern.PISTON, math.radians(170.0)) == math.inf
    ratio = math.sin(first_null_half_angle(BeamPattern.PISTON, bw)) / math.sin(bw / 2)
    assert ratio == pytest.approx(2.37, abs=0.005)  # "about 2.37x the -3 dB half angle" (in sin)


@pytest.mark.parametrize(
    ('cast', 'included'), [(CastLimit.HALF_POWER, [1, 0]), (CastLimit.FIRST_NULL, [1, 1])]
)
def test_three_db_gate(cast: CastLimit, included: list[int]) -> None:
    bw = math.radians(25.0)
    config = EchoConfig(
        beam_width=bw,
        cast_limit=cast,
        absorption=Absorption.NONE,
        min_range=1.0,
        max_range=3.0,
        n_bins=2,
        n_way=1,
    )
    for psi, expected in zip([bw / 2 - 1e-9, bw / 2 + 1e-9], included, strict=True):
        model = EchoModel(config, [psi], [1e-3])
        echo = model.ping([2.0], [1.0], [1.0])
        assert int(echo.hits.sum()) == expected
        assert (echo.total > 0.0) == bool(expected)
        if expected:
            assert echo.total == pytest.approx(piston_b(psi, bw) * 1e-3 / 4.0, rel=1e-9)


def test_ping2_example() -> None:
    bw = math.radians(25.0)
    ka = piston_x3db() / math.sin(bw / 2)
    assert ka == pytest.approx(7.468, abs=5e-4)
    assert piston_ka(bw) == pytest.approx(ka, rel=1e-12)
    wavelength = 1500.0 / 115e3
    diameter = ka * wavelength / math.pi  # ka = pi D / lambda
    assert diameter * 1e3 == pytest.approx(31.0, abs=0.05)
    assert piston_diameter(bw, 115e3, 1500.0) == pytest.approx(diameter, rel=1e-12)


@pytest.mark.parametrize(('n_way', 'expected'), [(1, 0.493), (2, 0.774)])
def test_energy_inside_the_half_power_cone(n_way: int, expected: float) -> None:
    """Section 1.5: pattern energy of a uniform scene inside the 3 dB gate (25 deg piston)."""
    bw = math.radians(25.0)

    def energy(limit: float) -> float:
        return quad(lambda p: piston_b(p, bw) ** n_way * math.sin(p), 0.0, limit, limit=200)[0]

    share = energy(bw / 2) / energy(math.pi / 2)
    assert share == pytest.approx(expected, abs=1e-3)

    def total(cast: CastLimit | float) -> float:
        config = EchoConfig(
            beam_width=bw,
            n_way=n_way,
            cast_limit=cast,
            absorption=Absorption.NONE,
            min_range=1.0,
            max_range=3.0,
            n_bins=4,
        )
        rays = cone_pattern(config.cast_half_angle, 200_000)
        model = EchoModel(config, rays.off_axis, rays.solid_angle)
        # A sphere around the sensor: every ray hits at 2 m, head on.
        return model.ping(np.full(len(rays), 2.0), np.ones(len(rays)), 1.0).total

    assert total(CastLimit.HALF_POWER) / total(math.pi / 2) == pytest.approx(share, rel=5e-3)
