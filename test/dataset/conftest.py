"""One reference dataset per test session, made in-process (``--workers 1``) by the command."""

from __future__ import annotations

from pathlib import Path

import pytest
from dataset_runs import FLS_SPEC, SIDESCAN_SPEC, run_cli, write_spec

#: Samples of the reference runs.
SAMPLES = 6


def _made(folder: Path, text: str, samples: int) -> Path:
    spec = write_spec(folder, text)
    out = folder / 'out'
    result = run_cli(spec, out, '--samples', str(samples), '--quiet')
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope='session')
def fls_reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The forward-looking spec's dataset of :data:`SAMPLES` samples (its spec beside it)."""
    return _made(tmp_path_factory.mktemp('fls'), FLS_SPEC, SAMPLES)


@pytest.fixture(scope='session')
def sidescan_reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The side-scan spec's dataset of two samples."""
    return _made(tmp_path_factory.mktemp('sidescan'), SIDESCAN_SPEC, 2)
