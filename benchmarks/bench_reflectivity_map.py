"""What a seabed reflectivity map costs at cast time, against the same seabed without one.

A 2e5-triangle heightmap seabed (317 x 317 samples, 160 m square, a smooth random relief)
loaded from a scene file with and without a 1024 x 1024 16-bit reflectivity map; 1e5 rays
in a 60 degree cone looking down from 20 m. Medians of interleaved runs; ratios to Open3D's
``cast_rays`` alone on the same rays and scene:

* ``open3d``: the raw cast;
* ``no map``: ``Raycaster.cast`` on the seabed without a map (RayHits, reflectivity per triangle);
* ``map``: the same with the map (UV interpolation and bilinear sampling at every hit).

Run: ``python benchmarks/bench_reflectivity_map.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image
from scipy.ndimage import gaussian_filter

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from raw_cast import open3d_rays, open3d_scene
from seabeds import GRID, random_relief
from timing import median_times

from nps_sonar_py.scene import Raycaster, load_world

MAP, RAYS, SEED = 1024, 100_000, 3


def _world(directory: Path, *, mapped: bool) -> Path:
    rng = np.random.default_rng(SEED)
    np.save(directory / 'bed.npy', random_relief(rng, GRID))
    grey = gaussian_filter(rng.standard_normal((MAP, MAP)), sigma=20.0)
    grey = (grey - grey.min()) / (grey.max() - grey.min())
    Image.fromarray((grey * 65535).astype(np.uint16)).save(directory / 'mu.png')
    attribute = 'reflectivity_map="mu.png"' if mapped else ''
    path = directory / ('mapped.world' if mapped else 'plain.world')
    path.write_text(
        '<world name="w"><model name="seabed" retro="40">'
        f'<heightmap file="bed.npy" size="160 160" pos="0 0 -20" {attribute}/>'
        '</model></world>'
    )
    return path


def _rays() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    polar = np.arccos(1.0 - rng.uniform(0.0, 1.0 - np.cos(np.radians(30.0)), RAYS))
    azimuth = rng.uniform(0.0, 2.0 * np.pi, RAYS)
    d = np.column_stack(
        (np.sin(polar) * np.cos(azimuth), np.sin(polar) * np.sin(azimuth), -np.cos(polar))
    )
    d.flags.writeable = False
    return np.zeros((1, 3)), d


def main() -> None:
    """Build both seabeds and Open3D's scene, check they agree, print the timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        plain = Raycaster(load_world(_world(Path(tmp), mapped=False)))
        mapped = Raycaster(load_world(_world(Path(tmp), mapped=True)))
        surface = load_world(Path(tmp) / 'plain.world').entities[0].surface
    scene = open3d_scene([surface])
    origins, directions = _rays()
    tensor = open3d_rays(origins, directions)
    a, b = plain.cast(origins, directions), mapped.cast(origins, directions)
    assert np.array_equal(a.ranges, b.ranges)
    assert np.all(a.hit)
    times = median_times(
        {
            'open3d': lambda: scene.cast_rays(tensor),
            'no map': lambda: plain.cast(origins, directions),
            'map': lambda: mapped.cast(origins, directions),
        },
        args.repeat,
    )
    print(f'{len(surface)} triangles, {RAYS} rays, {MAP} x {MAP} map, median of {args.repeat}')
    base = times['open3d']
    for name, seconds in times.items():
        print(f'{name:>8}: {seconds * 1e3:7.2f} ms  {seconds / base:5.2f} x open3d')
    print(f'map / no map: {times["map"] / times["no map"]:.2f}')


if __name__ == '__main__':
    main()
