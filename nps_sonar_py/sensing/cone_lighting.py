"""What a cone of rays lit, for the surfaces' fixed scatterers (``LitSurfaces``).

A scanning head's beam (``sweep.py``) is a cone of rays at equal solid angle on a Fibonacci
spiral (``cone.py``); with the coherent engine (``echo.channel_echoes``) they find the lit
triangles, as the side-scan's do (``sidescan_lighting.seen_surfaces``). A ray stands for the
solid angle ``Omega``, its neighbours about ``sqrt(Omega)`` away in every direction across
it: the spacing and the range's change across its cell take two perpendicular tangents at
that step. A scatterer's ray is the one nearest its direction (a k-d tree of the cone's
directions, built once): the depth map and the reflectivity it is heard with.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.spatial import cKDTree

from nps_sonar_py.echo import EchoConfig, beam_intensity
from nps_sonar_py.echo.channel_echoes import ChannelPattern, SeenSurfaces
from nps_sonar_py.sensing.caster import RayHits, SurfaceCaster
from nps_sonar_py.sensing.cone import RayPattern
from nps_sonar_py.sensing.sidescan_lighting import seen_surfaces

__all__ = ['ConeLighting', 'cone_two_way']


class ConeLighting:
    """A cone's depth map and its rays' tangents, built once.

    Args:
        pattern: the cone's rays in the head's frame (x its axis).
        farthest: the range past which nothing is heard (the window and the pulse), m.
    """

    def __init__(self, pattern: RayPattern, farthest: float) -> None:
        d = pattern.directions
        self._tree = cKDTree(d)
        helper = np.where(np.abs(d[:, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]])
        first = np.cross(d, helper)
        first /= np.linalg.norm(first, axis=1, keepdims=True)
        self._tangents = (first, np.cross(d, first))
        self._step = np.sqrt(pattern.solid_angle)
        self._farthest = farthest

    def lit(
        self,
        hits: RayHits,
        ranges: NDArray[np.floating],
        world_from_heads: NDArray[np.float64],
        directions: NDArray[np.float64],
        caster: SurfaceCaster | None = None,
    ) -> tuple[SeenSurfaces, ...] | None:
        """What this ping lit, cone by cone, or ``None`` for a caster without triangles.

        ``hits`` of the rays ``directions`` (world frame; ``k`` cones of the pattern's rays
        one after the other), ``ranges`` their direct ranges; ``world_from_heads`` (k, 4, 4)
        each cone's pose (x its axis); ``caster``: the one that cast them, for the ground
        below the objects (``fan_lighting.ground_below``).
        """
        n = self._step.size
        r = np.asarray(ranges, dtype=np.float64).ravel()
        seen = []
        for k, pose in enumerate(world_from_heads):  # per cone (a few), not per ray
            rays = slice(k * n, (k + 1) * n)
            step = self._step * np.where(np.isfinite(r[rays]), r[rays], 0.0)
            steps = tuple((t @ pose[:3, :3].T, step) for t in self._tangents)
            part = seen_surfaces(
                hits,
                r[rays],
                pose,
                directions[rays],
                steps,
                self._ray,
                self._farthest,
                rays,
                caster,
            )
            if part is None:
                return None
            seen.append(part)
        return tuple(seen)

    def _ray(self, body: NDArray[np.float64], r: NDArray[np.float64]) -> NDArray[np.intp]:
        """The ray nearest each point's direction (m, 3, head frame; ``r`` its range)."""
        unit = body / np.maximum(r, 1e-12)[:, None]
        ray: NDArray[np.intp] = self._tree.query(unit)[1].astype(np.intp)
        return ray


def cone_two_way(echo: EchoConfig) -> ChannelPattern:
    """A cone's two-way pattern at points (m, 3, its frame: x its axis), 0 past its cast.

    The beam's ``pattern`` of ``beam_width`` at the angle from the axis, ``n_way`` times, as
    the incoherent model weighs the cone's rays; every point is channel 0's.
    """

    def pattern(body: NDArray[np.float64]) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        r = np.linalg.norm(body, axis=1)
        psi = np.arccos(np.clip(body[:, 0] / np.maximum(r, 1e-12), -1.0, 1.0))
        inside = psi <= echo.cast_half_angle
        weight = beam_intensity(
            echo.pattern, np.where(inside, psi, 0.0), echo.beam_width, echo.n_way
        )
        return np.zeros(r.size, dtype=np.intp), np.where(inside, weight, 0.0)

    return pattern
