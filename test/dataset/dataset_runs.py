"""Small dataset specs, ``sonar_dataset`` run as a user runs it, and a Ray of its own.

The command is the installed executable ``lib/nps_sonar/sonar_dataset`` (what ``scripts/run
sonar_dataset`` and ``ros2 run`` start: ``python -S`` and the site set-up in its code), with
this checkout first on ``PYTHONPATH`` so that Ray's workers, which inherit the environment,
import the same code. :func:`ray_head` is "another Ray on the machine": a head started by
``ray start --head`` in a temporary folder and on ports of its own, as a user's would be.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from nps_sonar_py.ament import executable
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
    """The installed ``sonar_dataset`` with ``arguments``, as a command line."""
    found = executable('sonar_dataset')
    assert found is not None, 'sonar_dataset is not installed: run scripts/test'
    return [str(found), *(str(a) for a in arguments)]


def run_cli(
    *arguments: str | Path,
    timeout: float = 600.0,
    env: dict[str, str] | None = None,
    preexec_fn: Callable[[], object] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``sonar_dataset`` to its end (in ``env``, else :func:`environment`; ``preexec_fn``
    called in the child before it starts); its result."""
    return subprocess.run(
        command(*arguments),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=environment() if env is None else env,
        preexec_fn=preexec_fn,
    )


def free_port() -> int:
    """A TCP port free on the loopback now."""
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class RayHead:
    """A running Ray head: its ``address``; ``tmpdir`` is its ``RAY_TMPDIR`` (its address file
    is ``tmpdir/ray/ray_current_cluster``, where ``ray.init()`` and ``--address auto`` look)."""

    address: str
    tmpdir: str


@contextmanager
def ray_head() -> Iterator[RayHead]:
    """A Ray head node of 2 CPUs on this host (``ray start --head --block``) for the block."""
    port = free_port()
    base = tempfile.mkdtemp(prefix='nps_rh_', dir='/tmp')  # short: Ray's socket paths
    head = subprocess.Popen(
        [
            sys.executable, '-m', 'ray.scripts.scripts', 'start', '--head', '--block',
            f'--port={port}', '--num-cpus=2', '--include-dashboard=false',
            f'--object-store-memory={200 * 2**20}', '--disable-usage-stats',
            f'--temp-dir={base}/ray', '--node-ip-address=127.0.0.1',
            '--min-worker-port=0',
            '--max-worker-port=0', f'--dashboard-agent-listen-port={free_port()}',
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=environment(),
    )  # fmt: skip
    assert head.stdout is not None
    lines = []
    for line in head.stdout:  # the head says when it is up
        lines.append(line)
        if 'Ray runtime started' in line:
            break
    else:
        raise AssertionError('ray start --head ended before it started:\n' + ''.join(lines))
    recorded = Path(base) / 'ray' / 'ray_current_cluster'
    end = time.monotonic() + 120.0
    while not recorded.is_file():  # written just after the message
        assert head.poll() is None, 'the head ended before it recorded its address'
        assert time.monotonic() < end, 'the head recorded no address'
        time.sleep(0.05)
    try:
        yield RayHead(f'127.0.0.1:{port}', base)
    finally:
        head.send_signal(signal.SIGTERM)  # --block: it stops the processes it started
        try:
            head.wait(timeout=120)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()
        shutil.rmtree(base, ignore_errors=True)


def dataset_files(out: Path) -> dict[str, bytes]:
    """Every file of a dataset folder but ``run.json``, by relative path."""
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(out.rglob('*'))
        if p.is_file() and p.name != 'run.json'
    }
