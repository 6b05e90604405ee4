"""What moving an entity costs, against rebuilding the whole raycasting scene, in one run.

For worlds of about 1e5 and 1e6 triangles (a static seabed grid plus moving entities), it
prints the median wall time of each step below and its ratio to ``rebuild all``. A cycle
casts 1e5 rays (a 40 degree cone looking down at the seabed and the target).

* ``rebuild all``: one RaycastingScene of every triangle at its new pose and the cast that
  builds its BVH (the naive update: Open3D can neither move nor remove triangles).
* ``new Raycaster``: this package's full build (static scene + one scene per mover) and a cast.
* ``update (ours)``: ``Raycaster.set_time``, which poses every mover: the update itself.
* ``update + cast``: ``set_time`` and ``Raycaster.cast`` (RayHits with reflectivity): a cycle.
* ``cast only``: ``Raycaster.cast`` with nothing moved.
* ``alt: movers``: the other design, a static scene built once plus one scene of the moving
  triangles in world coordinates rebuilt every cycle, with both raw casts (no RayHits).
* ``raw one-scene``: Open3D's cast alone on a prebuilt scene of everything (the floor).

Two mover sizes: the reference target (a 256-triangle cylinder) alone, and with a moving
hull holding 10 % of the triangles. Times depend on the machine; the ratios are the result.
Run: ``python benchmarks/bench_scene_update.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import open3d as o3d  # the benchmark builds the naive baselines itself

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from raw_cast import open3d_rays, open3d_scene, world_scene

from nps_sonar_py.scene import Entity, EntityState, Raycaster, SceneState, Triangles, World
from nps_sonar_py.scene.tessellation import cylinder_triangles
from nps_sonar_py.sensing import cone_pattern
from nps_sonar_py.transforms import transform_from_xyz_rpy

N_RAYS = 100_000


def grid(triangles: int, size: float, rng: np.random.Generator) -> Triangles:
    """Make a bumpy square heightfield, ``size`` metres wide, centred.

    It has about ``triangles`` triangles.
    """
    m = max(2, round(np.sqrt(triangles / 2.0)) + 1)
    x, y = np.meshgrid(
        np.linspace(-size / 2, size / 2, m), np.linspace(-size / 2, size / 2, m), indexing='ij'
    )
    z = 0.05 * rng.standard_normal(x.shape)
    vertices = np.column_stack((x.ravel(), y.ravel(), z.ravel()))
    i, j = np.meshgrid(np.arange(m - 1), np.arange(m - 1), indexing='ij')
    a = (i * m + j).ravel()
    b, c, d = a + m, a + m + 1, a + 1
    return Triangles(
        vertices, np.concatenate((np.column_stack((a, b, c)), np.column_stack((a, c, d))))
    )


def make_world(total: int, mover_fraction: float, rng: np.random.Generator) -> World:
    """Make a static seabed, a moving target cylinder and optionally a large moving grid."""
    target = cylinder_triangles(0.25, 1.0, 64)
    big = int(total * mover_fraction)
    seabed = grid(total - len(target) - big, 40.0, rng)
    entities = [Entity('seabed', seabed, 0.1), Entity('target', target, 1.0)]
    states = [
        EntityState('seabed'),
        EntityState(
            'target',
            origin=transform_from_xyz_rpy([0, 0, 1], [0, 0, 0]),
            linear=np.array([0.1, 0, 0]),
            angular=np.array([0, 0, 0.2]),
        ),
    ]
    if big:
        entities.append(Entity('hull', grid(big, 4.0, rng), 0.5))
        states.append(
            EntityState(
                'hull',
                origin=transform_from_xyz_rpy([2, 0, 2], [0.3, 0, 0]),
                linear=np.array([0, 0.1, 0]),
                angular=np.array([0, 0, 0.1]),
            )
        )
    return World('bench', tuple(entities), SceneState('bench', 0.0, tuple(states)))


def rays() -> tuple[np.ndarray, np.ndarray]:
    """1e5 rays from 6 m above the seabed, in a 40 degree half-angle cone looking down."""
    pattern = cone_pattern(np.radians(40.0), N_RAYS)
    down = pattern.directions @ np.array(
        [[0, 0, -1], [0, 1, 0], [1, 0, 0]], dtype=np.float64
    )  # body +x -> -z
    return np.array([0.0, 0.0, 6.0]), down


def median_time(step: Callable[[int], object], repeat: int) -> float:
    """Return the median wall time (s) of ``step(k)`` for k = 1..repeat, after one warm-up."""
    step(0)  # warm up
    times = []
    for k in range(1, repeat + 1):
        start = time.perf_counter()
        step(k)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench(total: int, mover_fraction: float, repeat: int) -> dict[str, float]:
    """Time every way to the next cycle's hits for one world; seconds by name."""
    world = make_world(total, mover_fraction, np.random.default_rng(7))
    origin, directions = rays()
    o3d_rays = open3d_rays(origin, directions)
    moving = world.moving()
    caster = Raycaster(world)
    static = open3d_scene(
        [e.surface for e, m in zip(world.entities, moving, strict=True) if not m]
    )

    def rebuild_all(k: int) -> object:
        poses = world.poses(0.1 * k)
        return open3d_scene(
            [e.surface.transformed(p) for e, p in zip(world.entities, poses, strict=True)]
        ).cast_rays(o3d_rays)

    def new_raycaster(k: int) -> object:
        return Raycaster(world, time=0.1 * k).cast(origin, directions)

    def rebuild_movers(k: int) -> object:
        poses = world.poses(0.1 * k)
        movers = open3d_scene(
            [
                e.surface.transformed(p)
                for e, p, m in zip(world.entities, poses, moving, strict=True)
                if m
            ]
        )
        return static.cast_rays(o3d_rays), movers.cast_rays(o3d_rays)

    def update(k: int) -> object:
        caster.set_time(0.1 * k)
        return None

    def update_and_cast(k: int) -> object:
        caster.set_time(0.1 * k)
        return caster.cast(origin, directions)

    def cast_only(k: int) -> object:
        return caster.cast(origin, directions)

    one_scene = world_scene(world)

    def raw_one_scene(k: int) -> object:
        return one_scene.cast_rays(o3d_rays)

    steps = {
        'rebuild all': rebuild_all,
        'new Raycaster': new_raycaster,
        'update (ours)': update,
        'update + cast': update_and_cast,
        'cast only': cast_only,
        'alt: movers': rebuild_movers,
        'raw one-scene': raw_one_scene,
    }
    return {name: median_time(step, repeat) for name, step in steps.items()}


def main() -> None:
    """Print the table for 1e5 and 1e6 triangles."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        '--repeat', type=int, default=5, help='timed repetitions per figure (median)'
    )
    args = parser.parse_args()
    print(f'open3d {o3d.__version__}, {N_RAYS:.0e} rays per cycle, median of {args.repeat} runs')
    for total in (100_000, 1_000_000):
        for fraction, mover in (
            (0.0, '256-triangle target'),
            (0.1, 'target + hull of 10 % of triangles'),
        ):
            times = bench(total, fraction, args.repeat)
            base = times['rebuild all']
            print(f'\n{total:.0e} triangles, moving: {mover}')
            for name, seconds in times.items():
                print(
                    f'  {name:<15} {seconds * 1e3:10.3f} ms   {seconds / base:8.5f} x rebuild all'
                )


if __name__ == '__main__':
    main()
