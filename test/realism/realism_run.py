"""One run of ``benchmarks/realism.py`` in the background, as a user runs it (``conftest.py``)."""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from real_records import REAL

REPOSITORY = Path(__file__).resolve().parents[2]
SCRIPT = REPOSITORY / 'benchmarks' / 'realism.py'
#: The test module whose fixture reads the run.
BENCHMARK_MODULE = Path(__file__).with_name('test_realism_benchmark.py')
#: The records the benchmark reads (``real_records.real_file`` skips or fails without them).
RECORDS = ('sidescan/scotsman-iver2.xtf', 'fls/one_ping_8bit.raw')
#: Seconds the run may take from its start.
TIMEOUT = 900.0


@dataclass
class BenchmarkRun:
    """One run of the benchmark: its process, its ``--out`` folder (stdout and stderr in it)."""

    process: subprocess.Popen[bytes]
    out: Path
    started: float

    def result(self) -> tuple[int, str, str]:
        """Wait for the run (its timeout counted from its start): exit status, stdout, stderr."""
        try:
            status = self.process.wait(timeout=max(0.0, self.started + TIMEOUT - time.monotonic()))
        finally:
            self.stop()
        return status, self._read('stdout'), self._read('stderr')

    def stop(self) -> None:
        """Kill the run if it is still going."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def _read(self, stream: str) -> str:
        return (self.out.parent / stream).read_text()


def start_benchmark(folder: Path) -> BenchmarkRun:
    """Start the benchmark on the real records, writing into ``folder / 'out'``."""
    out = folder / 'out'
    command = [sys.executable, str(SCRIPT), '--real', str(REAL), '--out', str(out)]
    command += ['--save-figures', str(out / 'measured.json')]
    with (folder / 'stdout').open('wb') as stdout, (folder / 'stderr').open('wb') as stderr:
        process = subprocess.Popen(command, stdout=stdout, stderr=stderr)
    return BenchmarkRun(process, out, time.monotonic())


RUN = pytest.StashKey[BenchmarkRun]()
