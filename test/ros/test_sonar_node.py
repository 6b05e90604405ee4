"""The sonar node over real DDS: a node process publishing, a subscriber here receiving.

Expected ranges come from the geometry of the reference scenario (DESIGN.md): a sonar at
(2.1, 1.0, 1.0) looking along +y; a vertical cylinder of radius 0.25 m centred on
(2.1, 3.0), 1 m long about z = 1.0; the tank's inner faces x = 0..4.27, y = 0..6.54.
"""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import numpy as np
import pytest
from reference_scene import CONE_RADIUS, FACETING, MAX_RANGE, MIN_RANGE, SONAR, cylinder_hits
from reference_scene import world_directions as sonar_world_directions
from ros_helpers import STOP_TIMEOUT, executable, exit_line, ros_args, running

pytestmark = pytest.mark.ros


def nearest_cylinder_hit(origin: np.ndarray, directions: np.ndarray) -> float:
    """Nearest intersection of rays from ``origin`` with the analytic cylinder."""
    return float(cylinder_hits(origin, directions)[0].min())


def test_boresight_meets_the_cylinder_at_1750_mm(receiver) -> None:
    from sensor_msgs.msg import Range

    r = receiver(Range, 'sonar/range')
    with running('sonar_node', {'rays': 1}) as node:
        message = r.wait_for(2, process=node)[-1]
    assert message.range == pytest.approx(1.750, abs=1e-6)


def test_range_message_on_the_reference_scene(receiver) -> None:
    from sensor_msgs.msg import Range

    r = receiver(Range, 'sonar/range')
    with running('sonar_node') as node:  # the defaults: reference robot and tank, 500 rays
        messages = r.wait_for(3, process=node)
    # Ray 0 of the cone is the boresight, which meets the front of the cylinder: nothing is nearer.
    assert nearest_cylinder_hit(SONAR, sonar_world_directions(500)) == pytest.approx(
        1.750, abs=1e-12
    )
    m = messages[-1]
    assert m.range == pytest.approx(1.750, abs=1e-6)
    assert m.radiation_type == Range.ULTRASOUND
    assert m.field_of_view == pytest.approx(2 * math.atan(CONE_RADIUS / MAX_RANGE), rel=1e-6)
    assert (m.min_range, m.max_range) == pytest.approx((MIN_RANGE, MAX_RANGE), rel=1e-6)
    assert m.header.frame_id == 'sonar'
    assert m.header.stamp.sec > 0  # stamped with the node's clock (system time here)
    stamps = [s.header.stamp.sec + 1e-9 * s.header.stamp.nanosec for s in messages]
    assert np.all(np.diff(stamps) > 0)


def test_nearest_hit_of_the_cone_off_the_boresight(receiver) -> None:
    from sensor_msgs.msg import Range

    # The robot moved 0.2 m along +x: the boresight meets the cylinder 0.2 m off its axis, at
    # 2 - sqrt(0.25^2 - 0.2^2) = 1.85 m, and rays leaning towards the axis meet it nearer.
    offset = np.array([0.2, 0.0, 0.0])
    directions = sonar_world_directions(500)
    expected = nearest_cylinder_hit(SONAR + offset, directions)
    boresight = nearest_cylinder_hit(SONAR + offset, directions[:1])
    assert boresight == pytest.approx(1.85, abs=1e-12)
    assert expected < boresight - 0.05  # the cone matters here, not only its axis
    r = receiver(Range, 'sonar/range')
    with running('sonar_node', {'robot_pose': [0.2, 0.0, 0.0, 0.0, 0.0, 0.0]}) as node:
        message = r.wait_for(2, process=node)[-1]
    # Off the boresight the facets meet a ray at an angle: allow twice the radial faceting error.
    assert message.range == pytest.approx(expected, abs=2 * FACETING + 1e-6)


def test_nothing_within_max_range_reads_plus_inf(receiver) -> None:
    from sensor_msgs.msg import Range

    r = receiver(Range, 'sonar/range')
    # The robot moved 20 m out of the tank along -x: nothing ahead along +y within 7 m.
    with running('sonar_node', {'robot_pose': [-20.0, 0.0, 0.0, 0.0, 0.0, 0.0]}) as node:
        message = r.wait_for(2, process=node)[-1]
    assert message.range == math.inf


def test_a_target_closer_than_min_range_reads_minus_inf(receiver) -> None:
    from sensor_msgs.msg import Range

    r = receiver(Range, 'sonar/range')
    # The robot moved 1.7 m along +y: the cylinder's face is 0.05 m ahead, inside min range 0.1 m.
    with running('sonar_node', {'robot_pose': [0.0, 1.7, 0.0, 0.0, 0.0, 0.0]}) as node:
        message = r.wait_for(2, process=node)[-1]
    assert message.range == -math.inf


REFERENCE_URDF = Path(__file__).resolve().parents[2] / 'config' / 'robots' / 'reference_sonar.urdf'


def _bad_robot(tmp_path: Path, old: str, new: str) -> Path:
    text = REFERENCE_URDF.read_text()
    assert old in text, f'the reference URDF no longer contains {old!r}'
    path = tmp_path / 'bad_robot.urdf'
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize(
    ('old', 'new', 'element', 'problem'),
    [
        ('<parent link="sonar_link"/>', '', '<sensor name="sonar"', 'parent'),
        ('<max>7</max>', '<max>0.05</max>', 'max', 'min'),
        ('<parent link="sonar_link"/>', '<parent link="no_such_link"/>', 'no_such_link', 'link'),
        ('</robot>', '<robot>', '', 'XML'),
    ],
    ids=['no-parent', 'max-below-min', 'unknown-parent-link', 'malformed-xml'],
)
def test_bad_input_exits_with_one_line(
    tmp_path: Path,
    old: str,
    new: str,
    element: str,
    problem: str,
) -> None:
    robot_file = _bad_robot(tmp_path, old, new)
    command = [executable('sonar_node'), *ros_args({'robot_description_file': str(robot_file)})]
    line = exit_line(command)
    assert line.startswith(f'nps_sonar: {robot_file}')
    assert element in line
    assert problem.lower() in line.lower()


@pytest.mark.parametrize('signal_number', [2, 15], ids=['SIGINT', 'SIGTERM'])
def test_signals_shut_the_node_down_cleanly(receiver, signal_number: int) -> None:
    from sensor_msgs.msg import Range

    r = receiver(Range, 'sonar/range')
    command = [executable('sonar_node'), *ros_args({'rays': 1})]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        r.wait_for(2, process=process)
        process.send_signal(signal_number)
        out, err = process.communicate(timeout=STOP_TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert 'Traceback' not in err + out
