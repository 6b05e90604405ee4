"""Poses through links and joints, against values computed by hand or by an independent oracle."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from nps_sonar_py.description import DescriptionError, JointType, SensorFrame, parse_robot


def chain_robot(joints: str, links: str = '<link name="a"/><link name="b"/>') -> str:
    return f'<robot name="r"><link name="base"/>{links}{joints}</robot>'


def test_fixed_joints_compose():
    robot = parse_robot(
        chain_robot(
            '<joint name="j1" type="fixed"><parent link="base"/><child link="a"/>'
            '<origin xyz="1 0 0" rpy="0 0 1.5707963267948966"/></joint>'
            '<joint name="j2" type="fixed"><parent link="a"/><child link="b"/>'
            '<origin xyz="2 0 0"/></joint>',
        ),
    )
    # a is at x=1 yawed +90 deg, so a's +x is base +y: b is 2 m along base +y from a
    np.testing.assert_allclose(robot.link_transform('b')[:3, 3], [1.0, 2.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(robot.link_transform('base'), np.eye(4))
    assert [j.name for j in robot.chain('b')] == ['j1', 'j2']
    assert robot.chain('base') == ()
    assert robot.root_link == 'base'


def test_revolute_about_z():
    robot = parse_robot(
        chain_robot(
            '<joint name="pan" type="revolute"><parent link="base"/><child link="a"/>'
            '<origin xyz="0 0 1"/>'
            '<axis xyz="0 0 1"/><limit lower="-3" upper="3"/></joint>'
            '<joint name="arm" type="fixed"><parent link="a"/><child link="b"/>'
            '<origin xyz="0.5 0 0"/>'
            '</joint>',
        ),
    )
    q = 0.7
    t = robot.link_transform('b', {'pan': q})
    np.testing.assert_allclose(t[:3, 3], [0.5 * math.cos(q), 0.5 * math.sin(q), 1.0], atol=1e-12)
    np.testing.assert_allclose(t[:3, 0], [math.cos(q), math.sin(q), 0.0], atol=1e-12)


def test_joint_at_zero_when_not_given_and_default_axis_is_x():
    robot = parse_robot(
        chain_robot(
            '<joint name="roll" type="continuous"><parent link="base"/><child link="a"/></joint>'
            '<joint name="arm" type="fixed"><parent link="a"/><child link="b"/>'
            '<origin xyz="0 1 0"/></joint>',
        ),
    )
    np.testing.assert_allclose(robot.link_transform('b')[:3, 3], [0.0, 1.0, 0.0])
    np.testing.assert_allclose(robot.joints['roll'].axis, [1.0, 0.0, 0.0])
    # rolling +90 deg about x takes the arm's +y to +z
    np.testing.assert_allclose(
        robot.link_transform('b', {'roll': math.pi / 2})[:3, 3], [0.0, 0.0, 1.0], atol=1e-12
    )


def test_prismatic_along_a_normalised_axis():
    robot = parse_robot(
        chain_robot(
            '<joint name="lift" type="prismatic"><parent link="base"/><child link="a"/>'
            '<origin xyz="1 0 0" '
            'rpy="0 0 1.5707963267948966"/><axis xyz="2 0 0"/><limit lower="0" upper="1"/>'
            '</joint>',
            '<link name="a"/>',
        ),
    )
    np.testing.assert_allclose(robot.joints['lift'].axis, [1.0, 0.0, 0.0])
    # the joint frame's +x is base +y, so moving 0.3 m goes along base +y
    np.testing.assert_allclose(
        robot.link_transform('a', {'lift': 0.3})[:3, 3], [1.0, 0.3, 0.0], atol=1e-12
    )


def test_mimic_joint_follows_its_leader_unless_given():
    robot = parse_robot(
        chain_robot(
            '<joint name="j1" type="continuous"><parent link="base"/><child link="a"/>'
            '<axis xyz="0 0 1"/>'
            '</joint>'
            '<joint name="j2" type="prismatic"><parent link="a"/><child link="b"/>'
            '<limit upper="9"/>'
            '<mimic joint="j1" multiplier="2" offset="0.5"/></joint>',
        ),
    )
    # j1 = 0 keeps a aligned with base; j2 = 2 * 0 + 0.5 along x
    np.testing.assert_allclose(robot.link_transform('b')[:3, 3], [0.5, 0.0, 0.0], atol=1e-12)
    q = math.pi / 2
    np.testing.assert_allclose(
        robot.link_transform('b', {'j1': q})[:3, 3], [0.0, 2 * q + 0.5, 0.0], atol=1e-12
    )
    np.testing.assert_allclose(
        robot.link_transform('b', {'j1': q, 'j2': 1.0})[:3, 3], [0.0, 1.0, 0.0], atol=1e-12
    )


def test_mimic_loop_is_an_error():
    with pytest.raises(DescriptionError, match='mimic loop: j1 -> j2 -> j1'):
        parse_robot(
            chain_robot(
                '<joint name="j1" type="continuous"><parent link="base"/><child link="a"/>'
                '<mimic joint="j2"/>'
                '</joint>'
                '<joint name="j2" type="continuous"><parent link="a"/><child link="b"/>'
                '<mimic joint="j1"/>'
                '</joint>',
            ),
        )


@pytest.mark.parametrize('kind', ['floating', 'planar'])
def test_floating_and_planar_joints_load_but_cannot_be_posed(kind: str):
    robot = parse_robot(
        chain_robot(
            '<joint name="j1" type="fixed"><parent link="base"/><child link="a"/>'
            '<origin xyz="1 0 0"/>'
            '</joint>'
            f'<joint name="free" type="{kind}"><parent link="a"/><child link="b"/></joint>'
            '<sensor name="s" type="sonar"><parent link="b"/></sensor>',
        ),
    )
    assert robot.joints['free'].type is JointType(kind)
    np.testing.assert_allclose(robot.link_transform('a')[:3, 3], [1.0, 0.0, 0.0])
    with pytest.raises(
        DescriptionError, match=f'{kind} joint: a pose through it is not given'
    ) as info:
        robot.sensor_transform('s')
    assert info.value.element == '<joint name="free">'
    assert info.value.line == 1


def test_bad_joint_positions_are_value_errors():
    robot = parse_robot(
        chain_robot(
            '<joint name="j1" type="continuous"><parent link="base"/><child link="a"/></joint>',
            '<link name="a"/>',
        )
    )
    with pytest.raises(ValueError, match='joints the robot does not have: j9'):
        robot.link_transform('a', {'j9': 1.0})
    with pytest.raises(ValueError, match="position of joint 'j1' is not finite"):
        robot.link_transform('a', {'j1': math.nan})


def test_sensor_transform_in_optical_and_body_frames():
    robot = parse_robot(
        chain_robot(
            '<joint name="j1" type="fixed"><parent link="base"/><child link="a"/>'
            '<origin xyz="0 0 2"/>'
            '</joint>'
            '<sensor name="s" type="sonar"><parent link="a"/>'
            '<origin xyz="1 0 0" rpy="-1.5707963267948966 0 -1.5707963267948966"/></sensor>',
            '<link name="a"/>',
        ),
    )
    optical = robot.sensor_transform('s')
    body = robot.sensor_transform('s', frame=SensorFrame.BODY)
    np.testing.assert_allclose(optical[:3, 3], [1.0, 0.0, 2.0], atol=1e-12)
    np.testing.assert_allclose(optical[:3, 2], [1.0, 0.0, 0.0], atol=1e-12)  # looks along base +x
    np.testing.assert_allclose(
        body, [[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 2], [0, 0, 0, 1]], atol=1e-12
    )


def test_random_chains_match_an_independent_oracle():
    """Seeded random chains of mixed joints against scipy's rotations (extrinsic xyz: URDF rpy)."""
    rng = np.random.default_rng(2345)
    kinds = ['fixed', 'revolute', 'continuous', 'prismatic']
    for _ in range(25):
        n = int(rng.integers(1, 7))
        links = ''.join(f'<link name="l{i}"/>' for i in range(1, n + 1))
        joints = []
        expected_rotation = Rotation.identity()
        expected_position = np.zeros(3)
        positions = {}
        for i in range(1, n + 1):
            kind = kinds[int(rng.integers(len(kinds)))]
            xyz, rpy = rng.uniform(-2, 2, 3), rng.uniform(-math.pi, math.pi, 3)
            axis = rng.normal(size=3)
            words = {
                key: ' '.join(repr(float(v)) for v in value)
                for key, value in (('xyz', xyz), ('rpy', rpy), ('axis', axis))
            }
            q = float(rng.uniform(-2, 2))
            positions[f'j{i}'] = q
            joints.append(
                f'<joint name="j{i}" type="{kind}">'
                f'<parent link="{"base" if i == 1 else f"l{i - 1}"}"/>'
                f'<child link="l{i}"/><origin xyz="{words["xyz"]}" rpy="{words["rpy"]}"/>'
                f'<axis xyz="{words["axis"]}"/><limit lower="-9" upper="9"/></joint>',
            )
            # parent <- joint frame
            expected_position = expected_position + expected_rotation.apply(xyz)
            expected_rotation = expected_rotation * Rotation.from_euler('xyz', rpy)
            unit = axis / np.linalg.norm(axis)
            if kind in ('revolute', 'continuous'):
                expected_rotation = expected_rotation * Rotation.from_rotvec(q * unit)
            elif kind == 'prismatic':
                expected_position = expected_position + expected_rotation.apply(q * unit)
        robot = parse_robot(chain_robot(''.join(joints), links))
        t = robot.link_transform(f'l{n}', positions)
        np.testing.assert_allclose(t[:3, 3], expected_position, atol=1e-9)
        np.testing.assert_allclose(t[:3, :3], expected_rotation.as_matrix(), atol=1e-9)


def test_positions_past_a_joints_limits_are_named_and_continuous_joints_have_none():
    """``Joint.position_problem``: a revolute or prismatic joint's range is its ``<limit>``."""
    from nps_sonar_py.description.joints import LIMIT_TOLERANCE

    robot = parse_robot(
        chain_robot(
            '<joint name="lift" type="prismatic"><parent link="base"/><child link="a"/>'
            '<limit lower="-1" upper="1"/></joint>'
            '<joint name="pan" type="revolute"><parent link="a"/><child link="b"/>'
            '<limit lower="-0.5" upper="2"/></joint>'
            '<joint name="wheel" type="continuous"><parent link="b"/><child link="c"/>'
            '<limit effort="1" velocity="1" lower="-1" upper="1"/></joint>',
            links='<link name="a"/><link name="b"/><link name="c"/>',
        ),
    )
    lift, pan, wheel = (robot.joints[name] for name in ('lift', 'pan', 'wheel'))
    for position in (-1.0, 0.0, 1.0, 1.0 + 0.9 * LIMIT_TOLERANCE, -1.0 - 0.9 * LIMIT_TOLERANCE):
        assert lift.position_problem(position) is None, position
    assert lift.position_problem(1e7) == '1e+07 m is outside the limits [-1, 1] m'
    assert lift.position_problem(1.0 + 1.1 * LIMIT_TOLERANCE) is not None
    assert lift.position_problem(-1.0 - 1.1 * LIMIT_TOLERANCE) is not None
    assert lift.position_problem(math.nan) is not None
    assert pan.position_problem(2.0) is None
    assert pan.position_problem(-0.6) == '-0.6 rad is outside the limits [-0.5, 2] rad'
    # A continuous joint counts turns: its <limit> gives effort and velocity only.
    assert wheel.position_problem(1e7) is None
    assert wheel.position_problem(-1e9) is None
