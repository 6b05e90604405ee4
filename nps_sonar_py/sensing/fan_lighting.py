"""What a formed fan's cast lit: its triangles, hits, spacing and depth map (``LitSurfaces``).

A fan whose beams are formed by its array (``echo.formed_engine``) casts its rays only to
find the surfaces: the triangles hit, where, and how far apart its rays land there. Its
outer beams' main lobes reach past the fan's cast to their first nulls, so it casts a few
more columns there (:func:`edge_azimuths`). The cast is also its depth map: a scatterer is
heard when no ray in its direction (the nearest column and row) hit anything nearer than it,
within that ray's footprint (occlusion: the shadows behind objects).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo.surface_echoes import LitSurfaces
from nps_sonar_py.sensing.caster import RayHits, SurfaceCaster
from nps_sonar_py.sensing.scan import scan_directions

__all__ = ['FanLighting', 'edge_azimuths']


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
        return LitSurfaces(
            ids,
            mu,
            points,
            spacing,
            hits.triangles.corners,
            hits.triangles.siblings,
            world_from_body,
            lambda body: self._visible(body, limit),
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
        dn = np.einsum('ij,ij->i', d, n)
        spacing = np.zeros(r.size)
        tolerance = np.zeros(r.size)
        with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
            for tangent, step in (
                (t, self._row_step * finite),
                (a, self._column_step * finite * cos_e),
            ):
                tn = np.einsum('ij,ij->i', tangent, n)
                move = step[:, None] * (tangent - d * (tn / dn)[:, None])
                spacing = np.maximum(spacing, np.linalg.norm(move, axis=1))
                tolerance += step * np.abs(tn / dn)
        # Grazing rays: their neighbours land far away; hold them to their own range.
        spacing = np.minimum(np.nan_to_num(spacing, nan=0.0, posinf=np.inf), finite)
        tolerance = np.nan_to_num(tolerance, nan=0.0, posinf=np.inf)
        return (
            np.where(r <= self._farthest, hits.triangles.ids, -1),
            np.asarray(hits.reflectivity, dtype=np.float64),
            origin + finite[:, None] * d,
            spacing,
            r,
            tolerance,
        )

    def _visible(self, body: NDArray[np.float64], limit: NDArray[np.float64]) -> NDArray[np.bool_]:
        """Whether each point (m, 3, body frame) is no farther than its nearest ray's hit."""
        r = np.linalg.norm(body, axis=1)
        azimuth = np.arctan2(body[:, 1], body[:, 0])
        elevation = np.arcsin(np.clip(body[:, 2] / r, -1.0, 1.0))
        right = np.clip(np.searchsorted(self._azimuth, azimuth), 1, self._azimuth.size - 1)
        left = right - 1
        nearer = np.abs(azimuth - self._azimuth[left]) <= np.abs(self._azimuth[right] - azimuth)
        column = np.where(nearer, left, right) if self._azimuth.size > 1 else np.zeros_like(right)
        row = np.rint((elevation - self._elevations[0]) / self._row_step).astype(np.intp)
        row = np.clip(row, 0, self._elevations.size - 1)
        visible: NDArray[np.bool_] = r <= limit[row, column]
        return visible
