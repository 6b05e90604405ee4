"""Samples per second of ``sonar_dataset``'s two presets at 1 and 2 workers, in one run (issue 28).

The specs are the shipped demos, ``config/datasets/fls_demo.yaml`` (a fan of 96 to 160 beams
and 160 to 224 range bins, both drawn per sample with the frequency and the display window, cast
with 98,304 rays a ping whatever the beams, and its Cartesian image) and
``config/datasets/sidescan_demo.yaml`` (a 256-ping waterfall block of 2 x 400 bins, ground
range, its frequency and display window drawn per sample). Each sample also casts its
noise-free pings of the seabed alone for the shadow mask. The samples are the same in every
configuration, so the draws change the rates of a run but not its comparison. For each
preset it times:

* ``1 worker``: the samples made in this process, one after another (``--workers 1``: no Ray);
* ``2 workers``: the same samples on a local Ray of 2 CPUs (``--workers 2``), started once for
  both presets, in batches as a run makes them (about 1 s of samples a task, fewer near the
  end: ``distributed.Batches``);
* ``2, 1 a task``: the same, one sample a Ray task (``--batch 1``, how runs were made before
  batches): what batching gains;

each after a warm-up (imports, the Ray workers' first tasks) on other samples of the same
spec, ``--rounds`` times, the configurations interleaved, then the scaling efficiency
``rate(2) / (2 rate(1))`` of each round and of the best rates of the rounds (the least
disturbed by load from elsewhere), batched and not. Every sample is made and written
by whoever makes it into a temporary folder (``work.write_sample``), as in a run, so the
writes are timed too. A worker is one core: a run's Ray workers keep to one
(``NPS_SONAR_CORES=1``, ``nps_sonar_py/background.py``), and so does this process here unless
``NPS_SONAR_CORES`` says otherwise (``0``: every core, as ``--workers 1`` runs by default,
its Open3D cast on both cores of this machine: a faster first worker, a lower efficiency).
Rates depend on the machine and its load (2 cores here, shared; the
load averages before and after are printed); the efficiency is the result. The CPU time a
sample of every process of the run (this one, its Ray's GCS, raylet, agents and workers,
from ``/proc``) depends less on the load; it is printed by who spent it: this process (the
driver, and the maker of the samples of ``1 worker``), the Ray workers (``ray::``) and Ray's
own processes. The 2 workers' total less the 1 worker's is what a sample's trip through Ray
costs (dispatch, outcome, Ray's own processes; their idle timers fall on the 1 worker's
samples too, more of them as those take longer), batched and one a task; the 1 worker's
total over the 2 workers' is the efficiency by CPU time, what the rates' would be if each
worker had a core to itself. Run:
``scripts/run python benchmarks/bench_dataset.py [--fls N] [--sidescan N] [--rounds R]``, or
``--spec FILE [--samples N]`` for another spec (short samples show what a task costs).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault('NPS_SONAR_CORES', '1')  # read once, when the package is imported

from nps_sonar_py.dataset import Outcome, Spec, draw_row, load_spec
from nps_sonar_py.dataset.distributed import Batches, ray_session, session_outcomes
from nps_sonar_py.dataset.work import local_outcomes

REPO = Path(__file__).resolve().parents[1]

WORKERS = 2
#: Warm-up samples per preset and configuration (at least one per Ray worker, twice).
WARM_UP = 2 * WORKERS
#: Clock ticks a second of ``/proc/<pid>/stat``'s times.
TICKS = os.sysconf('SC_CLK_TCK')
#: The configurations timed, in the order of each round.
CONFIGURATIONS = ('1 worker', '2 workers', '2, 1 a task')

#: How a configuration makes the rows' samples: (spec, rows, output folder) -> outcomes.
Maker = Callable[[Spec, list[dict[str, Any]], str], Iterator[Outcome]]


#: Who spent a run's CPU time: this process, the Ray workers, Ray's own processes.
ROLES = ('this process', 'Ray workers', "Ray's own")


def _tree_cpu() -> dict[str, float]:
    """CPU seconds (user and system) so far of this process and every process under it.

    Those are the local Ray's GCS, raylet, agents and workers (read from ``/proc``), by
    :data:`ROLES`: a Ray worker's name starts with ``ray::``.
    """
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    workers: set[int] = set()
    for entry in Path('/proc').iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name, _, fields = (entry / 'stat').read_text().rpartition(')')
        except OSError:  # gone meanwhile
            continue
        pid, values = int(entry.name), fields.split()
        parents[pid] = int(values[1])
        times[pid] = (int(values[11]) + int(values[12])) / TICKS
        if name.partition('(')[2].startswith('ray::'):
            workers.add(pid)
    tree = {os.getpid()}
    grown = True
    while grown:  # a child's pid may be lower than its parent's: until none is added
        below = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= below
        grown = bool(below)
    ray = tree - {os.getpid()}
    spent = [{os.getpid()}, ray & workers, ray - workers]
    return {
        role: sum(times.get(pid, 0.0) for pid in pids)
        for role, pids in zip(ROLES, spent, strict=True)
    }


def _timed(outcomes: Iterator[Outcome], count: int) -> tuple[float, dict[str, float]]:
    """Samples per second of ``outcomes`` (all must be made) and CPU ms a sample by role.

    The CPU time is this process's and that of those under it (:func:`_tree_cpu`).
    """
    start, cpu = time.perf_counter(), _tree_cpu()
    made = 0
    for outcome in outcomes:
        assert outcome.error is None, outcome.error
        made += 1
    assert made == count
    seconds = time.perf_counter() - start
    after = _tree_cpu()
    return count / seconds, {role: 1e3 * (after[role] - cpu[role]) / count for role in ROLES}


def _rows(spec: Spec, first: int, count: int) -> list[dict[str, Any]]:
    return [draw_row(spec, i) for i in range(first, first + count)]


def _makers(cpus: int) -> dict[str, Maker]:
    """Each configuration's way to make samples (module docstring), never stopped."""

    def never() -> bool:
        return False

    def ray(batch: int) -> Maker:
        def make(spec: Spec, rows: list[dict[str, Any]], out: str) -> Iterator[Outcome]:
            end = int(rows[-1]['sample']) + 1
            return session_outcomes(spec, rows, out, Batches(cpus, end, batch), never)

        return make

    return {
        CONFIGURATIONS[0]: lambda spec, rows, out: local_outcomes(spec, rows, out, never),
        CONFIGURATIONS[1]: ray(0),
        CONFIGURATIONS[2]: ray(1),
    }


#: Per preset and configuration, each round's samples per second and CPU ms a sample by role.
Results = dict[str, dict[str, list[tuple[float, dict[str, float]]]]]


def _rounds(presets: dict[str, tuple[Spec, int]], rounds: int, out: str) -> tuple[Results, float]:
    """Each preset's rates in each configuration, ``rounds`` times; Ray's start time.

    Interleaved, so that a spell of load from elsewhere falls on all alike.
    """
    results: Results = {name: {c: [] for c in CONFIGURATIONS} for name in presets}
    start = time.perf_counter()
    with ray_session(WORKERS, None) as cpus:
        ready = time.perf_counter() - start
        makers = _makers(cpus)
        for spec, _ in presets.values():
            for maker in makers.values():
                _timed(maker(spec, _rows(spec, 10_000, WARM_UP), out), WARM_UP)
        for _ in range(rounds):
            for name, (spec, count) in presets.items():
                rows = _rows(spec, 0, count)
                for configuration, maker in makers.items():
                    results[name][configuration].append(_timed(maker(spec, rows, out), count))
    return results, ready


def _print_preset(
    name: str, count: int, results: dict[str, list[tuple[float, dict[str, float]]]]
) -> None:
    """A preset's rates and efficiencies, round by round and of the best rates."""
    one, two, single = ([rate for rate, _ in results[c]] for c in CONFIGURATIONS)
    for k in range(len(one)):
        print(
            f'{name:<9} {count:>7} {one[k]:>8.2f} /s {two[k]:>8.2f} /s {single[k]:>8.2f} /s '
            f'{two[k] / (WORKERS * one[k]):>10.0%} {single[k] / (WORKERS * one[k]):>10.0%}'
            f'  round {k + 1}'
        )
    best = [max(rates) for rates in (one, two, single)]
    print(
        f'{name:<9} {count:>7} {best[0]:>8.2f} /s {best[1]:>8.2f} /s {best[2]:>8.2f} /s '
        f'{best[1] / (WORKERS * best[0]):>10.0%} {best[2] / (WORKERS * best[0]):>10.0%}'
        '  best of the rounds (the least disturbed)'
    )


def _print_cpu(name: str, results: dict[str, list[tuple[float, dict[str, float]]]]) -> None:
    """A preset's CPU ms a sample in each configuration, the round of the least, by role.

    And what going through Ray adds to a sample, batched and one a task, with the efficiency
    by CPU time: the 1 worker's CPU a sample over the 2 workers', what the efficiency of the
    rates would be if the workers had a core each to themselves (the 1 worker on one core):
    the load changes it less than it changes the rates.
    """
    least = {
        c: min((cpu for _, cpu in results[c]), key=lambda d: sum(d.values())) for c in results
    }
    totals = [sum(least[c].values()) for c in CONFIGURATIONS]
    for configuration, total in zip(CONFIGURATIONS, totals, strict=True):
        roles = ' '.join(f'{least[configuration][role]:>12.1f}' for role in ROLES)
        print(f'{name:<9} {configuration:<12} {total:>8.1f} {roles}')
    print(
        f'{name:<9} Ray adds, batched {totals[1] - totals[0]:+.1f} ms '
        f'(by CPU {totals[0] / totals[1]:.0%}), '
        f'1 a task {totals[2] - totals[0]:+.1f} ms (by CPU {totals[0] / totals[2]:.0%})'
    )


def main() -> int:
    """Print samples/s of each preset at 1 and 2 workers and the scaling efficiency."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--fls', type=int, default=48, help='timed samples of the fan')
    parser.add_argument('--sidescan', type=int, default=6, help='timed samples of the side-scan')
    parser.add_argument('--rounds', type=int, default=3, help='rounds of both, interleaved')
    parser.add_argument(
        '--spec', type=Path, help='time this spec instead of the demos (--samples of it)'
    )
    parser.add_argument('--samples', type=int, default=96, help='timed samples of --spec')
    options = parser.parse_args()
    presets = {
        'fls': (load_spec(REPO / 'config/datasets/fls_demo.yaml'), options.fls),
        'sidescan': (load_spec(REPO / 'config/datasets/sidescan_demo.yaml'), options.sidescan),
    }
    if options.spec:
        presets = {options.spec.stem[:9]: (load_spec(options.spec), options.samples)}
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix='bench_dataset_') as out:
        results, ready = _rounds(presets, options.rounds, out)
    after = os.getloadavg()
    print(
        f'load average (1, 5, 15 min) before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, '
        f'after {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}, on {os.cpu_count()} CPUs'
    )
    print(f'local Ray of {WORKERS} CPUs started in {ready:.1f} s (not in the rates)')
    cores = os.environ['NPS_SONAR_CORES']
    print(f'cores of the 1 worker (this process): {cores} (NPS_SONAR_CORES; 0: every core)')
    print(
        f'{"preset":<9} {"samples":>7} {"1 worker":>11} {"2 workers":>11} {"2, 1 a task":>11} '
        f'{"efficiency":>10} {"1 a task":>10}'
    )
    for name, (_, count) in presets.items():
        _print_preset(name, count, results[name])
    print(
        '\nCPU ms a sample, every process of the run (the driver, its Ray), the least round;'
        ' by who spent it; what Ray adds:'
    )
    print(f'{"preset":<9} {"":<12} {"total":>8} ' + ' '.join(f'{role:>12}' for role in ROLES))
    for name in presets:
        _print_cpu(name, results[name])
    return 0


if __name__ == '__main__':
    sys.exit(main())
