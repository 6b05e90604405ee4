"""The example robots in config/robots: poses checked against hand-computed geometry."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from nps_sonar_py.description import (
    Box,
    Mesh,
    NoiseType,
    RangeSpec,
    ScanAxis,
    SensorForm,
    SensorFrame,
    SensorType,
    SonarSpec,
    load_robot,
    parse_robot,
)

ROBOTS = Path(__file__).resolve().parents[2] / 'config' / 'robots'
REFERENCE = ROBOTS / 'reference_sonar.urdf'
DEMO = ROBOTS / 'demo_robot.urdf.xacro'


def test_reference_sonar_pose_in_the_world():
    robot = load_robot(REFERENCE)
    sonar = robot.sensor('sonar')
    assert sonar.type is SensorType.SONAR
    assert sonar.sonar == SonarSpec(min=0.1, max=7.0, radius=0.5)
    assert sonar.update_rate == 15.0
    assert robot.root_link == 'base_link'
    pose = robot.sensor_transform('sonar')  # base_link is the world origin
    np.testing.assert_allclose(pose[:3, 3], [2.1, 1.0, 1.0], atol=1e-12)
    # optical z: looks along world +y
    np.testing.assert_allclose(pose[:3, 2], [0.0, 1.0, 0.0], atol=1e-12)
    # right of +y, seen from above, is +x
    np.testing.assert_allclose(pose[:3, 0], [1.0, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(pose[:3, 1], [0.0, 0.0, -1.0], atol=1e-12)  # down
    body = robot.sensor_transform('sonar', frame=SensorFrame.BODY)
    # REP 103 forward: yaw pi/2
    np.testing.assert_allclose(body[:3, 0], [0.0, 1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(body[:3, 2], [0.0, 0.0, 1.0], atol=1e-12)


def test_reference_sonar_chain_is_not_trivial():
    robot = load_robot(REFERENCE)
    assert [j.name for j in robot.chain('sonar_link')] == ['base_to_mast', 'mast_to_sonar']
    assert robot.source == str(REFERENCE)
    assert robot.base_dir == str(ROBOTS)


def test_reference_sonar_from_a_robot_description_string():
    text = REFERENCE.read_text()
    robot = parse_robot(text)
    assert robot.source == '<robot_description>'
    assert robot.base_dir is None
    np.testing.assert_allclose(
        robot.sensor_transform('sonar'), load_robot(REFERENCE).sensor_transform('sonar')
    )


def test_demo_robot_sensors():
    robot = load_robot(DEMO)
    assert [(s.name, s.type, s.form) for s in robot.sensors] == [
        ('sonar', SensorType.SONAR, SensorForm.URDF),
        ('front_scanner', SensorType.RAY, SensorForm.URDF),
        ('imu', SensorType.IMU, SensorForm.URDF),
        ('rear_ranger', SensorType.RAY, SensorForm.GAZEBO),
    ]
    assert robot.sensor('sonar').sonar == SonarSpec(0.1, 7.0, 0.3)
    scanner = robot.sensor('front_scanner').ray
    assert scanner.horizontal == ScanAxis(181, 1.0, -math.pi / 2, math.pi / 2)
    assert scanner.range == RangeSpec(0.05, 20.0, 0.01)
    assert scanner.noise.type is NoiseType.GAUSSIAN
    assert robot.sensor('imu').imu.gyro_noise.stddev == 0.0002
    rear = robot.sensor('rear_ranger')
    assert rear.update_rate == 15.0
    assert rear.ray.horizontal == ScanAxis(3, 1.0, -0.1, 0.1)
    assert rear.ray.range == RangeSpec(0.1, 7.0, 0.01)


def test_demo_robot_xacro_arguments():
    robot = load_robot(DEMO, xacro_args={'sonar_max': '4.5', 'scan_samples': '360'})
    assert robot.sensor('sonar').sonar.max == 4.5
    assert robot.sensor('front_scanner').ray.horizontal.samples == 360


def test_demo_robot_geometry_and_surfaces():
    robot = load_robot(DEMO)
    base = robot.links['base_link']
    assert base.visuals[0].geometry == Box((0.6, 0.4, 0.2))
    assert (base.retro, base.reflectivity) == (100.0, 0.4)
    assert robot.links['pan_link'].collisions[0].retro == 255.0
    assert robot.links['laser_link'].visuals[0].geometry == Mesh(
        'meshes/scanner.stl', (0.001, 0.001, 0.001)
    )
    assert robot.base_dir == str(ROBOTS)


@pytest.mark.parametrize(('lift', 'pan'), [(0.0, 0.0), (0.25, 0.6), (0.5, -1.2)])
def test_demo_sonar_pose_at_joint_positions(lift: float, pan: float):
    robot = load_robot(DEMO)
    pose = robot.sensor_transform('sonar', {'lift_joint': lift, 'pan_joint': pan})
    # lift_link at z = 0.1 + lift; pan_link 0.2 m ahead and 0.3 m above it, yawed by pan
    np.testing.assert_allclose(pose[:3, 3], [0.2, 0.0, 0.4 + lift], atol=1e-12)
    np.testing.assert_allclose(pose[:3, 2], [math.cos(pan), math.sin(pan), 0.0], atol=1e-12)
    np.testing.assert_allclose(pose[:3, 0], [math.sin(pan), -math.cos(pan), 0.0], atol=1e-12)
    np.testing.assert_allclose(pose[:3, 1], [0.0, 0.0, -1.0], atol=1e-12)


def test_demo_gazebo_sensor_pose():
    robot = load_robot(DEMO)
    pose = robot.sensor_transform('rear_ranger', {'pan_joint': 1.0})  # no joint on its chain moves
    # rear_link at (-0.3, 0, 0.15) facing backwards; the SDF pose is 0.05 m further along its +x
    np.testing.assert_allclose(pose[:3, 3], [-0.35, 0.0, 0.15], atol=1e-12)
    np.testing.assert_allclose(pose[:3, 2], [-1.0, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(pose[:3, 0], [0.0, 1.0, 0.0], atol=1e-12)


def test_demo_scanner_is_level_and_forward():
    pose = load_robot(DEMO).sensor_transform('front_scanner', frame=SensorFrame.BODY)
    np.testing.assert_allclose(
        pose, [[1, 0, 0, 0.3], [0, 1, 0, 0], [0, 0, 1, 0.15], [0, 0, 0, 1]], atol=1e-12
    )
