"""Ground range and the waterfall against their definitions, and a target passed along a track.

Flat bottom at altitude h: a return at slant range r lies at ground range g = sqrt(r**2 - h**2)
(so the slant bin [r0, r1] covers the ground ranges [sqrt(r0**2 - h**2), sqrt(r1**2 - h**2)]);
the water column r < h has no ground range. A line is port reversed then starboard; the newest
line is row 0; with ``line_spacing`` s, the line of the ping at along-track distance k s from
the first is line k, on row (lines added - 1 - k).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from flat_seabed import box_model, seabed_file
from numpy.typing import NDArray

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.sidescan import SidescanConfig, SidescanPing, SidescanSonar
from nps_sonar_py.sensing.waterfall import (
    MAX_WATERFALL_LINES,
    MAX_WATERFALL_PIXELS,
    MAX_WATERFALL_SAMPLES,
    Waterfall,
    WaterfallConfig,
    ground_range_profiles,
)

EDGES = np.linspace(0.0, 40.0, 801)  # 5 cm slant bins
TARGET_X, TARGET_Y = 5.0, 15.0
H = 10.0


def synthetic(port: NDArray[np.float64], starboard: NDArray[np.float64]) -> SidescanPing:
    profiles = np.vstack((port, starboard))
    return SidescanPing(profiles, EDGES, H)


def test_a_slant_bin_lands_at_its_ground_range() -> None:
    h = 7.0
    for i in (150, 200, 433, 799):  # slant 7.5 m (just past the altitude) to the last bin
        profiles = np.zeros((2, 800))
        profiles[0, i] = 1.0
        profiles[1, i] = 2.0
        ground = ground_range_profiles(profiles, EDGES, h, samples=4000, max_ground_range=40.0)
        g = (np.arange(4000) + 0.5) * 0.01
        r0, r1 = EDGES[i], EDGES[i + 1]
        inside = (g >= math.sqrt(max(r0**2 - h**2, 0.0))) & (g < math.sqrt(r1**2 - h**2))
        np.testing.assert_array_equal(ground[0] > 0.0, inside)
        np.testing.assert_array_equal(ground[1][inside], 2.0)


def test_the_water_column_is_removed_in_ground_range() -> None:
    profiles = np.ones((2, 800))
    ground = ground_range_profiles(profiles, EDGES, H)
    g = (np.arange(800) + 0.5) * 0.05
    # Every ground sample reads a slant bin at or beyond H; past sqrt(40**2 - H**2) nothing.
    np.testing.assert_array_equal(ground[:, g < math.sqrt(40.0**2 - H**2)], 1.0)
    np.testing.assert_array_equal(ground[:, g > math.sqrt(40.0**2 - H**2)], 0.0)
    marked = np.zeros((2, 800))
    marked[:, : int(H / 0.05)] = 1.0  # only the water column
    assert not ground_range_profiles(marked, EDGES, H).any()
    assert not ground_range_profiles(profiles, EDGES, math.nan).any()


def test_line_layout_port_reversed_left_newest_on_top() -> None:
    port = np.arange(1.0, 801.0)
    starboard = 1000.0 + np.arange(800.0)
    waterfall = Waterfall(WaterfallConfig(3, 800))
    assert waterfall.add(synthetic(port, starboard), np.zeros(3))
    assert waterfall.add(synthetic(2 * port, 2 * starboard), np.zeros(3))
    image = waterfall.image()
    assert image.shape == (3, 1600)
    assert image.dtype == np.float32
    np.testing.assert_array_equal(image[0, :800], 2 * port[::-1])  # far port at column 0
    np.testing.assert_array_equal(image[0, 800:], 2 * starboard)  # nadir in the middle
    np.testing.assert_array_equal(image[1, :800], port[::-1])
    np.testing.assert_array_equal(image[2], 0.0)  # not filled yet


def test_line_spacing_adds_lines_per_distance_travelled() -> None:
    ping = synthetic(np.ones(800), np.ones(800))
    waterfall = Waterfall(WaterfallConfig(10, 100, line_spacing=0.5))
    assert waterfall.add(ping, [0.0, 0.0, 0.0])  # the first ping starts the track
    assert not waterfall.add(ping, [0.3, 0.0, 0.0])
    assert waterfall.add(ping, [0.3, 0.4, -5.0])  # 0.3 + 0.4 m travelled: one line; z ignored
    assert not waterfall.add(ping, [0.3, 0.6, 0.0])  # 0.2 + 0.2 m: not yet
    # 0.4 m carried over and a jump of 1.2 m: 3.2 spacings add 3 copies of the ping's line.
    other = synthetic(np.full(800, 7.0), np.full(800, 7.0))
    assert waterfall.add(other, [0.3, 0.6 + 1.2, 0.0])
    image = waterfall.image()
    np.testing.assert_array_equal(image[:3], 7.0)
    np.testing.assert_array_equal(image[3:5], 1.0)
    np.testing.assert_array_equal(image[5:], 0.0)


def test_a_jump_of_more_spacings_than_lines_fills_the_image_once() -> None:
    waterfall = Waterfall(WaterfallConfig(4, 10, line_spacing=1.0))
    waterfall.add(synthetic(np.ones(800), np.ones(800)), np.zeros(3))
    assert waterfall.add(synthetic(np.full(800, 3.0), np.ones(800)), [1e5, 0.0, 0.0])
    np.testing.assert_array_equal(waterfall.image()[:, :10], 3.0)


def test_slant_samples_resample_the_bins_by_nearest_bin() -> None:
    port = np.arange(800.0)
    waterfall = Waterfall(
        WaterfallConfig(1, 400)
    )  # two bins per sample: the bin at the sample's centre
    waterfall.add(synthetic(port, port), np.zeros(3))
    np.testing.assert_array_equal(waterfall.image()[0, 400:], port[1::2])


@pytest.fixture(scope='module')
def target(tmp_path_factory: pytest.TempPathFactory) -> Raycaster:
    path = tmp_path_factory.mktemp('track') / 'track.world'
    box = box_model('target', 0.9, (TARGET_X, TARGET_Y, 0.5), '0.2 1 1')
    return Raycaster(load_world(str(seabed_file(path, 0.2, box))))


@pytest.mark.parametrize('ground_range', [False, True])
def test_a_target_lands_on_the_row_the_line_spacing_predicts(
    target: Raycaster, ground_range: bool
) -> None:
    echo = EchoConfig(
        pattern=BeamPattern.PISTON,
        absorption=Absorption.NONE,
        min_range=0.0,
        max_range=40.0,
        n_bins=800,
    )
    # 1 degree along track: at 18 m the beam is 0.31 m wide, the target 0.2 m: only the
    # pings within 0.26 m of x = 5 m see it, and of the lines (every 0.5 m) only x = 5 m.
    sonar = SidescanSonar(echo, SidescanConfig(), np.eye(4))
    spacing, step = 0.5, 0.1
    waterfall = Waterfall(
        WaterfallConfig(30, 800, ground_range=ground_range, line_spacing=spacing)
    )
    added = 0
    for i in range(101):  # x = 0 .. 10 m
        pose = np.eye(4)
        pose[0, 3], pose[2, 3] = i * step, H
        sonar.set_pose(pose)
        added += waterfall.add(sonar.ping(target), pose[:3, 3])
    assert added == 21
    image = waterfall.image()
    np.testing.assert_array_equal(image[21:], 0.0)
    bare = image[20]  # line 0, x = 0: bare seabed
    changed = np.flatnonzero(np.any(np.abs(image[:21] - bare) > 1e-3 * bare.max(), axis=1))
    k = round(TARGET_X / spacing)
    assert changed.tolist() == [21 - 1 - k]
    # The target is to port (left half), starboard identical on every line.
    np.testing.assert_allclose(image[:21, 800:], np.broadcast_to(bare[800:], (21, 800)), rtol=1e-4)
    column = np.argmax(np.abs(image[21 - 1 - k] - bare))
    assert column < 800


@pytest.mark.parametrize(
    ('args', 'kwargs', 'message'),
    [
        ((0, 10), {}, f'lines must be an integer in [1, {MAX_WATERFALL_LINES}]'),
        ((10**9, 10), {}, 'lines must be an integer'),
        ((10, MAX_WATERFALL_SAMPLES + 1), {}, 'samples must be an integer'),
        ((10, 2.5), {}, 'samples must be an integer'),
        ((MAX_WATERFALL_LINES, MAX_WATERFALL_SAMPLES), {}, f'over {MAX_WATERFALL_PIXELS} pixels'),
        ((10, 10), {'line_spacing': -1.0}, 'line_spacing must be 0 or a finite number in [0.001'),
        ((10, 10), {'line_spacing': math.nan}, 'line_spacing must be 0 or a finite number in'),
        ((10, 10), {'ground_range': 'yes'}, 'ground_range must be true or false'),
    ],
)
def test_bad_waterfall_sizes_are_refused_in_one_line(
    args: tuple[object, object], kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        WaterfallConfig(*args, **kwargs)  # type: ignore[arg-type]
    assert message in str(caught.value)
    assert '\n' not in str(caught.value)


def test_bad_ground_range_sizes_are_refused_before_allocating() -> None:
    profiles = np.zeros((2, 800))
    with pytest.raises(ConfigurationError, match='samples must be an integer'):
        ground_range_profiles(profiles, EDGES, H, samples=10**12)
    with pytest.raises(ConfigurationError, match='max_ground_range must be > 0 m'):
        ground_range_profiles(profiles, EDGES, H, max_ground_range=-1.0)
    with pytest.raises(ValueError, match=r'profiles \(2, n\) and bin_edges'):
        ground_range_profiles(np.zeros((3, 800)), EDGES, H)
