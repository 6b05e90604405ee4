"""World entities following /tf as Gazebo publishes them (``ros/entity_tf.py``), over DDS.

Gazebo's ``PosePublisher`` on a model (``<publish_model_pose>``, ``<use_pose_vector_msg>``),
bridged by ``ros_gz_bridge`` to ``tf2_msgs/TFMessage``, sends *world name* -> *model name*
(and, with link poses, *model* -> *model/link*) stamped in sim time, with sim time on
``/clock``. The tests send exactly that, from the world below.

Geometry (by hand). The reference sonar (the node's default robot, ``robot_pose`` zero) sits
at (2.1, 1.0, 1.0) and looks along +y; one ray, its boresight. ``target`` is a box 0.4 m deep
in y centred on that line at ``y``: its near face, square to the ray, is ``y - 0.2 - 1.0`` m
away. At its SDF pose (y = 3) that is 1.8 m. ``wall`` is a static box whose near face is at
y = 5.9 across the line: 4.9 m, seen only when the target is out of the way.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ros_helpers import NodeLog, Probe, executable, exit_line, first_such, nanoseconds, running
from ros_helpers import ros_args as as_ros_args
from test_tf import _acked, _tf, _tf_publishers, _ticker, _transform, _wait_matched

pytestmark = pytest.mark.ros

WORLD = """<?xml version="1.0"?>
<sdf version="1.11">
  <world name="harbour">
    <model name="target">
      <pose>2.1 3 1 0 0 0</pose>
      <link name="body">
        <collision name="body"><geometry><box><size>1 0.4 2</size></box></geometry></collision>
      </link>
    </model>
    <model name="wall">
      <static>true</static>
      <pose>2.1 6 1 0 0 0</pose>
      <link name="face">
        <collision name="face"><geometry><box><size>6 0.2 6</size></box></geometry></collision>
      </link>
    </model>
  </world>
</sdf>
"""

#: The range to the target's near face with the target centred at ``y`` on the boresight.
SONAR_Y = 1.0
HALF_DEPTH = 0.2


def target_range(y: float) -> float:
    return y - HALF_DEPTH - SONAR_Y


WALL_RANGE = 5.9 - SONAR_Y


def _world(tmp_path: Path) -> str:
    path = tmp_path / 'harbour.sdf'
    path.write_text(WORLD)
    return str(path)


def _gazebo_pose(sec: float, xyz: tuple[float, float, float]) -> Any:
    """One bridged Pose_V of the target's PosePublisher: the model in the world, its link."""
    return _tf(
        _transform('harbour', 'target', sec, xyz),
        _transform('target', 'target/body', sec),
    )


def _parameters(tmp_path: Path, entity_frames: str) -> dict[str, Any]:
    return {
        'rays': 1,
        'update_rate': 20.0,
        'use_sim_time': True,
        'scene_file': _world(tmp_path),
        'entity_frames': entity_frames,
    }


@pytest.mark.parametrize('pose_source', ['fixed', 'odometry'])
def test_a_model_follows_its_gazebo_pose_over_sim_time(
    tmp_path: Path, probe: Probe, pose_source: str
) -> None:
    """The target moves from y = 3 at t = 100 s to y = 3.5 at t = 101 s, by TF alone.

    The robot stays at ``robot_pose`` (no odometry comes): whatever the robot's pose source,
    the node listens to /tf for the entity.
    A reading at ``t`` sees the target at ``3 + 0.5 clip(t - 100, 0, 1)``: interpolated
    between the stamps, the nearest held outside them (and the SDF pose, y = 3, before any
    transform came).
    """
    from sensor_msgs.msg import Range

    probe.subscribe(Range, 'sonar/range')
    tf, _, clock = _tf_publishers(probe)
    now = [99.0]
    stop, sent = threading.Event(), threading.Event()
    ticker = _ticker(
        clock,
        now,
        stop,
        until=102.5,
        hold_at=99.5,
        release=sent,
        paced_by=(probe, 'sonar/range'),
    )
    parameters = {**_parameters(tmp_path, 'target'), 'pose_source': pose_source}
    with running('sonar_node', parameters) as node:
        log = NodeLog(node)
        _wait_matched(probe, tf, node)
        _wait_matched(probe, clock, node)  # sim time advances only once it hears /clock
        # Started: its timer exists before time moves, or time held at hold_at would never
        # reach its first tick.
        log.wait_for('sonar "sonar": 20 Hz')
        ticker.start()
        first_such(probe, 'sonar/range', node, lambda m: m.range > 0.0)
        tf.publish(_gazebo_pose(100.0, (2.1, 3.0, 1.0)))
        tf.publish(_gazebo_pose(101.0, (2.1, 3.5, 1.0)))
        _acked(tf)  # the node holds them before time moves past 99.5 s
        sent.set()
        first_such(probe, 'sonar/range', node, lambda m: m.header.stamp.sec >= 102)
        log.wait_for("the pose of entity 'target' (frame 'target' in 'harbour') is stale")
        stop.set()
        ticker.join(timeout=5)
        with probe.lock:
            readings = list(probe.received['sonar/range'])
        assert log.stop() == 0
    stamps = np.array([nanoseconds(m.header.stamp) * 1e-9 for m in readings])
    ranges = np.array([m.range for m in readings])
    expected = target_range(3.0) + 0.5 * np.clip(stamps - 100.0, 0.0, 1.0)
    assert ranges == pytest.approx(expected, abs=1e-5)  # float32 ranges
    inside = (stamps > 100.0) & (stamps < 101.0)
    assert inside.sum() >= 3, stamps  # readings between the two stamps were interpolated
    assert ranges.max() == pytest.approx(target_range(3.5), abs=1e-5)


def test_a_frame_that_never_comes_and_a_nan_pose_move_nothing(
    tmp_path: Path, probe: Probe
) -> None:
    """``wall`` follows a frame nobody publishes; a message with a NaN pose is dropped whole.

    Until the target's frame comes, both entities stay at their SDF poses (1.8 m) and each
    gets a warning naming it, its frame and why. A message moving the target to y = 2.5
    (1.3 m) beside a NaN transform of the wall's frame is dropped: the range stays 1.8 m.
    Then the target's frame comes, taking it out of the beam (x = 10): the sonar sees the
    wall where the SDF put it (4.9 m), since its frame never came.
    """
    from sensor_msgs.msg import Range

    probe.subscribe(Range, 'sonar/range')
    tf, _, clock = _tf_publishers(probe)
    now = [10.0]
    stop = threading.Event()
    ticker = _ticker(clock, now, stop)
    with running('sonar_node', _parameters(tmp_path, 'target, wall=wall_frame')) as node:
        log = NodeLog(node)
        _wait_matched(probe, tf, node)
        _wait_matched(probe, clock, node)  # sim time advances only once it hears /clock
        ticker.start()
        for entity, frame in (('target', 'target'), ('wall', 'wall_frame')):
            log.wait_for(
                f"entity_frames: no pose of entity '{entity}' (frame '{frame}' in 'harbour'): "
                "no frame 'harbour' on /tf or /tf_static",  # nothing on /tf yet
                'it stays where it is',
            )
        bad = _transform('harbour', 'wall_frame', now[0], (2.1, math.nan, 1.0))
        tf.publish(_tf(_transform('harbour', 'target', now[0], (2.1, 2.5, 1.0)), bad))
        log.wait_for('ignored a message on /tf: transforms[1].transform.translation.y is nan')
        after_bad = first_such(probe, 'sonar/range', node, lambda m: True)
        tf.publish(_gazebo_pose(now[0], (10.0, 3.0, 1.0)))
        moved = first_such(probe, 'sonar/range', node, lambda m: m.range > 3.0)
        log.wait_for(  # the world frame is there now: the reason is the frame itself
            "no pose of entity 'wall' (frame 'wall_frame' in 'harbour'): no frame 'wall_frame' "
            'on /tf or /tf_static (frames: harbour, ',
            'it stays where it is',
        )
        stop.set()
        ticker.join(timeout=5)
        with probe.lock:
            ranges = np.array([m.range for m in probe.received['sonar/range']])
        assert log.stop() == 0
    assert after_bad.range == pytest.approx(target_range(3.0), abs=1e-5)
    assert moved.range == pytest.approx(WALL_RANGE, abs=1e-5)
    near_target = np.isclose(ranges, target_range(3.0), atol=1e-5)
    near_wall = np.isclose(ranges, WALL_RANGE, atol=1e-5)
    assert np.all(near_target | near_wall), ranges  # never 1.3 m: the dropped pose


@pytest.mark.parametrize(
    ('entity_frames', 'reason'),
    [
        ('ghost', "item 'ghost': the world has no entity 'ghost' (its entities: target, wall)"),
        ('target, target=t2', "item 'target=t2': entity 'target' is named twice"),
        ('wall=harbour', "frame 'harbour' is the world frame the poses are looked up in"),
        ('target=', "item 'target=': an empty frame"),
    ],
)
def test_a_bad_entity_frames_exits_with_one_line(
    tmp_path: Path, entity_frames: str, reason: str
) -> None:
    command = [executable('sonar_node'), *as_ros_args(_parameters(tmp_path, entity_frames))]
    line = exit_line(command)
    assert 'entity_frames: ' in line
    assert reason in line


def test_entities_following_tf_are_cast_apart_from_the_start(tmp_path: Path) -> None:
    """A static model named in entity_frames has its own scene up front: its first pose from
    /tf moves a 4x4 pose and rebuilds nothing (an SDF world's models are all static)."""
    import rclpy
    from rclpy.parameter import Parameter

    from nps_sonar_py.ros.sonar_node import SonarNode

    context = rclpy.context.Context()
    rclpy.init(context=context)
    nodes = []
    try:
        for frames, moving in (('', ()), ('wall', ('wall',)), ('wall=quay', ('wall',))):
            parameters = {**_parameters(tmp_path, frames), 'use_sim_time': False}
            overrides = [Parameter(k, value=v) for k, v in parameters.items()]
            node = SonarNode(context=context, parameter_overrides=overrides)
            nodes.append(node)
            assert node.raycaster.moving_entities == moving
    finally:
        for node in nodes:
            node.destroy_node()
        rclpy.shutdown(context=context)
