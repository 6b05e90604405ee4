"""Small dataset specs and ``sonar_dataset`` run as a user runs it: a process of its own.

The command is ``python -m nps_sonar_py.dataset`` with this checkout first on ``PYTHONPATH``
(what ``lib/nps_sonar/sonar_dataset`` runs, without the ROS workspace), so that Ray's workers,
which inherit the environment, import the same code.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from nps_sonar_py.dataset.distributed import LOCAL_RAY_ENVIRONMENT

REPO = Path(__file__).resolve().parents[2]

#: A forward-looking sonar, few beams and bins, every object kind of the library but meshes.
FLS_SPEC = """\
seed: 28
sensor:
  preset: fls
  settings: {beams: 24, range_bins: 64, rays_vertical: 48, image_resolution: 0.08}
  range: [10, 12]
  altitude: [2, 3]
  tilt: [15, 25]
  heading: [0, 360]
seabed:
  family: [flat, ripples, sand_waves, rocky]
  cell: 0.3
objects:
  - {kind: box, count: [1, 2], x: [4, 8], y: [-3, 3]}
  - {kind: pipe, class: pipe, count: [0, 1], x: [4, 8], y: [-3, 3], length: [3, 5]}
  - {kind: mine, count: [0, 1], x: [4, 8], y: [-3, 3], burial: [0, 0.5]}
  - {kind: tyre, count: [0, 1], x: [4, 8], y: [-3, 3]}
  - {kind: wreck, count: [0, 1], x: [5, 8], y: [-3, 3], length: [3, 4], beam: [1, 1.5]}
water:
  profile: [isovelocity, gradient, thermocline]
  gradient: [-0.2, 0.2]
  sensor_depth: [5, 15]
processing:
  gain_db: [-3, 3]
  tvg: [20log, 40log]
  speckle: [false, true]
  gain_stddev: [0, 0.1]
"""

#: A side-scan over a flat seabed with one box abeam to starboard, everything fixed: its
#: shadow has a length known from the geometry.
SIDESCAN_SPEC = """\
seed: 5
sensor:
  preset: sidescan
  settings: {range_bins: 300, waterfall_lines: 24, waterfall_samples: 300,
             waterfall_line_spacing: 0.25, ground_range: true}
  min_range: 0.0
  range: 30
  altitude: 10
  tilt: 20
  heading: 0
seabed:
  family: flat
  flat: {roughness: 0}
  reflectivity: {mud_fraction: 0, rock_fraction: 0, sand: 0.35}
objects:
  - {kind: box, count: 1, x: 0, y: -15, yaw: 0, length: 2, width: 1, height: 1}
processing:
  gain_db: 0
  tvg: 40log
  speckle: false
"""


def write_spec(folder: Path, text: str, name: str = 'spec.yaml') -> Path:
    """``text`` as the spec file ``folder / name``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def environment() -> dict[str, str]:
    """This process's environment with this checkout first on ``PYTHONPATH``."""
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join([str(REPO), *filter(None, [env.get('PYTHONPATH')])])
    env['RAY_USAGE_STATS_ENABLED'] = '0'
    # Ray on the loopback only, as the command's own local Ray (dataset/distributed.py),
    # for the head node the tests start and the command that joins it.
    env.update(LOCAL_RAY_ENVIRONMENT)
    return env


def command(*arguments: str | Path) -> list[str]:
    """``sonar_dataset`` with ``arguments``, as a command line."""
    return [sys.executable, '-m', 'nps_sonar_py.dataset', *(str(a) for a in arguments)]


def run_cli(*arguments: str | Path, timeout: float = 600.0) -> subprocess.CompletedProcess[str]:
    """Run ``sonar_dataset`` to its end; its result (not checked)."""
    return subprocess.run(
        command(*arguments),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=environment(),
    )


def dataset_files(out: Path) -> dict[str, bytes]:
    """Every file of a dataset folder but ``run.json``, by relative path."""
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(out.rglob('*'))
        if p.is_file() and p.name != 'run.json'
    }
