"""A surface's seabed law: equivalent Lambert coefficient, K-distributed texture, ripples.

Scintillation indices and means against the K distribution's closed form ``1 + 2 / nu``,
the law against hand-worked backscatter, each with a negative control.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from nps_sonar_py.echo.seabed import (
    BackscatterModel,
    Seabed,
    gaussian_field,
    named_seabed,
    rippled_normals,
    seabed_reflectivity,
    seabed_table,
    texture_factor,
    texture_shape,
)
from nps_sonar_py.echo.sediment import SEDIMENTS, backscatter_cross_section
from nps_sonar_py.errors import ConfigurationError

UP = np.array([0.0, 0.0, 1.0])


def _scattered_points(count: int, seed: int) -> np.ndarray:
    """(3, count) points on z = 0 spread over 10 km: almost all patches apart."""
    rng = np.random.default_rng(seed)
    return np.stack([rng.uniform(0, 1e4, count), rng.uniform(0, 1e4, count), np.zeros(count)])


def _rays(grazing: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit rays going down at ``grazing`` rad along +x, and the up normal for each."""
    d = np.stack([np.cos(grazing), np.zeros_like(grazing), -np.sin(grazing)], axis=1)
    return d, np.tile(UP, (grazing.size, 1))


@pytest.mark.parametrize('nu', [0.5, 1.0, 5.0])
def test_k_texture_scintillation_index_and_mean(nu: float) -> None:
    count = 400_000
    texture = texture_factor(_scattered_points(count, 1), nu, 0.5, seed=3)
    speckle = np.random.default_rng(2).exponential(size=count)  # Rayleigh speckle
    intensity = texture * speckle
    index = float(np.mean(intensity**2) / np.mean(intensity) ** 2 - 1.0)
    assert index == pytest.approx(1.0 + 2.0 / nu, rel=0.04)  # 5, 3, 1.4
    assert float(np.mean(texture)) == pytest.approx(1.0, abs=0.01)  # the mean unchanged
    # Negative control: Rayleigh speckle alone has index 1, far from 1 + 2 / nu.
    rayleigh = float(np.mean(speckle**2) / np.mean(speckle) ** 2 - 1.0)
    assert abs(rayleigh - (1.0 + 2.0 / nu)) > 0.3


def test_an_infinite_shape_is_the_rayleigh_model() -> None:
    texture = texture_factor(_scattered_points(1000, 4), math.inf, 0.5)
    assert np.array_equal(texture, np.ones(1000))


def test_texture_is_fixed_to_the_surface_and_seeded() -> None:
    points = _scattered_points(5000, 5)
    first = texture_factor(points, 1.0, 0.5, seed=7)
    assert np.array_equal(first, texture_factor(points, 1.0, 0.5, seed=7))  # no sparkle
    moved = texture_factor(points + np.array([[1e-3], [0.0], [0.0]]), 1.0, 0.5, seed=7)
    assert np.corrcoef(first, moved)[0, 1] > 0.99  # a millimetre on: nearly the same
    other = texture_factor(points, 1.0, 0.5, seed=8)
    assert abs(np.corrcoef(first, other)[0, 1]) < 0.05  # another realisation


def test_the_gaussian_field_is_standard_normal_and_patchy() -> None:
    z = gaussian_field(_scattered_points(200_000, 6), 0.5, 0)
    assert float(np.mean(z)) == pytest.approx(0.0, abs=0.01)
    assert float(np.std(z)) == pytest.approx(1.0, abs=0.01)
    x = np.linspace(0.0, 20.0, 4001)
    line = gaussian_field(np.stack([x, np.zeros_like(x), np.zeros_like(x)]), 0.5, 0)
    step = x[1] - x[0]
    near = np.corrcoef(line[:-1], line[1:])[0, 1]  # 5 mm apart
    far = np.corrcoef(line[: -int(2.0 / step)], line[int(2.0 / step) :])[0, 1]  # 2 m apart
    assert near > 0.99
    assert abs(far) < 0.15


def test_a_flat_lambert_seabed_gives_its_coefficient_back() -> None:
    seabed = Seabed(model=BackscatterModel.LAMBERT, lambert_db=-27.0)
    grazing = np.radians(np.linspace(5.0, 90.0, 50))
    d, n = _rays(grazing)
    mu = seabed_reflectivity(seabed, None, d, n, np.zeros((3, grazing.size)))
    assert np.allclose(mu, 10.0**-2.7, rtol=1e-12)


def test_the_law_returns_the_sediments_cross_section() -> None:
    # The echo law multiplies mu by cos(alpha) = sin(theta) and the footprint r**2 dOmega /
    # sin(theta) by sigma: mu sin(theta) must be sigma / sin(theta).
    seabed = Seabed(SEDIMENTS['silt'], extrapolate=True)
    table = seabed_table(seabed, 300e3, 1500.0)
    grazing = np.radians([10.0, 30.0, 60.0])
    d, n = _rays(grazing)
    mu = seabed_reflectivity(seabed, table, d, n, np.zeros((3, 3)))
    sigma = backscatter_cross_section(SEDIMENTS['silt'], grazing, 300e3)
    assert np.allclose(mu * np.sin(grazing), sigma / np.sin(grazing), rtol=1e-3)
    # Negative control: sigma read as a Lambert coefficient (no footprint) is far off.
    assert not np.allclose(mu, sigma, rtol=0.5)


def test_ripples_tilt_the_normal_with_the_wavelength_along_their_direction() -> None:
    seabed = Seabed(ripple_wavelength=0.6, ripple_height=0.06, ripple_direction=0.0)
    x = np.linspace(0.0, 1.2, 121)
    along = np.stack([x, np.zeros_like(x), np.zeros_like(x)])
    across = np.stack([np.zeros_like(x), x, np.zeros_like(x)])
    normals = np.tile(UP, (x.size, 1))
    tilted, tilt = rippled_normals(normals, along, seabed)
    slope = math.pi * 0.06 / 0.6 * np.cos(2.0 * math.pi * x / 0.6)  # h' of h = H/2 sin
    assert np.allclose(-tilted[:, 0] / tilted[:, 2], slope)
    assert np.allclose(tilt, 1.0 / np.sqrt(1.0 + slope**2))
    crest, _ = rippled_normals(normals, across, seabed)
    assert np.allclose(crest, crest[0])  # along a crest the facet does not change
    assert not np.allclose(tilted, tilted[0])  # across the crests it does


def test_a_facet_turned_away_returns_nothing() -> None:
    seabed = Seabed(
        model=BackscatterModel.LAMBERT, ripple_wavelength=0.2, ripple_height=0.1
    )  # slopes up to 57 degrees
    grazing = np.full(200, math.radians(10.0))
    d, n = _rays(grazing)
    x = np.linspace(0.0, 0.4, 200)
    mu = seabed_reflectivity(seabed, None, d, n, np.stack([x, 0 * x, 0 * x]))
    assert np.any(mu == 0.0)
    assert np.any(mu > 10.0**-2.7)  # the facets facing the sonar are brighter


def test_named_seabeds_and_their_refusals() -> None:
    rock = named_seabed('rock')
    assert rock.sediment == SEDIMENTS['rock']
    assert texture_shape(rock, math.radians(10.0))[()] == pytest.approx(0.7)
    assert np.isinf(texture_shape(Seabed(), 0.3)).all()
    with pytest.raises(ConfigurationError, match=r'^sediment must be one of .*rock.*, got'):
        named_seabed('lava')
    with pytest.raises(ConfigurationError, match=r'^seabed\.texture_shape must be pairs'):
        Seabed(texture_shape=(10.0, 1.0, 20.0))
    with pytest.raises(ConfigurationError, match=r'^seabed\.texture_shape must have increasing'):
        Seabed(texture_shape=(30.0, 1.0, 20.0, 2.0))


def test_the_model_is_held_to_its_stated_range_unless_told() -> None:
    held, free = Seabed(SEDIMENTS['sand']), Seabed(SEDIMENTS['sand'], extrapolate=True)
    grazing = np.radians([10.0, 30.0, 60.0])
    table = seabed_table(held, 600e3, 1500.0)
    assert table is not None
    at_100k = backscatter_cross_section(SEDIMENTS['sand'], grazing, 100e3)
    assert np.allclose(table.cross_section(grazing), at_100k, rtol=0.02)
    extrapolated = seabed_table(free, 600e3, 1500.0)
    assert extrapolated is not None
    at_600k = backscatter_cross_section(SEDIMENTS['sand'], grazing, 600e3)
    assert np.allclose(extrapolated.cross_section(grazing), at_600k, rtol=0.02)
    assert not np.allclose(at_100k, at_600k, rtol=0.2)  # the choice matters there
    assert seabed_table(Seabed(model=BackscatterModel.LAMBERT), 600e3, 1500.0) is None
