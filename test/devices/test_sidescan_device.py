"""The side-scan as a device: built from settings, its Ranger view, readings and refusals.

A flat seabed z = 0 under the sensor at altitude H, level, x forward: each fan reaches from
depression ``top`` outwards, ``pi / 2`` cast to nadir (``sidescan_cast_to_nadir``, the
default), else ``min(tilt + vertical_width / 2, pi / 2)``, so no echo comes before slant range
``H / sin(top)`` (issue 19, issue 34). A ping waits for the echo from ``max_range``: at most
``c / (2 max_range)`` pings per second.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from nps_sonar_py.devices import (
    Family,
    RangerConfig,
    Rig,
    Setup,
    build_device,
    load_robot_from,
    reference_world_file,
    robot_root_pose,
)
from nps_sonar_py.devices.display import DisplaySettings
from nps_sonar_py.devices.kinds import ModeSettings
from nps_sonar_py.devices.kinds.sidescan import SidescanRanger, SidescanReading, SidescanSettings
from nps_sonar_py.devices.settings import (
    BeamSettings,
    GeometrySettings,
    OutputSettings,
    RobotSettings,
    SensorSettings,
)
from nps_sonar_py.errors import ConfigurationError, DescriptionError
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.transforms import transform_from_xyz_rpy

ROBOT = str(Path(__file__).resolve().parents[2] / 'config' / 'robots' / 'sidescan_sonar.urdf')
H, C, MAX_RANGE, BINS = 8.0, 1500.0, 50.0, 500


def setup(rate: float = 10.0, **sidescan: object) -> Setup:
    """The shipped robot's side-scan with BINS bins at C m/s."""
    return Setup(
        Family.SCANNING,
        SensorSettings(),
        ModeSettings('sidescan'),
        GeometrySettings(),
        OutputSettings(update_rate=rate),
        BeamSettings(range_bins=BINS, sound_speed=C, absorption='none'),  # type: ignore[arg-type]
        SidescanSettings(**sidescan),  # type: ignore[arg-type]
    )


def seabed(tmp_path: Path) -> str:
    """A flat seabed, its top face z = 0, 400 m square."""
    world = tmp_path / 'seabed.world'
    world.write_text("""<world name="flat"><model name="seabed" retro="255"><robot name="seabed">
  <link name="seabed"><collision><origin xyz="0 0 -0.5"/>
    <geometry><box size="400 400 1"/></geometry></collision></link>
</robot></model></world>""")
    return str(world)


def robot():  # type: ignore[no-untyped-def]
    return load_robot_from(RobotSettings(robot_description_file=ROBOT))


def test_the_setup_makes_a_side_scan_with_two_fixed_beams() -> None:
    _, device = build_device(robot(), setup())
    assert isinstance(device, SidescanRanger)
    assert (device.period, device.cycle_length, device.catch_up) == (0.1, 1, False)
    config = device.ranger_config()
    assert (config.min_angle, config.max_angle, config.angular_resolution) == pytest.approx(
        (-math.pi / 2, math.pi / 2, math.pi)
    )
    assert (config.min_range, config.max_range) == (0.5, MAX_RANGE)
    assert config.range_resolution == pytest.approx((MAX_RANGE - 0.5) / BINS)


@pytest.mark.parametrize('nadir', [True, False], ids=['cast-to-nadir', 'cut-at-the-edge'])
def test_a_ping_over_a_flat_seabed_starts_at_the_steepest_ray(tmp_path: Path, nadir: bool) -> None:
    caster = Raycaster(load_world(seabed(tmp_path)))
    pose = transform_from_xyz_rpy((3.0, -2.0, H), (0.0, 0.0, 0.0))
    rig = Rig(robot(), setup(sidescan_cast_to_nadir=nadir), caster, pose)
    reading = rig.read()
    assert isinstance(reading, SidescanReading)
    np.testing.assert_allclose(reading.position, (3.0, -2.0, H))
    ping = reading.ping
    assert ping.profiles.shape == (2, BINS)
    s = SidescanSettings()
    assert s.sidescan_cast_to_nadir  # the default
    edge = s.sidescan_tilt + s.sidescan_vertical_beam_width / 2
    first = H / math.sin(math.pi / 2 if nadir else min(edge, math.pi / 2))
    edges = ping.bin_edges
    for channel in ping.profiles:
        lit = np.flatnonzero(channel > 0.0)
        assert lit.size > 0
        # The first echo's bin holds slant range H / sin(top) (to a bin: the echo is spread
        # over the interval its ray cell covers).
        assert edges[lit[0]] <= first + 1e-6
        assert edges[lit[0] + 1] >= first - (edges[1] - edges[0])
    # A level sensor over a flat seabed: the channels mirror each other.
    np.testing.assert_allclose(ping.profiles[0], ping.profiles[1], rtol=1e-9, atol=0.0)
    assert ping.altitude == pytest.approx(H, rel=1e-6)


@pytest.mark.parametrize(
    'xyz',
    [(2.1, 1.0, 0.01), (0.0, 1.0, 0.5)],
    ids=['on-the-floor', 'on-a-wall'],
)
def test_a_side_scan_touching_the_tank_echoes_no_nan(xyz: tuple[float, float, float]) -> None:
    """Altitude 0 on the tank's floor (its top face z = 0.01), or against its wall x = 0.

    Every ray then starts on the surface it hits: range 0, where the far-field law
    ``1 / r**2`` diverges; with 40 bins (1.24 m, wider than the window's 0.5 m start) a
    return at 0 is within a bin of the window and enters the binning. The fan hears
    nothing, and every bin of the echo and of the XTF display chain after it is finite (a
    NaN in bin 0, or in every bin once a ray cell or a ramp shared it, then spread along
    the whole displayed line). Negative control: the
    scene does give zero-range hits at this pose, where the unguarded law is not finite.
    """
    world = load_world(reference_world_file())
    caster = Raycaster(world)
    coarse = BeamSettings(range_bins=40, sound_speed=C, absorption='none')  # type: ignore[arg-type]
    shown = setup().replaced(
        coarse, DisplaySettings(display='sidescan_600khz_xtf', display_samples=100)
    )
    pose = robot_root_pose([*xyz, 0.0, 0.0, 0.0])
    rig = Rig(robot(), shown, caster, pose, entities=len(world.entities))
    reading = rig.read()
    assert isinstance(reading, SidescanReading)
    assert reading.echo is not None
    assert np.isfinite(reading.echo.intensity).all()
    assert not reading.ping.profiles.any()  # a fan touching a surface hears nothing
    image = rig.device.displayed(reading)
    assert image is not None
    assert np.isfinite(image.linear).all()
    # Negative control: zero-range hits, where the unguarded law divides by zero.
    sonar = rig.device.sonar
    ranges = np.asarray(caster.cast(sonar.origin, sonar.directions).ranges)
    assert (ranges == 0.0).all()
    with np.errstate(divide='ignore'):
        assert not np.isfinite(1.0 / np.square(ranges)).any()


def test_the_ping_rate_is_bounded_by_the_two_way_travel_time() -> None:
    fastest = C / (2 * MAX_RANGE)  # 15 Hz
    with pytest.raises(DescriptionError, match='two-way travel time'):
        build_device(robot(), setup(rate=1.1 * fastest))
    _, device = build_device(robot(), setup())
    config = device.ranger_config()
    faster = RangerConfig(**{**config.__dict__, 'frequency': 1.1 * fastest})
    reason = device.reconfigure(faster)
    assert reason is not None
    assert 'two-way travel time' in reason
    turned = RangerConfig(**{**config.__dict__, 'min_angle': -1.0})
    assert 'two fixed beams' in (device.reconfigure(turned) or '')
    assert device.ranger_config() == config  # both refused: nothing changed
    shorter = RangerConfig(**{**config.__dict__, 'max_range': 25.0, 'frequency': 2 * fastest})
    assert device.reconfigure(shorter) is None
    assert (device.echo.max_range, device.frequency) == (25.0, 2 * fastest)


def test_bad_side_scan_settings_are_refused_in_one_line() -> None:
    with pytest.raises(ConfigurationError, match='waterfall_lines must be an integer in'):
        SidescanSettings(waterfall_lines=0)
    with pytest.raises(ConfigurationError, match='sidescan_max_altitude'):
        SidescanSettings(sidescan_min_altitude=5.0, sidescan_max_altitude=4.0)
    with pytest.raises(ConfigurationError, match='sidescan_tilt must be'):
        SidescanSettings(sidescan_tilt=math.pi / 2)
