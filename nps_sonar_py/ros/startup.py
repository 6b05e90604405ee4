"""Start and stop a node the way a user expects: one line on bad input, no traceback on exit.

A node whose configuration cannot be used exits with status 2 and prints one line,
``nps_sonar: <file>:<line>: <element>: <problem>`` (or rclpy's complaint about an argument, a
parameter file or a name, made one line). SIGINT and SIGTERM, any number of them at any moment,
shut it down cleanly with status 0.

How: :func:`catch_signals` replaces Python's and rclpy's handlers (``rclpy.init`` is told to
install none) by one that only *requests* shutdown: it records the first signal and does
nothing else, so no ``KeyboardInterrupt`` lands in the middle of rclpy, a read or the clean-up,
and the context is never shut down under a running callback. The main thread spins in slices
of at most :data:`POLL_PERIOD` and stops when it sees the request; then, once, in a
``finally``, the executor is shut down, the node destroyed and the context shut down. A signal
during start-up is acted on as soon as the running step (``rclpy.init``, the construction of
the node) returns. From the exit on, while Python finalizes, the signals are ignored. The tools
``sonar_record`` and ``sonar_monitor`` stop the same way.

This module imports rclpy only when a node runs, so that an executable can catch the signals
before its (seconds of) imports: the console scripts ``sonar_node`` ... may point at the entry
points defined at the end of this module (``nps_sonar_py.ros.startup:sonar_node``), which
catch the signals first and then import and run the node module's ``main``.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import math
import os
import re
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, NoReturn

from nps_sonar_py.errors import NpsSonarError
from nps_sonar_py.ros.heap import keep_heap
from nps_sonar_py.ros.interfaces import missing_interface

if TYPE_CHECKING:
    from rclpy.executors import Executor
    from rclpy.node import Node

__all__ = [
    'EXIT_BAD_INPUT',
    'POLL_PERIOD',
    'OneLineParser',
    'ShutdownRequest',
    'bad_input',
    'catch_signals',
    'init_rclpy',
    'input_errors',
    'one_line',
    'rcl_error',
    'run_node',
    'seconds',
    'spin_until_shutdown',
]

#: Exit status of a node whose description, scene or parameters cannot be used.
EXIT_BAD_INPUT = 2
#: Longest time the spinning main thread takes to notice a requested shutdown, s.
POLL_PERIOD = 0.1
#: The signals that request shutdown.
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class ShutdownRequest:
    """Whether SIGINT or SIGTERM asked the process to stop: true from the first signal on."""

    def __init__(self) -> None:
        self.signal: int | None = None

    def __bool__(self) -> bool:
        return self.signal is not None

    def handle(self, signum: int, frame: FrameType | None) -> None:
        """The signal handler: records the first signal; any later one changes nothing."""
        if self.signal is None:
            self.signal = signum


_request: ShutdownRequest | None = None


def catch_signals() -> ShutdownRequest:
    """Make SIGINT and SIGTERM request shutdown (once per process, idempotent); the request.

    Call it from the main thread, before ``rclpy.init`` (which must then install no handler:
    ``signal_handler_options=SignalHandlerOptions.NO``).
    """
    global _request
    if _request is None:
        request = ShutdownRequest()
        for signum in SIGNALS:
            signal.signal(signum, request.handle)
        # While Python finalizes it puts back the default action of a signal it handled (death
        # by the signal), but leaves an ignored one ignored: the process is ending anyway.
        atexit.register(_ignore_signals)
        _request = request
    return _request


def _ignore_signals() -> None:
    for signum in SIGNALS:
        signal.signal(signum, signal.SIG_IGN)


def spin_until_shutdown(executor: Executor, deadline: float = math.inf) -> None:
    """Spin ``executor`` until a signal, the ``time.monotonic()`` ``deadline`` or a shutdown."""
    from rclpy.executors import ExternalShutdownException

    request = catch_signals()
    try:
        while not request:
            left = deadline - time.monotonic()
            if left <= 0.0:
                return
            executor.spin_once(timeout_sec=min(POLL_PERIOD, left))
    except ExternalShutdownException:  # the context was shut down by someone else
        pass


def init_rclpy(args: list[str] | None) -> None:
    """``rclpy.init`` installing no signal handler; raises ``RCLError`` on bad ``--ros-args``.

    rcl logs its complaints about the arguments to stderr before it fails: they are held back
    and dropped when it fails (the error says the same, and the caller prints it as one line);
    what it writes on a successful start is passed on.
    """
    import rclpy
    from rclpy.signals import SignalHandlerOptions

    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        held.seek(0)
        said = held.read()
    if said:
        sys.stderr.buffer.write(said)
        sys.stderr.flush()


def rcl_error() -> type[Exception]:
    """The ``RCLError`` of rclpy's C extension: rcl refusing arguments, a file or a name."""
    from rclpy.impl.implementation_singleton import rclpy_implementation

    error: type[Exception] = rclpy_implementation.RCLError
    return error


def input_errors() -> tuple[type[Exception], ...]:
    """What a node raises on input that cannot be used (files, parameters, names).

    Not rcl's ``RCLError``, which means bad input only where rcl reads it: in ``rclpy.init``
    and while a node is made (the context is never shut down under them).
    """
    from rclpy.exceptions import (
        InvalidParameterTypeException,
        InvalidParameterValueException,
        NameValidationException,
        ParameterUninitializedException,
    )

    return (
        NpsSonarError,
        InvalidParameterTypeException,
        InvalidParameterValueException,
        ParameterUninitializedException,
        NameValidationException,  # a topic, service, node name or namespace
    )


def one_line(error: BaseException) -> str:
    """``error`` as one line: rclpy's caret line and rcl's source locations left out."""
    lines = [line for line in str(error).splitlines() if line.strip(' ^')]
    text = ' '.join(' '.join(lines).split())
    return re.sub(r',? at \S+\.(?:c|cc|cpp|h|hpp):\d+', '', text)


def bad_input(error: BaseException | str) -> int:
    """Print ``nps_sonar: <error>`` as one line on stderr; :data:`EXIT_BAD_INPUT`."""
    text = error if isinstance(error, str) else one_line(error)
    print(f'nps_sonar: {text}', file=sys.stderr, flush=True)
    return EXIT_BAD_INPUT


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, ``nps_sonar: <prog>: <problem>``, status 2."""

    def error(self, message: str) -> NoReturn:
        """Print the problem as one line and exit with :data:`EXIT_BAD_INPUT`."""
        bad_input(f'{self.prog}: {message} (see --help)')
        sys.exit(EXIT_BAD_INPUT)


def seconds(text: str) -> float:
    """A duration argument: a finite number of seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0.0:
        msg = f'expected a finite number of seconds >= 0, got {text!r}'
        raise argparse.ArgumentTypeError(msg)
    return value


def run_node(factory: Callable[..., Node], *, args: list[str] | None = None) -> int:
    """Construct a node with ``factory()`` and spin it until shutdown; return the exit status.

    The process keeps its per-reading arrays in the heap (``ros/heap.py``).
    """
    request = catch_signals()
    if request:  # a signal before ROS started: there is nothing to stop
        return 0
    keep_heap()
    import rclpy
    from rclpy.executors import SingleThreadedExecutor

    try:
        init_rclpy(args)
    except rcl_error() as error:  # --ros-args, a --params-file
        return bad_input(error)
    node: Node | None = None
    executor: SingleThreadedExecutor | None = None
    try:
        if request:
            return 0
        try:
            node = factory()
        except rcl_error() as error:  # rcl refused a name, a remapping
            return bad_input(error)
        if request:
            return 0
        executor = SingleThreadedExecutor()
        executor.add_node(node)
        spin_until_shutdown(executor)
    except input_errors() as error:
        return bad_input(error)
    finally:
        if executor is not None:
            executor.shutdown()
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
    return 0


def _entry_point(module: str) -> Callable[[], int]:
    """A console script: catch the signals, then import ``module`` and run its ``main``."""

    def main() -> int:
        catch_signals()
        if (missing := missing_interface()) is not None:  # a message package: one line
            return bad_input(missing)
        run: Callable[[], int] = importlib.import_module(module).main
        return run()

    main.__doc__ = f'Entry point running ``{module}.main`` with the signals caught first.'
    return main


# The executables, catching SIGINT and SIGTERM before the imports of their modules (Open3D,
# rclpy: seconds), during which Python would otherwise raise KeyboardInterrupt or die of SIGTERM.
sonar_node = _entry_point('nps_sonar_py.ros.sonar_node')
ranger_node = _entry_point('nps_sonar_py.ros.ranger_node')
scanning_sonar_node = _entry_point('nps_sonar_py.ros.scanning_sonar_node')
robot_sensors_node = _entry_point('nps_sonar_py.ros.robot_sensors')
sonar_record = _entry_point('nps_sonar_py.ros.recorder')
sonar_monitor = _entry_point('nps_sonar_py.ros.monitor')
