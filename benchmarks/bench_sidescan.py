"""Pings per second of a side-scan against Open3D's ``cast_rays`` alone, in one run (issue 19).

The configuration: 2 x 2000 slant-range bins to 75 m (``min_range`` 0), 400 kHz, 1 degree
along track, 50 degrees across track tilted 20 degrees down, the converged ray count of the
default ``SidescanConfig`` (3 columns, 1 row per bin between 2 and 30 m of altitude:
``docs/sidescan.md``), towed 10 m above a seeded smooth random seabed heightfield of 199,712
triangles (317 x 317 vertices, 200 m square, +-1.5 m of relief) with a box and a lying
cylinder.

It prints the median time of:

* ``open3d``: ``RaycastingScene.cast_rays`` on the same rays, a prebuilt scene of the same
  triangles and a prebuilt float32 ray tensor (the baseline);
* ``cast``: ``Raycaster.cast`` (the baseline plus incidence and reflectivity; the entities
  are looked up only when read);
* ``echo``: ``EchoModel.echoes`` alone on the rays and their footprints (``docs/sidescan.md``);
* ``ping``: ``SidescanSonar.ping`` (cast, footprints, echo model of both channels);
* ``ground``: ``ground_range_profiles`` of the ping;

then pings/s of the ping and the ratio ``ping / open3d``. Targets: at least 20 pings/s on 2
cores and a ratio of at most 1.5. Times depend on the machine and its load; the ratio is the
result. Run: ``scripts/run python benchmarks/bench_sidescan.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from raw_cast import open3d_rays, world_scene
from seabeds import relief_triangles
from timing import median_times

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig
from nps_sonar_py.scene import Entity, EntityState, Raycaster, SceneState, World
from nps_sonar_py.scene.tessellation import box_triangles, cylinder_triangles
from nps_sonar_py.sensing.sidescan import SidescanConfig, SidescanSonar
from nps_sonar_py.sensing.waterfall import ground_range_profiles
from nps_sonar_py.transforms import transform_from_xyz_rpy

SEED = 19


def sidescan_world() -> World:
    """The seabed, a box to port and a cylinder lying to starboard."""
    rng = np.random.default_rng(SEED)
    entities = [
        Entity('seabed', relief_triangles(rng, 100.0), 0.1),
        Entity('box', box_triangles([2.0, 1.0, 1.0]), 0.5),
        Entity('pipe', cylinder_triangles(0.5, 6.0, 64), 0.5),
    ]
    states = [
        EntityState('seabed'),
        EntityState('box', origin=transform_from_xyz_rpy((0.0, 25.0, 1.5), (0.0, 0.0, 0.3))),
        EntityState(
            'pipe', origin=transform_from_xyz_rpy((0.0, -30.0, 1.5), (math.pi / 2, 0.0, 0.2))
        ),
    ]
    name = 'sidescan_bench'
    return World(name, tuple(entities), SceneState(name, 0.0, tuple(states)))


def sidescan() -> SidescanSonar:
    """The 2 x 2000-bin side-scan at 75 m, 10 m above the seabed, level."""
    echo = EchoConfig(
        pattern=BeamPattern.PISTON,
        min_range=0.0,
        max_range=75.0,
        n_bins=2000,
        frequency=400e3,
        absorption=Absorption.AUTO,
    )
    return SidescanSonar(echo, SidescanConfig(), transform_from_xyz_rpy([0, 0, 10.0], [0, 0, 0]))


def main() -> int:
    """Print the stage times of one side-scan ping, its rate and its ratio to Open3D alone."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=30)
    options = parser.parse_args()

    world = sidescan_world()
    raycaster = Raycaster(world)
    scene = world_scene(world)
    sonar = sidescan()
    n_rays = sonar.directions.shape[0]
    rays = open3d_rays(sonar.origin, sonar.directions)
    triangles = sum(len(e.surface) for e in world.entities)
    ping = sonar.ping(raycaster)
    returned = (ping.hits > 0).mean()
    hits = raycaster.cast(sonar.origin, sonar.directions)
    r = np.asarray(hits.ranges).reshape(2, -1)
    cos = np.asarray(hits.cos_incidence).reshape(2, -1)
    mu = np.asarray(hits.reflectivity).reshape(2, -1)
    spread = sonar._footprint(r, cos).copy()

    t = median_times(
        {
            'open3d': lambda: scene.cast_rays(rays),
            'cast': lambda: raycaster.cast(sonar.origin, sonar.directions),
            'echo': lambda: sonar.model.echoes(r, cos, mu, spread=spread),
            'ping': lambda: sonar.ping(raycaster),
            'ground': lambda: ground_range_profiles(ping.profiles, ping.bin_edges, ping.altitude),
        },
        options.repeat,
    )
    t_o3d, t_cast, t_ping, t_ground = t['open3d'], t['cast'], t['ping'], t['ground']
    t_echo = t['echo']
    print(
        f'side-scan: 2 channels x {sonar.rays_per_channel} rays '
        f'({sonar.config.rays_along} columns x {sonar.rays_per_channel // sonar.config.rays_along}'
        f' rows) = {n_rays} rays, 2 x {sonar.echo.n_bins} bins to {sonar.echo.max_range:g} m, '
        f'{triangles} triangles, altitude {ping.altitude:.2f} m, {returned:.0%} of the bins lit'
    )
    names = ('open3d', 'cast', 'echo', 'ping', 'ground')
    print(' '.join(f'{name:>9}' for name in names), f'{"pings/s":>8} {"ping/o3d":>9}')
    times = (t_o3d, t_cast, t_echo, t_ping, t_ground)
    print(
        ' '.join(f'{1e3 * v:>7.2f}ms' for v in times),
        f'{1.0 / t_ping:>8.1f} {t_ping / t_o3d:>9.2f}',
    )
    return 0


if __name__ == '__main__':
    sys.exit(main())
