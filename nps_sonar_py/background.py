"""One background thread for numpy work that can run beside the caller's (numpy frees the GIL).

A large cast and echo make a few independent passes over a million rays: the incidence
cosines beside the reflectivity look-ups, the range bins beside the intensities. Open3D's
cast already uses every core; the numpy passes that follow it run on one. Running such a
pair side by side takes back part of that single-threaded time
(``benchmarks/bench_sonar_ping.py``). Below :data:`PARALLEL_SIZE` elements, or on one core,
the work runs in the caller's thread: a hand-off would cost more than it saves.

A process that shares the machine with other workers, each given a number of cores (a Ray
task of ``num_cpus=1``), says so with :func:`use_cores`: its numpy work then stays in the
caller's thread on one core and :func:`cast_threads` gives Open3D's cast its share, so the
workers do not oversubscribe the cores they were dealt.

The work must not depend on the caller's ``np.errstate``: that is per thread.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

__all__ = ['PARALLEL_SIZE', 'beside', 'cast_threads', 'in_halves', 'use_cores']

#: Arrays of at least this many elements are worth a second thread.
PARALLEL_SIZE = 50_000

#: The cores this process may run on (read once: the call costs tens of microseconds).
_CORES = len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()

#: Threads for Open3D's cast: 0, Open3D's default (every core), unless :func:`use_cores`.
_cast_threads = 0

T = TypeVar('T')
#: The worker thread's name prefix.
_NAME = 'nps_sonar_numpy'


def use_cores(cores: int) -> None:
    """Run this process's work on ``cores`` cores (>= 1): the numpy passes and the cast."""
    global _CORES, _cast_threads
    _CORES = _cast_threads = max(1, int(cores))


def cast_threads() -> int:
    """The threads Open3D's cast may use: 0 (all) unless :func:`use_cores` was called."""
    return _cast_threads


def beside(size: int, work: Callable[[], T]) -> Callable[[], T]:
    """Start ``work`` (over ``size`` elements) beside the caller; call the answer for its result.

    The result comes back as ``work`` returned it, or ``work``'s exception is raised there.
    Called from the worker itself (work that starts work), it runs inline: the one worker
    would otherwise wait on itself.
    """
    if (
        size < PARALLEL_SIZE
        or (_CORES or 1) < 2
        or threading.current_thread().name.startswith(_NAME)
    ):
        value = work()
        return lambda: value
    return _executor().submit(work).result


def in_halves(size: int, work: Callable[[slice], None]) -> None:
    """``work`` over ``[0, size // 2)`` in the caller's thread and the rest beside it.

    For passes over ``size`` elements, each element's arithmetic its own (the answer is then
    the same as in one pass); ``work`` writes its part of preallocated arrays.
    """
    half = size // 2
    second = beside(size - half, lambda: work(slice(half, size)))
    work(slice(0, half))
    second()


@functools.cache
def _executor() -> ThreadPoolExecutor:
    """The one worker of the process, made on first use."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix=_NAME)
