"""Many beams in one pass (``EchoModel.echoes``) are, beam by beam, the single-beam ping.

``ping`` is the one-beam case of ``echoes``; these tests hold the two to each other on beams
that differ (ranges inside, outside and below the window, misses, other reflectivities) and
check the flat binning against bins worked out by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from nps_sonar_py.echo import (
    Absorption,
    BeamPattern,
    EchoConfig,
    EchoModel,
    NoiseType,
    RangeEstimator,
    RangeNoise,
)

N_RAYS = 40


def model(**kwargs: object) -> EchoModel:
    settings: dict[str, object] = {
        'beam_width': math.radians(10.0),
        'min_range': 1.0,
        'max_range': 11.0,
        'n_bins': 10,
        'absorption': Absorption.FIXED,
        'fixed_absorption': 0.1,
    }
    settings.update(kwargs)
    config = EchoConfig(**settings)  # type: ignore[arg-type]
    off_axis = np.linspace(0.0, config.cast_half_angle, N_RAYS)
    return EchoModel(config, off_axis, np.full(N_RAYS, 1e-4))


def beams(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Six beams: spread ranges, a miss-only beam, one too close, one past the window."""
    r = rng.uniform(0.5, 12.0, (6, N_RAYS))
    r[1] = np.inf
    r[2, 5] = 0.7  # too close
    r[3] = rng.uniform(11.5, 20.0, N_RAYS)  # nothing in the window
    r[4, ::3] = np.nan  # misses as NaN
    cos = rng.uniform(-1.0, 1.0, r.shape)
    mu = rng.uniform(0.0, 1.0, r.shape)
    mu[~(r < np.inf)] = np.nan  # a raycaster's reflectivity on a miss
    return r, cos, mu


@pytest.mark.parametrize('estimator', list(RangeEstimator))
@pytest.mark.parametrize('dtype', [np.float64, np.float32])
def test_each_beam_of_echoes_is_its_single_ping(estimator: RangeEstimator, dtype: type) -> None:
    m = model(estimator=estimator, threshold_db=-60.0)
    r, cos, mu = beams(np.random.default_rng(7))
    r, cos = r.astype(dtype), cos.astype(dtype)
    echoes = m.echoes(r, cos, mu)
    assert len(echoes) == 6
    assert echoes.intensity.shape == echoes.hits.shape == (6, 10)
    assert echoes.intensity.flags.c_contiguous
    assert echoes.hits.flags.c_contiguous
    assert echoes.hits.dtype == np.int64
    for j in range(6):
        one = m.ping(r[j], cos[j], mu[j])
        np.testing.assert_array_equal(echoes.intensity[j], one.intensity)
        np.testing.assert_array_equal(echoes.hits[j], one.hits)
        assert echoes.totals[j] == one.total
        assert echoes.ranges[j] == one.range or (
            math.isnan(echoes.ranges[j]) and math.isnan(one.range)
        )
        assert echoes.confidence[j] == one.confidence
        assert echoes.beam(j).total == one.total
    assert echoes.ranges[1] == math.inf  # all misses
    assert echoes.ranges[2] == -math.inf  # too close, REP 117
    assert echoes.ranges[3] == math.inf  # nothing in the window
    assert echoes.confidence[1] == echoes.confidence[3] == 0.0
    np.testing.assert_array_equal(echoes.hits[1], 0)
    np.testing.assert_array_equal(echoes.hits[3], 0)


def test_flat_binning_puts_each_return_in_its_own_beam_and_bin() -> None:
    """By hand: bins of 1 m from 1 m; a return at r goes to bin floor(r - 1) of its own beam."""
    m = model(pattern=BeamPattern.UNIFORM, n_way=1, absorption=Absorption.NONE)
    r = np.full((3, N_RAYS), np.inf)
    r[0, 0], r[0, 1] = 1.0, 10.999  # bins 0 and 9
    r[1, 2] = 11.0  # max_range: the last bin
    r[2, 3], r[2, 4] = 5.5, 5.5  # both in bin 4
    echoes = m.echoes(r, np.ones_like(r), 0.5)
    hits = np.zeros((3, 10), dtype=np.int64)
    hits[0, 0] = hits[0, 9] = hits[1, 9] = 1
    hits[2, 4] = 2
    np.testing.assert_array_equal(echoes.hits, hits)
    d_omega = 1e-4  # uniform pattern: each ray returns mu dOmega / r**2
    assert echoes.intensity[2, 4] == pytest.approx(2 * 0.5 * d_omega / 5.5**2, rel=1e-12)
    assert echoes.intensity[1, 9] == pytest.approx(0.5 * d_omega / 11.0**2, rel=1e-12)
    assert echoes.ranges.tolist() == [1.0, 11.0, 5.5]


def test_nan_reflectivity_on_misses_changes_nothing() -> None:
    m = model()
    r, cos, mu = beams(np.random.default_rng(3))
    zero = np.where(np.isnan(mu), 0.0, mu)
    with_nan, with_zero = m.echoes(r, cos, mu), m.echoes(r, cos, zero)
    np.testing.assert_array_equal(with_nan.intensity, with_zero.intensity)
    assert np.all(np.isfinite(with_nan.intensity))


def test_seeded_noise_of_one_beam_draws_as_the_single_ping() -> None:
    noise = RangeNoise(NoiseType.GAUSSIAN, stddev=0.05, bias_mean=0.1, bias_stddev=0.01)
    settings = {'speckle': True, 'gain_stddev': 0.2, 'range_noise': noise, 'seed': 11}
    r, cos, mu = beams(np.random.default_rng(5))
    single = model(**settings).ping(r[0], cos[0], mu[0])
    block = model(**settings).echoes(r[:1], cos[:1], mu[:1])
    np.testing.assert_array_equal(block.intensity[0], single.intensity)
    assert block.ranges[0] == single.range


def test_echoes_checks_shapes() -> None:
    m = model()
    with pytest.raises(ValueError, match=rf'ranges: expected shape \(N, {N_RAYS}\), got \(3,\)'):
        m.echoes(np.ones(3), np.ones(3), 1.0)
    message = rf'cos_incidence: expected shape \(2, {N_RAYS}\), got \(1, {N_RAYS}\)'
    with pytest.raises(ValueError, match=message):
        m.echoes(np.ones((2, N_RAYS)), np.ones((1, N_RAYS)), 1.0)
    with pytest.raises(ValueError, match='reflectivity: expected a scalar or shape'):
        m.echoes(np.ones((2, N_RAYS)), np.ones((2, N_RAYS)), np.ones(3))
