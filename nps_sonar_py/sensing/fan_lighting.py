"""What a formed fan's cast lit: its triangles, hits, spacing and depth map (``LitSurfaces``).

A fan whose beams are formed by its array (``echo.formed_engine``) casts its rays only to
find the surfaces: the triangles hit, where, and how far apart its rays land there. Its
outer beams' main lobes reach past the fan's cast to their first nulls, so it casts a few
more columns there (:func:`edge_azimuths`). The cast is also its depth map: a scatterer is
heard when no ray in its direction (the nearest column and row) hit anything nearer than it,
within that ray's footprint (occlusion: the shadows behind objects).

Given the caster, the lit surfaces also say what lies straight down from a point
(:func:`ground_below`, one cast of vertical rays), whether the ray in a direction ends on a
seabed or nothing, and whether a leg between two points is clear (:func:`clear_to_seabed`,
one more cast): the objects' images in the seabed (``echo.seabed_images``, :func:`seabed_looks`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo.seabed_images import Ground, Looks, Meshes, ground, open_to_seabed
from nps_sonar_py.echo.surface_echoes import LitSurfaces
from nps_sonar_py.sensing.caster import RayHits, SurfaceCaster
from nps_sonar_py.sensing.scan import scan_directions

__all__ = [
    'FanLighting',
    'RayOf',
    'clear_to_seabed',
    'edge_azimuths',
    'ground_below',
    'hit_spread',
    'seabed_looks',
]

#: The ray whose cell holds each point's direction (m, 3 in the sensor's frame; ranges (m,)).
RayOf = Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.intp]]


def edge_azimuths(
    low: float, high: float, half: float, step: float, lobe: float
) -> NDArray[np.float64]:
    """Ray columns past the outer beams' casts out to their main lobes' first nulls.

    From ``low - half`` and ``high + half`` (rad) outwards, ``step`` apart, to ``lobe`` in
    sine from the outer beams' axes ``low`` and ``high``.
    """
    far_high = math.asin(min(1.0, math.sin(high) + lobe))
    far_low = math.asin(max(-1.0, math.sin(low) - lobe))
    return np.concatenate(
        [
            np.arange(high + half + 0.5 * step, far_high + 0.5 * step, step),
            np.arange(low - half - 0.5 * step, far_low - 0.5 * step, -step),
        ]
    )


def hit_spread(
    finite: NDArray[np.float64],
    d: NDArray[np.float64],
    n: NDArray[np.float64],
    steps: tuple[tuple[NDArray[np.float64], NDArray[np.float64]], ...],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per ray: the distance to its neighbours' hits on the surface, and its range's change.

    A ray ``d`` (unit, world) meets a surface of normal ``n`` at range ``finite`` (0 on a
    miss); ``steps`` pairs each of its neighbours' unit tangent ``t`` (perpendicular to
    ``d``) with the distance ``s`` its neighbour lies along it at unit range times the range
    (the angle to it times ``r``): that neighbour's hit is ``s (t - d (t.n)/(d.n))`` away,
    at a range ``s |t.n| / |d.n|`` off. The spacing is the largest of those distances (held
    to the ray's own range: grazing rays' neighbours land far away), the tolerance the sum
    of the range changes (the range's change across the ray's cell).
    """
    dn = np.einsum('ij,ij->i', d, n)
    spacing = np.zeros(finite.size)
    tolerance = np.zeros(finite.size)
    with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
        for tangent, step in steps:
            tn = np.einsum('ij,ij->i', tangent, n)
            move = step[:, None] * (tangent - d * (tn / dn)[:, None])
            spacing = np.maximum(spacing, np.linalg.norm(move, axis=1))
            tolerance += step * np.abs(tn / dn)
    spacing = np.minimum(np.nan_to_num(spacing, nan=0.0, posinf=np.inf), finite)
    tolerance = np.nan_to_num(tolerance, nan=0.0, posinf=np.inf)
    return spacing, tolerance


def ground_below(caster: SurfaceCaster, points: NDArray[np.float64]) -> Ground:
    """What lies straight down (world -z) from (m, 3) world points: one cast of ``caster``."""
    down = np.zeros_like(points)
    down[:, 2] = -1.0
    hits = caster.cast(points, down)
    if hits.triangles is None:  # a caster without triangles has no seabed to mirror in
        ids = np.full(points.shape[0], -1, dtype=np.int64)
        return ground(np.asarray(hits.ranges), np.asarray(hits.normals), ids, lambda _: ())
    return ground(
        np.asarray(hits.ranges),
        np.asarray(hits.normals),
        hits.triangles.ids,
        hits.triangles.meshes,
    )


def clear_to_seabed(
    caster: SurfaceCaster, starts: NDArray[np.float64], ends: NDArray[np.float64]
) -> NDArray[np.bool_]:
    """Whether the legs from (m, 3) world points to (m, 3) others meet nothing but a seabed.

    One cast of ``caster`` from each start towards its end: a leg is clear when its first
    hit is a seabed's, or lies past the end (over relief the seabed may rise a little before
    the end: the leg still lands on it).
    """
    leg = ends - starts
    length = np.sqrt(np.einsum('ij,ij->i', leg, leg))
    if not length.size:
        return np.zeros(0, dtype=bool)
    hits = caster.cast(starts, leg / np.maximum(length, 1e-300)[:, None])
    clear: NDArray[np.bool_] = np.asarray(hits.ranges) >= length
    if hits.triangles is not None:
        clear |= open_to_seabed(hits.triangles.ids, hits.triangles.meshes)
    return clear


def seabed_looks(
    caster: SurfaceCaster, ids: NDArray[np.int64], meshes: Meshes, ray_of: RayOf
) -> Looks:
    """A cast's seabed for the objects' images (``seabed_images.Looks``).

    The ground below world points, whether the ray in each direction (``ray_of``, of the
    cast's triangle ids ``ids``, -1 none) ends on a seabed or nothing, and whether legs
    between world points are clear (one more cast of ``caster``).
    """
    return (
        functools.partial(ground_below, caster),
        lambda body, r: open_to_seabed(ids[ray_of(body, r)], meshes),
        functools.partial(clear_to_seabed, caster),
    )


class FanLighting:
    """A fan's depth map and edge columns, built once (module docstring).

    Args:
        columns: (beams, nh) azimuth of each of the fan's ray columns, rad.
        outer: (k,) the edge columns' azimuths, rad.
        elevations: (nv,) the rows' elevations, rad, ``row_step`` apart.
        column_step: the angle between neighbouring columns, rad.
        row_step: the rows' height, rad.
        farthest: the range past which nothing is heard (the window and the pulse), m: hits
            beyond it light nothing.
    """

    def __init__(
        self,
        columns: NDArray[np.float64],
        outer: NDArray[np.float64],
        elevations: NDArray[np.float64],
        column_step: float,
        row_step: float,
        farthest: float,
    ) -> None:
        self._shape = columns.shape
        self._elevations = elevations
        self._row_step = row_step
        self._farthest = farthest
        self._column_step = column_step
        azimuth = np.concatenate([columns.ravel(), outer])
        self._order = np.argsort(azimuth, kind='stable')
        self._azimuth = azimuth[self._order]
        self._table = _ColumnTable.of(self._azimuth)
        self.edge_rays = scan_directions(outer, elevations).reshape(-1, 3)
        self.edge_rays.flags.writeable = False

    def lit(
        self,
        caster: SurfaceCaster,
        hits: RayHits,
        world_from_body: NDArray[np.float64],
        directions: NDArray[np.float64],
    ) -> LitSurfaces | None:
        """What this ping lit, or ``None`` for a caster without triangles.

        The fan's ``hits`` (of its rays ``directions``, world frame) and the edge columns',
        cast now.
        """
        if hits.triangles is None:
            return None
        rotation = world_from_body[:3, :3]
        parts = [(hits, directions)]
        if self.edge_rays.size:
            edge_d = self.edge_rays @ rotation.T
            parts.append((caster.cast(world_from_body[:3, 3], edge_d), edge_d))  # its own hits
        origin = world_from_body[:3, 3]
        found = [self._found(part, origin, d, rotation[:, 2]) for part, d in parts]
        if any(f is None for f in found):
            return None
        ids, mu, points, spacing, depth, tolerance = (
            np.concatenate([f[k] for f in found if f is not None]) for k in range(6)
        )
        nv = self._elevations.size
        beams, nh = self._shape
        fan = beams * nh * nv
        grid = np.concatenate(
            [
                np.arange(fan).reshape(beams, nv, nh).transpose(1, 0, 2).reshape(nv, -1),
                np.arange(fan, depth.size).reshape(nv, -1),
            ],
            axis=1,
        )[:, self._order]
        limit = (depth + tolerance)[grid]
        width = grid.shape[1]
        meshes = hits.triangles.meshes
        return LitSurfaces(
            ids,
            mu,
            points,
            spacing,
            meshes,
            world_from_body,
            lambda body, r: r <= np.take(limit, self._cell(body, r, width)),
            seabed=seabed_looks(
                caster, ids, meshes, lambda body, r: np.take(grid, self._cell(body, r, width))
            ),
        )

    def _found(
        self,
        hits: RayHits,
        origin: NDArray[np.float64],
        d: NDArray[np.float64],
        up: NDArray[np.float64],
    ) -> tuple[NDArray[np.generic], ...] | None:
        """Per ray: triangle id, reflectivity, hit point, spacing, range and its tolerance.

        The spacing: to the neighbouring rays' hits on the surface; the tolerance: the
        range's change across the ray's cell; ``None`` without triangles.

        A ray ``d`` of the cell ``d_e`` by ``d_a cos e`` (its elevation and azimuth
        tangents ``t = d x a``, ``a = up x d / |up x d|``) meets a surface of normal ``n`` at
        ``r``; its neighbours' hits are ``r d_e (t - d (t.n)/(d.n))`` and
        ``r d_a cos e (a - d (a.n)/(d.n))`` away, at ranges ``r d_e |t.n| / |d.n|`` and
        ``r d_a cos e |a.n| / |d.n|`` off.
        """
        if hits.triangles is None:
            return None
        r = np.asarray(hits.ranges, dtype=np.float64)
        finite = np.where(np.isfinite(r), r, 0.0)
        n = np.asarray(hits.normals, dtype=np.float64)
        across = np.cross(up, d)
        cos_e = np.linalg.norm(across, axis=1)
        a = across / np.maximum(cos_e, 1e-12)[:, None]
        t = np.cross(d, a)
        spacing, tolerance = hit_spread(
            finite,
            d,
            n,
            ((t, self._row_step * finite), (a, self._column_step * finite * cos_e)),
        )
        return (
            np.where(r <= self._farthest, hits.triangles.ids, -1),
            hits.scatterer_reflectivity,  # a seabed's texture is the scatterers' own
            origin + finite[:, None] * d,
            spacing,
            r,
            tolerance,
        )

    def _cell(
        self, body: NDArray[np.float64], r: NDArray[np.float64], width: int
    ) -> NDArray[np.intp]:
        """The cell of each point's ray (m, 3, body frame; ``r`` its range) in the depth map.

        Its ray: the nearest column and row; its cell ``row * width + column`` of the (rows,
        ``width``) map. The angles in single precision (1e-7 rad, far finer than the rays'
        spacing).
        """
        near = body.astype(np.float32)
        azimuth = np.arctan2(near[:, 1], near[:, 0])
        sine = np.divide(near[:, 2], r, dtype=np.float32)
        elevation = np.arcsin(np.clip(sine, -1.0, 1.0, out=sine), out=sine)
        if self._table is not None:
            column = self._table.nearest(azimuth)
        elif self._azimuth.size > 1:
            column = nearest_column(
                self._azimuth, np.searchsorted(self._azimuth, azimuth), azimuth
            )
        else:
            column = np.zeros(r.size, dtype=np.intp)
        elevation -= self._elevations[0]
        elevation /= self._row_step
        row = np.clip(np.rint(elevation).astype(np.intp), 0, self._elevations.size - 1)
        row *= width
        row += column
        return row


def nearest_column(
    azimuth: NDArray[np.float64], right: NDArray[np.intp], a: NDArray[np.floating]
) -> NDArray[np.intp]:
    """The nearest of sorted ``azimuth`` to each ``a`` (the lower on a tie).

    ``right``: ``np.searchsorted(azimuth, a)``; at least two azimuths.
    """
    right = np.clip(right, 1, azimuth.size - 1)
    left = right - 1
    nearer = np.abs(a - azimuth[left]) <= np.abs(azimuth[right] - a)
    column: NDArray[np.intp] = np.where(nearer, left, right)
    return column


class _ColumnTable:
    """``searchsorted`` into sorted azimuths by a table over a uniform grid of azimuth.

    With a grid step ``h`` a third of the smallest gap between distinct azimuths, at most
    one distinct azimuth lies within ``2 h`` below ``a``: the first azimuth at or past ``a``
    is the first at or past the grid line a cell below ``a``'s (safe from rounding), or the
    first past that one's value. Exact; a grid of more than ``MOST`` cells (azimuths nearly
    equal) falls back to ``searchsorted``.

    The nearest column (:meth:`nearest`) by a second, finer table (``FINE`` cells a smallest
    gap, at most ``MOST``): each cell's column, where no azimuth and no midpoint between
    neighbours lies within two cells of it (the answer is the same over the cell, whatever
    the rounding of the query's cell); the others (a tenth on DAVE's fan) answered as above.
    """

    MOST = 1 << 20
    FINE = 128

    def __init__(self, azimuth: NDArray[np.float64], step: float) -> None:
        self._azimuth = azimuth
        self._low, self._step = float(azimuth[0]), step
        cells = int(np.ceil((azimuth[-1] - azimuth[0]) / step)) + 2
        grid = self._low + step * np.arange(cells)
        self._first = np.searchsorted(azimuth, grid).astype(np.intp)  # first >= each cell
        self._past = np.searchsorted(azimuth, azimuth, side='right').astype(np.intp)
        self._fine = step * 3.0 / self.FINE if (cells - 2) * self.FINE / 3.0 <= self.MOST else step
        fine = int(np.ceil((azimuth[-1] - azimuth[0]) / self._fine)) + 2
        centre = self._low + self._fine * (np.arange(fine) + 0.5)
        self._column = nearest_column(azimuth, self.right(centre), centre)
        # Not constant over a cell: those within two cells of an azimuth or a midpoint (and
        # of a single-precision query's rounding, 1e-7 of its azimuth).
        breaks = np.concatenate([azimuth, 0.5 * (azimuth[1:] + azimuth[:-1])])
        at = np.floor((breaks - self._low) / self._fine).astype(np.intp)
        margin = 2 + math.ceil(1e-6 * (1.0 + float(np.abs(azimuth).max())) / self._fine)
        for shift in range(-margin, margin + 1):
            self._column[np.clip(at + shift, 0, fine - 1)] = -1
        self._column[[0, -1]] = -1  # and those past either end

    @staticmethod
    def of(azimuth: NDArray[np.float64]) -> _ColumnTable | None:
        """The table of sorted ``azimuth``, or ``None`` if too fine or fewer than two."""
        gaps = np.diff(azimuth)
        gaps = gaps[gaps > 0.0]
        if not gaps.size or 3.0 * (azimuth[-1] - azimuth[0]) / gaps.min() > _ColumnTable.MOST:
            return None
        return _ColumnTable(azimuth, float(gaps.min()) / 3.0)

    def right(self, a: NDArray[np.floating]) -> NDArray[np.intp]:
        """``np.searchsorted(azimuth, a)``."""
        cell = np.clip((a - self._low) / self._step, 0.0, self._first.size)
        k = np.maximum(cell.astype(np.intp) - 1, 0)
        first = self._first[k]
        ahead = first < self._azimuth.size
        at = np.minimum(first, self._azimuth.size - 1)
        below = ahead & (self._azimuth[at] < a)
        right: NDArray[np.intp] = np.where(below, self._past[at], first)
        return right

    def nearest(self, a: NDArray[np.floating]) -> NDArray[np.intp]:
        """The nearest azimuth's index (``nearest_column``) of each of ``a``."""
        cell = np.clip((a - self._low) / self._fine, 0.0, self._column.size - 1)
        column: NDArray[np.intp] = self._column[cell.astype(np.intp)]
        unsure = np.flatnonzero(column < 0)
        if unsure.size:
            some = a[unsure]
            column[unsure] = nearest_column(self._azimuth, self.right(some), some)
        return column
