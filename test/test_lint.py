"""The ruff configuration of pyproject.toml as a gate: the code base passes ``ruff check``.

ruff is pinned in requirements/<distro>.txt, so it is in the venv that ``scripts/test`` (and so
CI) runs; without it this test fails rather than skips. Formatting (``ruff format``) is not
part of the gate.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
CHECKED = ['nps_sonar_py', 'test', 'benchmarks', 'scripts', 'launch']


def test_ruff_check_passes() -> None:
    if importlib.util.find_spec('ruff') is None:
        pytest.fail(f'ruff is not installed for {sys.executable}; run scripts/test, which installs the '
                    'pinned requirements/<distro>.txt (ruff among them)')
    command = [sys.executable, '-m', 'ruff', 'check', '--no-cache', *CHECKED]
    result = subprocess.run(command, cwd=REPOSITORY, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, (
        f'`python {" ".join(command[1:])}` (in {REPOSITORY}) exited with {result.returncode}:\n'
        f'{result.stdout}{result.stderr}'
    )
