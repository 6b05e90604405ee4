"""``mode: echosounder`` with multipath, built from settings (``devices/build.py``) and read.

The shipped echosounder robot (``config/robots/echosounder.urdf``: the swath ``(2.1, 2.0,
1.5)`` m from the robot's root, pointing down) placed ``D`` above a flat seabed (z = 0), the
sea surface ``Z_S`` above the transducer. With two bounces the nadir beam hears the
surface-bottom ghost at the equivalent range ``2 D + Z_S`` (down ``D``, mirrored up
``D + Z_S``, mirrored down ``Z_S + D``, scattered back up ``D``: a two-way path of
``4 D + 2 Z_S``; derived in ``test/sensing/test_echosounder_multipath.py``), after the seabed
echo at ``D``; the soundings stay those of the device without multipath.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nps_sonar_py.devices import Family, Rig, Setup, build_device, load_robot_from
from nps_sonar_py.devices.kinds import ModeSettings
from nps_sonar_py.devices.kinds.echosounder import EchosounderRanger, EchosounderSettings
from nps_sonar_py.devices.settings import (
    BeamSettings,
    GeometrySettings,
    OutputSettings,
    RobotSettings,
    SensorSettings,
)
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.echosounder import EchosounderPing, Quality
from nps_sonar_py.sensing.multipath import MultipathConfig
from nps_sonar_py.transforms import transform_from_xyz_rpy

ROBOT = str(Path(__file__).resolve().parents[2] / 'config' / 'robots' / 'echosounder.urdf')
MOUNT = (2.1, 2.0, 1.5)  # sonar_link in base_link
D, Z_S = 4.0, 2.995  # the seabed below the transducer, the sea surface above it
R_GHOST = 2.0 * D + Z_S  # a bin centre (0.2 + 0.01 (k + 1/2)), within the 15 m window


def setup(bounces: int) -> Setup:
    """Three beams (nadir and +-0.3 rad), the sea surface Z_S above the transducer."""
    return Setup(
        Family.SCANNING,
        SensorSettings(),
        ModeSettings('echosounder'),
        GeometrySettings(),
        OutputSettings(update_rate=1.0),
        BeamSettings(
            range_bins=1480,  # 0.01 m bins over 0.2 .. 15 m
            sound_speed=1500.0,
            absorption='none',  # type: ignore[arg-type]
            max_bounces=bounces,
            sea_surface_z=D + Z_S,
            surface_loss_db=1.0,
        ),
        EchosounderSettings(
            swath_beams=3,
            swath_min_angle=-0.3,
            swath_max_angle=0.3,
            rays_across_track=15,
            rays_along_track=15,
        ),
    )


def seabed(tmp_path: Path) -> str:
    """A flat seabed, its top face z = 0, 200 m square."""
    world = tmp_path / 'seabed.world'
    world.write_text("""<world name="flat"><model name="seabed"><robot name="seabed">
  <link name="seabed"><collision><origin xyz="0 0 -0.5"/>
    <geometry><box size="200 200 1"/></geometry></collision></link>
</robot></model></world>""")
    return str(world)


def read(tmp_path: Path, bounces: int) -> tuple[EchosounderRanger, EchosounderPing]:
    robot = load_robot_from(RobotSettings(robot_description_file=ROBOT))
    caster = Raycaster(load_world(seabed(tmp_path)))
    root = transform_from_xyz_rpy((0.0, 0.0, D - MOUNT[2]), (0.0, 0.0, 0.0))
    rig = Rig(robot, setup(bounces), caster, root)
    device = rig.device
    assert isinstance(device, EchosounderRanger)
    ping = rig.read()
    assert isinstance(ping, EchosounderPing)
    return device, ping


def test_the_settings_give_the_echosounder_their_multipath() -> None:
    _, device = build_device(
        load_robot_from(RobotSettings(robot_description_file=ROBOT)), setup(2)
    )
    assert isinstance(device, EchosounderRanger)
    assert device.sonar.multipath == MultipathConfig(
        max_bounces=2, sea_surface_z=D + Z_S, surface_loss_db=1.0
    )


def test_a_read_hears_the_ghost_at_2d_plus_z_s_and_keeps_the_soundings(tmp_path: Path) -> None:
    _, plain = read(tmp_path, 0)
    device, ping = read(tmp_path, 2)
    centres = device.sonar.model.bin_centres
    width = device.sonar.echo.bin_width
    slack = (device.sonar.pulse_bins + 1.0) * width
    nadir = ping.profiles[1]  # the middle beam of three
    ghost = (centres >= R_GHOST - slack) & (centres <= R_GHOST + slack) & (nadir > 0.0)
    assert ghost.any()
    centre = float(np.sum(nadir[ghost] * centres[ghost]) / np.sum(nadir[ghost]))
    assert centre == pytest.approx(R_GHOST, abs=0.5 * width)
    assert not np.any(plain.profiles[1][centres > D + slack])  # no ghost without multipath
    assert ping.quality.tolist() == [Quality.GOOD] * 3
    np.testing.assert_array_equal(ping.two_way_time, plain.two_way_time)
    np.testing.assert_array_equal(ping.world_points, plain.world_points)
    np.testing.assert_allclose(ping.world_points[1], (*MOUNT[:2], 0.0), atol=slack)
