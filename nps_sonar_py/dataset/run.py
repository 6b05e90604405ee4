"""A dataset run: draw every row, make the samples not yet made, write the dataset's files.

``workers == 1`` and no ``address``: in this process, without importing Ray. Otherwise the
samples run on Ray (``dataset/distributed.py``). Either way the driver writes every file
(through a temporary file and a rename), a sample's record last, and the dataset-wide files
from the records in sample order, so the files are the same bytes however and wherever the
samples ran; only ``run.json`` (timings, workers, where) differs.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from nps_sonar_py.dataset.assemble import dataset_files, read_records
from nps_sonar_py.dataset.draw import draw_row
from nps_sonar_py.dataset.files import json_bytes, record_path, write_atomic
from nps_sonar_py.dataset.sensor import check_sensor
from nps_sonar_py.dataset.spec import Spec, SpecError
from nps_sonar_py.dataset.work import failed_files, local_outcomes

__all__ = ['RunSummary', 'run_dataset']

#: The spec as the run read it, kept in the output folder (``--resume`` compares it).
SPEC_COPY = 'spec.yaml'


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
        self.done = 0
        self.start = time.monotonic()
        self._shown = 0.0

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


def _prepare(spec: Spec, out: Path, resume: bool) -> None:
    """Check the output folder; keep the spec in it. ``SpecError`` (one line) if unusable."""
    copy = out / SPEC_COPY
    if resume:
        if copy.is_file() and copy.read_text(encoding='utf-8') != spec.text:
            raise SpecError(
                f'--resume: {out} was made from another spec ({copy} differs)', file=spec.source
            )
    elif out.exists() and any(out.iterdir()):
        raise SpecError(
            f'{out} is not empty: give --resume to go on with it, or a new folder',
            file=spec.source,
        )
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out, SPEC_COPY, spec.text.encode())


def _made(out: Path, row: dict[str, Any]) -> bool:
    path = out / record_path(row['id'])
    if not path.is_file():
        return False
    return bool(json.loads(path.read_text()).get('status') == 'ok')


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
    """Make ``samples`` samples of ``spec`` in ``out`` (module docstring)."""
    start = time.monotonic()
    check_sensor(spec)
    _prepare(spec, out, resume)
    rows = [draw_row(spec, i) for i in range(samples)]
    todo = [row for row in rows if not (resume and _made(out, row))]
    bar = Progress(len(todo), progress)
    if workers == 1 and not address:
        outcomes = local_outcomes(spec, todo, stop)
    else:
        from nps_sonar_py.dataset.distributed import ray_outcomes

        outcomes = ray_outcomes(spec, todo, workers, address, stop)
    made = failed = 0
    for outcome in outcomes:
        row = rows[outcome.index]
        files = outcome.files if outcome.error is None else failed_files(row, outcome.error)
        for relative, data in files.items():  # the record is the last
            write_atomic(out, relative, data)
        made += outcome.error is None
        failed += outcome.error is not None
        bar.tick()
        if stop():
            break
    bar.tick(final=True)
    stopped = stop()
    if not stopped:
        for relative, data in dataset_files(spec, rows, read_records(out, rows)).items():
            write_atomic(out, relative, data)
    seconds = time.monotonic() - start
    summary = RunSummary(made, len(rows) - len(todo), failed, stopped, seconds)
    _run_json(out, summary, samples, workers, address)
    return summary


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
