"""The formed-beams step alone on DAVE's fan, beside Open3D's raw cast of its rays, in one run.

DAVE's heaviest multibeam (``bench_fan.py``: 512 beams over 130 degrees, 512 x 114 rays,
0.5 to 60 m in 1000 bins, a 199,712-triangle seabed with six objects), beamformed by
``echo.formed_beams``: a 102-element half-wavelength line array (1 degree beams), a 12 kHz
2 ms chirp (one sample per bin), receiver noise before the matched filter. The scatterers'
echoes are given (uniform over the fan's footprint, 20 to 58 m, and its sines): the step
timed is ``BeamFormer.form``, for several scatterer counts and for the count the seabed holds
at the default density, interleaved with
``RaycastingScene.cast_rays`` of the fan's 58,368 rays (``timing.median_times``).

It also prints how many fixed scatterers the seabed's lit triangles hold at the default
density (``fixed_scatterers.default_density``: 4 in a resolution cell at the nearest lit
range, 20 m) and at 20 a cell. The last line:
``formed_hz=<pings/s at the default density's count> raw_hz=<casts/s> ratio=<form / cast>``.
Times depend on the machine and its load; the ratio is the result (measured figures and
where the time goes: docs/beamforming.md#speed).
Run: ``scripts/run python benchmarks/bench_formed_beams.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
import open3d as o3d  # the baseline is Open3D alone

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_coherent import open3d_scene
from bench_fan import fan_sonar, fan_world
from timing import median_times

from nps_sonar_py.echo.array_response import SteeredArray
from nps_sonar_py.echo.fixed_scatterers import default_density
from nps_sonar_py.echo.formed_beams import BeamFormer, BeamSetup
from nps_sonar_py.echo.pulse import Pulse, PulseKind

C = 1500.0
COUNTS = (100_000, 300_000, 1_000_000)


def lit_area(scene: o3d.t.geometry.RaycastingScene, rays: o3d.core.Tensor, world: object) -> float:
    """Area (m2) of the seabed triangles the fan's rays hit."""
    hits = scene.cast_rays(rays)
    ids = hits['geometry_ids'].numpy()
    seabed = np.unique(hits['primitive_ids'].numpy()[ids == 0])
    surface = world.entities[0].surface  # type: ignore[attr-defined]
    v = surface.vertices[surface.triangles[seabed]]
    return float(
        0.5 * np.linalg.norm(np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0]), axis=1).sum()
    )


def main() -> int:
    """Print the scatterer counts, each count's formed-beams time, then the summary line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=10)
    options = parser.parse_args()
    world, sonar = fan_world(), fan_sonar()
    scene = open3d_scene(world)
    origins = np.broadcast_to(sonar.origin, sonar.directions.shape)
    rays = o3d.core.Tensor(np.hstack((origins, sonar.directions)).astype(np.float32))
    pulse = Pulse(PulseKind.CHIRP, 2e-3, 12e3)
    area = lit_area(scene, rays, world)
    counts: dict[float, int] = {}
    for per_cell in (4.0, 20.0):
        rho = default_density(pulse.resolution(C), math.radians(1.0), 20.0, per_cell)
        count = area * rho
        counts[per_cell] = round(count)
        print(
            f'lit seabed {area:.0f} m2, {per_cell:g} a cell ({rho:.0f}/m2): {count:.3g} scatterers'
        )
    beams = np.sin(np.linspace(sonar.fan.min_angle, sonar.fan.max_angle, sonar.fan.beams))
    setup = BeamSetup(
        SteeredArray(102, 0.5), beams, pulse, C, 0.5, 59.5 / 1000, 1000, noise_density=1e-12
    )
    former = BeamFormer(setup)
    rng = np.random.default_rng(1)
    actions = {'open3d': lambda: scene.cast_rays(rays)}
    default = counts[4.0]
    for count in (*COUNTS, default):
        ranges, sines = rng.uniform(20.0, 58.0, count), rng.uniform(-0.9, 0.9, count)
        a = rng.standard_normal(count) + 1j * rng.standard_normal(count)
        actions[f'{count:g}'] = lambda r=ranges, s=sines, a=a: former.form(r, s, a, rng)
    times = median_times(actions, options.repeat)
    cast = times.pop('open3d')
    print(f'open3d cast of {sonar.directions.shape[0]} rays: {cast * 1e3:.1f} ms')
    for name, seconds in times.items():
        print(
            f'formed beams, {name} scatterers: {seconds * 1e3:.1f} ms, '
            f'{1 / seconds:.1f} pings/s, ratio {seconds / cast:.2f}'
        )
    chosen = times[f'{default:g}']
    print(f'formed_hz={1 / chosen:.1f} raw_hz={1 / cast:.1f} ratio={chosen / cast:.2f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
