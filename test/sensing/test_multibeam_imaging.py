"""The multibeam's image options and beam patterns, each against its formula.

The fan looks at analytic planes through a caster of this file (no raycaster): the plane
x = D, normal +x, Lambert coefficient MU. A ray at azimuth a and elevation e (direction
(cos e cos a, cos e sin a, sin e)) meets it at r = D / (cos a cos e) with cos(incidence) =
cos a cos e, and returns B dOmega MU cos(inc) / r**2 (``docs/physics.md#the-model``)
with dOmega = cos e de da, so a beam on the plane's normal returns

    I = MU / D**2 * int B_h(a)**n B_v(e)**n cos(a)**3 cos(e)**4 de da.
"""

from __future__ import annotations

import doctest
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray
from scipy.integrate import quad

from nps_sonar_py.devices import Family, FanRanger, Setup, build_device, load_robot_from
from nps_sonar_py.devices.kinds import ModeSettings
from nps_sonar_py.devices.kinds.multibeam import FanSettings
from nps_sonar_py.devices.settings import (
    BeamSettings,
    GeometrySettings,
    OutputSettings,
    RobotSettings,
    ScanningSettings,
    SensorSettings,
)
from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig, beam_intensity
from nps_sonar_py.echo import profile_effects as imaging_module
from nps_sonar_py.echo.profile_effects import (
    TVG_MAX_DB,
    ImagingConfig,
    Tvg,
    apply_imaging,
    tvg_gain,
    tvg_problem,
)
from nps_sonar_py.errors import ConfigurationError, DescriptionError
from nps_sonar_py.scene.hits import RayHits
from nps_sonar_py.sensing.images import CartesianImager, SectorGeometry
from nps_sonar_py.sensing.multibeam import FanConfig, MultibeamSonar

D = 10.0
MU = 0.5
ALPHA = 0.05  # dB/m, one way


@dataclass(frozen=True)
class Plane:
    """The plane x = D seen from origins with x < D; only rays with |y| < half_strip at it."""

    half_strip: float = math.inf

    def cast(self, origins: NDArray[np.float64], directions: NDArray[np.float64]) -> RayHits:
        dx = directions[:, 0]
        o = np.broadcast_to(np.asarray(origins, dtype=np.float64).reshape(-1, 3), directions.shape)
        with np.errstate(divide='ignore', invalid='ignore'):
            t = np.where(dx > 0.0, (D - o[:, 0]) / dx, np.inf)
            y = o[:, 1] + t * directions[:, 1]
        t = np.where(np.abs(y) < self.half_strip, t, np.inf)
        mu = np.where(np.isfinite(t), MU, np.nan)
        return RayHits.of(t, (-1.0, 0.0, 0.0), np.abs(dx), mu)


def echo(**kwargs: object) -> EchoConfig:
    settings: dict[str, object] = {
        'beam_width': math.radians(2.0),
        'pattern': BeamPattern.UNIFORM,
        'n_way': 2,
        'absorption': Absorption.NONE,
        'min_range': 0.5,
        'max_range': 20.5,
        'n_bins': 400,
        'seed': 3,
    }
    settings.update(kwargs)
    return EchoConfig(**settings)  # type: ignore[arg-type]


def sonar(
    config: EchoConfig, imaging: ImagingConfig | None = None, **fan: object
) -> MultibeamSonar:
    settings: dict[str, object] = {'beams': 1, 'min_angle': 0.0, 'max_angle': 0.0}
    settings.update(fan)
    return MultibeamSonar(config, FanConfig(**settings), np.eye(4), imaging=imaging)  # type: ignore[arg-type]


def horizontal_integral(half: float) -> float:
    """int_{-half}^{half} cos(a)**3 da = 2 (sin h - sin(h)**3 / 3), uniform horizontal pattern."""
    s = math.sin(half)
    return 2.0 * (s - s**3 / 3.0)


@pytest.mark.parametrize('vertical', ['uniform', 'gaussian'])
def test_vertical_pattern_on_a_perpendicular_wall_returns_the_integral(vertical: str) -> None:
    width = math.radians(20.0)

    def b_v(e: float) -> float:  # one-way, -3 dB at +-width / 2
        return 1.0 if vertical == 'uniform' else math.exp(-4.0 * math.log(2.0) * (e / width) ** 2)

    vertical_integral, _ = quad(lambda e: b_v(e) ** 2 * math.cos(e) ** 4, -width / 2, width / 2)
    expected = MU / D**2 * horizontal_integral(math.radians(1.0)) * vertical_integral
    fan = sonar(echo(), vertical_width=width, vertical_pattern=vertical, rays_vertical=24)
    ping = fan.ping(Plane())
    assert ping.totals[0] == pytest.approx(expected, rel=1e-4)
    if vertical == 'gaussian':  # the edges of the fan weigh 1/4 (two-way -6 dB)
        flat = sonar(echo(), vertical_width=width).ping(Plane()).totals[0]
        assert ping.totals[0] < 0.9 * flat


@pytest.mark.parametrize('pattern', [BeamPattern.PISTON, BeamPattern.GAUSSIAN, BeamPattern.SINC])
def test_default_three_columns_are_within_1_percent_of_the_converged_total(
    pattern: BeamPattern,
) -> None:
    """The cell-averaged pattern: 3 columns across an 8 degree beam against 301."""
    config = echo(beam_width=math.radians(8.0), pattern=pattern)
    default = sonar(config).ping(Plane()).totals[0]
    assert FanConfig().rays_horizontal == 3
    converged = sonar(config, rays_horizontal=301).ping(Plane()).totals[0]
    assert default == pytest.approx(converged, rel=0.01)
    # The converged value is the integral: two-way pattern times cos(a)**3 across the beam.
    half = config.cast_half_angle
    across, _ = quad(
        lambda a: float(beam_intensity(pattern, abs(a), config.beam_width, 2)) * math.cos(a) ** 3,
        -half,
        half,
    )
    vertical, _ = quad(lambda e: math.cos(e) ** 4, -math.radians(10.0), math.radians(10.0))
    assert converged == pytest.approx(MU / D**2 * across * vertical, rel=1e-4)


def test_time_varied_gain_is_k_log_r_plus_two_alpha_r_at_bin_centres() -> None:
    r = np.array([1.0, 10.0, 100.0])
    # 20 log R + 2 alpha R dB is R**2 10**(alpha R / 5) in intensity; 40 log R is R**4.
    np.testing.assert_allclose(tvg_gain(Tvg.LOG20, r, ALPHA), r**2 * 10 ** (ALPHA * r / 5))
    np.testing.assert_allclose(tvg_gain(Tvg.LOG40, r, 0.0), [1.0, 1e4, 1e8])
    np.testing.assert_array_equal(tvg_gain(Tvg.NONE, r, ALPHA), 1.0)

    config = echo(absorption=Absorption.FIXED, fixed_absorption=ALPHA)
    raw = sonar(config).ping(Plane())
    gained = sonar(config, ImagingConfig(tvg='40log')).ping(Plane())  # type: ignore[arg-type]
    centres = 0.5 + (np.arange(400) + 0.5) * 0.05
    np.testing.assert_allclose(
        gained.profiles, raw.profiles * centres**4 * 10 ** (ALPHA * centres / 5), rtol=1e-12
    )
    # Ranges, totals and confidence are the echo model's, before the image options.
    np.testing.assert_array_equal(gained.totals, raw.totals)
    np.testing.assert_array_equal(gained.ranges, raw.ranges)


def test_a_gain_over_the_limit_is_refused_with_the_reason() -> None:
    """G(max_range) = 40 log10(100) + 2 alpha 100 = 80 + 200 alpha dB against 250 dB."""
    assert TVG_MAX_DB == 250.0
    over = echo(absorption=Absorption.FIXED, fixed_absorption=0.86, min_range=0.0, max_range=100.0)
    with pytest.raises(ConfigurationError) as refused:  # 80 + 172 = 252 dB
        sonar(over, ImagingConfig(tvg=Tvg.LOG40))
    assert str(refused.value) == (
        'tvg: 40log gain at max_range (100 m, absorption 0.86 dB/m) must be <= 250 dB, '
        'got 252.0 dB'
    )
    # The finding's cases: 10**(G / 10) would be inf (G > 3083 dB). 20 log: 40 + 5000 dB.
    assert tvg_problem(Tvg.LOG20, 100.0, 25.0) == (
        'tvg: 20log gain at max_range (100 m, absorption 25 dB/m) must be <= 250 dB, got 5040.0 dB'
    )
    assert tvg_problem(Tvg.NONE, 1e4, 1000.0) is None
    result = doctest.testmod(imaging_module)
    assert (result.attempted, result.failed) == (2, 0)


def test_just_under_the_limit_bins_without_echo_stay_0_and_the_fan_has_no_nan() -> None:
    """80 + 2 * 0.84 * 100 = 248 dB: the gain reaches 10**24.8 in the last bins."""
    config = echo(
        absorption=Absorption.FIXED, fixed_absorption=0.84, min_range=0.0, max_range=100.0
    )
    fan = {'beams': 5, 'min_angle': -0.2, 'max_angle': 0.2}
    raw = sonar(config, **fan).ping(Plane())
    gained = sonar(config, ImagingConfig(tvg=Tvg.LOG40), **fan).ping(Plane())
    silent = raw.hits == 0
    assert silent.any()  # nothing beyond the wall at 10 m
    assert (~silent).any()
    assert np.all(gained.profiles[silent] == 0.0)
    assert np.all(np.isfinite(gained.profiles))
    assert np.all(gained.profiles[~silent] > 0.0)
    # The 32FC1 Cartesian image: finite inside the fan, NaN only outside (by hand: a pixel
    # centre is inside when 0 <= r <= 100 m and |azimuth| <= 0.2 + 0.05, half a spacing).
    g = SectorGeometry(5, -0.2, 0.1, config.beam_width, 0.0, 100.0, config.n_bins)
    imager = CartesianImager(g, 0.5, max_pixels=10**6)
    image = imager.image(gained.profiles)
    rows, cols = np.indices(image.shape)
    x = (imager.origin_row - rows) * 0.5
    y = (imager.origin_col - cols) * 0.5
    r, azimuth = np.hypot(x, y), np.arctan2(y, x)
    inside = (r <= 100.0) & (np.abs(azimuth) <= 0.25)
    clear = (np.abs(r - 100.0) > 1e-6) & (np.abs(np.abs(azimuth) - 0.25) > 1e-6)
    assert np.all(np.isfinite(image[inside & clear]))
    assert np.all(np.isnan(image[~inside & clear]))
    assert np.nanmax(image) > 0.0


def test_an_infinite_gain_leaves_a_bin_without_echo_at_0() -> None:
    """Gain only where there is an echo: 0 * inf would be NaN."""
    profiles = np.array([[0.0, 2.0, 0.0], [1.0, 0.0, 0.0]])
    gain = np.array([np.inf, 3.0, 1e300])
    out = apply_imaging(profiles, ImagingConfig(tvg=Tvg.LOG20), gain, np.random.default_rng())
    assert out.tolist() == [[0.0, 6.0, 0.0], [np.inf, 0.0, 0.0]]
    assert profiles.tolist() == [[0.0, 2.0, 0.0], [1.0, 0.0, 0.0]]  # not modified


def test_side_lobe_leakage_adds_every_other_beam_at_the_floor() -> None:
    profiles = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 4.0]])
    out = apply_imaging(profiles, ImagingConfig(side_lobe_db=-20.0), None, np.random.default_rng())
    # P + 0.01 * (sum of the other beams)
    np.testing.assert_allclose(out, [[1.0, 0.04], [0.01, 0.04], [0.01, 4.0]], rtol=1e-12)

    # A strip only the middle one of 5 beams 10 degrees apart sees: the others read -30 dB.
    fan = {'beams': 5, 'min_angle': -0.35, 'max_angle': 0.35}
    strip = Plane(half_strip=D * math.tan(math.radians(3.0)))
    raw = sonar(echo(), **fan).ping(strip)
    assert raw.totals[2] > 0.0
    assert np.all(raw.profiles[[0, 1, 3, 4]] == 0.0)
    leaky = sonar(echo(), ImagingConfig(side_lobe_db=-30.0), **fan).ping(strip)
    np.testing.assert_allclose(leaky.profiles[2], raw.profiles[2], rtol=1e-12)
    for j in (0, 1, 3, 4):
        np.testing.assert_allclose(leaky.profiles[j], 1e-3 * raw.profiles[2], rtol=1e-12)


def test_cell_speckle_has_mean_1_and_variance_1() -> None:
    """Exp(1): mean 1, variance 1, fourth central moment 9, so over n cells the sample mean
    has standard deviation 1 / sqrt(n) and the sample variance sqrt(8 / n); 5 sigma each."""
    shape = (200, 500)
    n = shape[0] * shape[1]
    out = apply_imaging(
        np.ones(shape), ImagingConfig(cell_speckle=True), None, np.random.default_rng(2024)
    )
    assert abs(out.mean() - 1.0) < 5.0 / math.sqrt(n)
    assert abs(out.var() - 1.0) < 5.0 * math.sqrt(8.0 / n)
    assert np.all(out >= 0.0)

    # In a ping: seeded by the echo model's seed, and zero stays zero.
    raw = sonar(echo(), beams=3, min_angle=-0.1, max_angle=0.1).ping(Plane())
    imaging = ImagingConfig(cell_speckle=True)
    first = sonar(echo(), imaging, beams=3, min_angle=-0.1, max_angle=0.1).ping(Plane())
    again = sonar(echo(), imaging, beams=3, min_angle=-0.1, max_angle=0.1).ping(Plane())
    np.testing.assert_array_equal(first.profiles, again.profiles)
    assert np.all(first.profiles[raw.profiles == 0.0] == 0.0)
    assert not np.array_equal(first.profiles, raw.profiles)


def test_imaging_is_off_by_default_and_refuses_bad_values() -> None:
    assert not ImagingConfig().enabled
    assert FanConfig().vertical_pattern is BeamPattern.UNIFORM
    raw = sonar(echo()).ping(Plane())
    np.testing.assert_allclose(raw.profiles.sum(axis=1), raw.totals, rtol=1e-12)
    cases = [
        ({'tvg': '30log'}, r"^tvg must be none, 20log or 40log, got '30log'$"),
        ({'side_lobe_db': 3.0}, r'^side_lobe_db must be < 0 dB \(None: off\), got 3.0$'),
        ({'side_lobe_db': math.nan}, r'^side_lobe_db must be None or a finite number, got nan$'),
        ({'cell_speckle': 1}, r'^cell_speckle must be true or false, got 1$'),
    ]
    for kwargs, message in cases:
        with pytest.raises(ConfigurationError, match=message):
            ImagingConfig(**kwargs)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match=r"^vertical_pattern must be .*, got 'x'$"):
        FanConfig(vertical_pattern='x')  # type: ignore[arg-type]


def test_several_beams_on_one_axis_are_refused() -> None:
    # Spacing (max - min) / (beams - 1) = 0: every beam on one axis, an image with no inside.
    with pytest.raises(ConfigurationError) as refused:
        FanConfig(beams=3, min_angle=0.1, max_angle=0.1)
    assert str(refused.value) == 'max_angle must be > min_angle for 3 beams, got both 0.1'
    assert FanConfig(beams=1, min_angle=0.1, max_angle=0.1).azimuths().tolist() == [0.1]


def test_scanning_settings_reach_the_fan_and_the_image_and_a_bad_one_is_located() -> None:
    robots = Path(__file__).resolve().parents[2] / 'config' / 'robots'
    robot = load_robot_from(
        RobotSettings(robot_description_file=str(robots / 'ranger_scanning_sonar.urdf'))
    )

    def setup(vertical_pattern: str = 'uniform', **scanning: object) -> Setup:
        return Setup(
            Family.SCANNING,
            SensorSettings(),
            ModeSettings('multibeam'),
            ScanningSettings(min_angle=-0.3, max_angle=0.3, **scanning),  # type: ignore[arg-type]
            FanSettings(vertical_pattern=vertical_pattern),  # type: ignore[arg-type]
            GeometrySettings(),
            OutputSettings(update_rate=5.0),
            BeamSettings(),
        )

    _, device = build_device(robot, setup())
    assert isinstance(device, FanRanger)
    assert device.sonar.imaging == ImagingConfig()
    assert device.sonar.fan.vertical_pattern is BeamPattern.UNIFORM
    chosen = setup(vertical_pattern='gaussian', tvg='20log', cell_speckle=True, side_lobe_db=-30.0)
    _, device = build_device(robot, chosen)
    assert isinstance(device, FanRanger)
    assert device.sonar.imaging == ImagingConfig(Tvg.LOG20, True, -30.0)
    assert device.sonar.fan.vertical_pattern is BeamPattern.GAUSSIAN
    with pytest.raises(
        ConfigurationError, match=r"^tvg must be none, 20log or 40log, got 'loud'$"
    ):
        setup(tvg='loud')
    # Built at start and on a parameter change alike: a gain over the limit is located too.
    with pytest.raises(DescriptionError, match=r'<sensor name=.*tvg: 40log gain .* <= 250 dB'):
        build_device(
            robot,
            Setup(
                Family.SCANNING,
                SensorSettings(),
                ModeSettings('multibeam'),
                ScanningSettings(min_angle=-0.3, max_angle=0.3, tvg='40log'),  # type: ignore[arg-type]
                GeometrySettings(),
                OutputSettings(update_rate=5.0),
                BeamSettings(absorption='fixed', absorption_db_per_m=1000.0),
            ),
        )
