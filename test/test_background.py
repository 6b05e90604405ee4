"""``background.beside``: the same results inline and in the worker, errors where they are read;
a process given one core (``NPS_SONAR_CORES``) keeps its work on it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from nps_sonar_py.background import CORES_VARIABLE, PARALLEL_SIZE, beside, in_halves


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


#: A child process's cast of a reference world, and where its large numpy work runs.
_CHILD = """
import hashlib, threading
import numpy as np
from nps_sonar_py import background
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.devices import reference_world_file
world = Raycaster(load_world(reference_world_file()))
rays = np.random.default_rng(1).normal(size=(60_000, 3))
rays /= np.linalg.norm(rays, axis=1, keepdims=True)
ranges = world.cast(np.zeros_like(rays), rays).ranges
inline = background.beside(60_000, threading.current_thread)() is threading.current_thread()
print(background.cast_threads(), inline, hashlib.sha256(ranges.tobytes()).hexdigest())
"""


def _child(cores: str | None) -> tuple[list[str], str]:
    """:data:`_CHILD`'s answer and warnings, run with ``NPS_SONAR_CORES`` set to ``cores``."""
    env = {k: v for k, v in os.environ.items() if k != CORES_VARIABLE}
    if cores is not None:
        env[CORES_VARIABLE] = cores
    done = subprocess.run(
        [sys.executable, '-c', _CHILD], capture_output=True, text=True, check=True, env=env
    )
    return done.stdout.split(), done.stderr


def test_a_process_started_with_one_core_keeps_its_work_and_cast_on_it() -> None:
    """``NPS_SONAR_CORES=1`` (a dataset's Ray worker, from its start): large work runs in the
    caller's thread and the cast asks Open3D for one thread, with the same hits, to the bit,
    as every core's cast. Child processes: the setting is read once, when the process first
    imports the module. Control: unset, large work goes to the background thread and the
    cast takes Open3D's default (0, every core); ``0`` is the same as unset."""
    every, _ = _child(None)
    one, _ = _child('1')
    assert every[:2] == ['0', 'False']
    assert one[:2] == ['1', 'True']
    assert one[2] == every[2]  # the same ranges
    assert _child('0')[0] == every


def test_a_value_of_cores_that_is_not_a_whole_number_is_one_warning_and_every_core() -> None:
    answer, warned = _child('two')
    assert answer[:2] == ['0', 'False']
    assert "NPS_SONAR_CORES='two': not a whole number of cores" in warned
    assert 'Traceback' not in warned
