"""Ranger, scanner and multibeam results to ROS messages: pure functions, no node.

Arrays go in through ``array.array`` (``ros.conversions.float32_array``), and the point
cloud's bytes from one structured numpy array (no per-point Python).
"""

from __future__ import annotations

from array import array

import numpy as np
from builtin_interfaces.msg import Time
from geometry_msgs.msg import Point, Pose, Quaternion, Vector3
from numpy.typing import NDArray
from sensor_msgs.msg import LaserScan, PointCloud2, PointField
from std_msgs.msg import Header

from nps_sonar import msg as nps_msg
from nps_sonar_py.echo import EchoConfig, RangeEstimator
from nps_sonar_py.ros.conversions import float32_array, uint32_array
from nps_sonar_py.sensing.multibeam import FanPing
from nps_sonar_py.sensing.ranger import RangerConfig, RangerGeometry
from nps_sonar_py.transforms import matrix_to_quaternion

__all__ = [
    'ESTIMATOR_CODES',
    'laser_scan',
    'multibeam_message',
    'point_cloud',
    'pose_message',
    'ranger_config_from_message',
    'ranger_config_message',
    'ranger_data_message',
    'ranger_geometry_message',
]


def laser_scan(
    ranges: NDArray[np.floating], intensities: NDArray[np.floating] | None, *, angle_min: float,
    angle_increment: float, time_increment: float, scan_time: float, range_min: float, range_max: float,
    stamp: Time, frame_id: str,
) -> LaserScan:
    """A ``LaserScan`` whose ``angle_max = angle_min + (n - 1) angle_increment``; no intensities: empty."""
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
        intensities=float32_array(np.ravel(intensities)) if intensities is not None else array('f'),
    )


#: The SonarPoint code of each range estimator (MultibeamPing.range_estimator uses the same).
ESTIMATOR_CODES = {e: getattr(nps_msg.SonarPoint, f'RANGE_{e.name}') for e in RangeEstimator}

_FLOAT32 = PointField.FLOAT32
_UINT16 = PointField.UINT16


def point_cloud(
    points: NDArray[np.floating], intensities: NDArray[np.floating] | None, *, stamp: Time, frame_id: str,
) -> PointCloud2:
    """An organised ``PointCloud2`` (height = rows, width = readings per row) of x, y, z, intensity, ring.

    ``points`` is (rows, columns, 3) in the sensor frame with NaN where there is no return
    (so ``is_dense`` is false); ``ring`` is the row index, 0 the lowest. Without
    ``intensities`` the field is left out. Little-endian, as the machine's numpy.
    """
    rows, columns = points.shape[:2]
    names = ['x', 'y', 'z']
    formats: list[object] = [np.float32, np.float32, np.float32]
    offsets = [0, 4, 8]
    fields = [
        PointField(name=n, offset=o, datatype=_FLOAT32, count=1) for n, o in zip(names, offsets, strict=True)
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
    dtype = np.dtype({'names': names, 'formats': formats, 'offsets': offsets, 'itemsize': itemsize})
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
    return Pose(position=Point(x=float(t[0]), y=float(t[1]), z=float(t[2])),
                orientation=Quaternion(x=x, y=y, z=z, w=w))


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
        min_angle=float(config.min_angle), max_angle=float(config.max_angle),
        angular_resolution=float(config.angular_resolution), min_range=float(config.min_range),
        max_range=float(config.max_range), range_resolution=float(config.range_resolution),
        frequency=float(config.frequency),
    )


def ranger_config_from_message(message: nps_msg.RangerConfig) -> RangerConfig:
    """The configuration a ``RangerConfig`` message asks for (unchecked)."""
    return RangerConfig(
        min_angle=message.min_angle, max_angle=message.max_angle,
        angular_resolution=message.angular_resolution, min_range=message.min_range,
        max_range=message.max_range, range_resolution=message.range_resolution, frequency=message.frequency,
    )


def ranger_data_message(
    ranges: NDArray[np.floating], intensities: NDArray[np.floating] | None, *,
    geometry: nps_msg.RangerGeometry, config: nps_msg.RangerConfig, stamp: Time, frame_id: str,
) -> nps_msg.RangerData:
    """A ``RangerData``; the geometry and configuration messages are built once per change by the caller."""
    return nps_msg.RangerData(
        header=Header(stamp=stamp, frame_id=frame_id),
        ranges=float32_array(np.ravel(ranges)),
        intensities=float32_array(np.ravel(intensities)) if intensities is not None else array('f'),
        geometry=geometry,
        config=config,
    )


def multibeam_message(
    ping: FanPing, echo: EchoConfig, *, vertical_beam_width: float, stamp: Time, frame_id: str,
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

