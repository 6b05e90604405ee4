"""Helpers for node tests: start a node executable as ``ros2 run`` would, receive its messages."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from nps_sonar_py.ament import executable as installed_executable

#: Longest wait on anything a node does (start, DDS discovery, a reply, a log line): a bound on
#: a hang, never a speed asked for. A machine loaded tenfold starts a node and its discovery
#: in tens of seconds (docs/test-suite.md).
NODE_START_TIMEOUT = 120.0
#: Longest wait for a node to exit after SIGINT (it gives up its work within seconds of its own).
STOP_TIMEOUT = 60.0


def executable(name: str) -> str:
    """Path of an executable of the colcon-built package (``lib/nps_sonar/<name>``)."""
    found = installed_executable(name)
    if found is None:
        msg = f'{name} is not installed in any AMENT_PREFIX_PATH prefix; run scripts/test'
        raise FileNotFoundError(msg)
    return str(found)


def ros_args(parameters: dict[str, Any]) -> list[str]:
    """``--ros-args -p name:=value ...`` for a dict of parameters (YAML values)."""
    args = ['--ros-args']
    for name, value in parameters.items():
        if isinstance(value, str):
            text = f"'{value}'" if value == '' else value
        elif isinstance(value, bool):
            text = 'true' if value else 'false'
        elif isinstance(value, (list, tuple)):
            text = '[' + ', '.join(repr(float(v)) for v in value) + ']'
        else:
            text = repr(value)
        args += ['-p', f'{name}:={text}']
    return args


def exit_line(command: list[str], timeout: float = NODE_START_TIMEOUT) -> str:
    """Run ``command`` to its end: it must exit 2 with one line, ``nps_sonar: ...``; that line.

    The shape every bad configuration or command line has (``ros/startup.py``): no
    traceback, nothing else on stderr.
    """
    (line,) = exit_lines([command], timeout)
    return line


def exit_lines(commands: list[list[str]], timeout: float = NODE_START_TIMEOUT) -> list[str]:
    """:func:`exit_line` of each of ``commands``, run at once (a process mostly imports and
    waits: the others use the cores it leaves)."""
    processes = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for command in commands
    ]
    found = []
    try:
        for process in processes:
            _, stderr = process.communicate(timeout=timeout)
            assert process.returncode == 2, stderr
            lines = [line for line in stderr.splitlines() if line.strip()]
            assert len(lines) == 1, stderr
            assert lines[0].startswith('nps_sonar: '), stderr
            assert 'Traceback' not in stderr
            found.append(lines[0])
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.communicate()
    return found


@contextmanager
def running(
    name: str,
    parameters: dict[str, Any] | None = None,
    extra: list[str] | None = None,
) -> Iterator[subprocess.Popen[str]]:
    """A node executable running for the duration of the block, stopped with SIGINT after it."""
    # extra (e.g. --params-file) first: later arguments win,
    # as launch_ros orders a file before a dict
    command = [executable(name), '--ros-args', *(extra or []), *ros_args(parameters or {})[1:]]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(2)
            try:
                process.communicate(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()


class Probe:
    """One rclpy node in the test process, on its own context, spinning in a thread.

    It subscribes to any number of topics (``received[topic]`` holds each one's messages),
    calls services, and can publish from ``node``.
    """

    def __init__(self, node_name: str | None = None) -> None:
        import rclpy
        from rclpy.executors import SingleThreadedExecutor

        self.context = rclpy.context.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node(
            node_name or f'ranger_probe_{id(self)}', context=self.context
        )
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.lock = threading.Lock()
        self.received: dict[str, list[Any]] = {}
        self.thread = threading.Thread(target=self._spin, daemon=True)
        self.thread.start()

    def _spin(self) -> None:
        from rclpy.executors import ExternalShutdownException

        try:
            while self.context.ok():
                self.executor.spin_once(timeout_sec=0.05)
        except (ExternalShutdownException, RuntimeError):  # the context shut down while spinning
            pass

    def subscribe(self, msg_type: Any, topic: str, qos: Any = None) -> None:
        """Keep the messages on ``topic`` in ``received[topic]``.

        Sensor-data QoS unless ``qos`` is given.
        """
        from rclpy.qos import qos_profile_sensor_data

        self.received[topic] = []

        def store(message: Any) -> None:
            with self.lock:
                self.received[topic].append(message)

        self.node.create_subscription(msg_type, topic, store, qos or qos_profile_sensor_data)

    def count(self, topic: str) -> int:
        with self.lock:
            return len(self.received[topic])

    def wait(
        self,
        topic: str,
        count: int,
        process: subprocess.Popen[str],
        timeout: float = NODE_START_TIMEOUT,
    ) -> list[Any]:
        """The first ``count`` messages on ``topic`` received from now on."""
        start = self.count(topic)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                got = self.received[topic][start:]
            if len(got) >= count:
                return got[:count]
            if process.poll() is not None:
                pytest.fail(
                    f'the node exited with status {process.returncode}: {process.communicate()[1]}'
                )
            time.sleep(0.02)
        pytest.fail(f'{topic}: {self.count(topic) - start} of {count} messages in {timeout} s')

    def call(
        self, srv_type: Any, name: str, timeout: float = NODE_START_TIMEOUT, **fields: Any
    ) -> Any:
        """The response of service ``name`` to a request with ``fields``."""
        client = self.node.create_client(srv_type, name)
        assert client.wait_for_service(timeout_sec=timeout), f'no service {name}'
        future = client.call_async(srv_type.Request(**fields))
        end = time.monotonic() + timeout
        while not future.done() and time.monotonic() < end:
            time.sleep(0.01)
        assert future.done(), f'{name} did not answer'
        return future.result()

    def close(self) -> None:
        self.executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()
        self.context.try_shutdown()
        self.thread.join(timeout=5)


class Receiver(Probe):
    """A probe subscribed to one topic at construction; ``messages`` are that topic's."""

    def __init__(self, msg_type: Any, topic: str, qos: Any = None) -> None:
        super().__init__(f'test_receiver_{os.getpid()}_{id(self)}')
        self.topic = topic
        self.subscribe(msg_type, topic, qos)

    @property
    def messages(self) -> list[Any]:
        """The topic's messages so far (the live list, appended to under ``lock``)."""
        return self.received[self.topic]

    def wait_for(
        self,
        count: int,
        timeout: float = NODE_START_TIMEOUT,
        process: subprocess.Popen[str] | None = None,
    ) -> list[Any]:
        """The first ``count`` messages; fails with the node's output unless they come in time."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                if len(self.messages) >= count:
                    return list(self.messages[:count])
            if process is not None and process.poll() is not None:
                _, err = process.communicate()
                pytest.fail(f'the node exited with status {process.returncode}: {err.strip()}')
            time.sleep(0.02)
        pytest.fail(f'received {len(self.messages)} of {count} messages in {timeout} s')


def set_parameters(
    receiver: Probe,
    node_name: str,
    values: dict[str, Any],
    *,
    atomic: bool = False,
    timeout: float = NODE_START_TIMEOUT,
) -> list[Any]:
    """Set a running node's parameters with rclpy's parameter client; the SetParametersResult list.

    ``atomic`` sets all or none, with one result (``set_parameters_atomically``).
    """
    from rclpy.parameter import Parameter
    from rclpy.parameter_client import AsyncParameterClient

    # The client's service clients live as long as the receiver's node.
    client = AsyncParameterClient(receiver.node, node_name)
    if not client.wait_for_services(timeout_sec=timeout):
        pytest.fail(f'the parameter services of {node_name} did not come up in {timeout} s')
    parameters = [Parameter(name, value=value) for name, value in values.items()]
    future = (client.set_parameters_atomically if atomic else client.set_parameters)(parameters)
    end = time.monotonic() + timeout
    while not future.done() and time.monotonic() < end:
        time.sleep(0.01)
    if not future.done():
        pytest.fail(f'set_parameters on {node_name} got no answer in {timeout} s')
    response = future.result()
    return [response.result] if atomic else list(response.results)


def messages_after(
    receiver: Receiver, count: int, timeout: float = NODE_START_TIMEOUT
) -> list[Any]:
    """The next ``count`` messages arriving after this call."""
    with receiver.lock:
        start = len(receiver.messages)
    return receiver.wait_for(start + count, timeout)[start:]


@contextmanager
def publishing(
    probe: Probe,
    msg_type: Any,
    topic: str,
    message_at: Callable[[], Any],
    rate: float = 20.0,
    qos: Any = 10,
) -> Iterator[None]:
    """Publish ``message_at()`` on ``topic`` at ``rate`` Hz from a thread during the block."""
    publisher = probe.node.create_publisher(msg_type, topic, qos)
    stop = threading.Event()

    def run() -> None:
        while not stop.is_set():
            publisher.publish(message_at())
            stop.wait(1.0 / rate)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)


def nanoseconds(stamp: Any) -> int:
    """A ``builtin_interfaces/Time`` in integer nanoseconds."""
    return stamp.sec * 10**9 + stamp.nanosec


def in_step(
    probe: Probe,
    topics: tuple[str, ...],
    node: Any,
    count: int = 2,
    timeout: float = NODE_START_TIMEOUT,
) -> dict[str, dict[int, Any]]:
    """Each topic's messages by stamp (ns), over a window of stamps every topic has received.

    Each subscription matches the node's publisher at its own moment, so the first messages on
    one topic may have no partner on another, and the last may not have one yet. The window runs
    from the latest of the topics' first stamps to the earliest of their last; this waits until
    ``count`` stamps in it are common to all the topics.
    """
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with probe.lock:
            found = {
                t: {nanoseconds(m.header.stamp): m for m in probe.received[t]} for t in topics
            }
        if all(found.values()):
            low = max(min(stamps) for stamps in found.values())
            high = min(max(stamps) for stamps in found.values())
            window = {
                t: {s: m for s, m in stamps.items() if low <= s <= high}
                for t, stamps in found.items()
            }
            if len(set.intersection(*(set(w) for w in window.values()))) >= count:
                return window
        assert node.poll() is None, f'the node exited: {node.communicate()[1]}'
        time.sleep(0.02)
    pytest.fail(f'{", ".join(topics)}: not {count} common stamps in {timeout} s')


def first_such(
    probe: Probe,
    topic: str,
    node: Any,
    accept: Callable[[Any], bool],
    timeout: float = NODE_START_TIMEOUT,
) -> Any:
    """The first message on ``topic`` from now on that ``accept``s: waits for a change to come."""
    start = probe.count(topic)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with probe.lock:
            got = probe.received[topic][start:]
        for message in got:
            if accept(message):
                return message
        start += len(got)
        assert node.poll() is None, f'the node exited: {node.communicate()[1]}'
        time.sleep(0.02)
    pytest.fail(f'{topic}: no message showed the change in {timeout} s')


def wait_for_graph(
    probe: Probe,
    node: Any,
    *,
    publishers: tuple[str, ...] = (),
    subscribers: tuple[str, ...] = (),
    timeout: float = NODE_START_TIMEOUT,
) -> None:
    """Wait until the graph shows a publisher on each of ``publishers`` and a subscriber on each
    of ``subscribers``: the node is up and its endpoints are discovered.

    What a test checks of a node's silence (nothing before ``/clock``) means something only
    once its publisher could have reached the probe.
    """
    end = time.monotonic() + timeout
    while not (
        all(probe.node.count_publishers(t) >= 1 for t in publishers)
        and all(probe.node.count_subscribers(t) >= 1 for t in subscribers)
    ):
        assert time.monotonic() < end, f'the node did not come up in {timeout} s'
        assert node.poll() is None, f'the node exited: {node.communicate()[1]}'
        time.sleep(0.02)


def stamped_after(
    probe: Probe,
    topic: str,
    node: Any,
    since_ns: int,
    count: int = 1,
    timeout: float = NODE_START_TIMEOUT,
) -> list[Any]:
    """The first ``count`` messages on ``topic`` stamped after ``since_ns`` (wall clock, ns).

    A node on the wall clock applies a change at its first tick after it answered the request,
    and stamps a reading with its tick's time or earlier. So with ``since_ns = time.time_ns()``
    taken once the answer came, a message stamped after it was read with the change in effect,
    however many older ones a loaded machine still had on their way or in the probe's queue.
    """
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with probe.lock:
            got = [m for m in probe.received[topic] if nanoseconds(m.header.stamp) > since_ns]
        if len(got) >= count:
            return got[:count]
        assert node.poll() is None, f'the node exited: {node.communicate()[1]}'
        time.sleep(0.02)
    pytest.fail(f'{topic}: {len(got)} of {count} messages stamped after the change in {timeout} s')


class NodeLog:
    """A running node's stderr, read line by line in a thread as it comes."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.lock = threading.Lock()
        self.lines: list[str] = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self.lock:
                self.lines.append(line.rstrip('\n'))

    def text(self) -> str:
        with self.lock:
            return '\n'.join(self.lines)

    def wait_for(self, *words: str, timeout: float = NODE_START_TIMEOUT) -> str:
        """The first line holding all ``words``: waits for it to come."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                found = next((ln for ln in self.lines if all(w in ln for w in words)), None)
            if found is not None:
                return found
            assert self.process.poll() is None, f'the node exited:\n{self.text()}'
            time.sleep(0.02)
        pytest.fail(f'no line with {words} on stderr in {timeout} s:\n{self.text()}')

    def count(self, *words: str) -> int:
        """How many lines so far hold all ``words``."""
        with self.lock:
            return sum(all(w in ln for w in words) for ln in self.lines)

    def wait_for_count(self, count: int, *words: str, timeout: float = NODE_START_TIMEOUT) -> None:
        """Wait until ``count`` lines hold all ``words``."""
        end = time.monotonic() + timeout
        while self.count(*words) < count:
            if time.monotonic() > end:
                pytest.fail(
                    f'not {count} lines with {words} on stderr in {timeout} s:\n{self.text()}'
                )
            assert self.process.poll() is None, f'the node exited:\n{self.text()}'
            time.sleep(0.02)

    def stop(self) -> int:
        """Stop the node with SIGINT; its exit status, once its stderr is read to the end."""
        self.process.send_signal(signal.SIGINT)
        status = self.process.wait(timeout=STOP_TIMEOUT)
        self.thread.join(timeout=5)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        return status


#: What a device node on sim time logs, once, ``CLOCK_WAIT`` s (wall) after it started, when
#: no ``/clock`` came (``ros/sim_time.py``).
CLOCK_WAITING = 'waiting for /clock: use_sim_time is true and no clock has come'


def waited_for_clock(log: NodeLog, nodes: int = 1) -> None:
    """Wait until ``nodes`` device nodes of the process said they waited for ``/clock``.

    The event a check of "nothing is published before ``/clock``" waits on: each node's own
    word that ``CLOCK_WAIT`` seconds of its steady clock passed with its timers running and no
    clock. A fixed sleep proves nothing on a loaded machine, where the node may not have run
    at all in it.
    """
    from nps_sonar_py.ros.sim_time import CLOCK_WAIT

    log.wait_for_count(nodes, CLOCK_WAITING, timeout=CLOCK_WAIT + NODE_START_TIMEOUT)
