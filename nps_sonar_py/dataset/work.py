"""The unit of work: one sample's files from the spec and its row, or the reason it failed.

The same function runs in-process (``--workers 1``) and in a Ray worker
(``dataset/distributed.py``): a sample's bytes depend only on the spec and its row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from nps_sonar_py.dataset.files import json_bytes, record_path, sample_files
from nps_sonar_py.dataset.sample import render_sample
from nps_sonar_py.dataset.sensor import sensor_settings
from nps_sonar_py.dataset.spec import Spec
from nps_sonar_py.errors import NpsSonarError, error_line

__all__ = ['TRIES', 'Outcome', 'RunError', 'failed_files', 'local_outcomes', 'make_sample']

#: Tries of a sample before it is recorded as failed.
TRIES = 2


class RunError(NpsSonarError):
    """A run that cannot go on (Ray would not start, a cluster does not answer): one line."""


@dataclass(frozen=True)
class Outcome:
    """A sample's files (its record last), or ``error``: why it could not be made."""

    index: int
    files: dict[str, bytes]
    error: str | None = None


def make_sample(spec: Spec, row: dict[str, Any]) -> Outcome:
    """Render the sample of ``row`` and write its files as bytes; any failure is an outcome."""
    try:
        rendered = render_sample(spec, sensor_settings(spec), row)
        return Outcome(row['sample'], sample_files(row['id'], rendered, spec.classes))
    except Exception as error:  # a sample's failure is recorded; the run goes on
        reason = f'{type(error).__name__}: {error_line(error)}'
        return Outcome(row['sample'], {}, reason)


def failed_files(sample_id: str, reason: str) -> dict[str, bytes]:
    """The record of a sample that failed every try."""
    record = {'id': sample_id, 'status': 'failed', 'error': reason}
    return {record_path(sample_id): json_bytes(record)}


def local_outcomes(
    spec: Spec, rows: Iterable[dict[str, Any]], stop: Callable[[], bool]
) -> Iterator[Outcome]:
    """The outcome of each row's sample, in this process, in order; each tried ``TRIES`` times."""
    for row in rows:
        if stop():
            return
        for _ in range(TRIES):
            outcome = make_sample(spec, row)
            if outcome.error is None:
                break
        yield outcome
