"""The samples on Ray: a local Ray of ``workers`` CPUs, or an existing cluster at ``address``.

The one module of the package that imports Ray, and only when a run asks for more than one
worker or for a cluster. Each sample is one task (``work.make_sample``) that returns its files
as bytes; the driver writes them, so only the driver needs to reach the output folder. At
most ``2 x workers`` tasks are in flight. A task whose worker died is run again once by Ray
(``max_retries``); a sample that failed is submitted again (``work.TRIES`` tries in all).
A cluster gets this package's code with the job (``runtime_env`` ``py_modules``); its nodes
need the package's dependencies installed (``docs/datasets.md``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from nps_sonar_py.dataset.spec import Spec
from nps_sonar_py.dataset.work import TRIES, Outcome, make_sample

__all__ = [
    'LOCAL_RAY_ENVIRONMENT',
    'OBJECT_STORE_BYTES',
    'ray_outcomes',
    'ray_session',
    'session_outcomes',
]

#: The local object store's size: the files of a few samples at a time.
OBJECT_STORE_BYTES = 200 * 2**20


#: A local Ray is one node on the loopback: every address 127.0.0.1 (Ray's single-node switch;
#: else it binds the host's first network interface), no token to write under ``~/.ray``.
LOCAL_RAY_ENVIRONMENT = {'RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER': '0', 'RAY_AUTH_MODE': 'disabled'}


@contextmanager
def ray_session(workers: int, address: str | None) -> Iterator[int]:
    """Ray started (``workers`` CPUs here) or joined (``address``) for the block; its CPUs."""
    if not address:  # read by Ray when it is first imported
        for name, value in LOCAL_RAY_ENVIRONMENT.items():
            os.environ.setdefault(name, value)
        os.environ.setdefault('RAY_USAGE_STATS_ENABLED', '0')
    import ray

    if address:
        package = Path(__file__).resolve().parents[1]
        ray.init(address=address, runtime_env={'py_modules': [str(package)]}, log_to_driver=False)
    else:
        ray.init(
            num_cpus=workers,
            include_dashboard=False,
            object_store_memory=OBJECT_STORE_BYTES,
            log_to_driver=False,
        )
    try:
        resources = ray.cluster_resources()  # type: ignore[no-untyped-call]
        yield max(workers, int(resources.get('CPU', 1)))
    finally:
        ray.shutdown()


def session_outcomes(
    spec: Spec, rows: list[dict[str, Any]], cpus: int, stop: Callable[[], bool]
) -> Iterator[Outcome]:
    """Each row's sample's outcome on the running Ray as they finish, 2 x ``cpus`` in flight."""
    import ray

    task = ray.remote(num_cpus=1, max_retries=1)(make_sample)
    spec_ref = ray.put(spec)
    waiting = [(row, 1) for row in rows]
    running: dict[Any, tuple[dict[str, Any], int]] = {}
    while (waiting or running) and not stop():
        while waiting and len(running) < 2 * cpus:
            row, attempt = waiting.pop(0)
            running[task.remote(spec_ref, row)] = (row, attempt)
        done, _ = ray.wait(list(running), num_returns=1, timeout=0.5)
        for ref in done:
            row, attempt = running.pop(ref)
            try:
                outcome: Outcome = ray.get(ref)
            except ray.exceptions.RayError as error:  # the worker died, twice
                reason = f'{type(error).__name__}: {str(error).splitlines()[0]}'
                outcome = Outcome(row['sample'], {}, reason)
            if outcome.error is not None and attempt < TRIES:
                waiting.append((row, attempt + 1))
            else:
                yield outcome


def ray_outcomes(
    spec: Spec,
    rows: list[dict[str, Any]],
    workers: int,
    address: str | None,
    stop: Callable[[], bool],
) -> Iterator[Outcome]:
    """The outcome of each row's sample, as they finish; Ray is shut down at the end."""
    with ray_session(workers, address) as cpus:
        yield from session_outcomes(spec, rows, cpus, stop)
