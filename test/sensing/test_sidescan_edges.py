"""The side-scan's flat-seabed profile at its edges: nadir, the first bin, altitudes on bin edges.

A flat seabed z = 0 (Lambert coefficient MU), the sensor level at altitude h. A direction at
along-track angle a and depression d (solid angle cos a da dd) meets the seabed at slant
range r = h / (cos a sin d), with cos(incidence) = cos a sin d, and returns
(``docs/physics.md#the-model``)

    dI = B_h(a)**n B_v(d - tilt)**n MU cos(inc) / r**2 exp(-2 alpha' r) cos a da dd,

so bin [r0, r1] holds the integral of dI over |a| <= the cast half angle, d in the fan, and
r0 <= r <= r1. ``reference_profile`` integrates it numerically from this closed form alone
(not from the sonar's rays or cells): for each a, Gauss-Legendre in d between the exact
limits asin(h / (r1 cos a)) and asin(h / (r0 cos a)) cut to the fan; in a, Gauss-Legendre on
the pieces between the angles where those limits meet nadir or the fan's edges (where the
integrand in a has a kink). Nothing can return before slant range h.

The waterfall's sampling: a line takes one slant bin in four here (2000 bins, 500 samples),
so a ripple of a few bins in the profile aliases into rosettes; the profile of a flat
seabed, flown above the altitude band where the rays land more than a bin apart, must have
none (its second difference across range stays at the level of its curvature).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from flat_seabed import seabed_fixture, sidescan_echo
from numpy.typing import NDArray

from nps_sonar_py.echo import BeamPattern, EchoConfig, beam_intensity
from nps_sonar_py.scene import Raycaster
from nps_sonar_py.sensing.sidescan import SidescanConfig, SidescanSonar
from nps_sonar_py.sensing.waterfall import Waterfall, WaterfallConfig
from nps_sonar_py.transforms import transform_from_xyz_rpy

MU = 0.3
#: The issue's nadir case: a fan that reaches nadir, 0 to 50 m in 1000 bins (50 mm).
NADIR = SidescanConfig(
    tilt=math.radians(60.0), vertical_width=math.radians(70.0), vertical_pattern=BeamPattern.PISTON
)
#: A fan whose first return is its steepest row's, 0 to 75 m in 2000 bins (37.5 mm): cut at
#: its -3 dB edge (``cast_to_nadir`` off), the case of an edge inside the window.
STEEP_EDGE = SidescanConfig(
    tilt=math.radians(25.0),
    vertical_width=math.radians(70.0),
    vertical_pattern=BeamPattern.PISTON,
    cast_to_nadir=False,
)
#: The default fan cut at its -3 dB edge (``cast_to_nadir`` off): no pattern skirt, whose
#: null near nadir leaves a bin with next to nothing in it (held to 1 % only over
#: SIGNIFICANT), and no fan past nadir when rolled (the reference stops at the seabed's normal).
CUT = SidescanConfig(cast_to_nadir=False)
SIGNIFICANT = 1e-3  # of the peak: the bins held to 1 %
TOLERANCE = 0.01


flat = seabed_fixture(MU)


def reference_profile(
    h: float, config: SidescanConfig, e: EchoConfig, lift: float = 0.0
) -> NDArray[np.float64]:
    """The module docstring's integral over each bin, from the closed form alone.

    ``lift``: the channel's fan raised by this angle (rad) about the along-track axis, the
    sensor rolled (``docs/sidescan.md``: the fan from ``pi / 2`` with ``cast_to_nadir``, else
    ``min(tilt + vertical_width / 2, pi / 2)``, to ``max(tilt - vertical_width / 2,
    asin(min_altitude / max_range))``, its depressions measured from the seabed less
    ``lift``); ``h`` is then the distance to the seabed's plane.
    """
    nodes, weights = np.polynomial.legendre.leggauss(24)
    # The sonar's echo model runs with beam_width = horizontal_width and the default cast
    # limit, the -3 dB half width: |a| <= horizontal_width / 2.
    half = 0.5 * config.horizontal_width
    edge = math.inf if config.cast_to_nadir else config.tilt + 0.5 * config.vertical_width
    top = min(edge, 0.5 * math.pi) - lift
    end = max(
        config.tilt - 0.5 * config.vertical_width, math.asin(config.min_altitude / e.max_range)
    )
    bottom = max(end - lift, 0.0)
    axis = config.tilt - lift
    assert top <= 0.5 * math.pi, 'a fan past the normal of the seabed'
    edges = np.linspace(e.min_range, e.max_range, e.n_bins + 1)
    r0, r1 = edges[:-1], edges[1:]
    kinks = [np.zeros_like(r0), np.full_like(r0, half)]
    for r in (r0, r1):
        for sine in (1.0, math.sin(top), math.sin(bottom)):
            with np.errstate(divide='ignore', invalid='ignore'):
                cos_a = np.where(r * sine > 0.0, h / (r * sine), 2.0)
            kinks.append(np.clip(np.arccos(np.clip(cos_a, 0.0, 1.0)), 0.0, half))
    points = np.sort(np.stack(kinks, axis=1), axis=1)
    attenuation = 2.0 * e.effective_absorption * math.log(10.0) / 10.0
    total = np.zeros(r0.size)
    for j in range(points.shape[1] - 1):
        lo_a, hi_a = points[:, j, None], points[:, j + 1, None]
        a = 0.5 * (lo_a + hi_a) + 0.5 * (hi_a - lo_a) * nodes  # (bins, nodes)
        wa = 0.5 * (hi_a - lo_a) * weights
        cos_a = np.cos(a)
        with np.errstate(divide='ignore', invalid='ignore'):
            d_lo = np.arcsin(np.clip(h / (r1[:, None] * cos_a), 0.0, 1.0))
            near = np.where(r0[:, None] > 0.0, h / (r0[:, None] * cos_a), 1.0)
        d_hi = np.clip(np.arcsin(np.clip(near, 0.0, 1.0)), bottom, top)
        d_lo = np.clip(d_lo, bottom, d_hi)
        d = 0.5 * (d_lo + d_hi)[..., None] + 0.5 * (d_hi - d_lo)[..., None] * nodes
        wd = 0.5 * (d_hi - d_lo)[..., None] * weights
        cos_inc = cos_a[..., None] * np.sin(d)
        r = h / cos_inc
        along = beam_intensity(e.pattern, np.abs(a), config.horizontal_width, e.n_way)
        across = beam_intensity(
            config.vertical_pattern, np.abs(d - axis), config.vertical_width, e.n_way
        )
        integrand = along[..., None] * across * MU * cos_inc / r**2 * np.exp(-attenuation * r)
        integrand *= cos_a[..., None]
        total += 2.0 * np.sum(integrand * wd * wa[..., None], axis=(1, 2))  # a and -a
    return total


def ping_profiles(
    caster: Raycaster, h: float, config: SidescanConfig, e: EchoConfig
) -> NDArray[np.float64]:
    pose = np.eye(4)
    pose[2, 3] = h
    return SidescanSonar(e, config, pose).ping(caster).profiles


def worst_error(profile: NDArray[np.float64], reference: NDArray[np.float64]) -> float:
    """Largest relative error over the bins holding more than SIGNIFICANT of the peak."""
    held = reference > SIGNIFICANT * reference.max()
    return float(np.max(np.abs(profile[held] / reference[held] - 1.0)))


@pytest.mark.parametrize(
    'h',
    [
        5.0,  # on a bin edge: the bin before h was lit (8.8 % of the peak), nadir 8.7 % low
        11.0,  # on a bin edge: 14 % lit before h, nadir 13.8 % low
        7.9993,  # 0.7 mm below an edge: the first bin was 49.6 % high
        3.0,
        29.95,  # an edge near the top of the altitude band
        40.0,  # above sidescan_max_altitude (30 m): the rows land more than a bin apart
    ],
)
def test_over_nadir_the_profile_is_the_integral_and_nothing_comes_before_h(
    flat: Raycaster, h: float
) -> None:
    e = sidescan_echo(50.0, 1000)
    profiles = ping_profiles(flat, h, NADIR, e)
    reference = reference_profile(h, NADIR, e)
    nadir_bin = math.floor(h / e.bin_width + 1e-9)  # the bin whose near edge is at or below h
    for channel in (0, 1):
        assert not profiles[channel, :nadir_bin].any(), 'an echo before slant range h'
        assert profiles[channel, nadir_bin] > 0.0
        assert worst_error(profiles[channel], reference) < TOLERANCE
    # The nadir bin and the first bin included: the worst is one of them on an edge altitude.
    held = reference > SIGNIFICANT * reference.max()
    assert held[nadir_bin]


@pytest.mark.parametrize('h', [26.5, 17.0, 13.75, 2.0])
def test_the_first_partly_filled_bin_is_the_integral(flat: Raycaster, h: float) -> None:
    """The first return cuts the steepest row's cells: h = 26.5 m left a sliver 10.6 % low."""
    e = sidescan_echo(75.0, 2000)
    profiles = ping_profiles(flat, h, STEEP_EDGE, e)
    reference = reference_profile(h, STEEP_EDGE, e)
    first = int(np.flatnonzero(reference)[0])
    for channel in (0, 1):
        assert not profiles[channel, :first].any()
        assert worst_error(profiles[channel], reference) < TOLERANCE
        assert profiles[channel, first] == pytest.approx(reference[first], rel=TOLERANCE)


@pytest.mark.parametrize('h', [2.0, 30.0, 40.0, 45.0])
def test_the_default_fan_is_the_integral_across_and_above_its_altitude_band(
    flat: Raycaster, h: float
) -> None:
    """Above max_altitude (30 m) the error was 31.6 % at 40 m and 25 % at 45 m."""
    e = sidescan_echo(75.0, 2000)
    profiles = ping_profiles(flat, h, SidescanConfig(), e)
    reference = reference_profile(h, SidescanConfig(), e)
    assert worst_error(profiles[0], reference) < TOLERANCE
    assert worst_error(profiles[1], reference) < TOLERANCE


def test_the_comparison_would_see_a_small_error(flat: Raycaster) -> None:
    """Negative control: the same ping against the integral at an altitude 1 mm off fails."""
    e = sidescan_echo(50.0, 1000)
    profiles = ping_profiles(flat, 5.0, NADIR, e)
    assert worst_error(profiles[0], reference_profile(5.0, NADIR, e)) < TOLERANCE
    assert worst_error(profiles[0], reference_profile(5.001, NADIR, e)) > TOLERANCE


def every_bin_error(profile: NDArray[np.float64], reference: NDArray[np.float64]) -> float:
    """Largest relative error over every bin the reference lights, the faintest included."""
    lit = reference > 0.0
    return float(np.max(np.abs(profile[lit] / reference[lit] - 1.0)))


#: The default window (0 to 75 m in 2000 bins) and the URDF's (config/robots/sidescan_sonar.urdf:
#: 0.5 to 50 m), in 1000 bins.
WINDOWS = [(0.0, 75.0, 2000), (0.5, 50.0, 1000)]


@pytest.mark.parametrize('window', WINDOWS)
@pytest.mark.parametrize('h', [2.0, 10.0])
def test_every_bin_out_to_the_range_limit_is_the_integral(
    flat: Raycaster, h: float, window: tuple[float, float, int]
) -> None:
    """The whole swath, its faint far bins too (at 2 m the last bin holds 7e-8 of the peak).

    Every bin of the fan cut at its edge to 1 %; the default fan, cast to nadir, in every
    bin over SIGNIFICANT to 2 %: at nadir its sinc skirt is 3 degrees from its first null
    (93 degrees of depression), where a cell's pattern, taken as linear across the cell
    (``echo.ray_cells``), is 1.2 % off in the bin after the first return at 10 m (1e-3 of
    the peak; at most 0.2 % in the bins over 1e-2).
    """
    e = sidescan_echo(window[1], window[2], window[0])
    checks = ((CUT, every_bin_error, TOLERANCE), (SidescanConfig(), worst_error, 2 * TOLERANCE))
    for config, error, tolerance in checks:
        profiles = ping_profiles(flat, h, config, e)
        reference = reference_profile(h, config, e)
        assert reference[-1] > 0.0, 'the fan reaches the range limit'
        for channel in (0, 1):
            assert error(profiles[channel], reference) < tolerance


def rolled_ping(caster: Raycaster, h: float, roll: float, e: EchoConfig) -> NDArray[np.float64]:
    """The default side-scan cut at its edge (``CUT``) at altitude h, rolled by ``roll`` (rad):
    port raised."""
    pose = transform_from_xyz_rpy((0.0, 0.0, h), (roll, 0.0, 0.0))
    return SidescanSonar(e, CUT, pose).ping(caster).profiles


@pytest.mark.parametrize('window', WINDOWS)
@pytest.mark.parametrize('h', [5.0, 10.0])
def test_a_fan_grazing_the_seabed_is_the_integral_out_to_the_range_limit(
    flat: Raycaster, h: float, window: tuple[float, float, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rolled 12 degrees: the raised port fan grazes the seabed, footprints 2 to 4 bins wide,
    every port bin out to the range limit.

    These were the outer bins' rosettes over the sand waves' far slopes: a footprint clipped
    to one bin (before issue 26) lit every other bin. Negative control: the same pings with
    the footprints clipped to one bin are more than 50 % off.
    """
    roll = math.radians(12.0)
    e = sidescan_echo(window[1], window[2], window[0])
    port = reference_profile(h, CUT, e, lift=roll)
    starboard = reference_profile(h, CUT, e, lift=-roll)
    assert port[-1] > 0.0
    profiles = rolled_ping(flat, h, roll, e)
    assert every_bin_error(profiles[0], port) < TOLERANCE
    # The lowered starboard fan ends short of the window: its last bin, a sliver of one cell
    # (2e-6 of the peak), is 1.5 % off; the bins over SIGNIFICANT are held as elsewhere.
    assert worst_error(profiles[1], starboard) < TOLERANCE
    footprint = SidescanSonar._footprint

    def clipped(
        sonar: SidescanSonar, r: NDArray[np.float32], cos: NDArray[np.float32]
    ) -> NDArray[np.float32]:
        return np.minimum(footprint(sonar, r, cos), np.float32(e.bin_width))

    monkeypatch.setattr(SidescanSonar, '_footprint', clipped)
    assert every_bin_error(rolled_ping(flat, h, roll, e)[0], port) > 0.5


def ripple(line: NDArray[np.float32]) -> float:
    """Largest second difference of a line's samples, relative to the samples, over its echo.

    A smooth profile changes by its curvature from sample to sample (about 1e-3 here); a
    ripple of a few bins, sampled one in four, leaves every sample far from its neighbours.
    """
    values = np.asarray(line, dtype=np.float64)
    lit = values > 0.0
    inner = lit[:-2] & lit[1:-1] & lit[2:]
    second = np.abs(values[:-2] - 2.0 * values[1:-1] + values[2:])
    return float(np.max(second[inner] / values[1:-1][inner]))


def test_a_waterfall_line_of_a_flat_seabed_has_no_ripple(flat: Raycaster) -> None:
    """At 40 m, above max_altitude (30 m), the rows land 1.3 bins apart on the seabed.

    The fan cut at its edge (``CUT``): cast to nadir, the skirt's null near nadir is a real
    dip, not the rows' aliasing this test looks for.
    """
    e = sidescan_echo(75.0, 2000)
    pose = np.eye(4)
    pose[2, 3] = 40.0
    ping = SidescanSonar(e, CUT, pose).ping(flat)
    waterfall = Waterfall(WaterfallConfig(lines=1, samples=500))
    line = waterfall.line(ping)
    starboard = line[500:]
    lit = np.flatnonzero(starboard > 0.0)
    # The first and last lit samples are the fan's edges, partly filled.
    assert ripple(starboard[lit[1] : lit[-1]]) < 0.02
    # Negative control: the same line with a 3-bin ripple of 5 % in its profile.
    bins = np.arange(e.n_bins)
    rippled = ping.profiles * (1.0 + 0.05 * np.sin(2.0 * math.pi * bins / 3.05))
    ripples = type(ping)(rippled, ping.bin_edges, ping.altitude)
    rippled_line = waterfall.line(ripples)[500:]
    assert ripple(rippled_line[lit[1] : lit[-1]]) > 0.02


def test_only_an_altitude_below_the_band_is_reported() -> None:
    """Below min_altitude (2 m) the shallowest ray, asin(2 / 75), meets the seabed short of
    max_range: at 1 m, 1 / sin(asin(2 / 75)) = 37.5 m; elsewhere the profile is whole."""
    sonar = SidescanSonar(sidescan_echo(75.0, 2000), SidescanConfig(), np.eye(4))
    message = sonar.altitude_problem(1.0)
    assert message is not None
    assert message.startswith('altitude 1 m is below sidescan_min_altitude (2 m)')
    assert 'out to 37.5 m of the 75 m window' in message
    for h in (2.0, 10.0, 30.0, 45.0, math.nan):
        assert sonar.altitude_problem(h) is None
