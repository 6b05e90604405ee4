"""A node given no robot file reads its robot from ``/robot_description``, as robots publish it.

``robot_state_publisher`` publishes the URDF once, reliable and transient local; a node
started later still gets it. Here a probe plays that part with the reference robot whose
sonar reaches 3.5 m instead of 7 m: the node's ``Range.max_range`` says which robot it uses
(the negative control: with no publisher it is the default robot's 7 m). A node that finds
a publisher but no description yet says it waits, and reads once the description comes; bad
text is refused in the one line of a bad file, naming the topic.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from ros_helpers import NODE_START_TIMEOUT, NodeLog, Probe, Receiver, executable

pytestmark = pytest.mark.ros

REFERENCE = Path(__file__).resolve().parents[2] / 'config' / 'robots' / 'reference_sonar.urdf'
#: The reference robot with its sonar's <max> at 3.5 m.
SHORT = REFERENCE.read_text().replace('<max>7</max>', '<max>3.5</max>')


@contextmanager
def description_publisher() -> Iterator[object]:
    """A probe publishing ``/robot_description`` transient local, as robot_state_publisher."""
    from std_msgs.msg import String

    from nps_sonar_py.ros.robot_topic import QOS

    probe = Probe('robot_state_publisher_stand_in')
    try:
        publisher = probe.node.create_publisher(String, '/robot_description', QOS)

        def publish(text: str) -> None:
            publisher.publish(String(data=text))

        yield publish
    finally:
        probe.close()


def max_range(receiver: Receiver, process: subprocess.Popen[str]) -> float:
    return float(receiver.wait_for(1, process=process)[-1].max_range)


#: The node waits for the description this long: a bound on discovery, which a loaded machine
#: takes tens of seconds over (the default, 1 s, is exceeded); it reads one as soon as it comes.
WAIT = ['--ros-args', '-p', f'robot_description_wait:={NODE_START_TIMEOUT}']


def sonar_node(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [executable('sonar_node'), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_description_published_before_the_node_is_its_robot(receiver) -> None:
    from sensor_msgs.msg import Range

    ranges = receiver(Range, '/sonar/range')
    with description_publisher() as publish:
        publish(SHORT)  # before the node starts: only transient local QoS hands it over
        log = NodeLog(sonar_node(*WAIT))
        try:
            # The node reads it whether it came with the publisher's discovery or after the
            # node said it waits (the next test): which is first is the machine's timing.
            assert max_range(ranges, log.process) == 3.5
        finally:
            assert log.stop() == 0


def test_the_node_says_it_waits_then_reads_the_description_when_it_comes(receiver) -> None:
    from sensor_msgs.msg import Range

    ranges = receiver(Range, '/sonar/range')
    with description_publisher() as publish:
        log = NodeLog(sonar_node(*WAIT))
        try:
            log.wait_for('waiting for the robot description on /robot_description')
            assert not ranges.messages  # nothing read while it waits
            publish(SHORT)
            assert max_range(ranges, log.process) == 3.5
        finally:
            assert log.stop() == 0


def test_without_a_publisher_the_default_robot_is_used(receiver) -> None:
    """Negative control: the same node with nothing on the topic reads the default 7 m robot,
    and a description published after its start is not used (a warning says so)."""
    from sensor_msgs.msg import Range

    ranges = receiver(Range, '/sonar/range')
    log = NodeLog(sonar_node('--ros-args', '--log-level', 'sonar:=debug'))
    try:
        assert max_range(ranges, log.process) == 7.0
        log.wait_for('no publisher of /robot_description within robot_description_wait (1 s)')
        with description_publisher() as publish:  # too late: said, and not used
            publish(SHORT)
            log.wait_for('a robot description came on /robot_description after the node')
        assert {m.max_range for m in ranges.messages} == {7.0}
    finally:
        assert log.stop() == 0


def test_bad_description_text_is_one_line_naming_the_topic() -> None:
    bad = SHORT.replace('<max>3.5</max>', '<max>0.05</max>')  # max below min (0.1)
    with description_publisher() as publish:
        publish(bad)
        done = subprocess.run(
            [executable('sonar_node'), *WAIT],
            capture_output=True,
            text=True,
            timeout=2 * NODE_START_TIMEOUT,
        )
    assert done.returncode == 2, done.stderr
    assert 'Traceback' not in done.stderr
    line = done.stderr.strip().splitlines()[-1]  # after the line saying it waits
    assert line.startswith('nps_sonar: /robot_description:'), line
    assert '<max>: max: must be > min (0.1), got 0.05' in line
