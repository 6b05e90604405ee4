"""What bending the rays costs: a 512-beam echosounder fan cast refracted against straight.

A fan of 512 rays across track, -60 to +60 deg from nadir, from 5 m below the surface over a
rippled seabed (a heightmap, about 200 m deep, 1000 m across), under a 20-layer profile
(a thermocline: 1520 m/s at the surface to 1480 m/s, then rising with pressure). It times
``RefractingCaster.cast`` against the inner ``Raycaster.cast`` of the same rays, interleaved
in one run (``timing.median_times``), and prints the ratio (the target of issue 20: at most
3). It also prints the chords cast per ray and checks that the refracted hits are all on the
seabed, so that a broken cast cannot pass for a fast one. Times depend on the machine.
The fan lies 3.7 m along track (``--along-track``), off the ripple's level line at ``x = 0``:
there the seabed is level across track and the hits would skip the step that moves them from
their chord onto the arc (for a plane that is not level), which a real seabed always needs.
``--turn M`` turns the heading by M mrad every other ping (the chords turned to the rays are
then made every ping).
Run: ``python benchmarks/bench_refraction.py [--repeat N] [--rays-per-beam K] [--along-track X]
[--turn M]``.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import median_times

from nps_sonar_py.echo.sound_speed import SoundSpeedProfile
from nps_sonar_py.scene.heightmap import heightmap_triangles
from nps_sonar_py.scene.raycaster import Raycaster
from nps_sonar_py.scene.scene_state import SceneState
from nps_sonar_py.scene.world import Entity, World
from nps_sonar_py.sensing.refraction import RefractingCaster, scene_bounds

DEPTH = 200.0
SOURCE_DEPTH = 5.0


def profile_20() -> SoundSpeedProfile:
    """20 rows to 1000 m: a surface layer, a thermocline, then the pressure gradient."""
    depths = np.array(
        [0, 5, 10, 20, 30, 40, 50, 60, 70, 80, 100, 120, 150, 180, 220, 260, 300, 400, 600, 1000],
        dtype=np.float64,
    )
    thermo = 1480.0 + 40.0 / (1.0 + np.exp((depths - 50.0) / 12.0))
    speeds = thermo + 0.017 * depths
    return SoundSpeedProfile.from_rows(list(zip(depths, speeds, strict=True)), source='bench')


def seabed() -> Raycaster:
    """A rippled seabed about DEPTH m below the surface, 1000 m across."""
    n = 401
    x = np.linspace(-500.0, 500.0, n)
    xx, yy = np.meshgrid(x, x)
    heights = -DEPTH + 2.0 * np.sin(xx / 17.0) * np.cos(yy / 23.0)
    triangles = heightmap_triangles(heights, (1000.0, 1000.0))
    world = World('bench', (Entity('seabed', triangles),), SceneState('bench', 0.0, ()))
    return Raycaster(world)


def main() -> None:
    """Time both casts of the fan and print the ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--repeat', type=int, default=30)
    parser.add_argument('--rays-per-beam', type=int, default=1)
    parser.add_argument(
        '--along-track',
        type=float,
        default=3.7,
        help='m: 3.7 (the default) is off the level line of the ripple, every hit takes the step '
        'onto the arc; at x = 0 the ripple is level across track and none does',
    )
    parser.add_argument(
        '--turn',
        type=float,
        default=0.0,
        help='mrad: the refracted casts alternate between headings this far apart (a heading '
        'that changes every ping: the chords turned to the rays are not kept); 0: none',
    )
    args = parser.parse_args()
    beams = 512
    angle = np.repeat(np.linspace(-math.pi / 3.0, math.pi / 3.0, beams), args.rays_per_beam)
    angle = angle + np.random.default_rng(1).normal(0.0, 1e-3, angle.size)
    directions = np.stack([np.zeros_like(angle), np.sin(angle), -np.cos(angle)], axis=1)
    origin = np.array([args.along_track, 0.0, -SOURCE_DEPTH])
    origins = np.broadcast_to(origin, directions.shape)
    yaw = args.turn * 1e-3
    turn = np.array(
        [[math.cos(yaw), -math.sin(yaw), 0.0], [math.sin(yaw), math.cos(yaw), 0.0], [0, 0, 1]]
    )
    turned = directions @ turn.T
    turned[:, 2] = directions[:, 2]  # a turn keeps the sines exactly
    fans = [directions, turned]
    pings = [0]

    def refracted_ping() -> object:
        pings[0] += 1
        return refracting.cast(origin, fans[pings[0] % 2])

    straight = seabed()
    refracting = RefractingCaster(
        straight, profile_20(), surface_z=0.0, bounds=scene_bounds(straight)
    )
    hits = refracting.cast(origin, directions)
    if not np.all(hits.entity == 0):
        raise SystemExit('refracted rays missed the seabed')
    chords = refracting.last_chord_count
    times = median_times(
        {
            'straight': lambda: straight.cast(origins, directions),
            'refracted': refracted_ping,
        },
        args.repeat,
    )
    print(f'{directions.shape[0]} rays, 20-layer profile, seabed at {DEPTH:g} m')
    print(f'chords cast per ray: {chords / directions.shape[0]:.1f}')
    print(f'straight cast:  {times["straight"] * 1e3:8.3f} ms')
    print(f'refracted cast: {times["refracted"] * 1e3:8.3f} ms')
    print(
        f'ratio refracted / straight: {times["refracted"] / times["straight"]:.2f} (target <= 3)'
    )


if __name__ == '__main__':
    main()
