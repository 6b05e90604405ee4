"""A read that must end at once, run where a blocked one cannot hang the test (FIFOs).

``test/description/test_input_limits.py`` and ``test/scene/test_scene_limits.py`` give the
readers FIFOs nobody writes to: a reader that opens one waits for ever. :func:`in_thread`
fails the test instead, and lets the reader go.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest


def in_thread(
    action: Callable[[], Any], *, fifos: Sequence[Path] = (), timeout: float = 10.0
) -> Any:
    """Run ``action`` in a thread; return its value or raise its error.

    Fails when it has not finished within ``timeout`` s (a read blocked on a FIFO), after
    opening each of ``fifos`` for writing and closing it, so that a blocked reader ends.
    """
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome['value'] = action()
        except BaseException as err:  # handed to the test's thread
            outcome['error'] = err

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        for path in fifos:
            with contextlib.suppress(OSError):  # OSError: nobody reads this one
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail(f'still reading after {timeout} s: the reader blocks')
    if 'error' in outcome:
        raise outcome['error']
    return outcome.get('value')
