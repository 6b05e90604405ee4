"""A dataset run: draw every row, make the samples not yet made, write the dataset's files.

``workers == 1`` and no ``address``: in this process, without importing Ray. Otherwise the
samples run on Ray (``dataset/distributed.py``). Either way whoever makes a sample writes its
files into the output folder (through a temporary file and a rename, its record last:
``work.write_sample``), and the driver writes the dataset-wide files from the records in
sample order, so the files are the same bytes however and wherever the samples ran; only
``run.json`` (timings, workers, where) differs. A worker that cannot write (a full disk), or
whose files the driver does not see (a cluster's folder that is not shared), stops the run
with one line.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from nps_sonar_py.dataset.assemble import dataset_files, read_records
from nps_sonar_py.dataset.draw import draw_row, sample_id
from nps_sonar_py.dataset.files import json_bytes, record_path, write_atomic
from nps_sonar_py.dataset.folder import SPEC_COPY, link_images, output_folder
from nps_sonar_py.dataset.sensor import check_sensor
from nps_sonar_py.dataset.spec import Spec
from nps_sonar_py.dataset.validity import check_spec
from nps_sonar_py.dataset.work import Outcome, RunError, failed_files, local_outcomes

__all__ = ['RunSummary', 'run_dataset']


@dataclass(frozen=True)
class RunSummary:
    """What a run did: samples made now, skipped (made before), failed; stopped by a signal."""

    made: int
    skipped: int
    failed: int
    stopped: bool
    seconds: float


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


def _made(out: Path, row: dict[str, Any]) -> bool:
    """Whether the sample of ``row`` was made before: its record says ok (a broken one: no)."""
    path = out / record_path(row['id'])
    try:
        return bool(json.loads(path.read_bytes()).get('status') == 'ok')
    except (OSError, ValueError, AttributeError):  # missing, unreadable, truncated, not UTF-8
        return False


def _todo(
    spec: Spec, out: Path, samples: int, resume: bool, bar: Progress, stop: Callable[[], bool]
) -> Iterator[dict[str, Any]]:
    """The rows of the samples to make, drawn one at a time as the workers take them."""
    for index in range(samples):
        if stop():
            return
        row = draw_row(spec, index)
        if resume and _made(out, row):
            bar.skip()
            continue
        yield row


@contextmanager
def _outcomes(
    spec: Spec,
    rows: Iterator[dict[str, Any]],
    out: Path,
    workers: int,
    address: str | None,
    stop: Callable[[], bool],
) -> Iterator[Iterator[Outcome]]:
    """The samples written into ``out`` here, or on a Ray session open for the block."""
    folder = str(out.resolve())  # the workers' working folder is not the driver's
    if workers == 1 and not address:
        yield local_outcomes(spec, rows, folder, stop)
        return
    from nps_sonar_py.dataset.distributed import ray_session, session_outcomes

    with ray_session(workers, address) as cpus:
        yield session_outcomes(spec, rows, folder, cpus, stop)


def _check_written(out: Path, outcome: Outcome) -> None:
    """``RunError`` if a sample's files could not be written, or not where the driver sees them."""
    if outcome.unwritten:
        raise RunError(f'cannot write {outcome.unwritten}')
    if outcome.error is None and not (out / record_path(sample_id(outcome.index))).is_file():
        raise RunError(
            f'sample {sample_id(outcome.index)} was written where this driver does not see it: '
            'on a cluster OUT must be a folder every node reaches at the same path'
        )


def run_dataset(
    spec: Spec,
    out: Path,
    samples: int,
    *,
    workers: int = 1,
    address: str | None = None,
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
    made = failed = 0
    with (
        output_folder(out, resume, spec.text),
        _outcomes(
            spec, _todo(spec, out, samples, resume, bar, stop), out, workers, address, stop
        ) as outcomes,
    ):
        write_atomic(out, SPEC_COPY, spec.text.encode())
        link_images(out)
        for outcome in outcomes:
            _check_written(out, outcome)
            if outcome.error is not None:
                for relative, data in failed_files(
                    sample_id(outcome.index), outcome.error
                ).items():
                    write_atomic(out, relative, data)
            made += outcome.error is None
            failed += outcome.error is not None
            bar.tick()
            if stop():
                break
        bar.tick(final=True)
        stopped = stop() or not _write_dataset_files(spec, out, samples, stop)
        seconds = time.monotonic() - start
        summary = RunSummary(made, bar.skipped, failed, stopped, seconds)
        _run_json(out, summary, samples, workers, address)
    return summary


def _write_dataset_files(spec: Spec, out: Path, samples: int, stop: Callable[[], bool]) -> bool:
    """The dataset-wide files from every row and record; False if stopped while drawing."""
    rows = []
    for index in range(samples):
        if stop():
            return False
        rows.append(draw_row(spec, index))
    for relative, data in dataset_files(spec, rows, read_records(out, rows)).items():
        write_atomic(out, relative, data)
    return True


def _run_json(
    out: Path, summary: RunSummary, samples: int, workers: int, address: str | None
) -> None:
    """``run.json``: the one file that says how long, with how many workers and where."""
    done = summary.made + summary.failed
    info = {
        'samples': samples,
        'made': summary.made,
        'skipped': summary.skipped,
        'failed': summary.failed,
        'stopped': summary.stopped,
        'workers': workers,
        'address': address or '',
        'seconds': round(summary.seconds, 3),
        'samples_per_second': round(done / summary.seconds, 4) if summary.seconds > 0 else 0.0,
        'host': platform.node(),
        'python': sys.version.split()[0],
        'finished': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
    }
    write_atomic(out, 'run.json', json_bytes(info, indent=2))
