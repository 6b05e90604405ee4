"""The echoes of the fixed scatterers on the surfaces a ping's cast lit.

The rays of a coherent fan only find surfaces: which triangles are lit, where, and their
reflectivity. Each triangle holds its fixed scatterers at the density ``rho``, keyed by the
triangle's id and the seed, the same from ping to ping and pose to pose:

* a triangle of up to ``PATCH_SCATTERERS`` of them holds them all
  (``fixed_scatterers.surface_scatterers``): spread evenly over it; it is lit when a ray
  hits it or a hit on its entity lies within the rays' spacing there (small objects keep
  their unhit triangles' scatterers);
* a larger one (a flat box's face) is tiled, in its own plane from its first corner, by
  square patches of ``PATCH_SCATTERERS`` scatterers each, every patch keyed by the
  triangle, its column and row, so that only the patches about the triangle's lit part are
  made (those within the rays' spacing of its hits), clipped to the triangle.

Which of them the sonar hears: those in front of what its rays hit (:attr:`LitSurfaces.visible`,
the cast as a depth map: occlusion and shadows).

A scatterer stands for the area ``A = 1 / rho``; its mean echo is the incoherent law's for
that area (``model.py``): a ray's ``mu cos(alpha) dOmega / r**2`` with the solid angle
``dOmega = A cos(alpha) / r**2`` the area subtends, so

    I = mu cos(alpha)**2 A / r**4 exp(-2 a r),

times the sonar's own pattern at the scatterer. Its amplitude is ``xi sqrt(I)``, ``xi`` its
fixed unit complex Gaussian; the carrier phase of its true path and the receive array are the
beam former's (``formed_beams.form_beams``; ``docs/beamforming.md``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo.fixed_scatterers import Scatterers, surface_scatterers
from nps_sonar_py.echo.near_triangles import SmallTriangles, areas, near_small

__all__ = ['PATCH_SCATTERERS', 'LitEchoes', 'LitSurfaces', 'lit_echoes']

#: Scatterers of a patch of a large triangle; a triangle with more is tiled by patches.
PATCH_SCATTERERS = 256
#: Most patches about the hits on one triangle in a ping, over 64.
_MAX_PATCHES = 1 << 20
#: An intensity loss of x dB is a factor exp(-x ln(10) / 10).
_DB_TO_NEPER = math.log(10.0) / 10.0
#: Mixes a patch's (triangle, column, row) into a key no triangle id is likely to share.
_PATCH_SALT = np.uint64(0xD6E8FEB86659FD93)


@dataclass(frozen=True, eq=False)
class LitSurfaces:
    """What a ping's cast lit, for the surfaces' fixed scatterers.

    Attributes:
        ids: (n,) int64 triangle id each ray hit (``scene.hits.HitTriangles``), -1 for none.
        reflectivity: (n,) each ray's Lambert coefficient (NaN for none).
        points: (n, 3) each ray's hit in the world, m (anything for none).
        spacing: (n,) the distance to the neighbouring rays' hits on the surface, m.
        corners: the (k, 3, 3) world corners of triangles ``ids`` now.
        siblings: every triangle id of the entities that own triangles ``ids``.
        world_from_sensor: (4, 4) the sensor's pose; its body frame x ahead, y along the
            receive array.
        visible: which of (m, 3) points in the sensor's frame its rays see (none nearer).
    """

    ids: NDArray[np.int64]
    reflectivity: NDArray[np.float64]
    points: NDArray[np.float64]
    spacing: NDArray[np.float64]
    corners: Callable[[NDArray[np.int64]], NDArray[np.float64]]
    siblings: Callable[[NDArray[np.int64]], NDArray[np.int64]]
    world_from_sensor: NDArray[np.float64]
    visible: Callable[[NDArray[np.float64]], NDArray[np.bool_]]


@dataclass(frozen=True, eq=False)
class LitEchoes:
    """The heard scatterers in the sensor's frame: ``positions`` (m, 3) m, ``amplitudes`` (m,)."""

    positions: NDArray[np.float64]
    amplitudes: NDArray[np.complex128]


def _tiles(
    corners: NDArray[np.float64],
    tri_id: int,
    points: NDArray[np.float64],
    widen: NDArray[np.float64],
    density: float,
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """The patches of one large triangle about its lit ``points``: their halves and keys.

    The patches: squares of edge ``q`` (``q**2 rho = PATCH_SCATTERERS``) in the triangle's
    plane, axes along its first edge and across it from its first corner; each square's two
    triangles ((2 c, 3, 3), column by column, row by row) keyed by (triangle, column, row,
    half). Those within each point's ``widen`` (m, a square about it) of the ``points``.
    """
    q = math.sqrt(PATCH_SCATTERERS / density)
    origin, e1, e2 = corners[0], corners[1] - corners[0], corners[2] - corners[0]
    u = e1 / np.linalg.norm(e1)
    w = e2 - (e2 @ u) * u
    w /= np.linalg.norm(w)
    cell = np.floor((points - origin) @ np.stack([u, w], axis=1) / q).astype(np.int64)
    reach = np.ceil(widen / q).astype(np.int64)  # patches about each point, each way
    if np.sum((2 * reach + 1) ** 2) > 64 * _MAX_PATCHES:
        raise ValueError(
            f'scatterer_density: {density:g} per m2 needs too many patches of '
            f'{PATCH_SCATTERERS} scatterers on one lit surface; a lower density'
        )
    near = []
    for k in np.unique(reach):  # a few reaches: the points grouped by theirs
        steps = np.arange(-k, k + 1)
        square = np.stack(np.meshgrid(steps, steps, indexing='ij'), axis=-1).reshape(-1, 2)
        near.append((cell[reach == k][:, None, :] + square[None, :, :]).reshape(-1, 2))
    i, j = _unique_cells(np.concatenate(near))
    base = origin + (i[:, None] * q) * u + (j[:, None] * q) * w  # each patch's corner
    a, b, c = base + q * u, base + q * u + q * w, base + q * w
    squares = np.stack([np.stack([base, a, b], 1), np.stack([base, b, c], 1)], 1).reshape(-1, 3, 3)
    # The same halves in the plane's (u, w), and the triangle: only those that may meet it.
    p0 = np.stack([i * q, j * q], axis=1).astype(np.float64)
    pa, pb, pc = (p0 + np.array(step) for step in ((q, 0.0), (q, q), (0.0, q)))
    flat_halves = np.stack([np.stack([p0, pa, pb], 1), np.stack([p0, pb, pc], 1)], 1)
    flat = np.array([[0.0, 0.0], [e1 @ u, 0.0], [e2 @ u, e2 @ w]])
    meets = _overlaps(flat_halves.reshape(-1, 3, 2), flat)
    with np.errstate(over='ignore'):
        key = (np.uint64(tri_id) * _PATCH_SALT) ^ (
            (i.astype(np.uint64) << np.uint64(32)) + (j.astype(np.uint64) & np.uint64(0xFFFFFFFF))
        )
        keys = np.stack([key, key ^ np.uint64(1)], 1).ravel().view(np.int64)
    return squares[meets], keys[meets]


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


def _unique_cells(cells: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The distinct (column, row) of ``cells`` (n, 2), in order by column then row.

    As ``np.unique(cells, axis=0)``, on one packed integer a cell (many times faster).
    """
    low = cells.min(axis=0)
    span = int(cells[:, 1].max() - low[1]) + 1
    packed = np.unique((cells[:, 0] - low[0]) * span + (cells[:, 1] - low[1]))
    return packed // span + low[0], packed % span + low[1]


def _inside(positions: NDArray[np.float64], corners: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Which ``positions`` in the plane of triangle ``corners`` lie in it (barycentric)."""
    origin, e1, e2 = corners[0], corners[1] - corners[0], corners[2] - corners[0]
    gram = np.array([[e1 @ e1, e1 @ e2], [e1 @ e2, e2 @ e2]])
    ab = np.linalg.solve(gram, ((positions - origin) @ np.stack([e1, e2], 1)).T).T
    inside: NDArray[np.bool_] = (ab[:, 0] >= 0.0) & (ab[:, 1] >= 0.0) & (ab.sum(axis=1) <= 1.0)
    return inside


def _patches(
    corners: NDArray[np.float64],
    ids: NDArray[np.int64],
    lit: list[tuple[NDArray[np.float64], NDArray[np.float64]]],
    density: float,
    seed: int,
) -> Scatterers:
    """The scatterers of the patches of large triangles about their lit points.

    ``corners`` (L, 3, 3) and ``ids`` (L,) of the triangles, ``lit``: each one's points and
    spacing there (:func:`_tiles`); the scatterers of all their patches drawn at once, then
    clipped to their triangles.
    """
    tiles = [_tiles(corners[k], int(ids[k]), *lit[k], density) for k in range(ids.size)]
    keys = np.concatenate([t[1] for t in tiles])
    field = surface_scatterers(np.concatenate([t[0] for t in tiles]), density, seed, ids=keys)
    # Each scatterer's triangle: its square's (the keys are distinct), triangle by triangle.
    square_of = np.repeat(np.arange(ids.size), [t[1].size for t in tiles])
    by_key = np.argsort(keys)
    owner = square_of[by_key[np.searchsorted(keys[by_key], field.triangles)]]
    bounds = np.searchsorted(owner, np.arange(ids.size + 1))
    inside = np.zeros(owner.size, dtype=bool)
    for k in range(ids.size):
        rows = slice(bounds[k], bounds[k + 1])
        inside[rows] = _inside(field.positions[rows], corners[k])
    return Scatterers(
        field.positions[inside], field.amplitudes[inside], ids[owner[inside]], field.area
    )


def _scatterers(
    lit: LitSurfaces, density: float, seed: int, cache: SmallTriangles | None
) -> tuple[Scatterers, NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]:
    """The scatterers of the lit triangles, the triangles' ids, corners and reflectivity."""
    hit = np.flatnonzero(lit.ids >= 0)
    order = hit[np.argsort(lit.ids[hit], kind='stable')]
    ids, first, counts = np.unique(lit.ids[order], return_index=True, return_counts=True)
    mu = np.asarray(lit.reflectivity, dtype=np.float64)[order[first]]
    corners = lit.corners(ids)
    area = areas(corners)
    large = area * density > PATCH_SCATTERERS
    near, near_corners, near_mu = _near_triangles(lit, hit, ids, density, cache)
    parts = [
        surface_scatterers(
            np.concatenate([corners[~large], near_corners]),
            density,
            seed,
            ids=np.concatenate([ids[~large], near]),
        )
    ]
    if np.any(large):  # the large faces of boxes and planes
        groups = [order[first[k] : first[k] + counts[k]] for k in np.flatnonzero(large)]
        points = [(lit.points[rows], lit.spacing[rows]) for rows in groups]
        parts.append(_patches(corners[large], ids[large], points, density, seed))
    field = Scatterers(
        np.concatenate([p.positions for p in parts]),
        np.concatenate([p.amplitudes for p in parts]),
        np.concatenate([p.triangles for p in parts]),
        1.0 / density,
    )
    every = np.concatenate([ids, near])
    order = np.argsort(every, kind='stable')
    return (
        field,
        every[order],
        np.concatenate([corners, near_corners])[order],
        np.concatenate([mu, near_mu])[order],
    )


def _near_triangles(
    lit: LitSurfaces,
    hit: NDArray[np.intp],
    ids: NDArray[np.int64],
    density: float,
    cache: SmallTriangles | None,
) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]:
    """The small triangles no ray hit within the rays' spacing of a hit on their entity.

    Their ids, corners and reflectivity (the nearest hit's): a small object tessellated finer
    than the rays land apart keeps all its lit scatterers, not only its hit triangles'.
    ``cache``: keeps the entities' small triangles while they stand still.
    """
    siblings = lit.siblings(ids)
    corners = lit.corners(siblings)
    small = (cache or SmallTriangles()).of(siblings, corners, density, PATCH_SCATTERERS)
    rows, nearest = near_small(small, ids, lit.points[hit], lit.spacing[hit])
    mu = np.asarray(lit.reflectivity, dtype=np.float64)[hit][nearest]
    return small.ids[rows], small.corners[rows], mu


def lit_echoes(
    lit: LitSurfaces,
    density: float,
    seed: int,
    absorption_db_per_m: float,
    cache: SmallTriangles | None = None,
) -> LitEchoes:
    """The heard scatterers of the lit surfaces and their amplitudes ``xi sqrt(I)``.

    Args:
        lit: what the cast lit and the sensor's pose.
        density: scatterers per m2.
        seed: the scatterers' realisation.
        absorption_db_per_m: one-way absorption, dB/m.
        cache: the lit entities' small triangles, kept from ping to ping while they stand
            still (``near_triangles.SmallTriangles``); ``None``: found anew.
    """
    if not np.any(lit.ids >= 0):
        return LitEchoes(np.zeros((0, 3)), np.zeros(0, dtype=np.complex128))
    field, ids, corners, mu = _scatterers(lit, density, seed, cache)
    pose = lit.world_from_sensor
    body = (field.positions - pose[:3, 3]) @ pose[:3, :3]  # R^T (p - o), row by row
    seen = np.flatnonzero(lit.visible(body))
    body = body[seen]
    owner = np.searchsorted(ids, field.triangles[seen])
    normal = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]) @ pose[:3, :3]
    with np.errstate(invalid='ignore', divide='ignore'):
        normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    r = np.linalg.norm(body, axis=1)
    cos_incidence = np.abs(np.einsum('ij,ij->i', body, normal[owner])) / r
    intensity = mu[owner] * cos_incidence**2 * field.area / r**4
    intensity *= np.exp(-2.0 * absorption_db_per_m * _DB_TO_NEPER * r)
    return LitEchoes(body, field.amplitudes[seen] * np.sqrt(intensity))
