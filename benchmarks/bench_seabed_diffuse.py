"""The cost of the rough seabed's diffuse one-bounce paths, against the coherent images alone.

The realism benchmark's coherent side-scan (600 kHz, 2 x 1024 samples over 29.98 m, a 2 ms
chirp) abeam of its wreck on 0.3 m of sand relief, 10 m up (``realism_scenes``): each ping
hears the hull's scatterers, their coherent images in the seabed and, over the sand's
roughness, the lobe of diffuse one-bounce paths around each image (``echo/seabed_diffuse.py``,
``ALONG x ACROSS`` patch points a mirrored scatterer, the pattern averaged over ``SUB`` points
across each, each heard by both orders). The
baseline, in the same run, interleaved (``timing.median_times``), leaves the lobe out (the
model before it). Prints the lobe's paths a ping, each median ping time and the ratio
``with / without``; the last line ``ratio=<with / without>``. Times depend on the machine
and its load; the ratio is the result.

Run: ``scripts/run python benchmarks/bench_seabed_diffuse.py [--repeat N]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_seabed_images import swapped_pings

from nps_sonar_py.echo import seabed_images
from nps_sonar_py.echo.seabed_diffuse import NONE, Bounces, Diffuse

LOBE = seabed_images.diffuse_paths
PATHS: list[int] = []


def counted(b: Bounces, *rest: object) -> Diffuse:
    """The lobe's paths, counting them."""
    found = LOBE(b, *rest)  # type: ignore[arg-type]
    PATHS.append(2 * found.rows.size)
    return found


def none(_: Bounces, *__: object) -> Diffuse:
    """The baseline: no lobe."""
    return NONE


def main() -> int:
    """Time the pings (module docstring)."""
    variants = {'lobe': counted, 'none': none}
    times = swapped_pings(seabed_images, 'diffuse_paths', variants, __doc__.splitlines()[0])
    print(f'diffuse paths a ping: {int(np.median(PATHS))}')
    with_lobe, bare = 1e3 * times['lobe'], 1e3 * times['none']
    print(f'ping with the lobe {with_lobe:.1f} ms, without {bare:.1f} ms')
    print(f'ratio={times["lobe"] / times["none"]:.3f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
