"""Time to read a URDF whose links form one long chain: the tree check must stay linear.

For chains of 1000, 2000, 4000 and 8000 links (each joined to the previous one by a fixed
joint), it prints the best time of ``--repeat`` runs (the least disturbed by other work on
the machine) of ``parse_robot`` (which checks that the links form one tree, with no loop
and one root) and of the deepest link's transform, and the ratio of each time to the one of
half the links: about 2 per doubling is linear, 4 quadratic (the tree check was worse than
that: 1600 links took 13 s). Run it in the project's environment:
``scripts/run python benchmarks/bench_urdf_tree.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nps_sonar_py.description import parse_robot

SIZES = (1000, 2000, 4000, 8000)


def chain_urdf(n: int) -> str:
    """A robot of ``n`` links ``l0 .. l{n-1}``, each 1 cm along x from its parent."""
    links = ''.join(f'<link name="l{i}"/>\n' for i in range(n))
    joints = ''.join(
        f'<joint name="j{i}" type="fixed"><parent link="l{i - 1}"/><child link="l{i}"/>'
        '<origin xyz="0.01 0 0"/></joint>\n'
        for i in range(1, n)
    )
    return f'<robot name="chain">\n{links}{joints}</robot>\n'


def best_time(action: Callable[[], object], repeat: int) -> float:
    """Shortest wall time of ``action`` in seconds over ``repeat`` calls, after a warm-up."""
    action()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    """Print the times and their ratios per doubling."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=5, help='timed runs per size (best)')
    args = parser.parse_args()
    header = ('links', 'parse_robot [ms]', 'ratio', 'deepest pose [ms]', 'ratio')
    print('{:>6} {:>17} {:>6} {:>18} {:>6}'.format(*header))
    previous: tuple[float, float] | None = None
    for n in SIZES:
        text = chain_urdf(n)
        robot = parse_robot(text)
        parse = best_time(lambda text=text: parse_robot(text), args.repeat)
        pose = best_time(lambda robot=robot, n=n: robot.link_transform(f'l{n - 1}'), args.repeat)
        ratios = (
            ('', '')
            if previous is None
            else (
                f'{parse / previous[0]:.2f}',
                f'{pose / previous[1]:.2f}',
            )
        )
        print(f'{n:>6} {parse * 1e3:>17.1f} {ratios[0]:>6} {pose * 1e3:>18.2f} {ratios[1]:>6}')
        previous = (parse, pose)


if __name__ == '__main__':
    main()
