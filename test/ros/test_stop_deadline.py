"""A process that does not finish stopping after a signal is ended by the stop deadline.

Each run is a child Python process that installs the nodes' own signal handling
(``catch_signals`` and ``exit_if_stuck`` of ``ros/startup.py``, as ``run_node`` does) and then
blocks its main thread in a way the orderly stop cannot end: in Python code that never
returns, or, once the signal is taken, in native code that holds the interpreter (a C
``sleep`` through ``ctypes.PyDLL``, which keeps the GIL), as a clean-up step stuck in a
library would. (A main thread that holds the interpreter from before the signal never runs
the Python handler at all; only the supervisor's SIGKILL ends that.) Controls: the same
blocked child without the deadline is still alive long after it would have been ended.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import pytest

GRACE = 0.5  # s, the deadline given to the children
LAST_RESORT = 1.5  # s
EXIT_TIMEOUT = 60.0  # s: generous for a loaded machine; a pass takes about GRACE
ALIVE_AFTER = 5 * LAST_RESORT  # s a control must outlive the deadlines it does not have

CHILD = """
import ctypes, sys, threading
from nps_sonar_py.ros.startup import catch_signals
from nps_sonar_py.ros.stop_deadline import exit_if_stuck

request = catch_signals()
if {deadline}:
    request.on_signal = exit_if_stuck(grace={grace}, last_resort={last_resort})
print('ready', flush=True)
def stuck_in_python():
    while True:
        threading.Event().wait(0.05)
def stuck_holding_the_interpreter():
    while not request:  # the handler runs between bytecodes: take the signal, then block
        threading.Event().wait(0.05)
    while True:
        ctypes.PyDLL(None).sleep(100)
{block}()
"""


def start(block: str, *, deadline: bool) -> subprocess.Popen[str]:
    code = CHILD.format(deadline=deadline, grace=GRACE, last_resort=LAST_RESORT, block=block)
    child = subprocess.Popen(
        [sys.executable, '-c', textwrap.dedent(code)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    assert child.stdout.readline() == 'ready\n', child.communicate(timeout=EXIT_TIMEOUT)
    return child


def stop(child: subprocess.Popen[str], wait: float) -> tuple[int | None, str]:
    """Signal ``child`` (SIGTERM, SIGINT); its status within ``wait`` s (None: still there)."""
    child.send_signal(signal.SIGTERM)
    child.send_signal(signal.SIGINT)
    try:
        _, err = child.communicate(timeout=wait)
    except subprocess.TimeoutExpired:
        child.kill()
        _, err = child.communicate()
        return None, err
    return child.returncode, err


def test_a_node_stuck_in_python_exits_0_at_the_deadline_saying_where() -> None:
    status, err = stop(start('stuck_in_python', deadline=True), EXIT_TIMEOUT)
    assert status == 0, err
    assert (
        f'nps_sonar: still running {GRACE:g} s after the signal (in wait at threading.py:' in err
    )
    assert 'Traceback' not in err


def test_a_node_stuck_holding_the_interpreter_is_ended_by_the_last_resort() -> None:
    status, err = stop(start('stuck_holding_the_interpreter', deadline=True), EXIT_TIMEOUT)
    assert status == 1, err  # faulthandler's exit: the only one it can give
    assert 'most recent call first' in err  # every thread's stack, for the bug report
    assert 'stuck_holding_the_interpreter' in err


@pytest.mark.parametrize('block', ['stuck_in_python', 'stuck_holding_the_interpreter'])
def test_control_without_the_deadline_a_stuck_node_stays(block: str) -> None:
    child = start(block, deadline=False)
    started = time.monotonic()
    status, _ = stop(child, ALIVE_AFTER)
    assert status is None, f'exited with {status} after {time.monotonic() - started:.1f} s'
