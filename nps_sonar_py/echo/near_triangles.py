"""The small unhit triangles near a ping's hits.

A small object tessellated finer than the rays land apart keeps all its lit scatterers, not
only its hit triangles' (``surface_echoes.py``): its small triangles within the rays' spacing
of the nearest hit on their entity are lit too. Their centres and radii are an entity's,
in its own frame, kept with its scatterers (``entity_scatterers.EntityScatterers``).

The nearest hit of each centre is found in two passes, both exact: within a bound about the
rays' usual spacing, then, for the centres farther, only those within the spacing of their
nearest hit of a larger spacing (a grazing ray's) are looked up again.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.spatial import cKDTree

__all__ = ['Small', 'areas', 'near_small', 'small_triangles']

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
    distance = np.full(rows.size, np.inf)
    nearest = np.zeros(rows.size, dtype=np.intp)
    box = np.flatnonzero(_in_box(centre, points, bound))  # only those can be within bound
    distance[box], nearest[box] = tree.query(centre[box], distance_upper_bound=bound)
    found = np.isfinite(distance)
    # Farther than ``bound``: lit only by a hit of spacing above ``bound - radius``.
    wide = np.flatnonzero(spacing > bound - radius.max())
    far = np.flatnonzero(~found)
    if wide.size and far.size:
        reach = float(spacing[wide].max() + radius.max())
        far = far[_in_box(centre[far], points[wide], reach)]
        apart, which = cKDTree(points[wide]).query(centre[far], distance_upper_bound=reach)
        # Lit only if its nearest hit is wide: then the nearest wide hit, within its spacing.
        wider = np.append(spacing[wide], 0.0)  # a miss's: none
        far = far[apart <= wider[which] + radius[far]]
        distance[far], nearest[far] = tree.query(centre[far], distance_upper_bound=reach)
        found[far] = np.isfinite(distance[far])
    near = np.flatnonzero(found)
    near = near[distance[near] <= spacing[nearest[near]] + radius[near]]
    return rows[near], nearest[near]


def _in_box(
    centre: NDArray[np.float64], points: NDArray[np.float64], margin: float
) -> NDArray[np.bool_]:
    """Which ``centre`` lie within ``margin`` of the box about ``points`` (a cheap cull)."""
    low, high = points.min(axis=0) - margin, points.max(axis=0) + margin
    inside: NDArray[np.bool_] = np.all((centre >= low) & (centre <= high), axis=1)
    return inside
