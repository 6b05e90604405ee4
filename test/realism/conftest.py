"""``benchmarks/realism.py`` started as soon as the session knows it will run its test.

The benchmark is one to two minutes of one core's work. Run by its module's fixture, the rest
of its session waited for it; started when collection ends (only where its test module is in
this session's tests), it runs while the session's other tests wait on their nodes, and its
module is moved to the session's end so that the fixture seldom has to wait. It is the same
command a user runs, with the same timeout from its start; a session ending before its test
ran (``-x``, an interrupt) kills it.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from real_records import REAL
from realism_run import BENCHMARK_MODULE, RECORDS, RUN, start_benchmark


def _is_benchmark(item: pytest.Item) -> bool:
    return item.path == BENCHMARK_MODULE


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Move the benchmark's tests to the session's end (after the shards are dealt)."""
    items.sort(key=_is_benchmark)  # stable: every other test keeps its place


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the benchmark if this session runs its tests and the records are here."""
    config = session.config
    if config.option.collectonly or not any(map(_is_benchmark, session.items)):
        return
    if all((REAL / record).is_file() for record in RECORDS):
        config.stash[RUN] = start_benchmark(Path(tempfile.mkdtemp(prefix='nps-realism-')))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Kill a run whose tests did not wait for it, and remove its folder."""
    run = session.config.stash.get(RUN, None)
    if run is not None:
        run.stop()
        shutil.rmtree(run.out.parent, ignore_errors=True)
