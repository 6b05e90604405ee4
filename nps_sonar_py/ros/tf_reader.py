"""A ``tf2_msgs/TFMessage`` read from its serialized bytes into arrays, in one pass.

``pose_source: tf`` subscribes to ``/tf`` and ``/tf_static`` raw: rclpy's deserialisation
builds six Python objects per transform, which took about 0.5 s for a message of 10,000
transforms and held up the node's timer (``benchmarks/bench_tf_message.py``). Here the bytes
are walked once for the frame names (the only variable-length fields) and the numbers are
gathered with numpy into a :class:`TransformBatch`, about thirty times faster.

The bytes are what the middleware delivers: a 4-byte encapsulation header, then plain CDR
(XCDR1, little or big endian, as rmw_fastrtps and rmw_cyclonedds send ROS 2 messages; the
alignment of each field counted from after the header). Per transform: ``int32 sec``,
``uint32 nanosec``, the two frame ids as ``uint32`` length (with the terminating NUL) and
bytes, then seven ``float64``, 8-aligned: translation x y z, rotation x y z w. The count of
transforms is checked against ``MAX_TRANSFORMS`` before anything else is read, and every
length against the bytes left: a short or garbled message is refused, never read past.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.devices.transform_buffer import TransformBatch
from nps_sonar_py.ros.message_checks import MAX_TRANSFORMS

__all__ = ['MessageError', 'TfReader', 'read_tf_message']

#: Encapsulation kinds of plain CDR (XCDR1): big and little endian.
_CDR_BE, _CDR_LE = 0x0000, 0x0001
_NUMBERS = 7 * 8  # bytes of a transform's seven float64


class MessageError(ValueError):
    """Bytes that are no ``tf2_msgs/TFMessage``: the message says why, in one line."""


@dataclass(frozen=True)
class _Layout:
    """Where the fields of one message lie: the names read, the offsets of the numbers.

    ``shape``: the offsets (into the body) of every byte that fixes the layout, the count,
    each name's length and bytes, and ``shape_bytes`` those bytes; a message whose bytes
    there are the same has the same names at the same offsets (padding, which may hold
    anything, is not part of it).
    """

    order: str
    size: int
    parents: list[str]
    children: list[str]
    stamps: NDArray[np.int64]  #: (n,) offset of each ``sec`` (``nanosec`` follows)
    numbers: NDArray[np.int64]  #: (n,) offset of each transform's seven float64
    shape: NDArray[np.int64]
    shape_bytes: NDArray[np.uint8]

    def batch(self, body: NDArray[np.uint8]) -> TransformBatch:
        """The transforms of ``body`` laid out so: the numbers gathered at once."""
        stamps = body[self.stamps[:, None] + np.arange(8)]
        numbers = body[self.numbers[:, None] + np.arange(_NUMBERS)]
        values = numbers.view(np.dtype(f'{self.order}f8')).astype(np.float64).reshape(-1, 7)
        return TransformBatch(
            parents=self.parents,
            children=self.children,
            sec=stamps[:, :4].copy().view(f'{self.order}i4').astype(np.int64).reshape(-1),
            nanosec=stamps[:, 4:].copy().view(f'{self.order}u4').astype(np.int64).reshape(-1),
            translations=values[:, :3],
            rotations=values[:, 3:],
        )


class TfReader:
    """Reads the messages of one topic, reusing the last one's layout when it fits.

    A robot's TF publisher sends the same frames in the same order each time: then the names
    and offsets of the last message hold, which one comparison of the bytes that fix them
    shows, and the message is read with numpy alone. Otherwise it is walked anew.
    """

    def __init__(self) -> None:
        self._layout: _Layout | None = None

    def read(self, data: bytes) -> TransformBatch:
        """The transforms of the serialized ``tf2_msgs/TFMessage`` ``data``.

        Raises:
            MessageError: as :func:`read_tf_message`.
        """
        data = bytes(data)
        layout = self._layout
        if layout is not None and len(data) == layout.size + 4 and data[:2] == _header(layout):
            body = np.frombuffer(data, dtype=np.uint8, offset=4)
            if np.array_equal(body[layout.shape], layout.shape_bytes):
                return layout.batch(body)
        self._layout = _walk(data)
        return self._layout.batch(np.frombuffer(data, dtype=np.uint8, offset=4))


def _header(layout: _Layout) -> bytes:
    return (_CDR_LE if layout.order == '<' else _CDR_BE).to_bytes(2, 'big')


def read_tf_message(data: bytes) -> TransformBatch:
    """The transforms of the serialized ``tf2_msgs/TFMessage`` ``data``.

    Raises:
        MessageError: too many transforms, bytes too short for what they announce, a frame
            id that is not UTF-8, or an encapsulation other than plain CDR.
    """
    return TfReader().read(data)


def _walk(data: bytes) -> _Layout:
    """The layout of ``data``, walked field by field (see :func:`read_tf_message`)."""
    if len(data) < 8:
        raise MessageError(f'{len(data)} bytes are too short for a TFMessage')
    kind = int.from_bytes(data[:2], 'big')
    if kind not in (_CDR_BE, _CDR_LE):
        raise MessageError(f'encapsulation 0x{kind:04x} is not plain CDR')
    order = '<' if kind == _CDR_LE else '>'
    body = memoryview(data)[4:]
    size = len(body)
    (count,) = struct.unpack_from(f'{order}I', body, 0)
    if count > MAX_TRANSFORMS:
        raise MessageError(f'transforms has {count} entries, more than {MAX_TRANSFORMS}')
    if count * (16 + 4 + _NUMBERS) > size:  # the least a transform takes: two empty names
        raise MessageError(f'transforms has {count} entries, more than {size} bytes hold')
    head, length = struct.Struct(f'{order}iII'), struct.Struct(f'{order}I')
    stamps: list[int] = []
    parents: list[str] = []
    children: list[str] = []
    numbers: list[int] = []
    shape = [(0, 4)]  # (start, end) of the bytes that fix the layout
    pos, i, field = 4, 0, ''
    try:
        for i in range(count):
            pos = (pos + 3) & ~3
            field = 'header.frame_id'
            _, _, n = head.unpack_from(body, pos)
            stamps.append(pos)
            shape.append((pos + 8, pos + 12 + n))
            start, pos = pos + 12, pos + 12 + n
            if pos > size:
                raise MessageError(f'transforms[{i}].{field} runs past the message')
            parent = str(body[start : pos - 1], 'utf-8').lstrip('/') if n else ''
            pos = (pos + 3) & ~3
            field = 'child_frame_id'
            (n,) = length.unpack_from(body, pos)
            shape.append((pos, pos + 4 + n))
            start, pos = pos + 4, pos + 4 + n
            if pos > size:
                raise MessageError(f'transforms[{i}].{field} runs past the message')
            child = str(body[start : pos - 1], 'utf-8').lstrip('/') if n else ''
            pos = (pos + 7) & ~7
            parents.append(parent)
            children.append(child)
            numbers.append(pos)
            pos += _NUMBERS
    except UnicodeDecodeError:
        raise MessageError(f'transforms[{i}].{field} is not UTF-8') from None
    except struct.error:
        raise MessageError(f'transforms[{i}] runs past the message') from None
    if pos > size:
        raise MessageError(f'transforms[{count - 1}].transform runs past the message')
    starts, ends = np.array(shape, dtype=np.int64).reshape(-1, 2).T
    lengths = ends - starts
    offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
    raw = np.frombuffer(data, dtype=np.uint8, offset=4)
    return _Layout(
        order=order,
        size=size,
        parents=parents,
        children=children,
        stamps=np.asarray(stamps, dtype=np.int64),
        numbers=np.asarray(numbers, dtype=np.int64),
        shape=offsets,
        shape_bytes=raw[offsets],
    )
