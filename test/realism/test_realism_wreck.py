"""The realism benchmark's side-scan scene: its wreck's hull and the altitude it flies (issue 34).

The hull (``benchmarks/realism_wreck.py``) is checked on its plan's closed forms and on the
shadow its far gunwale casts on a flat floor, worked by similar triangles; the altitude the
benchmark flies (``realism_scenes.flown_altitude``) on a held, once-a-second reading of a
steady climb, which it must join up again.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from nps_sonar_py.echo import EchoConfig
from nps_sonar_py.scene import Entity, EntityState, Raycaster, SceneState, Triangles, World
from nps_sonar_py.sensing.sidescan import SidescanConfig, SidescanSonar
from nps_sonar_py.transforms import transform_from_xyz_rpy

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / 'benchmarks'))

from realism_scenes import flown_altitude
from realism_wreck import Hull, hull_triangles


def test_the_hull_has_its_plan_and_its_gunwale() -> None:
    # The plan's closed forms: the transom `transom * beam` wide, the full beam over the
    # middle body, the parabolic bow `beam (1 - u**2)` at `u` of the entrance from its start,
    # a point at the stem; the gunwale linear from the stern's height to the bow's.
    # Control: a wedge bow is rejected.
    hull = Hull(length=20.0, beam=6.0, stern_height=1.0, bow_height=0.2)
    mesh = hull_triangles(hull)
    x, y, z = mesh.vertices.T
    assert x.min() == pytest.approx(-10.0)
    assert x.max() == pytest.approx(10.0)
    assert np.abs(y).max() == pytest.approx(3.0)
    assert z.min() == pytest.approx(-hull.buried)

    def width(at: float) -> float:
        return float(2.0 * np.abs(y[np.isclose(x, at)]).max())

    stations = np.unique(x)
    entrance_start = 10.0 - hull.entrance * 20.0
    middle = stations[np.argmin(np.abs(stations - 0.5 * entrance_start))]
    assert width(-10.0) == pytest.approx(hull.transom * 6.0)
    assert width(float(middle)) == pytest.approx(6.0)
    for station in stations[stations > entrance_start]:
        u = (station - entrance_start) / (hull.entrance * 20.0)
        assert width(float(station)) == pytest.approx(6.0 * (1.0 - u**2), abs=1e-9)
    assert width(10.0) == pytest.approx(0.0, abs=1e-9)
    top = z[z > 0.0]
    heights = 1.0 + (0.2 - 1.0) * (x[z > 0.0] + 10.0) / 20.0
    np.testing.assert_allclose(top, heights)
    # control: a wedge bow, `beam (1 - u)`, is 0.75 m wider half-way along the entrance
    half_way = stations[
        np.argmin(np.abs(stations - (entrance_start + 0.5 * hull.entrance * 20.0)))
    ]
    u = (half_way - entrance_start) / (hull.entrance * 20.0)
    assert abs(width(float(half_way)) - 6.0 * (1.0 - u)) > 0.5


def _shadow_end(height: float, altitude: float, across: float) -> float:
    """Slant range where a side-scan's starboard channel sees the floor again past the hull."""
    hull = hull_triangles(Hull(length=24.0, beam=6.0, stern_height=height, bow_height=height))
    floor = Triangles(
        np.array([[-40.0, -40.0, 0.0], [40.0, -40.0, 0.0], [40.0, 40.0, 0.0], [-40.0, 40.0, 0.0]]),
        np.array([[0, 1, 2], [0, 2, 3]]),
    )
    states = (
        EntityState('floor', origin=transform_from_xyz_rpy((0, 0, 0), (0, 0, 0))),
        EntityState('hull', origin=transform_from_xyz_rpy((0, -across, 0), (0, 0, 0))),
    )
    world = World(
        'wreck',
        (Entity('floor', floor, 0.002), Entity('hull', hull, 0.01)),
        SceneState('wreck', 0.0, states),
    )
    echo = EchoConfig(max_range=25.0, n_bins=1000, frequency=600e3, min_range=0.0)
    config = SidescanConfig(horizontal_width=math.radians(0.5), min_altitude=2.0)
    sonar = SidescanSonar(echo, config, transform_from_xyz_rpy([0, 0, altitude], [0, 0, 0]))
    ping = sonar.ping(Raycaster(world))
    starboard, edges = ping.profiles[1], ping.bin_edges
    wall = math.hypot(across + 3.0, altitude)
    lit = starboard > 1e-6 * float(np.median(starboard[edges[:-1] > 20.0]))
    beyond = np.flatnonzero(lit & (edges[:-1] > wall + 0.1))
    return float(edges[beyond[0]])


@pytest.mark.parametrize('height', [0.6, 1.1])
def test_the_far_gunwale_casts_the_shadow_of_its_height(height: float) -> None:
    # By similar triangles the ray over the far gunwale, `height` up at `y` out, from a
    # sonar `h` up meets the floor at `y h / (h - height)`: the floor is lit again from that
    # slant range on. Control: the shadow of the other height ends more than 0.5 m away.
    altitude, across = 4.0, 9.0
    y = across + 3.0
    ground = y * altitude / (altitude - height)
    expected = math.hypot(ground, altitude)
    measured = _shadow_end(height, altitude, across)
    assert measured == pytest.approx(expected, abs=0.1)
    other = 1.7 - height
    wrong = math.hypot(y * altitude / (altitude - other), altitude)
    assert abs(measured - wrong) > 0.5


def test_the_flown_altitude_joins_the_held_readings_up() -> None:
    # A vehicle climbing steadily at 0.3 m/s, its altitude read once a second and held over
    # the ten pings of 0.1 s between readings: joined up, the climb is found again at every
    # ping from the first reading to the last. Control: the held reading is off by up to
    # 0.27 m, in steps of 0.3 m.
    times = np.arange(61) * 0.1
    truth = 5.0 + 0.3 * times
    held = 5.0 + 0.3 * np.floor(times + 1e-9)
    flown = flown_altitude(held, times)
    covered = times <= 6.0
    np.testing.assert_allclose(flown[covered], truth[covered], atol=1e-9)
    assert np.max(np.abs(np.diff(flown))) == pytest.approx(0.03, abs=1e-9)
    assert np.max(np.abs(held - truth)) > 0.25
    assert np.max(np.abs(np.diff(held))) == pytest.approx(0.3, abs=1e-9)
