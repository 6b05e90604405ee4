"""Sonar images (``sensing/images.py``) of a fan that sees a wall, placed by hand.

The wall is the plane x = D in front of the sonar (``PlaneCaster``, analytic: a ray of
direction d meets it at range D / d_x, incidence cos = d_x, mu = 1). Beam j of the fan points
at azimuth a_j; its rays (3 columns across +-h about the axis, ``rays_vertical`` rows across
+-V/2, at cell centres) meet the wall at D / (cos e cos(a_j + o)). D is the centre of bin K,
and the boresight beam is so narrow that all of its echo falls in bin K.

Pixel conventions (module docstring): polar ``image[r, c] = profiles[N - 1 - c, M - 1 - r]``;
Cartesian pixel (row, col) centred on x = (origin_row - row) m, y = (origin_col - col) m.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.typing import NDArray

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.scene.hits import RayHits
from nps_sonar_py.sensing.images import (
    CartesianImager,
    DbWindow,
    SectorGeometry,
    SweepProfiles,
    db_pixels,
    polar_image,
    size_problem,
)
from nps_sonar_py.sensing.multibeam import FanConfig, FanPing, MultibeamSonar

MIN_RANGE, MAX_RANGE, N_BINS = 0.5, 10.5, 200
W = (MAX_RANGE - MIN_RANGE) / N_BINS  # 0.05 m bins
K = 70
D = MIN_RANGE + (K + 0.5) * W  # 4.025 m: the centre of bin K
M_PER_PX = 0.025  # D / M_PER_PX = 161 pixels
N_BEAMS, FIRST, LAST = 21, -0.5, 0.5
SPACING = (LAST - FIRST) / (N_BEAMS - 1)
H = math.radians(0.75)  # half the beam width
V = math.radians(4.0)  # vertical width
ROWS = 5


def plane_hits(directions: NDArray[np.float64]) -> RayHits:
    dx = directions[:, 0] / np.linalg.norm(directions, axis=1)
    ahead = dx > 0.0
    ranges = np.where(ahead, D / np.where(ahead, dx, 1.0), np.inf)
    return RayHits.of(ranges, (-1.0, 0.0, 0.0), np.where(ahead, dx, 0.0), np.ones(dx.size))


class PlaneCaster:
    """The wall x = D, analytically."""

    def cast(self, origins: NDArray[np.float64], directions: NDArray[np.float64]) -> RayHits:
        assert np.allclose(origins, 0.0)
        return plane_hits(np.asarray(directions, dtype=np.float64))


@pytest.fixture(scope='module')
def ping() -> FanPing:
    echo = EchoConfig(
        beam_width=2 * H,
        pattern=BeamPattern.UNIFORM,
        n_way=1,
        min_range=MIN_RANGE,
        max_range=MAX_RANGE,
        n_bins=N_BINS,
        absorption=Absorption.NONE,
        sound_speed=1500.0,
    )
    fan = FanConfig(
        beams=N_BEAMS,
        min_angle=FIRST,
        max_angle=LAST,
        vertical_width=V,
        rays_horizontal=3,
        rays_vertical=ROWS,
    )
    return MultibeamSonar(echo, fan, np.eye(4)).ping(PlaneCaster())


def geometry() -> SectorGeometry:
    return SectorGeometry(N_BEAMS, FIRST, SPACING, 2 * H, MIN_RANGE, MAX_RANGE, N_BINS)


def echo_bins(azimuth: float) -> tuple[int, int]:
    """The first and last bins of the wall's echo in the beam at ``azimuth``, by hand."""
    offsets = -H + (np.arange(3) + 0.5) * 2 * H / 3
    elevations = -V / 2 + (np.arange(ROWS) + 0.5) * V / ROWS
    ranges = D / (np.cos(elevations)[:, None] * np.cos(azimuth + offsets)[None, :])
    low, high = ranges.min(), ranges.max()
    return int((low - MIN_RANGE) // W), int((high - MIN_RANGE) // W)


def test_the_polar_image_puts_the_wall_where_each_beam_sees_it(ping: FanPing) -> None:
    image = polar_image(ping.profiles)
    assert image.shape == (N_BINS, N_BEAMS)
    assert image.dtype == np.float32
    azimuths = FIRST + SPACING * np.arange(N_BEAMS)
    for j, a in enumerate(azimuths):
        column = image[:, N_BEAMS - 1 - j]  # column 0 is the leftmost (largest azimuth) beam
        first, last = echo_bins(a)
        lit = np.flatnonzero(column > 0)
        rows = {N_BINS - 1 - k for k in range(first, last + 1)}  # row 0 is the farthest bin
        assert set(lit.tolist()) <= rows
        assert {N_BINS - 1 - first, N_BINS - 1 - last} <= set(lit.tolist())
    # The boresight beam (j = 10) has all of its echo in bin K.
    assert echo_bins(0.0) == (K, K)
    centre = image[:, N_BEAMS // 2]
    assert np.flatnonzero(centre).tolist() == [N_BINS - 1 - K]
    np.testing.assert_array_equal(image, ping.profiles[::-1, ::-1].T.astype(np.float32))


def test_the_cartesian_fan_puts_the_wall_d_over_m_pixels_above_the_sensor(
    ping: FanPing,
) -> None:
    imager = CartesianImager(geometry(), M_PER_PX, 'linear', max_pixels=10**7)
    # Bounding box: up to MAX_RANGE ahead, +-MAX_RANGE sin(LAST + SPACING / 2) across.
    half_width = MAX_RANGE * math.sin(LAST + SPACING / 2)
    assert imager.origin_row == math.ceil(MAX_RANGE / M_PER_PX)  # the sensor in the bottom row
    assert imager.height == imager.origin_row + 1
    assert imager.origin_col == math.ceil(half_width / M_PER_PX - 1e-9)
    assert imager.width == 2 * imager.origin_col + 1
    image = imager.image(ping.profiles)
    # Straight ahead (the boresight beam's axis, column origin_col) the echo is at x = D.
    column = image[:, imager.origin_col]
    wall_row = imager.origin_row - round(D / M_PER_PX)
    assert int(np.nanargmax(column)) == wall_row
    # On the beam's axis at bin K's centre the weights are 1: the pixel is the bin's value.
    assert column[wall_row] == pytest.approx(ping.profiles[N_BEAMS // 2, K], rel=1e-6)
    # Nearer than min_range, beyond max_range and outside the fan: NaN.
    assert np.isnan(image[imager.origin_row, imager.origin_col])
    assert np.isnan(image[0, 0])  # a corner: beyond max_range
    outside_row = imager.origin_row - round(D / M_PER_PX)
    beyond = math.ceil(D * math.tan(LAST + SPACING / 2 + 0.02) / M_PER_PX)
    assert np.isnan(image[outside_row, imager.origin_col - beyond])


def test_a_target_on_the_sensors_left_is_on_the_images_left(ping: FanPing) -> None:
    """+y, the sensor's left, is the image's left: col = origin_col - y / m (REP 103)."""
    imager = CartesianImager(geometry(), M_PER_PX, 'linear', max_pixels=10**7)
    azimuths = FIRST + SPACING * np.arange(N_BEAMS)
    # The wall seen by the beams of positive azimuth only (the others silenced): a target on
    # the left. Beam 14 (azimuth 0.2) meets it at x = D, y = D tan(0.2) > 0.
    left_only = np.where((azimuths > 0.0)[:, None], ping.profiles, 0.0)
    image = imager.image(left_only)
    row = imager.origin_row - round(D / M_PER_PX)
    offset = round(D * math.tan(FIRST + 14 * SPACING) / M_PER_PX)  # 33 columns
    assert image[row, imager.origin_col - offset] > 0.0  # left of the sensor's column
    assert image[row, imager.origin_col + offset] == 0.0  # its mirror image: silent
    # Every pixel right of the sensor's column (y < 0) lies between silent beams.
    assert np.nansum(image[:, imager.origin_col :]) == 0.0
    assert np.nansum(image[:, : imager.origin_col]) > 0.0


def test_nearest_takes_the_beam_and_bin_a_pixel_is_in(ping: FanPing) -> None:
    imager = CartesianImager(geometry(), M_PER_PX, 'nearest', max_pixels=10**7)
    image = imager.image(ping.profiles)
    j = 14  # azimuth 0.2
    a = FIRST + j * SPACING
    row = imager.origin_row - round(D / M_PER_PX)
    col = imager.origin_col - round(D * math.tan(a) / M_PER_PX)
    x, y = (imager.origin_row - row) * M_PER_PX, (imager.origin_col - col) * M_PER_PX
    beam = math.floor((math.atan2(y, x) - FIRST + SPACING / 2) / SPACING)
    k = math.floor((math.hypot(x, y) - MIN_RANGE) / W)
    assert beam == j
    assert image[row, col] == np.float32(ping.profiles[beam, k])


def test_a_nearest_pixel_on_an_edge_takes_the_cell_that_starts_there() -> None:
    """Pixels a bin apart on the edge between two beams: each takes the farther bin and the
    beam of larger azimuth (module docstring); without the edge rule float rounding sends
    some of them to the nearer bin (the negative control: floor of the rounded values)."""
    bin_width = 0.1
    # Two beams at -45 and +45 degrees: their cells meet on the x axis, the pixels' column.
    g = SectorGeometry(2, -math.pi / 4, math.pi / 2, 0.1, 0.0, 30.0, 300)
    profiles = np.stack([np.arange(300.0), 1000.0 + np.arange(300.0)])
    imager = CartesianImager(g, bin_width, 'nearest', max_pixels=10**7)
    x = (imager.origin_row - np.arange(imager.height)) * bin_width
    column = imager.image(profiles)[:, imager.origin_col]
    on = (x > 0.0) & (x < 30.0 - 1e-9)
    farther = np.rint(x[on] / bin_width)  # the bin that starts at each pixel
    np.testing.assert_array_equal(column[on], 1000.0 + farther)
    rounded = np.floor(x[on] / bin_width)  # without the rule: some fall short of their edge
    assert np.any(rounded != farther)


def test_a_full_turn_is_a_disc_with_x_up_and_y_left() -> None:
    # Four beams at 0, 90, 180 and 270 degrees; beam b echoes in bin 10 + b only.
    g = SectorGeometry(4, 0.0, math.pi / 2, 0.1, 0.0, 10.0, 100)
    assert g.full_circle
    profiles = np.zeros((4, 100))
    profiles[np.arange(4), 10 + np.arange(4)] = 1.0 + np.arange(4)
    imager = CartesianImager(g, 0.1, 'linear', max_pixels=10**6)
    assert (imager.height, imager.width) == (201, 201)
    assert (imager.origin_row, imager.origin_col) == (100, 100)
    image = imager.image(profiles)
    o = 100
    # Bin 10 + b has its centre at 1.05 + 0.1 b m, between pixel centres: 10 + b and 11 + b px.
    for b, (dr, dc) in enumerate(((-1, 0), (0, -1), (1, 0), (0, 1))):  # ahead, left, behind, right
        along = [image[o + dr * n, o + dc * n] for n in (10 + b, 11 + b)]
        assert along == pytest.approx([0.5 * (1.0 + b)] * 2, rel=1e-5)


def test_db_pixels_follow_the_window_formula() -> None:
    low, high = -90.0, -30.0
    levels = np.array([-120.0, -90.0, -75.0, -60.0, -30.0, -10.0])
    for bits in (8, 16):
        window = DbWindow(low, high, bits)
        assert window.encoding == f'mono{bits}'
        top = 2**bits - 1
        expected = [round((min(max(v, low), high) - low) / (high - low) * top) for v in levels]
        pixels = db_pixels(10.0 ** (levels / 10.0), window)
        assert pixels.dtype == (np.uint8 if bits == 8 else np.uint16)
        assert pixels.tolist() == expected
        assert expected[1:5] == [0, round(top / 4), round(top / 2), top]
        # Silent bins and NaN (outside a Cartesian fan) are 0; the source level shifts levels.
        assert db_pixels(np.array([0.0, np.nan]), window).tolist() == [0, 0]
        shifted = db_pixels(10.0 ** ((levels - 20.0) / 10.0), window, source_level=20.0)
        assert shifted.tolist() == expected


@pytest.mark.parametrize(
    ('low', 'high', 'bits', 'words'),
    [
        (-20.0, -20.0, 8, 'low < high'),
        (-90.0, float('nan'), 8, 'finite'),
        (-90, -30, 12, '8 or 16'),
    ],
)
def test_a_bad_db_window_is_one_line(low: float, high: float, bits: int, words: str) -> None:
    with pytest.raises(ConfigurationError, match=words):
        DbWindow(low, high, bits)


def test_images_over_the_limit_or_memory_are_refused_before_allocation() -> None:
    with pytest.raises(ConfigurationError) as refused:
        CartesianImager(geometry(), 1e-4, max_pixels=4_000_000)
    text = str(refused.value)
    # 10.5 m up and 10.5 sin(0.525) m either side at 0.1 mm: (105000 + 1) x (2 * 52571 + 1).
    assert 'more than image_max_pixels (4000000)' in text
    assert '\n' not in text
    width = 2 * math.ceil(MAX_RANGE * math.sin(LAST + SPACING / 2) / 1e-4) + 1
    assert f'{width} x {105_001}' in text
    # A terabyte image with no pixel limit: refused by the memory available, nothing allocated.
    problem = size_problem('polar image', 10**6, 10**6, 4, max_pixels=2**62)
    assert problem is not None
    assert 'MiB of memory available' in problem
    assert size_problem('polar image', 200, 21, 4, max_pixels=4200) is None
    assert 'image_max_pixels (4199)' in (size_problem('polar image', 200, 21, 4, 4199) or '')


@pytest.mark.parametrize('metres_per_pixel', [1e-310, 1e-307, 1e-200])
def test_an_absurd_resolution_is_one_short_line(metres_per_pixel: float) -> None:
    """No OverflowError and no 300-digit count: float counts, refused before ``math.ceil``."""
    m = metres_per_pixel
    # Up to MAX_RANGE ahead (and the sensor's row), MAX_RANGE sin(LAST + SPACING / 2) either side.
    height = MAX_RANGE / m + 1.0
    width = 2.0 * MAX_RANGE * math.sin(LAST + SPACING / 2) / m + 1.0
    with pytest.raises(ConfigurationError) as refused:
        CartesianImager(geometry(), m, max_pixels=4_000_000)
    text = str(refused.value)
    pixels = height * width
    assert math.isinf(pixels)  # even 1.05e201 x 1.05e201 overflows a float
    assert text == (
        f'Cartesian image: {width:.3g} x {height:.3g} = inf pixels, '
        'more than image_max_pixels (4000000)'
    )
    assert len(text) < 100


def test_a_resolution_coarser_than_the_fan_is_refused() -> None:
    # At 1000 m per pixel every pixel centre is 0 m (nearer than MIN_RANGE) or >= 1000 m
    # (beyond MAX_RANGE) from the sensor: none is inside.
    with pytest.raises(ConfigurationError) as refused:
        CartesianImager(geometry(), 1000.0, max_pixels=10**6)
    assert str(refused.value) == (
        'Cartesian image: no pixel centre inside the sector out to 10.5 m, got 1000 m per pixel'
    )
    # Half of MIN_RANGE per pixel still has a pixel centre at 0.5 m on the fan's axis.
    assert CartesianImager(geometry(), MIN_RANGE / 2, max_pixels=10**6).height == 43


@pytest.mark.parametrize('interpolation', ['linear', 'nearest'])
def test_the_memory_budget_covers_the_measured_peak(interpolation: str) -> None:
    """Build a disc's lookup, make a mono8 image and its bytes: the peak stays in budget."""
    import tracemalloc

    from nps_sonar_py.sensing.images import _PEAK_BYTES

    # A full turn: pi / 4 of the bounding box inside, the most any sector has.
    g = SectorGeometry(90, -math.pi, 2 * math.pi / 90, 0.1, 0.0, 10.0, 300)
    profiles = np.full((90, 300), 1e-3)  # every bin above the dB window's floor
    tracemalloc.start()
    try:
        imager = CartesianImager(g, 0.02, interpolation, max_pixels=10**7)
        data = db_pixels(imager.image(profiles), DbWindow()).tobytes()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    pixels = imager.height * imager.width
    assert pixels == 1001 * 1001
    assert len(data) == pixels
    assert peak / pixels <= _PEAK_BYTES[interpolation]


def test_bad_imager_arguments_are_refused() -> None:
    with pytest.raises(ConfigurationError, match='metres per pixel'):
        CartesianImager(geometry(), 0.0, max_pixels=10)
    with pytest.raises(ConfigurationError, match='linear or nearest'):
        CartesianImager(geometry(), 0.1, 'cubic', max_pixels=10**6)
    imager = CartesianImager(geometry(), 0.1, max_pixels=10**6)
    with pytest.raises(ValueError, match='shape'):
        imager.image(np.zeros((3, 3)))


def test_sweep_profiles_keep_the_latest_ping_per_head_angle() -> None:
    latest = SweepProfiles(3, 2)
    latest.update(1, np.array([1.0, 2.0]))
    latest.update(1, np.array([3.0, 4.0]))
    assert latest.profiles.tolist() == [[0.0, 0.0], [3.0, 4.0], [0.0, 0.0]]
    latest.restart()
    assert not latest.profiles.any()


@pytest.mark.parametrize(
    ('fields', 'words'),
    [
        ({'image_db_bits': 12}, 'image_db_bits must be 8 or 16, got 12'),
        ({'image_db_min': -10.0, 'image_db_max': -20.0}, 'must be below image_db_max'),
        (
            {'image_interpolation': 'cubic'},
            "image_interpolation must be linear or nearest, got 'cubic'",
        ),
        ({'image_encoding': 'rgb8'}, 'image_encoding must be db or 32FC1'),
        ({'sweep_image_update': 'turn'}, 'sweep_image_update must be sweep or step'),
    ],
)
def test_bad_image_settings_are_one_line(fields: dict[str, object], words: str) -> None:
    from nps_sonar_py.devices.settings import ImageSettings

    with pytest.raises(ConfigurationError, match=words) as refused:
        ImageSettings(**fields)  # type: ignore[arg-type]
    assert '\n' not in str(refused.value)
