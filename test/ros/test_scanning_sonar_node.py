"""The scanning sonar node over real DDS: a sweep and a multibeam fan across a wall at distance D.

The wall's face is the plane x = D in front of the sonar (``ranger_scenes.wall_scene``), whose
head turns about +z from +x. With a hard cone of half angle beta, uniform pattern, one-way,
no absorption and mu = 1 (``docs/physics.md``, T5): at head angle theta the echo spans
[D / cos(theta - beta), D / cos(theta + beta)] and I(theta) / I(0) = cos(theta)**3 for a
narrow beam; a step lasts the two-way travel time 2 max_range / c (T12).
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pytest
from ranger_scenes import ACOUSTICS, MAX_RANGE, C, D, wall_scene
from ranger_scenes import WALL_BETA as BETA
from ros_helpers import Probe, exit_line, running, stamped_after

from nps_sonar_py.sensing.cone import cone_pattern
from nps_sonar_py.sensing.sweep import rotation_z

pytestmark = pytest.mark.ros

STEP = math.radians(15.0)
N_RAYS = 3000


def test_sweep_across_a_wall(tmp_path: Path, probe: Probe) -> None:
    from sensor_msgs.msg import LaserScan

    from nps_sonar import srv
    from nps_sonar.msg import SonarPoint

    probe.subscribe(SonarPoint, 'head/sonar_point')
    probe.subscribe(LaserScan, 'head/scan')
    robot, world = wall_scene(tmp_path)
    parameters = {
        'robot_description_file': robot,
        'scene_file': world,
        'min_angle': -math.pi / 3,
        'max_angle': math.pi / 3,
        'step': STEP,
        'rays': N_RAYS,
        **ACOUSTICS,
    }
    with running('scanning_sonar_node', parameters) as node:
        scan = probe.wait('head/scan', 2, node)[-1]
        pings = probe.wait('head/sonar_point', 9, node)
        # The Ranger view: the sector, the step, the bin width, steps per second.
        config = probe.call(srv.GetRangerConfig, 'head/get_config').config
        assert (config.min_angle, config.max_angle, config.angular_resolution) == pytest.approx(
            (-math.pi / 3, math.pi / 3, STEP)
        )
        assert (config.range_resolution, config.frequency) == pytest.approx(
            (9.5 / 1900, C / (2 * MAX_RANGE))
        )
        config.frequency = 1.1 * C / (2 * MAX_RANGE)
        refused = probe.call(srv.SetRangerConfig, 'head/set_config', config=config)
        assert not refused.success
        assert 'two-way travel time' in refused.reason
        config.frequency, config.min_angle, config.max_angle = 50.0, -math.pi / 6, math.pi / 6
        assert probe.call(srv.SetRangerConfig, 'head/set_config', config=config).success
        # scans read before the change may still be on their way: the first read after it
        narrowed = stamped_after(probe, 'head/scan', node, time.time_ns())[0]
        assert len(narrowed.ranges) == 5
    assert (narrowed.angle_min, narrowed.time_increment, narrowed.scan_time) == pytest.approx(
        (-math.pi / 6, 0.02, 0.1)
    )
    step_period = 2 * MAX_RANGE / C
    # One sweep of 9 steps from -60 to 60 degrees; a step lasts the two-way travel time.
    assert len(scan.ranges) == 9 == len(scan.intensities)
    assert (scan.angle_min, scan.angle_max, scan.angle_increment) == pytest.approx(
        (-math.pi / 3, math.pi / 3, STEP), abs=1e-6
    )
    assert scan.time_increment == pytest.approx(step_period, rel=1e-6)
    assert scan.scan_time == pytest.approx(9 * step_period, rel=1e-6)
    stamps = np.array([p.header.stamp.sec * 10**9 + p.header.stamp.nanosec for p in pings])
    np.testing.assert_allclose(np.diff(stamps), step_period * 1e9, atol=2)  # nanosecond rounding

    by_angle = {round(math.degrees(p.azimuth)): p for p in pings}
    assert sorted(by_angle) == [-60, -45, -30, -15, 0, 15, 30, 45, 60]
    level = by_angle[0].intensity
    assert level == pytest.approx(
        math.pi / 2 * (1 - math.cos(BETA) ** 4) / D**2, rel=3e-3
    )  # T2, mu = 1
    for degrees, ping in by_angle.items():
        theta = math.radians(degrees)
        # T5: cos**3 for a narrow beam, symmetric about the wall's normal.
        assert ping.intensity / level == pytest.approx(math.cos(theta) ** 3, rel=3e-3)
        rays = D / (cone_pattern(BETA, N_RAYS).directions @ rotation_z(theta).T)[:, 0]
        r_min = D / math.cos(abs(theta) - BETA) if degrees else D
        r_max = D / math.cos(abs(theta) + BETA)
        slack = (
            D * math.sin(abs(theta) + BETA) / math.cos(abs(theta) + BETA) ** 2 * 0.02 * BETA + 1e-6
        )
        assert r_min - 1e-9 <= rays.min() <= r_min + slack
        assert r_max - slack <= rays.max() <= r_max + 1e-9
        assert ping.range == pytest.approx(rays.min(), abs=1e-5)
        occupied = np.flatnonzero(np.array(ping.hits))
        low = ping.min_range + ping.bin_width * occupied[[0, -1]]
        assert low[0] <= rays.min() + 1e-5 < low[0] + ping.bin_width + 2e-5
        assert low[1] <= rays.max() + 1e-5 < low[1] + ping.bin_width + 2e-5
        assert ping.intensity == pytest.approx(sum(ping.profile), rel=1e-5)
    # The sweep's scan carries each step's range and intensity, in step order.
    order = [-60, -45, -30, -15, 0, 15, 30, 45, 60]
    np.testing.assert_allclose(scan.intensities, [by_angle[a].intensity for a in order], rtol=2e-3)
    np.testing.assert_allclose(scan.ranges, [by_angle[a].range for a in order], atol=1e-5)


def test_multibeam_fan_and_its_config(tmp_path: Path, probe: Probe) -> None:
    from sensor_msgs.msg import LaserScan

    from nps_sonar import srv
    from nps_sonar.msg import MultibeamPing

    probe.subscribe(MultibeamPing, 'head/multibeam')
    probe.subscribe(LaserScan, 'head/scan')
    robot, world = wall_scene(tmp_path)
    width, vertical = math.radians(1.5), math.radians(10.0)
    parameters = {
        'robot_description_file': robot,
        'scene_file': world,
        'mode': 'multibeam',
        'beams': 31,
        'min_angle': -0.6,
        'max_angle': 0.6,
        'beam_width': width,
        'vertical_beam_width': vertical,
        'rays_horizontal': 3,
        'rays_vertical': 11,
        'update_rate': 20.0,
        **ACOUSTICS,
    }
    with running('scanning_sonar_node', parameters) as node:
        fan = probe.wait('head/multibeam', 1, node)[-1]
        scan = probe.wait('head/scan', 1, node)[-1]
        # 80 pings/s would not wait for the echo from 10 m: c / (2 R) = 75 Hz.
        config = probe.call(srv.GetRangerConfig, 'head/get_config').config
        angles = (config.min_angle, config.max_angle, config.angular_resolution)
        assert angles == pytest.approx((-0.6, 0.6, 0.04))
        config.frequency = 80.0
        refused = probe.call(srv.SetRangerConfig, 'head/set_config', config=config)
        assert not refused.success
        assert 'two-way travel time' in refused.reason
        assert '75' in refused.reason
        config.frequency, config.min_angle, config.max_angle = 50.0, -0.2, 0.2
        assert probe.call(srv.SetRangerConfig, 'head/set_config', config=config).success
        narrowed = stamped_after(probe, 'head/scan', node, time.time_ns())
        assert all(len(s.ranges) == 11 for s in narrowed)
    n, m = fan.beam_count, fan.bin_count
    assert (n, m) == (31, 1900)
    assert len(fan.profiles) == n * m == len(fan.hits)
    azimuths = np.linspace(-0.6, 0.6, 31)
    np.testing.assert_allclose(fan.azimuths, azimuths, atol=1e-6)
    half = width / 2
    offsets = -half + (np.arange(3) + 0.5) * width / 3
    elevations = -vertical / 2 + (np.arange(11) + 0.5) * vertical / 11
    cosines = np.cos(elevations)[None, :, None] * np.cos(azimuths[:, None, None] + offsets)
    nearest = (D / cosines).reshape(31, -1)
    np.testing.assert_allclose(fan.ranges, nearest.min(axis=1), atol=1e-5)
    np.testing.assert_allclose(
        np.array(fan.profiles).reshape(n, m).sum(axis=1), fan.intensities, rtol=1e-4
    )
    fields = (scan.angle_min, scan.angle_increment, scan.time_increment)
    assert fields == pytest.approx((-0.6, 0.04, 0.0), abs=1e-6)
    np.testing.assert_allclose(scan.ranges, fan.ranges)
    assert narrowed
    assert (narrowed[-1].angle_min, narrowed[-1].scan_time) == pytest.approx((-0.2, 0.02))


@pytest.mark.parametrize(
    ('parameters', 'words', 'located'),
    [
        # The device refuses it: located at the sensor in the robot's file.
        ({'step_period': 0.001}, 'two-way travel time', True),
        # The settings record refuses it as the parameters are read: the parameter alone.
        (
            {'mode': 'fan'},
            "nps_sonar: mode must be sweep, multibeam, sidescan or echosounder, got 'fan'",
            False,
        ),
    ],
    ids=['step-too-short', 'unknown-mode'],
)
def test_bad_input_exits_with_one_line(
    tmp_path: Path, parameters: dict[str, object], words: str, located: bool
) -> None:

    from ros_helpers import executable, ros_args

    robot, world = wall_scene(tmp_path)
    command = [
        executable('scanning_sonar_node'),
        *ros_args({'robot_description_file': robot, 'scene_file': world, **parameters}),
    ]
    line = exit_line(command)
    if located:
        assert line.startswith(f'nps_sonar: {robot}'), line
        assert words in line, line
    else:
        assert line == words
