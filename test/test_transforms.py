"""Transforms against hand-computed rotations and the frame convention of the sensor proposal."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nps_sonar_py.transforms import (
    BODY_FROM_OPTICAL,
    axis_angle_matrix,
    invert_transform,
    matrix_to_quaternion,
    matrix_to_rpy,
    rpy_to_matrix,
    transform_from_xyz_rpy,
)

angles = st.floats(-math.pi, math.pi, allow_nan=False)


def test_yaw_quarter_turn_maps_x_to_y() -> None:
    np.testing.assert_allclose(
        rpy_to_matrix([0, 0, math.pi / 2]) @ [1, 0, 0], [0, 1, 0], atol=1e-15
    )


def test_rpy_is_fixed_axis_roll_then_pitch_then_yaw() -> None:
    roll, pitch, yaw = 0.3, -0.4, 1.1
    expected = (
        axis_angle_matrix([0, 0, 1], yaw)
        @ axis_angle_matrix([0, 1, 0], pitch)
        @ axis_angle_matrix([1, 0, 0], roll)
    )
    np.testing.assert_allclose(rpy_to_matrix([roll, pitch, yaw]), expected, atol=1e-14)


@settings(max_examples=200, deadline=None)
@given(angles, st.floats(-1.5, 1.5), angles)
def test_rpy_round_trip(roll: float, pitch: float, yaw: float) -> None:
    r = rpy_to_matrix([roll, pitch, yaw])
    np.testing.assert_allclose(rpy_to_matrix(matrix_to_rpy(r)), r, atol=1e-12)


def test_optical_frame_convention() -> None:
    # optical z (forward) is body x, optical x (right) is body -y, optical y (down) is body -z
    np.testing.assert_array_equal(BODY_FROM_OPTICAL @ [0, 0, 1], [1, 0, 0])
    np.testing.assert_array_equal(BODY_FROM_OPTICAL @ [1, 0, 0], [0, -1, 0])
    np.testing.assert_array_equal(BODY_FROM_OPTICAL @ [0, 1, 0], [0, 0, -1])
    # the usual URDF optical origin rpy = (-pi/2, 0, -pi/2) is exactly body<-optical
    np.testing.assert_allclose(
        rpy_to_matrix([-math.pi / 2, 0, -math.pi / 2]), BODY_FROM_OPTICAL, atol=1e-15
    )


def test_inverse_transform() -> None:
    t = transform_from_xyz_rpy([1.0, -2.0, 0.5], [0.1, 0.2, 0.3])
    np.testing.assert_allclose(invert_transform(t) @ t, np.eye(4), atol=1e-14)


@pytest.mark.parametrize(
    ('axis', 'angle', 'quaternion'),
    [
        ([0, 0, 1], math.pi / 2, [0, 0, math.sin(math.pi / 4), math.cos(math.pi / 4)]),
        ([1, 0, 0], math.pi, [1, 0, 0, 0]),
        ([0, 1, 0], 0.0, [0, 0, 0, 1]),
    ],
)
def test_quaternion_xyzw(axis: list[float], angle: float, quaternion: list[float]) -> None:
    np.testing.assert_allclose(
        matrix_to_quaternion(axis_angle_matrix(axis, angle)), quaternion, atol=1e-15
    )
