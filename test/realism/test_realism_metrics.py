"""The realism measures against closed forms, each with a negative control."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.ndimage import uniform_filter1d

from nps_sonar_py.realism.metrics import (
    LEVEL_BINS,
    contrast_db,
    earth_movers,
    grain_length,
    jensen_shannon,
    lbp_histogram,
    level_histogram,
    level_profile_db,
    speckle_by_band,
    speckle_index,
)

RNG = np.random.default_rng(34)


@pytest.mark.parametrize('looks', [1, 4])
def test_speckle_index_of_gamma_intensity_is_one_over_the_looks(looks: int) -> None:
    # L-look intensity: gamma with shape L, scintillation index 1/L
    image = RNG.gamma(looks, 1.0 / looks, (256, 512))
    assert speckle_index(image) == pytest.approx(1.0 / looks, rel=0.1)
    # the median of 16 x 16 patches sits a little under the mean (a skewed estimate)
    bands = speckle_by_band(image * np.linspace(1.0, 100.0, 512), 4)
    assert bands == pytest.approx(np.full(4, 1.0 / looks), rel=0.12)  # a trend does not count
    # control: a constant image has none, and a whole-image variance would count the trend
    assert speckle_index(np.ones((32, 32))) == 0.0
    trend = image * np.linspace(1.0, 100.0, 512)
    assert trend.var() / trend.mean() ** 2 > 1.5 / looks


def test_jensen_shannon_and_earth_movers_closed_forms() -> None:
    p = np.zeros(LEVEL_BINS.size - 1)
    p[10] = 1.0
    q = np.roll(p, 6)
    assert jensen_shannon(p, p) == 0.0
    assert jensen_shannon(p, q) == pytest.approx(1.0)  # disjoint: one bit
    step = LEVEL_BINS[1] - LEVEL_BINS[0]
    assert earth_movers(p, q) == pytest.approx(6 * step)  # moved six bins
    half = 0.5 * (p + q)
    assert jensen_shannon(p, half) == pytest.approx(1.5 - 0.75 * math.log2(3.0))
    # control: EMD sees how far, JS does not
    assert jensen_shannon(p, np.roll(p, 20)) == pytest.approx(jensen_shannon(p, q))
    assert earth_movers(p, np.roll(p, 20)) > 3 * earth_movers(p, q)


def test_level_histogram_of_exponential_intensity() -> None:
    image = RNG.exponential(2.0, (200, 200))
    histogram = level_histogram(image)
    # P(10 log10(I / mean) <= x) = 1 - exp(-10**(x/10)) for exponential intensity
    cdf = np.cumsum(histogram)
    expected = 1.0 - np.exp(-(10.0 ** (LEVEL_BINS[1:] / 10.0)))
    assert np.max(np.abs(cdf[:-1] - expected[:-1])) < 0.01
    # control: a gain changes nothing; a square (amplitude for intensity) does
    assert jensen_shannon(level_histogram(50.0 * image), histogram) < 1e-12
    assert earth_movers(level_histogram(image**2), histogram) > 1.0


def test_lbp_of_a_flat_image_and_a_checkerboard() -> None:
    flat = lbp_histogram(np.ones((20, 20)))
    assert flat[8] == 1.0  # every neighbour at least the centre: eight ones
    board = np.indices((20, 20)).sum(axis=0) % 2
    histogram = lbp_histogram(board.astype(float))
    # dark centres: all eight neighbours >= them; bright centres: 10101010, not uniform
    assert histogram[8] == pytest.approx(0.5)
    assert histogram[9] == pytest.approx(0.5)
    # control: a ramp is uniform (three ones or five): no code 9
    ramp = lbp_histogram(np.add.outer(np.arange(20.0), np.arange(20.0)))
    assert ramp[9] == 0.0


def test_grain_length_of_white_and_moving_average_noise() -> None:
    white = RNG.standard_normal((512, 512)) + 10.0
    # white: rho(1) ~ 0, the 1/e crossing at 1 - 1/e of a lag
    assert grain_length(white, 1) == pytest.approx(1.0 - math.exp(-1.0), abs=0.05)
    # a 4-sample moving average: rho(k) = (4 - k) / 4, crossing at 4 (1 - 1/e) = 2.53;
    # in long tiles (in 16-sample ones, less their mean, it reads about 10 % shorter)
    smooth = uniform_filter1d(RNG.standard_normal((512, 2048)), 4, axis=1)[:, 8:-8] + 10.0
    assert grain_length(smooth, 1, (16, 256)) == pytest.approx(
        4.0 * (1.0 - math.exp(-1.0)), abs=0.1
    )
    assert grain_length(smooth, 1) == pytest.approx(4.0 * (1.0 - math.exp(-1.0)), rel=0.15)
    # control: across the lines the same image is white
    assert grain_length(smooth, 0) == pytest.approx(1.0 - math.exp(-1.0), abs=0.05)


def test_level_profile_and_contrast() -> None:
    x = np.arange(800)
    image = np.tile(10.0 ** (-0.02 * x / 10.0), (10, 1))  # 0.02 dB a sample
    profile = level_profile_db(image, 8)
    np.testing.assert_allclose(np.diff(profile), -2.0, atol=0.05)  # 100 samples a band
    assert abs(profile.mean()) < 1e-9
    assert contrast_db(np.full(5, 0.01), np.ones(5), 1e-9) == pytest.approx(-20.0)
    # the floor: nothing shows darker than the chain's least code
    assert contrast_db(np.zeros(5), np.ones(5), 1e-4) == pytest.approx(-40.0)


def test_an_empty_image_or_histogram_is_a_named_error() -> None:
    """No positive intensity, or an empty histogram: a one-line ConfigurationError, not NaN."""
    from nps_sonar_py.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match='no positive intensity'):
        level_histogram(np.zeros((8, 8)))
    empty = np.zeros(LEVEL_BINS.size - 1)
    full = level_histogram(np.ones((8, 8)))
    with pytest.raises(ConfigurationError, match='second histogram is empty'):
        jensen_shannon(full, empty)
    with pytest.raises(ConfigurationError, match='first histogram is empty'):
        jensen_shannon(empty, full)
    # control: one positive pixel is enough, and a histogram of itself is at distance 0
    assert jensen_shannon(full, level_histogram(np.eye(8))) >= 0.0
    assert jensen_shannon(full, full) == 0.0
