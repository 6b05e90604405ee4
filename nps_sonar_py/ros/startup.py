"""Start and stop a node the way a user expects: one line on bad input, no traceback on exit.

A node whose configuration cannot be used exits with status 2 and prints one line,
``nps_sonar: <file>:<line>: <element>: <problem>``. SIGINT and SIGTERM shut it down
cleanly with status 0.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable

import rclpy
from rclpy.exceptions import InvalidParameterTypeException, InvalidParameterValueException
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node

from nps_sonar_py.errors import NpsSonarError

__all__ = ['EXIT_BAD_INPUT', 'run_node']

#: Exit status of a node whose description, scene or parameters cannot be used.
EXIT_BAD_INPUT = 2


def run_node(factory: Callable[..., Node], *, args: list[str] | None = None) -> int:
    """Construct a node with ``factory()`` and spin it until shutdown; return the exit status."""
    rclpy.init(args=args)
    # SIGTERM (from a launch file or a supervisor) ends the node like Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *_: rclpy.try_shutdown())
    node: Node | None = None
    try:
        node = factory()
        executor = SingleThreadedExecutor()
        executor.add_node(node)
        executor.spin()
    except (NpsSonarError, InvalidParameterTypeException, InvalidParameterValueException) as error:
        print(f'nps_sonar: {_one_line(error)}', file=sys.stderr)
        return EXIT_BAD_INPUT
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
    return 0


def _one_line(error: Exception) -> str:
    return ' '.join(str(error).split())
