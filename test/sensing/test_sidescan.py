"""The side-scan's two channels against closed forms, over real Open3D scenes.

A flat seabed z = 0 (Lambert coefficient MU) and the sensor level at altitude h, body x
along track, y to port. A ray at along-track angle a and depression d (direction (sin a,
+-cos a cos d, -cos a sin d), solid angle cos a da dd) hits the seabed at slant range
r = h / (cos a sin d) with cos(incidence) = cos a sin d, and returns (``docs/physics.md``)

    dI = B_h(a)**n B_v(d - tilt)**n MU cos(inc) / r**2 exp(-2 alpha' r) cos a da dd,

so bin [r0, r1] holds the integral of dI over the directions whose r lies in it, over
|a| <= horizontal_width / 2 (the cast width) and tilt - vertical_width / 2 <= d <=
min(tilt + vertical_width / 2, pi/2).
Nothing returns before the steepest ray's range h / sin(min(tilt + vertical_width / 2,
pi / 2)).

A box of height H over the seabed, across-track extent [y0, y0 + w] on the port side and long
along track: the seabed behind it, from its foot at ground range y0 to (y0 + w) h / (h - H),
is in its shadow (similar triangles through its far top edge), and nothing else returns at
those slant ranges when (y0 + w)**2 + (h - H)**2 < y0**2 + h**2 (its top face ends nearer
than its foot).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
from flat_seabed import box_model, seabed_file, sidescan_echo
from numpy.typing import NDArray

from nps_sonar_py.echo import EchoConfig, beam_intensity
from nps_sonar_py.echo.profile_effects import ImagingConfig
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.sidescan import (
    MAX_SIDESCAN_BINS,
    MAX_SIDESCAN_RAYS,
    SidescanConfig,
    SidescanPing,
    SidescanSonar,
    sidescan_rows,
)
from nps_sonar_py.sensing.waterfall import ground_range_profiles

MU = 0.3
MAX_RANGE, N_BINS = 75.0, 2000
DR = MAX_RANGE / N_BINS
BOX_Y0, BOX_W, BOX_H = 20.0, 0.4, 1.0
FLOAT32 = 1e-5  # relative: Open3D casts in float32


def seabed_world(tmp_path: Path, box: bool = False) -> str:
    """The seabed z = 0 (a 400 m square slab), and the port box if ``box``."""
    if not box:
        return str(seabed_file(tmp_path / 'flat.world', MU))
    port = box_model('box', MU, (0, BOX_Y0 + BOX_W / 2, BOX_H / 2), f'60 {BOX_W} {BOX_H}')
    return str(seabed_file(tmp_path / 'box.world', MU, port))


@pytest.fixture(scope='module')
def flat(tmp_path_factory: pytest.TempPathFactory) -> Raycaster:
    return Raycaster(load_world(seabed_world(tmp_path_factory.mktemp('flat'))))


@pytest.fixture(scope='module')
def boxed(tmp_path_factory: pytest.TempPathFactory) -> Raycaster:
    return Raycaster(load_world(seabed_world(tmp_path_factory.mktemp('box'), box=True)))


def echo(**kwargs: object) -> EchoConfig:
    """The side-scan's echo to ``MAX_RANGE`` in ``N_BINS`` bins; ``kwargs``: other fields."""
    return sidescan_echo(**({'max_range': MAX_RANGE, 'n_bins': N_BINS} | kwargs))


def level(h: float, x: float = 0.0) -> NDArray[np.float64]:
    pose = np.eye(4)
    pose[0, 3], pose[2, 3] = x, h
    return pose


def ping_at(caster: Raycaster, h: float, config: SidescanConfig, **kwargs: object) -> SidescanPing:
    return SidescanSonar(echo(**kwargs), config, level(h)).ping(caster)


def steepest(config: SidescanConfig) -> float:
    if config.cast_to_nadir:
        return 0.5 * math.pi
    return min(config.tilt + 0.5 * config.vertical_width, 0.5 * math.pi)


def expected_profile(h: float, config: SidescanConfig, e: EchoConfig) -> NDArray[np.float64]:
    """The module docstring's integral, bin by bin: Gauss-Legendre in a and in d per bin."""
    nodes, weights = np.polynomial.legendre.leggauss(48)
    half = 0.5 * config.horizontal_width
    a = half * nodes
    wa = half * weights
    top = steepest(config)
    bottom = max(config.tilt - 0.5 * config.vertical_width, 0.0)
    edges = np.linspace(e.min_range, e.max_range, e.n_bins + 1)
    r0, r1 = edges[:-1, None], edges[1:, None]
    cos_a = np.cos(a)[None, :]
    # d over the bin: sin d from h / (r1 cos a) to h / (r0 cos a), clipped to the fan.
    with np.errstate(divide='ignore'):
        lo = np.arcsin(np.clip(h / (r1 * cos_a), 0.0, 1.0))
        hi = np.arcsin(np.clip(h / (r0 * cos_a), 0.0, 1.0))
    hi = np.clip(hi, bottom, top)
    lo = np.clip(lo, bottom, hi)
    mid, span = 0.5 * (hi + lo), 0.5 * (hi - lo)
    d = mid[..., None] + span[..., None] * nodes  # (bins, a, nodes)
    wd = span[..., None] * weights
    ca = cos_a[..., None]
    cos_inc = ca * np.sin(d)
    r = h / cos_inc
    attenuation = 2.0 * e.effective_absorption * math.log(10.0) / 10.0
    bh = beam_intensity(e.pattern, np.abs(a), config.horizontal_width, e.n_way)[None, :, None]
    bv = beam_intensity(
        config.vertical_pattern, np.abs(d - config.tilt), config.vertical_width, e.n_way
    )
    integrand = bh * bv * MU * cos_inc / r**2 * np.exp(-attenuation * r) * ca
    return np.sum(integrand * wd * wa[None, :, None], axis=(1, 2))


@pytest.mark.parametrize('h', [3.0, 10.0, 25.0])
def test_flat_seabed_profile_is_the_integral_over_the_footprint(flat: Raycaster, h: float) -> None:
    config = SidescanConfig()
    e = echo()
    ping = ping_at(flat, h, config)
    expected = expected_profile(h, config, e)
    first = h / math.sin(steepest(config))
    # Every bin past the one the first return falls in (that one holds a sliver).
    full = np.flatnonzero(e.min_range + np.arange(N_BINS) * DR > first + DR)
    for channel in (0, 1):
        error = ping.profiles[channel, full] / expected[full] - 1.0
        assert np.max(np.abs(error)) < 0.01, (channel, np.max(np.abs(error)))
    assert ping.profiles[0].sum() == pytest.approx(expected.sum(), rel=1e-3)


def test_the_profile_does_not_depend_on_the_ray_count(flat: Raycaster) -> None:
    coarse = ping_at(flat, 10.0, SidescanConfig(rays_per_bin=1, rays_along=3))
    fine = ping_at(flat, 10.0, SidescanConfig(rays_per_bin=6, rays_along=7))
    assert coarse.profiles.sum() == pytest.approx(fine.profiles.sum(), rel=1e-3)


@pytest.mark.parametrize('h', [4.0, 12.0])
def test_nothing_before_the_steepest_ray_reaches_the_seabed(flat: Raycaster, h: float) -> None:
    """A fan cut at its -3 dB edge (``cast_to_nadir`` off) misses nadir."""
    config = SidescanConfig(
        tilt=math.radians(15.0), vertical_width=math.radians(40.0), cast_to_nadir=False
    )
    ping = ping_at(flat, h, config)
    first = h / math.sin(math.radians(35.0))  # misses nadir: h / sin(tilt + width / 2)
    k = math.floor(first / DR)
    for channel in (0, 1):
        assert not ping.profiles[channel, :k].any()
        assert not ping.hits[channel, :k].any()
        assert ping.profiles[channel, k] > 0.0
    assert ping.altitude == pytest.approx(h, rel=FLOAT32)
    # In ground range the first return is at sqrt(first**2 - h**2) = h cot(tilt + width / 2).
    ground = ground_range_profiles(ping.profiles, ping.bin_edges, ping.altitude)
    g = (np.flatnonzero(ground[0])[0] + 0.5) * DR
    assert g == pytest.approx(
        math.sqrt(first**2 - h**2), abs=DR * first / (first**2 - h**2) ** 0.5
    )


def test_a_beam_over_nadir_returns_first_at_the_altitude(flat: Raycaster) -> None:
    h = 8.0
    config = SidescanConfig(tilt=math.radians(60.0), vertical_width=math.radians(70.0))
    ping = ping_at(flat, h, config)
    k = math.floor(h / DR)
    for channel in (0, 1):
        assert not ping.profiles[channel, :k].any()
        assert ping.profiles[channel, k] > 0.0
    assert ping.altitude == pytest.approx(h, rel=FLOAT32)
    # The flat seabed still matches its integral past the nadir bins.
    expected = expected_profile(h, config, echo())
    far = math.floor(h / math.sin(math.radians(25.0)) / DR)  # the fan's shallowest ray
    full = slice(k + 4, far)
    error = ping.profiles[0, full] / expected[full] - 1.0
    assert np.max(np.abs(error)) < 0.01


def test_a_fan_cast_to_nadir_hears_the_seabed_through_its_skirt(flat: Raycaster) -> None:
    # the same beam that misses nadir above, cast to nadir: the seabed under the sonar is
    # heard through the line array's pattern past its -3 dB edge (35 degrees), from h on
    h = 8.0
    config = SidescanConfig(
        tilt=math.radians(15.0), vertical_width=math.radians(40.0), cast_to_nadir=True
    )
    ping = ping_at(flat, h, config)
    k = math.floor(h / DR)
    edge = math.floor(h / math.sin(math.radians(35.0)) / DR)
    for channel in (0, 1):
        assert not ping.profiles[channel, :k].any()
        assert np.all(ping.profiles[channel, k + 1 : edge] > 0.0)
    expected = expected_profile(h, config, echo())
    far = math.floor(h / math.sin(math.radians(5.0)) / DR)
    full = np.arange(k + 4, min(far, N_BINS))
    full = full[expected[full] > 1e-3 * expected.max()]  # not the pattern's null (50.5 deg off)
    error = ping.profiles[0, full] / expected[full] - 1.0
    assert np.max(np.abs(error)) < 0.01  # the integral with the pattern over the skirt
    # control: the fan stopped at its edge hears nothing there
    cut = ping_at(flat, h, dataclasses.replace(config, cast_to_nadir=False))
    assert not cut.profiles[0, k + 1 : edge - 1].any()


def test_a_box_echoes_at_its_foot_and_shadows_to_the_similar_triangle(boxed: Raycaster) -> None:
    h = 10.0
    ping = ping_at(boxed, h, SidescanConfig())
    ground = ground_range_profiles(ping.profiles, ping.bin_edges, ping.altitude)
    assert ping.altitude == pytest.approx(h, rel=FLOAT32)
    g = (np.arange(N_BINS) + 0.5) * DR
    shadow_end = (BOX_Y0 + BOX_W) * h / (h - BOX_H)
    tol = 3 * DR  # a slant bin is r / g = 1.1 times wider in ground range, plus a sample
    port, starboard = ground
    assert np.all(port[(g > BOX_Y0 - 1.0) & (g < BOX_Y0 - tol)] > 0.0)
    assert not port[(g > BOX_Y0 + tol) & (g < shadow_end - tol)].any()
    assert np.all(port[(g > shadow_end + tol) & (g < shadow_end + 1.0)] > 0.0)
    # The box's near face is lit: the echo just before its foot is brighter than the seabed's.
    face = port[(g > BOX_Y0 - 0.2) & (g < BOX_Y0)].max()
    assert face > 3.0 * port[(g > BOX_Y0 - 3.0) & (g < BOX_Y0 - 2.0)].mean()
    # Starboard sees bare seabed: no gap, and the channels differ.
    assert np.all(starboard[(g > BOX_Y0 - 1.0) & (g < shadow_end + 1.0)] > 0.0)
    assert not np.allclose(ping.profiles[0], ping.profiles[1], rtol=1e-3, atol=0.0)


def test_port_is_the_body_y_side_whatever_the_heading(boxed: Raycaster) -> None:
    ahead = ping_at(boxed, 10.0, SidescanConfig())
    turned = SidescanSonar(echo(), SidescanConfig(), level(10.0) @ rotation_z(math.pi))
    back = turned.ping(boxed)  # heading -x: port is -y, the box (+y) is to starboard
    np.testing.assert_allclose(back.profiles[::-1], ahead.profiles, rtol=1e-3, atol=0.0)


def test_the_altitude_holds_under_roll(flat: Raycaster) -> None:
    c, s = math.cos(0.1), math.sin(0.1)
    roll = np.array([[1.0, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1]])
    ping = SidescanSonar(echo(), SidescanConfig(), level(12.0) @ roll).ping(flat)
    assert ping.altitude == pytest.approx(12.0, rel=FLOAT32)
    assert not np.allclose(ping.profiles[0], ping.profiles[1], rtol=1e-3, atol=0.0)  # rolled


def rotation_z(yaw: float) -> NDArray[np.float64]:
    pose = np.eye(4)
    pose[:2, :2] = [[math.cos(yaw), -math.sin(yaw)], [math.sin(yaw), math.cos(yaw)]]
    return pose


def test_symmetric_scene_gives_equal_channels(flat: Raycaster) -> None:
    ping = ping_at(flat, 10.0, SidescanConfig())
    np.testing.assert_allclose(ping.profiles[0], ping.profiles[1], rtol=1e-6)


def test_imaging_options_apply_to_both_channels(flat: Raycaster) -> None:
    raw = ping_at(flat, 10.0, SidescanConfig())
    gained = SidescanSonar(
        echo(), SidescanConfig(), level(10.0), imaging=ImagingConfig(tvg='20log')
    )
    ping = gained.ping(flat)
    centres = 0.5 * (ping.bin_edges[:-1] + ping.bin_edges[1:])
    gain = centres**2 * 10.0 ** (0.01 * centres / 5.0)  # 20 log R + 2 alpha R
    np.testing.assert_allclose(ping.profiles, raw.profiles * gain, rtol=1e-9)
    assert not ping.profiles[:, : math.floor(10.0 / DR)].any()  # nothing before the altitude


def test_labels_name_the_box(boxed: Raycaster) -> None:
    sonar = SidescanSonar(echo(), SidescanConfig(), level(10.0), label_entities=2)
    ping = sonar.ping(boxed)
    assert ping.labels is not None
    box = 1 + boxed.entity_names.index('box')
    face_bin = math.floor(math.hypot(BOX_Y0, 10.0 - BOX_H / 2) / DR)
    assert ping.labels[0, face_bin] == box
    assert box not in ping.labels[1]


def test_ray_count_is_the_documented_one() -> None:
    config = SidescanConfig()
    e = echo()
    sonar = SidescanSonar(e, config, level(10.0))
    k, r, hmin, hmax = config.rays_per_bin, MAX_RANGE, config.min_altitude, config.max_altitude
    top = steepest(config)
    csc_rows = math.ceil((r / hmax - 1.0 / math.sin(top)) * hmax * k / DR)
    log_rows = math.ceil(math.log(hmax / hmin) * k * r / DR)
    assert sidescan_rows(e, config) == csc_rows + log_rows
    assert sonar.rays_per_channel == config.rays_along * (csc_rows + log_rows)
    assert sonar.directions.shape == (2 * sonar.rays_per_channel, 3)


def test_min_ping_interval_is_the_two_way_travel_time() -> None:
    e = echo()
    sonar = SidescanSonar(e, SidescanConfig(), level(10.0))
    assert sonar.min_ping_interval == pytest.approx(2.0 * MAX_RANGE / e.speed_of_sound)


@pytest.mark.parametrize(
    ('kwargs', 'message'),
    [
        (
            {'horizontal_width': 0.0},
            'horizontal_width must be a finite number in [0.0001, 0.523599], got 0.0',
        ),
        (
            {'vertical_width': math.pi},
            'vertical_width must be a finite number in [0.0174533, 2.96706]',
        ),
        ({'tilt': -0.1}, 'tilt must be a finite number in [0.001, 1.5698], got -0.1'),
        ({'rays_along': 0}, 'rays_along must be an integer in [1, 1000]'),
        ({'rays_per_bin': 2.5}, 'rays_per_bin must be an integer'),
        ({'min_altitude': 0.0}, 'min_altitude must be a finite number in [0.01, 10000]'),
        ({'max_altitude': 1.0}, 'max_altitude (1) must be >= min_altitude (2)'),
        (
            {'vertical_pattern': 'fan'},
            'vertical_pattern must be piston, gaussian, sinc, sinc_dave or uniform',
        ),
    ],
)
def test_bad_configurations_are_refused_in_one_line(
    kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        SidescanConfig(**kwargs)  # type: ignore[arg-type]
    text = str(caught.value)
    assert message in text
    assert '\n' not in text


@pytest.mark.parametrize(
    ('e', 'config', 'message'),
    [
        (echo(n_bins=10**12), SidescanConfig(), f'n_bins must be <= {MAX_SIDESCAN_BINS}'),
        (echo(n_bins=MAX_SIDESCAN_BINS), SidescanConfig(rays_per_bin=1000), 'over the limit'),
        (echo(max_range=1.5), SidescanConfig(), 'min_altitude (2 m) must be < max_range'),
        (
            echo(),
            # Cut at its edge, below asin(2 / 75); cast to nadir it would reach the seabed.
            SidescanConfig(tilt=0.01, vertical_width=math.radians(1.0), cast_to_nadir=False),
            'never reaches the seabed',
        ),
        (echo(max_range=5000.0, fixed_absorption=1.0, n_bins=100), SidescanConfig(), 'tvg'),
    ],
)
def test_bad_sizes_are_refused_before_allocating(
    e: EchoConfig, config: SidescanConfig, message: str
) -> None:
    imaging = ImagingConfig(tvg='40log')
    with pytest.raises(ConfigurationError) as caught:
        SidescanSonar(e, config, level(10.0), imaging=imaging)
    assert message in str(caught.value)
    assert '\n' not in str(caught.value)
    if 'over the limit' in message:
        assert str(MAX_SIDESCAN_RAYS) in str(caught.value)
