"""TF out of a sensor node: its sensor frames on ``/tf_static``, the robot's pose on ``/tf``.

(:class:`TfOutput`):

* ``/tf_static`` (``publish_tf_static``): each frame the node's messages are stamped in,
  from the link that carries it (:func:`sensor_frames`): parent link -> the sensor's body
  frame (the URDF ``<origin>`` turned from optical to x forward), and for a device of several
  elements device frame -> element frame, or, for an array of ``<sensor>``, root link -> the
  array's frame at their centroid and each sensor's link -> its frame. QoS as tf2's static
  broadcaster: reliable, transient local, depth 1, one message holding them all, so a late
  subscriber (rviz) gets them.
* ``/tf`` (``publish_tf``): ``world_frame`` -> the URDF root link at each reading, stamped
  with the reading's time, while the node moves the robot from ``pose_source: odometry`` or
  ``pose`` (never for ``tf``, which reads it, nor ``fixed``). QoS as tf2's broadcaster:
  reliable, volatile, depth 100.

TF in (``pose_source: tf``): the QoS of tf2's listeners here; ``ros/tf_reader.py`` reads the
messages, ``devices/transform_buffer.py`` keeps and looks them up.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import numpy as np
from builtin_interfaces.msg import Time as TimeMsg
from geometry_msgs.msg import Quaternion, Transform, TransformStamped, Vector3
from numpy.typing import NDArray
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from tf2_msgs.msg import TFMessage

from nps_sonar_py.devices import RangerGeometry
from nps_sonar_py.devices.mount import FrameTransform, RobotMount
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.transforms import matrix_to_quaternion

__all__ = [
    'STATIC_LISTENER_QOS',
    'STATIC_QOS',
    'TF_QOS',
    'TfOutput',
    'check_frames',
    'sensor_frames',
    'transform_message',
]

#: QoS of tf2's ``StaticTransformBroadcaster`` (depth 1) and of its listener (depth 100).
STATIC_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=1,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
)
STATIC_LISTENER_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=100,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
)
#: QoS of tf2's ``TransformBroadcaster`` and ``TransformListener`` on ``/tf``.
TF_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=100,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.VOLATILE,
)


def sensor_frames(mount: RobotMount, geometry: RangerGeometry) -> list[FrameTransform]:
    """The fixed frames of a mounted device (``mount.frames``), as ``/tf_static`` may hold them.

    ``geometry`` is the device's current one (``RobotMount.frames``). A frame named as its
    parent (a ``frame_id`` set to the link's name) is left out: it cannot be its own child. A
    name given twice keeps its first frame: an element's (its messages are stamped in it), not
    the frame of an array of one ``<sensor>``, which bears the same name.
    """
    seen: set[str] = set()
    kept = []
    for frame in mount.frames(geometry):
        if frame.parent != frame.child and frame.child not in seen:
            seen.add(frame.child)
            kept.append(frame)
    return kept


def check_frames(
    frames: Sequence[FrameTransform], links: Collection[str], world_frame: str
) -> None:
    """Refuse sensor frames that would break the TF tree or that tf2 refuses.

    A name with a leading ``/`` (not a ROS 2 frame id), a link of the robot's URDF other
    than the frame's own parent (its ``/tf_static`` transform would re-parent that link, against
    robot_state_publisher's), or ``world_frame`` (``''``: not checked).

    Raises:
        ConfigurationError: naming the frame and the reason.
    """
    for frame in frames:
        name = frame.child
        if name.startswith('/'):
            reason = 'a ROS 2 frame id has no leading "/"'
        elif name in links:
            reason = (
                f'it is a link of the URDF: a transform from {frame.parent!r} would re-parent it'
            )
        elif name == world_frame:
            reason = "it is the world_frame, the root of the robot's TF tree"
        else:
            continue
        raise ConfigurationError(f'frame_id: {name!r} cannot be a sensor frame: {reason}')


def transform_message(frame: FrameTransform, stamp: TimeMsg) -> TransformStamped:
    """The ``geometry_msgs/TransformStamped`` of ``frame`` at ``stamp``."""
    t = frame.transform
    x, y, z, w = (float(v) for v in matrix_to_quaternion(t[:3, :3]))
    message = TransformStamped(
        child_frame_id=frame.child,
        transform=Transform(
            translation=Vector3(x=float(t[0, 3]), y=float(t[1, 3]), z=float(t[2, 3])),
            rotation=Quaternion(x=x, y=y, z=z, w=w),
        ),
    )
    message.header.frame_id = frame.parent
    message.header.stamp = stamp
    return message


class TfOutput:
    """A node's TF publishers: its sensor frames once on ``/tf_static``, the robot on ``/tf``.

    ``frames``: the static frames (:func:`sensor_frames`), published at once if ``static``;
    ``root``: whether :meth:`publish_root` publishes (else it does nothing).
    """

    def __init__(
        self, node: Node, frames: Sequence[FrameTransform], *, static: bool, root: bool
    ) -> None:
        self._root = node.create_publisher(TFMessage, '/tf', TF_QOS) if root else None
        self._static = None
        if static and frames:
            self._static = node.create_publisher(TFMessage, '/tf_static', STATIC_QOS)
            stamp = node.get_clock().now().to_msg()
            self._static.publish(
                TFMessage(transforms=[transform_message(f, stamp) for f in frames])
            )

    def publish_root(
        self, world_frame: str, root_link: str, world_from_root: NDArray[np.float64], stamp: Any
    ) -> None:
        """``world_frame`` <- ``root_link`` at ``stamp`` on ``/tf``, if this output has it."""
        if self._root is None:
            return
        frame = FrameTransform(world_frame, root_link, world_from_root)
        self._root.publish(TFMessage(transforms=[transform_message(frame, stamp)]))
