"""Median wall times of interleaved actions: the one timing loop of the benchmarks."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

__all__ = ['median_time', 'median_times']


def median_times(actions: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Median wall time in seconds of each action, run in turn ``repeat`` times after a warm-up.

    Interleaved, so that a load that comes and goes on the machine weighs on every action
    alike and the ratios hold.
    """
    for action in actions.values():
        action()
    times: dict[str, list[float]] = {name: [] for name in actions}
    for _ in range(repeat):
        for name, action in actions.items():
            start = time.perf_counter()
            action()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def median_time(action: Callable[[], object], repeat: int) -> float:
    """Median wall time of ``action`` in seconds, after one warm-up call."""
    return median_times({'action': action}, repeat)['action']
