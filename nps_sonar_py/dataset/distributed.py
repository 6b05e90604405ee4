"""The samples on Ray: a local Ray of ``workers`` CPUs, or an existing cluster at ``address``.

The one module of the package that imports Ray, and only when a run asks for more than one
worker or for a cluster. A task makes a batch of consecutive samples (``work.write_batch``,
a Ray generator): each writes its files into the output folder itself and reports only its
outcome and its record, one by one as they are made, so no image or array passes through
the driver: on a cluster the folder must be one every node reaches at the same path (a
shared file system), which the driver checks on the first sample of each task. A batch
takes about :data:`TASK_SECONDS` of work (from the samples' times so far: the first tasks
one sample each), fewer samples as the run nears its end so that the workers finish
together, or the ``--batch`` given (:class:`Batches`). At most ``2 x workers`` tasks are in
flight. A task whose worker died is run again once by Ray (``max_retries``; the samples it
had reported are not reported twice); if it dies again, the samples it had not reported are
each run again as a task of their own, so one sample that kills its worker fails alone. A
sample that fails is tried again by its worker (``work.TRIES`` tries in all).
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
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from nps_sonar_py.background import CORES_VARIABLE
from nps_sonar_py.dataset.draw import sample_id
from nps_sonar_py.dataset.files import record_path
from nps_sonar_py.dataset.spec import Spec
from nps_sonar_py.dataset.work import Outcome, RunError, write_batch
from nps_sonar_py.errors import error_line

__all__ = [
    'CONNECT_SECONDS',
    'LOCAL_RAY_ENVIRONMENT',
    'MAX_BATCH',
    'OBJECT_STORE_BYTES',
    'SHARES',
    'START_TRIES',
    'TASK_SECONDS',
    'WORKER_ENVIRONMENT',
    'Batches',
    'check_address',
    'check_seen',
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


#: The environment of the run's Ray workers: a task reserves one CPU, so each worker process
#: keeps its cast and numpy work to one core from its start (``background.CORES_VARIABLE``):
#: workers beside it do not wait for theirs. A local Ray's processes inherit it from this one
#: (:func:`_inherited`): the workers Ray starts with its node take the first tasks, where a
#: ``runtime_env`` would have Ray set up and start others first (a second or two of each
#: run). A cluster's workers get it from the job's ``runtime_env``.
WORKER_ENVIRONMENT = {CORES_VARIABLE: '1'}

#: The work a task is given, s: long enough that its dispatch and the return of its
#: outcomes are a small part of it (a few ms a task), short enough that each worker gets
#: many tasks and a stop or a worker's death loses little.
TASK_SECONDS = 1.0

#: Near the end of a run a task takes at most the samples left over ``SHARES x CPUs``, so
#: that the last tasks are of one sample and the workers finish together.
SHARES = 2

#: Most samples a task takes, however short they are.
MAX_BATCH = 64


@dataclass
class Batches:
    """How many samples the next task takes; what the run's tasks took so far.

    ``fixed`` (``--batch``): that many, always. Else (0) about :data:`TASK_SECONDS` of
    samples by the mean time of those made so far (one a task until the first is made), at
    most the samples left before ``end`` (the index after the last row) over
    ``SHARES x cpus``, at least one, at most :data:`MAX_BATCH`.
    """

    cpus: int
    end: int
    fixed: int = 0
    tasks: int = 0
    made: int = 0
    seconds: float = 0.0

    def learn(self, outcome: Outcome) -> None:
        """Count a sample's time."""
        self.made += 1
        self.seconds += outcome.seconds

    def size(self, first: int) -> int:
        """Samples of the next task, whose first row has index ``first``."""
        if self.fixed:
            return self.fixed
        if not self.made:
            return 1
        by_time = int(TASK_SECONDS * self.made / max(self.seconds, 1e-9))
        by_share = (self.end - first) // (SHARES * self.cpus)
        return max(1, min(by_time, by_share, MAX_BATCH))


def check_seen(out: Path, outcome: Outcome) -> None:
    """``RunError`` if a sample made is not where the driver sees it (an unshared folder)."""
    made = outcome.error is None and not outcome.unwritten
    if made and not (out / record_path(sample_id(outcome.index))).is_file():
        raise RunError(
            f'sample {sample_id(outcome.index)} was written where this driver does not '
            'see it: on a cluster OUT must be a folder every node reaches at the same path'
        )


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


@contextmanager
def _inherited(variables: dict[str, str]) -> Iterator[None]:
    """``variables`` in this process's environment for the block, as they were after it.

    The processes started in the block (a local Ray's, and the workers they start) inherit them.
    """
    saved = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _start(workers: int, address: str | None, temporary: str) -> None:
    """``ray.init``: a new local head in ``temporary``, or the cluster at ``address``."""
    import ray

    if address:
        package = Path(__file__).resolve().parents[1]
        ray.init(
            address=check_address(address),
            runtime_env={'py_modules': [str(package)], 'env_vars': WORKER_ENVIRONMENT},
            log_to_driver=False,
        )
        return
    with _inherited(WORKER_ENVIRONMENT):
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


@dataclass
class _Task:
    """A task in flight: its rows not yet reported, in order; whether a sample was checked."""

    rows: deque[dict[str, Any]]
    alone: bool  # a sample run again alone after its batch's worker died twice
    checked: bool = False


@dataclass
class _Queue:
    """The rows to hand out: those of dead batches first (one a task), then fresh ones."""

    fresh: Iterator[dict[str, Any]]
    again: deque[dict[str, Any]] = field(default_factory=deque)
    next_index: int = 0

    def take(self, batches: Batches) -> tuple[list[dict[str, Any]], bool]:
        """The rows of the next task (none: all handed out), and whether run again alone."""
        if self.again:
            return [self.again.popleft()], True
        rows = list(islice(self.fresh, batches.size(self.next_index)))
        if rows:
            self.next_index = int(rows[-1]['sample']) + 1
        return rows, False


def _reported(task: _Task, ref: Any, out: Path, batches: Batches, queue: _Queue) -> list[Outcome]:
    """The outcome of a task's next sample, or what its worker's second death leaves.

    That is the failure of a sample run alone, or nothing: the rows of the batch it had
    not reported go back to the queue, to be run again alone.
    """
    import ray

    try:
        outcome: Outcome = ray.get(ref)
    except ray.exceptions.RayError as error:  # the worker died, twice
        if not task.alone:
            queue.again.extend(task.rows)
            task.rows.clear()
            return []
        reason = f'{type(error).__name__}: {str(error).splitlines()[0]}'
        failed = [Outcome(row['sample'], {}, reason) for row in task.rows]
        task.rows.clear()
        return failed
    task.rows.popleft()
    if not task.checked and outcome.error is None:
        task.checked = True
        check_seen(out, outcome)
    batches.learn(outcome)
    return [outcome]


def session_outcomes(
    spec: Spec,
    rows: Iterable[dict[str, Any]],
    out: str,
    batches: Batches,
    stop: Callable[[], bool],
) -> Iterator[Outcome]:
    """Each row's sample written into ``out`` on the running Ray; outcomes as they are made.

    Batches of consecutive rows (``batches``), ``2 x batches.cpus`` tasks in flight; the
    rows are drawn as they are handed out. ``RunError`` if a task's first sample is not
    where this driver sees it (:func:`check_seen`).
    """
    import ray

    task = ray.remote(num_cpus=1, max_retries=1)(write_batch)
    spec_ref = ray.put(spec)
    queue = _Queue(iter(rows))
    running: dict[Any, _Task] = {}
    while not stop():
        while len(running) < 2 * batches.cpus:
            batch, alone = queue.take(batches)
            if not batch:
                break
            running[task.remote(spec_ref, batch, out)] = _Task(deque(batch), alone)
            batches.tasks += 1
        if not running:
            return
        ready, _ = ray.wait(list(running), num_returns=1, timeout=0.5)
        for generator in ready:
            try:
                ref = next(generator)  # type: ignore[arg-type]  # ray.wait keeps its type
            except StopIteration:  # every sample reported
                del running[generator]
                continue
            yield from _reported(running[generator], ref, Path(out), batches, queue)
            if not running[generator].rows:
                del running[generator]
