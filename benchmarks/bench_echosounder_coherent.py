"""The echosounder's ping, incoherent and coherent, beside Open3D's ``cast_rays`` of its rays.

The swath of ``config/echosounder.yaml`` (256 beams of 1 degree from -60 to 60 degrees, 5 x 5
rays each, 300 kHz) 50 m over the benchmarks' 199,712-triangle relief (``seabeds.py``), its
echo in 2980 bins of 5 cm from 1 to 150 m. Timed in one run, interleaved
(``timing.median_times``): Open3D alone on the same rays, a prebuilt scene; the incoherent
ping (the pulse window of 100 us); the coherent ping (a 30 kHz chirp: two samples a bin,
the 102-element half-wavelength line array across track, the sonar equation's noise floor).
A ping is the whole ``Echosounder.ping``: cast, profiles, bottom detection and soundings.
Beside them, the baseline of the stored samples' cost: the stored samples of the same
ping's baseband by FFTs (``matched_filter.bin_intensity``: the receive filter applied to all
the samples, what the coherent ping did on every ping until its bins were deposited from the
filtered pulse's table, ``docs/coherent.md#cost``); its time added to the ping's is an upper
bound of the ping before (the ping now also deposits, leaks and adds noise on its bins).
It prints each median time and its ratio to the cast, the coherent ping's ratio to the
incoherent one and to the ping with the FFTs; the last line is
``coherent_hz=<pings/s> incoherent_hz=<pings/s> raw_hz=<casts/s>``. Times depend on the
machine and its load; the ratios are the result.
Run: ``scripts/run python benchmarks/bench_echosounder_coherent.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_coherent import NOISE
from raw_cast import open3d_rays, world_scene
from seabeds import relief_triangles
from timing import median_times

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig
from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.line_array import LineArray
from nps_sonar_py.echo.matched_filter import bin_intensity, pulse_share
from nps_sonar_py.echo.pulse import Pulse, PulseKind, kernel_table
from nps_sonar_py.ros.heap import keep_heap
from nps_sonar_py.scene import Raycaster, World
from nps_sonar_py.scene.scene_state import SceneState
from nps_sonar_py.scene.world import Entity
from nps_sonar_py.sensing.echosounder import Echosounder, SwathConfig

DEPTH = 50.0


def seabed() -> World:
    """The relief, 400 m square, 50 m under the transducer at the origin."""
    relief = relief_triangles(np.random.default_rng(7), 200.0)
    moved = relief.transformed(
        np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, -DEPTH], [0, 0, 0, 1.0]])
    )
    return World('relief', (Entity('bed', moved),), SceneState('relief', 0.0, ()))


def sounder(coherent: CoherentConfig | None) -> Echosounder:
    """The swath of ``config/echosounder.yaml`` with the echo of the module docstring."""
    echo = EchoConfig(
        pattern=BeamPattern.PISTON,
        min_range=1.0,
        max_range=150.0,
        n_bins=2980,
        frequency=300e3,
        absorption=Absorption.NONE,
        sound_speed=1500.0,
        source_level=220.0,
    )
    swath = SwathConfig(beams=256, rays_across=5, rays_along=5)
    return Echosounder(echo, swath, np.eye(4), coherent=coherent)


def held_baseband(sounder: Echosounder, raycaster: Raycaster) -> NDArray[np.complex64]:
    """(beams, samples) the baseband of one of ``sounder``'s pings, its own copy."""
    record = sounder.ping(raycaster).echo
    assert record is not None
    assert record.coherent is not None
    return record.coherent.baseband.copy()


def main() -> int:
    """Print the cast's, the incoherent and the coherent ping's figures, the summary last."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=30)
    options = parser.parse_args()
    keep_heap()  # as the nodes do (ros/startup.run_node): no page faults per ping
    world = seabed()
    raycaster, scene = Raycaster(world), world_scene(world)
    elements = math.ceil(0.886 / (0.5 * math.radians(1.0)))  # 1 degree beams
    coherent = CoherentConfig.of(
        pulse=Pulse(PulseKind.CHIRP, 1e-3, 30e3), array=LineArray(elements, 0.5), noise=NOISE
    )
    plain, coherent_sounder = sounder(None), sounder(coherent)
    directions = plain.directions
    rays = open3d_rays(plain.origin, directions)
    grid = coherent_sounder.engine.grid
    assert grid is not None
    baseband = held_baseband(coherent_sounder, raycaster)
    share = pulse_share(kernel_table(coherent.transmitted, 1.0 / grid.rate), grid.per_bin)
    t = median_times(
        {
            'open3d': lambda: scene.cast_rays(rays),
            'incoherent': lambda: plain.ping(raycaster),
            'coherent': lambda: coherent_sounder.ping(raycaster),
            'fft': lambda: bin_intensity(baseband, grid.per_bin, share),
        },
        options.repeat,
    )
    cast = t['open3d']
    print(
        f'echosounder: {directions.shape[0]} rays, 256 beams x {plain.echo.n_bins} bins, '
        f'{grid.per_bin} samples a bin: open3d {cast * 1e3:.2f} ms'
    )
    for name in ('incoherent', 'coherent'):
        print(f'{name} ping {t[name] * 1e3:.2f} ms, ratio {t[name] / cast:.1f}')
    before = t['coherent'] + t['fft']
    print(
        f'coherent / incoherent {t["coherent"] / t["incoherent"]:.2f}; stored samples by FFTs '
        f'{t["fft"] * 1e3:.2f} ms: coherent / (coherent + FFTs) {t["coherent"] / before:.2f}'
    )
    print(
        f'coherent_hz={1.0 / t["coherent"]:.1f} incoherent_hz={1.0 / t["incoherent"]:.1f} '
        f'raw_hz={1.0 / cast:.1f}'
    )
    return 0


if __name__ == '__main__':
    sys.exit(main())
