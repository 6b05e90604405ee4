"""Core results to ROS messages: pure functions, no node (as sensor_msgs_py does).

Array fields are filled from ``array.array``, which rclpy copies about a hundred times
faster than a list or an ndarray (``ros2-conventions.md`` section 6.1).
"""

from __future__ import annotations

import math
from array import array

import numpy as np
from builtin_interfaces.msg import Time
from sensor_msgs.msg import LaserScan, Range
from std_msgs.msg import Header

from nps_sonar import msg as nps_msg
from nps_sonar_py.echo import EchoConfig, Ping, RangeEstimator

__all__ = ['float32_array', 'range_message', 'single_beam_scan', 'sonar_point_message', 'uint32_array']

_ESTIMATOR_CODES = {
    RangeEstimator.NEAREST: nps_msg.SonarPoint.RANGE_NEAREST,
    RangeEstimator.MEAN_IN_BEAM: nps_msg.SonarPoint.RANGE_MEAN_IN_BEAM,
    RangeEstimator.INTENSITY_WEIGHTED: nps_msg.SonarPoint.RANGE_INTENSITY_WEIGHTED,
    RangeEstimator.FIRST_ABOVE_THRESHOLD: nps_msg.SonarPoint.RANGE_FIRST_ABOVE_THRESHOLD,
}


def float32_array(values: np.ndarray) -> array:
    """An ``array('f')`` of ``values``, the fast way into a ``float32[]`` field."""
    return array('f', np.ascontiguousarray(values, dtype=np.float32).tobytes())


def uint32_array(values: np.ndarray) -> array:
    """An ``array('I')`` of ``values``, the fast way into a ``uint32[]`` field."""
    return array('I', np.ascontiguousarray(values, dtype=np.uint32).tobytes())


def range_message(
    reading: float, *, field_of_view: float, min_range: float, max_range: float, stamp: Time, frame_id: str,
) -> Range:
    """A ``sensor_msgs/Range`` of one ping: ULTRASOUND, the cone's full angle, REP 117 values."""
    return Range(
        header=Header(stamp=stamp, frame_id=frame_id),
        radiation_type=Range.ULTRASOUND,
        field_of_view=float(field_of_view),
        min_range=float(min_range),
        max_range=float(max_range),
        range=float(reading),
    )


def single_beam_scan(
    ping: Ping, config: EchoConfig, *, stamp: Time, frame_id: str, scan_time: float, azimuth: float = 0.0,
    intensities: bool = True,
) -> LaserScan:
    """A one-element ``LaserScan`` of one ping, as the NPS single-beam plugin published.

    ``ranges = [range]``, ``intensities = [total intensity]``; the angle fields describe
    the beam: ``angle_min``/``angle_max`` its -3 dB edges about ``azimuth``, and
    ``angle_increment`` the beam width (one sample spans the beam).
    """
    half = 0.5 * config.beam_width
    return LaserScan(
        header=Header(stamp=stamp, frame_id=frame_id),
        angle_min=float(azimuth - half),
        angle_max=float(azimuth + half),
        angle_increment=float(config.beam_width),
        time_increment=0.0,
        scan_time=float(scan_time),
        range_min=float(config.min_range),
        range_max=float(config.max_range),
        ranges=array('f', [ping.range]),
        intensities=array('f', [ping.total]) if intensities else array('f'),
    )


def sonar_point_message(
    ping: Ping, config: EchoConfig, *, stamp: Time, frame_id: str, rays: int, azimuth: float = 0.0,
    intensities: bool = True,
) -> nps_msg.SonarPoint:
    """The ``SonarPoint`` of one ping: range, intensity in linear units and dB, and the profile."""
    return nps_msg.SonarPoint(
        header=Header(stamp=stamp, frame_id=frame_id),
        range=float(ping.range),
        intensity=float(ping.total) if intensities else math.nan,
        intensity_db=float(ping.total_level) if intensities else math.nan,
        source_level=float(ping.source_level),
        confidence=float(ping.confidence),
        range_estimator=_ESTIMATOR_CODES[config.estimator],
        azimuth=float(azimuth),
        beam_width=float(config.beam_width),
        cast_half_angle=float(config.cast_half_angle),
        frequency=float(config.frequency),
        sound_speed=float(config.speed_of_sound),
        min_range=float(config.min_range),
        max_range=float(config.max_range),
        bin_width=float(config.bin_width),
        profile=float32_array(ping.intensity) if intensities else array('f'),
        hits=uint32_array(ping.hits),
        rays=int(rays),
    )
