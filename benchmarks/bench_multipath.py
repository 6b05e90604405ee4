"""One bounce of multipath on the 512 x 114 fan against the same fan without it, in one run.

The fan and the world of ``bench_fan.py`` (issue 10: 512 beams of 3 x 38 = 114 rays, 58,368
rays per ping, 0.5 to 60 m in 1000 bins, 10 m above a 199,712-triangle seabed with six
objects, pitched 20 degrees down), with the sea surface 10 m above the sonar (world z = 20 m)
and ``max_bounces`` 1 (``sensing/multipath.py``): every ray that meets the seabed or an object
within the window is mirrored and cast again, and every scatterer the mirrored rays meet is
checked for a clear line back to the sensor, in one more cast.

It prints the median time of a ping (``MultibeamSonar.ping``: cast, multipath, echo) without
and with multipath, the multipath returns per ping and the ratio with / without. Target
(issue 20): a ratio of at most 2.5. Times depend on the machine and its load; the ratio is the
result. Run: ``scripts/run python benchmarks/bench_multipath.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_fan import fan_sonar, fan_world
from timing import median_times

from nps_sonar_py.ros.heap import keep_heap
from nps_sonar_py.scene import Raycaster
from nps_sonar_py.sensing.multibeam import MultibeamSonar
from nps_sonar_py.sensing.multipath import MultipathConfig, multipath_returns

SEA_SURFACE_Z = 20.0


def main() -> int:
    """Print the ping times without and with one bounce of multipath, and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=20)
    options = parser.parse_args()
    keep_heap()  # as the nodes do (ros/startup.run_node): no page faults per ping

    raycaster = Raycaster(fan_world())
    plain = fan_sonar()
    config = MultipathConfig(max_bounces=1, sea_surface_z=SEA_SURFACE_Z)
    ghosts = MultibeamSonar(plain.echo, plain.fan, plain.world_from_body, multipath=config)

    hits = raycaster.cast(ghosts.origin, ghosts.directions)
    _, extra = multipath_returns(
        raycaster,
        ghosts.origin,
        ghosts.directions,
        hits,
        config,
        hear=ghosts._hear,
        ray_pattern=ghosts._ray_pattern,
        rays_per_beam=ghosts.rays_per_beam,
        n_way=ghosts.echo.n_way,
        max_range=ghosts.echo.max_range,
    )
    with_ghosts, without = ghosts.ping(raycaster), plain.ping(raycaster)
    added = float(with_ghosts.totals.sum() / without.totals.sum()) - 1.0

    t = median_times(
        {'fan': lambda: plain.ping(raycaster), 'multipath': lambda: ghosts.ping(raycaster)},
        options.repeat,
    )
    n_rays = ghosts.directions.shape[0]
    kept = int(np.count_nonzero(extra.gain > 0.0))
    print(
        f'fan: {plain.fan.beams} beams x {plain.rays_per_beam} rays = {n_rays} rays, '
        f'sea surface at z = {SEA_SURFACE_Z:g} m, max_bounces 1: {len(extra)} multipath returns '
        f'({kept} heard), +{added:.2%} of the echo energy'
    )
    print(f'{"fan":>9} {"multipath":>10} {"ratio":>6}')
    print(
        f'{t["fan"] * 1e3:>7.2f}ms {t["multipath"] * 1e3:>8.2f}ms '
        f'{t["multipath"] / t["fan"]:>6.2f}'
    )
    return 0


if __name__ == '__main__':
    sys.exit(main())
