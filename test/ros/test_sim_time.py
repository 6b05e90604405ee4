"""Sim time over real DDS: a node waiting for /clock says so once; a jump is named as a jump.

``ros/sim_time.py``: without any ``/clock`` a node with ``use_sim_time`` used to wait without
a word (``docs/gazebo.md``'s node run without Gazebo); after a forward jump of ``/clock``
every node logged ``falling behind: 0 of N readings/s``, advice to lower the rate for what
was no slowness at all.
"""

from __future__ import annotations

import math
import re
import time
from pathlib import Path
from typing import Any

import pytest
from ranger_scenes import ACOUSTICS, wall_scene
from ros_helpers import NODE_START_TIMEOUT, NodeLog, first_such, publishing, running

from nps_sonar_py.ros.sim_time import CLOCK_WAIT

pytestmark = pytest.mark.ros

ONE_RAY = {'rays': 1, 'update_rate': 20.0, 'use_sim_time': True, 'diagnostics_rate': 5.0}
WAITING = 'waiting for /clock: use_sim_time is true and no clock has come'


class SimClock:
    """``rosgraph_msgs/Clock`` messages from ``start`` s, 0.05 s apart; ``jump`` moves it.

    ``sent`` holds each clock's ``(sim seconds, wall seconds it was made at)``.
    """

    def __init__(self, start: float) -> None:
        self.seconds = start
        self.sent: list[tuple[float, float]] = []

    def __call__(self) -> Any:
        from builtin_interfaces.msg import Time
        from rosgraph_msgs.msg import Clock

        self.seconds += 0.05
        self.sent.append((self.seconds, time.time()))
        nanoseconds = round(self.seconds * 1e9)
        return Clock(clock=Time(sec=nanoseconds // 10**9, nanosec=nanoseconds % 10**9))

    def sent_at(self, seconds: float) -> float:
        """Wall time the first clock at or past ``seconds`` was made (``inf`` if none yet)."""
        return next((wall for sim, wall in list(self.sent) if sim >= seconds - 1e-6), math.inf)


def _best_effort() -> Any:
    from rclpy.qos import QoSProfile, ReliabilityPolicy

    return QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT)


def _seconds(message: Any) -> float:
    return message.header.stamp.sec + 1e-9 * message.header.stamp.nanosec


def test_a_node_waiting_for_the_clock_says_so_once(receiver: Any) -> None:
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import Range

    r = receiver(Range, 'sonar/range')
    with running('sonar_node', ONE_RAY) as node:
        log = NodeLog(node)
        log.wait_for(WAITING, 'nothing is read or published until one does')
        assert r.count(r.topic) == 0
        with publishing(r, Clock, '/clock', SimClock(50.0), qos=_best_effort()):
            log.wait_for('/clock came: time starts at 50.')
            r.wait_for(1, process=node)
        assert log.stop() == 0
    assert log.text().count('waiting for /clock') == 1, log.text()
    assert 'Traceback' not in log.text()


def _log_time(line: str) -> float:
    """The wall time (s) of a node's log line, ``[WARN] [1764900000.123456789] [name]: ...``."""
    found = re.search(r'\[(\d+\.\d+)\]', line)
    assert found is not None, line
    return float(found.group(1))


def _clocked_run(r: Any) -> tuple[str, float]:
    """Run a one-ray sonar on sim time with ``/clock`` from before its start, past its check.

    Returns the node's log and the wall time the test first held one of its readings. The node
    spins once it is built, so its check was due ``CLOCK_WAIT`` s after that time at the latest:
    past the check means readings made once the clock the node read was sent after then, and
    two more after that one (the check's timer runs before the next tick's, or beside it).
    """
    from rosgraph_msgs.msg import Clock

    clock = SimClock(50.0)
    clocked = publishing(r, Clock, '/clock', clock, qos=_best_effort())
    with clocked, running('sonar_node', ONE_RAY) as node:
        log = NodeLog(node)
        r.wait_for(r.count(r.topic) + 1, timeout=NODE_START_TIMEOUT, process=node)
        first = time.time()
        due = first + CLOCK_WAIT
        late = first_such(r, r.topic, node, lambda m: clock.sent_at(_seconds(m)) > due)
        for _ in range(2):
            first_such(r, r.topic, node, lambda m: _seconds(m) > _seconds(late))
        assert log.stop() == 0
    return log.text(), first


def test_a_node_given_the_clock_does_not_say_it_waits(receiver: Any) -> None:
    """The negative control: a clock from the start, readings past the node's check.

    A node warns from its one thread before it reads (nothing is read without a clock), so a
    warning logged after the test held a reading is wrong. One logged before it was right: on a
    machine so loaded that the clock's discovery took ``CLOCK_WAIT`` s, no clock had come. Such
    a run shows nothing either way, and the node is run again.
    """
    from sensor_msgs.msg import Range

    r = receiver(Range, 'sonar/range')
    for _ in range(4):
        text, first = _clocked_run(r)
        if 'waiting for /clock' not in text:
            return
        line = next(ln for ln in text.splitlines() if 'waiting for /clock' in ln)
        assert _log_time(line) < first, f'it warned after a reading came:\n{text}'
    pytest.fail(f'four runs in a row took {CLOCK_WAIT:g} s to discover /clock:\n{text}')


def _node(kind: str, tmp_path: Path) -> tuple[str, dict[str, Any], Any, str]:
    """``(executable, parameters, message type, topic)`` of a one-ray sonar or a sweep.

    The sweep reads on a schedule that catches up (several steps per tick): a jump once made
    it warn that it was slower than real time.
    """
    from sensor_msgs.msg import Range

    from nps_sonar.msg import SonarPoint

    if kind == 'sonar':
        return 'sonar_node', ONE_RAY, Range, 'sonar/range'
    robot, world = wall_scene(tmp_path)
    sweep = {k: v for k, v in ONE_RAY.items() if k != 'update_rate'}  # it steps at step_period
    parameters = {
        **sweep,
        'rays': 10,
        'robot_description_file': robot,
        'scene_file': world,
        'min_angle': -0.5,
        'max_angle': 0.5,
        'step': 0.25,
        **ACOUSTICS,
    }
    return 'scanning_sonar_node', parameters, SonarPoint, 'head/sonar_point'


@pytest.mark.parametrize('kind', ['sonar', 'sweep'])
def test_a_forward_jump_of_the_clock_is_named_and_readings_resume_after_it(
    receiver: Any, tmp_path: Path, kind: str
) -> None:
    from diagnostic_msgs.msg import DiagnosticArray
    from rosgraph_msgs.msg import Clock

    name, parameters, msg_type, topic = _node(kind, tmp_path)
    r = receiver(msg_type, topic)
    r.subscribe(DiagnosticArray, '/diagnostics')
    clock = SimClock(100.0)
    with running(name, parameters) as node:
        log = NodeLog(node)
        with publishing(r, Clock, '/clock', clock, qos=_best_effort()):
            r.wait_for(1, process=node)
            clock.seconds += 900.0  # the clock jumps from about 100 s to about 1000 s
            line = log.wait_for('time jumped forward by 900.')
            assert line.endswith('s: readings resume at the new time'), line
            after = first_such(r, r.topic, node, lambda m: _seconds(m) > 1000.0)
            # The first status past the jump: once it is out, a wrong warning would be in
            # the log already (the node warns as it makes the status).
            first_such(r, '/diagnostics', node, lambda m: _seconds(m) > 1000.0)
        assert log.stop() == 0
    assert _seconds(after) > 1000.0
    text = log.text()
    # What the jump did: the lines from its own on (a single-threaded node logs the jump before
    # any reading at the new time). A slip seen before it, on a loaded machine or as the first
    # clock steps come, is not the jump's doing.
    since_jump = text[text.index(line) :]
    assert 'falling behind' not in since_jump, text
    assert 'slower than real time' not in since_jump, text
    assert 'Traceback' not in text
