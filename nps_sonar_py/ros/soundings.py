"""An echosounder ping as ``sensor_msgs/PointCloud2`` and ``marine_acoustic_msgs/SonarDetections``.

Pure functions, no node. Both are filled from numpy arrays in one copy per field:

* the cloud holds one point per beam with a sounding (``quality > 0``), in beam order, in the
  sensor's x-forward body frame (the header's ``frame_id``: the device frame): fields ``x``,
  ``y``, ``z`` (float32, m), ``intensity`` (float32, the detection's linear intensity),
  ``beam`` (uint16, the beam's index) and ``quality`` (uint8: 1 low, 2 good); 16 bytes of
  floats, 2 of beam, 1 of quality, one of padding: ``point_step`` 20, ``height`` 1, dense.
* the detections hold every beam, in beam order, in the frame ``<frame>_frd`` (x forward, y
  starboard, z down: ``ros.marine.FRD_FROM_BODY``), as the definition states:
  ``two_way_travel_times`` (s, NaN where none), ``tx_angles`` 0 (one transmit fan, positive
  forward), ``rx_angles`` (rad from nadir, **positive to starboard**: the beam angle of
  ``EchosounderPing``, positive to port, negated), ``tx_delays`` 0, ``intensities`` and a
  ``DetectionFlag`` per beam: ``DETECT_OK`` for a good detection, ``DETECT_BAD_SONAR`` for a
  low one or none.
"""

from __future__ import annotations

from array import array

import numpy as np
from builtin_interfaces.msg import Time
from marine_acoustic_msgs.msg import DetectionFlag, SonarDetections
from sensor_msgs.msg import PointCloud2, PointField
from std_msgs.msg import Header

from nps_sonar_py.ros.conversions import float32_array
from nps_sonar_py.ros.marine import ping_info
from nps_sonar_py.sensing.echosounder import EchosounderPing, Quality

__all__ = ['SOUNDING_DTYPE', 'sonar_detections', 'soundings_cloud']

#: One point of the soundings cloud, little-endian.
SOUNDING_DTYPE = np.dtype(
    {
        'names': ['x', 'y', 'z', 'intensity', 'beam', 'quality'],
        'formats': ['<f4', '<f4', '<f4', '<f4', '<u2', 'u1'],
        'offsets': [0, 4, 8, 12, 16, 18],
        'itemsize': 20,
    }
)
_FIELDS = (
    ('x', 0, PointField.FLOAT32),
    ('y', 4, PointField.FLOAT32),
    ('z', 8, PointField.FLOAT32),
    ('intensity', 12, PointField.FLOAT32),
    ('beam', 16, PointField.UINT16),
    ('quality', 18, PointField.UINT8),
)


def soundings_cloud(ping: EchosounderPing, *, stamp: Time, frame_id: str) -> PointCloud2:
    """The ping's soundings as an unorganised, dense ``PointCloud2`` (module docstring)."""
    beams = np.flatnonzero(ping.detected)
    cloud = np.zeros(beams.size, dtype=SOUNDING_DTYPE)
    cloud['x'] = ping.points[beams, 0]
    cloud['y'] = ping.points[beams, 1]
    cloud['z'] = ping.points[beams, 2]
    cloud['intensity'] = ping.intensities[beams]
    cloud['beam'] = beams
    cloud['quality'] = ping.quality[beams]
    message = PointCloud2(
        header=Header(stamp=stamp, frame_id=frame_id),
        height=1,
        width=int(beams.size),
        fields=[PointField(name=n, offset=o, datatype=t, count=1) for n, o, t in _FIELDS],
        is_bigendian=False,
        point_step=SOUNDING_DTYPE.itemsize,
        row_step=SOUNDING_DTYPE.itemsize * int(beams.size),
        is_dense=True,
    )
    message.data = array('B', cloud.tobytes())  # one copy, through the property
    return message


def sonar_detections(
    ping: EchosounderPing,
    *,
    frequency: float,
    tx_beamwidth: float,
    rx_beamwidth: float,
    stamp: Time,
    frame_id: str,
) -> SonarDetections:
    """Every beam's detection as ``SonarDetections`` in ``frame_id``, the FRD frame.

    ``tx_beamwidth`` is the along-track width, ``rx_beamwidth`` the across-track one (module
    docstring).
    """
    n = ping.angles.size
    # DetectionFlag[] is an array of messages: no fast path; two shared instances, one list.
    ok, bad = (
        DetectionFlag(flag=DetectionFlag.DETECT_OK),
        DetectionFlag(flag=DetectionFlag.DETECT_BAD_SONAR),
    )
    good = (ping.quality == Quality.GOOD).tolist()
    zeros = float32_array(np.zeros(n))
    return SonarDetections(
        header=Header(stamp=stamp, frame_id=frame_id),
        ping_info=ping_info(
            frequency=frequency,
            sound_speed=ping.sound_speed,
            tx_beamwidth=tx_beamwidth,
            rx_beamwidth=rx_beamwidth,
        ),
        flags=[ok if g else bad for g in good],
        two_way_travel_times=float32_array(ping.two_way_time),
        tx_delays=zeros,
        intensities=float32_array(ping.intensities),
        tx_angles=zeros,
        rx_angles=float32_array(-ping.angles),  # positive to starboard (the definition)
    )
