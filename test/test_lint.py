"""The tool settings of pyproject.toml as gates: ``ruff check``, ``ruff format`` and ``mypy`` pass.

- ``ruff check``: the lint rules, over every Python path of the repository (``CHECKED``).
- ``ruff format --check``: the same paths are formatted as ``ruff format`` writes them.
- ``mypy``: the package type-checks, strictly except in ``nps_sonar_py.ros``, which gets
  mypy's default checking (``[tool.mypy]``).

ruff and mypy are pinned in requirements/<distro>.txt, so they are in the venv that
``scripts/test`` (and so CI) runs; without them these tests fail rather than skip. None of
them writes a cache into the repository.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
CHECKED = ['nps_sonar_py', 'test', 'benchmarks', 'scripts', 'launch']
TYPED = ['nps_sonar_py']


def _require(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.fail(
            f'{module} is not installed for {sys.executable}; run scripts/test, which installs '
            f'the pinned requirements/<distro>.txt ({module} among them)'
        )


def _assert_passes(command: list[str]) -> None:
    result = subprocess.run(
        command, cwd=REPOSITORY, capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, (
        f'`python {" ".join(command[1:])}` (in {REPOSITORY}) exited with {result.returncode}:\n'
        f'{result.stdout}{result.stderr}'
    )


def test_ruff_check_passes() -> None:
    _require('ruff')
    _assert_passes([sys.executable, '-m', 'ruff', 'check', '--no-cache', *CHECKED])


def test_ruff_format_passes() -> None:
    _require('ruff')
    _assert_passes([sys.executable, '-m', 'ruff', 'format', '--check', '--no-cache', *CHECKED])


def test_mypy_passes(tmp_path: Path) -> None:
    _require('mypy')
    options = ['--config-file', str(REPOSITORY / 'pyproject.toml'), '--cache-dir', str(tmp_path)]
    _assert_passes([sys.executable, '-m', 'mypy', *options, *TYPED])
