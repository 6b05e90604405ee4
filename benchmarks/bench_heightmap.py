"""What loading a seabed heightmap costs: time and memory from file to a raycaster, by size.

For bathymetries of 2.5e5, 1e6 and 4e6 cells (square grids of 501^2, 1001^2 and 2001^2
samples, 400 m across, a smooth seabed with ripples) stored as ``.npy`` float64 and, at 1e6
cells, as a 16-bit PNG, it loads each in a fresh Python process (so that peak memory is that
of the one load) and prints a table:

* ``load``: ``load_world`` of a scene file holding the heightmap: reading and checking the
  file, the tessellation into ``2 (R-1) (C-1)`` triangles and the entity (median of repeats);
* ``BVH``: ``Raycaster(world)``, which copies the triangles to Open3D (float32) and builds
  Embree's BVH with one cast (median);
* ``peak RSS, load`` and ``peak RSS, + BVH``: the process's peak resident memory
  (``ru_maxrss``) after the first load and after its BVH, less that after the imports:
  everything (numpy's arrays, then Open3D's copies and Embree's BVH too), in MiB.
  (tracemalloc is not used: it counts the 256 MiB buffer ``xml_input.read_file`` asks
  for when it reads a file with a cap, which the OS never maps for a small file.)

Each child also casts one ray straight down at a sample and checks the range against that
sample's height, so a broken load cannot pass for a fast one. Times depend on the machine.
Run: ``python benchmarks/bench_heightmap.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: (cells, format) of each row: grid side n + 1 samples for n^2 cells.
CASES = ((250_000, 'npy'), (1_000_000, 'npy'), (1_000_000, 'png'), (4_000_000, 'npy'))
SIZE = 400.0  # metres across
DEPTH = -30.0  # pos_z
RANGE = 12.0  # height range of the PNG (size_z)


def bathymetry(samples: int) -> np.ndarray:
    """A seabed in metres above ``DEPTH``: a broad slope, a mound and sand ripples."""
    u = np.linspace(-1.0, 1.0, samples)
    x, y = u[np.newaxis, :], u[:, np.newaxis]
    mound = 4.0 * np.exp(-((x - 0.3) ** 2 + (y + 0.2) ** 2) / 0.05)
    return 3.0 + 2.0 * x + mound + 0.3 * np.sin(60.0 * x + 20.0 * y)


def write_case(directory: Path, cells: int, fmt: str) -> Path:
    """Write the heightmap and its scene file; return the scene file."""
    samples = round(np.sqrt(cells)) + 1
    h = bathymetry(samples)
    if fmt == 'npy':
        np.save(directory / 'bed.npy', h)
        element = f'<heightmap file="bed.npy" size="{SIZE} {SIZE}" pos="0 0 {DEPTH}"/>'
    else:
        from PIL import Image

        pixels = np.round((h - h.min()) / (h.max() - h.min()) * 65535).astype(np.uint16)
        Image.fromarray(pixels).save(directory / 'bed.png')
        element = f'<heightmap file="bed.png" size="{SIZE} {SIZE} {RANGE}" pos="0 0 {DEPTH}"/>'
    scene = directory / 'seabed.world'
    scene.write_text(f'<world name="w"><model name="seabed">{element}</model></world>\n')
    return scene


def max_rss_mb() -> float:
    """Peak resident memory of this process so far, MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def child(scene: Path, repeat: int) -> dict[str, float]:
    """Load ``scene`` ``repeat`` times in this process; times, memory and a check."""
    from nps_sonar_py.scene import Raycaster, load_world

    rss0 = max_rss_mb()
    loads, builds = [], []
    rss_load = rss_bvh = 0.0
    for _ in range(repeat):
        t0 = time.perf_counter()
        world = load_world(scene)
        t1 = time.perf_counter()
        rss_load = rss_load or max_rss_mb() - rss0
        caster = Raycaster(world)
        t2 = time.perf_counter()
        rss_bvh = rss_bvh or max_rss_mb() - rss0
        loads.append(t1 - t0)
        builds.append(t2 - t1)
        surface = world.entities[0].surface
        # a sample in the middle of the grid: a vertex, so its height is exact
        v = surface.vertices[len(surface.vertices) // 2 + 7]
        hits = caster.cast([v[0], v[1], 0.0], [[0.0, 0.0, -1.0]])
        if not abs(hits.ranges[0] + v[2]) < 1e-3:
            msg = f'ray at {v[:2]} hit at {-hits.ranges[0]} m, the sample is at {v[2]} m'
            raise AssertionError(msg)
        del world, caster
    return {
        'triangles': float(len(surface)),
        'load': statistics.median(loads),
        'bvh': statistics.median(builds),
        'rss_load': rss_load,
        'rss_bvh': rss_bvh,
        'file_mb': sum(p.stat().st_size for p in scene.parent.glob('bed.*')) / 2**20,
    }


def main() -> None:
    """Run each case in a child process and print the table (or be that child)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=3, help='loads per size (median)')
    parser.add_argument('--child', type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        import open3d  # noqa: F401  (imported before the baseline, as a node would have)

        print(json.dumps(child(args.child, args.repeat)))
        return
    print(f'heightmap load, {SIZE:g} m square, median of {args.repeat}')
    print(
        '| cells | samples | triangles | file | file MB | load s | BVH s | load + BVH s'
        ' | peak RSS, load | peak RSS, + BVH |'
    )
    print('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    for cells, fmt in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            scene = write_case(Path(tmp), cells, fmt)
            out = subprocess.run(
                [sys.executable, __file__, '--child', str(scene), '--repeat', str(args.repeat)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        r = json.loads(out.strip().splitlines()[-1])
        side = round(np.sqrt(cells)) + 1
        print(
            f'| {cells:.3g} | {side}^2 | {r["triangles"]:.3g} | {fmt} | {r["file_mb"]:.1f}'
            f' | {r["load"]:.2f} | {r["bvh"]:.2f} | {r["load"] + r["bvh"]:.2f}'
            f' | {r["rss_load"]:.0f} | {r["rss_bvh"]:.0f} |',
            flush=True,
        )


if __name__ == '__main__':
    main()
