"""The sonar node in a moving ROS system over real DDS: QoS, sim time, robot/world motion, markers.

Expected ranges come from the reference scenario's geometry (DESIGN.md): the sonar at
(2.1, 1.0, 1.0) looks along +y at a vertical cylinder of radius 0.25 m centred on (2.1, 3.0);
the tank's inner walls are x = 0 and 4.27, y = 0 and 6.54. One ray (the boresight) keeps the
expected values exact; the cylinder's 64-gon has a vertex facing -y.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pytest
from reference_scene import FACETING, PAN_ROBOT, SONAR, cylinder_hits, world_directions
from ros_helpers import (
    NODE_START_TIMEOUT,
    NodeLog,
    Receiver,
    first_such,
    messages_after,
    publishing,
    running,
    wait_for_graph,
    waited_for_clock,
)

pytestmark = pytest.mark.ros

ONE_RAY = {'rays': 1, 'update_rate': 20.0}


def _until_range(
    receiver: Receiver, node, msg_type, topic: str, message, expected: float, tolerance: float
) -> None:
    """Publish ``message`` on ``topic`` until the sonar reads ``expected`` (event, not a sleep)."""
    with publishing(receiver, msg_type, topic, lambda: message):
        if math.isinf(expected):
            first_such(receiver, 'sonar/range', node, lambda m: m.range == expected)
        else:
            first_such(
                receiver, 'sonar/range', node, lambda m: abs(m.range - expected) <= tolerance
            )


def test_best_effort_qos_and_depth(receiver) -> None:
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import Range

    best_effort = receiver(Range, 'sonar/range')  # sensor-data QoS: best effort
    reliable = receiver(
        Range, 'sonar/range', QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
    )
    with running(
        'sonar_node', {**ONE_RAY, 'qos_reliability': 'best_effort', 'qos_depth': 3}
    ) as node:
        best_effort.wait_for(5, process=node)
        infos = best_effort.node.get_publishers_info_by_topic('/sonar/range')
    # (discovery carries the reliability, not the history depth, so the depth is not checked here)
    assert [i.qos_profile.reliability for i in infos] == [ReliabilityPolicy.BEST_EFFORT]
    assert reliable.messages == []  # a reliable subscriber does not match a best-effort publisher


def test_reliable_is_the_default(receiver) -> None:
    from rclpy.qos import ReliabilityPolicy
    from sensor_msgs.msg import Range

    r = receiver(Range, 'sonar/range')
    with running('sonar_node', ONE_RAY) as node:
        r.wait_for(1, process=node)
        infos = r.node.get_publishers_info_by_topic('/sonar/range')
    assert [i.qos_profile.reliability for i in infos] == [ReliabilityPolicy.RELIABLE]


def test_sim_time_stamps_and_pings_on_clock(receiver) -> None:
    from builtin_interfaces.msg import Time
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import Range

    r = receiver(Range, 'sonar/range')
    with running('sonar_node', {**ONE_RAY, 'use_sim_time': True}) as node:
        # Up: the node subscribes to /clock and offers /sonar/range. With no /clock yet its
        # time is not initialised: it must publish nothing.
        wait_for_graph(r, node, publishers=('/sonar/range',), subscribers=('/clock',))
        waited_for_clock(NodeLog(node))  # CLOCK_WAIT s: a hundred ping periods at 20 Hz
        assert r.messages == []
        published: list[float] = []

        def tick() -> Clock:
            t = 100.0 + 0.05 * (len(published) + 1)
            published.append(t)
            return Clock(clock=Time(sec=int(t), nanosec=round((t % 1) * 1e9)))

        best_effort = QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT)
        with publishing(r, Clock, '/clock', tick, rate=20.0, qos=best_effort):
            r.wait_for(10, process=node)  # however long a loaded machine takes
        assert node.poll() is None
        published = list(published)
    stamps = np.array([m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec for m in r.messages])
    assert len(stamps) >= 10
    # Each ping is stamped with the simulated time the node last received: one of the /clock
    # values, never the wall clock; and the pings go forward in simulated time.
    distance = np.abs(stamps[:, None] - np.array(published)[None, :]).min(axis=1)
    assert distance.max() < 1e-6
    assert np.all(np.diff(stamps) > 0)


def test_odometry_moves_the_robot(receiver) -> None:
    from nav_msgs.msg import Odometry
    from sensor_msgs.msg import Range

    r = receiver(Range, 'sonar/range')
    with running('sonar_node', {**ONE_RAY, 'pose_source': 'odometry'}) as node:
        assert r.wait_for(1, process=node)[-1].range == pytest.approx(1.75, abs=1e-6)
        forward = Odometry()
        forward.pose.pose.position.y = 0.5  # the robot 0.5 m closer: 1.25 m to the cylinder's face
        _until_range(r, node, Odometry, 'odom', forward, 1.25, 1e-6)
        aside = Odometry()
        aside.pose.pose.position.x = 0.2  # boresight 0.2 m off the axis: 2 - sqrt(0.25^2 - 0.2^2)
        _until_range(r, node, Odometry, 'odom', aside, 1.85, 2 * FACETING)
        # a half turn about the world z axis: the sonar at (-2.1, -1, 1) looks along -y
        turned = Odometry()
        turned.pose.pose.orientation.z, turned.pose.pose.orientation.w = 1.0, 0.0
        _until_range(r, node, Odometry, 'odom', turned, math.inf, 0.0)


def test_joint_states_turn_the_sonar(receiver, tmp_path: Path) -> None:
    from sensor_msgs.msg import JointState, Range

    robot = tmp_path / 'pan_sonar.urdf'
    robot.write_text(PAN_ROBOT)
    r = receiver(Range, 'sonar/range')
    with running('sonar_node', {**ONE_RAY, 'robot_description_file': str(robot)}) as node:
        assert r.wait_for(1, process=node)[-1].range == pytest.approx(1.75, abs=1e-6)
        # pan +90 deg turns the boresight from +y to -x: the wall x = 0 is 2.1 m away;
        # other joints are ignored
        state = JointState(name=['pan', 'some_wheel'], position=[math.pi / 2, 3.0])
        _until_range(r, node, JointState, 'joint_states', state, 2.1, 1e-5)


def test_scene_state_updates_move_an_entity(receiver) -> None:
    from sensor_msgs.msg import Range

    from nps_sonar.msg import EntityState, SceneState

    r = receiver(Range, 'sonar/range')
    updates = r.node.create_publisher(SceneState, 'scene_state', 10)
    with running('sonar_node', ONE_RAY) as node:
        still = r.wait_for(1, process=node)[-1].range
        deadline = time.monotonic() + NODE_START_TIMEOUT
        while updates.get_subscription_count() < 1:  # the node hears the update once sent
            assert time.monotonic() < deadline, 'the node does not subscribe to scene_state'
            time.sleep(0.02)
        stamp = r.node.get_clock().now()
        target = EntityState(model='target', parent_frame='world')
        target.pose.position.x, target.pose.position.y, target.pose.position.z = 2.1, 4.0, 1.0
        target.pose.orientation.w = 1.0
        target.twist.linear.y = -0.5  # approaching at 0.5 m/s from 2.75 m at the stamp
        update = SceneState(entities=[target])
        update.header.stamp = stamp.to_msg()
        updates.publish(update)
        # Pings stamped after the update but read before it reached the node show the target
        # where it was: the pings checked start with the first read with the update.
        moved = first_such(r, 'sonar/range', node, lambda m: abs(m.range - still) > 0.1)
        moving = [moved, *messages_after(r, 19)]
        unknown = SceneState(entities=[EntityState(model='no_such_model', parent_frame='world')])
        unknown.entities[0].pose.orientation.w = 1.0
        updates.publish(unknown)
        after = messages_after(r, 2)
        assert node.poll() is None  # an unknown entity is ignored with a warning
    t0 = stamp.nanoseconds * 1e-9
    checked = 0
    for m in moving + after:
        dt = m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec - t0
        if dt >= 0.0:  # pings after the update's stamp
            assert m.range == pytest.approx(2.75 - 0.5 * dt, abs=1e-4)
            checked += 1
    assert checked >= 15


def test_markers_show_the_beam_and_its_hits(receiver) -> None:
    from visualization_msgs.msg import Marker

    markers = receiver(Marker, 'sonar/markers')
    with running('sonar_node', {'marker_rate': 5.0}) as node:
        received = markers.wait_for(4, process=node)
    beam = next(m for m in received if m.ns == 'beam')
    hits = next(m for m in received if m.ns == 'hits')
    assert beam.type == Marker.TRIANGLE_LIST
    assert beam.header.frame_id == 'sonar'
    assert len(beam.points) % 3 == 0
    assert len(beam.points) >= 3 * 16
    rim = [p for p in beam.points if p.x > 0]
    assert all(p.x == pytest.approx(7.0) for p in rim)  # the cone reaches max range
    assert all(
        math.hypot(p.y, p.z) == pytest.approx(0.5, rel=1e-6) for p in rim
    )  # radius 0.5 m there
    assert hits.type == Marker.POINTS
    assert len(hits.points) > 0
    ranges = cylinder_hits(SONAR, world_directions(500))[
        0
    ]  # the default 500 rays all meet the cylinder
    for p in hits.points:  # every hit lies on the cylinder's face
        assert (
            ranges.min() - 1e-5
            <= math.sqrt(p.x**2 + p.y**2 + p.z**2)
            <= ranges.max() + 2 * FACETING
        )
        assert p.x > 0
