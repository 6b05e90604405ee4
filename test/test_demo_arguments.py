"""``scripts/demo`` refuses a command line it cannot carry out in one line, status 2.

These checks come before the demo installs or starts anything, so they run without ROS.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[1] / 'scripts' / 'demo'


@pytest.mark.parametrize(
    ('arguments', 'words'),
    [
        (['--bogus'], "unknown argument '--bogus'"),
        (['--record-waterfall'], '--record-waterfall goes with --sidescan and --record DIR'),
        (['--sidescan', '--record-waterfall'], '--record-waterfall goes with --sidescan'),
        (
            ['--coherent', '--record', '{tmp}', '--record-waterfall'],
            '--record-waterfall goes with --sidescan',
        ),
        (['--record', '{tmp}'], 'exists; give a new directory to record into'),
    ],
)
def test_a_bad_demo_command_line_is_one_line_and_status_2(
    tmp_path: Path, arguments: list[str], words: str
) -> None:
    command = [str(DEMO), *(a.replace('{tmp}', str(tmp_path)) for a in arguments)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert words in lines[0]
    assert result.stdout == ''
