"""Raycasting analytic scenes (as Open3D's test_raycasting_scene.py), static and moving."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nps_sonar_py.scene.raycaster import PATTERNS, Raycaster, RayHits
from nps_sonar_py.scene.scene_state import EntityState, SceneState
from nps_sonar_py.scene.tessellation import (
    Triangles,
    box_triangles,
    cylinder_faceting_error,
    cylinder_triangles,
)
from nps_sonar_py.scene.world import Entity, World
from nps_sonar_py.transforms import transform_from_xyz_rpy


def world_of(
    *entities: Entity, states: tuple[EntityState, ...] = (), time_stamp: float = 0.0
) -> World:
    return World('test', entities, SceneState('test', time_stamp, states))


def placed(
    name: str, xyz, rpy=(0.0, 0.0, 0.0), *, frame='world', linear=(0, 0, 0), angular=(0, 0, 0)
) -> EntityState:
    return EntityState(
        name,
        frame,
        transform_from_xyz_rpy(xyz, rpy),
        np.array(linear, float),
        np.array(angular, float),
    )


def unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def reference_cylinder() -> Entity:
    return Entity('target', cylinder_triangles(0.25, 1.0, 64), reflectivity=1.0)


SONAR = np.array([2.1, 1.0, 1.0])

#: Relative precision of a float32 range (Open3D computes in float32): 2 ulp.
F32 = 2.0 * float(np.finfo(np.float32).eps)


def test_box_face_at_a_known_distance_and_a_miss():
    world = world_of(
        Entity('box', box_triangles([1.0, 1.0, 1.0]), reflectivity=0.25),
        states=(placed('box', [5, 0, 0]),),
    )
    hits = Raycaster(world).cast(np.zeros(3), [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    # first ray hits the face x = 4.5
    assert hits.ranges[0] == pytest.approx(4.5, rel=F32)
    np.testing.assert_allclose(np.abs(hits.normals[0]), [1.0, 0.0, 0.0])
    assert hits.cos_incidence[0] == pytest.approx(1.0)
    assert hits.reflectivity[0] == 0.25
    assert hits.entity[0] == 0
    # second ray misses
    assert np.isinf(hits.ranges[1])
    assert hits.entity[1] == -1
    assert np.isnan(hits.reflectivity[1])
    assert hits.cos_incidence[1] == 0.0
    np.testing.assert_array_equal(hits.normals[1], 0.0)
    np.testing.assert_array_equal(hits.hit, [True, False])


@pytest.mark.parametrize('n', [0, 1, 11, 1000])
def test_output_shapes_and_dtypes(n):
    world = world_of(
        Entity('box', box_triangles([1.0, 1.0, 1.0])), states=(placed('box', [5, 0, 0]),)
    )
    rng = np.random.default_rng(123)
    hits = Raycaster(world).cast(rng.normal(size=(n, 3)), unit(rng.normal(size=(n, 3))))
    assert len(hits) == n
    assert (
        hits.ranges.shape
        == hits.cos_incidence.shape
        == hits.reflectivity.shape
        == hits.entity.shape
        == (n,)
    )
    assert hits.normals.shape == (n, 3)
    # Open3D's float32 results are handed out as float32: no float64 copies.
    assert hits.ranges.dtype == hits.normals.dtype == hits.cos_incidence.dtype == np.float32
    assert hits.reflectivity.dtype == np.float64
    assert hits.entity.dtype == np.int64


def test_one_ray_given_as_vectors():
    world = world_of(
        Entity('box', box_triangles([1.0, 1.0, 1.0])), states=(placed('box', [0, 0, -3]),)
    )
    hits = Raycaster(world).cast([0.0, 0.0, 0.0], [0.0, 0.0, -1.0])
    assert hits.ranges == pytest.approx([2.5], rel=F32)


@pytest.mark.parametrize('moving', [False, True])
def test_reference_cylinder_on_the_boresight_is_exactly_1_750_m(moving):
    twist = {'linear': (0, 0, 1e-3)} if moving else {}
    world = world_of(reference_cylinder(), states=(placed('target', [2.1, 3.0, 1.0], **twist),))
    hits = Raycaster(world).cast(SONAR, [0.0, 1.0, 0.0])
    assert hits.ranges[0] == pytest.approx(1.75, rel=F32)
    # the ray meets the vertex at -pi/2, shared by two facets whose normals are pi/64 from -y
    assert hits.cos_incidence[0] == pytest.approx(math.cos(math.pi / 64), rel=1e-6)
    assert hits.reflectivity[0] == 1.0


def _circle_range(origin, directions, centre, radius):
    """Distance along each horizontal ray to a vertical circle's boundary (nan if it misses)."""
    oc = origin[:2] - centre[:2]
    b = directions[:, :2] @ oc
    c = oc @ oc - radius**2
    disc = b * b - c
    return np.where(disc >= 0.0, -b - np.sqrt(np.maximum(disc, 0.0)), np.nan)


@pytest.mark.parametrize('moving', [False, True])
def test_off_axis_hits_lie_between_the_true_and_the_inscribed_circle(moving):
    twist = {'angular': (0, 0, 1e-9)} if moving else {}
    world = world_of(reference_cylinder(), states=(placed('target', [2.1, 3.0, 1.0], **twist),))
    yaw = np.linspace(-0.12, 0.12, 241)  # the cylinder subtends +/-0.1244 rad
    directions = np.column_stack((-np.sin(yaw), np.cos(yaw), np.zeros_like(yaw)))
    hits = Raycaster(world).cast(SONAR, directions)
    centre = np.array([2.1, 3.0])
    outer = _circle_range(SONAR, directions, centre, 0.25)
    inner = _circle_range(SONAR, directions, centre, 0.25 - cylinder_faceting_error(0.25, 64))
    assert np.all(hits.hit)
    assert np.all(hits.ranges >= outer - 1e-6)
    on_inner = np.isfinite(inner)
    assert on_inner.sum() > 200
    assert np.all(hits.ranges[on_inner] <= inner[on_inner] + 1e-6)
    # incidence: facet normals are within pi/n of the circle's normal at the hit
    points = SONAR + hits.ranges[:, None] * directions
    radial = unit(np.column_stack((points[:, :2] - centre, np.zeros(len(yaw)))))
    analytic = np.abs(np.einsum('ij,ij->i', directions, radial))
    angle_error = np.abs(
        np.arccos(np.clip(hits.cos_incidence, 0, 1)) - np.arccos(np.clip(analytic, 0, 1))
    )
    assert angle_error.max() <= math.pi / 64 + 1e-6


def test_incidence_cosine_on_an_oblique_plate_is_analytic():
    tilt = 0.4  # plate normal in the x-y plane at angle 0.4 rad from -x
    plate = Entity('plate', box_triangles([0.01, 4.0, 4.0]), reflectivity=0.5)
    world = world_of(plate, states=(placed('plate', [3.0, 0.0, 0.0], [0.0, 0.0, tilt]),))
    yaw = np.linspace(-0.3, 0.3, 13)
    directions = np.column_stack((np.cos(yaw), np.sin(yaw), np.zeros_like(yaw)))
    hits = Raycaster(world).cast(np.zeros(3), directions)
    normal = np.array([math.cos(tilt), math.sin(tilt), 0.0])
    np.testing.assert_allclose(hits.cos_incidence, np.abs(directions @ normal), atol=1e-6)
    np.testing.assert_allclose(np.abs(hits.normals @ normal), 1.0, atol=1e-6)
    # the near face is the plane n.x = 3 cos(tilt) - 0.005
    np.testing.assert_allclose(
        hits.ranges, (3.0 * math.cos(tilt) - 0.005) / (directions @ normal), rtol=1e-6
    )


def test_reflectivity_and_entity_index_per_entity():
    world = world_of(
        Entity('near', box_triangles([1, 1, 1]), reflectivity=0.1),
        Entity('far', box_triangles([1, 1, 1]), reflectivity=0.9),
        Entity('mover', box_triangles([1, 1, 1]), reflectivity=0.4),
        states=(
            placed('near', [2, 0, 0]),
            placed('far', [0, 3, 0]),
            placed('mover', [0, 0, 4], linear=(1, 0, 0)),
        ),
    )
    caster = Raycaster(world)
    assert caster.entity_names == ('near', 'far', 'mover')
    hits = caster.cast(np.zeros(3), np.eye(3))
    assert hits.entity.tolist() == [0, 1, 2]
    assert hits.reflectivity.tolist() == [0.1, 0.9, 0.4]
    assert hits.ranges == pytest.approx([1.5, 2.5, 3.5], rel=F32)


def test_per_triangle_reflectivity_within_an_entity():
    mesh = Triangles.concatenate(
        [
            box_triangles([1, 1, 1]).transformed(transform_from_xyz_rpy([2, 0, 0], [0, 0, 0])),
            box_triangles([1, 1, 1]).transformed(transform_from_xyz_rpy([-2, 0, 0], [0, 0, 0])),
        ]
    )
    mu = np.r_[np.full(12, 0.2), np.full(12, 0.7)]
    hits = Raycaster(world_of(Entity('pair', mesh, mu))).cast(
        np.zeros(3), [[1.0, 0, 0], [-1.0, 0, 0]]
    )
    assert hits.reflectivity.tolist() == [0.2, 0.7]


def test_moving_entity_pose_at_time_t_follows_its_twist():
    omega, speed = 0.3, 0.5
    plate = Entity('plate', box_triangles([0.01, 4.0, 4.0]))
    # starts at x = 3 at t = 10 s, moves along +x and turns about z (about its own origin)
    world = world_of(
        plate,
        states=(placed('plate', [3, 0, 0], linear=(speed, 0, 0), angular=(0, 0, omega)),),
        time_stamp=10.0,
    )
    caster = Raycaster(world)
    assert caster.time == 10.0
    assert caster.cast(np.zeros(3), [1.0, 0, 0]).ranges[0] == pytest.approx(2.995, abs=1e-6)
    for t in (10.5, 11.0, 12.0):
        caster.set_time(t)
        dt = t - 10.0
        hits = caster.cast(np.zeros(3), [1.0, 0, 0])
        angle = omega * dt
        assert hits.ranges[0] == pytest.approx(
            3.0 + speed * dt - 0.005 / math.cos(angle), abs=1e-5
        )
        assert hits.cos_incidence[0] == pytest.approx(math.cos(angle), abs=1e-6)
        np.testing.assert_allclose(
            caster.entity_pose('plate'),
            transform_from_xyz_rpy([3 + speed * dt, 0, 0], [0, 0, angle]),
            atol=1e-12,
        )


def test_entity_parented_to_a_link_of_a_moving_entity():
    # link 'arm' -> vehicle frame
    arm = transform_from_xyz_rpy([0.0, 1.0, 0.0], [0.0, 0.0, math.pi / 2])
    vehicle = Entity(
        'vehicle', box_triangles([0.2, 0.2, 0.2]), links={'base': np.eye(4), 'arm': arm}
    )
    tag = Entity('tag', box_triangles([0.1, 0.1, 0.1]), reflectivity=0.8)
    states = (
        placed('vehicle', [0, 0, 0], linear=(1.0, 0, 0), angular=(0, 0, math.pi / 4)),
        placed('tag', [1.0, 0.0, 0.0], frame='vehicle::arm'),  # 1 m along the arm's x
    )
    world = world_of(vehicle, tag, states=states)
    caster = Raycaster(world)
    # at t = 0: the arm's x is the vehicle's y, so the tag is at (0, 2, 0)
    np.testing.assert_allclose(caster.entity_pose('tag')[:3, 3], [0, 2, 0], atol=1e-12)
    caster.set_time(2.0)  # vehicle at (2, 0, 0), turned by pi/2: its y is the world's -x
    np.testing.assert_allclose(caster.entity_pose('tag')[:3, 3], [0, 0, 0], atol=1e-12)
    hits = caster.cast([0.0, 0.0, 5.0], [0.0, 0.0, -1.0])
    assert hits.entity[0] == 1
    assert hits.ranges[0] == pytest.approx(4.95, abs=1e-6)
    assert world.moving().tolist() == [True, True]


def test_set_entity_pose_moves_a_static_entity_and_its_children():
    states = (placed('base', [5, 0, 0]), placed('child', [0, 0, 2], frame='base'))
    world = world_of(
        Entity('base', box_triangles([1, 1, 1])),
        Entity('child', box_triangles([1, 1, 1])),
        Entity('wall', box_triangles([1, 1, 1])),
        states=(*states, placed('wall', [-5, 0, 0])),
    )
    caster = Raycaster(world)
    up = [[0, 0, 0], [0, 0, 2]]
    assert caster.cast(up, [[1.0, 0, 0]] * 2).ranges == pytest.approx([4.5, 4.5], rel=F32)
    caster.set_entity_pose('base', transform_from_xyz_rpy([7, 0, 0], [0, 0, 0]))
    hits = caster.cast(up, [[1.0, 0, 0]] * 2)
    assert hits.ranges == pytest.approx([6.5, 6.5], rel=F32)
    assert hits.entity.tolist() == [0, 1]
    # the rest stays
    assert caster.cast(np.zeros(3), [-1.0, 0, 0]).ranges == pytest.approx([4.5], rel=F32)
    caster.set_time(100.0)  # the set pose holds over time
    assert caster.cast(up, [[1.0, 0, 0]] * 2).ranges == pytest.approx([6.5, 6.5], rel=F32)


def test_entities_read_after_the_world_changed_are_those_of_the_cast():
    """``RayHits.entity`` and ``retro`` are looked up when first read: still the cast's.

    Moving a static entity rebuilds the raycaster's tables (``set_entity_pose``); hits cast
    before it, read after it, report what those rays met: 'near' (retro 0.25) and a miss.
    """
    world = world_of(
        Entity('near', box_triangles([1, 1, 1]), reflectivity=0.1, retro=0.25),
        Entity('far', box_triangles([1, 1, 1]), reflectivity=0.9, retro=0.75),
        states=(placed('near', [2, 0, 0]), placed('far', [0, 3, 0])),
    )
    caster = Raycaster(world)
    before = caster.cast(np.zeros(3), [[1.0, 0, 0], [0, 0, 1.0]])
    caster.set_entity_pose('far', transform_from_xyz_rpy([0, 0, 3], [0, 0, 0]))
    caster.set_entity_pose('near', transform_from_xyz_rpy([-9, 0, 0], [0, 0, 0]))
    after = caster.cast(np.zeros(3), [[1.0, 0, 0], [0, 0, 1.0]])
    assert before.entity.tolist() == [0, -1]
    np.testing.assert_array_equal(before.retro, [0.25, np.nan])
    assert after.entity.tolist() == [-1, 1]
    np.testing.assert_array_equal(after.retro, [np.nan, 0.75])
    assert before.hit.tolist() == [True, False]


def test_set_entity_pose_overrides_a_twist():
    world = world_of(
        Entity('box', box_triangles([1, 1, 1])),
        states=(placed('box', [5, 0, 0], linear=(1, 0, 0)),),
    )
    caster = Raycaster(world, dynamic=('box',))
    caster.set_entity_pose('box', transform_from_xyz_rpy([3, 0, 0], [0, 0, 0]))
    caster.set_time(50.0)
    assert caster.cast(np.zeros(3), [1.0, 0, 0]).ranges == pytest.approx([2.5], rel=F32)


def _brute_force(world: World, poses: np.ndarray, origins: np.ndarray, directions: np.ndarray):
    """Nearest ray-triangle hit by Moller-Trumbore over all rays x all triangles (the oracle)."""
    tris = np.concatenate(
        [
            e.surface.transformed(p).vertices[e.surface.triangles]
            for e, p in zip(world.entities, poses, strict=True)
        ]
    )
    owner = np.concatenate([np.full(len(e.surface), i) for i, e in enumerate(world.entities)])
    a, e1, e2 = tris[:, 0], tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]
    p = np.cross(directions[:, None, :], e2[None])
    det = np.einsum('tk,rtk->rt', e1, p)
    s = origins[:, None, :] - a[None]
    inv = 1.0 / np.where(np.abs(det) > 1e-12, det, np.nan)
    u = np.einsum('rtk,rtk->rt', s, p) * inv
    q = np.cross(s, e1[None])
    v = np.einsum('rk,rtk->rt', directions, q) * inv
    t = np.einsum('tk,rtk->rt', e2, q) * inv
    ok = (u >= 0) & (v >= 0) & (u + v <= 1) & (t > 0)
    t = np.where(ok, t, np.inf)
    best = np.argmin(t, axis=1)
    ranges = t[np.arange(len(t)), best]
    return ranges, np.where(np.isfinite(ranges), owner[best], -1)


def test_random_rays_against_a_brute_force_oracle():
    rng = np.random.default_rng(2345)
    world = _oracle_world()
    caster = Raycaster(world)
    for t in (0.0, 0.7, 3.1):
        caster.set_time(t)
        origins = rng.uniform(-3, 3, (400, 3))
        directions = unit(rng.uniform(-1, 1, (400, 3)) - 0.3 * origins)
        hits = caster.cast(origins, directions)
        ranges, owner = _brute_force(world, world.poses(t), origins, directions)
        agree = np.isclose(hits.ranges, ranges, atol=1e-4) | (
            np.isinf(hits.ranges) & np.isinf(ranges)
        )
        assert agree.mean() > 0.99  # edge grazes may differ in float32
        assert np.all(
            hits.entity[agree & np.isfinite(ranges)] == owner[agree & np.isfinite(ranges)]
        )
        assert 50 < np.isfinite(ranges).sum() < 400
        assert np.all(hits.reflectivity[hits.hit] == (hits.entity[hits.hit] + 1) / 10)


def test_many_random_rays_exercise_batching():
    # cast lots of random rays to test the internal batching; we expect no errors
    world = world_of(
        reference_cylinder(), states=(placed('target', [0, 0, 0], angular=(0, 0, 1)),)
    )
    rng = np.random.RandomState(123)
    hits = Raycaster(world).cast(
        rng.uniform(-2, 2, (100_000, 3)), unit(rng.normal(size=(100_000, 3)))
    )
    assert isinstance(hits, RayHits)
    assert np.all(hits.ranges[hits.hit] > 0)


def test_an_empty_world_misses_everything():
    hits = Raycaster(world_of()).cast(np.zeros(3), np.eye(3))
    assert np.all(np.isinf(hits.ranges))
    assert hits.entity.tolist() == [-1, -1, -1]


@pytest.mark.parametrize(
    ('origins', 'directions', 'match'),
    [
        (np.zeros((2, 3)), np.ones((3, 3)) / math.sqrt(3), 'expected origins'),
        (np.zeros(3), np.ones((2, 2)), 'expected origins'),
        (np.zeros(3), [[2.0, 0.0, 0.0]], 'unit vectors'),
        (np.zeros(3), [[math.nan, 0.0, 0.0]], 'finite'),
    ],
)
def test_bad_rays_raise_value_error(origins, directions, match):
    caster = Raycaster(world_of(Entity('box', box_triangles([1, 1, 1]))))
    with pytest.raises(ValueError, match=match):
        caster.cast(origins, directions)


def test_set_entity_pose_checks_its_input():
    caster = Raycaster(world_of(Entity('box', box_triangles([1, 1, 1]))))
    with pytest.raises(KeyError, match='no entity named'):
        caster.set_entity_pose('nobody', np.eye(4))
    with pytest.raises(ValueError, match='rigid'):
        caster.set_entity_pose('box', np.diag([2.0, 1.0, 1.0, 1.0]))


def test_a_scene_state_update_moves_an_entity_from_its_own_time() -> None:
    from pathlib import Path

    from nps_sonar_py.scene import load_world

    world = load_world(
        Path(__file__).resolve().parents[2] / 'config' / 'worlds' / 'reference_tank.world'
    )
    raycaster = Raycaster(world)
    # At scene time 10 s the target is at (1.0, 3.0, 1.0) and moves at 0.2 m/s along +x.
    update = EntityState(
        model='target',
        origin=transform_from_xyz_rpy([1.0, 3.0, 1.0], [0, 0, 0]),
        linear=np.array([0.2, 0.0, 0.0]),
    )
    raycaster.set_entity_state(update, since=10.0)
    for t in (10.0, 15.0):
        raycaster.set_time(t)
        x = 1.0 + 0.2 * (t - 10.0)
        np.testing.assert_allclose(
            raycaster.entity_pose('target')[:3, 3], [x, 3.0, 1.0], atol=1e-12
        )
        # a ray along +y at the target's x meets its face at y = 3.0 - 0.25
        hits = raycaster.cast([x, 1.0, 1.0], [0.0, 1.0, 0.0])
        assert hits.ranges[0] == pytest.approx(1.75, abs=1e-5)
    with pytest.raises(ValueError, match='frame'):
        raycaster.set_entity_state(EntityState(model='target', frame='tank'), since=0.0)


def test_a_fixed_read_only_pattern_is_reused_and_a_changed_one_is_not():
    """The raycaster keeps the checked rays of a read-only pattern; anything else is rechecked."""
    world = world_of(
        Entity('box', box_triangles([1.0, 1.0, 1.0])), states=(placed('box', [5, 0, 0]),)
    )
    caster = Raycaster(world)
    directions = unit([[1.0, 0.0, 0.0], [1.0, 0.1, 0.0]])
    directions.flags.writeable = False
    first = caster.cast(np.zeros(3), directions)
    np.testing.assert_allclose(first.ranges, [4.5, 4.5 * math.hypot(1.0, 0.1)], rtol=F32)
    again = caster.cast(np.zeros(3), directions)
    np.testing.assert_array_equal(again.ranges, first.ranges)
    moved = caster.cast([1.0, 0.0, 0.0], directions)  # a new origin is a new pattern
    np.testing.assert_allclose(moved.ranges, [3.5, 3.5 * math.hypot(1.0, 0.1)], rtol=F32)
    writable = unit([[1.0, 0.0, 0.0]])
    assert caster.cast(np.zeros(3), writable).ranges[0] == pytest.approx(4.5, rel=F32)
    writable[0] = [0.0, 1.0, 0.0]  # changed in place: checked and cast anew
    assert np.isinf(caster.cast(np.zeros(3), writable).ranges[0])
    with pytest.raises(ValueError, match='unit vectors'):
        caster.cast(np.zeros(3), writable * 2.0)


def test_the_last_fixed_patterns_stay_prepared_while_other_casts_come_between():
    """Up to ``PATTERNS`` read-only patterns keep their checked rays, least recently cast out.

    A fan's fixed rays and its multipath casts (writable arrays) alternate each ping: the
    fan's must not be re-prepared. The prepared rays are the raycaster's own (``_checked``).
    """
    world = world_of(
        Entity('box', box_triangles([1.0, 1.0, 1.0])), states=(placed('box', [5, 0, 0]),)
    )
    caster = Raycaster(world)
    origin = np.zeros(3)
    origin.flags.writeable = False
    patterns = []
    for k in range(PATTERNS + 1):
        d = unit([[1.0, 0.01 * k, 0.0]])
        d.flags.writeable = False
        patterns.append(d)
    fan = caster._checked(origin, patterns[0])
    prepared = []
    for other in patterns[1:PATTERNS]:
        caster.cast(origin, unit([[1.0, 0.2, 0.0]]))  # writable: never cached
        prepared.append(caster._checked(origin, other))
        assert caster._checked(origin, patterns[0]) is fan
    assert caster._checked(origin, patterns[1]) is prepared[0]
    assert caster._checked(origin, patterns[0]) is fan
    # Patterns 2, 3, 1, 0 from least to most recent: one more pushes pattern 2 out.
    caster.cast(origin, patterns[PATTERNS])
    assert caster._checked(origin, patterns[0]) is fan
    assert caster._checked(origin, patterns[1]) is prepared[0]
    assert caster._checked(origin, patterns[2]) is not prepared[1]
    ranges = caster.cast(origin, patterns[PATTERNS]).ranges
    assert ranges[0] == pytest.approx(4.5 * math.hypot(1.0, 0.01 * PATTERNS), rel=F32)


def _oracle_world() -> World:
    """Static and moving entities, a moving one parented to another (the oracle's world)."""
    entities = [
        Entity('box', box_triangles([1.0, 2.0, 0.5]), 0.1),
        Entity('cyl', cylinder_triangles(0.5, 1.0, 16), 0.2),
        Entity('spinner', box_triangles([0.3, 1.5, 0.3]), 0.3),
        Entity('rider', cylinder_triangles(0.2, 0.4, 12), 0.4),
    ]
    states = (
        placed('box', [1, 0, 0], [0.1, 0.2, 0.3]),
        placed('cyl', [-1, 1, 0.5], [0.5, 0, 0]),
        placed('spinner', [0, -1, 0], linear=(0.1, 0.2, 0), angular=(0.2, -0.1, 0.7)),
        placed('rider', [0, 0, 1], frame='spinner', angular=(0, 1, 0)),
    )
    return world_of(*entities, states=states)


def test_the_trusted_block_gives_exactly_the_checked_hits():
    rng = np.random.default_rng(777)
    caster = Raycaster(_oracle_world())
    caster.set_time(0.7)
    block = np.empty((2000, 6), dtype=np.float32)
    block[:, :3] = rng.uniform(-3, 3, (2000, 3))
    block[:, 3:] = unit(rng.uniform(-1, 1, (2000, 3)) - 0.3 * block[:, :3])
    # The same float32 values, handed to the checked entry as float64.
    checked = caster.cast(block[:, :3].astype(np.float64), block[:, 3:].astype(np.float64))
    trusted = caster.cast_block(block)
    assert 300 < np.count_nonzero(checked.hit) < 2000
    assert set(checked.entity[checked.hit].tolist()) == {0, 1, 2, 3}  # static and moving
    for name in ('ranges', 'normals', 'cos_incidence', 'reflectivity', 'entity', 'retro'):
        a, b = getattr(checked, name), getattr(trusted, name)
        assert a.dtype == b.dtype
        assert np.array_equal(a, b, equal_nan=True), name


def test_the_trusted_block_meets_the_reference_cylinder_at_1_750_m():
    world = world_of(reference_cylinder(), states=(placed('target', [2.1, 3.0, 1.0]),))
    block = np.array([[*SONAR, 0.0, 1.0, 0.0]], dtype=np.float32)
    hits = Raycaster(world).cast_block(block)
    assert hits.ranges[0] == pytest.approx(1.75, rel=F32)
    assert hits.cos_incidence[0] == pytest.approx(math.cos(math.pi / 64), rel=1e-6)


@pytest.mark.parametrize(
    'block',
    [
        np.zeros((3, 6)),  # float64
        np.zeros((3, 3), dtype=np.float32),
        np.zeros((6, 3), dtype=np.float32).T,  # (3, 6) but not C-contiguous
        np.zeros(6, dtype=np.float32),
    ],
)
def test_the_trusted_block_refuses_a_wrong_layout(block):
    caster = Raycaster(world_of(Entity('box', box_triangles([1, 1, 1]))))
    with pytest.raises(ValueError, match='C-contiguous'):
        caster.cast_block(block)


@pytest.mark.parametrize(
    ('directions', 'match'),
    [([[math.nan, 0.0, 0.0]], 'finite'), ([[0.0, 0.0, 0.0]], 'unit vectors')],
)
def test_the_checked_entry_still_refuses_nan_and_zero_directions(directions, match):
    caster = Raycaster(world_of(Entity('box', box_triangles([1, 1, 1]))))
    caster.cast_block(np.array([[0, 0, 0, 1, 0, 0]], dtype=np.float32))
    with pytest.raises(ValueError, match=match):
        caster.cast(np.zeros(3), directions)
