"""``background.beside``: the same results inline and in the worker, errors where they are read."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from nps_sonar_py.background import PARALLEL_SIZE, beside


def test_small_work_runs_in_the_callers_thread() -> None:
    result = beside(PARALLEL_SIZE - 1, threading.current_thread)
    assert result() is threading.current_thread()


def test_large_work_gives_the_same_answer_as_inline() -> None:
    values = np.arange(PARALLEL_SIZE, dtype=np.float64)
    result = beside(values.size, lambda: np.sqrt(values).sum())
    inline = np.sqrt(values).sum()
    assert result() == inline


def test_an_error_in_the_work_is_raised_where_the_result_is_read() -> None:
    def fail() -> None:
        raise ValueError('bad rays')

    result = beside(PARALLEL_SIZE, fail)
    with pytest.raises(ValueError, match='bad rays'):
        result()
