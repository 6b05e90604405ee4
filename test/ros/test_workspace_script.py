"""``scripts/workspace WS``: a user's workspace made ready for ``colcon build`` with the wheels.

Run with this test's venv (``--venv``, the one ``scripts/env.sh`` made): it must copy each
stand-in the venv lacks into ``WS/src/<name>`` as a package (``package.xml``,
``CMakeLists.txt``, the messages of ``scripts/interfaces/<name>``), keep a package of that name
the user put there, do the same again on a second run, and print the lines that activate the
venv, build and source. The build itself (minutes) is what the README's steps do; this checks
what the script leaves for it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nps_sonar_py.ros.interfaces import STANDINS

pytestmark = pytest.mark.ros

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / 'scripts' / 'workspace'


def run(*args: str, ament_prefix_path: str = '') -> subprocess.CompletedProcess[str]:
    """The script run as from a fresh shell: no venv active, no ROS sourced (unless given)."""
    env = {k: v for k, v in os.environ.items() if k not in {'VIRTUAL_ENV', 'AMENT_PREFIX_PATH'}}
    if ament_prefix_path:
        env['AMENT_PREFIX_PATH'] = ament_prefix_path
    return subprocess.run(
        [str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def venv() -> str:
    return sys.prefix  # the venv of the wheels this test runs in


def test_the_stand_ins_go_into_src_as_packages(tmp_path: Path) -> None:
    ws = tmp_path / 'ros2_ws'
    for attempt in range(2):  # a second run leaves the same workspace
        result = run(str(ws), '--venv', venv())
        assert result.returncode == 0, result.stderr
        for name in STANDINS:
            template = REPO / 'scripts' / 'interfaces' / name
            package = ws / 'src' / name
            assert (package / 'package.xml').read_text() == (
                template / 'package.xml.in'
            ).read_text(), attempt
            assert (package / 'CMakeLists.txt').read_text() == (
                template / 'CMakeLists.txt.in'
            ).read_text()
            messages = sorted(p.name for p in (template / 'msg').iterdir())
            assert sorted(p.name for p in (package / 'msg').iterdir()) == messages
    activate = [line.split()[1] for line in result.stdout.splitlines() if 'bin/activate' in line]
    assert [Path(a).resolve() for a in activate] == [Path(venv(), 'bin', 'activate').resolve()]
    assert 'export AMENT_PREFIX_PATH=$VIRTUAL_ENV CMAKE_PREFIX_PATH=$VIRTUAL_ENV' in result.stdout
    assert f'cd {ws} && colcon build' in result.stdout
    assert 'source install/setup.bash' in result.stdout


def test_a_package_of_the_users_own_is_kept(tmp_path: Path) -> None:
    own = tmp_path / 'ws' / 'src' / 'tf2_msgs'
    own.mkdir(parents=True)
    (own / 'package.xml').write_text('<package format="3"><name>tf2_msgs</name></package>\n')
    result = run(str(tmp_path / 'ws'), '--venv', venv())
    assert result.returncode == 0, result.stderr
    assert f'tf2_msgs: keeping your {own}' in result.stderr
    assert (own / 'package.xml').read_text().startswith('<package format="3"><name>tf2_msgs<')
    assert not (own / 'CMakeLists.txt').exists()


def test_no_stand_in_where_a_sourced_prefix_has_the_package(tmp_path: Path) -> None:
    # This test's AMENT_PREFIX_PATH names the prefixes scripts/env.sh built the stand-ins into,
    # as a sourced ROS install names its own: the packages are there, nothing is copied.
    result = run(
        str(tmp_path), '--venv', venv(), ament_prefix_path=os.environ['AMENT_PREFIX_PATH']
    )
    assert result.returncode == 0, result.stderr
    for name in STANDINS:
        assert f'{name}: installed, no stand-in needed' in result.stderr
        assert not (tmp_path / 'src' / name).exists()


@pytest.mark.parametrize(
    ('args', 'words'),
    [
        ([], 'give the workspace folder'),
        (['{ws}', '--venv', '{ws}/nothing'], 'no venv at'),
        (['{ws}', '--venv', '{ws}'], 'is no venv with the ROS 2 wheels'),
        (['{ws}', '--bogus'], "unknown argument '--bogus'"),
    ],
)
def test_bad_arguments_are_one_line_and_status_2(
    tmp_path: Path, args: list[str], words: str
) -> None:
    result = run(*(a.replace('{ws}', str(tmp_path)) for a in args))
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert words in lines[0]
