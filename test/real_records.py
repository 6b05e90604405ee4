"""The real sonar records the tests read: ``shared/real`` beside the repository (never copied).

CI has them there; elsewhere a test that needs one is skipped, with the reason, only when the
environment variable ``CI`` is unset: under CI a missing record fails.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

#: Where the real records are, beside the repository.
REAL = Path(__file__).resolve().parents[1].parent / 'shared' / 'real'


def real_file(relative: str) -> Path:
    """The path of real record ``relative``; skip (not under CI) or fail (CI) when absent."""
    path = REAL / relative
    if not path.is_file():
        if os.environ.get('CI'):
            pytest.fail(f'{path} is missing: CI must have the real records beside the repository')
        pytest.skip(f'{path}: the real records are not beside this checkout (CI has them)')
    return path
