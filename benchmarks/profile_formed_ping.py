"""Where a formed fan's ping goes, stage by stage: DAVE's fan of ``bench_coherent.py``.

Each stage of ``MultibeamSonar.ping`` with the formed engine (issue 33) is wrapped by a
timer in this process; over ``--repeat`` pings each stage's minimum wall time and minimum
process CPU time (both threads: the work run beside the caller counts) are printed, with the
1-minute load (``/proc/loadavg``) before and after. ``--move`` moves the sonar 1 mm ahead
each ping, so that no cast equals the last one (the near triangles are sought every ping);
without it the sonar holds still, as ``bench_coherent.py``'s does. ``--root`` profiles the
package of another checkout (its ``nps_sonar_py`` and ``benchmarks``), so that two versions
can be profiled in turn on a shared machine. ``--save`` keeps the last ping's image and
baseband (``.npz``) to compare versions bit for bit (the same ``--repeat``: the noise is drawn
from one generator ping after ping). ``--demo`` profiles the demo's forward-looking fan of
``bench_coherent.py`` instead (seven samples a bin: the stored sample's filter runs).
Run: ``scripts/run python benchmarks/profile_formed_ping.py [--repeat N] [--move]``.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: (module, owner, attribute, label) of each stage timed; indented labels are inside others.
STAGES = (
    ('nps_sonar_py.sensing.multibeam', 'MultibeamSonar', 'ping', 'whole ping'),
    ('nps_sonar_py.sensing.multibeam', 'MultibeamSonar', '_cast', '  Open3D cast (fan)'),
    ('nps_sonar_py.sensing.fan_lighting', 'FanLighting', 'lit', '  lighting (edge cast, spacing)'),
    ('nps_sonar_py.echo.formed_engine', 'FormedEngine', 'echoes', '  formed echoes'),
    ('nps_sonar_py.echo.surface_echoes', None, '_entity_lit', '    entities lit'),
    ('nps_sonar_py.echo.entity_scatterers', 'EntityScatterers', 'lit_rows', '      near_small'),
    ('nps_sonar_py.echo.entity_scatterers', 'EntityScatterers', 'select', '      select'),
    ('nps_sonar_py.sensing.fan_lighting', 'FanLighting', '_visible', '    depth map'),
    ('nps_sonar_py.sensing.multibeam', 'MultibeamSonar', '_scatterer_pattern', '    pattern'),
    ('nps_sonar_py.echo.formed_engine', None, 'form_beams', '    form_beams'),
    ('nps_sonar_py.echo.formed_beams', 'BeamFormer', '_grid', '      deposits'),
    ('nps_sonar_py.echo.formed_beams', None, 'bin_intensity', '      stored sample'),
    ('nps_sonar_py.echo.model', 'EchoModel', 'binned', '  binned law'),
)


def load() -> str:
    """The 1-minute load average."""
    return Path('/proc/loadavg').read_text().split()[0]


def wrap(stages: tuple[tuple[str, str | None, str, str], ...]) -> dict[str, list[float]]:
    """Wrap each stage by a timer; the wall and CPU seconds of each, summed per ping."""
    spent: dict[str, list[float]] = {label: [0.0, 0.0] for *_, label in stages}
    for module_name, owner_name, name, label in stages:
        module = sys.modules.get(module_name) or __import__(module_name, fromlist=['_'])
        owner: Any = getattr(module, owner_name) if owner_name else module
        if not hasattr(owner, name):  # a stage another version has not (left at 0)
            continue
        setattr(owner, name, timed(getattr(owner, name), spent[label]))
    return spent


def timed(f: Callable[..., Any], into: list[float]) -> Callable[..., Any]:
    """``f``, adding its wall and CPU seconds to ``into``."""

    @functools.wraps(f)
    def run(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return f(*args, **kwargs)
        finally:
            into[0] += time.perf_counter() - wall
            into[1] += time.process_time() - cpu

    return run


def main() -> int:
    """Print each stage's minimum wall and CPU time over the pings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=9)
    parser.add_argument('--move', action='store_true')
    parser.add_argument('--root', type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument('--save', type=Path)
    parser.add_argument('--demo', action='store_true', help="the demo's fan (7 samples a bin)")
    options = parser.parse_args()
    root = options.root.resolve()
    sys.path[:0] = [str(root / 'benchmarks'), str(root)]
    import numpy as np
    from bench_coherent import DEMO_WORLD, coherent_fan, demo_fan
    from bench_fan import fan_world

    from nps_sonar_py.ros.heap import keep_heap
    from nps_sonar_py.scene import Raycaster
    from nps_sonar_py.scene.load import load_world

    keep_heap()
    spent = wrap(STAGES)
    if options.demo:
        sonar, caster = demo_fan(), Raycaster(load_world(DEMO_WORLD))
    else:
        sonar, caster = coherent_fan(), Raycaster(fan_world())
    sonar.ping(caster)  # the scatterers placed
    start, best = load(), {label: [np.inf, np.inf] for *_, label in STAGES}
    pose = sonar.world_from_body.copy()
    for k in range(options.repeat):
        if options.move:  # 1 mm ahead a ping: no cast is the last one's
            moved = pose.copy()
            moved[:3, 3] += pose[:3, 0] * 1e-3 * (k + 1)
            sonar.set_pose(moved)
        for times in spent.values():
            times[:] = [0.0, 0.0]
        sonar.ping(caster)
        for label, (wall, cpu) in spent.items():
            best[label] = [min(best[label][0], wall), min(best[label][1], cpu)]
    print(f'{root}: load {start} -> {load()}, {options.repeat} pings, move={options.move}')
    print(f'{"stage":34s} {"wall ms":>8s} {"CPU ms":>8s}')
    for label, (wall, cpu) in best.items():
        print(f'{label:34s} {wall * 1e3:8.1f} {cpu * 1e3:8.1f}')
    if options.save:
        ping = sonar.ping(caster)
        assert ping.echo is not None
        assert ping.echo.coherent is not None
        np.savez(options.save, image=ping.profiles, baseband=ping.echo.coherent.baseband)
    return 0


if __name__ == '__main__':
    sys.exit(main())
