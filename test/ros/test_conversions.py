"""Message conversions (``ros/conversions.py``) without a node: fields, shapes and geometry.

Each expected value comes from the message conventions (REP 117, LaserScan's angle fields,
flat beam-major arrays) or from geometry worked out here (a quaternion of a known rotation,
a cone's rim), not from the functions' own output.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from nps_sonar_py.devices import Beam, RangerConfig, RangerGeometry
from nps_sonar_py.echo import EchoConfig, Ping, RangeEstimator
from nps_sonar_py.sensing.multibeam import FanPing
from nps_sonar_py.transforms import transform_from_xyz_rpy

pytestmark = pytest.mark.ros


def _stamp() -> Any:
    from builtin_interfaces.msg import Time

    return Time(sec=12, nanosec=345)


def _ping(total: float = 0.25, reading: float = 1.75) -> Ping:
    edges = np.linspace(0.5, 2.5, 5)
    intensity = np.array([0.0, 0.05, 0.2, 0.0])
    return Ping(
        intensity=intensity,
        hits=np.array([0, 3, 9, 0]),
        bin_edges=edges,
        bin_centres=0.5 * (edges[1:] + edges[:-1]),
        total=total,
        range=reading,
        confidence=0.5,
        source_level=0.0,
    )


def test_range_message_carries_the_window_and_rep117_values() -> None:
    from sensor_msgs.msg import Range

    from nps_sonar_py.ros.conversions import range_message

    for reading in (1.75, math.inf, -math.inf):
        m = range_message(
            reading, field_of_view=0.2, min_range=0.1, max_range=7.0, stamp=_stamp(), frame_id='s'
        )
        assert m.radiation_type == Range.ULTRASOUND
        assert (m.header.frame_id, m.header.stamp.nanosec) == ('s', 345)
        assert m.range == reading
        assert m.field_of_view == pytest.approx(0.2)
        assert (m.min_range, m.max_range) == pytest.approx((0.1, 7.0))


def test_single_beam_scan_spans_the_beam_between_its_half_power_edges() -> None:
    from nps_sonar_py.ros.conversions import single_beam_scan

    echo = EchoConfig(beam_width=0.3, min_range=0.5, max_range=2.5, n_bins=4)
    scan = single_beam_scan(
        _ping(), echo, stamp=_stamp(), frame_id='s', scan_time=0.1, azimuth=0.5
    )
    assert scan.angle_min == pytest.approx(0.5 - 0.15)
    assert scan.angle_max == pytest.approx(0.5 + 0.15)
    assert scan.angle_increment == pytest.approx(0.3)
    assert list(scan.ranges) == pytest.approx([1.75])
    assert list(scan.intensities) == pytest.approx([0.25])
    quiet = single_beam_scan(
        _ping(), echo, stamp=_stamp(), frame_id='s', scan_time=0.1, intensities=False
    )
    assert len(quiet.intensities) == 0


@pytest.mark.parametrize('estimator', list(RangeEstimator))
def test_sonar_point_names_its_estimator_and_carries_the_profile(
    estimator: RangeEstimator,
) -> None:
    from nps_sonar import msg as nps_msg
    from nps_sonar_py.ros.conversions import sonar_point_message

    echo = EchoConfig(beam_width=0.3, min_range=0.5, max_range=2.5, n_bins=4, estimator=estimator)
    point = sonar_point_message(_ping(), echo, stamp=_stamp(), frame_id='s', rays=9)
    assert point.range_estimator == getattr(nps_msg.SonarPoint, f'RANGE_{estimator.name}')
    assert point.intensity == pytest.approx(0.25)
    assert point.intensity_db == pytest.approx(10.0 * math.log10(0.25))
    assert list(point.profile) == pytest.approx([0.0, 0.05, 0.2, 0.0])
    assert list(point.hits) == [0, 3, 9, 0]
    assert point.bin_width == pytest.approx(0.5)
    assert point.rays == 9
    quiet = sonar_point_message(
        _ping(), echo, stamp=_stamp(), frame_id='s', rays=9, intensities=False
    )
    assert math.isnan(quiet.intensity)
    assert len(quiet.profile) == 0


def test_laser_scan_angle_max_is_the_last_reading() -> None:
    from nps_sonar_py.ros.conversions import laser_scan

    scan = laser_scan(
        np.array([1.0, 2.0, math.inf]),
        None,
        angle_min=-0.2,
        angle_increment=0.1,
        time_increment=0.0,
        scan_time=0.05,
        range_min=0.1,
        range_max=5.0,
        stamp=_stamp(),
        frame_id='laser',
    )
    assert scan.angle_max == pytest.approx(0.0)
    assert list(scan.ranges) == [1.0, 2.0, math.inf]
    assert len(scan.intensities) == 0


def test_ranger_config_goes_to_its_message_and_back() -> None:
    from nps_sonar_py.ros.conversions import ranger_config_from_message, ranger_config_message

    config = RangerConfig(-0.5, 0.5, 0.25, 0.1, 8.0, 0.01, 20.0)
    assert ranger_config_from_message(ranger_config_message(config)) == config


def test_a_quarter_turn_about_z_is_the_quaternion_0_0_sin45_cos45() -> None:
    from nps_sonar_py.ros.conversions import matrix_from_pose, pose_message

    transform = transform_from_xyz_rpy((1.0, -2.0, 0.5), (0.0, 0.0, math.pi / 2))
    pose = pose_message(transform)
    half = math.sqrt(0.5)
    q = pose.orientation
    assert (q.x, q.y, q.z, q.w) == pytest.approx((0.0, 0.0, half, half))
    assert (pose.position.x, pose.position.y, pose.position.z) == (1.0, -2.0, 0.5)
    np.testing.assert_allclose(matrix_from_pose(pose), transform, atol=1e-12)


def test_a_quaternion_is_normalised_and_zero_is_refused() -> None:
    from nps_sonar_py.ros.conversions import matrix_from_quaternion

    # (0, 0, 2, 0): a half turn about z, written four times too long.
    np.testing.assert_allclose(
        matrix_from_quaternion(0.0, 0.0, 2.0, 0.0), np.diag([-1.0, -1.0, 1.0]), atol=1e-12
    )
    with pytest.raises(ValueError, match='zero length'):
        matrix_from_quaternion(0.0, 0.0, 0.0, 0.0)


def test_ranger_geometry_message_lists_each_element() -> None:
    from nps_sonar_py.ros.conversions import ranger_geometry_message

    poses = np.array([transform_from_xyz_rpy((0.1 * k, 0.0, 0.0), (0, 0, 0)) for k in range(3)])
    geometry = RangerGeometry.of_elements(
        'base_link', 'ring', np.eye(4), ['a', 'b', 'c'], poses, (0.02, 0.04, 0.06)
    )
    message = ranger_geometry_message(geometry)
    assert (message.parent_frame, message.device_frame) == ('base_link', 'ring')
    assert list(message.element_frames) == ['a', 'b', 'c']
    assert [p.position.x for p in message.element_poses] == pytest.approx([0.0, 0.1, 0.2])
    # The box holding the origins (0.2 m along x) grown by one element.
    assert (message.size.x, message.size.y, message.size.z) == pytest.approx((0.22, 0.04, 0.06))


def test_multibeam_message_is_flat_and_beam_major() -> None:
    from nps_sonar_py.ros.conversions import multibeam_message

    beams, bins = 3, 4
    profiles = np.arange(beams * bins, dtype=np.float64).reshape(beams, bins)
    ping = FanPing(
        azimuths=np.array([-0.1, 0.0, 0.1]),
        ranges=np.array([1.0, 2.0, math.inf]),
        totals=profiles.sum(axis=1),
        confidence=np.ones(beams),
        profiles=profiles,
        hits=np.ones((beams, bins), dtype=np.int64),
        bin_edges=np.linspace(0.5, 2.5, bins + 1),
    )
    echo = EchoConfig(beam_width=0.05, min_range=0.5, max_range=2.5, n_bins=bins)
    message = multibeam_message(
        ping, echo, vertical_beam_width=0.3, stamp=_stamp(), frame_id='fan'
    )
    assert (message.beam_count, message.bin_count) == (beams, bins)
    flat = np.array(message.profiles)
    assert flat[1 * bins + 2] == profiles[1, 2]  # beam 1, bin 2
    assert list(message.ranges) == [1.0, 2.0, math.inf]


def test_beam_markers_draw_the_cone_rim_and_the_finite_hits() -> None:
    from nps_sonar_py.ros.conversions import beam_markers, hits_marker

    half, length = math.radians(10.0), 3.0
    directions = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    beam = Beam('sonar', half, length, directions, np.array([2.0, math.inf, 0.5]))
    cone, hits = beam_markers(beam, stamp=_stamp())
    assert cone.header.frame_id == hits.header.frame_id == 'sonar'
    rim = [p for p in cone.points if p.x > 0.0]
    assert all(p.x == pytest.approx(length) for p in rim)
    radius = length * math.tan(half)
    assert all(math.hypot(p.y, p.z) == pytest.approx(radius) for p in rim)
    assert [(p.x, p.y, p.z) for p in hits.points] == [(2.0, 0.0, 0.0), (0.0, 0.0, 0.5)]
    many = hits_marker(
        np.tile([1.0, 0.0, 0.0], (5000, 1)),
        np.ones(5000),
        stamp=_stamp(),
        frame_id='s',
        max_points=100,
    )
    assert len(many.points) == 100
