"""Coherent pings per second against Open3D's ``cast_rays`` alone on the same rays, in one run.

Two sonars (issue 27), each timed beside the raw cast of its own rays on a prebuilt Open3D
scene of the same triangles, interleaved (``timing.median_times``):

* the fan of ``bench_fan.py`` (DAVE's heaviest multibeam: 512 beams x 114 rays, 0.5 to 60 m
  in 1000 bins, 750 kHz, over a 199,712-triangle seabed with six objects), running the
  coherent model: a 12 kHz chirp (range resolution 6.25 cm, about a bin: one sample per
  bin), its 102-element half-wavelength line array (the 1 degree beams) leaking the 256
  strongest cells across beams, and the noise floor of the sonar equation;
* the side-scan of ``bench_sidescan.py`` (2 x 2000 bins to 75 m, 400 kHz, 199,712
  triangles), coherent with a 19 kHz chirp (3.9 cm, about a bin: one sample per bin) and
  the noise floor; its channels hear the surfaces' fixed scatterers (issue 33,
  ``echo/channel_echoes.py``, 313 a m2 by default), no longer each ray's hit: 7 to 10 times
  the raw cast on the loaded machine where the per-ray model took 1.2 to 1.3 (most of it
  the near-triangle passes of the relief's small triangles; ``docs/coherent.md``).

A coherent ping is the whole ``ping`` of the sonar: its cast (``Raycaster.cast``), the
incoherent model's ranges, confidence and hits, and the coherent profiles. It prints each
median time, the rate and the ratio ``ping / cast``; the targets are a ratio of at most 2.5
for both and at least 30 fan pings/s on 2 cores; then the fan's
``coherent_hz=<pings/s> raw_hz=<casts/s> ratio=<ping time / cast time>``.

The fan's coherent ping is its beams formed by a line array (issue 33,
``echo/formed_engine.py``) over the fixed scatterers of the lit surfaces: the whole ping
(the cast, the lit surfaces' scatterers from the per-scene cache, the depth map, the
intensities and ``form_beams``). First ``bench_formed_beams.formed_fan``: ``form_beams``
alone on the seabed's scatterers beside the raw cast; then the demo's forward-looking fan
(``config/forward_looking_sonar.yaml``: 128 beams of 1 degree over 90 degrees, 720 rows,
0.5 to 40 m in 400 bins at 900 kHz, over ``config/worlds/sidescan_survey.sdf`` from the
robot's pose; it pings twice a second); then the side-scan and, last, DAVE's fan. Targets
for the fan: at least 30 pings/s on 2 cores and a ratio of at most 5. The last line is the
fan's ``coherent_hz=<pings/s> raw_hz=<casts/s> ratio=<ping time / cast time>``. Times
depend on the machine and its load; the ratio is the result.
Run: ``scripts/run python benchmarks/bench_coherent.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_fan import fan_sonar, fan_world
from bench_formed_beams import formed_fan
from bench_sidescan import sidescan, sidescan_world
from raw_cast import open3d_rays, world_scene
from timing import median_times

from nps_sonar_py.echo import EchoConfig
from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.line_array import LineArray
from nps_sonar_py.echo.pulse import Pulse, PulseKind
from nps_sonar_py.echo.sonar_equation import ReceiverNoise
from nps_sonar_py.ros.heap import keep_heap
from nps_sonar_py.scene import Raycaster, World
from nps_sonar_py.scene.load import load_world
from nps_sonar_py.sensing.multibeam import FanConfig, MultibeamSonar
from nps_sonar_py.sensing.sidescan import SidescanSonar
from nps_sonar_py.transforms import transform_from_xyz_rpy

#: A noise floor some 30 dB under the seabed's echo at mid range.
NOISE = ReceiverNoise(enabled=True, spectrum_level=40.0, directivity_index=30.0)
#: The noise's seed: the same pings in every run and process (``None`` would draw afresh).
NOISE_SEED = 0


def coherent_fan() -> MultibeamSonar:
    """``bench_fan``'s fan with the coherent model (module docstring)."""
    plain = fan_sonar()
    echo = dataclasses.replace(plain.echo, source_level=210.0, seed=NOISE_SEED)
    elements = math.ceil(0.886 / (0.5 * echo.beam_width))  # 0.886 lambda / (N d) = 1 deg
    coherent = CoherentConfig.of(
        pulse=Pulse(PulseKind.CHIRP, 2e-3, 12e3),
        array=LineArray(elements, 0.5),
        noise=NOISE,
    )
    return MultibeamSonar(echo, plain.fan, plain.world_from_body, coherent=coherent)


#: The demo's forward-looking sonar's world (``config/forward_looking_sonar.yaml``).
DEMO_WORLD = Path(__file__).resolve().parents[1] / 'config' / 'worlds' / 'sidescan_survey.sdf'


def demo_fan() -> MultibeamSonar:
    """The demo's coherent forward-looking fan at the robot's pose (module docstring)."""
    echo = EchoConfig(
        beam_width=math.radians(1.0), min_range=0.5, max_range=40.0, n_bins=400, frequency=900e3
    )
    fan = FanConfig(
        beams=128,
        min_angle=-math.pi / 4,
        max_angle=math.pi / 4,
        vertical_width=math.radians(20.0),
        rays_horizontal=1,
        rays_vertical=720,
    )
    pose = transform_from_xyz_rpy([-8.0, 12.0, 8.0], [0.0, math.radians(15.0), 0.3])
    return MultibeamSonar(echo, fan, pose, coherent=CoherentConfig.of())


def coherent_sidescan() -> SidescanSonar:
    """``bench_sidescan``'s side-scan with the coherent model (module docstring)."""
    plain = sidescan()
    echo = dataclasses.replace(plain.echo, source_level=210.0, seed=NOISE_SEED)
    coherent = CoherentConfig.of(pulse=Pulse(PulseKind.CHIRP, 5e-3, 19e3), noise=NOISE)
    return SidescanSonar(echo, plain.config, plain.world_from_body, coherent=coherent)


def measure(
    name: str, world: World, sonar: MultibeamSonar | SidescanSonar, repeat: int
) -> tuple[float, float]:
    """Median ping and raw-cast times of ``sonar`` in ``world``, printed; (ping, cast) s."""
    raycaster = Raycaster(world)
    scene = world_scene(world)
    rays = open3d_rays(sonar.origin, sonar.directions)
    grid = sonar.engine.grid
    assert grid is not None
    t = median_times(
        {'open3d': lambda: scene.cast_rays(rays), 'ping': lambda: sonar.ping(raycaster)}, repeat
    )
    cast, ping = t['open3d'], t['ping']
    print(
        f'{name}: {sonar.directions.shape[0]} rays, {sonar.echo.n_bins} bins to '
        f'{sonar.echo.max_range:g} m, {grid.per_bin} sample(s) per bin at {grid.rate:.4g} Hz: '
        f'open3d {cast * 1e3:.2f} ms, coherent ping {ping * 1e3:.2f} ms, '
        f'{1.0 / ping:.1f} pings/s, ratio {ping / cast:.2f}'
    )
    return ping, cast


def main() -> int:
    """Print the formed beams', the demo fan's, the side-scan's and, last, the fan's figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=30)
    options = parser.parse_args()
    keep_heap()  # as the nodes do (ros/startup.run_node): no page faults per ping
    formed_fan(options.repeat)
    measure('demo fan', load_world(DEMO_WORLD), demo_fan(), options.repeat)
    measure('side-scan', sidescan_world(), coherent_sidescan(), options.repeat)
    ping, cast = measure('fan', fan_world(), coherent_fan(), options.repeat)
    print(f'coherent_hz={1.0 / ping:.1f} raw_hz={1.0 / cast:.1f} ratio={ping / cast:.2f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
