"""What bending the rays costs: an echosounder's rays cast refracted against Open3D's cast.

Two fans across track, -60 to +60 deg from nadir, from 5 m below the surface over a rippled
seabed (a heightmap, about 200 m deep, 1000 m across), under a 20-layer profile (a
thermocline: 1520 m/s at the surface to 1480 m/s, then rising with pressure):

* ``single rays``: 512 rays, one per beam, where the fixed costs of a cast weigh most;
* ``swath``: 512 beams of 5 x 5 rays (12,800 rays), an echosounder's ping
  (``sensing/echosounder.py``: beams of ``rays_across x rays_along``, 1 degree wide).

Each times ``RefractingCaster.cast`` against the inner ``Raycaster.cast`` (Open3D's cast) of
the same rays, the two interleaved (``timing.median_times``), both fans in one run, and
prints both ratios (the target of issue 20: at most 3, with margin). It also prints the
chords cast per ray and checks that the refracted hits are all on the seabed, so that a
broken cast cannot pass for a fast one. Times depend on the machine; the ratios are the
result. The fans lie 3.7 m along track (``--along-track``), off the ripple's level line at
``x = 0``: there the seabed is level across track and the hits would skip the step that
moves them from their chord onto the arc (for a plane that is not level), which a real
seabed always needs. ``--turn M`` turns the heading by M mrad every other ping (the chords
turned to the rays are then made every ping).
Run: ``python benchmarks/bench_refraction.py [--repeat N] [--along-track X] [--turn M]``.
"""

from __future__ import annotations

import argparse
import math
import sys
from functools import partial
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


def fan(beams: int, across: int, along: int) -> np.ndarray:
    """(beams * across * along, 3) unit directions: beams -60..60 deg, 1 degree wide each."""
    width = math.radians(1.0)
    centres = np.linspace(-math.pi / 3.0, math.pi / 3.0, beams)
    offsets = (np.arange(across) + 0.5) / across - 0.5
    phi = (centres[:, None] + width * offsets[None, :]).repeat(along, axis=1).ravel()
    psi = np.tile(width * ((np.arange(along) + 0.5) / along - 0.5), beams * across)
    phi = phi + np.random.default_rng(1).normal(0.0, 1e-3, phi.size)
    return np.stack([np.sin(psi), np.cos(psi) * np.sin(phi), -np.cos(psi) * np.cos(phi)], axis=1)


def main() -> None:
    """Time both casts of both fans and print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=30)
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
    origin = np.array([args.along_track, 0.0, -SOURCE_DEPTH])
    yaw = args.turn * 1e-3
    turn = np.array(
        [[math.cos(yaw), -math.sin(yaw), 0.0], [math.sin(yaw), math.cos(yaw), 0.0], [0, 0, 1]]
    )
    straight = seabed()
    fans = {'single rays': fan(512, 1, 1), 'swath': fan(512, 5, 5)}
    times: dict[str, dict[str, float]] = {}
    chords: dict[str, float] = {}
    for name, directions in fans.items():
        turned = directions @ turn.T
        turned[:, 2] = directions[:, 2]  # a turn keeps the sines exactly
        refracting = RefractingCaster(
            straight, profile_20(), surface_z=0.0, bounds=scene_bounds(straight)
        )
        hits = refracting.cast(origin, directions)
        if not np.all(hits.entity == 0):
            raise SystemExit(f'{name}: refracted rays missed the seabed')
        chords[name] = refracting.last_chord_count / directions.shape[0]
        origins = np.broadcast_to(origin, directions.shape)
        pings = [0]

        def refracted_ping(
            caster: RefractingCaster = refracting,
            headings: tuple[np.ndarray, np.ndarray] = (directions, turned),
            count: list[int] = pings,
        ) -> object:
            count[0] += 1
            return caster.cast(origin, headings[count[0] % 2])

        # each fan's two casts interleaved (the other fan's casts would flush the caches)
        times[name] = median_times(
            {'straight': partial(straight.cast, origins, directions), 'refracted': refracted_ping},
            args.repeat,
        )
    print(f'20-layer profile, seabed at {DEPTH:g} m, heading turn {args.turn:g} mrad')
    print(f'{"":12} {"rays":>6} {"chords/ray":>10} {"open3d":>9} {"refracted":>10} {"ratio":>6}')
    for name, directions in fans.items():
        open3d, bent = times[name]['straight'], times[name]['refracted']
        print(
            f'{name:12} {directions.shape[0]:6d} {chords[name]:10.1f} {open3d * 1e3:7.3f}ms '
            f'{bent * 1e3:8.3f}ms {bent / open3d:6.2f}'
        )
    print('target: ratio <= 3 for both')


if __name__ == '__main__':
    main()
