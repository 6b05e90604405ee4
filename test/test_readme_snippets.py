"""Every ```python block of README.md runs alone, from the repository's root, in a fresh Python.

A reader copies one block, not the README: a block that leans on an import or a name of an
earlier one fails for them (``NameError: load_world``). Each block runs in its own
subprocess with this interpreter and environment (under ``scripts/test``: the venv and the
built package), so a new block that does not stand alone fails here.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / 'README.md'
#: A fenced block opened by ```python at the start of a line, up to the closing fence.
BLOCK = re.compile(r'^```python\n(.*?)^```$', re.MULTILINE | re.DOTALL)


def python_blocks(text: str) -> list[tuple[int, str]]:
    """``(line of the opening fence, code)`` of each ```python block of ``text``."""
    return [(text.count('\n', 0, m.start()) + 1, m.group(1)) for m in BLOCK.finditer(text)]


def test_the_blocks_are_found() -> None:
    text = 'a\n```python\nx = 1\n```\n```bash\nls\n```\n```python\ny = 2\nprint(y)\n```\n'
    assert python_blocks(text) == [(2, 'x = 1\n'), (8, 'y = 2\nprint(y)\n')]
    assert len(python_blocks(README.read_text())) >= 3  # the README has its examples


@pytest.mark.parametrize(
    ('line', 'code'),
    python_blocks(README.read_text()),
    ids=[f'README.md:{line}' for line, _ in python_blocks(README.read_text())],
)
def test_each_python_block_runs_alone(line: int, code: str) -> None:
    result = subprocess.run(
        [sys.executable, '-c', code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, f'README.md:{line}: the block fails alone:\n{result.stderr}'


def test_a_block_that_leans_on_another_fails() -> None:
    """The negative control: the README's old second block, without its import, fails."""
    code = "world = load_world('config/worlds/seabed.world')\n"
    result = subprocess.run(
        [sys.executable, '-c', code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode != 0
    assert "NameError: name 'load_world' is not defined" in result.stderr
