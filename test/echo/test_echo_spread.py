"""A return spread over a slant interval (``EchoModel.echoes(spread=)``) is shared by overlap.

Bins of 1 m from 1 m to 11 m, a uniform pattern, no absorption: ray ``i`` returns
``mu cos dOmega / r**2`` (``docs/physics.md#the-model``). With a spread ``e`` that echo is
laid evenly over ``[r - e/2, r + e/2]``; a bin takes the fraction of the interval inside it,
worked out here by hand, and the part outside the window is lost.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig, EchoModel, ExtraReturns

N_RAYS = 8
D_OMEGA = 1e-4
MU = 0.5


def echo_config(**kwargs: object) -> EchoConfig:
    """1 m bins from 1 to 11 m, a uniform one-way pattern 10 degrees wide, no absorption;
    ``kwargs``: other fields, or these changed."""
    settings: dict[str, object] = {
        'beam_width': math.radians(10.0),
        'pattern': BeamPattern.UNIFORM,
        'n_way': 1,
        'min_range': 1.0,
        'max_range': 11.0,
        'n_bins': 10,
        'absorption': Absorption.NONE,
    }
    settings.update(kwargs)
    return EchoConfig(**settings)  # type: ignore[arg-type]


def model(**kwargs: object) -> EchoModel:
    """``N_RAYS`` rays on the axis over ``echo_config(**kwargs)``."""
    return EchoModel(echo_config(**kwargs), np.zeros(N_RAYS), np.full(N_RAYS, D_OMEGA))


def echo(r: float, cos: float = 1.0) -> float:
    """The whole echo of one ray at range r: mu cos dOmega / r**2."""
    return MU * cos * D_OMEGA / r**2


def one_ray(r: float, e: float, cos: float = 1.0, beams: int = 1) -> tuple[np.ndarray, ...]:
    """Ray 0 of every beam at range r with spread e; every other ray misses."""
    ranges = np.full((beams, N_RAYS), np.inf)
    ranges[:, 0] = r
    spread = np.full((beams, N_RAYS), e)
    return ranges, np.full_like(ranges, cos), spread


def profile(r: float, e: float, cos: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    ranges, cosines, spread = one_ray(r, e, cos)
    echoes = model().echoes(ranges, cosines, MU, spread=spread)
    return echoes.intensity[0], echoes.hits[0]


@pytest.mark.parametrize(
    ('r', 'e', 'shares'),
    [
        (3.8, 0.6, {2: 0.5 / 0.6, 3: 0.1 / 0.6}),  # [3.5, 4.1]: bins [3, 4) and [4, 5)
        (6.0, 1.0, {4: 0.5, 5: 0.5}),  # centred on the edge 6 m, one bin wide
        (5.25, 0.3, {4: 1.0}),  # [5.1, 5.4], inside bin [5, 6)
        (10.0, 0.1, {8: 0.5, 9: 0.5}),  # [9.95, 10.05]
    ],
)
def test_a_return_splits_by_the_overlap_of_its_interval(
    r: float, e: float, shares: dict[int, float]
) -> None:
    intensity, hits = profile(r, e, cos=0.8)
    expected = np.zeros(10)
    for k, share in shares.items():
        expected[k] = share * echo(r, 0.8)
    np.testing.assert_allclose(intensity, expected, rtol=1e-12, atol=0.0)
    np.testing.assert_array_equal(hits, (expected > 0.0).astype(np.int64))


def test_total_energy_is_conserved_inside_the_window() -> None:
    """Intervals away from the window's ends: the sum is the unspread sum, bin shares or not."""
    rng = np.random.default_rng(4)
    r = rng.uniform(1.6, 10.4, (3, N_RAYS))
    cos = rng.uniform(0.1, 1.0, r.shape)
    mu = rng.uniform(0.1, 1.0, r.shape)
    spread = rng.uniform(0.0, 1.0, r.shape)
    m = model()
    spread_echoes, point = m.echoes(r, cos, mu, spread=spread), m.echoes(r, cos, mu)
    np.testing.assert_allclose(spread_echoes.totals, point.totals, rtol=1e-12)
    np.testing.assert_array_equal(spread_echoes.ranges, point.ranges)
    np.testing.assert_array_equal(spread_echoes.confidence, point.confidence)


def test_the_parts_outside_the_window_are_dropped() -> None:
    """[10.9, 11.5] and [0.7, 1.3]: only 0.1 / 0.6 and 0.3 / 0.6 are inside, bins 9 and 0."""
    intensity, hits = profile(11.2, 0.6)
    assert intensity[9] == pytest.approx(echo(11.2) / 6.0, rel=1e-12)
    assert intensity[:9].tolist() == [0.0] * 9
    assert hits.tolist() == [0] * 9 + [1]
    intensity, hits = profile(1.0, 0.6)
    assert intensity[0] == pytest.approx(0.5 * echo(1.0), rel=1e-12)
    intensity, hits = profile(0.9, 0.6)
    assert intensity[0] == pytest.approx(echo(0.9) / 3.0, rel=1e-12)
    assert hits.tolist() == [1] + [0] * 9
    for r in (11.31, 0.69):  # the interval misses the window
        intensity, hits = profile(r, 0.6)
        assert not intensity.any()
        assert not hits.any()


def test_the_far_share_of_a_beams_last_bin_stays_in_that_beam() -> None:
    ranges, cosines, spread = one_ray(10.8, 0.6, beams=2)  # [10.5, 11.1]
    ranges[1, 0] = np.inf  # beam 1 has nothing
    echoes = model().echoes(ranges, cosines, MU, spread=spread)
    assert echoes.intensity[0, 9] == pytest.approx(echo(10.8) * 5.0 / 6.0, rel=1e-12)
    assert not echoes.intensity[1].any()
    assert not echoes.hits[1].any()


def test_each_beams_window_ends_keep_their_shares_to_themselves() -> None:
    """Beam 0 over [10.5, 11.1] (its last bin 5/6), beam 1 over [0.7, 1.3] (its first 1/2).

    The parts outside each window are dropped, not carried into the neighbouring beam's bins:
    beam 0's tail past 11 m is not beam 1's first bin, beam 1's head before 1 m not beam 0's
    last. Labels follow the same deposits.
    """
    ranges, cosines, spread = one_ray(10.8, 0.6, beams=2)
    ranges[1, 0] = 1.0
    entity = np.where(np.isfinite(ranges), np.array([[0], [1]]), -1)
    echoes = model().echoes(ranges, cosines, MU, spread=spread, entity=entity, n_entities=2)
    expected = np.zeros((2, 10))
    expected[0, 9] = echo(10.8) * 5.0 / 6.0
    expected[1, 0] = echo(1.0) * 0.5
    np.testing.assert_allclose(echoes.intensity, expected, rtol=1e-12, atol=0.0)
    np.testing.assert_array_equal(echoes.hits, (expected > 0.0).astype(np.int64))
    assert echoes.labels is not None
    assert echoes.labels.tolist() == [[0] * 9 + [1], [2] + [0] * 9]


def test_a_point_return_is_binned_as_without_spread() -> None:
    """e = 0: bin floor(r - 1), the window's ends included (max_range in the last bin)."""
    m = model()
    r = np.array([[1.0, 2.5, 3.0, 11.0, 0.99, 11.01, np.inf, np.nan]])
    cos = np.ones_like(r)
    point = m.echoes(r, cos, MU)
    spread = m.echoes(r, cos, MU, spread=np.zeros_like(r))
    np.testing.assert_array_equal(spread.hits, point.hits)
    np.testing.assert_allclose(spread.intensity, point.intensity, rtol=1e-15, atol=0.0)
    assert point.hits[0].tolist() == [1, 1, 1, 0, 0, 0, 0, 0, 0, 1]


@pytest.mark.parametrize('e', [1.0, math.inf, math.nan])
def test_an_unknown_spread_is_one_bin(e: float) -> None:
    """[5.8, 6.8] for e one bin, NaN or inf: 0.2 in bin 4, 0.8 in bin 5."""
    intensity, hits = profile(6.3, e)
    assert intensity[4] == pytest.approx(0.2 * echo(6.3), rel=1e-9)
    assert intensity[5] == pytest.approx(0.8 * echo(6.3), rel=1e-9)
    assert hits.tolist() == [0, 0, 0, 0, 1, 1, 0, 0, 0, 0]


@pytest.mark.parametrize(('beams', 'r'), [(2, 15.7), (1, 31.5)])
@pytest.mark.parametrize('e', [math.inf, math.nan])
def test_an_unknown_spread_past_the_window_lights_no_bin(beams: int, r: float, e: float) -> None:
    """A return 4.7 m (20.5 m) past the 11 m window with e NaN or inf (one bin) adds nothing.

    Its one-bin interval lies wholly outside beam 0's window: no bin of any beam takes a
    share (an inf read as the 64-bin cap made it live and carried it into beam 1's first
    bins). Control: a footprint about the same range reaching back to 9.7 m lends beam 0's
    last two bins their share.
    """
    ranges, cosines, spread = one_ray(r, e, beams=beams)
    ranges[1:, 0] = np.inf  # the other beam has nothing
    echoes = model().echoes(ranges, cosines, MU, spread=spread)
    assert not echoes.intensity.any()
    assert not echoes.hits.any()
    spread[:] = 2.0 * (r - 9.7)
    wide = model().echoes(ranges, cosines, MU, spread=spread)
    share = echo(r) / spread[0, 0]
    assert wide.intensity[0, 8] == pytest.approx(0.3 * share, rel=1e-9)
    assert wide.intensity[0, 9] == pytest.approx(share, rel=1e-9)
    assert not wide.intensity[0, :8].any()
    assert not wide.intensity[1:].any()


def test_a_ping_without_a_live_return_is_float64_zeros() -> None:
    """Every ray missing or far past the window: float64 zeros, as any other profile.

    (numpy's bincount of no deposit gives int64.) Control: one return in the window.
    """
    ranges, cosines, spread = one_ray(40.0, 0.6, beams=2)
    echoes = model().echoes(ranges, cosines, MU, spread=spread)
    assert echoes.intensity.dtype == np.float64
    assert not echoes.intensity.any()
    assert not echoes.hits.any()
    ranges[0, 0] = 6.3
    lit = model().echoes(ranges, cosines, MU, spread=spread)
    assert lit.intensity.dtype == np.float64
    assert lit.intensity.sum() == pytest.approx(echo(6.3), rel=1e-9)


def test_a_spread_wider_than_a_bin_covers_every_bin_it_overlaps() -> None:
    """e = 5 m about 6.3 m: [3.8, 8.8], 0.2 / 5 in bin 2, 1 / 5 in bins 3 to 6, 0.8 / 5 in 7.

    (This test once asserted the opposite, e clipped to one bin: rays more than a bin apart
    then left every other bin dark, the ripple that aliased into the waterfall's rosettes.)
    """
    intensity, hits = profile(6.3, 5.0)
    expected = np.zeros(10)
    expected[2:8] = np.array([0.2, 1.0, 1.0, 1.0, 1.0, 0.8]) / 5.0 * echo(6.3)
    np.testing.assert_allclose(intensity, expected, rtol=1e-12, atol=0.0)
    assert hits.tolist() == [0, 0, 1, 1, 1, 1, 1, 1, 0, 0]
    # Beyond the window's near end the pieces are dropped: [-1.2, 3.8] keeps [1, 3.8].
    intensity, _ = profile(1.3, 5.0)
    assert intensity.sum() == pytest.approx(2.8 / 5.0 * echo(1.3), rel=1e-12)


def test_float32_rays_split_as_float64() -> None:
    ranges, cosines, spread = one_ray(3.8, 0.6, cos=0.8)
    m = model()
    single = m.echoes(*(a.astype(np.float32) for a in (ranges, cosines)), MU, spread=spread)
    double = m.echoes(ranges, cosines, MU, spread=spread)
    np.testing.assert_allclose(single.intensity, double.intensity, rtol=1e-6)
    np.testing.assert_array_equal(single.hits, double.hits)


def test_rays_outside_the_cast_add_nothing() -> None:
    config = echo_config()
    off_axis = np.zeros(N_RAYS)
    off_axis[0] = 2.0 * config.cast_half_angle  # out of the cast: never a return
    m = EchoModel(config, off_axis, np.full(N_RAYS, D_OMEGA))
    ranges, cosines, spread = one_ray(3.8, 0.6)
    echoes = m.echoes(ranges, cosines, MU, spread=spread)
    assert not echoes.intensity.any()
    assert not echoes.hits.any()


def test_labels_take_each_deposit_as_a_return() -> None:
    """Entity 0 whole in bin 2; entity 1 over [3.7, 4.3]: 0.3 / 0.6 in bins 2 and 3.

    Bin 2 holds entity 0's whole echo at 3.5 m and half of entity 1's at 4 m, so 0 dominates;
    bin 3 only entity 1.
    """
    r = np.full((1, N_RAYS), np.inf)
    r[0, 0], r[0, 1] = 3.5, 4.0
    spread = np.zeros_like(r)
    spread[0, 1] = 0.6
    entity = np.full(r.shape, -1)
    entity[0, 0], entity[0, 1] = 0, 1
    echoes = model().echoes(r, np.ones_like(r), MU, entity=entity, n_entities=2, spread=spread)
    assert echoes.labels is not None
    assert echoes.labels[0].tolist() == [0, 0, 1, 2, 0, 0, 0, 0, 0, 0]


def test_extra_returns_add_to_the_spread_profile() -> None:
    """A ghost of ray 1 at 7.5 m with gain 0.25 lands whole in bin 6 beside the spread echo."""
    ranges, cosines, spread = one_ray(3.8, 0.6)
    extra = ExtraReturns(
        ray=np.array([1]),
        beam=np.array([0]),
        range=np.array([7.5]),
        gain=np.array([0.25]),
        reflectivity=np.array([MU]),
        cos_incidence=np.array([1.0]),
    )
    echoes = model().echoes(ranges, cosines, MU, spread=spread, extra=extra)
    assert echoes.intensity[0, 6] == pytest.approx(0.25 * echo(7.5), rel=1e-12)
    assert echoes.intensity[0, 2] == pytest.approx(echo(3.8) * 5.0 / 6.0, rel=1e-12)
    assert echoes.hits[0].tolist() == [0, 0, 1, 1, 0, 0, 1, 0, 0, 0]


def test_spread_must_have_the_shape_of_the_ranges() -> None:
    ranges, cosines, _ = one_ray(3.8, 0.6)
    with pytest.raises(ValueError, match=r'spread: expected shape \(1, 8\), got \(8,\)'):
        model().echoes(ranges, cosines, MU, spread=np.zeros(N_RAYS))


def test_one_model_pings_other_beam_counts_and_rays_without_stale_layout() -> None:
    """The per-beam-count layout the model keeps: pings of 2, then 1, then 3 beams, each with
    other rays returning, give the hand-worked shares of their own rays and nothing else."""
    shared = model()
    for beams, r, e, shares in (
        (2, 3.8, 0.6, {2: 0.5 / 0.6, 3: 0.1 / 0.6}),
        (1, 6.0, 1.0, {4: 0.5, 5: 0.5}),
        (3, 5.25, 0.3, {4: 1.0}),
    ):
        ranges, cosines, spread = one_ray(r, e, beams=beams)
        ray = beams % N_RAYS  # a different ray returns each time
        ranges[:, [0, ray]] = ranges[:, [ray, 0]]
        echoes = shared.echoes(ranges, cosines, MU, spread=spread)
        expected = np.zeros((beams, 10))
        for k, share in shares.items():
            expected[:, k] = share * echo(r)
        np.testing.assert_allclose(echoes.intensity, expected, rtol=1e-12, atol=0.0)
        np.testing.assert_array_equal(echoes.hits, (expected > 0.0).astype(np.int64))


@pytest.mark.parametrize('min_range', [0.0, 1.0])
@pytest.mark.parametrize('dtype', [np.float64, np.float32])
def test_a_return_at_zero_range_has_no_echo_and_poisons_no_bin(
    min_range: float, dtype: type
) -> None:
    """A ray starting on the surface it hits (r = 0: a sonar touching a wall) adds nothing.

    Beside it a wide return, 5 m about 6.3 m (ramped), and a point return at 2.5 m: the
    profile is theirs alone, worked out by hand, finite in every bin, whatever the contact
    ray's footprint (0, NaN or wide, the case that once spread NaN along a whole line). The
    contact ray is still a return for the range: nearer than a window starting at 1 m reads
    -inf (REP 117). Negative control: the far-field law at zero range is not finite, so a
    model that applied it there would fail the finiteness check.
    """
    m = model(min_range=min_range, max_range=min_range + 10.0)
    contact = [0.0, 0.0, 0.0, -0.0]
    r = np.array([[*contact, min_range + 5.3, min_range + 1.5, np.inf, np.inf]], dtype=dtype)
    spread = np.array([[0.0, math.nan, 5.0, 0.0, 5.0, 0.0, 0.0, 0.0]])
    echoes = m.echoes(r, np.ones_like(r), MU, spread=spread)
    assert np.isfinite(echoes.intensity).all()
    expected = np.zeros(10)
    expected[2:8] = np.array([0.2, 1.0, 1.0, 1.0, 1.0, 0.8]) / 5.0 * echo(min_range + 5.3)
    expected[1] += echo(min_range + 1.5)
    np.testing.assert_allclose(echoes.intensity[0], expected, rtol=1e-5, atol=0.0)
    assert echoes.ranges[0] == (-math.inf if min_range > 0.0 else 0.0)
    # Negative control: the far-field law, unguarded, at zero range.
    with np.errstate(divide='ignore'):
        assert not np.isfinite(MU * D_OMEGA / np.square(np.zeros(1, dtype=dtype)))
