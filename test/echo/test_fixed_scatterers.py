"""Scatterers fixed to the surfaces (docs/beamforming.md#scatterers-fixed-in-the-world).

Placed and phased from the triangle's id and the seed alone: the same for a subset of the
triangles, bit for bit on a repeat; the count's mean is the area times the density; the
amplitudes are unit complex Gaussians (exponential intensity); the phase is the true path's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from nps_sonar_py.echo.fixed_scatterers import default_density, surface_scatterers, two_way


def _triangles(count: int, seed: int = 0) -> np.ndarray:
    """``count`` random triangles of a few square centimetres to a square metre."""
    rng = np.random.default_rng(seed)
    corner = rng.uniform(-5.0, 5.0, (count, 1, 3))
    return corner + rng.uniform(-0.7, 0.7, (count, 3, 3))


def test_the_same_triangles_and_seed_give_the_same_scatterers() -> None:
    triangles = _triangles(200)
    first = surface_scatterers(triangles, 500.0, seed=4)
    again = surface_scatterers(triangles, 500.0, seed=4)
    assert np.array_equal(first.positions, again.positions)
    assert np.array_equal(first.amplitudes, again.amplitudes)
    # A subset (the lit triangles), given their ids, has the same scatterers.
    lit = np.arange(50, 120)
    part = surface_scatterers(triangles[lit], 500.0, seed=4, ids=lit)
    mine = np.isin(first.triangles, lit)
    assert np.array_equal(part.positions, first.positions[mine])
    assert np.array_equal(part.amplitudes, first.amplitudes[mine])
    # Control: another seed is another realisation.
    other = surface_scatterers(triangles, 500.0, seed=5)
    assert not np.array_equal(other.amplitudes[:10], first.amplitudes[:10])


def test_the_count_is_the_area_times_the_density_and_inside_the_triangles() -> None:
    triangles = _triangles(400)
    edge1, edge2 = triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0]
    area = 0.5 * np.linalg.norm(np.cross(edge1, edge2), axis=1)
    density = 300.0
    scatterers = surface_scatterers(triangles, density, seed=1)
    counts = np.bincount(scatterers.triangles, minlength=len(triangles))
    assert np.all(np.abs(counts - area * density) < 1.0)  # floor(A rho + u)
    assert counts.sum() == pytest.approx(area.sum() * density, rel=0.002)
    assert scatterers.area == pytest.approx(1.0 / density)
    # Inside: barycentric coordinates of each point in [0, 1].
    t = scatterers.triangles
    basis = np.stack([edge1[t], edge2[t]], axis=2)  # (m, 3, 2)
    solved = np.einsum('mij,mj->mi', np.linalg.pinv(basis), scatterers.positions - triangles[t, 0])
    assert solved.min() >= -1e-9
    assert solved.sum(axis=1).max() <= 1.0 + 1e-9
    # Control: twice the density does not match the areas.
    assert counts.sum() != pytest.approx(2.0 * area.sum() * density, rel=0.002)


def exponential_misfit(xi: np.ndarray) -> float:
    """Largest ``|P(|xi|**2 > t) - exp(-t)|`` over a few ``t``: 0 for unit complex Gaussians."""
    power = np.abs(xi) ** 2
    return max(abs(float(np.mean(power > t)) - math.exp(-t)) for t in (0.5, 1.0, 2.0, 4.0))


def test_the_amplitudes_are_unit_complex_gaussians() -> None:
    """``E |xi|**2`` = 1, ``P(|xi|**2 > t) = exp(-t)``, uniform phase."""
    xi = surface_scatterers(_triangles(400), 2000.0, seed=2).amplitudes
    power = np.abs(xi) ** 2
    assert power.size > 100_000
    assert power.mean() == pytest.approx(1.0, abs=0.01)
    assert exponential_misfit(xi) < 0.005
    assert np.abs(np.mean(xi)) < 0.01
    # Control: the same scatterers as unit-modulus phasors (their random phase only) have
    # E |xi|**2 = 1 and a uniform phase too, but the same measure rejects them.
    phasors = xi / np.abs(xi)
    assert np.abs(phasors).mean() == pytest.approx(1.0)
    assert exponential_misfit(phasors) > 0.1


def test_each_echo_has_the_phase_of_its_true_two_way_path() -> None:
    points = np.array([[3.0, 4.0, 0.0], [0.0, 0.0, 2.0]])
    wavelength = 0.00375
    path, phase = two_way(points, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], wavelength)
    assert path == pytest.approx([10.0, 4.0])
    expected = np.exp(-2j * math.pi * np.array([10.0, 4.0]) / wavelength)
    assert phase == pytest.approx(expected, abs=1e-9)
    # Bistatic: out to the point and back to another receiver.
    path, _ = two_way(points[:1], [0.0, 0.0, 0.0], [6.0, 0.0, 0.0], wavelength)
    assert path == pytest.approx([5.0 + 5.0])
    # Control: a one-way phase is not the two-way one.
    assert np.exp(-2j * math.pi * 5.0 / wavelength) != pytest.approx(expected[0], abs=1e-3)


def test_the_default_density_puts_four_in_a_cell() -> None:
    """4 / (c / (2 B) x r w): a 2.5 cm cell of a 1 degree beam at 10 m holds 4."""
    density = default_density(0.025, math.radians(1.0), 10.0)
    assert density * 0.025 * 10.0 * math.radians(1.0) == pytest.approx(4.0)
