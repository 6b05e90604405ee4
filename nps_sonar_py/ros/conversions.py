"""Core results to ROS messages and back: pure functions, no node (as sensor_msgs_py does).

Sonar pings (``Range``, the one-element ``LaserScan``, ``SonarPoint``), scans and sweeps
(``LaserScan``, ``PointCloud2``), Ranger messages, multibeam pings, rviz markers of a beam
and its hits, and poses both ways. Array fields are filled from ``array.array``, which rclpy
copies about a hundred times faster than a list or an ndarray
(``docs/ros-conventions.md#filling-message-arrays``); the point cloud's bytes come from one
structured numpy array.
"""

from __future__ import annotations

import itertools
import math
import sys
from array import array

import numpy as np
from builtin_interfaces.msg import Duration, Time
from geometry_msgs.msg import Point, Pose, Quaternion, Vector3
from numpy.typing import NDArray
from sensor_msgs.msg import Image, LaserScan, PointCloud2, PointField, Range
from std_msgs.msg import ColorRGBA, Header
from visualization_msgs.msg import Marker

from nps_sonar import msg as nps_msg
from nps_sonar_py.devices import Beam, RangerConfig, RangerGeometry
from nps_sonar_py.echo import EchoConfig, Ping, RangeEstimator
from nps_sonar_py.sensing.multibeam import FanPing
from nps_sonar_py.transforms import matrix_from_quaternion, matrix_to_quaternion, transform_from

__all__ = [
    'BEAM_SEGMENTS',
    'ESTIMATOR_CODES',
    'IMAGE_ENCODINGS',
    'beam_marker',
    'beam_markers',
    'float32_array',
    'hits_marker',
    'image_message',
    'laser_scan',
    'matrix_from_pose',
    'matrix_from_quaternion',
    'multibeam_message',
    'point_cloud',
    'pose_message',
    'range_message',
    'ranger_config_from_message',
    'ranger_config_message',
    'ranger_data_message',
    'ranger_geometry_message',
    'single_beam_scan',
    'sonar_point_message',
    'uint32_array',
]

#: The SonarPoint code of each range estimator (MultibeamPing.range_estimator uses the same).
ESTIMATOR_CODES = {e: getattr(nps_msg.SonarPoint, f'RANGE_{e.name}') for e in RangeEstimator}


def float32_array(values: np.ndarray) -> array:
    """An ``array('f')`` of ``values``, the fast way into a ``float32[]`` field."""
    return _typed_array('f', np.ascontiguousarray(values, dtype=np.float32))


def uint32_array(values: np.ndarray) -> array:
    """An ``array('I')`` of ``values``, the fast way into a ``uint32[]`` field."""
    return _typed_array('I', np.ascontiguousarray(values, dtype=np.uint32))


def _typed_array(code: str, values: np.ndarray) -> array:
    """``values`` (C-contiguous, of ``code``'s type) copied once into an ``array(code)``."""
    out = array(code)
    if values.size:
        out.frombytes(values.data.cast('B'))
    return out


def range_message(
    reading: float,
    *,
    field_of_view: float,
    min_range: float,
    max_range: float,
    stamp: Time,
    frame_id: str,
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
    ping: Ping,
    config: EchoConfig,
    *,
    stamp: Time,
    frame_id: str,
    scan_time: float,
    azimuth: float = 0.0,
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
    ping: Ping,
    config: EchoConfig,
    *,
    stamp: Time,
    frame_id: str,
    rays: int,
    azimuth: float = 0.0,
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
        range_estimator=ESTIMATOR_CODES[config.estimator],
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


def laser_scan(
    ranges: NDArray[np.floating],
    intensities: NDArray[np.floating] | None,
    *,
    angle_min: float,
    angle_increment: float,
    time_increment: float,
    scan_time: float,
    range_min: float,
    range_max: float,
    stamp: Time,
    frame_id: str,
) -> LaserScan:
    """A ``LaserScan``: ``angle_max = angle_min + (n - 1) angle_increment``."""
    n = int(np.size(ranges))
    return LaserScan(
        header=Header(stamp=stamp, frame_id=frame_id),
        angle_min=float(angle_min),
        angle_max=float(angle_min + (n - 1) * angle_increment),
        angle_increment=float(angle_increment),
        time_increment=float(time_increment),
        scan_time=float(scan_time),
        range_min=float(range_min),
        range_max=float(range_max),
        ranges=float32_array(np.ravel(ranges)),
        intensities=float32_array(np.ravel(intensities))
        if intensities is not None
        else array('f'),
    )


_FLOAT32 = PointField.FLOAT32
_UINT16 = PointField.UINT16


def point_cloud(
    points: NDArray[np.floating],
    intensities: NDArray[np.floating] | None,
    *,
    stamp: Time,
    frame_id: str,
) -> PointCloud2:
    """An organised ``PointCloud2`` (height rows, width readings) of x, y, z, intensity, ring.

    ``points`` is (rows, columns, 3) in the sensor frame with NaN where there is no return
    (so ``is_dense`` is false); ``ring`` is the row index, 0 the lowest. Without
    ``intensities`` the field is left out. Little-endian, as the machine's numpy.
    """
    rows, columns = points.shape[:2]
    names = ['x', 'y', 'z']
    formats: list[object] = [np.float32, np.float32, np.float32]
    offsets = [0, 4, 8]
    fields = [
        PointField(name=n, offset=o, datatype=_FLOAT32, count=1)
        for n, o in zip(names, offsets, strict=True)
    ]
    if intensities is not None:
        names.append('intensity')
        formats.append(np.float32)
        offsets.append(12)
        fields.append(PointField(name='intensity', offset=12, datatype=_FLOAT32, count=1))
    ring_offset = offsets[-1] + 4
    names.append('ring')
    formats.append(np.uint16)
    offsets.append(ring_offset)
    fields.append(PointField(name='ring', offset=ring_offset, datatype=_UINT16, count=1))
    itemsize = (ring_offset + 2 + 3) // 4 * 4
    dtype = np.dtype(
        {'names': names, 'formats': formats, 'offsets': offsets, 'itemsize': itemsize}
    )
    cloud = np.zeros((rows, columns), dtype=dtype)
    cloud['x'] = points[..., 0]
    cloud['y'] = points[..., 1]
    cloud['z'] = points[..., 2]
    if intensities is not None:
        cloud['intensity'] = intensities
    cloud['ring'] = np.arange(rows, dtype=np.uint16)[:, None]
    message = PointCloud2(
        header=Header(stamp=stamp, frame_id=frame_id),
        height=rows,
        width=columns,
        fields=fields,
        is_bigendian=False,
        point_step=itemsize,
        row_step=itemsize * columns,
        is_dense=bool(np.all(np.isfinite(points))),
    )
    # Through the property, not the constructor: one buffer copy (ros2/common_interfaces#176).
    message.data = array('B', cloud.tobytes())
    return message


def pose_message(transform: NDArray[np.float64]) -> Pose:
    """A ``geometry_msgs/Pose`` of a 4x4 transform."""
    x, y, z, w = (float(v) for v in matrix_to_quaternion(transform[:3, :3]))
    t = transform[:3, 3]
    return Pose(
        position=Point(x=float(t[0]), y=float(t[1]), z=float(t[2])),
        orientation=Quaternion(x=x, y=y, z=z, w=w),
    )


def _vector(v: NDArray[np.float64]) -> Vector3:
    return Vector3(x=float(v[0]), y=float(v[1]), z=float(v[2]))


def ranger_geometry_message(geometry: RangerGeometry) -> nps_msg.RangerGeometry:
    """The ``RangerGeometry`` message of a device's geometry."""
    return nps_msg.RangerGeometry(
        parent_frame=geometry.parent_frame,
        device_frame=geometry.device_frame,
        pose=pose_message(geometry.pose),
        size=_vector(geometry.size),
        element_frames=list(geometry.element_frames),
        element_poses=[pose_message(p) for p in geometry.element_poses],
        element_sizes=[_vector(s) for s in geometry.element_sizes],
    )


def ranger_config_message(config: RangerConfig) -> nps_msg.RangerConfig:
    """The ``RangerConfig`` message of a configuration."""
    return nps_msg.RangerConfig(
        min_angle=float(config.min_angle),
        max_angle=float(config.max_angle),
        angular_resolution=float(config.angular_resolution),
        min_range=float(config.min_range),
        max_range=float(config.max_range),
        range_resolution=float(config.range_resolution),
        frequency=float(config.frequency),
    )


def ranger_config_from_message(message: nps_msg.RangerConfig) -> RangerConfig:
    """The configuration a ``RangerConfig`` message asks for (unchecked)."""
    return RangerConfig(
        min_angle=message.min_angle,
        max_angle=message.max_angle,
        angular_resolution=message.angular_resolution,
        min_range=message.min_range,
        max_range=message.max_range,
        range_resolution=message.range_resolution,
        frequency=message.frequency,
    )


def ranger_data_message(
    ranges: NDArray[np.floating],
    intensities: NDArray[np.floating] | None,
    *,
    geometry: nps_msg.RangerGeometry,
    config: nps_msg.RangerConfig,
    stamp: Time,
    frame_id: str,
) -> nps_msg.RangerData:
    """A ``RangerData``; the caller builds its geometry and configuration once per change."""
    return nps_msg.RangerData(
        header=Header(stamp=stamp, frame_id=frame_id),
        ranges=float32_array(np.ravel(ranges)),
        intensities=float32_array(np.ravel(intensities))
        if intensities is not None
        else array('f'),
        geometry=geometry,
        config=config,
    )


def multibeam_message(
    ping: FanPing,
    echo: EchoConfig,
    *,
    vertical_beam_width: float,
    stamp: Time,
    frame_id: str,
    intensities: bool = True,
) -> nps_msg.MultibeamPing:
    """The ``MultibeamPing`` of one fan ping: flat, beam-major arrays."""
    n, m = ping.profiles.shape
    return nps_msg.MultibeamPing(
        header=Header(stamp=stamp, frame_id=frame_id),
        beam_count=n,
        bin_count=m,
        azimuths=float32_array(ping.azimuths),
        beam_width=float(echo.beam_width),
        vertical_beam_width=float(vertical_beam_width),
        frequency=float(echo.frequency),
        sound_speed=float(echo.speed_of_sound),
        source_level=float(echo.source_level),
        range_estimator=ESTIMATOR_CODES[echo.estimator],
        ranges=float32_array(ping.ranges),
        intensities=float32_array(ping.totals) if intensities else array('f'),
        confidence=float32_array(ping.confidence),
        min_range=float(echo.min_range),
        max_range=float(echo.max_range),
        bin_width=float(echo.bin_width),
        profiles=float32_array(ping.profiles) if intensities else array('f'),
        hits=uint32_array(ping.hits),
    )


#: sensor_msgs/Image encodings of the numpy pixel types this package publishes.
IMAGE_ENCODINGS = {
    np.dtype(np.float32): '32FC1',
    np.dtype(np.uint8): 'mono8',
    np.dtype(np.uint16): 'mono16',
}


def image_message(pixels: np.ndarray, *, stamp: Time, frame_id: str) -> Image:
    """A ``sensor_msgs/Image`` of a 2-D ``float32``, ``uint8`` or ``uint16`` array (row-major).

    The encoding follows the type (``32FC1``, ``mono8``, ``mono16``); the bytes are the
    machine's (``is_bigendian`` says which), copied once into an ``array('B')``.
    """
    values = np.ascontiguousarray(pixels)
    height, width = values.shape
    data = _typed_array('B', values)
    return Image(
        header=Header(stamp=stamp, frame_id=frame_id),
        height=height,
        width=width,
        encoding=IMAGE_ENCODINGS[values.dtype],
        is_bigendian=int(sys.byteorder == 'big'),
        step=width * values.itemsize,
        data=data,
    )


def matrix_from_pose(pose: Pose) -> NDArray[np.float64]:
    """4x4 transform of a ``geometry_msgs/Pose``."""
    q, p = pose.orientation, pose.position
    return transform_from(matrix_from_quaternion(q.x, q.y, q.z, q.w), [p.x, p.y, p.z])


BEAM_SEGMENTS = 32


def beam_marker(
    half_angle: float,
    length: float,
    *,
    stamp: Time,
    frame_id: str,
    lifetime: float = 0.0,
) -> Marker:
    """A cone along +x of ``half_angle`` radians and ``length`` metres, as a TRIANGLE_LIST."""
    azimuth = np.linspace(0.0, 2.0 * math.pi, BEAM_SEGMENTS + 1)
    radius = length * math.tan(half_angle)
    rim = np.column_stack(
        (np.full_like(azimuth, length), radius * np.cos(azimuth), radius * np.sin(azimuth))
    )
    apex = Point()
    points: list[Point] = []
    for a, b in itertools.pairwise(rim):
        points += [
            apex,
            Point(x=float(a[0]), y=float(a[1]), z=float(a[2])),
            Point(x=float(b[0]), y=float(b[1]), z=float(b[2])),
        ]
    marker = _marker(
        'beam', Marker.TRIANGLE_LIST, stamp=stamp, frame_id=frame_id, lifetime=lifetime
    )
    marker.scale.x = marker.scale.y = marker.scale.z = 1.0
    marker.color = ColorRGBA(r=0.2, g=0.5, b=1.0, a=0.25)
    marker.points = points
    return marker


def hits_marker(
    directions: NDArray[np.float64],
    ranges: NDArray[np.floating],
    *,
    stamp: Time,
    frame_id: str,
    max_points: int = 1000,
    lifetime: float = 0.0,
) -> Marker:
    """The rays' hits (``ranges`` along body-frame unit ``directions``) as POINTS; no misses."""
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
        header=Header(stamp=stamp, frame_id=frame_id),
        ns=namespace,
        id=0,
        type=kind,
        action=Marker.ADD,
        lifetime=Duration(sec=int(seconds), nanosec=int((lifetime - seconds) * 1e9)),
        frame_locked=True,
    )


def beam_markers(beam: Beam, *, stamp: Time) -> tuple[Marker, Marker]:
    """A beam's cone and its rays' last hits, in the beam's frame."""
    return (
        beam_marker(beam.half_angle, beam.length, stamp=stamp, frame_id=beam.frame),
        hits_marker(beam.directions, beam.ranges, stamp=stamp, frame_id=beam.frame),
    )
