"""Start and stop a node the way a user expects: one line on bad input, no traceback on exit.

A node whose configuration cannot be used exits with status 2 and prints one line,
``nps_sonar: <file>:<line>: <element>: <problem>`` (or rclpy's complaint about an argument, a
parameter file or a name, made one line). SIGINT and SIGTERM, any number of them at any moment,
shut it down cleanly with status 0, within ``STOP_GRACE`` s (``ros/stop_deadline.py``).

How: :func:`catch_signals` replaces Python's and rclpy's handlers (``rclpy.init`` is told to
install none) by one that only *requests* shutdown: it records the first signal and does
nothing else, so no ``KeyboardInterrupt`` lands in the middle of rclpy, a read or the clean-up,
and the context is never shut down under a running callback. The main thread spins in slices
of at most :data:`POLL_PERIOD` and stops when it sees the request; then, once, in a
``finally``, the executor is shut down, the node destroyed and the context shut down. A signal
during start-up is acted on as soon as the running step (``rclpy.init``, the construction of
the node) returns. From the exit on, while Python finalizes, the signals are ignored. The tools
``sonar_record`` and ``sonar_monitor`` stop the same way.

From process start: an installed executable (``lib/nps_sonar/sonar_node`` ..., written by
CMakeLists.txt) blocks SIGINT and SIGTERM in its first statement, before the site set-up and any
import, and calls :func:`run_executable`, which installs the handlers, unblocks the signals (one
that came meanwhile is handled then) and only then imports the node's module (seconds of Open3D
and rclpy). This module imports rclpy only when a node runs. What remains is the interpreter's
own start-up before the script's first statement (a few ms): a signal then meets the default
action (SIGTERM kills; SIGINT kills, or raises ``KeyboardInterrupt`` once Python's own handler
is in).
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import math
import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, NoReturn, TypeVar

from nps_sonar_py.errors import NpsSonarError, error_line
from nps_sonar_py.ros.heap import keep_heap
from nps_sonar_py.ros.interfaces import missing_interface
from nps_sonar_py.ros.stop_deadline import exit_if_stuck

if TYPE_CHECKING:
    from rclpy.executors import Executor
    from rclpy.node import Node

__all__ = [
    'EXIT_BAD_INPUT',
    'POLL_PERIOD',
    'OneLineParser',
    'ShutdownRequest',
    'StartInterrupted',
    'bad_input',
    'catch_signals',
    'init_rclpy',
    'input_errors',
    'rcl_error',
    'run_executable',
    'run_node',
    'run_tool',
    'seconds',
    'spin_until_shutdown',
    'tool_options',
]

#: Exit status of a node whose description, scene or parameters cannot be used.
EXIT_BAD_INPUT = 2
#: Longest time the spinning main thread takes to notice a requested shutdown, s.
POLL_PERIOD = 0.1
#: How long a tool with ``--duration`` waits for its first reading by default, s.
WAIT = 300.0
#: The signals that request shutdown.
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class ShutdownRequest:
    """Whether SIGINT or SIGTERM asked the process to stop: true from the first signal on."""

    def __init__(self) -> None:
        self.signal: int | None = None
        #: Called in the handler at the first signal.
        self.on_signal: Callable[[], None] | None = None

    def __bool__(self) -> bool:
        return self.signal is not None

    def handle(self, signum: int, frame: FrameType | None) -> None:
        """The signal handler: records the first signal; any later one changes nothing."""
        if self.signal is None:
            self.signal = signum
            if self.on_signal is not None:
                self.on_signal()


_request: ShutdownRequest | None = None


class StartInterrupted(Exception):  # noqa: N818 (not an error: a signal came while waiting)
    """A signal came while a node waited for its input at start: it stops with status 0."""


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


def bad_input(error: BaseException | str) -> int:
    """Print ``nps_sonar: <error>`` as one line on stderr; :data:`EXIT_BAD_INPUT`."""
    text = error if isinstance(error, str) else error_line(error)
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
    request.on_signal = exit_if_stuck()
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
        except StartInterrupted:  # a signal while it waited (for its robot description)
            return 0
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


ToolNode = TypeVar('ToolNode', bound='Node')


def tool_options(parser: OneLineParser, args: list[str] | None) -> argparse.Namespace:
    """A tool's options: ``args`` (default ``sys.argv``) less ``--ros-args``, and ``--duration``.

    ``run_tool`` gives the ``--ros-args`` to rclpy. A malformed ``--ros-args`` ends the process
    with one line and :data:`EXIT_BAD_INPUT`, as a bad option does.
    """
    import rclpy.utilities

    parser.add_argument(
        '--duration',
        type=seconds,
        default=0.0,
        help='stop this many seconds after the first reading (start-up not counted; 0: never)',
    )
    parser.add_argument(
        '--wait',
        type=seconds,
        default=WAIT,
        help=f'with --duration: stop with status 1 if no reading came in this many seconds '
        f'(default {WAIT:g})',
    )
    try:
        argv = rclpy.utilities.remove_ros_args(args if args is not None else sys.argv)
    except rcl_error() as error:
        sys.exit(bad_input(error))
    return parser.parse_args(argv[1:])


def run_tool(
    factory: Callable[[], ToolNode],
    options: argparse.Namespace,
    args: list[str] | None,
    first: Callable[[ToolNode], float | None],
) -> tuple[int, ToolNode | None]:
    """Spin a tool's node (``sonar_monitor``, the demo's tow) till a signal, or ``--duration``.

    ``first(node)``: the ``time.monotonic()`` of its first reading, or None: the duration counts
    from there (a loaded machine's start-up of the sonars does not eat it), and without a
    reading for ``--wait`` s it stops (the caller sees no reading and returns status 1).
    Returns ``(0, node)`` once it has spun (destroyed: read its counts), ``(0, None)`` if a
    signal came first, ``(EXIT_BAD_INPUT, None)`` with one line printed for bad ``--ros-args``
    or a name rcl refuses.
    """
    import rclpy
    from rclpy.exceptions import NameValidationException
    from rclpy.executors import SingleThreadedExecutor

    if catch_signals():
        return 0, None
    try:
        init_rclpy(args)
    except rcl_error() as error:
        return bad_input(error), None
    node: ToolNode | None = None
    executor = SingleThreadedExecutor()
    try:
        try:
            node = factory()
        except (NameValidationException, rcl_error()) as error:  # not a topic name
            return bad_input(error), None
        executor.add_node(node)
        _spin_tool(executor, node, options, first)
    finally:
        executor.shutdown()
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
    return 0, node


def _spin_tool(
    executor: Executor,
    node: ToolNode,
    options: argparse.Namespace,
    first: Callable[[ToolNode], float | None],
) -> None:
    """Spin until a signal, or ``--duration`` s after the first reading, or ``--wait`` without."""
    if options.duration <= 0:
        spin_until_shutdown(executor)
        return
    request = catch_signals()
    start = time.monotonic()
    while not request:
        since = first(node)
        deadline = start + options.wait if since is None else since + options.duration
        if time.monotonic() >= deadline:
            return
        spin_until_shutdown(executor, min(deadline, time.monotonic() + POLL_PERIOD))


def run_executable(module: str) -> int:
    """Run ``module``'s ``main`` as an executable whose first statement blocked the signals.

    Installs the handlers, then unblocks SIGINT and SIGTERM: a signal held since the start is
    handled at once, and the node's (seconds of) imports are skipped. Returns the exit status.
    """
    request = catch_signals()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)  # runs a pending handler at once
    if request:
        return 0
    if (missing := missing_interface()) is not None:  # a message package: one line
        return bad_input(missing)
    run: Callable[[], int] = importlib.import_module(module).main
    return run()
