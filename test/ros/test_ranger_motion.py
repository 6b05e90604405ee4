"""Ranger and scanning sonar nodes in a moving system, over real DDS: odometry, joints, sim time.

Expected values come from the scenes' planes (``ranger_scenes``): the box room's inner faces
x = -3, 5; y = -2, 4; z = 0, 3; the corridor's walls y = -1.0, 1.5 and floor z = 0; the wall
x = D of ``wall_scene``. A moved device's rays are the documented pattern
turned by the robot's new pose, computed here.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path

import numpy as np
import pytest
from ranger_scenes import (
    ACOUSTICS,
    BOX_ROOM,
    CORRIDOR,
    FLOAT32,
    LASER_XYZ,
    LASER_YAW,
    MAX_RANGE,
    PLANAR,
    RING_HEIGHT,
    RING_RADIUS,
    SONAR,
    C,
    D,
    corridor_range,
    directions,
    room_hits,
    scanner_robot,
    wall_scene,
)
from ranger_scenes import WALL_BETA as BETA
from ros_helpers import (
    NodeLog,
    Probe,
    first_such,
    nanoseconds,
    publishing,
    running,
    wait_for_graph,
    waited_for_clock,
)

from nps_sonar_py.devices import ring_poses
from nps_sonar_py.sensing.cone import cone_pattern
from nps_sonar_py.sensing.sweep import rotation_z
from nps_sonar_py.transforms import transform_from_xyz_rpy

pytestmark = pytest.mark.ros


def test_odometry_moves_the_scanner(tmp_path: Path, probe: Probe) -> None:
    from nav_msgs.msg import Odometry
    from sensor_msgs.msg import LaserScan

    probe.subscribe(LaserScan, 'laser/scan')
    moved = Odometry()
    moved.pose.pose.position.x, moved.pose.pose.position.y, moved.pose.pose.position.z = (
        1.0,
        0.5,
        0.2,
    )
    yaw = 0.5
    moved.pose.pose.orientation.z, moved.pose.pose.orientation.w = (
        math.sin(yaw / 2),
        math.cos(yaw / 2),
    )
    parameters = {
        'robot_description_file': scanner_robot(tmp_path, PLANAR, rate=25.0),
        'scene_file': BOX_ROOM,
        'pose_source': 'odometry',
    }
    with running('ranger_node', parameters) as node:
        still = probe.wait('laser/scan', 1, node)[-1]
        with publishing(probe, Odometry, 'odom', lambda: moved):
            first_such(
                probe, 'laser/scan', node, lambda m: abs(m.ranges[270] - still.ranges[270]) > 0.01
            )
            after = probe.wait('laser/scan', 1, node)[-1]
    angles = -3 * math.pi / 4 + (3 * math.pi / 2 / 540) * np.arange(541)
    standing = room_hits(LASER_XYZ, directions(angles))[0]
    np.testing.assert_allclose(np.array(still.ranges), standing, rtol=FLOAT32)
    # world <- laser = odometry pose @ mount: at (1, 0.5, 0.2) + Rz(0.5) LASER_XYZ,
    # yawed by 0.5 more.
    c, s = math.cos(yaw), math.sin(yaw)
    origin = np.array(
        [
            1.0 + c * LASER_XYZ[0] - s * LASER_XYZ[1],
            0.5 + s * LASER_XYZ[0] + c * LASER_XYZ[1],
            0.2 + LASER_XYZ[2],
        ]
    )
    expected = room_hits(origin, directions(angles, yaw=LASER_YAW + yaw))[0]
    np.testing.assert_allclose(np.array(after.ranges), expected, rtol=FLOAT32)
    assert np.max(np.abs(expected - standing)) > 0.5


def pan_ring_robot(tmp_path: Path, count: int = 4) -> str:
    """Sonars ring_K as in ``ranger_scenes.ring_robot``, ring_0 on a revolute joint ``pan``.

    The joint ``pan`` turns about +z.
    """
    sensors = []
    for k in range(count):
        yaw = 2 * math.pi * k / count
        parent = 'pan_link' if k == 0 else 'base_link'
        sensors.append(
            f'<sensor name="ring_{k}" type="sonar" update_rate="10"><parent link="{parent}"/>'
            f'<origin xyz="{RING_RADIUS * math.cos(yaw)!r} '
            f'{RING_RADIUS * math.sin(yaw)!r} {RING_HEIGHT}" '
            f'rpy="-1.5707963267948966 0 {yaw - math.pi / 2!r}"/>{SONAR}</sensor>'
        )
    path = tmp_path / 'pan_ring.urdf'
    path.write_text(f"""<robot name="pan_ring"><link name="base_link"/><link name="pan_link"/>
  <joint name="pan" type="revolute"><parent link="base_link"/><child link="pan_link"/>
    <axis xyz="0 0 1"/><limit lower="-3.2" upper="3.2" effort="1" velocity="1"/></joint>
  {''.join(sensors)}</robot>""")
    return str(path)


def test_joint_states_turn_a_ring_element(tmp_path: Path, probe: Probe) -> None:
    from sensor_msgs.msg import JointState

    from nps_sonar.msg import RangerData

    probe.subscribe(RangerData, 'ring/ranger')
    parameters = {
        'robot_description_file': pan_ring_robot(tmp_path),
        'scene_file': CORRIDOR,
        'sensors': 'ring_*',
        'device_name': 'ring',
        'rays': 300,
        'medium': 'air',
    }
    turned = JointState(name=['pan', 'a_wheel_of_another_robot'], position=[math.pi / 2, 1.0])
    with running('ranger_node', parameters) as node:
        before = probe.wait('ring/ranger', 1, node)[-1]
        with publishing(probe, JointState, 'joint_states', lambda: turned):
            first_such(
                probe, 'ring/ranger', node, lambda m: m.geometry.element_poses[0].position.y > 0.1
            )
            after = probe.wait('ring/ranger', 1, node)[-1]
    lift = transform_from_xyz_rpy((0.0, 0.0, RING_HEIGHT), (0.0, 0.0, 0.0))
    poses = ring_poses(4, RING_RADIUS)
    expected = [corridor_range(lift @ p, 300) for p in poses]
    assert expected[1] == pytest.approx(1.5 - RING_RADIUS)
    assert math.isfinite(expected[0])
    np.testing.assert_allclose(np.array(before.ranges), expected, rtol=FLOAT32)
    # pan = 90 degrees: ring_0 looks where ring_1 does (+y, the wall 1.3 m away); the others stay.
    np.testing.assert_allclose(np.array(after.ranges), [expected[1], *expected[1:]], rtol=FLOAT32)
    # RangerGeometry follows: ring_0 at (0, R) in the ring's frame, turned by 90 degrees about z.
    p, q = after.geometry.element_poses[0].position, after.geometry.element_poses[0].orientation
    assert (p.x, p.y, p.z) == pytest.approx((0.0, RING_RADIUS, 0.0), abs=1e-9)
    assert (abs(q.z), abs(q.w)) == pytest.approx((math.sqrt(0.5), math.sqrt(0.5)), abs=1e-9)
    assert before.geometry.element_poses[0].position.x == pytest.approx(RING_RADIUS)


def test_sweep_on_sim_time_moved_by_a_pose(tmp_path: Path, probe: Probe) -> None:
    from builtin_interfaces.msg import Time
    from geometry_msgs.msg import PoseStamped
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import LaserScan

    from nps_sonar.msg import SonarPoint

    probe.subscribe(SonarPoint, 'head/sonar_point')
    probe.subscribe(LaserScan, 'head/scan')
    robot, world = wall_scene(tmp_path)
    rays = 500
    parameters = {
        'robot_description_file': robot,
        'scene_file': world,
        'min_angle': -math.pi / 3,
        'max_angle': math.pi / 3,
        'step': math.radians(15.0),
        'rays': rays,
        'use_sim_time': True,
        'pose_source': 'pose',
        **ACOUSTICS,
    }
    sim = [100 * 10**9]  # ns
    lock = threading.Lock()

    def tick() -> Clock:
        with lock:
            sim[0] += 20_000_000
            return Clock(clock=Time(sec=sim[0] // 10**9, nanosec=sim[0] % 10**9))

    closer = PoseStamped()
    closer.pose.position.x = 0.5  # the sonar 0.5 m nearer the wall
    closer.pose.orientation.w = 1.0
    best_effort = QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT)
    with running('scanning_sonar_node', parameters) as node:
        # No /clock yet: nothing is published (once the topic is discovered, a ping would come).
        wait_for_graph(probe, node, publishers=('head/sonar_point',), subscribers=('/clock',))
        waited_for_clock(NodeLog(node))  # CLOCK_WAIT s of the node's steady clock
        assert probe.count('head/sonar_point') == 0
        with (
            publishing(probe, PoseStamped, 'pose', lambda: closer),
            publishing(probe, Clock, '/clock', tick, rate=50.0, qos=best_effort),
        ):
            moved = first_such(probe, 'head/sonar_point', node, lambda m: m.range < D - 0.25)
            # The first sweep that starts at or after the move: a sweep under way when the pose
            # came holds steps from both poses.
            moved_at = nanoseconds(moved.header.stamp)
            scan = first_such(
                probe, 'head/scan', node, lambda m: nanoseconds(m.header.stamp) >= moved_at
            )
            pings = probe.wait('head/sonar_point', 30, node)
        with lock:
            last = sim[0]
    period = 2 * MAX_RANGE / C
    stamps = np.array([nanoseconds(p.header.stamp) for p in pings])
    assert stamps.min() > 100 * 10**9
    assert stamps.max() <= last
    np.testing.assert_allclose(
        np.diff(stamps), period * 1e9, atol=2
    )  # one step per travel time, sim time
    assert 100 * 10**9 < nanoseconds(scan.header.stamp) <= last
    assert scan.scan_time == pytest.approx(9 * period, rel=1e-6)
    pattern = cone_pattern(BETA, rays).directions
    for ping in pings:
        nearest = ((D - 0.5) / (pattern @ rotation_z(ping.azimuth).T)[:, 0]).min()
        assert ping.range == pytest.approx(nearest, abs=1e-5)
    expected = [
        ((D - 0.5) / (pattern @ rotation_z(a).T)[:, 0]).min()
        for a in scan.angle_min + scan.angle_increment * np.arange(9)
    ]
    np.testing.assert_allclose(scan.ranges, expected, atol=1e-5)
