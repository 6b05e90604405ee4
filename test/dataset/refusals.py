"""The dataset tests' refusals: tables of bad specs, each a good spec with one change and words
of the one line that refuses it, and the shape of that line (one line, no traceback).

``test_dataset_spec`` (the sensor's keys), ``test_dataset_variety`` (the variety's keys) and
``test_dataset_hostile`` (inputs that escaped as tracebacks) each hold a table of
:class:`Refusal` rows and run it through :func:`each`; a spec refused by the code raises
:func:`refused_in_one_line`'s ``SpecError``, the command prints :func:`command_line`'s line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from nps_sonar_py.dataset import SpecError


@dataclass(frozen=True)
class Refusal:
    """``base`` with ``old`` replaced by ``new`` (``new`` added at its end for no ``old``),
    refused in one line that holds ``words``."""

    base: str
    old: str
    new: str
    words: str

    def text(self) -> str:
        """The bad spec; the change must be in ``base`` (else the spec would be the good one)."""
        if not self.old:
            return self.base + self.new
        assert self.old in self.base, f'{self.old!r} is not in the spec: nothing changed'
        return self.base.replace(self.old, self.new)


def changes(base: str, rows: dict[str, tuple[str, str, str]]) -> dict[str, Refusal]:
    """Each row ``(old, new, words)`` a refusal of ``base`` so changed, by name."""
    return {name: Refusal(base, old, new, words) for name, (old, new, words) in rows.items()}


def whole(rows: dict[str, tuple[str, str]]) -> dict[str, Refusal]:
    """Each row ``(text, words)`` a refusal of the spec ``text`` as it stands, by name."""
    return {name: Refusal(text, '', '', words) for name, (text, words) in rows.items()}


def each(table: dict[str, Refusal]) -> pytest.MarkDecorator:
    """Runs a test once for each refusal of ``table`` (its argument ``refusal``), named by
    its key."""
    cases = [pytest.param(refusal, id=name) for name, refusal in table.items()]
    return pytest.mark.parametrize('refusal', cases)


def refused_in_one_line(make: Callable[[], object], words: str) -> str:
    """The message of the ``SpecError`` that ``make()`` raises: one line holding ``words``."""
    with pytest.raises(SpecError) as caught:
        make()
    line = str(caught.value)
    assert '\n' not in line, line
    assert words in line, line
    return line


def command_line(status: int, stderr: str, expected: int = 2) -> str:
    """The one line of a command that had to fail with ``expected``: ``nps_sonar: ...``."""
    assert status == expected, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith('nps_sonar: '), stderr
    return lines[0]
