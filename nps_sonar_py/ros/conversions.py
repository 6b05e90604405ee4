"""Core results to ROS messages: pure functions, no node (as sensor_msgs_py does)."""

from __future__ import annotations

from builtin_interfaces.msg import Time
from sensor_msgs.msg import Range
from std_msgs.msg import Header

from nps_sonar_py.sensing.sonar import SonarConfig

__all__ = ['range_message']


def range_message(reading: float, config: SonarConfig, *, stamp: Time, frame_id: str) -> Range:
    """A ``sensor_msgs/Range`` of one ping: ULTRASOUND, the cone's full angle, REP 117 values."""
    return Range(
        header=Header(stamp=stamp, frame_id=frame_id),
        radiation_type=Range.ULTRASOUND,
        field_of_view=float(config.field_of_view),
        min_range=float(config.min_range),
        max_range=float(config.max_range),
        range=float(reading),
    )
