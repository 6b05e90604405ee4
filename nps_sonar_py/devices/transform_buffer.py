"""A buffer of timed transforms between named frames, looked up in time as tf2 does (no rclpy).

``pose_source: tf`` (``ros/motion.py``) keeps the transforms of ``/tf`` and ``/tf_static`` here
and looks up the robot's root link in ``world_frame`` at a reading's time: up from each
frame to their first common ancestor, each transform interpolated between the two samples
around the time (translation linearly, rotation by slerp). A time outside a frame's samples
gets the nearest one (held, not extrapolated), and the lookup says how far outside it is, so
that the caller can warn when it is stale. Per frame, at most :data:`MAX_SAMPLES` samples
over the last ``buffer_seconds`` are kept; at most :data:`MAX_FRAMES` frames (``/tf``
frames whose newest sample left that window make room for new ones). A loop of transforms
is refused at lookup.

A message comes in as a :class:`TransformBatch` of arrays (``ros/tf_reader.py`` reads one
from the serialized bytes in one pass): the stamps and the normalisation are worked out for
the whole batch at once, so that storing a message of 10,000 transforms costs one short
step per transform (``benchmarks/bench_tf_message.py``).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.transforms import invert_transform, matrix_from_quaternion, transform_from

__all__ = [
    'BUFFER_SECONDS',
    'MAX_FRAMES',
    'MAX_SAMPLES',
    'Dropped',
    'TransformBatch',
    'TransformBuffer',
]

#: Most frames a :class:`TransformBuffer` keeps; transforms of new frames beyond are ignored.
MAX_FRAMES = 10_000
#: Most samples kept per frame (100 Hz for 10 s); the oldest go first.
MAX_SAMPLES = 1000
#: How long a frame's samples are kept before its newest, as tf2's default cache time.
BUFFER_SECONDS = 10.0

_NS = 1_000_000_000


@dataclass(frozen=True)
class TransformBatch:
    """The transforms of one ``tf2_msgs/TFMessage``, as arrays: ``parent <- child`` each.

    Frame names have their leading ``/`` dropped, as tf2 drops it. ``sec`` and ``nanosec``:
    (n,) the stamps; ``translations`` (n, 3), m; ``rotations`` (n, 4) quaternions
    ``(x, y, z, w)`` as sent (not normalised). Check it (``message_checks.tf_message_problem``)
    before adding it to a buffer.
    """

    parents: Sequence[str]
    children: Sequence[str]
    sec: NDArray[np.int64]
    nanosec: NDArray[np.int64]
    translations: NDArray[np.float64]
    rotations: NDArray[np.float64]

    def __len__(self) -> int:
        return len(self.children)


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
    poses: list[Sequence[float]] = field(default_factory=list)

    def at(self, ns: int) -> tuple[NDArray[np.float64], float]:
        """(4, 4) ``parent_from_child`` at ``ns``, and how far ``ns`` lies outside the samples, s.

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
    with the number of frames.
    """

    def __init__(self, buffer_seconds: float = BUFFER_SECONDS) -> None:
        self._window_ns = round(buffer_seconds * 1e9)
        self._frames: dict[str, _Frame] = {}
        self._newest_ns = 0  # the newest stamp of any dynamic sample, for evicting frames

    def add(self, batch: TransformBatch, *, static: bool, now_ns: int = 0) -> Dropped:
        """Store the transforms of ``batch`` (checked); say what was left out.

        ``now_ns``: the node's clock, for refusing stamps more than the window ahead of it
        (0: no clock yet, no check). A sample older than its frame's newest minus the window
        is left out, as tf2 does; a jump back in time calls for :meth:`forget_after`.
        """
        dropped = Dropped()
        if not len(batch):
            return dropped
        if static:
            stamps = np.zeros(len(batch), dtype=np.int64)
        else:
            stamps = batch.sec.astype(np.int64) * _NS + batch.nanosec.astype(np.int64)
        rotations = batch.rotations / np.linalg.norm(batch.rotations, axis=1, keepdims=True)
        # rows of one array: a view per sample, no Python float per number
        poses = np.concatenate((batch.translations, rotations), axis=1)
        latest = now_ns + self._window_ns if now_ns > 0 else math.inf
        window, frames, newest = self._window_ns, self._frames, self._newest_ns
        full = False  # no room made once: none in the rest of the batch (one scan, not one each)
        for child, parent, ns, pose in zip(
            batch.children, batch.parents, stamps.tolist(), poses, strict=True
        ):
            if ns > latest:
                dropped.future += 1
                continue
            frame = frames.get(child)
            if frame is None or frame.parent != parent or frame.static != static:
                if frame is None and len(frames) >= MAX_FRAMES and (full or not self._evict()):
                    full = True
                    dropped.new_frames += 1
                    continue
                frame = frames[child] = _Frame(parent, static)
            times = frame.times
            if static:
                frame.times, frame.poses = [ns], [pose]
            elif times and ns <= times[-1]:
                if not _insert(frame, ns, pose, window):
                    dropped.old += 1
            else:  # the usual: a sample newer than the frame's others
                times.append(ns)
                frame.poses.append(pose)
                if times[0] < ns - window or len(times) > MAX_SAMPLES:
                    _trim(frame, window)
                if ns > newest:
                    newest = ns
        self._newest_ns = newest
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
        """(4, 4) ``target_from_source`` at time ``nanoseconds``, and how stale it is, s.

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
        """``top_from_first`` of a walk's first frames at ``ns``, and the largest gap, s."""
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


def _insert(frame: _Frame, ns: int, pose: Sequence[float], keep_ns: int) -> bool:
    """Put a sample no newer than the frame's newest in time order; drop the old ones.

    A sample at the time of another replaces it. Returns False, storing nothing, for a
    sample older than the frame's newest minus ``keep_ns``.
    """
    if ns < frame.times[-1] - keep_ns:
        return False
    i = bisect_left(frame.times, ns)
    if frame.times[i] == ns:
        frame.poses[i] = pose
    else:
        frame.times.insert(i, ns)
        frame.poses.insert(i, pose)
        _trim(frame, keep_ns)
    return True


def _trim(frame: _Frame, keep_ns: int) -> None:
    """Drop the samples older than the newest minus ``keep_ns``, and past :data:`MAX_SAMPLES`."""
    times = frame.times
    start = max(bisect_left(times, times[-1] - keep_ns), len(times) - MAX_SAMPLES)
    if start > 0:
        del times[:start], frame.poses[:start]
