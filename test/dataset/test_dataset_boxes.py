"""Oriented boxes of objects cut by the image's edge stay within the image (issue 37, item 7).

The smallest rectangle around an instance's pixels may stick out of the image when the object
is cut by its edge (its long side at an angle to the edge): a YOLO-OBB line with a corner
outside ``[0, 1]``. The box is then the smallest rectangle that holds every pixel and lies
within the image. Checked on rotated bars drawn in the test, against the pixels' corners.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from nps_sonar_py.dataset.boxes import instance_boxes, oriented_box

SIZE = (40, 60)  # H, W


def _bar(cx: float, cy: float, length: float, width: float, angle: float) -> np.ndarray:
    """The pixels (H, W) whose centres lie in the rotated rectangle."""
    y, x = np.mgrid[0 : SIZE[0], 0 : SIZE[1]] + 0.5
    a = math.radians(angle)
    u = (x - cx) * math.cos(a) + (y - cy) * math.sin(a)
    v = -(x - cx) * math.sin(a) + (y - cy) * math.cos(a)
    return (np.abs(u) < length / 2) & (np.abs(v) < width / 2)


def _holds(corners: list[float], rows: np.ndarray, cols: np.ndarray) -> bool:
    """Every pixel's corners inside the quadrilateral ``corners`` (convex, either order)."""
    quad = np.asarray(corners).reshape(4, 2)
    points = np.concatenate(
        [np.stack([cols + dx, rows + dy], -1) for dx in (0, 1) for dy in (0, 1)]
    ).astype(float)
    sides = []
    for k in range(4):
        edge = quad[(k + 1) % 4] - quad[k]
        rel = points - quad[k]
        sides.append(edge[0] * rel[:, 1] - edge[1] * rel[:, 0])
    crosses = np.stack(sides)
    return bool(np.all(crosses >= -1e-3) or np.all(crosses <= 1e-3))


@pytest.mark.parametrize(
    ('cx', 'cy', 'angle'),
    [(2.0, 20.0, 30.0), (58.0, 5.0, -40.0), (30.0, 37.0, 35.0), (1.0, 1.0, 45.0)],
)
def test_a_box_of_an_object_cut_by_the_edge_stays_inside(
    cx: float, cy: float, angle: float
) -> None:
    rows, cols = np.nonzero(_bar(cx, cy, 24.0, 5.0, angle))
    free_obb, free = oriented_box(rows, cols)
    obb, corners = oriented_box(rows, cols, SIZE)
    xs, ys = np.asarray(corners[0::2]), np.asarray(corners[1::2])
    assert np.all((xs >= 0) & (xs <= SIZE[1]))
    assert np.all((ys >= 0) & (ys <= SIZE[0]))
    assert _holds(corners, rows, cols)
    width = cols.max() + 1 - cols.min()
    height = rows.max() + 1 - rows.min()
    assert obb[2] * obb[3] <= width * height + 1e-6  # no larger than the axis-aligned box
    assert obb[2] >= obb[3]
    # Negative control: the unconstrained smallest rectangle sticks out of the image.
    fx, fy = np.asarray(free[0::2]), np.asarray(free[1::2])
    assert np.any((fx < -1e-6) | (fx > SIZE[1] + 1e-6) | (fy < -1e-6) | (fy > SIZE[0] + 1e-6))
    assert _holds(free, rows, cols)
    assert free_obb[2] * free_obb[3] <= obb[2] * obb[3] + 1e-6


def test_a_box_inside_the_image_is_the_smallest_rectangle() -> None:
    rows, cols = np.nonzero(_bar(30.0, 20.0, 24.0, 5.0, 30.0))
    assert oriented_box(rows, cols, SIZE) == oriented_box(rows, cols)
    obb, _ = oriented_box(rows, cols, SIZE)
    assert abs(obb[4] - 30.0) < 5.0  # along the bar
    assert obb[2] * obb[3] < 0.5 * (np.ptp(cols) + 1) * (np.ptp(rows) + 1)


def test_instance_boxes_keep_every_corner_in_the_image() -> None:
    instance = np.zeros(SIZE, dtype=np.uint16)
    instance[_bar(2.0, 20.0, 24.0, 5.0, 30.0)] = 2
    instance[_bar(45.0, 38.0, 20.0, 4.0, -20.0)] = 3
    boxes = instance_boxes(instance)
    assert [b['instance'] for b in boxes] == [2, 3]
    for box in boxes:
        corners = np.asarray(box['obb_corners']).reshape(4, 2)
        assert np.all(corners >= 0.0)
        assert np.all(corners <= [SIZE[1], SIZE[0]])
