"""The square patches that tile a large triangle's fixed scatterers, in the triangle's plane.

A triangle of more than ``PATCH_SCATTERERS`` scatterers (a flat box's face) is tiled, in its
own plane from its first corner, by squares of ``PATCH_SCATTERERS`` scatterers each; every
square is two triangles (halves), each keyed by the triangle, the square's column and row
and the half, whose scatterers (``fixed_scatterers.surface_scatterers``) are clipped to the
triangle. Only the halves that may meet the triangle are drawn (separating axes). The keys
depend on the triangle's id and its plane only: the same patches wherever the entity stands.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

__all__ = [
    'PATCH_SCATTERERS',
    'cells_about',
    'halves',
    'inside',
    'patch_edge',
    'plane_axes',
]

#: Scatterers of a patch of a large triangle; a triangle with more is tiled by patches.
PATCH_SCATTERERS = 256
#: Most patches about the hits on one entity's large triangles in a ping, over 64.
_MAX_PATCHES = 1 << 20
#: Mixes a patch's (triangle, column, row) into a key no triangle id is likely to share.
_PATCH_SALT = np.uint64(0xD6E8FEB86659FD93)


def patch_edge(density: float) -> float:
    """The edge ``q`` of a square patch, m: ``q**2 rho = PATCH_SCATTERERS``."""
    return math.sqrt(PATCH_SCATTERERS / density)


def plane_axes(
    corners: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(k, 3) unit axes ``u`` along each triangle's first edge, ``w`` across it in its plane."""
    e1, e2 = corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]
    u = e1 / np.linalg.norm(e1, axis=1, keepdims=True)
    w = e2 - np.einsum('ij,ij->i', e2, u)[:, None] * u
    w /= np.linalg.norm(w, axis=1, keepdims=True)
    return u, w


def cells_about(
    plane: NDArray[np.int64], reach: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.intp]]:
    """The cells (c, 2) within ``reach`` (n,) patches of cells ``plane`` (n, 2), and whose.

    ``plane``: each point's cell, ``floor`` of its plane coordinates over ``q``; a square of
    ``2 reach + 1`` cells a side about each (repeated where squares overlap), with the row of
    ``plane`` each comes from.
    """
    if np.sum((2 * reach + 1) ** 2) > 64 * _MAX_PATCHES:
        raise ValueError(
            f'scatterer_density: needs too many patches of {PATCH_SCATTERERS} scatterers on '
            'one lit surface; a lower density'
        )
    cells, source = [], []
    for k in np.unique(reach):  # a few reaches: the points grouped by theirs
        steps = np.arange(-k, k + 1)
        square = np.stack(np.meshgrid(steps, steps, indexing='ij'), axis=-1).reshape(-1, 2)
        rows = np.flatnonzero(reach == k)
        cells.append((plane[rows][:, None, :] + square[None, :, :]).reshape(-1, 2))
        source.append(np.repeat(rows, square.shape[0]))
    return np.concatenate(cells), np.concatenate(source)


def halves(
    corners: NDArray[np.float64], tri_id: int, cells: NDArray[np.int64], q: float
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.intp]]:
    """The halves of squares ``cells`` (c, 2) of triangle ``corners`` (3, 3) that may meet it.

    Their corners (h, 3, 3), keys (h,) and cells (h,: rows of ``cells``), cell by cell, the
    first half then the second.
    """
    origin, e1, e2 = corners[0], corners[1] - corners[0], corners[2] - corners[0]
    u, w = (axis[0] for axis in plane_axes(corners[None]))
    i, j = cells[:, 0], cells[:, 1]
    base = origin + (i[:, None] * q) * u + (j[:, None] * q) * w  # each patch's corner
    a, b, c = base + q * u, base + q * u + q * w, base + q * w
    squares = np.stack([np.stack([base, a, b], 1), np.stack([base, b, c], 1)], 1).reshape(-1, 3, 3)
    # The same halves in the plane's (u, w), and the triangle: only those that may meet it.
    p0 = np.stack([i * q, j * q], axis=1).astype(np.float64)
    pa, pb, pc = (p0 + np.array(step) for step in ((q, 0.0), (q, q), (0.0, q)))
    flat_halves = np.stack([np.stack([p0, pa, pb], 1), np.stack([p0, pb, pc], 1)], 1)
    flat = np.array([[0.0, 0.0], [e1 @ u, 0.0], [e2 @ u, e2 @ w]])
    meets = np.flatnonzero(_overlaps(flat_halves.reshape(-1, 3, 2), flat))
    with np.errstate(over='ignore'):
        key = (np.uint64(tri_id) * _PATCH_SALT) ^ (
            (i.astype(np.uint64) << np.uint64(32)) + (j.astype(np.uint64) & np.uint64(0xFFFFFFFF))
        )
        keys = np.stack([key, key ^ np.uint64(1)], 1).ravel().view(np.int64)
    return squares[meets], keys[meets], meets // 2


def _overlaps(halves: NDArray[np.float64], flat: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Which triangles ``halves`` (n, 3, 2) may meet triangle ``flat`` (3, 2), all in a plane.

    Separating axes (both counter-clockwise): the outward normal of each edge of either; a
    half wholly beyond one holds none of the triangle's scatterers. A margin of a millionth
    of the halves' size keeps those touching an edge.
    """
    margin = 1e-6 * float(np.abs(halves[0, 1] - halves[0, 0]).max())
    meets = np.ones(halves.shape[0], dtype=bool)
    for k in range(3):  # the triangle's edges, then the halves'
        edge = flat[(k + 1) % 3] - flat[k]
        outward = np.array([edge[1], -edge[0]]) / np.linalg.norm(edge)
        meets &= np.min((halves - flat[k]) @ outward, axis=1) <= margin
        sides = halves[:, (k + 1) % 3] - halves[:, k]
        normal = np.stack([sides[:, 1], -sides[:, 0]], 1) / np.linalg.norm(sides, axis=1)[:, None]
        reach = np.einsum('ntj,nj->nt', flat[None, :, :] - halves[:, k, None, :], normal)
        meets &= np.min(reach, axis=1) <= margin
    return meets


def inside(positions: NDArray[np.float64], corners: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Which ``positions`` in the plane of triangle ``corners`` lie in it (barycentric)."""
    origin, e1, e2 = corners[0], corners[1] - corners[0], corners[2] - corners[0]
    gram = np.array([[e1 @ e1, e1 @ e2], [e1 @ e2, e2 @ e2]])
    ab = np.linalg.solve(gram, ((positions - origin) @ np.stack([e1, e2], 1)).T).T
    kept: NDArray[np.bool_] = (ab[:, 0] >= 0.0) & (ab[:, 1] >= 0.0) & (ab.sum(axis=1) <= 1.0)
    return kept
