"""``--duration`` of the tools counts from the first reading, not from the tool's start.

On a loaded machine the sonars take seconds to start; ``scripts/demo --duration 12`` once
stopped before the first reading and exited 1. Here ``sonar_monitor --duration 2`` is
started first and says it waits for longer than its duration (three "waiting" lines, 3 s)
before the sonar starts: it still receives readings and exits 0.
"""

from __future__ import annotations

import subprocess

import pytest
from ros_helpers import executable, running

pytestmark = pytest.mark.ros


def test_the_monitor_s_duration_starts_at_the_first_reading() -> None:
    monitor = subprocess.Popen(
        [executable('sonar_monitor'), 'sonar', '--duration', '2'],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert monitor.stdout is not None
    waiting = 0
    while waiting < 3:  # 3 s without a sonar: past a duration counted from the start
        line = monitor.stdout.readline()
        assert line, monitor.stderr.read() if monitor.stderr else ''
        waiting += 'waiting for the sonar' in line
    with running('sonar_node', {'robot_description_wait': 0.0}):
        out, err = monitor.communicate(timeout=120)
    assert monitor.returncode == 0, out + err
    readings = [line for line in out.splitlines() if line.startswith('range 1.750 m')]
    assert readings, out


def test_without_a_reading_it_stops_after_wait_with_status_1() -> None:
    """Negative control: no sonar at all; ``--wait 1`` ends it, status 1, nothing received."""
    done = subprocess.run(
        [executable('sonar_monitor'), 'nobody', '--duration', '1', '--wait', '1'],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert 'received 0 readings' in done.stdout
