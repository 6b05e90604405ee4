"""The unit of work: one sample's files from the spec and its row, or the reason it failed.

:func:`write_sample` runs in-process (``--workers 1``) and in a Ray worker
(``dataset/distributed.py``, several samples a task: :func:`write_batch`): it makes the
sample's files (:func:`make_sample`, bytes that depend only on the spec and its row) and
writes them into the output folder itself, its record last, so that the driver only learns
the outcome and the record (a few kB, for the dataset's own files: it reads no sample back):
no image or array passes through it. The sonar's settings of the spec are read once for
the run in-process, once a worker process on Ray (``sensor.cached_settings``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from time import perf_counter
from typing import Any

from nps_sonar_py.dataset.files import json_bytes, record_path, sample_files, write_atomic
from nps_sonar_py.dataset.sample import render_sample
from nps_sonar_py.dataset.sensor import cached_settings
from nps_sonar_py.dataset.spec import Spec
from nps_sonar_py.errors import NpsSonarError, error_line

__all__ = [
    'TRIES',
    'Outcome',
    'RunError',
    'failed_files',
    'local_outcomes',
    'make_sample',
    'tried_sample',
    'write_batch',
    'write_sample',
]

#: Tries of a sample before it is recorded as failed.
TRIES = 2


class RunError(NpsSonarError):
    """A run that cannot go on (Ray would not start, a cluster does not answer): one line."""


@dataclass(frozen=True)
class Outcome:
    """A sample's files (its record last), or ``error``: why it could not be made.

    ``files`` is empty once :func:`write_sample` has written them, ``record`` then the bytes
    of the record it wrote; ``unwritten`` says why they could not be written (``<path>:
    <reason>``): a full disk stops the run, it is not the sample's failure. ``seconds``: how
    long the sample took to make and write (:func:`tried_sample`; Ray's batches are sized
    by it).
    """

    index: int
    files: dict[str, bytes]
    error: str | None = None
    unwritten: str = ''
    record: bytes = b''
    seconds: float = 0.0


def make_sample(spec: Spec, row: dict[str, Any]) -> Outcome:
    """Render the sample of ``row`` and write its files as bytes; any failure is an outcome."""
    try:
        rendered = render_sample(spec, cached_settings(spec), row)
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
    return Outcome(outcome.index, {}, record=outcome.files[record_path(row['id'])])


def tried_sample(spec: Spec, row: dict[str, Any], out: str) -> Outcome:
    """:func:`write_sample` tried up to :data:`TRIES` times; its ``seconds`` all the tries'."""
    start = perf_counter()
    for _ in range(TRIES):
        outcome = write_sample(spec, row, out)
        if outcome.error is None:
            break
    return replace(outcome, seconds=perf_counter() - start)


def write_batch(spec: Spec, rows: list[dict[str, Any]], out: str) -> Iterator[Outcome]:
    """:func:`tried_sample` of each row in turn, each outcome as soon as it is made.

    A Ray task's generator: the driver counts every sample as it is made, not every batch.
    The task reserves one CPU; its worker process was started keeping to one core
    (``distributed.WORKER_ENVIRONMENT``).
    """
    for row in rows:
        yield tried_sample(spec, row, out)


def failed_files(sample_id: str, reason: str) -> dict[str, bytes]:
    """The record of a sample that failed every try."""
    record = {'id': sample_id, 'status': 'failed', 'error': reason}
    return {record_path(sample_id): json_bytes(record)}


def local_outcomes(
    spec: Spec, rows: Iterable[dict[str, Any]], out: str, stop: Callable[[], bool]
) -> Iterator[Outcome]:
    """Each row's sample written into ``out`` in this process, in order (:func:`tried_sample`)."""
    for row in rows:
        if stop():
            return
        yield tried_sample(spec, row, out)
