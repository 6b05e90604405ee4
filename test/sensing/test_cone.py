"""The cone sampling's geometry: unit rays inside the cone, equal solid angle, boresight first."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nps_sonar_py.sensing import cone_half_angle, cone_pattern


def test_half_angle_of_the_urdf_cone() -> None:
    # radius 0.5 m at max range 7 m: tan(beta) = 0.5 / 7
    assert cone_half_angle(0.5, 7.0) == pytest.approx(math.atan(0.5 / 7.0), abs=1e-15)


@pytest.mark.parametrize('n', [1, 2, 7, 500, 20_000])
def test_rays_are_unit_vectors_inside_the_cone(n: int) -> None:
    beta = math.radians(12.5)
    pattern = cone_pattern(beta, n)
    assert pattern.directions.shape == (n, 3)
    np.testing.assert_allclose(np.linalg.norm(pattern.directions, axis=1), 1.0, atol=1e-12)
    angle = np.arccos(np.clip(pattern.directions[:, 0], -1, 1))
    assert angle.max() <= beta + 1e-12
    np.testing.assert_allclose(angle, pattern.off_axis, atol=1e-9)


def test_ray_zero_is_the_boresight() -> None:
    pattern = cone_pattern(0.3, 100)
    np.testing.assert_array_equal(pattern.directions[0], [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(cone_pattern(0.3, 1).directions, [[1.0, 0.0, 0.0]])


def test_solid_angles_are_equal_and_sum_to_the_cap() -> None:
    beta = 0.2
    pattern = cone_pattern(beta, 999)
    cap = 2 * math.pi * (1 - math.cos(beta))
    np.testing.assert_allclose(pattern.solid_angle, cap / 999, rtol=1e-12)
    assert pattern.solid_angle.sum() == pytest.approx(cap, rel=1e-12)


def test_rays_fill_the_cap_evenly() -> None:
    # Equal solid angle: the fraction of rays within psi is the fraction of the cap's solid angle,
    # (1 - cos psi) / (1 - cos beta), to within one ray; and the azimuths show no preferred side.
    beta, n = math.radians(30.0), 10_000
    pattern = cone_pattern(beta, n)
    for psi in np.radians([5.0, 10.0, 20.0, 29.0]):
        expected = (1 - math.cos(psi)) / (1 - math.cos(beta))
        assert np.mean(pattern.off_axis <= psi) == pytest.approx(expected, abs=1.5 / n)
    mean_direction = pattern.directions[:, 1:].mean(axis=0)
    np.testing.assert_allclose(mean_direction, 0.0, atol=2e-3)


@pytest.mark.parametrize(('beta', 'n'), [(0.0, 10), (-0.1, 10), (math.pi, 10), (0.1, 0)])
def test_invalid_cones_are_refused(beta: float, n: int) -> None:
    with pytest.raises(ValueError, match='cone'):
        cone_pattern(beta, n)
