"""The ranger node over real DDS: a box-room scanner, a sonar ring in the corridor, the services.

Expected values come from the scenes' planes (``ranger_scenes``): the box room's inner faces
x = -3, 5; y = -2, 4; z = 0, 3 (laser_retro 40, 80, 120, 160, 200, 240), and the corridor's
walls y = -1.0, 1.5 and floor z = 0. A sonar's range is the nearest intersection of its
documented cone (``sensing.cone``) with those planes.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ranger_scenes import (
    BOX_ROOM,
    CORRIDOR,
    FLOAT32,
    LASER_XYZ,
    LASER_YAW,
    PLANAR,
    RING_HEIGHT,
    RING_RADIUS,
    SONAR_MAX,
    WORLDS,
    corridor_range,
    directions,
    one_sonar_robot,
    ring_robot,
    room_hits,
    scanner_robot,
)
from ranger_scenes import RING_BETA as BETA
from ros_helpers import (
    Probe,
    executable,
    exit_line,
    first_such,
    nanoseconds,
    ros_args,
    running,
    stamped_after,
)

from nps_sonar_py.devices import ring_poses
from nps_sonar_py.transforms import rpy_to_matrix, transform_from_xyz_rpy

pytestmark = pytest.mark.ros


# --- the scanner ----------------------------------------------------------------------------


def test_scanner_in_the_box_room(tmp_path: Path, probe: Probe) -> None:
    from sensor_msgs.msg import LaserScan

    from nps_sonar.msg import RangerData

    probe.subscribe(LaserScan, 'laser/scan')
    probe.subscribe(RangerData, 'laser/ranger')
    robot = scanner_robot(tmp_path, PLANAR, rate=25.0)
    with running('ranger_node', {'robot_description_file': robot, 'scene_file': BOX_ROOM}) as node:
        scan = probe.wait('laser/scan', 2, node)[-1]
        data = probe.wait('laser/ranger', 1, node)[-1]
    half = 3 * math.pi / 4
    assert scan.header.frame_id == 'laser'
    assert (scan.angle_min, scan.angle_max) == pytest.approx((-half, half), abs=1e-6)
    assert scan.angle_increment == pytest.approx(2 * half / 540, rel=1e-6)
    assert scan.time_increment == 0.0  # all rays are cast at the stamp's instant
    assert scan.scan_time == pytest.approx(1 / 25.0)
    assert (scan.range_min, scan.range_max) == pytest.approx((0.2, 30.0))
    angles = scan.angle_min + scan.angle_increment * np.arange(len(scan.ranges))
    distance, retro, gap = room_hits(LASER_XYZ, directions(angles))
    assert len(scan.ranges) == 541 == len(scan.intensities)
    np.testing.assert_allclose(np.array(scan.ranges), distance, rtol=FLOAT32)
    clear = gap > 1e-3
    np.testing.assert_allclose(np.array(scan.intensities)[clear], retro[clear], rtol=1e-6)
    # RangerData: the same ranges, the device where the URDF puts it, the configuration in force.
    np.testing.assert_allclose(np.array(data.ranges), distance, rtol=FLOAT32)
    geometry = data.geometry
    assert (geometry.parent_frame, geometry.device_frame, list(geometry.element_frames)) == (
        'base_link',
        'laser',
        ['laser'],
    )
    p = geometry.pose.position
    assert (p.x, p.y, p.z) == pytest.approx(tuple(LASER_XYZ))
    q = geometry.pose.orientation
    assert (q.x, q.y, q.z, q.w) == pytest.approx(
        (0.0, 0.0, math.sin(LASER_YAW / 2), math.cos(LASER_YAW / 2))
    )
    config = data.config
    assert (config.min_angle, config.max_angle, config.frequency) == pytest.approx(
        (-half, half, 25.0)
    )


def test_the_shipped_ranger_yaml_starts_the_scanner_it_describes(probe: Probe) -> None:
    from sensor_msgs.msg import LaserScan

    probe.subscribe(LaserScan, 'laser/scan')
    params = Path(__file__).resolve().parents[2] / 'config' / 'ranger.yaml'
    with running('ranger_node', extra=['--params-file', str(params)]) as node:
        scan = probe.wait('laser/scan', 1, node)[-1]
    # config/robots/ranger_scanner.urdf: 1080 readings over +-135 degrees, 0.1..30 m; the robot
    # stands where the reference sonar does, 1 m up, looking along +y at the cylinder whose face
    # is 1.75 m away (y = 3.0 - 0.25 from y = 1.0). The two middle readings are 0.125 degrees
    # off the axis; the scanner's noise has a stddev of 1 cm.
    assert len(scan.ranges) == 1080
    assert (scan.range_min, scan.range_max) == pytest.approx((0.1, 30.0))
    middle = np.array(scan.ranges[539:541])
    np.testing.assert_allclose(middle, 1.75, atol=0.05)


def test_scanner_with_rows_publishes_a_point_cloud(tmp_path: Path, probe: Probe) -> None:
    from sensor_msgs.msg import PointCloud2, PointField

    ray = (
        '<horizontal samples="72" min_angle="-3.141592653589793" max_angle="3.0543261909900767"/>'
        '<vertical samples="5" min_angle="-0.6" max_angle="0.6"/><range min="0.1" max="20"/>'
    )
    probe.subscribe(PointCloud2, 'laser/points')
    with running(
        'ranger_node',
        {'robot_description_file': scanner_robot(tmp_path, ray), 'scene_file': BOX_ROOM},
    ) as node:
        cloud = probe.wait('laser/points', 1, node)[-1]
    assert (cloud.height, cloud.width) == (5, 72)
    fields = {f.name: f for f in cloud.fields}
    assert list(fields) == ['x', 'y', 'z', 'intensity', 'ring']
    assert fields['ring'].datatype == PointField.UINT16
    assert fields['x'].datatype == PointField.FLOAT32
    dtype = np.dtype(
        {
            'names': list(fields),
            'offsets': [f.offset for f in fields.values()],
            'formats': ['<f4', '<f4', '<f4', '<f4', '<u2'],
            'itemsize': cloud.point_step,
        }
    )
    points = np.frombuffer(bytes(cloud.data), dtype=dtype).reshape(5, 72)
    assert cloud.row_step == 72 * cloud.point_step
    azimuth = np.linspace(-math.pi, math.radians(175.0), 72)
    turn = rpy_to_matrix((0.0, 0.0, LASER_YAW))
    for row, elevation in enumerate(np.linspace(-0.6, 0.6, 5)):
        d = directions(azimuth, elevation)
        distance, retro, gap = room_hits(LASER_XYZ, d)
        xyz = np.column_stack([points[row]['x'], points[row]['y'], points[row]['z']])
        expected = (d * distance[:, None]) @ turn  # world directions back into the sensor frame
        np.testing.assert_allclose(xyz, expected, atol=2e-5)
        assert np.all(points[row]['ring'] == row)
        clear = gap > 1e-3
        np.testing.assert_allclose(points[row]['intensity'][clear], retro[clear], rtol=1e-6)


# --- sonar arrays ---------------------------------------------------------------------------


def expected_ring_ranges(count: int, n_rays: int) -> list[float]:
    lift = transform_from_xyz_rpy((0.0, 0.0, RING_HEIGHT), (0.0, 0.0, 0.0))
    return [corridor_range(lift @ p, n_rays) for p in ring_poses(count, RING_RADIUS)]


def ring_parameters(tmp_path: Path) -> dict[str, Any]:
    """The ranger node's parameters for the ring of 8 sonars ``ring_*`` in the corridor, in air."""
    return {
        'robot_description_file': ring_robot(tmp_path),
        'scene_file': CORRIDOR,
        'sensors': 'ring_*',
        'device_name': 'ring',
        'rays': 300,
        'medium': 'air',
    }


def test_ring_of_sonar_sensors_in_the_corridor(tmp_path: Path, probe: Probe) -> None:
    from sensor_msgs.msg import Range

    from nps_sonar.msg import RangerData

    for k in range(8):
        probe.subscribe(Range, f'ring_{k}/range')
    probe.subscribe(RangerData, 'ring/ranger')
    parameters = ring_parameters(tmp_path)
    with running('ranger_node', parameters) as node:
        data = probe.wait('ring/ranger', 2, node)[-1]
        ranges = [probe.wait(f'ring_{k}/range', 1, node)[0] for k in range(8)]
    expected = expected_ring_ranges(8, 300)
    assert expected[2] == pytest.approx(1.5 - RING_RADIUS)
    assert expected[6] == pytest.approx(1.0 - RING_RADIUS)
    # Along the corridor: the floor, at 1 / sin(15 deg) for the continuous cone,
    # a little farther for rays.
    assert math.isfinite(expected[1])
    assert 1 / math.sin(BETA) <= expected[0] <= 1.03 / math.sin(BETA)
    for k, message in enumerate(ranges):
        assert message.header.frame_id == f'ring_{k}'
        assert message.radiation_type == Range.ULTRASOUND
        assert message.field_of_view == pytest.approx(2 * BETA, rel=1e-6)
        assert message.range == pytest.approx(expected[k], rel=FLOAT32)
    np.testing.assert_allclose(np.array(data.ranges), expected, rtol=FLOAT32)
    assert len(data.intensities) == 8
    assert min(data.intensities) > 0.0
    geometry = data.geometry
    assert list(geometry.element_frames) == [f'ring_{k}' for k in range(8)]
    # The device frame sits at the ring's centre;
    # element k at radius 0.2 m, yawed by k * 45 degrees.
    assert (
        geometry.pose.position.x,
        geometry.pose.position.y,
        geometry.pose.position.z,
    ) == pytest.approx((0.0, 0.0, RING_HEIGHT), abs=1e-9)
    for k, pose in enumerate(geometry.element_poses):
        yaw = 2 * math.pi * k / 8
        assert (pose.position.x, pose.position.y) == pytest.approx(
            (RING_RADIUS * math.cos(yaw), RING_RADIUS * math.sin(yaw)), abs=1e-9
        )
        assert abs(pose.orientation.z) == pytest.approx(abs(math.sin(yaw / 2)), abs=1e-9)
    assert data.config.frequency == pytest.approx(10.0)
    assert (data.config.min_angle, data.config.max_angle) == pytest.approx((-BETA, BETA), rel=1e-9)


def test_ring_as_one_sonar_with_element_poses(tmp_path: Path, probe: Probe) -> None:
    from sensor_msgs.msg import Range

    from nps_sonar.msg import RangerData

    probe.subscribe(RangerData, 'sonar/ranger')
    probe.subscribe(Range, 'sonar_2/range')
    flat: list[float] = []
    for k in range(8):
        yaw = 2 * math.pi * k / 8
        flat += [RING_RADIUS * math.cos(yaw), RING_RADIUS * math.sin(yaw), 0.0, 0.0, 0.0, yaw]
    parameters = {
        'robot_description_file': one_sonar_robot(tmp_path),
        'scene_file': CORRIDOR,
        'element_poses': flat,
        'rays': 300,
        'medium': 'air',
    }
    with running('ranger_node', parameters) as node:
        data = probe.wait('sonar/ranger', 1, node)[-1]
        element = probe.wait('sonar_2/range', 1, node)[-1]
    np.testing.assert_allclose(np.array(data.ranges), expected_ring_ranges(8, 300), rtol=FLOAT32)
    assert list(data.geometry.element_frames) == [f'sonar_{k}' for k in range(8)]
    assert element.header.frame_id == 'sonar_2'
    assert element.range == pytest.approx(1.5 - RING_RADIUS, rel=FLOAT32)


# --- services --------------------------------------------------------------------------------


def test_services_change_what_the_scanner_publishes(tmp_path: Path, probe: Probe) -> None:
    from diagnostic_msgs.msg import DiagnosticArray
    from sensor_msgs.msg import LaserScan

    from nps_sonar import srv
    from nps_sonar.msg import RangerConfig, RangerData

    probe.subscribe(LaserScan, 'laser/scan')
    probe.subscribe(RangerData, 'laser/ranger')
    probe.subscribe(DiagnosticArray, '/diagnostics')
    with running(
        'ranger_node',
        {
            'robot_description_file': scanner_robot(tmp_path, PLANAR, rate=40.0),
            'scene_file': BOX_ROOM,
            'diagnostics_rate': 10.0,
        },
    ) as node:
        probe.wait('laser/scan', 1, node)
        geometry = probe.call(srv.GetRangerGeometry, 'laser/get_geometry').geometry
        assert geometry.device_frame == 'laser'
        assert len(geometry.element_poses) == 1
        config = probe.call(srv.GetRangerConfig, 'laser/get_config').config
        assert config.frequency == pytest.approx(40.0)
        assert config.max_range == pytest.approx(30.0)

        # A narrower window, coarser spacing, a shorter range, range rounding and a new rate.
        wanted = RangerConfig(
            min_angle=-0.5,
            max_angle=0.5,
            angular_resolution=0.01,
            min_range=0.5,
            max_range=4.5,
            range_resolution=0.01,
            frequency=20.0,
        )
        answer = probe.call(srv.SetRangerConfig, 'laser/set_config', config=wanted)
        assert answer.success, answer.reason
        assert answer.config.angular_resolution == pytest.approx(0.01)
        # scans read before the change may still be on their way: the first four read after it
        scans = stamped_after(probe, 'laser/scan', node, time.time_ns(), count=8)
        assert all(len(s.ranges) == 101 for s in scans)
        scan = scans[-1]
        assert (scan.angle_min, scan.angle_increment, scan.scan_time) == pytest.approx(
            (-0.5, 0.01, 0.05)
        )
        assert scan.range_max == pytest.approx(4.5)
        distance, _, _ = room_hits(LASER_XYZ, directions(np.linspace(-0.5, 0.5, 101)))
        expected = np.where(distance > 4.5, np.inf, np.round(distance / 0.01) * 0.01)
        np.testing.assert_allclose(np.array(scan.ranges), expected, atol=1e-5)
        assert np.isinf(expected).any()
        assert np.isfinite(expected).any()
        # The new rate is in effect: over seven gaps the mean is nearer 20 Hz's 50 ms than the
        # old 40 Hz's 25 ms. A loaded machine delays or skips ticks of this wall-clock scanner
        # (its stamps are its ticks' times), so the mean is bounded from below only.
        stamps = [s.header.stamp.sec + 1e-9 * s.header.stamp.nanosec for s in scans]
        assert np.mean(np.diff(stamps)) > 0.0375

        # Impossible configurations are refused with a reason; the last good one stays.
        good = {
            'min_angle': -0.5,
            'max_angle': 0.5,
            'angular_resolution': 0.01,
            'min_range': 0.5,
            'max_range': 4.5,
            'range_resolution': 0.0,
            'frequency': 20.0,
        }
        for bad, words in [
            (RangerConfig(**{**good, 'min_angle': -3.0}), 'field of view'),
            (RangerConfig(**{**good, 'angular_resolution': 0.3}), 'whole number'),
            (RangerConfig(**{**good, 'min_range': 5.0}), 'max_range'),
        ]:
            refused = probe.call(srv.SetRangerConfig, 'laser/set_config', config=bad)
            assert not refused.success, refused.reason
            assert words in refused.reason, refused.reason
            assert refused.config.angular_resolution == pytest.approx(0.01)
        assert all(len(s.ranges) == 101 for s in probe.wait('laser/scan', 2, node))

        # Intensities off: left empty, in both messages.
        assert probe.call(
            srv.EnableRangerIntensities, 'laser/enable_intensities', enable=False
        ).success
        since = time.time_ns()
        assert all(
            len(s.intensities) == 0 for s in stamped_after(probe, 'laser/scan', node, since, 2)
        )
        data = stamped_after(probe, 'laser/ranger', node, since, 2)
        assert all(len(d.intensities) == 0 and len(d.ranges) == 101 for d in data)

        # Power off: nothing is published; on again: the same configuration.
        assert probe.call(srv.SetRangerPower, 'laser/power', power=False).success
        # Scans read before the answer may still be on their way: none may be stamped between
        # the answer and the request to power on, 10 scan periods later or more.
        # The request to power on goes once the node's own status, on its clock, says it has
        # been off for 10 scan periods (0.5 s at 20 Hz): a loaded machine may run no tick in a
        # fixed wait, this proves they ran.
        off = time.time_ns()
        first_such(
            probe,
            '/diagnostics',
            node,
            lambda m: (
                m.status[0].message == 'powered off'
                and nanoseconds(m.header.stamp) > off + 500_000_000
            ),
        )
        on = time.time_ns()
        assert probe.call(srv.SetRangerPower, 'laser/power', power=True).success
        scan = stamped_after(probe, 'laser/scan', node, on)[0]
        with probe.lock:
            dark = [
                s for s in probe.received['laser/scan'] if off < nanoseconds(s.header.stamp) < on
            ]
        assert dark == []
        assert len(scan.ranges) == 101
        assert scan.angle_min == pytest.approx(-0.5)
        assert probe.call(
            srv.GetRangerConfig, 'laser/get_config'
        ).config.max_range == pytest.approx(4.5)


def test_array_refuses_a_rate_beyond_the_travel_time(tmp_path: Path, probe: Probe) -> None:
    from nps_sonar import srv
    from nps_sonar.msg import RangerData

    probe.subscribe(RangerData, 'ring/ranger')
    parameters = {
        'robot_description_file': ring_robot(tmp_path, 4),
        'scene_file': CORRIDOR,
        'sensors': 'ring_*',
        'device_name': 'ring',
        'rays': 50,
        'medium': 'air',
        'sound_speed': 343.0,
    }
    with running('ranger_node', parameters) as node:
        probe.wait('ring/ranger', 1, node)
        config = probe.call(srv.GetRangerConfig, 'ring/get_config').config
        config.frequency = 40.0  # c / (2 * 5 m) = 34.3 Hz
        refused = probe.call(srv.SetRangerConfig, 'ring/set_config', config=config)
        assert not refused.success
        assert 'two-way travel time' in refused.reason
        assert refused.config.frequency == pytest.approx(10.0)
        config.max_range, config.frequency = (
            1.0,
            40.0,
        )  # the north wall (1.3 m) is now out of range
        assert probe.call(srv.SetRangerConfig, 'ring/set_config', config=config).success
        data = stamped_after(probe, 'ring/ranger', node, time.time_ns())[0]
        assert data.config.max_range == pytest.approx(1.0)
    assert data.ranges[1] == math.inf
    assert data.ranges[3] == pytest.approx(0.8, rel=FLOAT32)


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ('parameters', 'words'),
    [
        ({'sensors': 'nope'}, 'no <sensor> matches "nope"'),
        ({'sensors': 'ring_0', 'element_poses': [0.0] * 7}, '6 numbers'),
    ],
    ids=['unknown-sensor', 'bad-element-poses'],
)
def test_bad_input_exits_with_one_line(
    tmp_path: Path, parameters: dict[str, Any], words: str
) -> None:
    robot = ring_robot(tmp_path, 2)
    command = [
        executable('ranger_node'),
        *ros_args({'robot_description_file': robot, 'scene_file': CORRIDOR, **parameters}),
    ]
    line = exit_line(command)
    assert words in line, line


@pytest.mark.parametrize(
    ('file', 'table'),
    [
        ('ranger.yaml', 'ranger'),
        ('ranger_ring.yaml', 'ranger'),
        ('scanning_sonar.yaml', 'scanning'),
        ('multibeam_sonar.yaml', 'scanning'),
        ('sidescan_sonar.yaml', 'scanning'),
    ],
)
def test_parameter_files_name_declared_parameters_with_their_types(file: str, table: str) -> None:
    import yaml

    from nps_sonar_py.ros.params import parameter_specs
    from nps_sonar_py.ros.ranger_node import RangerNode
    from nps_sonar_py.ros.scanning_sonar_node import ScanningSonarNode

    node = RangerNode if table == 'ranger' else ScanningSonarNode
    specs = {p.name: p for p in parameter_specs(node.records())}
    values = yaml.safe_load((WORLDS.parent / file).read_text())['/**']['ros__parameters']
    for name, value in values.items():
        assert name in specs, name
        assert type(value) is type(specs[name].plain_default), (
            name
        )  # 50 where 50.0 is declared fails at start


def test_point_cloud_without_intensities_has_no_intensity_field() -> None:
    from builtin_interfaces.msg import Time

    from nps_sonar_py.ros.conversions import point_cloud

    points = np.arange(2 * 3 * 3, dtype=np.float64).reshape(2, 3, 3)
    points[1, 2] = np.nan
    cloud = point_cloud(points, None, stamp=Time(), frame_id='f')
    assert [f.name for f in cloud.fields] == ['x', 'y', 'z', 'ring']
    assert cloud.point_step == 16
    assert not cloud.is_dense
    decoded = np.frombuffer(
        bytes(cloud.data),
        dtype=np.dtype(
            {
                'names': ['x', 'y', 'z', 'ring'],
                'formats': ['<f4', '<f4', '<f4', '<u2'],
                'offsets': [0, 4, 8, 12],
                'itemsize': 16,
            }
        ),
    ).reshape(2, 3)
    np.testing.assert_array_equal(decoded['x'][0], [0.0, 3.0, 6.0])
    assert np.isnan(decoded['z'][1, 2])
    assert decoded['ring'].tolist() == [[0, 0, 0], [1, 1, 1]]


def test_ring_elements_show_their_beams_and_hits(tmp_path: Path, probe: Probe) -> None:
    from visualization_msgs.msg import Marker

    probe.subscribe(Marker, 'ring_2/markers')
    parameters = {**ring_parameters(tmp_path), 'marker_rate': 5.0}
    with running('ranger_node', parameters) as node:
        markers = probe.wait('ring_2/markers', 4, node)
    beam = next(m for m in markers if m.ns == 'beam')
    hits = next(m for m in markers if m.ns == 'hits')
    assert beam.header.frame_id == hits.header.frame_id == 'ring_2'
    rim = [p for p in beam.points if p.x > 0]
    assert all(p.x == pytest.approx(SONAR_MAX) for p in rim)
    assert all(
        math.hypot(p.y, p.z) == pytest.approx(SONAR_MAX * math.tan(BETA), rel=1e-6) for p in rim
    )
    # Element 2 looks along +y at the wall y = 1.5 from y = 0.2:
    # every hit lies 1.3 m ahead along its x axis.
    assert len(hits.points) == 300
    np.testing.assert_allclose([p.x for p in hits.points], 1.5 - RING_RADIUS, atol=1e-4)
