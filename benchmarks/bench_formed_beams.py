"""The formed-beams kernels on DAVE's fan, beside Open3D's raw cast of its rays, in one run.

DAVE's heaviest multibeam (``bench_fan.py``: 512 beams over 130 degrees, 512 x 114 rays,
0.5 to 60 m in 1000 bins, a 199,712-triangle seabed with six objects), beamformed by
``echo.formed_beams``: a 102-element half-wavelength line array (1 degree beams), a 12 kHz
2 ms chirp (one sample per bin), receiver noise before the matched filter.

The scatterers are those of the seabed triangles the fan's rays hit, at the default density
(``fixed_scatterers.default_density``: 4 in a resolution cell at the nearest lit range,
20 m): ``surface_scatterers`` places them once (they are fixed in the world: pose-independent,
made once per scene), and each ping ``form_beams`` takes them in the sensor frame (the carrier
phase of each one's path, its range and sine) and ``BeamFormer.form`` forms the beams (the
deposits on the range-sine grid, the FFTs, the noise, the beams). Timed beside
``RaycastingScene.cast_rays`` of the fan's 58,368 rays (``timing.median_times``,
interleaved), with ``BeamFormer.form`` alone for uniform echoes at several counts and
``surface_scatterers`` of the lit triangles (what a ping would cost if it placed them anew).

The last line (:func:`formed_fan`, also in ``bench_coherent.py``): ``formed_hz=<pings/s of
form_beams at the default density> raw_hz=<casts/s> ratio=<form_beams / cast>``. Times depend
on the machine and its load; the ratio is the result (docs/benchmarks/formed_beams.md).
Run: ``scripts/run python benchmarks/bench_formed_beams.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import open3d as o3d  # the baseline is Open3D alone

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_fan import fan_sonar, fan_world
from raw_cast import open3d_rays, world_scene
from timing import median_times

from nps_sonar_py.echo.array_response import SteeredArray
from nps_sonar_py.echo.fixed_scatterers import default_density, surface_scatterers
from nps_sonar_py.echo.formed_beams import BeamFormer, BeamSetup, form_beams
from nps_sonar_py.echo.pulse import Pulse, PulseKind
from nps_sonar_py.ros.heap import keep_heap
from nps_sonar_py.sensing.multibeam import MultibeamSonar

C = 1500.0
COUNTS = (100_000, 300_000, 1_000_000)
PULSE = Pulse(PulseKind.CHIRP, 2e-3, 12e3)
#: Flips a body frame (x forward, y left, z up) into form_beams' (y starboard, z down).
FRD = np.diag([1.0, -1.0, -1.0])


def lit_seabed(
    scene: o3d.t.geometry.RaycastingScene, rays: o3d.core.Tensor, world: object
) -> tuple[np.ndarray, np.ndarray]:
    """The seabed triangles the fan's rays hit: (T, 3, 3) corners in the world, (T,) ids."""
    hits = scene.cast_rays(rays)
    ids = hits['geometry_ids'].numpy()
    seabed = np.unique(hits['primitive_ids'].numpy()[ids == 0]).astype(np.int64)
    surface = world.entities[0].surface  # type: ignore[attr-defined]
    return surface.vertices[surface.triangles[seabed]], seabed


def former_of(sonar: MultibeamSonar) -> BeamFormer:
    """The fan's beam former (module docstring)."""
    beams = np.sin(np.linspace(sonar.fan.min_angle, sonar.fan.max_angle, sonar.fan.beams))
    setup = BeamSetup(
        SteeredArray(102, 0.5), beams, PULSE, C, 0.5, 59.5 / 1000, 1000, noise_density=1e-12
    )
    return BeamFormer(setup)


def formed_fan(
    repeat: int, extra: dict[str, Callable[[], object]] | None = None
) -> dict[str, float]:
    """Median times (s) of the cast, ``form_beams`` of the lit seabed and ``extra``; printed.

    The last line printed is the summary (module docstring).
    """
    world, sonar = fan_world(), fan_sonar()
    scene = world_scene(world)
    rays = open3d_rays(sonar.origin, sonar.directions)
    corners, ids = lit_seabed(scene, rays, world)
    area = (
        0.5
        * np.linalg.norm(
            np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]), axis=1
        ).sum()
    )
    rho = default_density(PULSE.resolution(C), math.radians(1.0), 20.0)
    field = surface_scatterers(corners, rho, 0, ids=ids)
    rotation = sonar.world_from_body[:3, :3]
    positions = (field.positions - sonar.origin) @ rotation @ FRD  # the sensor frame
    former, rng = former_of(sonar), np.random.default_rng(1)
    wavelength = C / sonar.echo.frequency
    count = len(positions)
    heard = int(np.count_nonzero(np.linalg.norm(positions, axis=1) < sonar.echo.max_range))
    actions: dict[str, Callable[[], object]] = {
        'open3d': lambda: scene.cast_rays(rays),
        'form_beams': lambda: form_beams(former, positions, field.amplitudes, wavelength, rng=rng),
        'placed anew': lambda: surface_scatterers(corners, rho, 0, ids=ids),
        **(extra or {}),
    }
    times = median_times(actions, repeat)
    cast, formed = times['open3d'], times['form_beams']
    print(f'open3d cast of {sonar.directions.shape[0]} rays: {cast * 1e3:.1f} ms')
    print(
        f'lit seabed {area:.0f} m2 ({len(ids)} triangles), 4 a cell at 20 m ({rho:.0f}/m2): '
        f'{count} fixed scatterers ({heard} within {sonar.echo.max_range:g} m); placing them '
        f'(once per scene) {times["placed anew"] * 1e3:.1f} ms'
    )
    for name, seconds in times.items():
        if name not in ('open3d', 'placed anew'):
            label = f'form_beams of the {count} scatterers' if name == 'form_beams' else name
            print(
                f'{label}: {seconds * 1e3:.1f} ms, {1 / seconds:.1f} pings/s, '
                f'ratio {seconds / cast:.2f}'
            )
    print(f'formed_hz={1 / formed:.1f} raw_hz={1 / cast:.1f} ratio={formed / cast:.2f}')
    return times


def main() -> int:
    """Print ``BeamFormer.form``'s times for uniform echoes, then the lit seabed's, last."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=10)
    options = parser.parse_args()
    keep_heap()  # as the nodes do (ros/startup.run_node): no page faults per ping
    former, rng = former_of(fan_sonar()), np.random.default_rng(2)
    extra: dict[str, Callable[[], object]] = {}
    for count in COUNTS:
        ranges, sines = rng.uniform(20.0, 58.0, count), rng.uniform(-0.9, 0.9, count)
        a = rng.standard_normal(count) + 1j * rng.standard_normal(count)
        extra[f'BeamFormer.form of {count} uniform echoes'] = lambda r=ranges, s=sines, a=a: (
            former.form(r, s, a, rng)
        )
    formed_fan(options.repeat, extra)
    return 0


if __name__ == '__main__':
    sys.exit(main())
