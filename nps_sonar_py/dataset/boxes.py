"""Boxes of each object instance from its mask: axis-aligned, oriented, and the mask's RLE.

Pixel ``(row, col)`` covers ``[col, col + 1] x [row, row + 1]`` of the image plane (x right,
y down, COCO's convention). The axis-aligned box ``[x, y, w, h]`` is the smallest holding
every pixel of the instance; the oriented box the smallest-area rectangle holding every
pixel's corners (one of its sides lies along an edge of their convex hull: rotating
calipers over the hull's edges), ``[cx, cy, w, h, angle]`` with ``w >= h`` and the angle of
its long side from +x in degrees, in ``(-90, 90]``, and its four corners. The mask is
COCO's uncompressed RLE: run lengths of the column-major pixels, starting with a run of 0s.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.spatial import ConvexHull, QhullError

__all__ = ['MIN_PIXELS', 'instance_boxes', 'oriented_box', 'rle']

#: An instance with fewer pixels than this gets no box (a speck is no object to detect).
MIN_PIXELS = 4


def rle(mask: NDArray[np.bool_]) -> dict[str, Any]:
    """COCO uncompressed RLE of ``mask`` (H, W): ``{"counts": [...], "size": [H, W]}``."""
    flat = np.asarray(mask, dtype=np.uint8).ravel(order='F')
    changes = np.flatnonzero(np.diff(flat)) + 1
    edges = np.concatenate(([0], changes, [flat.size]))
    counts = np.diff(edges).tolist()
    if flat.size and flat[0]:
        counts = [0, *counts]
    return {'counts': counts, 'size': [int(mask.shape[0]), int(mask.shape[1])]}


def oriented_box(
    rows: NDArray[np.intp], cols: NDArray[np.intp], shape: tuple[int, int] | None = None
) -> tuple[list[float], list[float]]:
    """``([cx, cy, w, h, angle], corners)`` of the pixels ``(rows, cols)`` (module docstring).

    With ``shape`` (the image's ``(H, W)``) the smallest rectangle that also lies within the
    image ``[0, W] x [0, H]``: an object cut by the image's edge gets no corner outside it.
    The axis-aligned rectangle always does (it is among the candidates: a hull of pixel
    corners has an edge along each axis), so there is always one.
    """
    corners = np.concatenate(
        [np.stack([cols + dx, rows + dy], axis=-1) for dx in (0, 1) for dy in (0, 1)]
    ).astype(np.float64)
    points = np.unique(corners, axis=0)
    try:
        hull = points[ConvexHull(points).vertices]
    except QhullError:  # a straight row or column of pixels: every corner on two lines
        hull = points
    edges = np.roll(hull, -1, axis=0) - hull
    angles = np.unique(np.mod(np.arctan2(edges[:, 1], edges[:, 0]), math.pi / 2))
    c, s = np.cos(angles), np.sin(angles)
    u = hull[:, 0, None] * c + hull[:, 1, None] * s  # (points, angles): along each direction
    v = -hull[:, 0, None] * s + hull[:, 1, None] * c
    low_u, high_u, low_v, high_v = u.min(0), u.max(0), v.min(0), v.max(0)
    # (angles, 4, 2): each candidate's corners, (u, v) back to (x, y)
    box_u = np.stack([low_u, high_u, high_u, low_u], axis=-1)
    box_v = np.stack([low_v, low_v, high_v, high_v], axis=-1)
    box = np.stack(
        [box_u * c[:, None] - box_v * s[:, None], box_u * s[:, None] + box_v * c[:, None]], -1
    )
    area = (high_u - low_u) * (high_v - low_v)
    if shape is not None:
        limit = np.array([shape[1], shape[0]], dtype=np.float64)
        inside = np.all((box >= -1e-9) & (box <= limit + 1e-9), axis=(1, 2))
        area = np.where(inside, area, np.inf)
    best = int(np.argmin(area))
    a = float(angles[best])
    w, h = float(high_u[best] - low_u[best]), float(high_v[best] - low_v[best])
    points4 = box[best]
    cx, cy = (float(value) for value in points4.mean(axis=0))
    if h > w:  # the long side first: start the corners one later
        w, h, a = h, w, a + math.pi / 2
        points4 = np.roll(points4, -1, axis=0)
    if a > math.pi / 2:  # the same side, turned half a turn: the corners two on
        a -= math.pi
        points4 = np.roll(points4, -2, axis=0)
    if shape is not None:
        points4 = np.clip(points4, 0.0, [shape[1], shape[0]])  # the 1e-9 left over
    flat = [round(float(value), 4) + 0.0 for point in points4 for value in point]
    return [round(cx, 4), round(cy, 4), round(w, 4), round(h, 4), round(math.degrees(a), 4)], flat


def instance_boxes(instance: NDArray[np.integer], first: int = 2) -> list[dict[str, Any]]:
    """Per instance ``>= first`` with at least :data:`MIN_PIXELS` pixels, in instance order.

    Each: ``instance``, ``bbox`` ``[x, y, w, h]``, ``area`` (pixels), ``obb``, ``obb_corners``
    and ``segmentation`` (RLE).
    """
    found = []
    for value in np.unique(instance):
        if value < first:
            continue
        mask = instance == value
        rows, cols = np.nonzero(mask)
        if rows.size < MIN_PIXELS:
            continue
        x0, y0 = int(cols.min()), int(rows.min())
        obb, corners = oriented_box(rows, cols, instance.shape[:2])
        found.append(
            {
                'instance': int(value),
                'bbox': [x0, y0, int(cols.max()) + 1 - x0, int(rows.max()) + 1 - y0],
                'area': int(rows.size),
                'obb': obb,
                'obb_corners': corners,
                'segmentation': rle(mask),
            }
        )
    return found
