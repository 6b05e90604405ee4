"""Helpers of the node tests: start a node executable as ``ros2 run`` would, receive its messages."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest


NODE_START_TIMEOUT = 30.0


def executable(name: str) -> str:
    """Path of a console script of the colcon-built package (``lib/nps_sonar/<name>``)."""
    for prefix in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep):
        candidate = Path(prefix, 'lib', 'nps_sonar', name)
        if candidate.is_file():
            return str(candidate)
    msg = f'{name} is not installed in any AMENT_PREFIX_PATH prefix; run scripts/test'
    raise FileNotFoundError(msg)


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


@contextmanager
def running(name: str, parameters: dict[str, Any] | None = None, extra: list[str] | None = None) -> Iterator[subprocess.Popen[str]]:
    """A node executable running for the duration of the block, stopped with SIGINT after it."""
    # extra (e.g. --params-file) first: later arguments win, as launch_ros orders a file before a dict
    command = [executable(name), '--ros-args', *(extra or []), *ros_args(parameters or {})[1:]]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(2)
            try:
                process.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()


class Receiver:
    """A subscriber in the test process, on its own rclpy context, spinning in a thread."""

    def __init__(self, msg_type: Any, topic: str, qos: Any = None) -> None:
        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.qos import qos_profile_sensor_data

        self.context = rclpy.context.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node(f'test_receiver_{os.getpid()}_{id(self)}', context=self.context)
        self.messages: list[Any] = []
        self._lock = threading.Lock()
        self.node.create_subscription(msg_type, topic, self._on_message, qos or qos_profile_sensor_data)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        from rclpy.executors import ExternalShutdownException

        try:
            while self.context.ok():
                self.executor.spin_once(timeout_sec=0.05)
        except (ExternalShutdownException, RuntimeError):
            pass

    def _on_message(self, message: Any) -> None:
        with self._lock:
            self.messages.append(message)

    def wait_for(self, count: int, timeout: float = NODE_START_TIMEOUT,
                 process: subprocess.Popen[str] | None = None) -> list[Any]:
        """The first ``count`` messages; fails with the node's output if they do not come in time."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self._lock:
                if len(self.messages) >= count:
                    return list(self.messages[:count])
            if process is not None and process.poll() is not None:
                _, err = process.communicate()
                pytest.fail(f'the node exited with status {process.returncode}: {err.strip()}')
            time.sleep(0.02)
        pytest.fail(f'received {len(self.messages)} of {count} messages in {timeout} s')

    def close(self) -> None:
        self.executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()
        self.context.try_shutdown()
        self._thread.join(timeout=5)


def set_parameters(
    receiver: Receiver, node_name: str, values: dict[str, Any], *, atomic: bool = False, timeout: float = 10.0,
) -> list[Any]:
    """Set parameters of a running node with rclpy's parameter client; the SetParametersResult list.

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


def messages_after(receiver: Receiver, count: int, timeout: float = NODE_START_TIMEOUT) -> list[Any]:
    """The next ``count`` messages arriving after this call."""
    with receiver._lock:
        start = len(receiver.messages)
    return receiver.wait_for(start + count, timeout)[start:]
