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

import numpy as np

from nps_sonar_py.devices.transform_buffer import TransformBatch
from nps_sonar_py.ros.message_checks import MAX_TRANSFORMS

__all__ = ['MessageError', 'read_tf_message']

#: Encapsulation kinds of plain CDR (XCDR1): big and little endian.
_CDR_BE, _CDR_LE = 0x0000, 0x0001
_NUMBERS = 7 * 8  # bytes of a transform's seven float64


class MessageError(ValueError):
    """Bytes that are no ``tf2_msgs/TFMessage``: the message says why, in one line."""


def read_tf_message(data: bytes) -> TransformBatch:
    """The transforms of the serialized ``tf2_msgs/TFMessage`` ``data``.

    Raises:
        MessageError: too many transforms, bytes too short for what they announce, a frame
            id that is not UTF-8, or an encapsulation other than plain CDR.
    """
    data = bytes(data)
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
    sec, nanosec, parents, children, numbers = [], [], [], [], []
    pos, i, field = 4, 0, ''
    try:
        for i in range(count):
            pos = (pos + 3) & ~3
            field = 'header.frame_id'
            s, ns, n = head.unpack_from(body, pos)
            start, pos = pos + 12, pos + 12 + n
            if pos > size:
                raise MessageError(f'transforms[{i}].{field} runs past the message')
            parent = str(body[start : pos - 1], 'utf-8').lstrip('/') if n else ''
            pos = (pos + 3) & ~3
            field = 'child_frame_id'
            (n,) = length.unpack_from(body, pos)
            start, pos = pos + 4, pos + 4 + n
            if pos > size:
                raise MessageError(f'transforms[{i}].{field} runs past the message')
            child = str(body[start : pos - 1], 'utf-8').lstrip('/') if n else ''
            pos = (pos + 7) & ~7
            sec.append(s)
            nanosec.append(ns)
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
    raw = np.frombuffer(data, dtype=np.uint8, offset=4)
    offsets = np.asarray(numbers, dtype=np.int64).reshape(-1, 1) + np.arange(_NUMBERS)
    values = raw[offsets].view(np.dtype(f'{order}f8')).astype(np.float64).reshape(-1, 7)
    return TransformBatch(
        parents=parents,
        children=children,
        sec=np.asarray(sec, dtype=np.int64),
        nanosec=np.asarray(nanosec, dtype=np.int64),
        translations=values[:, :3],
        rotations=values[:, 3:],
    )
