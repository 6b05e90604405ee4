"""The cost of casting the seabed images' legs up to the scatterers, against not casting them.

The realism benchmark's coherent side-scan (600 kHz, 2 x 1024 samples over 29.98 m, a 2 ms
chirp) abeam of its wreck on 0.3 m of sand relief, 10 m up (``realism_scenes``): each ping
hears the hull's scatterers and their images in the seabed (``echo/seabed_images.py``). The
leg from each image path's bounce point up to its scatterer is cast, one batch of rays a
ping (``sensing.fan_lighting.clear_to_seabed``); the baseline, in the same run, interleaved
(``timing.median_times``), takes every leg as clear without casting it (the model before
the cast). Prints the legs cast a ping, each median ping time and the ratio
``legs cast / uncast``; the last line ``ratio=<cast / uncast>``. Times depend on the machine
and its load; the ratio is the result.

Run: ``scripts/run python benchmarks/bench_seabed_images.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from realism_scenes import SEABED_LEVEL, realism_sidescan, sidescan_world
from realism_wreck import WRECK
from timing import median_times

from nps_sonar_py.scene import Raycaster
from nps_sonar_py.sensing import fan_lighting
from nps_sonar_py.sensing.caster import SurfaceCaster
from nps_sonar_py.sensing.seabed_caster import seabed_caster
from nps_sonar_py.sensing.sidescan import SidescanSonar
from nps_sonar_py.transforms import transform_from_xyz_rpy

FREQUENCY = 600e3
CAST = fan_lighting.clear_to_seabed
LEGS: list[int] = []


def counted(
    caster: SurfaceCaster, starts: NDArray[np.float64], ends: NDArray[np.float64]
) -> NDArray[np.bool_]:
    """The legs' cast, counting its rays."""
    LEGS.append(starts.shape[0])
    return CAST(caster, starts, ends)


def uncast(
    _: SurfaceCaster, starts: NDArray[np.float64], ends: NDArray[np.float64]
) -> NDArray[np.bool_]:
    """The baseline: every leg taken as clear, nothing cast."""
    return np.ones(starts.shape[0], dtype=bool)


def abeam_of_the_wreck(description: str) -> tuple[int, SidescanSonar, SurfaceCaster]:
    """The command line's ``--repeat``, and the realism side-scan 10 m up abeam of its wreck."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument('--repeat', type=int, default=9, help='pings of each, interleaved')
    repeat = parser.parse_args().repeat
    sonar = realism_sidescan(FREQUENCY, 29.98, 1024)
    sonar.set_pose(transform_from_xyz_rpy([WRECK.x, 0.0, SEABED_LEVEL + 10.0], [0.0, 0.0, 0.0]))
    caster = seabed_caster(Raycaster(sidescan_world(2.0 * WRECK.x)), FREQUENCY, 1500.0)
    return repeat, sonar, caster


def swapped_pings(
    module: object, name: str, variants: dict[str, object], description: str
) -> dict[str, float]:
    """Median ping times abeam of the wreck with ``module.name`` replaced by each variant.

    The variants' pings are interleaved (``timing.median_times``); the original is put back
    after each ping.
    """
    repeat, sonar, caster = abeam_of_the_wreck(description)
    original = getattr(module, name)

    def ping(variant: object) -> None:
        setattr(module, name, variant)
        try:
            sonar.ping(caster)
        finally:
            setattr(module, name, original)

    return median_times(
        {key: functools.partial(ping, variant) for key, variant in variants.items()}, repeat
    )


def main() -> int:
    """Time the pings (module docstring)."""
    variants = {'cast': counted, 'uncast': uncast}
    times = swapped_pings(fan_lighting, 'clear_to_seabed', variants, __doc__.splitlines()[0])
    print(f'legs cast a ping: {int(np.median(LEGS))}')
    cast, bare = 1e3 * times['cast'], 1e3 * times['uncast']
    print(f'ping with the legs cast {cast:.1f} ms, uncast {bare:.1f} ms')
    print(f'ratio={times["cast"] / times["uncast"]:.3f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
