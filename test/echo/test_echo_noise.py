"""T10 of docs/physics.md (speckle statistics) and the determinism of the noise."""

from __future__ import annotations

import math

import numpy as np
import pytest
from echo_scenes import plane_hits, tilted_normal

from nps_sonar_py.echo import (
    Absorption,
    BeamPattern,
    EchoConfig,
    EchoModel,
    NoiseType,
    RangeEstimator,
    RangeNoise,
    coherent_speckle,
)
from nps_sonar_py.sensing.cone import RayPattern, cone_pattern

X = np.array([1.0, 0.0, 0.0])


def test_t10_speckle_statistics() -> None:
    """Coherent sum of 50 returns, 2e5 trials: exponential intensity, Rayleigh amplitude."""
    n_returns, trials, chunk = 50, 200_000, 20_000
    rng = np.random.default_rng(20240501)
    returns = rng.uniform(0.1, 1.0, n_returns)
    incoherent = float(returns.sum())
    samples = []
    for _ in range(trials // chunk):
        index = np.repeat(np.arange(chunk), n_returns)
        samples.append(coherent_speckle(np.tile(returns, chunk), index, chunk, rng))
    intensity = np.concatenate(samples)
    assert intensity.shape == (trials,)
    mean = float(intensity.mean())
    assert mean / incoherent == pytest.approx(1.0, abs=0.01)  # E[I] = sum I_i
    assert float(intensity.std()) / mean == pytest.approx(1.0, abs=0.02)  # exponential
    # E|P| = (sqrt(pi) / 2) sqrt(sum I_i)
    rayleigh_mean = math.sqrt(math.pi) / 2 * math.sqrt(incoherent)
    assert float(np.sqrt(intensity).mean()) / rayleigh_mean == pytest.approx(1.0, abs=0.01)
    assert float(np.mean(intensity > incoherent)) == pytest.approx(math.exp(-1.0), abs=0.005)


def test_speckle_of_a_single_return_keeps_its_mean() -> None:
    rng = np.random.default_rng(3)
    out = coherent_speckle(np.full(100_000, 2.0), np.arange(100_000), 100_000, rng)
    assert float(out.mean()) == pytest.approx(2.0, rel=0.01)


def wall_scene(n: int = 5000, **kwargs: object) -> tuple[EchoConfig, RayPattern, tuple]:
    settings: dict[str, object] = {
        'beam_width': math.radians(30.0),
        'absorption': Absorption.NONE,
        'min_range': 1.0,
        'max_range': 20.0,
        'n_bins': 40,
    }
    settings.update(kwargs)
    config = EchoConfig(**settings)  # type: ignore[arg-type]
    rays = cone_pattern(config.cast_half_angle, n)
    normal = tilted_normal(math.radians(20.0))
    return config, rays, plane_hits(rays.directions, 8.0 * normal, normal)


NOISY = {
    'speckle': True,
    'gain_stddev': 0.1,
    'range_noise': RangeNoise(NoiseType.GAUSSIAN, stddev=0.02, bias_mean=0.05, bias_stddev=0.01),
}


def test_noise_is_off_by_default() -> None:
    config, rays, hits = wall_scene()
    assert not config.noise_enabled
    assert not EchoConfig().noise_enabled
    a = EchoModel(config, rays.off_axis, rays.solid_angle, rng=np.random.default_rng(1))
    b = EchoModel(config, rays.off_axis, rays.solid_angle, rng=np.random.default_rng(2))
    first, second, other = a.ping(*hits, 0.5), a.ping(*hits, 0.5), b.ping(*hits, 0.5)
    for echo in (second, other):
        assert np.array_equal(echo.intensity, first.intensity)
        assert echo.range == first.range
    assert a.range_bias == 0.0


def test_same_seed_gives_bit_identical_pings() -> None:
    config, rays, hits = wall_scene(seed=1234, **NOISY)
    runs = []
    for _ in range(2):
        model = EchoModel(config, rays.off_axis, rays.solid_angle)
        runs.append([model.ping(*hits, 0.5) for _ in range(3)])
    for first, second in zip(*runs, strict=True):
        assert np.array_equal(first.intensity, second.intensity)
        assert np.array_equal(first.hits, second.hits)
        assert first.range == second.range
        assert first.total == second.total
    # successive pings differ
    assert not np.array_equal(runs[0][0].intensity, runs[0][1].intensity)
    other = EchoModel(
        EchoConfig(**{**config.__dict__, 'seed': 1235}), rays.off_axis, rays.solid_angle
    )
    assert not np.array_equal(other.ping(*hits, 0.5).intensity, runs[0][0].intensity)


def test_the_noise_does_not_depend_on_when_the_fields_are_read() -> None:
    """Range noise is drawn with the ping, not when ``ranges`` is first read (``Echoes``).

    Two models of one seed ping three times; one reads each ping's ranges at once, the other
    only after its last ping. Were the noise drawn on reading, the second model's speckle and
    gains would take the numbers the first model's ranges took.
    """
    config, rays, (r, cos) = wall_scene(seed=21, **NOISY)
    ranges, cosines = np.vstack((r, 0.9 * r)), np.vstack((cos, cos))
    eager = EchoModel(config, rays.off_axis, rays.solid_angle)
    late = EchoModel(config, rays.off_axis, rays.solid_angle)
    read_at_once = []
    for _ in range(3):
        echoes = eager.echoes(ranges, cosines, 0.5)
        read_at_once.append((echoes.ranges.copy(), echoes.confidence.copy(), echoes.hits.copy()))
    pings = [late.echoes(ranges, cosines, 0.5) for _ in range(3)]
    for (ranges_now, confidence_now, hits_now), echoes in zip(read_at_once, pings, strict=True):
        np.testing.assert_array_equal(echoes.ranges, ranges_now)
        np.testing.assert_array_equal(echoes.confidence, confidence_now)
        np.testing.assert_array_equal(echoes.hits, hits_now)
    assert not np.array_equal(read_at_once[0][0], read_at_once[1][0])  # the noise is on


@pytest.mark.parametrize(
    'estimator', [RangeEstimator.INTENSITY_WEIGHTED, RangeEstimator.FIRST_ABOVE_THRESHOLD]
)
def test_an_estimator_that_reads_the_profile_reads_it_as_the_ping_made_it(
    estimator: RangeEstimator,
) -> None:
    """Ranges read after a caller zeroed ``intensity`` in place are those read before it."""
    config, rays, (r, cos) = wall_scene(estimator=estimator, threshold_db=-200.0)
    model = EchoModel(config, rays.off_axis, rays.solid_angle)
    first = model.echoes(r[None], cos[None], 0.5)
    expected = first.ranges.copy()
    second = model.echoes(r[None], cos[None], 0.5)
    second.intensity[:] = 0.0
    assert np.isfinite(expected).all()
    np.testing.assert_array_equal(second.ranges, expected)


def test_generator_passed_in_replaces_the_models() -> None:
    config, rays, hits = wall_scene(seed=7, **NOISY)
    model = EchoModel(config, rays.off_axis, rays.solid_angle)
    one = model.ping(*hits, 0.5, rng=np.random.default_rng(99))
    two = model.ping(*hits, 0.5, rng=np.random.default_rng(99))
    assert np.array_equal(one.intensity, two.intensity)
    assert one.range == two.range
    shared = EchoModel(config, rays.off_axis, rays.solid_angle, rng=np.random.default_rng(5))
    again = EchoModel(config, rays.off_axis, rays.solid_angle, rng=np.random.default_rng(5))
    assert np.array_equal(shared.ping(*hits, 0.5).intensity, again.ping(*hits, 0.5).intensity)


def test_speckled_profile_keeps_the_mean_and_the_hits() -> None:
    config, rays, hits = wall_scene(n=2000, seed=11, speckle=True)
    clean_config, _, _ = wall_scene(n=2000)
    clean = EchoModel(clean_config, rays.off_axis, rays.solid_angle).ping(*hits, 0.5)
    model = EchoModel(config, rays.off_axis, rays.solid_angle)
    pings = [model.ping(*hits, 0.5) for _ in range(3000)]
    assert all(np.array_equal(p.hits, clean.hits) for p in pings[:10])
    assert all(np.array_equal(p.intensity > 0, clean.intensity > 0) for p in pings[:10])
    mean_profile = np.mean([p.intensity for p in pings], axis=0)
    busy = clean.intensity > 0.05 * clean.intensity.max()
    np.testing.assert_allclose(mean_profile[busy], clean.intensity[busy], rtol=0.1)
    assert np.mean([p.total for p in pings]) == pytest.approx(clean.total, rel=0.02)
    std = np.std([p.intensity[np.argmax(clean.intensity)] for p in pings])
    assert std / clean.intensity.max() > 0.5  # strongly fluctuating, unlike the clean profile


def test_gain_noise() -> None:
    config, rays, hits = wall_scene(n=500, seed=3, gain_stddev=0.1)
    clean_config, _, _ = wall_scene(n=500)
    clean = EchoModel(clean_config, rays.off_axis, rays.solid_angle).ping(*hits, 1.0)
    model = EchoModel(config, rays.off_axis, rays.solid_angle)
    gains = np.array([model.ping(*hits, 1.0).total for _ in range(4000)]) / clean.total
    assert float(gains.mean()) == pytest.approx(1.0, abs=0.01)
    assert float(gains.std()) == pytest.approx(0.1, rel=0.05)
    echo = model.ping(*hits, 1.0)
    assert echo.hits.tolist() == clean.hits.tolist()
    ratio = echo.intensity[clean.intensity > 0] / clean.intensity[clean.intensity > 0]
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-12)  # one gain for the whole ping


def test_range_noise_follows_gz_sensors() -> None:
    noise = RangeNoise(NoiseType.GAUSSIAN, mean=0.01, stddev=0.02, bias_mean=0.1, bias_stddev=0.0)
    config, rays, hits = wall_scene(range_noise=noise, seed=0)
    clean_range = (
        EchoModel(wall_scene()[0], rays.off_axis, rays.solid_angle).ping(*hits, 1.0).range
    )
    biases = []
    for seed in range(40):
        model = EchoModel(
            EchoConfig(**{**config.__dict__, 'seed': seed}), rays.off_axis, rays.solid_angle
        )
        # bias_stddev 0: only the sign varies
        assert abs(model.range_bias) == pytest.approx(0.1, abs=1e-15)
        biases.append(model.range_bias)
    assert 0 < sum(b > 0 for b in biases) < len(biases)  # negated with probability 1/2
    model = EchoModel(config, rays.off_axis, rays.solid_angle)
    errors = np.array([model.ping(*hits, 1.0).range for _ in range(4000)]) - clean_range
    assert float(errors.mean()) == pytest.approx(model.range_bias + 0.01, abs=0.002)
    assert float(errors.std()) == pytest.approx(0.02, rel=0.05)


def test_quantized_range_noise_and_infinities() -> None:
    noise = RangeNoise(NoiseType.GAUSSIAN_QUANTIZED, stddev=0.03, precision=0.05)
    config, rays, hits = wall_scene(range_noise=noise, seed=5)
    model = EchoModel(config, rays.off_axis, rays.solid_angle)
    for _ in range(50):
        value = model.ping(*hits, 1.0).range
        assert value / 0.05 == pytest.approx(round(value / 0.05), abs=1e-9)
    miss = model.ping(np.full(len(rays), np.inf), np.zeros(len(rays)), 1.0)
    assert miss.range == math.inf
    too_close = model.ping(np.full(len(rays), 0.5), np.ones(len(rays)), 1.0)
    assert too_close.range == -math.inf


def test_noisy_ranges_stay_in_the_window_or_read_as_rep117_says() -> None:
    # A wall 8 m away (20 degrees off the boresight: about 8.5 m along it) in a 1..20 m
    # window, and noise of 5 m: many draws land outside the window. Each must read -inf
    # below 1 m, +inf beyond 20 m, and otherwise lie within [1, 20] m.
    noise = RangeNoise(NoiseType.GAUSSIAN, stddev=5.0)
    config, rays, hits = wall_scene(range_noise=noise, seed=11)
    model = EchoModel(config, rays.off_axis, rays.solid_angle)
    readings = np.array([model.ping(*hits, 1.0).range for _ in range(2000)])
    finite = readings[np.isfinite(readings)]
    assert np.all((finite >= 1.0) & (finite <= 20.0))
    assert set(readings[~np.isfinite(readings)].tolist()) <= {-math.inf, math.inf}
    # Both sides are reached: P(N(8.5, 5) < 1) is about 7 %, P(> 20) about 1 %.
    assert np.sum(readings == -math.inf) > 50
    assert np.sum(readings == math.inf) > 2


def test_bias_draw_matches_the_gz_recipe() -> None:
    noise = RangeNoise(NoiseType.GAUSSIAN, bias_mean=0.2, bias_stddev=0.05)
    rng = np.random.default_rng(42)
    expected = np.random.default_rng(42)
    bias = expected.normal(0.2, 0.05)
    bias = -bias if expected.random() < 0.5 else bias
    assert noise.draw_bias(rng) == bias


@pytest.mark.parametrize('pattern', [BeamPattern.UNIFORM, BeamPattern.PISTON])
def test_unseeded_models_still_run_with_noise(pattern: BeamPattern) -> None:
    config, rays, hits = wall_scene(pattern=pattern, speckle=True)
    echo = EchoModel(config, rays.off_axis, rays.solid_angle).ping(*hits, 1.0)
    assert echo.total > 0.0
    assert math.isfinite(echo.range)
