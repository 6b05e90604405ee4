"""The near small triangles of a formed fan's ping are found exactly (issue 33, speed).

``near_triangles.near_small`` culls by a voxel grid of the centres and two k-d passes; its
answer must be the rule's, computed here by brute force over every (centre, hit) pair: a
small unhit triangle is lit when its nearest hit lies within that hit's spacing plus the
triangle's radius. The hits' spacings are mostly small with a few wide (grazing) ones, so
both passes and the grid's cull are exercised. Control: the same brute force with the
grazing hits' spacing cut to the usual ones' (the first pass alone) lights fewer.
"""

from __future__ import annotations

import numpy as np

from nps_sonar_py.echo.near_triangles import near_small, small_triangles


def seabed(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A jittered 120 x 120 grid of small triangles over 60 m square, their corners and ids."""
    x, y = np.meshgrid(np.arange(120) * 0.5, np.arange(120) * 0.5, indexing='ij')
    base = np.stack([x.ravel(), y.ravel(), 0.05 * rng.standard_normal(x.size)], axis=1)
    corners = base[:, None, :] + np.array([[0.0, 0.0, 0.0], [0.4, 0.0, 0.0], [0.0, 0.4, 0.0]])
    return corners, np.arange(corners.shape[0], dtype=np.int64)


def brute(
    centre: np.ndarray, radius: np.ndarray, points: np.ndarray, spacing: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Rows whose nearest hit is within its spacing plus the radius, and that hit."""
    nearest = np.empty(centre.shape[0], dtype=np.intp)
    apart = np.empty(centre.shape[0])
    for start in range(0, centre.shape[0], 500):  # 500 centres at a time: small temporaries
        rows = slice(start, start + 500)
        distance = np.linalg.norm(centre[rows, None, :] - points[None, :, :], axis=2)
        nearest[rows] = np.argmin(distance, axis=1)
        apart[rows] = distance.min(axis=1)
    lit = apart <= spacing[nearest] + radius
    return np.flatnonzero(lit), nearest[lit]


def test_the_near_triangles_are_the_brute_forces() -> None:
    rng = np.random.default_rng(3)
    corners, ids = seabed(rng)
    small = small_triangles(ids, corners, 100.0, 256)
    hit = np.sort(rng.choice(ids, 80, replace=False))
    points = small.centre[hit] + rng.uniform(-0.1, 0.1, (hit.size, 3))
    spacing = rng.uniform(0.2, 1.0, hit.size)
    spacing[rng.choice(hit.size, 6, replace=False)] = rng.uniform(8.0, 15.0, 6)  # grazing
    rows, nearest = near_small(small, hit, points, spacing)
    unhit = np.setdiff1d(np.arange(ids.size), hit)
    lit, closest = brute(small.centre[unhit], small.radius[unhit], points, spacing)
    assert np.array_equal(rows, unhit[lit])
    assert np.array_equal(nearest, closest)
    assert rows.size > 1000  # the grazing hits light many
    # Control: without the grazing hits' reach (the first pass alone) far fewer are lit.
    usual = np.minimum(spacing, np.quantile(spacing, 0.9))
    fewer, _ = brute(small.centre[unhit], small.radius[unhit], points, usual)
    assert fewer.size < 0.7 * rows.size
