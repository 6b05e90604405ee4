"""A node still busy ``STOP_GRACE`` s after SIGINT or SIGTERM exits anyway, with status 0.

A stop is orderly (``ros/startup.py``): the main thread sees the request within
``POLL_PERIOD``, or as soon as the start-up step it is in returns, and then destroys the node
and shuts the context down. A step that does not return in time (a large world still loading,
a DDS call that blocks, a library's clean-up) would keep a node alive that was asked to stop;
``ros2 launch`` waits 5 s for it before it escalates to SIGTERM and then SIGKILL, and a test
or a supervisor waits for the exit. So :func:`exit_if_stuck` makes the stop a deadline: a
thread waits for the signal, then :data:`STOP_GRACE` s more, and if the process is still there
it prints one line naming where its main thread is and ends it with status 0, without the rest
of the clean-up (DDS peers notice the node gone by their lease).

That thread needs the interpreter; a clean-up step that blocks while holding it (native code
that never gives it back) would stop the thread too. For that case faulthandler's own native
thread is armed at the signal: :data:`LAST_RESORT` s later it prints every thread's stack and
ends the process with status 1, the one exit it can give. A main thread that holds the
interpreter from before the signal never runs the handler; only the supervisor's SIGKILL
ends that.
"""

from __future__ import annotations

import faulthandler
import os
import sys
import threading
import time
from collections.abc import Callable

__all__ = ['LAST_RESORT', 'STOP_GRACE', 'exit_if_stuck']

#: How long a node may take to stop after the first signal, s (under ``ros2 launch``'s 5 s).
STOP_GRACE = 4.0
#: When the native last resort ends a process whose interpreter is blocked, s after the signal.
LAST_RESORT = 3 * STOP_GRACE


def exit_if_stuck(
    grace: float = STOP_GRACE, last_resort: float = LAST_RESORT
) -> Callable[[], None]:
    """What to call at the first signal: ends the process ``grace`` s later if it still runs.

    Call it once, from the main thread; the signal handler calls what it returns.
    """
    signalled = threading.Event()
    threading.Thread(
        target=_watch, args=(signalled, grace), name='nps_sonar_stop_deadline', daemon=True
    ).start()

    def at_signal() -> None:
        faulthandler.dump_traceback_later(last_resort, exit=True)
        signalled.set()

    return at_signal


def _watch(signalled: threading.Event, grace: float) -> None:
    signalled.wait()
    time.sleep(grace)  # monotonic; the process normally ends long before
    where = main_thread_location()
    # os.write, not print: the main thread may hold sys.stderr's lock where it is stuck.
    os.write(
        2,
        f'nps_sonar: still running {grace:g} s after the signal ({where}): '
        'exiting without the rest of the clean-up\n'.encode(),
    )
    os._exit(0)


def main_thread_location() -> str:
    """``file:line in function`` of the main thread's innermost Python frame."""
    frame = sys._current_frames().get(threading.main_thread().ident or 0)
    if frame is None:
        return 'main thread gone'
    code = frame.f_code
    return f'in {code.co_name} at {os.path.basename(code.co_filename)}:{frame.f_lineno}'
