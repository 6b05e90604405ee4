"""The samples on Ray: a local Ray of ``workers`` CPUs, or an existing cluster at ``address``.

The one module of the package that imports Ray, and only when a run asks for more than one
worker or for a cluster. Each sample is one task (``work.write_sample``) that writes its files
into the output folder itself and returns only its outcome, so no sample's bytes pass through
the driver: on a cluster the folder must be one every node reaches at the same path (a shared
file system). At most ``2 x workers`` tasks are in flight. A task whose worker died is run
again once by Ray (``max_retries``); a sample that failed is submitted again (``work.TRIES``
tries in all).
A cluster gets this package's code with the job (``runtime_env`` ``py_modules``); its nodes
need the package's dependencies installed (``docs/datasets.md``).

A local Ray is the run's own, whatever else runs on the machine: a new head
(``address='local'``: never another Ray found through ``RAY_ADDRESS`` or an address file),
in a temporary folder of its own (its sessions, sockets and port records), on the loopback,
removed at the end. Only ``--address`` joins a cluster, after a bounded check that something
answers there. Ray's own SIGINT and SIGTERM handlers are replaced by the caller's again once
it has started, so a signal stops the run as the command says.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from nps_sonar_py.dataset.spec import Spec
from nps_sonar_py.dataset.work import TRIES, Outcome, RunError, write_sample
from nps_sonar_py.errors import error_line

__all__ = [
    'CONNECT_SECONDS',
    'LOCAL_RAY_ENVIRONMENT',
    'OBJECT_STORE_BYTES',
    'START_TRIES',
    'check_address',
    'ray_session',
    'session_outcomes',
]

#: The local object store's size: it holds the spec and the samples' outcomes (their files go
#: straight to the output folder), so a small one, little of the machine's shared memory.
OBJECT_STORE_BYTES = 200 * 2**20

#: Starts of a local Ray tried before the run gives up.
START_TRIES = 2

#: Longest wait for a cluster's head to accept a connection at ``--address``, s.
CONNECT_SECONDS = 20.0

#: A local Ray is one node on the loopback: every address 127.0.0.1 (Ray's single-node switch;
#: else it binds the host's first network interface), no token to write under ``~/.ray``, and
#: no stack dump of Ray's C++ core on SIGTERM (the command says it stopped, in one line).
LOCAL_RAY_ENVIRONMENT = {
    'RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER': '0',
    'RAY_AUTH_MODE': 'disabled',
    'RAY_DISABLE_FAILURE_SIGNAL_HANDLER': '1',
}


def _worker_path() -> None:
    """Give Ray's workers this interpreter's import path when it started without ``site``.

    The installed executables run ``python -S`` and set up ``site`` themselves
    (CMakeLists.txt); Ray copies ``-S`` into its workers' command line, which then find no
    site-packages (``No module named 'ray'``). The workers inherit the environment: with
    ``PYTHONPATH`` the driver's ``sys.path`` they import what the driver imports.
    """
    if sys.flags.no_site:
        given = [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if p]
        paths = [p for p in sys.path if p and p not in given]
        os.environ['PYTHONPATH'] = os.pathsep.join([*given, *paths])


def check_address(address: str) -> str:
    """``address`` (``host:port``, or ``auto``: what ``ray start`` recorded) once it answers.

    A TCP connection to it must succeed within :data:`CONNECT_SECONDS` (Ray itself would try
    for minutes); ``RunError`` (one line) if not.
    """
    from ray._private.services import get_ray_address_from_environment

    target = address
    if address == 'auto':
        try:
            target = get_ray_address_from_environment(address, None)
        except Exception as error:  # Ray's own complaint (no cluster recorded), as one line
            raise RunError(f'--address auto: {error_line(error)}') from None
    host, _, port = target.rpartition(':')
    if not host or not port.isdigit():
        raise RunError(f'--address {address}: must be host:port or auto')
    try:
        with socket.create_connection((host.strip('[]'), int(port)), timeout=CONNECT_SECONDS):
            pass
    except (OSError, ValueError) as error:
        raise RunError(
            f'--address {address}: no Ray cluster answers at {target} ({error_line(error)})'
        ) from None
    return target


def _start(workers: int, address: str | None, temporary: str) -> None:
    """``ray.init``: a new local head in ``temporary``, or the cluster at ``address``."""
    import ray

    if address:
        package = Path(__file__).resolve().parents[1]
        ray.init(
            address=check_address(address),
            runtime_env={'py_modules': [str(package)]},
            log_to_driver=False,
        )
    else:
        ray.init(
            address='local',
            num_cpus=workers,
            include_dashboard=False,
            object_store_memory=OBJECT_STORE_BYTES,
            log_to_driver=False,
            _temp_dir=temporary,
        )


def _start_with_retry(workers: int, address: str | None, temporary: str) -> None:
    """:func:`_start`, a local Ray tried :data:`START_TRIES` times; ``RunError`` if it fails.

    A local head gives its raylet 30 s to register (Ray's own, fixed): on a loaded machine
    that may not be enough once, so it is shut down and started again.
    """
    import ray

    tries = 1 if address else START_TRIES
    for attempt in range(1, tries + 1):
        try:
            _start(workers, address, temporary)
            return
        except RunError:
            raise
        except Exception as error:  # Ray's failure to start or connect, as one line
            ray.shutdown()
            if attempt == tries:
                where = f'the Ray cluster at {address}' if address else 'a local Ray'
                raise RunError(f'could not start {where}: {error_line(error)}') from None


@contextmanager
def ray_session(workers: int, address: str | None) -> Iterator[int]:
    """Ray started (``workers`` CPUs here) or joined (``address``) for the block; its CPUs.

    ``RunError`` (one line) if Ray cannot start or the cluster cannot be reached.
    """
    for name, value in LOCAL_RAY_ENVIRONMENT.items():  # read by Ray when it is first imported
        if not address or name == 'RAY_DISABLE_FAILURE_SIGNAL_HANDLER':
            os.environ.setdefault(name, value)
    os.environ.setdefault('RAY_USAGE_STATS_ENABLED', '0')
    # Ray's requests to its GCS wait 60 s by default: on a loaded machine, longer.
    os.environ.setdefault('RAY_gcs_server_request_timeout_seconds', '300')
    if not address:
        os.environ.pop('RAY_ADDRESS', None)  # nor do its workers look for another Ray
        _worker_path()
    import ray

    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    temporary = '' if address else tempfile.mkdtemp(prefix='nps_ray_', dir='/tmp')  # short
    try:
        try:
            _start_with_retry(workers, address, temporary)
        finally:
            for signum, handler in handlers.items():
                signal.signal(signum, handler)
        resources = ray.cluster_resources()  # type: ignore[no-untyped-call]
        yield max(workers, int(resources.get('CPU', 1)))
    finally:
        ray.shutdown()
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)


def session_outcomes(
    spec: Spec, rows: Iterable[dict[str, Any]], out: str, cpus: int, stop: Callable[[], bool]
) -> Iterator[Outcome]:
    """Each row's sample written into ``out`` on the running Ray; outcomes as they finish.

    ``2 x cpus`` tasks in flight.
    """
    import ray

    task = ray.remote(num_cpus=1, max_retries=1)(write_sample)
    spec_ref = ray.put(spec)
    fresh = ((row, 1) for row in rows)  # drawn as they are submitted
    retry: list[tuple[dict[str, Any], int]] = []
    running: dict[Any, tuple[dict[str, Any], int]] = {}
    while not stop():
        while len(running) < 2 * cpus:
            item = retry.pop(0) if retry else next(fresh, None)
            if item is None:
                break
            running[task.remote(spec_ref, item[0], out)] = item
        if not running:
            return
        done, _ = ray.wait(list(running), num_returns=1, timeout=0.5)
        for ref in done:
            row, attempt = running.pop(ref)
            try:
                outcome: Outcome = ray.get(ref)
            except ray.exceptions.RayError as error:  # the worker died, twice
                reason = f'{type(error).__name__}: {str(error).splitlines()[0]}'
                outcome = Outcome(row['sample'], {}, reason)
            if outcome.error is not None and attempt < TRIES:
                retry.append((row, attempt + 1))
            else:
                yield outcome
