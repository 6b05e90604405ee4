"""Every node stops cleanly on SIGINT and SIGTERM, whenever they come: status 0, no traceback.

Each run starts a node executable as ``ros2 run`` would and signals it at a random moment:
SIGINT or SIGTERM, sometimes a second one (either) 50 ms later, at a delay of 0 to
``MAX_DELAY`` s, so that some land while the node starts (``rclpy.init``, reading the robot and
the world, building the raycaster) and some while it reads and publishes. The delay counts from
the moment the process catches SIGTERM (``SigCgt`` of ``/proc/<pid>/status``), that is from
when its own handlers are installed: before that, Python is still importing the modules and no
code of the package has run. Each run has a seed that fixes its plan, printed on failure;
``NPS_SIGNAL_SEED=<seed>`` replays one run. ``NPS_LONG_SIGNAL_RUNS=<n>`` runs ``n`` plans per
executable instead of ``RUNS`` (the short default of CI).

A launch-style stop is checked too: ``ros2 launch`` on Ctrl-C gets the terminal's SIGINT with
its whole process group and then sends each child a SIGINT of its own.

The first 100 ms of a node's life are covered by fixed signal times counted from the return of
``Popen`` (:data:`EARLY_DELAYS`). The boundary: an executable's first statement (C, its
``main``) blocks SIGINT and SIGTERM, which stay pending through Python's start-up until the
node's handlers are in. A signal that comes after ``execve`` but before that statement meets
the kernel's default action (death by the signal): no code of the process has run, nothing
can catch it. That window is the dynamic loader's start of a small C program: microseconds of
work, but on a loaded 2-core machine the child may wait for a core for a few ms (measured
from ``Popen``'s return: 5 ms median, 24 ms at most in 30 starts at load 8); a signal at 0 ms
lands in it 10 times in 10, at 5 ms or later never. So each early run first waits until the
process holds or catches both signals (``SigBlk``/``SigCgt`` of ``/proc/<pid>/status``) and
then until its time: a time earlier than the boundary is sent at the boundary.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pytest
from ros_helpers import executable

pytestmark = pytest.mark.ros

NODES = ('sonar_node', 'ranger_node', 'scanning_sonar_node', 'robot_sensors_node')
#: What stderr must never contain after a signal.
FORBIDDEN = (
    'Traceback',
    'KeyboardInterrupt',
    'RCLError',
    'ExternalShutdownException',
    'context is invalid',
)
#: Runs per executable: the short default, or NPS_LONG_SIGNAL_RUNS for a long run.
RUNS = int(os.environ.get('NPS_LONG_SIGNAL_RUNS') or 3)
#: Runs at once: one more than the two cores of CI, as a run mostly waits or imports.
PARALLEL = 3
MAX_DELAY = 2.0  # s after the handlers are installed
SECOND_AFTER = 0.05  # s between the two signals of a double
SEEDS_PER_NODE = 100_000  # run i of NODES[k] has seed k * SEEDS_PER_NODE + i
#: Generous limits for a loaded machine: the imports alone take seconds.
READY_TIMEOUT = 120.0
EXIT_TIMEOUT = 30.0


@dataclass(frozen=True)
class Plan:
    """When and how one run is signalled, drawn from its seed."""

    seed: int
    first: signal.Signals
    delay: float
    second: signal.Signals | None

    @classmethod
    def of(cls, seed: int) -> Plan:
        rng = random.Random(seed)
        signals = (signal.SIGINT, signal.SIGTERM)
        first = rng.choice(signals)
        delay = rng.uniform(0.0, MAX_DELAY)
        second = rng.choice(signals) if rng.random() < 0.5 else None
        return cls(seed, first, delay, second)

    def __str__(self) -> str:
        then = f', then {self.second.name} 50 ms later' if self.second else ''
        return f'seed {self.seed}: {self.first.name} {self.delay:.3f} s after the handlers{then}'


class NodeProcess:
    """A node executable with its output read as it comes (the pipes never fill)."""

    def __init__(
        self,
        command: list[str],
        *,
        own_group: bool = False,
        env: dict[str, str] | None = None,
    ) -> None:
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=own_group,
            env=env,
        )
        self.out: list[str] = []
        self.err: list[str] = []
        self.lock = threading.Lock()
        assert self.process.stdout is not None
        assert self.process.stderr is not None
        self.readers = [
            threading.Thread(target=self._read, args=(stream, lines), daemon=True)
            for stream, lines in ((self.process.stdout, self.out), (self.process.stderr, self.err))
        ]
        for reader in self.readers:
            reader.start()

    def _read(self, stream: IO[str], lines: list[str]) -> None:
        for line in stream:
            with self.lock:
                lines.append(line)

    def stderr(self) -> str:
        with self.lock:
            return ''.join(self.err)

    def catches(self, signum: int) -> bool:
        """Whether the process has a handler of ``signum`` (``SigCgt``, Linux)."""
        try:
            status = Path(f'/proc/{self.process.pid}/status').read_text()
        except OSError:
            return False
        for line in status.splitlines():
            if line.startswith('SigCgt:'):
                return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
        return False

    def wait_until(self, ready: str, what: str, timeout: float) -> None:
        """Wait for ``ready`` ('handlers' or a text of stderr); fail if it exits or times out."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.process.poll() is not None:
                self.finish(0.0)
                pytest.fail(
                    f'{what}: exited with {self.process.returncode} before the signal: '
                    f'{self.stderr()[-2000:]}'
                )
            if self.catches(signal.SIGTERM) if ready == 'handlers' else ready in self.stderr():
                return
            time.sleep(0.01)
        pytest.fail(f'{what}: not ready ({ready}) in {timeout} s: {self.stderr()[-2000:]}')

    def finish(self, timeout: float) -> int | None:
        """The exit status within ``timeout`` s (None: it was killed)."""
        try:
            status: int | None = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            status = None
        for reader in self.readers:
            reader.join(timeout=10)
        return status


def node_command(name: str, namespace: str) -> list[str]:
    """The executable ``name`` in its own namespace (runs at once do not hear each other)."""
    return [executable(name), '--ros-args', '-r', f'__ns:=/{namespace}']


def problems(what: str, status: int | None, err: str) -> str | None:
    """What went wrong in a run that should have stopped cleanly, or None."""
    found = [word for word in FORBIDDEN if word in err]
    if status == 0 and not found:
        if 'still running' in err:  # the stop deadline ended it (ros/stop_deadline.py): say so
            warnings.warn(f'{what}: {err[err.index("nps_sonar: still running") :]}', stacklevel=1)
        return None
    ended = 'did not exit in time' if status is None else f'exited with {status}'
    said = f', printed {found}' if found else ''
    return f'{what}: {ended}{said}\n{err[-3000:]}'


def run_plan(name: str, plan: Plan) -> str | None:
    """Start ``name``, signal it as ``plan`` says; what went wrong, or None."""
    what = f'{name} ({plan})'
    node = NodeProcess(node_command(name, f'shutdown_{plan.seed}'))
    try:
        node.wait_until('handlers', what, READY_TIMEOUT)
        time.sleep(plan.delay)
        node.process.send_signal(plan.first)
        if plan.second is not None:
            time.sleep(SECOND_AFTER)
            node.process.send_signal(plan.second)
        status = node.finish(EXIT_TIMEOUT)
    finally:
        if node.process.poll() is None:
            node.process.kill()
            node.finish(EXIT_TIMEOUT)
    return problems(what, status, node.stderr())


def seeds(name: str) -> list[int]:
    """The seeds of ``name``'s runs: NPS_SIGNAL_SEED's if it is one of them."""
    base = NODES.index(name) * SEEDS_PER_NODE
    replay = os.environ.get('NPS_SIGNAL_SEED')
    if replay:
        seed = int(replay)
        return [seed] if base <= seed < base + SEEDS_PER_NODE else []
    return [base + i for i in range(RUNS)]


@pytest.mark.parametrize('name', NODES)
def test_signals_at_random_times_stop_the_node_cleanly(name: str) -> None:
    plans = [Plan.of(seed) for seed in seeds(name)]
    if not plans:
        pytest.skip(f'NPS_SIGNAL_SEED is not a seed of {name}')
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        failures = [f for f in pool.map(lambda plan: run_plan(name, plan), plans) if f]
    assert not failures, (
        f'{len(failures)} of {len(plans)} runs failed (replay one: NPS_SIGNAL_SEED=<seed>):\n'
        + '\n\n'.join(failures)
    )


def launch_stop(name: str, command: list[str], wait_for: str, delay: float) -> str | None:
    """Start ``command`` in a process group of its own; Ctrl-C it as ``ros2 launch`` does."""
    node = NodeProcess(command, own_group=True)
    try:
        node.wait_until(wait_for, name, READY_TIMEOUT)
        time.sleep(delay)
        os.killpg(node.process.pid, signal.SIGINT)  # the terminal's, to the process group
        node.process.send_signal(signal.SIGINT)  # and launch's own to its child
        status = node.finish(EXIT_TIMEOUT)
    finally:
        if node.process.poll() is None:
            os.killpg(node.process.pid, signal.SIGKILL)
            node.finish(EXIT_TIMEOUT)
    return problems(name, status, node.stderr())


def test_a_launch_style_double_sigint_stops_every_node_cleanly() -> None:
    # Once the first device is built (its description logged, ending in its frame): the
    # signals land while it reads, or, for robot_sensors_node, while the next sensor is built.
    rng = random.Random(7)
    jobs = [(name, f'launch_{name}', rng.uniform(0.0, 1.0)) for name in NODES]
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        failures = [
            f
            for f in pool.map(
                lambda job: launch_stop(job[0], node_command(job[0], job[1]), 'frame "', job[2]),
                jobs,
            )
            if f
        ]
    assert not failures, '\n\n'.join(failures)


#: Signal times in the first 100 ms of a node's life, s after ``Popen`` returns.
EARLY_DELAYS = (0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.08, 0.1)
#: A node with one device and the one that builds several.
EARLY_NODES = ('sonar_node', 'robot_sensors_node')
#: The environments an executable starts in: the test's (this venv's ROS wheels bootstrapped),
#: and a shell's, without the guard of the wheels' ``.pth`` hook, which then re-executes
#: Python during the site set-up: the signals must stay held across that ``execve``.
ENVIRONMENTS = {
    'inherited': dict(os.environ),
    'shell': {k: v for k, v in os.environ.items() if k != '_ROS_WHEELS_BOOTSTRAP_COMPLETE'},
}
BOTH = (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1))
#: Poll period of the boundary, s: short, but leaving the cores to the starting process.
BOUNDARY_POLL = 0.0002


def holds_signals(pid: int) -> bool:
    """Whether process ``pid`` blocks or catches both SIGINT and SIGTERM (Linux)."""
    try:
        status = Path(f'/proc/{pid}/status').read_text()
    except OSError:
        return False
    fields = dict(line.split(':', 1) for line in status.splitlines() if ':' in line)
    blocked = int(fields['SigBlk'], 16)
    caught = int(fields['SigCgt'], 16)
    return blocked & BOTH == BOTH or caught & BOTH == BOTH


def early_run(name: str, signum: signal.Signals, delay: float, environment: str) -> str | None:
    """Start ``name``, signal it ``delay`` s after ``Popen`` returns; what went wrong, or None."""
    what = f'{name} ({signum.name} {delay * 1000:.0f} ms after Popen, {environment} environment)'
    node = NodeProcess(
        node_command(name, f'early_{os.getpid()}_{signum}_{round(delay * 1000)}_{environment}'),
        env=ENVIRONMENTS[environment],
    )
    started = time.monotonic()
    try:
        while not holds_signals(node.process.pid):  # the boundary, within ms
            if node.process.poll() is not None or time.monotonic() - started > READY_TIMEOUT:
                node.finish(EXIT_TIMEOUT)
                return f'{what}: never held the signals: {node.stderr()[-2000:]}'
            time.sleep(BOUNDARY_POLL)
        time.sleep(max(0.0, started + delay - time.monotonic()))
        node.process.send_signal(signum)
        status = node.finish(EXIT_TIMEOUT)
    finally:
        if node.process.poll() is None:
            node.process.kill()
            node.finish(EXIT_TIMEOUT)
    failure = problems(what, status, node.stderr())
    if failure is None and 'frame "' in node.stderr():
        failure = f'{what}: the node was built before it stopped: {node.stderr()[-2000:]}'
    return failure


@pytest.mark.parametrize('environment', ENVIRONMENTS)
@pytest.mark.parametrize('name', EARLY_NODES)
def test_signals_in_the_first_100_ms_stop_the_node_cleanly(name: str, environment: str) -> None:
    jobs = [
        (signum, delay) for signum in (signal.SIGINT, signal.SIGTERM) for delay in EARLY_DELAYS
    ]
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        failures = [
            f
            for f in pool.map(lambda job: early_run(name, job[0], job[1], environment), jobs)
            if f
        ]
    assert not failures, f'{len(failures)} of {len(jobs)} runs failed:\n' + '\n\n'.join(failures)
