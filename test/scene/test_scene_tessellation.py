"""Primitives to triangles: counts, exact vertices, closed outward-wound surfaces, faceting."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nps_sonar_py.scene.tessellation import (
    SPHERE_FACETING_ERROR,
    Triangles,
    box_triangles,
    cylinder_faceting_error,
    cylinder_triangles,
    sphere_triangles,
)
from nps_sonar_py.transforms import transform_from_xyz_rpy


def assert_closed_and_consistent(mesh: Triangles) -> None:
    """Each directed edge appears once, and its reverse once: closed, consistently wound."""
    t = mesh.triangles
    directed = t[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2)
    as_set = {tuple(e) for e in directed.tolist()}
    assert len(as_set) == directed.shape[0]
    assert {(b, a) for a, b in as_set} == as_set


def signed_volume(mesh: Triangles) -> float:
    a, b, c = (mesh.vertices[mesh.triangles[:, i]] for i in range(3))
    return float(np.einsum('ij,ij->i', a, np.cross(b, c)).sum() / 6.0)


def assert_outward(mesh: Triangles, centre: np.ndarray) -> None:
    """For a convex mesh: each normal points away from the centre."""
    centroids = mesh.vertices[mesh.triangles].mean(axis=1)
    assert np.all(np.einsum('ij,ij->i', mesh.normals(), centroids - centre) > 0.0)


def test_box_is_twelve_outward_triangles_with_the_right_volume():
    mesh = box_triangles([1.0, 2.0, 3.0])
    assert len(mesh) == 12
    assert mesh.vertices.shape == (8, 3)
    np.testing.assert_array_equal(np.abs(mesh.vertices), np.tile([0.5, 1.0, 1.5], (8, 1)))
    assert_closed_and_consistent(mesh)
    assert_outward(mesh, np.zeros(3))
    assert signed_volume(mesh) == pytest.approx(6.0, rel=1e-12)
    # every normal is an axis direction
    assert np.allclose(np.sort(np.abs(mesh.normals()), axis=1), [0.0, 0.0, 1.0])


@pytest.mark.parametrize('segments', [3, 4, 7, 64])
def test_cylinder_counts_vertices_at_two_pi_k_over_n_and_outward(segments):
    mesh = cylinder_triangles(0.25, 1.0, segments)
    assert len(mesh) == 4 * segments
    rim = mesh.vertices[:segments]
    angle = 2.0 * math.pi * np.arange(segments) / segments
    np.testing.assert_allclose(
        rim[:, :2], 0.25 * np.column_stack((np.cos(angle), np.sin(angle))), atol=1e-15
    )
    np.testing.assert_array_equal(rim[:, 2], -0.5)
    np.testing.assert_array_equal(mesh.vertices[segments : 2 * segments, 2], 0.5)
    assert_closed_and_consistent(mesh)
    assert_outward(mesh, np.zeros(3))
    polygon_area = 0.5 * segments * 0.25**2 * math.sin(2.0 * math.pi / segments)
    assert signed_volume(mesh) == pytest.approx(polygon_area * 1.0, rel=1e-12)


def test_cylinder_quadrant_vertices_are_exact_when_n_is_a_multiple_of_four():
    mesh = cylinder_triangles(0.25, 1.0, 64)
    # k = 0, 16, 32, 48 lie exactly on +x, +y, -x, -y: no 1e-17 residue
    np.testing.assert_array_equal(
        mesh.vertices[[0, 16, 32, 48], :2], [[0.25, 0], [0, 0.25], [-0.25, 0], [0, -0.25]]
    )


@pytest.mark.parametrize('segments', [8, 64, 100])
def test_cylinder_faceting_error_is_the_depth_of_the_flat_sides(segments):
    mesh = cylinder_triangles(2.0, 1.0, segments)
    side = mesh.normals()[: 2 * segments]
    a = mesh.vertices[mesh.triangles[: 2 * segments, 0]]
    depth = 2.0 - np.einsum('ij,ij->i', side, a)  # radius minus the plane's distance from the axis
    assert depth.max() == pytest.approx(cylinder_faceting_error(2.0, segments), rel=1e-9)
    assert cylinder_faceting_error(0.25, 64) == pytest.approx(0.25 * (1 - math.cos(math.pi / 64)))


@pytest.mark.parametrize('subdivisions', range(6))
def test_icosphere_counts_radius_and_documented_faceting_error(subdivisions):
    mesh = sphere_triangles(1.5, subdivisions)
    assert len(mesh) == 20 * 4**subdivisions
    assert mesh.vertices.shape[0] == 10 * 4**subdivisions + 2
    np.testing.assert_allclose(np.linalg.norm(mesh.vertices, axis=1), 1.5, rtol=1e-14)
    assert_closed_and_consistent(mesh)
    assert_outward(mesh, np.zeros(3))
    plane = np.einsum('ij,ij->i', mesh.normals(), mesh.vertices[mesh.triangles[:, 0]])
    assert 1.0 - plane.min() / 1.5 == pytest.approx(SPHERE_FACETING_ERROR[subdivisions], rel=2e-3)


def test_mirroring_transform_keeps_the_winding_outward():
    mirrored = box_triangles([1.0, 2.0, 3.0]).scaled([-1.0, 1.0, 1.0])
    assert_outward(mirrored, np.zeros(3))
    assert signed_volume(mirrored) == pytest.approx(6.0)
    moved = cylinder_triangles(1.0, 2.0, 16).transformed(
        transform_from_xyz_rpy([1, 2, 3], [0.1, 0.2, 0.3])
    )
    assert_outward(moved, np.array([1.0, 2.0, 3.0]))


def test_concatenate_offsets_indices():
    a, b = box_triangles([1, 1, 1]), sphere_triangles(1.0, 0)
    both = Triangles.concatenate([a, b])
    assert len(both) == 32
    np.testing.assert_array_equal(both.vertices[both.triangles[12:]], b.vertices[b.triangles])
    assert len(Triangles.concatenate([])) == 0


@pytest.mark.parametrize(
    ('build', 'match'),
    [
        (lambda: box_triangles([1.0, -1.0, 1.0]), 'box size'),
        (lambda: box_triangles([1.0, math.nan, 1.0]), 'box size'),
        (lambda: cylinder_triangles(-0.1, 1.0), 'cylinder radius'),
        (lambda: cylinder_triangles(0.1, math.inf), 'cylinder length'),
        (lambda: cylinder_triangles(0.1, 1.0, 2), 'at least 3 segments'),
        (lambda: sphere_triangles(-1.0), 'sphere radius'),
        (lambda: sphere_triangles(1.0, 9), 'subdivisions'),
    ],
)
def test_bad_sizes_raise_value_error(build, match):
    with pytest.raises(ValueError, match=match):
        build()
