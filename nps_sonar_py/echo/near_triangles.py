"""The small unhit triangles near a ping's hits, with their geometry kept while it stands still.

A small object tessellated finer than the rays land apart keeps all its lit scatterers, not
only its hit triangles' (``surface_echoes.py``): its small triangles within the rays' spacing
of the nearest hit on their entity are lit too. Finding them is the costly part of placing a
ping's scatterers (an entity's triangles all considered: a 2e5-triangle seabed), so
:class:`SmallTriangles` keeps each entity set's small triangles' corners, centres and radii
from ping to ping, made anew when any corner moved (a moved entity: its scatterers move).

The nearest hit of each centre is found in two passes, both exact: within a bound about the
rays' usual spacing, then, for the centres farther, only those within reach of a hit of a
larger spacing (a grazing ray's) are looked up again.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.spatial import cKDTree

__all__ = ['Small', 'SmallTriangles', 'areas', 'near_small']

#: The share of hits whose spacing the first pass's bound covers.
_USUAL = 0.99


@dataclass(frozen=True)
class Small:
    """Some entities' small triangles: sorted ``ids``, ``corners``, ``centre``, ``radius``."""

    ids: NDArray[np.int64]
    corners: NDArray[np.float64]
    centre: NDArray[np.float64]
    radius: NDArray[np.float64]


def areas(corners: NDArray[np.float64]) -> NDArray[np.float64]:
    """(k,) the areas of triangles ``corners`` (k, 3, 3)."""
    cross = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    area: NDArray[np.float64] = 0.5 * np.linalg.norm(cross, axis=1)
    return area


def small_triangles(
    siblings: NDArray[np.int64], corners: NDArray[np.float64], density: float, most: int
) -> Small:
    """Those of triangles ``siblings`` (``corners``) of at most ``most`` scatterers."""
    small = areas(corners) * density <= most
    corners = corners[small]
    centre = corners.mean(axis=1)
    radius = np.max(np.linalg.norm(corners - centre[:, None, :], axis=2), axis=1)
    return Small(siblings[small], corners, centre, radius)


class SmallTriangles:
    """The last entity set's small triangles, kept while their corners are unchanged."""

    def __init__(self) -> None:
        self._key: tuple[NDArray[np.int64], NDArray[np.float64], float, int] | None = None
        self._small: Small | None = None

    def of(
        self,
        siblings: NDArray[np.int64],
        corners: NDArray[np.float64],
        density: float,
        most: int,
    ) -> Small:
        """:func:`small_triangles`, from the last call's if the same triangles stand still."""
        key = self._key
        if (
            self._small is None
            or key is None
            or key[2:] != (density, most)
            or not np.array_equal(key[0], siblings)
            or not self.still(key[1], corners)
        ):
            self._small = small_triangles(siblings, corners, density, most)
            self._key = (siblings, corners, density, most)
        return self._small

    def still(self, before: NDArray[np.float64], now: NDArray[np.float64]) -> bool:
        """Whether the triangles stand where they stood (every corner equal)."""
        return bool(np.array_equal(before, now))


def near_small(
    small: Small,
    ids: NDArray[np.int64],
    points: NDArray[np.float64],
    spacing: NDArray[np.float64],
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Rows of ``small`` not among the hit ``ids`` within the spacing of their nearest hit.

    Args:
        small: the entities' small triangles.
        ids: the sorted ids of the hit triangles.
        points: (h, 3) the hits, m.
        spacing: (h,) the rays' spacing at each hit, m.

    Returns:
        The rows of ``small`` lit and the nearest hit of each (rows of ``points``).
    """
    at = np.minimum(np.searchsorted(ids, small.ids), max(ids.size - 1, 0))
    rows = np.flatnonzero(ids[at] != small.ids) if ids.size else np.arange(small.ids.size)
    if rows.size == 0 or points.shape[0] == 0:
        return np.zeros(0, np.intp), np.zeros(0, np.intp)
    centre, radius = small.centre[rows], small.radius[rows]
    tree = cKDTree(points)
    bound = float(np.quantile(spacing, _USUAL) + radius.max())
    distance, nearest = tree.query(centre, distance_upper_bound=bound)
    found = np.isfinite(distance)
    # Farther than ``bound``: lit only by a hit of spacing above ``bound - radius``.
    wide = np.flatnonzero(spacing > bound - radius.max())
    far = np.flatnonzero(~found)
    if wide.size and far.size:
        reach = float(spacing[wide].max() + radius.max())
        apart, _ = cKDTree(points[wide]).query(centre[far], distance_upper_bound=reach)
        far = far[apart <= spacing[wide].max() + radius[far]]
        distance[far], nearest[far] = tree.query(centre[far], distance_upper_bound=reach)
        found[far] = np.isfinite(distance[far])
    near = np.flatnonzero(found)
    near = near[distance[near] <= spacing[nearest[near]] + radius[near]]
    return rows[near], nearest[near]
