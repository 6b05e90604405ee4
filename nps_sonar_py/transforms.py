"""Rigid transforms as 4x4 numpy matrices, in the conventions of URDF and REP 103.

Names read right to left, as the products they appear in: ``a_from_b`` is the transform that
maps coordinates in frame ``b`` into frame ``a`` (the pose of frame ``b`` in frame ``a``, tf2's
``a <- b``), so that ``world_from_root @ root_from_device`` is ``world_from_device``; a
constant is named the same way in capitals (``BODY_FROM_OPTICAL``). Angles are in radians;
``rpy`` is URDF's fixed-axis roll, pitch, yaw, so ``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)``.
Quaternions are ``(x, y, z, w)`` as in ROS.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    'BODY_FROM_OPTICAL',
    'axis_angle_matrix',
    'invert_transform',
    'matrix_from_quaternion',
    'matrix_to_quaternion',
    'matrix_to_rpy',
    'move_coordinates',
    'rotate_rows',
    'rpy_to_matrix',
    'transform_from',
    'transform_from_xyz_rpy',
]

FloatArray = NDArray[np.float64]

#: Rotation taking optical-frame coordinates (z forward, x right, y down; the frame of a
#: URDF ``<sensor><origin>``) to body-frame coordinates (x forward, y left, z up; REP 103).
BODY_FROM_OPTICAL: FloatArray = np.array(
    [[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]],
)


def rpy_to_matrix(rpy: ArrayLike) -> FloatArray:
    """Rotation matrix of URDF fixed-axis roll, pitch, yaw (radians)."""
    roll, pitch, yaw = np.asarray(rpy, dtype=np.float64).reshape(3)
    cr, sr = np.cos(roll), np.sin(roll)
    cp, sp = np.cos(pitch), np.sin(pitch)
    cy, sy = np.cos(yaw), np.sin(yaw)
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ],
    )


def matrix_to_rpy(rotation: ArrayLike) -> FloatArray:
    """Fixed-axis roll, pitch, yaw of a rotation matrix (inverse of :func:`rpy_to_matrix`)."""
    r = np.asarray(rotation, dtype=np.float64)
    pitch = np.arcsin(np.clip(-r[2, 0], -1.0, 1.0))
    if abs(np.cos(pitch)) < 1e-9:  # gimbal lock: put the whole yaw into roll
        return np.array([np.arctan2(-r[1, 2], r[1, 1]), pitch, 0.0])
    return np.array([np.arctan2(r[2, 1], r[2, 2]), pitch, np.arctan2(r[1, 0], r[0, 0])])


def axis_angle_matrix(axis: ArrayLike, angle: float) -> FloatArray:
    """Rotation by ``angle`` radians about the unit vector ``axis`` (Rodrigues)."""
    a = np.asarray(axis, dtype=np.float64).reshape(3)
    a = a / np.linalg.norm(a)
    k = np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    rotation: FloatArray = np.eye(3) + np.sin(angle) * k + (1.0 - np.cos(angle)) * (k @ k)
    return rotation


def transform_from(rotation: ArrayLike, translation: ArrayLike) -> FloatArray:
    """4x4 transform from a 3x3 rotation and a translation."""
    t = np.eye(4)
    t[:3, :3] = np.asarray(rotation, dtype=np.float64)
    t[:3, 3] = np.asarray(translation, dtype=np.float64).reshape(3)
    return t


def transform_from_xyz_rpy(
    xyz: Sequence[float] | ArrayLike, rpy: Sequence[float] | ArrayLike
) -> FloatArray:
    """4x4 transform of a URDF ``<origin xyz rpy>``."""
    return transform_from(rpy_to_matrix(rpy), xyz)


def invert_transform(a_from_b: ArrayLike) -> FloatArray:
    """``b_from_a`` of a rigid 4x4 ``a_from_b``, without a general matrix inverse."""
    m = np.asarray(a_from_b, dtype=np.float64)
    r_t = m[:3, :3].T
    return transform_from(r_t, -r_t @ m[:3, 3])


def matrix_to_quaternion(rotation: ArrayLike) -> FloatArray:
    """Unit quaternion ``(x, y, z, w)`` of a rotation matrix, with ``w >= 0``."""
    r = np.asarray(rotation, dtype=np.float64)[:3, :3]
    trace = np.trace(r)
    if trace > 0.0:
        s = 2.0 * np.sqrt(trace + 1.0)
        q = np.array(
            [(r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s, 0.25 * s]
        )
    else:
        i = int(np.argmax(np.diag(r)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * np.sqrt(1.0 + r[i, i] - r[j, j] - r[k, k])
        q = np.empty(4)
        q[i] = 0.25 * s
        q[j] = (r[j, i] + r[i, j]) / s
        q[k] = (r[k, i] + r[i, k]) / s
        q[3] = (r[k, j] - r[j, k]) / s
    q /= np.linalg.norm(q)
    return q if q[3] >= 0.0 else -q


def matrix_from_quaternion(x: float, y: float, z: float, w: float) -> FloatArray:
    """Rotation matrix of a quaternion ``(x, y, z, w)`` (normalised first)."""
    n = math.sqrt(x * x + y * y + z * z + w * w)
    if not n > 0.0:
        msg = 'a quaternion of zero length is no rotation'
        raise ValueError(msg)
    x, y, z, w = x / n, y / n, z / n, w / n
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def rotate_rows(
    vectors: NDArray[np.float64], rotation: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``vectors @ rotation.T`` for (n, 3) rows and a (3, 3) matrix, without BLAS.

    Why: right after an Open3D cast, OpenBLAS's threads wait for cores that Open3D's pool
    holds, and ``(1e5, 3) @ (3, 3)`` measured 31 ms instead of 0.15 ms; einsum runs in the
    calling thread (1.3 ms), every time.
    """
    rotated: NDArray[np.float64] = np.einsum('ij,kj->ik', vectors, rotation)
    return rotated


def move_coordinates(
    xyz: NDArray[np.float64],
    rotation: NDArray[np.float64],
    origin: NDArray[np.float64],
    out: NDArray[np.float64],
) -> None:
    """``out = rotation @ xyz + origin`` for (3, n) points kept coordinate by coordinate.

    Row by row over contiguous coordinates, without BLAS (:func:`rotate_rows`) and without
    einsum's strided (n, 3) passes: a sixth of ``rotate_rows``'s time for a million points
    (the same sums in the same order). ``out`` (3, n) must not overlap ``xyz``.
    """
    spare = np.empty(xyz.shape[1])
    for k in range(3):
        row = out[k]
        np.multiply(xyz[0], rotation[k, 0], out=row)
        np.multiply(xyz[1], rotation[k, 1], out=spare)
        row += spare
        np.multiply(xyz[2], rotation[k, 2], out=spare)
        row += spare
        row += origin[k]
