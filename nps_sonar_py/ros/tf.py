"""TF for a sensor node: its sensor frames out on ``/tf_static``, the robot's pose in and out.

Out (:class:`TfOutput`):

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

In (:class:`TransformBuffer`): ``pose_source: tf`` keeps the transforms of ``/tf`` and
``/tf_static`` (after ``message_checks.tf_message_problem``) in a pytransform3d
``TemporalTransformManager`` and looks up the root link in ``world_frame`` at a reading's time,
interpolated (ScLERP) between the two stamps around it. A time past the newest stamp of the
chain gets the newest (held, not extrapolated), and the lookup says how much older it is, so
that ``ros/motion.py`` can warn when it is stale. Per frame, at most :data:`MAX_SAMPLES`
samples over the last ``buffer_seconds`` are kept, and at most :data:`MAX_FRAMES` frames.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from builtin_interfaces.msg import Time as TimeMsg
from geometry_msgs.msg import Quaternion, Transform, TransformStamped, Vector3
from numpy.typing import NDArray
from pytransform3d.transform_manager import (
    NumpyTimeseriesTransform,
    StaticTransform,
    TemporalTransformManager,
    TimeVaryingTransform,
)
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from tf2_msgs.msg import TFMessage

from nps_sonar_py.devices import RangerGeometry
from nps_sonar_py.devices.mount import RobotMount
from nps_sonar_py.ros.conversions import matrix_from_quaternion
from nps_sonar_py.transforms import matrix_to_quaternion, transform_from

__all__ = [
    'MAX_FRAMES',
    'MAX_SAMPLES',
    'STATIC_QOS',
    'TF_QOS',
    'FrameTransform',
    'TfOutput',
    'TransformBuffer',
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
#: Most frames a :class:`TransformBuffer` keeps; transforms of new frames beyond are ignored.
MAX_FRAMES = 10_000
#: Most samples kept per frame (100 Hz for 10 s); the oldest go first.
MAX_SAMPLES = 1000


class FrameTransform(NamedTuple):
    """A transform ``parent <- child``: the pose of frame ``child`` in frame ``parent``."""

    parent: str
    child: str
    transform: NDArray[np.float64]


def sensor_frames(mount: RobotMount, geometry: RangerGeometry) -> list[FrameTransform]:
    """The fixed frames of a mounted device, each from the link (or frame) that carries it.

    ``geometry`` is the device's current one; only its pose is read, and only for an array of
    ``<sensor>``, whose frame is fixed to the root link. A frame named as its parent (a
    ``frame_id`` set to the link's name) is left out: it cannot be its own child. A name given
    twice keeps its first frame: an element's (its messages are stamped in it), not the frame
    of an array of one ``<sensor>``, which bears the same name.
    """
    frames: list[FrameTransform] = []
    if mount.element_poses is not None:  # the device frame is the first sensor's body frame
        sensor = mount.sensors[0]
        frames.append(FrameTransform(sensor.parent_link, mount.device_frame, sensor.body_origin))
        frames += [
            FrameTransform(mount.device_frame, frame, pose)
            for frame, pose in zip(mount.element_frames, mount.element_poses, strict=True)
        ]
    else:  # an array of <sensor>: each element on its own link, the array's frame on the root
        frames += [
            FrameTransform(sensor.parent_link, frame, sensor.body_origin)
            for sensor, frame in zip(mount.sensors, mount.element_frames, strict=True)
        ]
        frames.append(FrameTransform(mount.robot.root_link, mount.device_frame, geometry.pose))
    seen: set[str] = set()
    kept = []
    for frame in frames:
        if frame.parent != frame.child and frame.child not in seen:
            seen.add(frame.child)
            kept.append(frame)
    return kept


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


class _Tracker:
    """How far past the newest sample of the frames used by one lookup the query was, s."""

    def __init__(self) -> None:
        self.lag = 0.0


class _Samples(TimeVaryingTransform):  # type: ignore[misc]  # pytransform3d is untyped
    """A frame's samples as pytransform3d reads them, noting the lag in a :class:`_Tracker`."""

    def __init__(
        self, times: NDArray[np.float64] | None, pqs: NDArray[np.float64], tracker: _Tracker
    ) -> None:
        """``times`` None: static, never stale; one sample: held at all times."""
        self._newest = np.inf if times is None else float(times[-1])
        self._tracker = tracker
        self._inner: TimeVaryingTransform = (
            StaticTransform(_matrix_of_pq(pqs[0]))
            if times is None or len(times) == 1
            else NumpyTimeseriesTransform(times, pqs, time_clipping=True)
        )

    def as_matrix(self, query_time: Any) -> NDArray[np.float64]:
        lag = float(np.max(query_time)) - self._newest
        self._tracker.lag = max(self._tracker.lag, lag)
        return self._inner.as_matrix(query_time)  # type: ignore[no-any-return]

    def check_transforms(self) -> _Samples:
        return self  # the messages were checked; quaternions are normalised when stored


def _matrix_of_pq(pq: NDArray[np.float64]) -> NDArray[np.float64]:
    x, y, z, qw, qx, qy, qz = (float(v) for v in pq)
    return transform_from(matrix_from_quaternion(qx, qy, qz, qw), (x, y, z))


@dataclass
class _Frame:
    """One frame's parent and samples: times in ns, poses as pytransform3d pq (x y z w x y z)."""

    parent: str
    static: bool
    times: list[int] = field(default_factory=list)
    pqs: list[tuple[float, ...]] = field(default_factory=list)


class TransformBuffer:
    """The transforms of ``/tf`` and ``/tf_static``, looked up in time with pytransform3d.

    Frames are keyed by child, as in tf2: a frame has one parent, and a transform naming
    another parent replaces its history. Messages must have passed
    ``message_checks.tf_message_problem``.
    """

    def __init__(self, buffer_seconds: float = 10.0) -> None:
        self._buffer_ns = round(buffer_seconds * 1e9)
        self._frames: dict[str, _Frame] = {}
        self._changed: set[str] = set()
        self._manager = TemporalTransformManager(strict_check=True, check=True)
        self._origin: int | None = None  # ns; times are seconds from it (float64 keeps ns)
        self._tracker = _Tracker()

    def add(self, message: TFMessage, *, static: bool) -> int:
        """Store the transforms of ``message``; the number ignored (new frames past the cap)."""
        ignored = 0
        for stamped in message.transforms:
            child = stamped.child_frame_id.lstrip('/')
            parent = stamped.header.frame_id.lstrip('/')
            frame = self._frames.get(child)
            if frame is None or frame.parent != parent or frame.static != static:
                if frame is None and len(self._frames) >= MAX_FRAMES:
                    ignored += 1
                    continue
                if frame is not None:
                    self._manager.remove_transform(child, frame.parent)
                frame = self._frames[child] = _Frame(parent, static)
            stamp = stamped.header.stamp
            ns = stamp.sec * 1_000_000_000 + stamp.nanosec
            if self._origin is None and not static:  # static stamps are often 0: not a time
                self._origin = ns
            t, q = stamped.transform.translation, stamped.transform.rotation
            norm = float(np.linalg.norm([q.w, q.x, q.y, q.z]))
            pq = (t.x, t.y, t.z, q.w / norm, q.x / norm, q.y / norm, q.z / norm)
            _insert(frame, 0 if static else ns, pq, static, self._buffer_ns)
            self._changed.add(child)
        return ignored

    def lookup(self, target: str, source: str, nanoseconds: int) -> tuple[NDArray[Any], float]:
        """(4, 4) ``target <- source`` at time ``nanoseconds``, and how stale it is, s.

        Staleness: how much older than the time the newest sample of a frame on the chain is
        (0 when all are newer, or static). Raises ``LookupError`` naming the frames when either
        is unknown or no chain joins them.
        """
        self._sync()
        for frame in (target, source):
            if not self._manager.has_frame(frame):
                known = sorted(self._frames.keys() | {f.parent for f in self._frames.values()})
                listed = ', '.join(known[:10]) + (', ...' if len(known) > 10 else '')
                raise LookupError(
                    f'no frame {frame!r} on /tf or /tf_static (frames: {listed or "none"})'
                )
        self._tracker.lag = 0.0
        try:
            matrix = self._manager.get_transform_at_time(
                source, target, self._seconds(nanoseconds)
            )
        except KeyError:
            raise LookupError(
                f'no chain of transforms joins {target!r} and {source!r} on /tf and /tf_static'
            ) from None
        return np.asarray(matrix, dtype=np.float64), max(self._tracker.lag, 0.0)

    def _seconds(self, nanoseconds: int) -> float:
        return (nanoseconds - (self._origin or 0)) * 1e-9

    def _sync(self) -> None:
        """Hand the frames changed since the last lookup to the transform manager."""
        for child in self._changed:
            frame = self._frames[child]
            times = None if frame.static else np.array([self._seconds(t) for t in frame.times])
            samples = _Samples(times, np.array(frame.pqs), self._tracker)
            self._manager.add_transform(child, frame.parent, samples)
        self._changed.clear()


def _insert(frame: _Frame, ns: int, pq: tuple[float, ...], static: bool, keep_ns: int) -> None:
    """Put one sample in time order (replacing one at the same time); drop the old ones."""
    if static:
        frame.times, frame.pqs = [ns], [pq]
        return
    if frame.times and ns < frame.times[-1] - keep_ns:
        return  # older than the buffer keeps
    i = bisect_left(frame.times, ns)
    if i < len(frame.times) and frame.times[i] == ns:
        frame.pqs[i] = pq
    else:
        frame.times.insert(i, ns)
        frame.pqs.insert(i, pq)
    newest = frame.times[-1]
    start = max(bisect_left(frame.times, newest - keep_ns), len(frame.times) - MAX_SAMPLES)
    if start > 0:
        del frame.times[:start], frame.pqs[:start]
