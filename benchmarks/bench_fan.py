"""Pings per second of a heavy multibeam fan against Open3D's ``cast_rays`` alone, in one run.

The configuration (issue 10; DAVE's heaviest multibeam): 512 beams across 130 degrees, each
beam 114 rays = ``rays_horizontal`` 3 columns across its 1 degree -3 dB width times
``rays_vertical`` 38 rows across its 20 degree vertical width (58,368 rays per ping),
0.5 to 60 m in 1000 range bins, over a seeded smooth random seabed heightfield of 199,712
triangles (317 x 317 vertices, 160 m square, +-1.5 m of relief) with boxes and cylinders on it.
The sonar is 10 m above the seabed, pitched 20 degrees down, so that its rays meet the seabed
from 20 m to 58 m.

It prints the median time of:

* ``open3d``: ``RaycastingScene.cast_rays`` on the same rays, a prebuilt scene of the same
  triangles and a prebuilt float32 ray tensor (the baseline);
* ``cast``: ``Raycaster.cast`` (the baseline plus incidence and reflectivity; the entities
  are looked up only when read);
* ``echo``: ``EchoModel.echoes`` on those hits, all beams in one pass;
* ``ping``: ``MultibeamSonar.ping`` (cast and echo) and the arrays of the ``MultibeamPing``
  message (``ros.conversions.multibeam_message`` when rclpy's messages import, else its
  ``array.array`` fields built the same way), as the node does per timer tick;

then pings/s of the whole ping and the ratio ``ping / open3d``. Targets: at least 30 pings/s
on 2 cores and a ratio of at most 2. Times depend on the machine and its load; the ratio is
the result. Run: ``scripts/run python benchmarks/bench_fan.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import math
import sys
from array import array
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from raw_cast import open3d_rays, world_scene
from seabeds import relief_triangles
from timing import median_times

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig
from nps_sonar_py.ros.heap import keep_heap
from nps_sonar_py.scene import Entity, EntityState, Raycaster, SceneState, World
from nps_sonar_py.scene.tessellation import box_triangles, cylinder_triangles
from nps_sonar_py.sensing.multibeam import FanConfig, FanPing, MultibeamSonar
from nps_sonar_py.transforms import transform_from_xyz_rpy

SEED = 10
BEAMS, RAYS_HORIZONTAL, RAYS_VERTICAL = 512, 3, 38


def fan_world() -> World:
    """The seabed and six objects in the fan's footprint."""
    rng = np.random.default_rng(SEED)
    entities = [Entity('seabed', relief_triangles(rng, 80.0), 0.1)]
    states = [EntityState('seabed')]
    objects = [
        ('box_a', box_triangles([2.0, 1.0, 1.0]), (25.0, -6.0, 0.5)),
        ('box_b', box_triangles([4.0, 2.0, 2.0]), (40.0, 10.0, 1.0)),
        ('box_c', box_triangles([1.0, 1.0, 3.0]), (32.0, 0.0, 1.5)),
        ('pipe', cylinder_triangles(0.5, 20.0, 64), (45.0, -15.0, 0.5)),
        ('post', cylinder_triangles(0.3, 4.0, 64), (28.0, 12.0, 2.0)),
        ('drum', cylinder_triangles(1.0, 1.5, 64), (50.0, 3.0, 0.75)),
    ]
    for name, surface, xyz in objects:
        entities.append(Entity(name, surface, 0.5))
        rpy = (math.pi / 2, 0.0, 0.3) if name == 'pipe' else (0.0, 0.0, 0.4)
        states.append(EntityState(name, origin=transform_from_xyz_rpy(xyz, rpy)))
    return World('fan_bench', tuple(entities), SceneState('fan_bench', 0.0, tuple(states)))


def fan_sonar() -> MultibeamSonar:
    """The 512 x 114-ray fan at 60 m, 1000 bins, 10 m above the seabed, pitched 20 deg down."""
    echo = EchoConfig(
        beam_width=math.radians(1.0),
        pattern=BeamPattern.PISTON,
        min_range=0.5,
        max_range=60.0,
        n_bins=1000,
        frequency=750e3,
        absorption=Absorption.AUTO,
    )
    fan = FanConfig(
        beams=BEAMS,
        min_angle=math.radians(-65.0),
        max_angle=math.radians(65.0),
        vertical_width=math.radians(20.0),
        rays_horizontal=RAYS_HORIZONTAL,
        rays_vertical=RAYS_VERTICAL,
    )
    pose = transform_from_xyz_rpy([0.0, 0.0, 10.0], [0.0, math.radians(20.0), 0.0])
    return MultibeamSonar(echo, fan, pose)


def message_maker(sonar: MultibeamSonar) -> tuple[str, Callable[[FanPing], object]]:
    """The node's ``MultibeamPing`` builder, or its array fields alone without rclpy."""
    try:
        from builtin_interfaces.msg import Time

        from nps_sonar_py.ros.conversions import multibeam_message
    except ImportError:

        def arrays(ping: FanPing) -> object:
            f32 = np.float32
            return [
                array('f', np.ascontiguousarray(values, dtype=f32).tobytes())
                for values in (ping.azimuths, ping.ranges, ping.totals, ping.confidence)
            ] + [
                array('f', np.ascontiguousarray(ping.profiles, dtype=f32).tobytes()),
                array('I', np.ascontiguousarray(ping.hits, dtype=np.uint32).tobytes()),
            ]

        return 'array fields of MultibeamPing (no rclpy)', arrays
    stamp = Time(sec=1, nanosec=0)

    def message(ping: FanPing) -> object:
        return multibeam_message(
            ping,
            sonar.echo,
            vertical_beam_width=sonar.fan.vertical_width,
            stamp=stamp,
            frame_id='sonar',
        )

    return 'MultibeamPing (ros.conversions.multibeam_message)', message


def main() -> int:
    """Print the stage times of one fan ping, its rate and its ratio to Open3D alone."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=30)
    options = parser.parse_args()
    keep_heap()  # as the nodes do (ros/startup.run_node): no page faults per ping

    world = fan_world()
    raycaster = Raycaster(world)
    scene = world_scene(world)
    sonar = fan_sonar()
    n_rays = sonar.directions.shape[0]
    rays = open3d_rays(sonar.origin, sonar.directions)
    triangles = sum(len(e.surface) for e in world.entities)
    kind, message = message_maker(sonar)

    hits = raycaster.cast(sonar.origin, sonar.directions)
    shape = (BEAMS, sonar.rays_per_beam)
    r, cos = hits.ranges.reshape(shape), hits.cos_incidence.reshape(shape)
    mu = hits.reflectivity.reshape(shape)
    returned = np.isfinite(hits.ranges) & (hits.ranges <= sonar.echo.max_range)

    def whole() -> None:
        message(sonar.ping(raycaster))

    t = median_times(
        {
            'open3d': lambda: scene.cast_rays(rays),
            'cast': lambda: raycaster.cast(sonar.origin, sonar.directions),
            'echo': lambda: sonar.model.echoes(r, cos, mu),
            'ping': whole,
        },
        options.repeat,
    )
    t_o3d, t_cast, t_echo, t_ping = t['open3d'], t['cast'], t['echo'], t['ping']
    print(
        f'fan: {BEAMS} beams x {sonar.rays_per_beam} rays ({RAYS_HORIZONTAL} x {RAYS_VERTICAL}) '
        f'= {n_rays} rays, {sonar.echo.n_bins} bins to {sonar.echo.max_range:g} m, '
        f'{triangles} triangles, {returned.mean():.0%} of the rays return in range; '
        f'messages: {kind}'
    )
    print(f'{"open3d":>9} {"cast":>9} {"echo":>9} {"ping":>9} {"pings/s":>8} {"ping/o3d":>9}')
    print(
        f'{t_o3d * 1e3:>7.2f}ms {t_cast * 1e3:>7.2f}ms {t_echo * 1e3:>7.2f}ms '
        f'{t_ping * 1e3:>7.2f}ms {1.0 / t_ping:>8.1f} {t_ping / t_o3d:>9.2f}'
    )
    return 0


if __name__ == '__main__':
    sys.exit(main())
