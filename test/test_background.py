"""``background.beside``: the same results inline and in the worker, errors where they are read."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from nps_sonar_py.background import PARALLEL_SIZE, beside, in_halves


def test_small_work_runs_in_the_callers_thread() -> None:
    result = beside(PARALLEL_SIZE - 1, threading.current_thread)
    assert result() is threading.current_thread()


def test_large_work_gives_the_same_answer_as_inline() -> None:
    values = np.arange(PARALLEL_SIZE, dtype=np.float64)
    result = beside(values.size, lambda: np.sqrt(values).sum())
    inline = np.sqrt(values).sum()
    assert result() == inline


def test_halves_started_from_the_worker_run_there() -> None:
    """Work beside the caller that splits its own work in halves (``in_halves``) runs both in
    the worker, which does not wait on itself; the halves cover every element once.
    Control: the halves of work started from the caller run one in each thread."""
    seen = np.zeros(2 * PARALLEL_SIZE, dtype=np.int64)
    threads: set[str] = set()

    def part(span: slice) -> None:
        seen[span] += 1
        threads.add(threading.current_thread().name)

    beside(seen.size, lambda: in_halves(seen.size, part))()
    assert np.all(seen == 1)
    assert len(threads) == 1
    assert threading.current_thread().name not in threads
    threads.clear()
    in_halves(seen.size, part)
    assert np.all(seen == 2)
    assert len(threads) == (2 if len(os.sched_getaffinity(0)) > 1 else 1)


def test_an_error_in_the_work_is_raised_where_the_result_is_read() -> None:
    def fail() -> None:
        raise ValueError('bad rays')

    result = beside(PARALLEL_SIZE, fail)
    with pytest.raises(ValueError, match='bad rays'):
        result()


def test_a_process_given_one_core_keeps_its_work_and_cast_on_it() -> None:
    """``use_cores(1)`` (a Ray task's share): large work runs in the caller's thread and the
    cast asks Open3D for one thread, with the same hits as every core's cast. Run in a child
    process (the setting is the process's). Control: before the call, large work goes to the
    background thread and the cast takes Open3D's default (0, every core)."""
    code = """
import threading
import numpy as np
from nps_sonar_py import background
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.devices import reference_world_file
world = Raycaster(load_world(reference_world_file()))
rays = np.random.default_rng(1).normal(size=(60_000, 3))
rays /= np.linalg.norm(rays, axis=1, keepdims=True)
origins = np.zeros_like(rays)
before = (background.cast_threads(), background.beside(60_000, threading.current_thread)())
every = world.cast(origins, rays).ranges.copy()
background.use_cores(1)
after = (background.cast_threads(), background.beside(60_000, threading.current_thread)())
one = world.cast(origins, rays).ranges.copy()
main = threading.current_thread()
same = np.array_equal(every, one, equal_nan=True)
print(before[0], before[1] is main, after[0], after[1] is main, same)
"""
    done = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ['0', 'False', '1', 'True', 'True'], done.stderr
