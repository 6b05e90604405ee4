"""Ranger devices (``nps_sonar_py.devices``): a sonar ring in the corridor, and SetConfig's checks.

The corridor (``config/worlds/corridor.world``): walls y = -1.0 and y = 1.5, floor z = 0,
nothing else within 30 m. Expected ranges are the nearest intersection of the documented
cone's rays (``sensing.cone``) with those three planes, computed here.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from nps_sonar_py.description import ScanAxis, parse_robot
from nps_sonar_py.devices import (
    RangerConfig,
    RangerGeometry,
    ScannerRanger,
    SonarArray,
    config_problem,
    element_poses_from_flat,
    ring_poses,
    select_sensors,
)
from nps_sonar_py.echo import EchoConfig
from nps_sonar_py.errors import ConfigurationError, DescriptionError
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.cone import cone_pattern
from nps_sonar_py.sensing.scan import ScanConfig
from nps_sonar_py.transforms import transform_from_xyz_rpy

CORRIDOR = Path(__file__).resolve().parents[2] / 'config' / 'worlds' / 'corridor.world'
SOUTH, NORTH, HEIGHT = -1.0, 1.5, 1.0
BETA = math.radians(15.0)
MAX_RANGE = 5.0
C_AIR = 343.0
N_RAYS = 200


def corridor_range(
    world_from_element: np.ndarray,
    beta: float = BETA,
    n: int = N_RAYS,
    max_range: float = MAX_RANGE,
) -> float:
    """Nearest hit of an element's cone on the corridor walls and floor; +inf beyond max_range."""
    d = cone_pattern(beta, n).directions @ world_from_element[:3, :3].T
    p = world_from_element[:3, 3]
    with np.errstate(divide='ignore'):
        t = np.stack(
            [
                np.where(d[:, 1] > 0, (NORTH - p[1]) / d[:, 1], np.inf),
                np.where(d[:, 1] < 0, (SOUTH - p[1]) / d[:, 1], np.inf),
                np.where(d[:, 2] < 0, -p[2] / d[:, 2], np.inf),
            ]
        )
    nearest = float(t.min())
    return nearest if nearest <= max_range else math.inf


def echo(**kwargs: object) -> EchoConfig:
    settings: dict[str, object] = {
        'beam_width': 2 * BETA,
        'min_range': 0.1,
        'max_range': MAX_RANGE,
        'sound_speed': C_AIR,
        'frequency': 40e3,
    }
    settings.update(kwargs)
    return EchoConfig(**settings)  # type: ignore[arg-type]


LIFT = transform_from_xyz_rpy((0, 0, HEIGHT), (0, 0, 0))


def ring_array(count: int = 8, radius: float = 0.2) -> SonarArray:
    poses = ring_poses(count, radius)
    frames = [f'ring_{k}' for k in range(count)]
    geometry = RangerGeometry.of_elements(
        'base_link', 'ring', LIFT, frames, poses, (0.02, 0.04, 0.02)
    )
    return SonarArray(echo(), LIFT, geometry, n_rays=N_RAYS, frequency=20.0)


@pytest.fixture(scope='module')
def corridor() -> Raycaster:
    return Raycaster(load_world(str(CORRIDOR)))


def test_a_ring_of_sonars_in_the_corridor(corridor: Raycaster) -> None:
    device = ring_array()
    reading = device.read(corridor)
    expected = [corridor_range(LIFT @ p) for p in ring_poses(8, 0.2)]
    # The plain cases: looking straight at a wall reads the perpendicular distance.
    assert expected[2] == pytest.approx(NORTH - 0.2)
    assert expected[6] == pytest.approx(-0.2 - SOUTH)
    # Along the corridor the cone's lower edge meets the floor at 1 / sin(15 deg), and at 45
    # degrees its edge nearest the wall's normal at D / cos(45 - 15 deg): the continuous cone's
    # values, which 200 rays reach within 2 % (their rim is sampled; a range below the
    # continuous one would be a bug).
    floor = HEIGHT / math.sin(BETA)
    assert floor <= expected[0] <= floor * 1.02
    d45 = (NORTH - 0.2 * math.sin(math.pi / 4)) / math.cos(math.pi / 4 - BETA)
    assert d45 <= expected[1] <= d45 * 1.02
    np.testing.assert_allclose(reading.ranges, expected, rtol=2e-6)
    assert reading.intensities.shape == (8,)
    assert np.all(reading.intensities > 0)
    assert len(reading.pings) == 8


def test_elements_beyond_max_range_read_plus_inf(corridor: Raycaster) -> None:
    # A narrow 2 degree cone along the corridor meets nothing within 5 m.
    poses = ring_poses(4, 0.2)
    frames = ['a', 'b', 'c', 'd']
    geometry = RangerGeometry.of_elements('base_link', 'ring', np.eye(4), frames, poses, (0, 0, 0))
    device = SonarArray(
        echo(beam_width=math.radians(2.0)), LIFT, geometry, n_rays=50, frequency=10.0
    )
    ranges = device.read(corridor).ranges
    assert ranges[0] == math.inf
    assert ranges[2] == math.inf
    assert ranges[1] == pytest.approx(NORTH - 0.2, abs=2e-6)


def test_geometry_size_holds_every_element() -> None:
    geometry = ring_array().geometry
    assert geometry.element_poses.shape == (8, 4, 4)
    # Origins span 0.4 m in x and y (elements at 0, 90, 180, 270 degrees),
    # grown by the element size.
    np.testing.assert_allclose(geometry.size, [0.4 + 0.02, 0.4 + 0.04, 0.02])


def test_array_set_config_checks_physics_and_keeps_the_old_config(corridor: Raycaster) -> None:
    device = ring_array()
    before = device.ranger_config()
    assert before.min_angle == pytest.approx(-BETA)
    assert before.angular_resolution == pytest.approx(2 * BETA)
    # c / (2 max_range) = 343 / 10 = 34.3 Hz:
    # 40 Hz cannot hear the farthest echo before the next ping.
    reason = device.reconfigure(dataclasses.replace(before, frequency=40.0))
    assert reason is not None
    assert 'two-way travel time' in reason
    assert '34.3' in reason
    reason = device.reconfigure(dataclasses.replace(before, max_angle=0.5))
    assert reason is not None
    assert 'fixed' in reason
    reason = device.reconfigure(dataclasses.replace(before, max_range=9.0))
    assert reason is not None
    assert 'range window' in reason
    assert device.ranger_config() == before
    # Halving max_range lifts the limit to 68.6 Hz; the floor (3.86 m) is then out of range.
    assert device.reconfigure(dataclasses.replace(before, max_range=2.5, frequency=60.0)) is None
    assert device.ranger_config().frequency == 60.0
    ranges = device.read(corridor).ranges
    assert ranges[0] == math.inf
    assert ranges[2] == pytest.approx(NORTH - 0.2, abs=2e-6)
    assert (
        device.reconfigure(dataclasses.replace(device.ranger_config(), range_resolution=0.25))
        is None
    )
    assert device.read(corridor).ranges[2] == pytest.approx(1.25)


def test_scanner_set_config_narrows_the_window() -> None:
    limits = ScanConfig(
        horizontal=ScanAxis(samples=1081, min_angle=-2.0, max_angle=2.0), max_range=30.0
    )
    geometry = RangerGeometry.of_elements(
        'base_link', 'laser', np.eye(4), ['laser'], np.eye(4)[None], (0, 0, 0)
    )
    device = ScannerRanger(limits, np.eye(4), geometry)
    config = device.ranger_config()
    assert config.angular_resolution == pytest.approx(4.0 / 1080)
    new = RangerConfig(-1.0, 1.0, 0.01, 0.5, 10.0, 0.01, 20.0)
    assert device.reconfigure(new) is None
    assert device.config.horizontal.samples == 201
    applied = device.ranger_config()
    assert dataclasses.astuple(applied) == pytest.approx(dataclasses.astuple(new), rel=1e-12)
    for bad, words in [
        (dataclasses.replace(new, min_angle=-2.5), 'field of view'),
        (dataclasses.replace(new, angular_resolution=0.03), 'whole number'),
        (dataclasses.replace(new, max_range=31.0), 'range window'),
        (dataclasses.replace(new, frequency=0.0), 'frequency'),
        (dataclasses.replace(new, min_angle=1.5), 'max_angle'),
        (dataclasses.replace(new, max_range=math.nan), 'finite'),
        (dataclasses.replace(new, min_angle=math.nan), 'finite'),
    ]:
        reason = device.reconfigure(bad)
        assert reason is not None
        assert words in reason, reason
        assert device.config.horizontal.samples == 201  # unchanged
    assert config_problem(new) is None


def test_select_sensors_by_name_and_glob() -> None:
    sonars = ''.join(
        f'<sensor name="s{k}" type="sonar"><parent link="base"/><sonar max="3"/></sensor>'
        for k in range(3)
    )
    robot = parse_robot(
        f'<robot name="r"><link name="base"/>{sonars}'
        '<sensor name="laser" type="ray"><parent link="base"/></sensor></robot>'
    )
    assert [s.name for s in select_sensors(robot, '')] == ['laser']
    assert [s.name for s in select_sensors(robot, 's*')] == ['s0', 's1', 's2']
    assert [s.name for s in select_sensors(robot, 's2, s0')] == ['s2', 's0']
    with pytest.raises(DescriptionError, match='no <sensor> matches "x"'):
        select_sensors(robot, 'x')


def test_element_poses_from_flat() -> None:
    poses = element_poses_from_flat(
        [0.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 0.0, math.pi / 2]
    )
    np.testing.assert_allclose(poses, ring_poses(4, 0.1)[:2], atol=1e-12)
    with pytest.raises(ConfigurationError, match='6 numbers'):
        element_poses_from_flat([0.0] * 7)
