"""One background thread for numpy work that can run beside the caller's (numpy frees the GIL).

A large cast and echo make a few independent passes over a million rays: the incidence
cosines beside the reflectivity look-ups, the range bins beside the intensities. Open3D's
cast already uses every core; the numpy passes that follow it run on one. Running such a
pair side by side takes back part of that single-threaded time
(``benchmarks/bench_sonar_ping.py``). Below :data:`PARALLEL_SIZE` elements, or on one core,
the work runs in the caller's thread: a hand-off would cost more than it saves.

A process that shares the machine with other workers, each given a number of cores (a Ray
task of ``num_cpus=1``), says so when it starts: the environment variable
:data:`CORES_VARIABLE` (``NPS_SONAR_CORES``), read once when this module is first imported,
holds its cores. Given ``1``, its numpy work stays in the caller's thread and
:func:`cast_threads` gives Open3D's cast one thread, so the workers do not oversubscribe the
cores they were dealt (a dataset's Ray workers get it through their ``runtime_env``). Unset
or ``0``: every core the process may run on. The results are the same either way.

The work must not depend on the caller's ``np.errstate``: that is per thread.
"""

from __future__ import annotations

import functools
import os
import threading
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

__all__ = ['CORES_VARIABLE', 'PARALLEL_SIZE', 'beside', 'cast_threads', 'in_halves']

#: Arrays of at least this many elements are worth a second thread.
PARALLEL_SIZE = 50_000

#: The environment variable that gives a process its cores (read once, at import).
CORES_VARIABLE = 'NPS_SONAR_CORES'

T = TypeVar('T')
#: The worker thread's name prefix.
_NAME = 'nps_sonar_numpy'


def _cores_given(value: str) -> int:
    """The cores a value of :data:`CORES_VARIABLE` gives: 0 (every core) if empty or ``0``.

    A value that is not a whole number >= 0 counts as unset, with a one-line warning: a
    worker is not stopped by it.
    """
    if not value.strip():
        return 0
    try:
        cores = int(value)
    except ValueError:
        cores = -1
    if cores < 0:
        warnings.warn(
            f'{CORES_VARIABLE}={value!r}: not a whole number of cores; every core is used',
            stacklevel=2,
        )
    return max(cores, 0)


#: The cores given this process, 0 if every core (:data:`CORES_VARIABLE`, read once).
_GIVEN = _cores_given(os.environ.get(CORES_VARIABLE, ''))

#: The cores this process may run on: those given, or its affinity's (the call costs tens of
#: microseconds: read once).
_CORES = _GIVEN or (
    len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count() or 1
)


def cast_threads() -> int:
    """The threads Open3D's cast may use: those given (:data:`CORES_VARIABLE`), or 0 (all)."""
    return _GIVEN


def beside(size: int, work: Callable[[], T]) -> Callable[[], T]:
    """Start ``work`` (over ``size`` elements) beside the caller; call the answer for its result.

    The result comes back as ``work`` returned it, or ``work``'s exception is raised there.
    Called from the worker itself (work that starts work), it runs inline: the one worker
    would otherwise wait on itself.
    """
    if size < PARALLEL_SIZE or _CORES < 2 or threading.current_thread().name.startswith(_NAME):
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
