"""A dataset run: draw every row, make the samples not yet made, write the dataset's files.

``workers == 1`` and no ``address``: in this process, without importing Ray. Otherwise the
samples run on Ray, several a task (``dataset/distributed.py``). Either way whoever makes a
sample writes its files into the output folder (through a temporary file and a rename, its
record last: ``work.write_sample``) and reports its record's bytes, and the driver writes the
dataset-wide files from the rows it drew and the records in sample order (reading back only
those of the samples made before, with ``--resume``), so the files are the same bytes however
and wherever the samples ran; only ``run.json`` (timings, workers, tasks, where) differs. A
worker that cannot write (a full disk), or whose files the driver does not see (a cluster's
folder that is not shared), stops the run with one line.
"""

from __future__ import annotations

import platform
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from nps_sonar_py.dataset.assemble import dataset_files, parse_records, record_status
from nps_sonar_py.dataset.draw import draw_row, sample_id
from nps_sonar_py.dataset.files import json_bytes, record_path, write_atomic
from nps_sonar_py.dataset.folder import SPEC_COPY, link_images, output_folder
from nps_sonar_py.dataset.sensor import check_sensor
from nps_sonar_py.dataset.spec import Spec
from nps_sonar_py.dataset.validity import check_spec
from nps_sonar_py.dataset.work import Outcome, RunError, failed_files, local_outcomes

__all__ = ['RunSummary', 'Where', 'run_dataset']


@dataclass(frozen=True)
class RunSummary:
    """What a run did: samples made now, skipped (made before), failed; stopped by a signal.

    ``tasks``: the Ray tasks the samples were made in (0: in this process).
    """

    made: int
    skipped: int
    failed: int
    stopped: bool
    seconds: float
    tasks: int = 0


class Progress:
    """One line on ``stream``, rewritten: samples done of the total, samples per second."""

    def __init__(self, total: int, stream: TextIO | None) -> None:
        self.total, self.stream = total, stream
        self.done = self.skipped = 0
        self.start = time.monotonic()
        self._shown = 0.0

    def skip(self) -> None:
        """Count a sample made before (``--resume``)."""
        self.skipped += 1
        self.tick()

    def tick(self, final: bool = False) -> None:
        """Count a sample (unless ``final``) and redraw, at most every 0.2 s and at the end."""
        if not final:
            self.done += 1
        now = time.monotonic()
        if self.stream is None or (not final and now - self._shown < 0.2):
            return
        self._shown = now
        rate = self.done / max(now - self.start, 1e-9)
        width = 30
        filled = width * self.done // max(self.total, 1)
        bar = '#' * filled + '.' * (width - filled)
        end = '\n' if final else ''
        self.stream.write(f'\r[{bar}] {self.done}/{self.total} samples, {rate:.2f} samples/s{end}')
        self.stream.flush()


@dataclass
class Ledger:
    """What the driver keeps for the dataset's files, so as not to draw or read them again.

    Every row drawn, in order, and the bytes of each sample's record by index.
    """

    rows: list[dict[str, Any]] = field(default_factory=list)
    records: dict[int, bytes] = field(default_factory=dict)


def _made_record(out: Path, row: dict[str, Any]) -> bytes | None:
    """The record of the sample of ``row`` if it was made before (it says ok; a broken: no)."""
    try:
        data = (out / record_path(row['id'])).read_bytes()
    except OSError:  # missing, unreadable, a folder
        return None
    return data if record_status(data) == 'ok' else None


def _todo(
    spec: Spec,
    out: Path,
    samples: int,
    resume: bool,
    ledger: Ledger,
    bar: Progress,
    stop: Callable[[], bool],
) -> Iterator[dict[str, Any]]:
    """The rows of the samples to make, drawn one at a time as the workers take them."""
    for index in range(samples):
        if stop():
            return
        row = draw_row(spec, index)
        ledger.rows.append(row)
        if resume and (record := _made_record(out, row)) is not None:
            ledger.records[index] = record
            bar.skip()
            continue
        yield row


@dataclass(frozen=True)
class Where:
    """Where the samples run.

    ``workers`` (1 and no ``address``: in this process), the Ray cluster at ``address``, and
    ``batch``, the samples of a Ray task (0: sized by the run, ``distributed.Batches``).
    """

    workers: int = 1
    address: str | None = None
    batch: int = 0


@contextmanager
def _outcomes(
    spec: Spec,
    rows: Iterator[dict[str, Any]],
    out: Path,
    samples: int,
    where: Where,
    stop: Callable[[], bool],
) -> Iterator[tuple[Iterator[Outcome], Callable[[], int]]]:
    """The samples written into ``out`` here, or on a Ray session open for the block.

    And a count of the Ray tasks they took so far.
    """
    folder = str(out.resolve())  # the workers' working folder is not the driver's
    if where.workers == 1 and not where.address:
        yield local_outcomes(spec, rows, folder, stop), lambda: 0
        return
    from nps_sonar_py.dataset.distributed import Batches, ray_session, session_outcomes

    with ray_session(where.workers, where.address) as cpus:
        batches = Batches(cpus, samples, where.batch)
        yield session_outcomes(spec, rows, folder, batches, stop), lambda: batches.tasks


def _check_written(outcome: Outcome) -> None:
    """``RunError`` if a sample's files could not be written (a full disk)."""
    if outcome.unwritten:
        raise RunError(f'cannot write {outcome.unwritten}')


def _record(out: Path, outcome: Outcome) -> bytes:
    """The record of a sample made (the worker's), or of one that failed, written here."""
    if outcome.error is None:
        return outcome.record
    files = failed_files(sample_id(outcome.index), outcome.error)
    for relative, data in files.items():
        write_atomic(out, relative, data)
    return files[record_path(sample_id(outcome.index))]


def run_dataset(
    spec: Spec,
    out: Path,
    samples: int,
    *,
    where: Where = Where(),
    resume: bool = False,
    progress: TextIO | None = None,
    stop: Callable[[], bool] = lambda: False,
) -> RunSummary:
    """Make ``samples`` samples of ``spec`` in ``out`` (module docstring).

    ``FolderError`` or ``SpecError`` (one line) before anything is written if ``out`` or the
    spec cannot be used; ``RunError`` if Ray cannot start; ``OSError`` if writing fails.
    """
    start = time.monotonic()
    check_spec(spec)
    check_sensor(spec)
    bar = Progress(samples, progress)
    ledger = Ledger()
    made = failed = 0
    todo = _todo(spec, out, samples, resume, ledger, bar, stop)
    with (
        output_folder(out, resume, spec.text),
        _outcomes(spec, todo, out, samples, where, stop) as (outcomes, tasks),
    ):
        write_atomic(out, SPEC_COPY, spec.text.encode())
        link_images(out)
        for outcome in outcomes:
            _check_written(outcome)
            ledger.records[outcome.index] = _record(out, outcome)
            made += outcome.error is None
            failed += outcome.error is not None
            bar.tick()
            if stop():
                break
        bar.tick(final=True)
        stopped = stop()
        if not stopped:
            _write_dataset_files(spec, out, ledger)
        seconds = time.monotonic() - start
        summary = RunSummary(made, bar.skipped, failed, stopped, seconds, tasks())
        _run_json(out, summary, samples, where)
    return summary


def _write_dataset_files(spec: Spec, out: Path, ledger: Ledger) -> None:
    """The dataset-wide files from every row and record the run kept."""
    records = parse_records(ledger.rows, ledger.records)
    for relative, data in dataset_files(spec, ledger.rows, records).items():
        write_atomic(out, relative, data)


def _run_json(out: Path, summary: RunSummary, samples: int, where: Where) -> None:
    """``run.json``: the one file that says how long, with how many workers, tasks and where."""
    done = summary.made + summary.failed
    info = {
        'samples': samples,
        'made': summary.made,
        'skipped': summary.skipped,
        'failed': summary.failed,
        'stopped': summary.stopped,
        'workers': where.workers,
        'address': where.address or '',
        'batch': where.batch,
        'tasks': summary.tasks,
        'seconds': round(summary.seconds, 3),
        'samples_per_second': round(done / summary.seconds, 4) if summary.seconds > 0 else 0.0,
        'host': platform.node(),
        'python': sys.version.split()[0],
        'finished': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
    }
    write_atomic(out, 'run.json', json_bytes(info, indent=2))
