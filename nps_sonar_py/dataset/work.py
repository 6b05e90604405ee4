"""The unit of work: one sample's files from the spec and its row, or the reason it failed.

:func:`write_sample` runs in-process (``--workers 1``) and in a Ray worker
(``dataset/distributed.py``): it makes the sample's files (:func:`make_sample`, bytes that
depend only on the spec and its row) and writes them into the output folder itself, its
record last, so that the driver only learns the outcome: no sample's bytes pass through it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nps_sonar_py.dataset.files import json_bytes, record_path, sample_files, write_atomic
from nps_sonar_py.dataset.sample import render_sample
from nps_sonar_py.dataset.sensor import sensor_settings
from nps_sonar_py.dataset.spec import Spec
from nps_sonar_py.errors import NpsSonarError, error_line

__all__ = [
    'TRIES',
    'Outcome',
    'RunError',
    'failed_files',
    'local_outcomes',
    'make_sample',
    'write_sample',
]

#: Tries of a sample before it is recorded as failed.
TRIES = 2


class RunError(NpsSonarError):
    """A run that cannot go on (Ray would not start, a cluster does not answer): one line."""


@dataclass(frozen=True)
class Outcome:
    """A sample's files (its record last), or ``error``: why it could not be made.

    ``files`` is empty once :func:`write_sample` has written them; ``unwritten`` says why
    they could not be written (``<path>: <reason>``): a full disk stops the run, it is not
    the sample's failure.
    """

    index: int
    files: dict[str, bytes]
    error: str | None = None
    unwritten: str = ''


def make_sample(spec: Spec, row: dict[str, Any]) -> Outcome:
    """Render the sample of ``row`` and write its files as bytes; any failure is an outcome."""
    try:
        rendered = render_sample(spec, sensor_settings(spec), row)
        files = sample_files(row['id'], rendered, spec.classes, spec.channels)
        return Outcome(row['sample'], files)
    except Exception as error:  # a sample's failure is recorded; the run goes on
        reason = f'{type(error).__name__}: {error_line(error)}'
        return Outcome(row['sample'], {}, reason)


def write_sample(spec: Spec, row: dict[str, Any], out: str) -> Outcome:
    """:func:`make_sample`, its files written into the folder ``out`` (absolute), record last.

    A failure to write (a full disk, a folder this worker cannot reach) is ``unwritten``.
    """
    outcome = make_sample(spec, row)
    if outcome.error is not None:
        return outcome
    try:
        for relative, data in outcome.files.items():  # the record is the last
            write_atomic(Path(out), relative, data)
    except OSError as error:
        where = error.filename or Path(out, relative)
        return Outcome(outcome.index, {}, unwritten=f'{where}: {error.strerror or error}')
    return Outcome(outcome.index, {})


def failed_files(sample_id: str, reason: str) -> dict[str, bytes]:
    """The record of a sample that failed every try."""
    record = {'id': sample_id, 'status': 'failed', 'error': reason}
    return {record_path(sample_id): json_bytes(record)}


def local_outcomes(
    spec: Spec, rows: Iterable[dict[str, Any]], out: str, stop: Callable[[], bool]
) -> Iterator[Outcome]:
    """Each row's sample written into ``out`` in this process, in order; ``TRIES`` tries each."""
    for row in rows:
        if stop():
            return
        for _ in range(TRIES):
            outcome = write_sample(spec, row, out)
            if outcome.error is None:
                break
        yield outcome
