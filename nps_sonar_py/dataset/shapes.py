"""Procedural meshes of the things real sonar datasets hold, built in numpy (no mesh files).

Drums, chains, cages, crab traps, propellers, a body-sized effigy and debris pieces, each a
union of closed surfaces (every edge shared by two triangles; parts may pass through each
other, as a cage's bars through its frame), in its own frame with x along its length and z
up. ``dataset/objects.py`` puts each on its base. The sizes are those of the object's
axis-aligned box, given in ``docs/datasets.md`` per kind:

* drum: upright cylinder, ``2 radius`` x ``2 radius`` x ``height``;
* chain: round links of outer size ``link`` alternately flat and on edge, each through the
  next, ``link`` wide and tall, as long as the whole links that fit in ``length``;
* cage: a box frame of square bars ``bar`` thick with upright bars about every 0.1 m on its
  sides, ``length`` x ``width`` x ``height``;
* crab_trap: a round pot: two hoops and 16 upright bars of radius ``bar``, ``2 radius`` across,
  ``height`` tall;
* propeller: a hub and ``blades`` (rounded) pitched elliptic blades lying flat,
  ``diameter`` across the blade tips, ``0.15 diameter`` tall at the hub;
* effigy: a body lying on its back (head, trunk, arms, legs), ``length`` x ``0.33 length``
  x ``0.13 length``;
* debris: a convex fragment (the hull of 14 points drawn from ``shape``), ``length`` x
  ``width`` x ``height``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.spatial import ConvexHull

from nps_sonar_py.scene import (
    Triangles,
    box_triangles,
    capsule_triangles,
    cylinder_triangles,
    ellipsoid_triangles,
    sphere_triangles,
)
from nps_sonar_py.transforms import transform_from_xyz_rpy

__all__ = ['SHAPES', 'fitted', 'grid_triangles', 'torus_triangles']

_SEGMENTS = 32


def grid_triangles(rows: int, cols: int, closed_cols: bool) -> NDArray[np.int64]:
    """Two triangles per cell of a (rows, cols) vertex grid; columns wrap if ``closed_cols``."""
    i, j = np.meshgrid(
        np.arange(rows - 1), np.arange(cols if closed_cols else cols - 1), indexing='ij'
    )
    j1 = (j + 1) % cols
    a, b, c, d = i * cols + j, (i + 1) * cols + j, (i + 1) * cols + j1, i * cols + j1
    first = np.stack([a, b, c], axis=-1).reshape(-1, 3)
    second = np.stack([a, c, d], axis=-1).reshape(-1, 3)
    return np.concatenate([first, second]).astype(np.int64)


def torus_triangles(radius: float, tube: float, segments: int = _SEGMENTS) -> Triangles:
    """A torus about +z (a tyre lying flat): ``radius`` to the tube's axis, ``tube`` its radius."""
    around_z = np.linspace(0.0, 2.0 * math.pi, segments, endpoint=False)
    around_tube = np.linspace(0.0, 2.0 * math.pi, max(8, segments // 2), endpoint=False)
    tube_angle, z_angle = np.meshgrid(around_tube, around_z, indexing='ij')  # (rows, columns)
    ring = radius + tube * np.cos(tube_angle)
    vertices = np.stack(
        [ring * np.cos(z_angle), ring * np.sin(z_angle), tube * np.sin(tube_angle)], axis=-1
    )
    rows, cols = tube_angle.shape
    triangles = grid_triangles(rows + 1, cols, closed_cols=True)
    # Close the tube: row `rows` is row 0 again.
    triangles = np.where(triangles >= rows * cols, triangles - rows * cols, triangles)
    # The grid's order winds inward here (the tube's angle runs before the ring's): reversed.
    return Triangles(vertices.reshape(-1, 3), np.ascontiguousarray(triangles[:, ::-1]))


def _at(mesh: Triangles, xyz: Any, rpy: Any = (0.0, 0.0, 0.0)) -> Triangles:
    return mesh.transformed(transform_from_xyz_rpy(list(xyz), list(rpy)))


def fitted(mesh: Triangles, size: Any) -> Triangles:
    """``mesh`` scaled per axis so that its axis-aligned box is ``size`` (x, y, z), centred."""
    low, high = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    centred = _at(mesh, -(low + high) / 2.0)
    return centred.scaled(np.asarray(size, dtype=np.float64) / (high - low))


def drum(item: dict[str, Any]) -> Triangles:
    """An upright drum (an oil drum): a capped cylinder."""
    return cylinder_triangles(item['radius'], item['height'], _SEGMENTS)


def chain(item: dict[str, Any]) -> Triangles:
    """Round links along x, each through the next: flat, on edge, flat, ...

    Link ``k`` is a torus of axis radius ``R = link / 2.3`` and tube ``0.15 R`` whose centre is
    ``1.55 R`` from the next one's: the nearest tubes are ``0.15 R`` apart, not touching.
    """
    link = item['link']
    radius = link / 2.3
    tube, pitch = 0.15 * radius, 1.55 * radius
    links = max(1, math.floor((item['length'] - link) / pitch) + 1)
    ring = torus_triangles(radius, tube, 24)
    parts = [
        _at(ring, (k * pitch, 0.0, 0.0), (math.pi / 2 if k % 2 else 0.0, 0.0, 0.0))
        for k in range(links)
    ]
    return Triangles.concatenate(parts)


def cage(item: dict[str, Any]) -> Triangles:
    """A box frame (12 bars) with upright bars about every 0.1 m along its four sides."""
    size = np.array([item['length'], item['width'], item['height']])
    bar = min(item['bar'], 0.25 * float(size.min()))
    half = size / 2.0 - bar / 2.0  # bar centres, flush with the outer faces
    parts = []
    for axis in range(3):
        others = [a for a in range(3) if a != axis]
        extent = np.full(3, bar)
        extent[axis] = size[axis]
        for s0 in (-1.0, 1.0):
            for s1 in (-1.0, 1.0):
                centre = np.zeros(3)
                centre[others[0]], centre[others[1]] = s0 * half[others[0]], s1 * half[others[1]]
                parts.append(_at(box_triangles(extent), centre))
    upright = box_triangles([bar, bar, size[2]])
    for axis in (0, 1):  # bars along the sides parallel to x, then to y
        n = max(0, math.ceil(size[axis] / 0.1) - 1)
        for t in np.linspace(-half[axis], half[axis], n + 2)[1:-1]:
            for side in (-1.0, 1.0):
                centre = np.zeros(3)
                centre[axis], centre[1 - axis] = t, side * half[1 - axis]
                parts.append(_at(upright, centre))
    return Triangles.concatenate(parts)


def crab_trap(item: dict[str, Any]) -> Triangles:
    """A round pot: a hoop at the bottom and the top, 16 upright bars round the rim."""
    radius, height = item['radius'], item['height']
    bar = min(item['bar'], 0.1 * radius, 0.25 * height)
    hoop = torus_triangles(radius - bar, bar, _SEGMENTS)
    parts = [_at(hoop, (0.0, 0.0, -0.5 * height + bar)), _at(hoop, (0.0, 0.0, 0.5 * height - bar))]
    upright = cylinder_triangles(bar, height, 8)
    for angle in np.arange(16) * (2.0 * math.pi / 16):
        rim = radius - bar
        parts.append(_at(upright, (rim * math.cos(angle), rim * math.sin(angle), 0.0)))
    return Triangles.concatenate(parts)


def propeller(item: dict[str, Any]) -> Triangles:
    """A hub and elliptic blades pitched 35 degrees, lying flat, ``diameter`` across the tips."""
    d = item['diameter']
    blades = min(7, max(2, round(item['blades'])))
    parts = [cylinder_triangles(0.1 * d, 0.15 * d, _SEGMENTS)]
    blade = ellipsoid_triangles([0.2 * d, 0.1 * d, 0.012 * d], 2)
    for k in range(blades):
        angle = 2.0 * math.pi * k / blades
        pitched = _at(blade, (0.0, 0.0, 0.0), (math.radians(35.0), 0.0, 0.0))
        at = (0.3 * d * math.cos(angle), 0.3 * d * math.sin(angle), 0.0)
        parts.append(_at(pitched, at, (0.0, 0.0, angle)))
    mesh = Triangles.concatenate(parts)
    tip = float(np.max(np.hypot(mesh.vertices[:, 0], mesh.vertices[:, 1])))
    return mesh.scaled([0.5 * d / tip, 0.5 * d / tip, 1.0])  # the tips exactly on the circle


def effigy(item: dict[str, Any]) -> Triangles:
    """A body lying on its back along x, head at +x: ``length`` x 0.33 x 0.13 of it."""
    length = item['length']
    parts = [
        _at(sphere_triangles(0.065, 2), (0.43, 0.0, 0.065)),  # head
        _at(ellipsoid_triangles([0.17, 0.1, 0.065], 2), (0.2, 0.0, 0.065)),  # trunk
    ]
    leg = capsule_triangles(0.045, 0.46, 16)  # from the hip (x = 0.05) to the feet (x = -0.5)
    arm = capsule_triangles(0.035, 0.28, 16)  # from the shoulder (x = 0.33) to the hand
    for side in (-1.0, 1.0):
        parts.append(_at(leg, (-0.225, side * 0.055, 0.05), (0.0, math.pi / 2, 0.0)))
        parts.append(_at(arm, (0.155, side * 0.13, 0.05), (0.0, math.pi / 2, 0.0)))
    return fitted(Triangles.concatenate(parts), [length, 0.33 * length, 0.13 * length])


def debris(item: dict[str, Any]) -> Triangles:
    """A convex fragment: the hull of 14 points in a ball (drawn from ``shape``), fitted."""
    rng = np.random.default_rng(int(item['shape'] * 2**31))
    points = rng.standard_normal((14, 3))
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    points *= rng.uniform(0.6, 1.0, (14, 1))
    hull = ConvexHull(points)
    faces = hull.simplices.astype(np.int64)
    a, b, c = (points[faces[:, i]] for i in range(3))
    outward = np.einsum('ij,ij->i', np.cross(b - a, c - a), (a + b + c) / 3.0 - points.mean(0))
    faces = np.where((outward < 0.0)[:, None], faces[:, ::-1], faces)
    size = [item['length'], item['width'], item['height']]
    return fitted(Triangles(points, np.ascontiguousarray(faces)), size)


#: The builder of each kind of this module.
SHAPES: dict[str, Callable[[dict[str, Any]], Triangles]] = {
    'drum': drum,
    'chain': chain,
    'cage': cage,
    'crab_trap': crab_trap,
    'propeller': propeller,
    'effigy': effigy,
    'debris': debris,
}
