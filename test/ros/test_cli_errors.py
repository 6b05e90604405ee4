"""Bad command lines: one line on stderr, ``nps_sonar: <problem>``, and exit status 2.

One table of cases, each an executable, its arguments and words its one line must hold:
the nodes given a malformed or missing ``--params-file``, a topic name rclpy refuses (in a
``*_topic`` parameter or made from a sensor's name: bad characters, an unknown substitution,
a trailing or repeated ``/``, a name empty once expanded) or a sensor frame that is the world
frame, the recorder writing where it cannot, the monitor given a bad topic name, and either
tool a duration that is negative or not a number; and ``scripts/demo``'s towfish. ``{tmp}``,
``{malformed}``, ``{missing}``, ``{unwritable}`` and ``{braced_sensor}`` (a robot whose sensor
is named ``a{x}``) in a case stand for paths made per test.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from ros_helpers import executable, exit_line

pytestmark = pytest.mark.ros

BAD_TOPIC = 'bad topic!'
NOT_A_TOPIC = 'topic name must not contain characters other than alphanumerics'
NOT_SECONDS = 'expected a finite number of seconds >= 0'
UNRESOLVED = 'failed to resolve name'
WORLD_FRAME = "cannot be a sensor frame: it is the world_frame, the root of the robot's TF tree"
ROBOTS = Path(__file__).resolve().parents[2] / 'config' / 'robots'

CASES = {
    # id: (executable, arguments, words in the line)
    'sonar_node-malformed-params-file': (
        'sonar_node',
        ['--ros-args', '--params-file', '{malformed}'],
        "Couldn't parse params file: '--params-file {malformed}'",
    ),
    'robot_sensors_node-malformed-params-file': (
        'robot_sensors_node',
        ['--ros-args', '--params-file', '{malformed}'],
        "Couldn't parse params file: '--params-file {malformed}'",
    ),
    'ranger_node-missing-params-file': (
        'ranger_node',
        ['--ros-args', '--params-file', '{missing}'],
        "Couldn't parse params file: '--params-file {missing}'",
    ),
    'sonar_node-invalid-range-topic': (
        'sonar_node',
        ['--ros-args', '-p', f'range_topic:={BAD_TOPIC}'],
        f"Invalid topic name: {NOT_A_TOPIC}, '_', '~', '{{', or '}}': '{BAD_TOPIC}'",  # no caret
    ),
    'scanning_sonar_node-invalid-joint-states-topic': (
        'scanning_sonar_node',
        ['--ros-args', '-p', f'joint_states_topic:={BAD_TOPIC}'],
        f'Invalid topic name: {NOT_A_TOPIC}',
    ),
    'sonar_node-range-topic-unknown-substitution': (
        'sonar_node',
        ['--ros-args', '-p', 'range_topic:=/{x}'],
        f"range_topic: '/{{x}}': {UNRESOLVED}: unknown substitution: {{x}}",
    ),
    'sonar_node-range-topic-private-unknown-substitution': (
        'sonar_node',
        ['--ros-args', '-p', 'range_topic:=~/a{b}'],
        f"range_topic: '~/a{{b}}': {UNRESOLVED}: unknown substitution: {{b}}",
    ),
    'sonar_node-scan-topic-trailing-slash': (
        'sonar_node',
        ['--ros-args', '-p', 'scan_topic:=sonar/'],
        "scan_topic: Invalid topic name: topic name must not end with a forward slash: 'sonar/'",
    ),
    'sonar_node-sonar-point-topic-double-slash': (
        'sonar_node',
        ['--ros-args', '-p', 'sonar_point_topic:=a//b'],
        f"sonar_point_topic: 'a//b': {UNRESOLVED}: topic name must not contain repeated '/'",
    ),
    'ranger_node-scene-state-topic-space': (
        'ranger_node',
        ['--ros-args', '-p', 'scene_state_topic:=scene state'],
        f"scene_state_topic: Invalid topic name: {NOT_A_TOPIC}, '_', '~', '{{', or '}}': "
        "'scene state'",
    ),
    'ranger_node-pose-topic-empty-once-expanded': (
        'ranger_node',
        ['--ros-args', '-p', 'pose_source:=odometry', '-p', "pose_topic:='{ns}'"],
        f"pose_topic: '{{ns}}': {UNRESOLVED}: topic name must not end with a '/'",
    ),
    'sonar_node-joint-states-topic-unknown-substitution': (
        'sonar_node',
        ['--ros-args', '-p', 'joint_states_topic:=joints/{robot}'],
        f"joint_states_topic: 'joints/{{robot}}': {UNRESOLVED}: unknown substitution: {{robot}}",
    ),
    'sonar_node-sensor-name-unknown-substitution': (
        'sonar_node',
        ['--ros-args', '-p', 'robot_description_file:={braced_sensor}'],
        "'a{x}'",
    ),
    'sonar_node-frame-id-world-frame-pose-fixed': (
        'sonar_node',
        ['--ros-args', '-p', 'frame_id:=odom'],
        f"frame_id: 'odom' {WORLD_FRAME}",
    ),
    'sonar_node-frame-id-world-frame-pose-tf': (
        'sonar_node',
        ['--ros-args', '-p', 'pose_source:=tf', '-p', 'world_frame:=map', '-p', 'frame_id:=map'],
        f"frame_id: 'map' {WORLD_FRAME}",
    ),
    'ranger_node-device-name-world-frame-pose-fixed': (
        'ranger_node',
        ['--ros-args', '-p', 'world_frame:=world', '-p', 'device_name:=world'],
        f"frame_id: 'world' {WORLD_FRAME}",
    ),
    'ranger_node-device-name-unknown-substitution': (
        'ranger_node',
        ['--ros-args', '-p', "device_name:='a{x}'"],
        f"device name 'a{{x}}': 'a{{x}}/ranger': {UNRESOLVED}: unknown substitution: {{x}}",
    ),
    'sonar_record-unwritable-folder': (
        'sonar_record',
        ['{unwritable}/bag', '--duration', '1'],
        '{unwritable}/bag: cannot write the bag: ',
    ),
    'sonar_record-invalid-topic': (
        'sonar_record',
        ['{tmp}/bag', '--topics', BAD_TOPIC],
        f"topic '{BAD_TOPIC}': failed to resolve name: {NOT_A_TOPIC}",
    ),
    'sonar_record-negative-duration': (
        'sonar_record',
        ['{tmp}/bag', '--duration', '-1'],
        f"sonar_record: argument --duration: {NOT_SECONDS}, got '-1'",
    ),
    'sonar_record-nan-duration': (
        'sonar_record',
        ['{tmp}/bag', '--duration', 'nan'],
        f"sonar_record: argument --duration: {NOT_SECONDS}, got 'nan'",
    ),
    'sonar_record-xtf-without-sidescan': (
        'sonar_record',
        ['{tmp}/bag', '--xtf'],
        '--xtf writes the side-scan of --sidescan SENSOR: give it',
    ),
    'sonar_record-oculus-without-sensor': (
        'sonar_record',
        ['{tmp}/bag', '--oculus', '/'],
        "--oculus '/': expected a sensor name, e.g. /sonar",
    ),
    'scanning_sonar_node-unknown-display': (
        'scanning_sonar_node',
        ['--ros-args', '-p', 'mode:=multibeam', '-p', 'display:=oculus'],
        "display must be none, oculus_m750d_hf or sidescan_600khz_xtf, got 'oculus'",
    ),
    'scanning_sonar_node-display-in-mode-sweep': (
        'scanning_sonar_node',
        ['--ros-args', '-p', 'mode:=sweep', '-p', 'display:=oculus_m750d_hf'],
        'mode sweep does not use display',
    ),
    'sonar_monitor-invalid-topic': (
        'sonar_monitor',
        [BAD_TOPIC],
        f'Invalid topic name: {NOT_A_TOPIC}',
    ),
    'sonar_monitor-negative-duration': (
        'sonar_monitor',
        ['--duration', '-1'],
        f"sonar_monitor: argument --duration: {NOT_SECONDS}, got '-1'",
    ),
    'sonar_monitor-nan-duration': (
        'sonar_monitor',
        ['--duration', 'nan'],
        f"sonar_monitor: argument --duration: {NOT_SECONDS}, got 'nan'",
    ),
    'sonar_monitor-missing-params-file': (
        'sonar_monitor',
        ['--ros-args', '--params-file', '{missing}'],
        "Couldn't parse params file: '--params-file {missing}'",
    ),
}


def unwritable_folder(tmp_path: Path) -> Path:
    """A folder this process cannot create anything in (root ignores permissions: /sys)."""
    if os.geteuid() != 0:
        folder = tmp_path / 'read_only'
        folder.mkdir()
        folder.chmod(0o555)
        return folder
    folder, probe = Path('/sys'), Path('/sys/nps_sonar_probe')
    try:
        probe.mkdir()
    except OSError:
        return folder
    probe.rmdir()
    pytest.skip('no folder here that root cannot write in')


@pytest.fixture
def paths(tmp_path: Path) -> dict[str, str]:
    malformed = tmp_path / 'malformed.yaml'
    malformed.write_text('sonar:\n  ros__parameters:\n    rays: [1,\n')
    braced_sensor = tmp_path / 'braced_sensor.urdf'
    reference = (ROBOTS / 'reference_sonar.urdf').read_text()
    braced_sensor.write_text(reference.replace('<sensor name="sonar"', '<sensor name="a{x}"'))
    return {
        'braced_sensor': str(braced_sensor),
        'tmp': str(tmp_path),
        'malformed': str(malformed),
        'missing': str(tmp_path / 'missing.yaml'),
        'unwritable': str(unwritable_folder(tmp_path)),
    }


def fill(text: str, paths: dict[str, str]) -> str:
    """``text`` with each ``{name}`` of ``paths`` replaced (other braces kept)."""
    for name, path in paths.items():
        text = text.replace(f'{{{name}}}', path)
    return text


@pytest.mark.parametrize(('name', 'arguments', 'words'), CASES.values(), ids=CASES.keys())
def test_a_bad_command_line_is_one_line_and_status_2(
    paths: dict[str, str], name: str, arguments: list[str], words: str
) -> None:
    command = [executable(name), *(fill(a, paths) for a in arguments)]
    line = exit_line(command, timeout=120)
    assert fill(words, paths) in line, line
    assert not Path(paths['tmp'], 'bag').exists()  # a refused recording leaves no bag


@pytest.mark.parametrize(
    ('arguments', 'words'),
    [
        ([], 'demo_tow: the following arguments are required: --sidescan'),
        (['--sidescan', BAD_TOPIC], NOT_A_TOPIC),
        (
            ['--sidescan', '/s', '--duration', '-1'],
            f'demo_tow: argument --duration: {NOT_SECONDS}',
        ),
    ],
)
def test_the_demo_tow_refuses_a_bad_command_line_in_one_line(
    arguments: list[str], words: str
) -> None:
    """``scripts/demo``'s towfish (``ros/demo_tow.py``), run as the demo runs it."""
    line = exit_line([sys.executable, '-m', 'nps_sonar_py.ros.demo_tow', *arguments], timeout=120)
    assert words in line, line
