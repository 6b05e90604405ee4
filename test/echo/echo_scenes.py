"""Analytic scenes for the echo tests: ray-plane, ray-plate and ray-sphere hits in numpy.

Not a test module (no ``test_`` prefix); the echo tests import it by name, which pytest's
default ``prepend`` import mode allows because ``test/echo`` has no ``__init__.py``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.sensing.cone import RayPattern, cone_pattern

Array = NDArray[np.float64]


def unit(v: Array) -> Array:
    v = np.asarray(v, dtype=np.float64)
    return v / np.linalg.norm(v)


def rotation_about(axis: Array, angle: float) -> Array:
    """Rotation matrix about ``axis`` by ``angle`` (Rodrigues)."""
    k = unit(axis)
    kx = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + math.sin(angle) * kx + (1.0 - math.cos(angle)) * kx @ kx


def tilted_normal(theta: float, azimuth: float = 0.0) -> Array:
    """Unit vector at angle ``theta`` from +x, tilted towards azimuth ``azimuth`` about x."""
    s = math.sin(theta)
    return np.array([math.cos(theta), s * math.cos(azimuth), s * math.sin(azimuth)])


def plane_hits(directions: Array, point: Array, normal: Array) -> tuple[Array, Array]:
    """Range and |cos incidence| of rays from the origin on the plane through ``point``."""
    n = unit(normal)
    dn = directions @ n
    with np.errstate(divide='ignore', invalid='ignore'):
        t = float(np.dot(point, n)) / dn
    t = np.where((t > 0.0) & np.isfinite(t), t, np.inf)
    return t, np.abs(dn)


def plate_hits(
    directions: Array, centre: Array, normal: Array, u_axis: Array, half_u: float, half_v: float
) -> tuple[Array, Array]:
    """Hits on the rectangle ``|u| <= half_u, |v| <= half_v`` about ``centre`` in its plane."""
    n = unit(normal)
    u = unit(u_axis)
    v = np.cross(n, u)
    t, cos = plane_hits(directions, centre, n)
    with np.errstate(invalid='ignore'):
        p = directions * t[:, None] - centre
        inside = (np.abs(p @ u) <= half_u) & (np.abs(p @ v) <= half_v)
    return np.where(inside, t, np.inf), cos


def sphere_hits(directions: Array, centre: Array, radius: float) -> tuple[Array, Array]:
    """Nearest hit of rays from the origin on a sphere, and |cos incidence| there."""
    c = np.asarray(centre, dtype=np.float64)
    b = directions @ c
    disc = b * b - (float(c @ c) - radius * radius)
    hit = disc >= 0.0
    t = np.where(hit, b - np.sqrt(np.where(hit, disc, 0.0)), np.inf)
    t = np.where(t > 0.0, t, np.inf)
    with np.errstate(invalid='ignore'):
        normal = (directions * t[:, None] - c) / radius
        cos = np.abs(np.einsum('ij,ij->i', directions, normal))
    return t, np.where(np.isfinite(t), cos, 0.0)


def cone_towards(direction: Array, half_angle: float, n: int) -> tuple[Array, Array, Array]:
    """Equal-solid-angle rays in a cone about ``direction``: directions, off-axis, dOmega."""
    rays: RayPattern = cone_pattern(half_angle, n)
    d = unit(direction)
    axis = np.cross([1.0, 0.0, 0.0], d)
    if np.linalg.norm(axis) < 1e-15:
        rotated = rays.directions
    else:
        rotated = rays.directions @ rotation_about(axis, math.acos(np.clip(d[0], -1.0, 1.0))).T
    off_axis = np.arccos(np.clip(rotated[:, 0], -1.0, 1.0))
    return rotated, off_axis, rays.solid_angle
