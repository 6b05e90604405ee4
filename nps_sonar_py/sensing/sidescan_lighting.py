"""What a side-scan's cast lit, for the surfaces' fixed scatterers (``LitSurfaces``).

The coherent side-scan hears the scatterers fixed on the surfaces (``echo.channel_echoes``);
its rays find them: the triangles hit, where, and how far apart neighbouring rays land
there (``fan_lighting.hit_spread``). Its rays are the cells of a grid per channel, columns
along track (uniform in ``a``) by rows in depression (``delta``, steepest first, uneven:
``sidescan.py``): a ray ``d = (sin a, s cos a cos delta, -cos a sin delta)`` (body frame)
has its row neighbour ``cos(a) d_delta`` away along ``(0, -s sin delta, -cos delta)`` and its
column neighbour ``d_a`` away along ``(cos a, -s sin a cos delta, sin a sin delta)``.

The cast is also the depth map: a scatterer is heard when no farther than the hit of the ray
whose cell holds its direction (its channel, column and row), plus that ray's range change
across its cell (occlusion: the shadows behind objects).

Given the caster, the lit surfaces also say what lies straight down from a point
(``fan_lighting.ground_below``, one cast of vertical rays), the seabed the objects' scatterers are
mirrored in, and whether a ray of the cast ends on a seabed or nothing, the way to the
bounce point open (``echo.seabed_images``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo.channel_echoes import SeenSurfaces
from nps_sonar_py.sensing.caster import RayHits, SurfaceCaster
from nps_sonar_py.sensing.fan_lighting import RayOf, hit_spread, seabed_looks

__all__ = ['SidescanLighting', 'seen_surfaces']


def seen_surfaces(
    hits: RayHits,
    r: NDArray[np.float64],
    world_from_sensor: NDArray[np.float64],
    directions: NDArray[np.float64],
    steps: tuple[tuple[NDArray[np.float64], NDArray[np.float64]], ...],
    ray_of: RayOf,
    farthest: float,
    rays: slice | None = None,
    caster: SurfaceCaster | None = None,
) -> SeenSurfaces | None:
    """What a ping lit (``None`` for a caster without triangles), each scatterer seen by a ray.

    ``hits`` of the cast, of which the rays ``rays`` (all by default) are this sensor's:
    their directions ``directions`` (world frame) and ranges ``r`` (inf on a miss); ``steps``
    each of them's neighbours (``fan_lighting.hit_spread``, world frame); ``ray_of`` the ray
    (of these) whose cell holds a direction: a scatterer is heard when no farther than that
    ray's hit plus its range change across the cell, with that ray's reflectivity;
    ``caster``: the ground below points (``fan_lighting.seabed_looks``), ``None``: not given.
    """
    if hits.triangles is None:
        return None
    mine = slice(None) if rays is None else rays
    finite = np.where(np.isfinite(r), r, 0.0)
    d = np.asarray(directions, dtype=np.float64)
    normals = np.asarray(hits.normals, dtype=np.float64)[mine]
    spacing, tolerance = hit_spread(finite, d, normals, steps)
    limit = r + tolerance  # inf on a miss: nothing hides a scatterer there
    cast = np.asarray(hits.ranges).shape
    mu = np.broadcast_to(hits.scatterer_reflectivity, cast).ravel()[mine]  # untextured
    ids = np.where(r <= farthest, hits.triangles.ids[mine], -1)
    meshes = hits.triangles.meshes
    return SeenSurfaces(
        ids,
        np.ones(r.size),  # each scatterer's is its ray's: seen_reflectivity
        world_from_sensor[:3, 3] + finite[:, None] * d,
        spacing,
        meshes,
        world_from_sensor,
        lambda body, rr: rr <= limit[ray_of(body, rr)],
        lambda body, rr: mu[ray_of(body, rr)],
        seabed=None if caster is None else seabed_looks(caster, ids, meshes, ray_of),
    )


class SidescanLighting:
    """A side-scan's depth map and its rays' neighbour tangents, built once.

    Args:
        columns: (na + 1,) the column edges along track, rad, uniform.
        rows: (nd + 1,) the row edges in depression, rad, steepest first.
        row_of: the row whose cell holds each depression (its sine), clipped to the rows.
        body_rays: (2 nd na, 3) the rays in the body frame, port then starboard, each
            channel's row by row.
        farthest: the range past which nothing is heard (the window and the pulse), m.
    """

    def __init__(
        self,
        columns: NDArray[np.float64],
        rows: NDArray[np.float64],
        row_of: Callable[[NDArray[np.float64]], NDArray[np.intp]],
        body_rays: NDArray[np.float64],
        farthest: float,
    ) -> None:
        self._low = float(columns[0])
        self._step = float(columns[1] - columns[0])
        self._row_of = row_of
        self._shape = (2, rows.size - 1, columns.size - 1)
        self._farthest = farthest
        along = 0.5 * (columns[:-1] + columns[1:])
        depression = 0.5 * (rows[:-1] + rows[1:])
        a = np.broadcast_to(along[None, None, :], self._shape)
        e = np.broadcast_to(depression[None, :, None], self._shape)
        s = np.array([1.0, -1.0])[:, None, None] * np.ones(self._shape)
        row_t = np.stack([np.zeros(self._shape), -s * np.sin(e), -np.cos(e)], axis=-1)
        col_t = np.stack([np.cos(a), -s * np.sin(a) * np.cos(e), np.sin(a) * np.sin(e)], axis=-1)
        self._row_t = row_t.reshape(-1, 3)
        self._col_t = col_t.reshape(-1, 3)
        d_delta = np.broadcast_to((rows[:-1] - rows[1:])[None, :, None], self._shape)
        self._row_step = (np.cos(a) * d_delta).ravel()
        assert body_rays.shape == self._row_t.shape

    def lit(
        self,
        hits: RayHits,
        ranges: NDArray[np.floating],
        world_from_body: NDArray[np.float64],
        directions: NDArray[np.float64],
        caster: SurfaceCaster | None = None,
    ) -> SeenSurfaces | None:
        """What this ping lit, or ``None`` for a caster without triangles.

        ``hits`` of the rays ``directions`` (world frame), ``ranges`` their direct ranges;
        ``caster``: the one that cast them, for the ground below the objects.
        """
        rotation = world_from_body[:3, :3]
        r = np.asarray(ranges, dtype=np.float64).ravel()
        finite = np.where(np.isfinite(r), r, 0.0)
        steps = (
            (self._row_t @ rotation.T, self._row_step * finite),
            (self._col_t @ rotation.T, self._step * finite),
        )
        return seen_surfaces(
            hits, r, world_from_body, directions, steps, self._ray, self._farthest, None, caster
        )

    def _ray(self, body: NDArray[np.float64], r: NDArray[np.float64]) -> NDArray[np.intp]:
        """The ray whose cell holds each point's direction (m, 3, body frame; ``r`` its range).

        Its channel (the side of the body's y), column and row, clipped to the grid.
        """
        _, nd, na = self._shape
        channel = (body[:, 1] < 0.0).astype(np.intp)
        along = np.arcsin(np.clip(body[:, 0] / np.maximum(r, 1e-12), -1.0, 1.0))
        sine = -body[:, 2] / np.maximum(np.hypot(body[:, 1], body[:, 2]), 1e-12)
        column = np.clip(np.floor((along - self._low) / self._step).astype(np.intp), 0, na - 1)
        row = self._row_of(sine)
        ray: NDArray[np.intp] = (channel * nd + row) * na + column
        return ray
