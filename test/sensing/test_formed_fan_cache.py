"""A formed fan keeps its lit entities' small triangles from ping to ping (issue 33, speed).

``near_triangles.SmallTriangles`` holds the small triangles of the entities a ping lit while
none of their corners moved, so a sonar's second ping over a still scene reuses them. Checked
on a real Open3D scene of a seabed of two large triangles (tiled by patches) and a drum of
small ones (its unhit triangles near hits lit too):

* the cached ping equals a fresh sonar's bit for bit, and the cache was used (its geometry
  made once over two pings);
* moving the drum moves its scatterers: the warm sonar's ping equals a fresh sonar's after
  the move and differs from before; control: a cache that never sees a move (stale) gives
  another ping than the fresh sonar's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from coherent_scenes import chirp, lossless_echo, pitched, seabed_and_drum, sector

from nps_sonar_py.echo import near_triangles
from nps_sonar_py.echo.engine import formed_engine
from nps_sonar_py.sensing.multibeam import MultibeamSonar
from nps_sonar_py.transforms import transform_from_xyz_rpy

#: Where the drum stands on the seabed.
DRUM_AT = (8.0, 0.0, -2.5)


def fan() -> MultibeamSonar:
    """64 beams over 30 degrees at 400 kHz, 2 to 14 m, at the origin, pitched 15 degrees down."""
    echo = lossless_echo(2.0, 14.0, 200, beam_width=math.radians(1.0))
    half = math.radians(15.0)
    fan = sector(64, half, vertical_width=math.radians(20.0), rays_horizontal=1, rays_vertical=40)
    return MultibeamSonar(echo, fan, pitched(0.0, 15.0), coherent=chirp(1e-3, 30e3))


def test_the_cached_ping_is_a_fresh_sonars_bit_for_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    world = seabed_and_drum(DRUM_AT)
    made = []
    real = near_triangles.small_triangles

    def counted(*args: object) -> near_triangles.Small:
        made.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(near_triangles, 'small_triangles', counted)
    sonar = fan()
    sonar.ping(world)
    cached = sonar.ping(world)
    assert len(made) == 1  # the second ping reused the first's small triangles
    fresh = fan().ping(world)
    assert np.array_equal(cached.profiles, fresh.profiles)
    assert cached.profiles.max() > 0.0


class _Stale(near_triangles.SmallTriangles):
    """A cache that never sees its triangles move (the control)."""

    def still(self, before: np.ndarray, now: np.ndarray) -> bool:
        return True


def test_moving_an_entity_moves_its_scatterers() -> None:
    world = seabed_and_drum(DRUM_AT)
    warm, stale = fan(), fan()
    for sonar in (warm, stale):
        engine = formed_engine(sonar.engine)
        assert engine is not None
        if sonar is stale:
            engine._small = _Stale()
        sonar.ping(world)
    before = warm.ping(world)
    x, y, z = DRUM_AT
    world.set_entity_pose('drum', transform_from_xyz_rpy((x, y + 0.3, z), (0, 0, 0)))
    after, fresh = warm.ping(world), fan().ping(world)
    assert np.array_equal(after.profiles, fresh.profiles)
    assert not np.array_equal(after.profiles, before.profiles)
    # Control: the stale cache keeps the drum's small triangles where they stood.
    assert not np.array_equal(stale.ping(world).profiles, fresh.profiles)
