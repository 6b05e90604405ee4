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
    """Ray columns past the outer beams' casts (``low - half``, ``high + half``, rad) out to
    their main lobes' first nulls (``lobe`` in sine from the beam's), ``step`` apart.
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
    """

    def __init__(
        self,
        columns: NDArray[np.float64],
        outer: NDArray[np.float64],
        elevations: NDArray[np.float64],
        column_step: float,
        row_step: float,
    ) -> None:
        self._shape = columns.shape
        self._elevations = elevations
        self._row_step = row_step
        self._column_step = column_step
        azimuth = np.concatenate([columns.ravel(), outer])
        self._order = np.argsort(azimuth, kind='stable')
        self._azimuth = azimuth[self._order]
        self.edge_rays = scan_directions(outer, elevations).reshape(-1, 3)
        self.edge_rays.flags.writeable = False
        self._edge_tangents = scan_directions(outer, elevations + 0.5 * math.pi).reshape(-1, 3)

    def lit(
        self,
        caster: SurfaceCaster,
        hits: RayHits,
        world_from_body: NDArray[np.float64],
        directions: NDArray[np.float64],
        tangents: NDArray[np.floating],
    ) -> LitSurfaces | None:
        """What this ping lit: the fan's hits (rays ``directions``, elevation ``tangents``,
        world frame) and the edge columns', cast now; ``None`` for a caster without triangles.
        """
        if hits.triangles is None:
            return None
        rotation, origin = world_from_body[:3, :3], world_from_body[:3, 3]
        edge_d = self.edge_rays @ rotation.T
        parts = [(hits, directions, tangents)]
        if edge_d.size:
            edge = caster.cast(origin, edge_d)
            parts.append((edge, edge_d, self._edge_tangents @ rotation.T))
        ids, mu, points, spacing, depth, tolerance = [], [], [], [], [], []
        for part, d, t in parts:
            if part.triangles is None:
                return None
            r = np.asarray(part.ranges, dtype=np.float64)
            normals = np.asarray(part.normals, dtype=np.float64)
            with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
                cos = np.abs(np.einsum('ij,ij->i', d, normals))
                height = r * self._row_step * np.abs(np.einsum('ij,ij->i', t, normals)) / cos
            height = np.nan_to_num(height, nan=0.0, posinf=0.0)
            ids.append(part.triangles.ids)
            mu.append(np.asarray(part.reflectivity, dtype=np.float64))
            points.append(origin + np.where(np.isfinite(r), r, 0.0)[:, None] * d)
            spacing.append(
                np.maximum(height, np.where(np.isfinite(r), r, 0.0) * self._column_step)
            )
            depth.append(r)
            tolerance.append(height + r * self._column_step)
        nv = self._elevations.size
        beams, nh = self._shape
        fan_depth = depth[0].reshape(beams, nv, nh).transpose(1, 0, 2).reshape(nv, beams * nh)
        fan_tol = tolerance[0].reshape(beams, nv, nh).transpose(1, 0, 2).reshape(nv, beams * nh)
        if len(depth) > 1:
            fan_depth = np.concatenate([fan_depth, depth[1].reshape(nv, -1)], axis=1)
            fan_tol = np.concatenate([fan_tol, tolerance[1].reshape(nv, -1)], axis=1)
        limit = (fan_depth + np.nan_to_num(fan_tol, nan=0.0))[:, self._order]
        return LitSurfaces(
            np.concatenate(ids),
            np.concatenate(mu),
            np.concatenate(points),
            np.concatenate(spacing),
            hits.triangles.corners,
            world_from_body,
            lambda body: self._visible(body, limit),
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
