"""The README's ``scripts/run`` line of each launch configuration, run as written: it publishes.

Each line (``test/test_device_choices.py`` checks them against the launch files) runs from the
repository's root through ``scripts/run``, as a reader would type it, until its node's first
``RangerData`` (the Ranger devices) or ``Range`` (the sonar, the demo robot) arrives.
"""

from __future__ import annotations

import shlex
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from test_device_choices import REPOSITORY, readme_rows
from test_launch_configurations import _wait_for_topic

pytestmark = pytest.mark.ros


@contextmanager
def _started(command: str) -> Iterator[subprocess.Popen[str]]:
    words = shlex.split(command)
    process = subprocess.Popen(
        words, cwd=REPOSITORY, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()


@pytest.mark.parametrize('configuration', sorted(readme_rows()))
def test_the_readme_line_starts_the_node(receiver, configuration: str) -> None:
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import Range

    from nps_sonar.msg import RangerData

    ranger = 'device:=' in configuration
    message_type, type_name = (
        (RangerData, 'nps_sonar/msg/RangerData') if ranger else (Range, 'sensor_msgs/msg/Range')
    )
    probe = receiver(Clock, '/unused_probe')  # a node to look at the graph with
    with _started(readme_rows()[configuration]) as node:
        topic = _wait_for_topic(probe, type_name, node, timeout=60.0)
        message = receiver(message_type, topic).wait_for(1, timeout=30.0, process=node)[-1]
        assert node.poll() is None
    assert len(message.ranges) > 0 if ranger else message.range > 0.0
