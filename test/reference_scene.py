"""The reference scenario's geometry (DESIGN.md), for tests to compute expected values from.

A sonar at (2.1, 1.0, 1.0) looks along world +y; a vertical cylinder of radius 0.25 m and
length 1 m is centred on (2.1, 3.0, 1.0); the tank's inner faces are x = 0..4.27 and
y = 0..6.54. The scene tessellates the cylinder as a 64-gon with a vertex facing -y, which
lies at most ``FACETING`` inside the circle.
"""

from __future__ import annotations

import math

import numpy as np

from nps_sonar_py.sensing import cone_half_angle, cone_pattern

#: The reference sonar on a joint "pan" about z at its own origin (its boresight along +y).
PAN_ROBOT = """<?xml version="1.0"?>
<robot name="pan_sonar">
  <link name="base_link"/>
  <link name="head"/>
  <joint name="pan" type="revolute">
    <parent link="base_link"/><child link="head"/>
    <origin xyz="2.1 1.0 1.0" rpy="0 0 1.5707963267948966"/>
    <axis xyz="0 0 1"/><limit lower="-3.2" upper="3.2" effort="1" velocity="1"/>
  </joint>
  <sensor name="sonar" type="sonar" update_rate="20">
    <parent link="head"/>
    <origin xyz="0 0 0" rpy="-1.5707963267948966 0 -1.5707963267948966"/>
    <sonar><min>0.1</min><max>7</max><radius>0.5</radius></sonar>
  </sensor>
</robot>
"""

SONAR = np.array([2.1, 1.0, 1.0])
CYLINDER_CENTRE = np.array([2.1, 3.0])
CYLINDER_RADIUS = 0.25
MIN_RANGE, MAX_RANGE, CONE_RADIUS = 0.1, 7.0, 0.5
CONE_HALF_ANGLE = cone_half_angle(CONE_RADIUS, MAX_RANGE)
FACETING = CYLINDER_RADIUS * (1 - math.cos(math.pi / 64))


def world_directions(n_rays: int, half_angle: float = CONE_HALF_ANGLE) -> np.ndarray:
    """The documented cone (body x forward) turned to world +y: body (a, b, c) -> (-b, a, c)."""
    d = cone_pattern(half_angle, n_rays).directions
    return np.column_stack((-d[:, 1], d[:, 0], d[:, 2]))


def cylinder_hits(origin: np.ndarray, directions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Range (inf on a miss) and outward unit normal of each ray's first hit on the cylinder."""
    h = directions[:, :2]
    f = origin[:2] - CYLINDER_CENTRE
    a = np.einsum('ij,ij->i', h, h)
    b = 2 * h @ f
    c = f @ f - CYLINDER_RADIUS**2
    discriminant = b * b - 4 * a * c
    t = np.where(discriminant >= 0, (-b - np.sqrt(np.maximum(discriminant, 0))) / (2 * a), np.inf)
    z = origin[2] + t * directions[:, 2]
    assert np.all(~np.isfinite(t) | ((z > 0.5) & (z < 1.5))), 'rays meet the side of the cylinder'
    point = origin[:2] + np.where(np.isfinite(t), t, 0.0)[:, None] * h
    normal = np.column_stack(((point - CYLINDER_CENTRE) / CYLINDER_RADIUS, np.zeros(len(t))))
    return t, normal
