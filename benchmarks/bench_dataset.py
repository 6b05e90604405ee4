"""Samples per second of ``sonar_dataset``'s two presets at 1 and 2 workers, in one run (issue 28).

The specs are the shipped demos, ``config/datasets/fls_demo.yaml`` (a 128-beam fan, 192 bins,
98,304 rays a ping, and its Cartesian image) and ``config/datasets/sidescan_demo.yaml`` (a
256-ping waterfall block of 2 x 400 bins, ground range). Each sample also casts its noise-free
pings of the seabed alone for the shadow mask. For each preset it times:

* ``1 worker``: the samples made in this process, one after another (``--workers 1``: no Ray);
* ``2 workers``: the same samples on a local Ray of 2 CPUs (``--workers 2``), started once for
  both presets;

each after a warm-up (imports, the Ray workers' first tasks) on other samples of the same
spec, then the scaling efficiency ``rate(2) / (2 rate(1))``. Every sample makes its files as
bytes (``work.make_sample``); nothing is written, so the disk is not timed. Rates depend on the
machine and its load (2 cores here, shared); the efficiency is the result. Run:
``scripts/run python benchmarks/bench_dataset.py [--fls N] [--sidescan N]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nps_sonar_py.dataset import Outcome, Spec, draw_row, load_spec
from nps_sonar_py.dataset.distributed import ray_session, session_outcomes
from nps_sonar_py.dataset.work import local_outcomes

REPO = Path(__file__).resolve().parents[1]

WORKERS = 2
#: Warm-up samples per preset and configuration (at least one per Ray worker, twice).
WARM_UP = 2 * WORKERS


def _rate(outcomes: Iterator[Outcome], count: int) -> float:
    """Samples per second of ``outcomes``, all of which must be made."""
    start = time.perf_counter()
    made = 0
    for outcome in outcomes:
        assert outcome.error is None, outcome.error
        made += 1
    assert made == count
    return count / (time.perf_counter() - start)


def _rows(spec: Spec, first: int, count: int) -> list[dict[str, object]]:
    return [draw_row(spec, i) for i in range(first, first + count)]


def main() -> int:
    """Print samples/s of each preset at 1 and 2 workers and the scaling efficiency."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--fls', type=int, default=16, help='timed samples of the fan')
    parser.add_argument('--sidescan', type=int, default=6, help='timed samples of the side-scan')
    options = parser.parse_args()
    never = lambda: False  # noqa: E731 - the runs are not stopped
    presets = {
        'fls': (load_spec(REPO / 'config/datasets/fls_demo.yaml'), options.fls),
        'sidescan': (load_spec(REPO / 'config/datasets/sidescan_demo.yaml'), options.sidescan),
    }
    one: dict[str, float] = {}
    for name, (spec, count) in presets.items():
        _rate(local_outcomes(spec, _rows(spec, 10_000, 1), never), 1)
        one[name] = _rate(local_outcomes(spec, _rows(spec, 0, count), never), count)
    two: dict[str, float] = {}
    start = time.perf_counter()
    with ray_session(WORKERS, None) as cpus:
        ready = time.perf_counter() - start
        for name, (spec, count) in presets.items():
            _rate(session_outcomes(spec, _rows(spec, 10_000, WARM_UP), cpus, never), WARM_UP)
            two[name] = _rate(session_outcomes(spec, _rows(spec, 0, count), cpus, never), count)
    print(f'local Ray of {WORKERS} CPUs started in {ready:.1f} s (not in the rates)')
    print(f'{"preset":<9} {"samples":>7} {"1 worker":>12} {"2 workers":>12} {"efficiency":>10}')
    for name, (_, count) in presets.items():
        efficiency = two[name] / (WORKERS * one[name])
        print(
            f'{name:<9} {count:>7} {one[name]:>8.2f} /s {two[name]:>8.2f} /s {efficiency:>10.0%}'
        )
    return 0


if __name__ == '__main__':
    sys.exit(main())
