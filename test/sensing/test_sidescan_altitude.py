"""The side-scan's altitude with an object under the sonar: bottom track and altimeter.

A flat seabed z = 0 and a box of height BOX_H on the port side where the fan's steepest ray
(45 degrees) meets its top: over a flat seabed the nearest return of a ping is that ray's,
at slant ``sqrt(2) h``, its vertical drop ``h``; with the box in the fan it is the box's top,
drop ``h - BOX_H``. Taken as the altitude, the starboard seabed, whose first return is at
ground range ``h`` (45 degrees), moves out to ``sqrt(2 h**2 - (h - BOX_H)**2)`` on every line
crossing the box: a notch (issue 35 item 3). The tow crosses the box along x, a ping every
0.2 m (2 m/s at 10 Hz). The fans beside the box are cut at their -3 dB edge
(``cast_to_nadir`` off), so that their steepest ray is the 45 degree one above; cast to nadir
(the default) the nearest return is straight down, and an object under the track is the case
that matters (``test_the_bottom_track_ignores_an_object_straight_below``).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from flat_seabed import box_model, seabed_file, sidescan_echo

from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.altitude import AltitudeSource
from nps_sonar_py.sensing.sidescan import SidescanConfig, SidescanSonar
from nps_sonar_py.sensing.waterfall import ground_range_profiles

H = 9.53
BOX_H, BOX_LENGTH = 1.32, 1.0  # the box: 1 m along track at x = 5, y 7.5 to 9.5 m to port
MAX_RANGE, N_BINS = 30.0, 800
SAMPLES = 1200
DG = MAX_RANGE / SAMPLES
XS = np.arange(0.0, 10.0, 0.2)  # the tow's positions along x


def world(folder: Path, y: float, width: float) -> Raycaster:
    """The seabed and the box, ``width`` m across at ``y`` m (its middle)."""
    box = box_model('box', 0.3, (5, y, BOX_H / 2), f'{BOX_LENGTH} {width} {BOX_H}')
    return Raycaster(load_world(str(seabed_file(folder / 'box.world', 0.3, box))))


@pytest.fixture(scope='module')
def beside(tmp_path_factory: pytest.TempPathFactory) -> Raycaster:
    """The box in the port fan, where its steepest ray meets the box's top."""
    return world(tmp_path_factory.mktemp('beside'), 8.5, 2.0)


@pytest.fixture(scope='module')
def below(tmp_path_factory: pytest.TempPathFactory) -> Raycaster:
    """The box straight under the track."""
    return world(tmp_path_factory.mktemp('below'), 0.0, 2.0)


def sonar(config: SidescanConfig) -> SidescanSonar:
    return SidescanSonar(sidescan_echo(MAX_RANGE, N_BINS), config, np.eye(4))


def tow(caster: Raycaster, config: SidescanConfig) -> tuple[np.ndarray, np.ndarray]:
    """Each ping's altitude and its starboard seabed's first ground-range sample, m."""
    s = sonar(config)
    altitudes, firsts = [], []
    for x in XS:
        pose = np.eye(4)
        pose[0, 3], pose[2, 3] = x, H
        s.set_pose(pose)
        ping = s.ping(caster)
        ground = ground_range_profiles(
            ping.profiles, ping.bin_edges, ping.altitude, samples=SAMPLES
        )
        altitudes.append(ping.altitude)
        firsts.append(np.flatnonzero(ground[1])[0] * DG)
    return np.array(altitudes), np.array(firsts)


#: The first starboard seabed return: the steepest ray, 45 degrees, at ground range h.
SEABED_FIRST = H
#: Where it lands with the box's top taken as the altitude (the notch).
NOTCHED = math.sqrt(2.0 * H * H - (H - BOX_H) ** 2)


def test_the_nearest_return_alone_makes_a_notch(beside: Raycaster) -> None:
    # negative control: each ping's own first return (the altitude before issue 35)
    altitudes, firsts = tow(beside, SidescanConfig(bottom_track_pings=1, cast_to_nadir=False))
    crossing = np.abs(altitudes - (H - BOX_H)) < 1e-3
    assert 3 <= crossing.sum() <= 7  # the lines whose steepest port rays meet the box
    np.testing.assert_allclose(firsts[crossing], NOTCHED, atol=2 * DG)
    assert np.all(firsts[crossing] > SEABED_FIRST + 0.5)


@pytest.mark.parametrize(
    'config',
    [
        SidescanConfig(cast_to_nadir=False),
        SidescanConfig(altitude=AltitudeSource.ALTIMETER, cast_to_nadir=False),
    ],
    ids=['bottom-track', 'altimeter'],
)
def test_an_object_in_the_fan_leaves_the_altitude_and_the_seabed(
    beside: Raycaster, config: SidescanConfig
) -> None:
    altitudes, firsts = tow(beside, config)
    np.testing.assert_allclose(altitudes, H, atol=1e-4)
    # no notch: every line's starboard seabed starts at ground range h
    np.testing.assert_allclose(firsts, SEABED_FIRST, atol=2 * DG)


def test_the_bottom_track_ignores_an_object_straight_below(below: Raycaster) -> None:
    # a fan over nadir (60 degrees tilt, 70 wide) sees the box under the track
    config = SidescanConfig(tilt=math.radians(60.0), vertical_width=math.radians(70.0))
    raw, _ = tow(
        below,
        SidescanConfig(
            tilt=config.tilt, vertical_width=config.vertical_width, bottom_track_pings=1
        ),
    )
    over = np.abs(XS - 5.0) < 0.5 * BOX_LENGTH
    assert np.all(np.abs(raw[over] - (H - BOX_H)) < 1e-3)  # negative control: the box's top
    tracked, _ = tow(below, config)
    np.testing.assert_allclose(tracked, H, atol=1e-4)


def test_the_altimeter_reads_what_is_straight_below(below: Raycaster) -> None:
    altitudes, _ = tow(below, SidescanConfig(altitude=AltitudeSource.ALTIMETER))
    over = np.abs(XS - 5.0) < 0.5 * BOX_LENGTH - 1e-9
    np.testing.assert_allclose(altitudes[over], H - BOX_H, atol=1e-4)
    np.testing.assert_allclose(altitudes[~over & (np.abs(XS - 5.0) > 0.6)], H, atol=1e-4)


def test_the_bottom_track_follows_the_sensors_own_heave(beside: Raycaster) -> None:
    # the track holds the seabed's level, so a sensor rising and falling (no box here: x < 4)
    # has its true altitude at once, with no lag
    s = sonar(SidescanConfig())
    heights = H + 2.0 * np.sin(np.arange(20) * 0.7)
    for z in heights:
        pose = np.eye(4)
        pose[2, 3] = z
        s.set_pose(pose)
        assert s.ping(beside).altitude == pytest.approx(z, abs=1e-4)


def test_a_bad_bottom_track_is_refused_in_one_line() -> None:
    with pytest.raises(ConfigurationError, match='bottom_track_pings must be') as caught:
        SidescanConfig(bottom_track_pings=0)
    assert '\n' not in str(caught.value)
