"""Heightmaps are smooth-shaded: hits take interpolated vertex normals; meshes keep face normals.

The closed form: a heightmap sampled from ``z = a sin(k x)`` has, at a hit point ``(x, y, z)``,
the normal ``(-a k cos(k x), 0, 1)`` normalised. The face normal (the negative control) is off by
up to about ``a k^2 h / 2`` (the slope's change over half a cell of ``h``): O(h). The
interpolated vertex normals carry the central differences' slope error ``a k (k h)^2 / 6`` and
the linear interpolation's ``a k^3 h^2 / 8``: O(h^2). Halving the cells must halve the first and
quarter the second.
"""

from __future__ import annotations

import numpy as np

from nps_sonar_py.scene.heightmap import heightmap_triangles
from nps_sonar_py.scene.raycaster import Raycaster
from nps_sonar_py.scene.scene_state import EntityState, SceneState
from nps_sonar_py.scene.tessellation import Triangles, box_triangles
from nps_sonar_py.scene.world import Entity, World
from nps_sonar_py.transforms import transform_from_xyz_rpy

A, K = 0.5, 2.0 * np.pi / 8.0  # amplitude 0.5 m, wavelength 8 m
SIZE = (30.0, 20.0)  # 61 x 41 samples: 0.5 m cells
COLS, ROWS = 61, 41


def world_of(*entities: Entity, states: tuple[EntityState, ...] = ()) -> World:
    return World('test', entities, SceneState('test', 0.0, states))


def placed(name: str, xyz, rpy=(0.0, 0.0, 0.0), angular=(0.0, 0.0, 0.0)) -> EntityState:
    pose = transform_from_xyz_rpy(xyz, rpy)
    return EntityState(name, 'world', pose, np.zeros(3), np.array(angular, float))


def sine_heights(refine: int = 1) -> np.ndarray:
    """The surface sampled on 0.5 m cells, or cells ``refine`` times smaller."""
    cols, rows = (COLS - 1) * refine + 1, (ROWS - 1) * refine + 1
    x = np.linspace(-SIZE[0] / 2.0, SIZE[0] / 2.0, cols)
    return np.broadcast_to(A * np.sin(K * x), (rows, cols)).copy()


def analytic_normal(x: np.ndarray) -> np.ndarray:
    n = np.column_stack([-A * K * np.cos(K * x), np.zeros_like(x), np.ones_like(x)])
    return n / np.linalg.norm(n, axis=1, keepdims=True)


def flat_shaded(t: Triangles) -> Triangles:
    """The same triangles without vertex normals: the face-normal model."""
    return Triangles(t.vertices, t.triangles, t.uvs)


def oblique_rays(n: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    """Rays from 2 m above, down at 20-55 degrees from vertical, hitting 4 m or more inside.

    The edges' one-sided differences are left out of the closed-form comparison.
    """
    rng = np.random.default_rng(7)
    x = rng.uniform(-8.0, 8.0, n)
    y = rng.uniform(-4.0, 4.0, n)
    tilt = rng.uniform(np.radians(20.0), np.radians(55.0), n)
    azimuth = rng.uniform(0.0, 2.0 * np.pi, n)
    d = np.column_stack(
        [np.sin(tilt) * np.cos(azimuth), np.sin(tilt) * np.sin(azimuth), -np.cos(tilt)]
    )
    return np.column_stack([x, y, np.full(n, 2.0)]), d


def angle_errors(hits, origins, directions, pose=None) -> np.ndarray:
    """Angles (rad) between the normals of the hits and the analytic normal at their points.

    ``pose`` places the heightmap (entity -> world); rays that miss are left out.
    """
    pose = np.eye(4) if pose is None else pose
    hit = np.isfinite(hits.ranges)
    points = origins[hit] + hits.ranges[hit, None].astype(np.float64) * directions[hit]
    to_entity = np.linalg.inv(pose)
    local = points @ to_entity[:3, :3].T + to_entity[:3, 3]
    expected = analytic_normal(local[:, 0]) @ pose[:3, :3].T
    cos = np.abs(np.einsum('ij,ij->i', hits.normals[hit].astype(np.float64), expected))
    return np.arccos(np.clip(cos, -1.0, 1.0))


def errors(refine: int) -> tuple[np.ndarray, np.ndarray, object, object]:
    """Angle errors of the smooth and the face normals, and both hits, on the sine surface."""
    surface = heightmap_triangles(sine_heights(refine), SIZE)
    o, d = oblique_rays()
    smooth = Raycaster(world_of(Entity('seabed', surface))).cast(o, d)
    faceted = Raycaster(world_of(Entity('seabed', flat_shaded(surface)))).cast(o, d)
    return angle_errors(smooth, o, d), angle_errors(faceted, o, d), smooth, faceted


def test_sine_heightmap_hits_take_the_analytic_normal_the_face_normal_does_not():
    smooth_error, face_error, smooth, faceted = errors(1)
    _, d = oblique_rays()
    # Face normals (negative control), h = 0.5 m: a k^2 h / 2 = 0.049 rad plus the slope's
    # own error; 0.076 rad measured at most, 0.024 rad on average.
    assert face_error.max() > 0.06
    assert face_error.mean() > 0.02
    # Interpolated vertex normals: 0.0055 + 0.0076 = 0.013 rad; 0.015 measured at most.
    assert smooth_error.max() < 0.02
    assert smooth_error.mean() < face_error.mean() / 2.0
    # Same geometry, same ranges: only the normals change.
    np.testing.assert_array_equal(smooth.ranges, faceted.ranges)
    np.testing.assert_allclose(np.linalg.norm(smooth.normals, axis=1), 1.0, atol=1e-6)
    cos = np.abs(np.einsum('ij,ij->i', d, smooth.normals))
    np.testing.assert_allclose(smooth.cos_incidence, cos, atol=1e-6)


def test_smooth_normals_converge_as_h_squared_face_normals_as_h():
    smooth_1, face_1, _, _ = errors(1)
    smooth_2, face_2, _, _ = errors(2)
    assert smooth_1.max() / smooth_2.max() > 3.5  # about 4
    assert 1.6 < face_1.max() / face_2.max() < 2.5  # about 2
    assert smooth_2.max() < face_2.max() / 5.0


def test_placed_and_moving_heightmaps_are_smooth_shaded_in_the_world_frame():
    surface = heightmap_triangles(sine_heights(), SIZE)
    o, d = oblique_rays()
    xyz, rpy = [0.5, -0.3, -0.4], [0.15, -0.1, 0.6]
    pose = transform_from_xyz_rpy(xyz, rpy)
    for angular in ((0.0, 0.0, 0.0), (0.0, 0.0, 1e-9)):  # static, then in its own scene
        world = world_of(Entity('seabed', surface), states=(placed('seabed', xyz, rpy, angular),))
        caster = Raycaster(world)
        assert caster.moving_entities == (('seabed',) if angular[2] else ())
        hits = caster.cast(o, d)
        assert np.isfinite(hits.ranges).mean() > 0.9
        assert angle_errors(hits, o, d, pose).max() < 0.02
        faceted = Raycaster(world_of(Entity('seabed', flat_shaded(surface)), states=world.states))
        assert angle_errors(faceted.cast(o, d), o, d, pose).max() > 0.06  # negative control


def test_flat_heightmap_normals_are_exactly_up_as_before():
    surface = heightmap_triangles(np.zeros((11, 13)), (40.0, 30.0), (0.0, 0.0, -5.0))
    o, d = oblique_rays()
    hits = Raycaster(world_of(Entity('seabed', surface))).cast(o, d)
    faceted = Raycaster(world_of(Entity('seabed', flat_shaded(surface)))).cast(o, d)
    np.testing.assert_array_equal(hits.normals, np.tile([0.0, 0.0, 1.0], (len(d), 1)))
    np.testing.assert_array_equal(hits.normals, faceted.normals)
    np.testing.assert_array_equal(hits.cos_incidence, faceted.cos_incidence)


def test_a_box_keeps_its_face_normals_bit_for_bit_beside_a_heightmap():
    box = Entity('box', box_triangles([1.0, 1.0, 1.0]))
    seabed = Entity('seabed', heightmap_triangles(sine_heights(), SIZE, (0.0, 0.0, -3.0)))
    states = (placed('box', [0.3, 0.2, 0.0], [0.2, 0.3, 0.4]),)
    rng = np.random.default_rng(3)
    o = np.array([[0.3, 0.2, 4.0]])
    d = np.array([0.3, 0.2, 0.0]) + rng.uniform(-1.5, 1.5, (3000, 3)) - o  # half at the box
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    alone = Raycaster(world_of(box, states=states)).cast(o, d)
    both = Raycaster(world_of(box, seabed, states=states)).cast(o, d)
    on_box = np.asarray(both.entity) == 0
    assert on_box.sum() > 100
    assert (np.asarray(both.entity) == 1).sum() > 100
    np.testing.assert_array_equal(both.normals[on_box], alone.normals[on_box])
    np.testing.assert_array_equal(both.cos_incidence[on_box], alone.cos_incidence[on_box])


def test_a_box_part_of_a_heightmap_model_keeps_its_face_normals():
    box = box_triangles([1.0, 1.0, 1.0]).transformed(
        transform_from_xyz_rpy([0, 0, 1.0], [0, 0, 0])
    )
    model = Triangles.concatenate([heightmap_triangles(sine_heights(), SIZE), box])
    assert model.vertex_normals is not None
    d = np.array([[0.0, 0.0, -1.0], [0.6, 0.0, -0.8]])
    hits = Raycaster(world_of(Entity('m', model))).cast([[0.1, 0.1, 5.0]], d)
    np.testing.assert_array_equal(hits.normals[0], [0.0, 0.0, 1.0])  # the box's top
    assert abs(hits.ranges[0] - 3.5) < 1e-5
