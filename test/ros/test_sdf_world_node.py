"""README's command for a node on the shipped SDF world reads the range the geometry gives.

The command (README, Gazebo worlds) runs the reference sonar on config/worlds/underwater.sdf
with its robot's root turned by -90 degrees and placed at (0, 5.1, 4): the sensor, at
(2.1, 1.0, 1.0) from the root looking along the root's +y, sits at (1, 3, 5) looking along +x,
at the buoy, a sphere of radius 0.5 m centred at (4, 3, 5): its face is 3 - 0.5 = 2.5 m away.
The pose is read from the README, so that the test checks the command as written.
"""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import numpy as np
import pytest
from ros_helpers import NODE_START_TIMEOUT, Receiver, running

pytestmark = pytest.mark.ros

REPO = Path(__file__).resolve().parents[2]


def readme_pose() -> list[float]:
    text = (REPO / 'README.md').read_text()
    found = re.search(
        r"scene_file:=config/worlds/underwater\.sdf -p robot_pose:='(\[[^]]*\])'", text
    )
    assert found, 'README: no sonar_node command on config/worlds/underwater.sdf'
    return [float(v) for v in ast.literal_eval(found.group(1))]


def test_the_readme_pose_puts_the_sonar_before_the_buoy() -> None:
    x, y, z, roll, pitch, yaw = readme_pose()
    assert (roll, pitch) == (0.0, 0.0)
    turn = np.array([[math.cos(yaw), -math.sin(yaw)], [math.sin(yaw), math.cos(yaw)]])
    sensor = np.array([x, y]) + turn @ [2.1, 1.0]
    assert sensor == pytest.approx([1.0, 3.0], abs=1e-6)
    assert z + 1.0 == pytest.approx(5.0)
    assert turn @ [0.0, 1.0] == pytest.approx([1.0, 0.0], abs=1e-6)  # looking along +x


def test_the_readme_command_reads_the_buoy_2_5_m_away(monkeypatch: pytest.MonkeyPatch) -> None:
    from sensor_msgs.msg import Range

    monkeypatch.setenv('GZ_SIM_RESOURCE_PATH', str(REPO / 'config' / 'worlds' / 'models'))
    parameters = {
        'scene_file': str(REPO / 'config' / 'worlds' / 'underwater.sdf'),
        'robot_pose': readme_pose(),
    }
    receiver = Receiver(Range, '/sonar/range')
    try:
        with running('sonar_node', parameters) as node:
            readings = receiver.wait_for(3, timeout=2 * NODE_START_TIMEOUT, process=node)
    finally:
        receiver.close()
    for reading in readings:
        assert reading.range == pytest.approx(2.5, abs=1e-3)
