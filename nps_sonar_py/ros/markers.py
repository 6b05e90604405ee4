"""rviz markers of a sonar: its beam as a translucent cone and its last hits as points.

Both are in the sensor's x-forward frame, so rviz needs only that frame's transform.
Marker points are ``geometry_msgs/Point`` objects, one Python object each, so the hits are
thinned to at most ``max_points`` and markers go out at their own, lower rate.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from builtin_interfaces.msg import Duration, Time
from geometry_msgs.msg import Point
from numpy.typing import NDArray
from std_msgs.msg import ColorRGBA, Header
from visualization_msgs.msg import Marker

__all__ = ['BEAM_SEGMENTS', 'beam_marker', 'hits_marker']

BEAM_SEGMENTS = 32


def beam_marker(
    half_angle: float, length: float, *, stamp: Time, frame_id: str, lifetime: float = 0.0,
) -> Marker:
    """A cone along +x of ``half_angle`` radians and ``length`` metres, as a TRIANGLE_LIST."""
    azimuth = np.linspace(0.0, 2.0 * math.pi, BEAM_SEGMENTS + 1)
    radius = length * math.tan(half_angle)
    rim = np.column_stack((np.full_like(azimuth, length), radius * np.cos(azimuth), radius * np.sin(azimuth)))
    apex = Point()
    points: list[Point] = []
    for a, b in itertools.pairwise(rim):
        points += [
            apex,
            Point(x=float(a[0]), y=float(a[1]), z=float(a[2])),
            Point(x=float(b[0]), y=float(b[1]), z=float(b[2])),
        ]
    marker = _marker('beam', Marker.TRIANGLE_LIST, stamp=stamp, frame_id=frame_id, lifetime=lifetime)
    marker.scale.x = marker.scale.y = marker.scale.z = 1.0
    marker.color = ColorRGBA(r=0.2, g=0.5, b=1.0, a=0.25)
    marker.points = points
    return marker


def hits_marker(
    directions: NDArray[np.float64], ranges: NDArray[np.floating], *, stamp: Time, frame_id: str,
    max_points: int = 1000, lifetime: float = 0.0,
) -> Marker:
    """The rays' hit points (``ranges`` along body-frame unit ``directions``) as POINTS; misses left out."""
    finite = np.flatnonzero(np.isfinite(ranges))
    if finite.size > max_points:
        finite = finite[np.linspace(0, finite.size - 1, max_points).astype(np.intp)]
    xyz = directions[finite] * np.asarray(ranges, dtype=np.float64)[finite, None]
    marker = _marker('hits', Marker.POINTS, stamp=stamp, frame_id=frame_id, lifetime=lifetime)
    marker.scale.x = marker.scale.y = 0.02
    marker.color = ColorRGBA(r=1.0, g=0.3, b=0.1, a=1.0)
    marker.points = [Point(x=x, y=y, z=z) for x, y, z in xyz.tolist()]
    return marker


def _marker(namespace: str, kind: int, *, stamp: Time, frame_id: str, lifetime: float) -> Marker:
    seconds = math.floor(lifetime)
    return Marker(
        header=Header(stamp=stamp, frame_id=frame_id), ns=namespace, id=0, type=kind, action=Marker.ADD,
        lifetime=Duration(sec=int(seconds), nanosec=int((lifetime - seconds) * 1e9)),
        frame_locked=True,
    )
