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
``/tf_static`` (after ``message_checks.tf_message_problem``) and looks up the root link in
``world_frame`` at a reading's time as tf2 does: up from each frame to their first common
ancestor, each transform interpolated between the two samples around the time (translation
linearly, rotation by slerp). A time outside a frame's samples gets the nearest one (held,
not extrapolated), and the lookup says how far outside it is, so that ``ros/motion.py`` can
warn when it is stale. Per frame, at most :data:`MAX_SAMPLES` samples over the last
``buffer_seconds`` are kept; at most :data:`MAX_FRAMES` frames (``/tf`` frames whose newest
sample left that window make room for new ones). A loop of transforms is refused at lookup.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from builtin_interfaces.msg import Time as TimeMsg
from geometry_msgs.msg import Quaternion, Transform, TransformStamped, Vector3
from numpy.typing import NDArray
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from tf2_msgs.msg import TFMessage

from nps_sonar_py.devices import RangerGeometry
from nps_sonar_py.devices.mount import RobotMount
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.ros.conversions import matrix_from_quaternion
from nps_sonar_py.transforms import invert_transform, matrix_to_quaternion, transform_from

__all__ = [
    'BUFFER_SECONDS',
    'MAX_FRAMES',
    'MAX_SAMPLES',
    'STATIC_QOS',
    'TF_QOS',
    'Dropped',
    'FrameTransform',
    'TfOutput',
    'TransformBuffer',
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
#: Most frames a :class:`TransformBuffer` keeps; transforms of new frames beyond are ignored.
MAX_FRAMES = 10_000
#: Most samples kept per frame (100 Hz for 10 s); the oldest go first.
MAX_SAMPLES = 1000
#: How long a frame's samples are kept before its newest, as tf2's default cache time.
BUFFER_SECONDS = 10.0


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


@dataclass
class Dropped:
    """The transforms of one message :meth:`TransformBuffer.add` left out, by reason."""

    new_frames: int = 0  #: of new frames, past :data:`MAX_FRAMES`
    old: int = 0  #: older than their frame's window (tf2's ``TF_OLD_DATA``)
    future: int = 0  #: stamped more than the window ahead of the node's clock

    def __bool__(self) -> bool:
        return bool(self.new_frames or self.old or self.future)


@dataclass
class _Frame:
    """One frame's parent and samples: times in ns, ascending; poses (x, y, z, qx, qy, qz, qw)."""

    parent: str
    static: bool
    times: list[int] = field(default_factory=list)
    poses: list[tuple[float, ...]] = field(default_factory=list)

    def at(self, ns: int) -> tuple[NDArray[np.float64], float]:
        """(4, 4) ``parent <- child`` at ``ns``, and how far ``ns`` lies outside the samples, s.

        Between two samples, as tf2: the translation linearly, the rotation by slerp. Outside
        them, the nearest sample, held (not extrapolated).
        """
        times = self.times
        if self.static:
            return _matrix(self.poses[0]), 0.0
        if ns <= times[0]:
            return _matrix(self.poses[0]), (times[0] - ns) * 1e-9
        if ns >= times[-1]:
            return _matrix(self.poses[-1]), (ns - times[-1]) * 1e-9
        i = bisect_left(times, ns)
        if times[i] == ns:
            return _matrix(self.poses[i]), 0.0
        a, b = self.poses[i - 1], self.poses[i]
        f = (ns - times[i - 1]) / (times[i] - times[i - 1])
        translation = [a[k] + f * (b[k] - a[k]) for k in range(3)]
        return _matrix((*translation, *_slerp(a[3:], b[3:], f))), 0.0


def _matrix(pose: Sequence[float]) -> NDArray[np.float64]:
    x, y, z, qx, qy, qz, qw = pose
    return transform_from(matrix_from_quaternion(qx, qy, qz, qw), (x, y, z))


def _slerp(a: Sequence[float], b: Sequence[float], f: float) -> tuple[float, ...]:
    """Unit quaternion ``f`` of the way from ``a`` to ``b`` along the shorter arc, as tf2."""
    dot = sum(p * q for p, q in zip(a, b, strict=True))
    if dot < 0.0:  # q and -q are one rotation: take the short way round
        b, dot = [-q for q in b], -dot
    if dot > 0.9995:  # nearly equal: a normalised lerp avoids dividing by sin(~0)
        mixed = [p + f * (q - p) for p, q in zip(a, b, strict=True)]
    else:
        theta = math.acos(dot)
        wa, wb = math.sin((1.0 - f) * theta), math.sin(f * theta)
        mixed = [wa * p + wb * q for p, q in zip(a, b, strict=True)]
    norm = math.sqrt(sum(q * q for q in mixed))
    return tuple(q / norm for q in mixed)


class TransformBuffer:
    """The transforms of ``/tf`` and ``/tf_static``, looked up in time as tf2 does.

    Frames are keyed by child, as in tf2: a frame has one parent, and a transform naming
    another parent replaces its history. A lookup walks from each of the two frames up to
    their first common ancestor, so its cost grows with the length of the chain only, not
    with the number of frames. Messages must have passed ``message_checks.tf_message_problem``.
    """

    def __init__(self, buffer_seconds: float = BUFFER_SECONDS) -> None:
        self._window_ns = round(buffer_seconds * 1e9)
        self._frames: dict[str, _Frame] = {}
        self._newest_ns = 0  # the newest stamp of any dynamic sample, for evicting frames

    def add(self, message: TFMessage, *, static: bool, now_ns: int = 0) -> Dropped:
        """Store the transforms of ``message``; say what was left out.

        ``now_ns``: the node's clock, for refusing stamps more than the window ahead of it
        (0: no clock yet, no check). A sample older than its frame's newest minus the window
        is left out, as tf2 does; a jump back in time calls for :meth:`forget_after`.
        """
        dropped = Dropped()
        for stamped in message.transforms:
            child = stamped.child_frame_id.lstrip('/')
            parent = stamped.header.frame_id.lstrip('/')
            stamp = stamped.header.stamp
            ns = 0 if static else stamp.sec * 1_000_000_000 + stamp.nanosec
            if now_ns > 0 and ns > now_ns + self._window_ns:
                dropped.future += 1
                continue
            frame = self._frames.get(child)
            if frame is None or frame.parent != parent or frame.static != static:
                if frame is None and len(self._frames) >= MAX_FRAMES and not self._evict():
                    dropped.new_frames += 1
                    continue
                frame = self._frames[child] = _Frame(parent, static)
            t, q = stamped.transform.translation, stamped.transform.rotation
            norm = math.sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w)
            pose = (t.x, t.y, t.z, q.x / norm, q.y / norm, q.z / norm, q.w / norm)
            if not _insert(frame, ns, pose, self._window_ns):
                dropped.old += 1
            elif not static:
                self._newest_ns = max(self._newest_ns, ns)
        return dropped

    def forget_after(self, ns: int) -> None:
        """Forget the ``/tf`` samples stamped after ``ns``: for a jump back in time to ``ns``.

        What tf2_ros's clearing does to the old run's samples, but idempotent: the sensor nodes
        of one process share a buffer, and each sees the jump; the samples of the new run that
        one of them has stored since (stamped up to ``ns``) stay.
        """
        for key in [k for k, f in self._frames.items() if not f.static]:
            frame = self._frames[key]
            keep = bisect_right(frame.times, ns)
            if keep == 0:
                del self._frames[key]
            else:
                del frame.times[keep:], frame.poses[keep:]
        self._newest_ns = max(
            (f.times[-1] for f in self._frames.values() if not f.static), default=0
        )

    def lookup(self, target: str, source: str, nanoseconds: int) -> tuple[NDArray[Any], float]:
        """(4, 4) ``target <- source`` at time ``nanoseconds``, and how stale it is, s.

        Staleness: how far the time lies outside the samples of a frame on the chain (0 when
        it lies within all of them, or they are static). Raises ``LookupError`` naming the
        frames when either is unknown, no chain joins them, or the chain loops.
        """
        up_source = self._walk(source)
        up_target = self._walk(target)
        on_source = {frame: i for i, (frame, _) in enumerate(up_source)}
        common = next((j for j, (frame, _) in enumerate(up_target) if frame in on_source), None)
        if common is None:
            for name in (target, source):
                if name not in self._frames and all(
                    f.parent != name for f in self._frames.values()
                ):
                    raise LookupError(f'no frame {name!r} on /tf or /tf_static ({self._known()})')
            raise LookupError(
                f'no chain of transforms joins {target!r} and {source!r} on /tf and /tf_static'
            )
        i, j = on_source[up_target[common][0]], common
        common_from_source, gap_s = self._compose(up_source[:i], nanoseconds)
        common_from_target, gap_t = self._compose(up_target[:j], nanoseconds)
        return invert_transform(common_from_target) @ common_from_source, max(gap_s, gap_t)

    def _walk(self, name: str) -> list[tuple[str, _Frame | None]]:
        """``name`` and its ancestors, each with its frame (``None`` for the top one)."""
        chain: list[tuple[str, _Frame | None]] = []
        seen: set[str] = set()
        while name not in seen:
            seen.add(name)
            frame = self._frames.get(name)
            chain.append((name, frame))
            if frame is None:
                return chain
            name = frame.parent
        loop = ' -> '.join(n for n, _ in chain[[n for n, _ in chain].index(name) :])
        raise LookupError(f'the transforms on /tf and /tf_static loop: {loop} -> {name}')

    @staticmethod
    def _compose(
        chain: list[tuple[str, _Frame | None]], ns: int
    ) -> tuple[NDArray[np.float64], float]:
        """``top <- first`` of a walk's first frames at ``ns``, and the largest gap, s."""
        matrix, gap = np.eye(4), 0.0
        for _, frame in chain:
            assert frame is not None  # only the top of a walk has none
            parent_from_child, frame_gap = frame.at(ns)
            matrix = parent_from_child @ matrix
            gap = max(gap, frame_gap)
        return matrix, gap

    def _known(self) -> str:
        names = sorted(self._frames.keys() | {f.parent for f in self._frames.values()})
        listed = ', '.join(names[:10]) + (', ...' if len(names) > 10 else '')
        return f'frames: {listed or "none"}'

    def _evict(self) -> bool:
        """Drop the ``/tf`` frames whose newest sample left the window; whether any went."""
        oldest = self._newest_ns - self._window_ns
        stale = [k for k, f in self._frames.items() if not f.static and f.times[-1] < oldest]
        for key in stale:
            del self._frames[key]
        return bool(stale)


def _insert(frame: _Frame, ns: int, pose: tuple[float, ...], keep_ns: int) -> bool:
    """Put one sample in time order (replacing one at the same time), drop the old ones.

    Returns False, storing nothing, for a sample older than the frame's newest minus
    ``keep_ns``.
    """
    if frame.static:
        frame.times, frame.poses = [ns], [pose]
        return True
    if frame.times and ns < frame.times[-1] - keep_ns:
        return False
    i = bisect_left(frame.times, ns)
    if i < len(frame.times) and frame.times[i] == ns:
        frame.poses[i] = pose
    else:
        frame.times.insert(i, ns)
        frame.poses.insert(i, pose)
    newest = frame.times[-1]
    start = max(bisect_left(frame.times, newest - keep_ns), len(frame.times) - MAX_SAMPLES)
    if start > 0:
        del frame.times[:start], frame.poses[:start]
    return True
