"""What a one-beam sonar's cone of rays lit, for its fixed scatterers (``LitSurfaces``).

The cone's rays (the sweep's head, ``cone.cone_pattern``) find the surfaces as a fan's do
(``fan_lighting.py``): the triangles hit, the hit points, how far apart the rays land there
(``r dtheta / |cos|`` of the ray's incidence, ``dtheta`` the rays' angular spacing), and the
cast as a depth map: a scatterer is heard when no farther than the hit of the ray nearest its
direction (a k-d tree of the cone's directions, built once) plus that ray's range change
across its cell (``r dtheta tan`` of the incidence).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
from scipy.spatial import cKDTree

from nps_sonar_py.echo.surface_echoes import LitSurfaces
from nps_sonar_py.sensing.caster import RayHits

__all__ = ['ConeLighting']

#: The most a ray's cell is stretched on a surface it meets at grazing (``1 / cos``).
_GRAZING = 20.0


class ConeLighting:
    """A cone's depth map over its body directions, built once (module docstring).

    Args:
        body_rays: (n, 3) the cone's unit directions in its body frame.
        solid_angle: the cone's solid angle, sr: the rays' angular spacing is
            ``sqrt(solid_angle / n)``.
        farthest: the range past which nothing is heard, m: hits beyond it light nothing.
    """

    def __init__(
        self, body_rays: NDArray[np.float64], solid_angle: float, farthest: float
    ) -> None:
        self._tree = cKDTree(body_rays)
        self._step = math.sqrt(solid_angle / len(body_rays))
        self._farthest = farthest

    def lit(
        self,
        hits: RayHits,
        world_from_body: NDArray[np.float64],
        directions: NDArray[np.float64],
        rows: slice = slice(None),
    ) -> LitSurfaces | None:
        """What this cone lit: its ``rows`` of ``hits`` (rays ``directions``, world).

        ``None`` for a caster without triangles.
        """
        if hits.triangles is None:
            return None
        r = np.asarray(hits.ranges, dtype=np.float64)[rows]
        finite = np.where(np.isfinite(r), r, 0.0)
        cos = np.asarray(hits.cos_incidence, dtype=np.float64)[rows]
        stretch = 1.0 / np.maximum(cos, 1.0 / _GRAZING)
        spacing = finite * self._step * stretch
        tolerance = finite * self._step * np.sqrt(np.maximum(stretch**2 - 1.0, 0.0))
        limit = np.where(np.isfinite(r), r + tolerance, np.inf)
        origin = world_from_body[:3, 3]
        return LitSurfaces(
            np.where(r <= self._farthest, hits.triangles.ids[rows], -1),
            np.asarray(hits.reflectivity, dtype=np.float64)[rows],
            origin + finite[:, None] * directions,
            spacing,
            hits.triangles.corners,
            hits.triangles.siblings,
            world_from_body,
            lambda body: self._visible(body, limit),
        )

    def _visible(self, body: NDArray[np.float64], limit: NDArray[np.float64]) -> NDArray[np.bool_]:
        """Whether each point (m, 3, body frame) is no farther than its nearest ray's hit."""
        r = np.linalg.norm(body, axis=1)
        _, nearest = self._tree.query(body / r[:, None])
        visible: NDArray[np.bool_] = r <= limit[nearest]
        return visible
