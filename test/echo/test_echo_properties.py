"""Invariances of the echo model (hypothesis): ray count (T9), rotation about the axis, scaling."""

from __future__ import annotations

import math

import numpy as np
from echo_scenes import plane_hits, rotation_about, tilted_normal
from hypothesis import given, settings
from hypothesis import strategies as st

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig, EchoModel, Ping
from nps_sonar_py.sensing.cone import cone_pattern

X = np.array([1.0, 0.0, 0.0])
FAST = settings(max_examples=15, deadline=None)

patterns = st.sampled_from(list(BeamPattern))
widths = st.floats(math.radians(2.0), math.radians(60.0))
tilts = st.floats(0.0, math.radians(40.0))
azimuths = st.floats(0.0, 2 * math.pi)
distances = st.floats(0.5, 50.0)


def config_for(
    pattern: BeamPattern, beam_width: float, n_way: int = 2, **kwargs: object
) -> EchoConfig:
    return EchoConfig(
        beam_width=beam_width, pattern=pattern, n_way=n_way, absorption=Absorption.NONE, **kwargs
    )  # type: ignore[arg-type]


def wall_echo(
    model: EchoModel, directions: np.ndarray, distance: float, normal: np.ndarray, mu: object = 1.0
) -> Ping:
    return model.ping(*plane_hits(directions, distance * normal, normal), mu)


@FAST
@given(
    pattern=patterns,
    beam_width=widths,
    tilt=tilts,
    azimuth=azimuths,
    n=st.integers(50_000, 150_000),
)
def test_t9_doubling_the_ray_count_changes_no_bin_by_one_percent(
    pattern: BeamPattern, beam_width: float, tilt: float, azimuth: float, n: int
) -> None:
    distance = 10.0
    normal = tilted_normal(tilt, azimuth)
    r_far = distance / math.cos(min(tilt + beam_width / 2, math.radians(80.0)))
    config = config_for(
        pattern, beam_width, min_range=0.9 * distance, max_range=1.05 * r_far, n_bins=10
    )
    echoes = []
    for count in (n, 2 * n):
        rays = cone_pattern(config.cast_half_angle, count)
        model = EchoModel(config, rays.off_axis, rays.solid_angle)
        echoes.append(wall_echo(model, rays.directions, distance, normal))
    few, many = echoes
    busy = few.hits >= 2000
    assert busy.any()
    np.testing.assert_allclose(many.intensity[busy], few.intensity[busy], rtol=0.01)
    assert abs(many.total / few.total - 1.0) < 0.005
    assert abs(many.confidence - few.confidence) < 0.005
    assert many.hits.sum() == 2 * few.hits.sum()  # a plain hit count would double


@FAST
@given(pattern=patterns, beam_width=widths, tilt=tilts, azimuth=azimuths, spin=azimuths)
def test_rotation_about_the_axis(
    pattern: BeamPattern, beam_width: float, tilt: float, azimuth: float, spin: float
) -> None:
    distance = 8.0
    config = config_for(pattern, beam_width, min_range=1.0, max_range=200.0, n_bins=50)
    rays = cone_pattern(config.cast_half_angle, 100_000)
    model = EchoModel(config, rays.off_axis, rays.solid_angle)
    turn = rotation_about(X, spin)
    normal = tilted_normal(tilt, azimuth)
    reference = wall_echo(model, rays.directions, distance, normal)
    # Rays and scene turned together: the same echo (only rounding differs).
    both = wall_echo(model, rays.directions @ turn.T, distance, turn @ normal)
    assert math.isclose(both.total, reference.total, rel_tol=1e-9)
    assert math.isclose(both.range, reference.range, rel_tol=1e-9)
    # Scene alone turned about the axis: the pattern is axially symmetric, up to ray sampling.
    scene = wall_echo(model, rays.directions, distance, turn @ normal)
    assert math.isclose(scene.total, reference.total, rel_tol=5e-3)
    busy = reference.hits >= 2000
    np.testing.assert_allclose(scene.intensity[busy], reference.intensity[busy], rtol=0.02)
    assert math.isclose(scene.confidence, reference.confidence, abs_tol=5e-3)


@FAST
@given(
    pattern=patterns,
    beam_width=widths,
    tilt=tilts,
    azimuth=azimuths,
    distance=distances,
    scale=st.sampled_from([2.0, 0.5, 3.0, 1.7]),
)
def test_beam_filling_echo_scales_as_one_over_range_squared(
    pattern: BeamPattern,
    beam_width: float,
    tilt: float,
    azimuth: float,
    distance: float,
    scale: float,
) -> None:
    config = config_for(pattern, beam_width, min_range=0.1, max_range=1e4, n_bins=20)
    rays = cone_pattern(config.cast_half_angle, 20_000)
    model = EchoModel(config, rays.off_axis, rays.solid_angle)
    normal = tilted_normal(tilt, azimuth)
    near = wall_echo(model, rays.directions, distance, normal)
    far = wall_echo(model, rays.directions, scale * distance, normal)
    assert math.isclose(far.total / near.total, scale**-2, rel_tol=1e-12)
    assert math.isclose(far.confidence, near.confidence, rel_tol=1e-12)
    if scale == 2.0:
        assert math.isclose(10 * math.log10(far.total / near.total), -6.0206, abs_tol=1e-4)


@FAST
@given(
    pattern=patterns,
    beam_width=widths,
    tilt=tilts,
    gain=st.floats(1e-6, 1e3),
    seed=st.integers(0, 2**31),
)
def test_echo_is_linear_in_reflectivity(
    pattern: BeamPattern, beam_width: float, tilt: float, gain: float, seed: int
) -> None:
    config = config_for(pattern, beam_width, min_range=0.1, max_range=100.0, n_bins=30)
    rays = cone_pattern(config.cast_half_angle, 20_000)
    model = EchoModel(config, rays.off_axis, rays.solid_angle)
    rng = np.random.default_rng(seed)
    mu_a = rng.uniform(0.0, 1.0, len(rays))
    mu_b = rng.uniform(0.0, 1.0, len(rays))
    normal = tilted_normal(tilt)
    a = wall_echo(model, rays.directions, 5.0, normal, mu_a)
    b = wall_echo(model, rays.directions, 5.0, normal, mu_b)
    scaled = wall_echo(model, rays.directions, 5.0, normal, gain * mu_a)
    summed = wall_echo(model, rays.directions, 5.0, normal, mu_a + mu_b)
    np.testing.assert_allclose(scaled.intensity, gain * a.intensity, rtol=1e-12)
    np.testing.assert_allclose(summed.intensity, a.intensity + b.intensity, rtol=1e-12)
    assert scaled.hits.tolist() == a.hits.tolist()


@FAST
@given(pattern=patterns, beam_width=widths, distance=distances)
def test_float32_inputs_agree_with_float64(
    pattern: BeamPattern, beam_width: float, distance: float
) -> None:
    config = config_for(pattern, beam_width, min_range=0.1, max_range=200.0, n_bins=40)
    rays = cone_pattern(config.cast_half_angle, 20_000)
    model = EchoModel(config, rays.off_axis, rays.solid_angle)
    r, cos = plane_hits(rays.directions, distance * X, tilted_normal(0.3))
    double = model.ping(r, cos, 0.5)
    single = model.ping(r.astype(np.float32), cos.astype(np.float32), np.float32(0.5))
    assert math.isclose(single.total, double.total, rel_tol=1e-5)
    assert math.isclose(single.range, double.range, rel_tol=1e-6)
    assert abs(int(single.hits.sum()) - int(double.hits.sum())) == 0
