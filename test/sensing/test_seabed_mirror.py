"""A seabed mirrors the multipath with its sediment's Rayleigh reflection, not its backscatter.

Real Open3D scenes through the seabed caster: a seabed at z = -30 carrying medium sand and a
leaning wall, a sensor at z = -10 whose rays meet the seabed, are mirrored up and scatter off
the wall (``docs/multipath.md``, ``docs/seabed.md``). Everything about those ghosts but the
seabed's mirror is the same as over a plain seabed, so the ratio of their gains is the
seabed's ``|R|**2`` over the plain one's ``mu``, worked here from Rayleigh's formula for a
fluid sediment (Jackson and Richardson, *High-Frequency Seafloor Acoustics*, 2007, ch. 2).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig
from nps_sonar_py.echo.seabed import named_seabed
from nps_sonar_py.echo.sediment import SEDIMENTS
from nps_sonar_py.scene import Entity, EntityState, Raycaster, SceneState, World
from nps_sonar_py.scene.tessellation import box_triangles, plane_triangles
from nps_sonar_py.sensing.multipath import MultipathConfig, cone_hearing, multipath_returns
from nps_sonar_py.sensing.seabed_caster import seabed_caster
from nps_sonar_py.transforms import transform_from_xyz_rpy

#: The plain seabed's Lambert coefficient, which the package reads as its mirror's |R|**2.
PLAIN_MU = 0.5
LEAN = math.radians(30.0)


def rayleigh_power(grazing: np.ndarray) -> np.ndarray:
    """``|R|**2`` of medium sand (a_rho 1.845, nu 1.178, delta 0.01624): Rayleigh's formula.

    ``R = (a_rho sin t - sqrt(k**2 - cos**2 t)) / (a_rho sin t + sqrt(k**2 - cos**2 t))``,
    ``k = (1 + i delta) / nu`` the sediment's wavenumber over the water's, on the root with
    a non-negative imaginary part (the wave decays into the sediment).
    """
    sand = SEDIMENTS['sand']
    k = complex(1.0, sand.loss_parameter) / sand.sound_speed_ratio
    vertical = np.sqrt(k * k - np.cos(grazing).astype(complex) ** 2)
    vertical = np.where(vertical.imag < 0.0, -vertical, vertical)
    top = sand.density_ratio * np.sin(grazing)
    r = (top - vertical) / (top + vertical)
    return np.asarray(np.abs(r) ** 2)


def test_the_formula_here_gives_the_sands_normal_incidence_loss() -> None:
    """The issue's closed form: medium sand loses 8.64 dB at normal incidence."""
    loss = -10.0 * math.log10(float(rayleigh_power(np.array([0.5 * math.pi]))[0]))
    assert loss == pytest.approx(8.64, abs=0.01)


def _world(sediment: bool, wall_x: float) -> World:
    """The seabed (with medium sand or plain ``PLAIN_MU``) and a wall leaning toward the sensor."""
    normal = np.array([-math.cos(LEAN), 0.0, math.sin(LEAN)])
    centre = np.array([wall_x, 0.0, -20.0]) - normal  # the box is 2 m thick
    seabed = named_seabed('sand') if sediment else None
    entities = (
        Entity('seabed', plane_triangles([400.0, 400.0]), PLAIN_MU, seabed=seabed),
        Entity('wall', box_triangles([2.0, 200.0, 80.0]), 0.5),
    )
    states = (
        EntityState('seabed', origin=transform_from_xyz_rpy((0.0, 0.0, -30.0), (0, 0, 0))),
        EntityState('wall', origin=transform_from_xyz_rpy(centre, (0.0, LEAN, 0.0))),
    )
    return World('mirror', entities, SceneState('mirror', 0.0, states))


def _ghost_gains(sediment: bool, wall_x: float, elevation: np.ndarray) -> tuple[np.ndarray, ...]:
    """The one-bounce ghosts' (ray, range, gain), sorted, of rays at ``elevation`` (rad)."""
    caster = seabed_caster(Raycaster(_world(sediment, wall_x)), 300e3, 1500.0)
    origin = np.array([0.0, 0.0, -10.0])
    d = np.stack([np.cos(elevation), np.zeros_like(elevation), np.sin(elevation)], axis=1)
    n = d.shape[0]
    echo = EchoConfig(
        beam_width=math.radians(178.0),
        pattern=BeamPattern.UNIFORM,
        absorption=Absorption.NONE,
        max_range=300.0,
        n_bins=300,
    )
    _, extra = multipath_returns(
        caster,
        origin,
        d,
        caster.cast(origin, d),
        MultipathConfig(max_bounces=1, sea_surface_z=0.0),
        hear=cone_hearing(echo, np.tile([1.0, 0.0, 0.0], (n, 1)), 1),
        ray_pattern=np.ones(n),
        rays_per_beam=1,
        n_way=2,
        max_range=300.0,
    )
    assert extra.entity is not None
    assert np.all(extra.entity == 1)  # every ghost off the wall
    order = np.lexsort((extra.range, extra.beam))
    return extra.beam[order], extra.range[order], extra.gain[order]


@pytest.mark.parametrize(
    ('wall_x', 'degrees'),
    [(32.0, (-45.0, -40.0)), (80.0, (-27.0, -22.0))],
    ids=['above the critical angle', 'below it'],
)
def test_a_seabed_mirrors_with_its_sediments_rayleigh_reflection(
    wall_x: float, degrees: tuple[float, float]
) -> None:
    """Ghost gain over a sand seabed / over a plain one = |R(grazing)|**2 / mu, per ray.

    Control: the seabed's backscatter, the equivalent Lambert coefficient of its hits (what
    the multipath took as the mirror before), is more than 10 dB off ``|R|**2`` here.
    """
    elevation = np.radians(np.linspace(*degrees, 12))
    ray, ranges, gain = _ghost_gains(True, wall_x, elevation)
    plain_ray, plain_ranges, plain_gain = _ghost_gains(False, wall_x, elevation)
    assert ray.size >= 12  # every ray's ghost, and its reverse
    np.testing.assert_array_equal(ray, plain_ray)
    np.testing.assert_allclose(ranges, plain_ranges, atol=1e-9)  # the same paths
    expected = rayleigh_power(-elevation[ray]) / PLAIN_MU
    np.testing.assert_allclose(gain / plain_gain, expected, rtol=1e-6)
    # the control: the seabed's diffuse reflectivity read as the mirror
    caster = seabed_caster(Raycaster(_world(True, wall_x)), 300e3, 1500.0)
    d = np.stack([np.cos(elevation), np.zeros_like(elevation), np.sin(elevation)], axis=1)
    hits = caster.cast(np.array([0.0, 0.0, -10.0]), d)
    backscatter = np.asarray(hits.reflectivity)
    assert np.all(np.abs(10.0 * np.log10(backscatter / rayleigh_power(-elevation))) > 10.0)
    np.testing.assert_allclose(hits.mirror_gain, rayleigh_power(-elevation), rtol=1e-9)


def test_other_surfaces_mirror_with_their_reflectivity_as_before() -> None:
    """A hit of a surface without a seabed keeps ``mirror_gain`` = its ``mu``."""
    caster = seabed_caster(Raycaster(_world(True, 32.0)), 300e3, 1500.0)
    d = np.array([[1.0, 0.0, -0.05]]) / math.hypot(1.0, 0.05)  # straight onto the wall
    hits = caster.cast(np.array([0.0, 0.0, -10.0]), d)
    assert int(hits.entity[0]) == 1
    assert float(hits.mirror_gain[0]) == pytest.approx(0.5)
    plain = Raycaster(_world(False, 32.0)).cast(np.array([0.0, 0.0, -10.0]), d)
    assert plain.mirror is None
    assert float(plain.mirror_gain[0]) == pytest.approx(0.5)
