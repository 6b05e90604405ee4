"""An ``nps_sonar/SceneState`` read from its serialized bytes: its size checked first.

rclpy builds a Python object per entity and per field while it deserialises: a message of
20,000 entities took 0.6 to 1.7 s, 100,000 took 3 to 4 s, all of it in the node's one thread
before its check could drop it (issue 35 item 4). The node subscribes raw; here the entity
count is read from the bytes first and checked against ``MAX_ENTITIES`` and against what the
bytes can hold, and only a message within them is deserialised.

The layout (a 4-byte encapsulation header, then plain CDR, XCDR1, little or big endian, the
alignment counted from after the header): ``header.stamp`` (``int32 sec``, ``uint32
nanosec``), ``header.frame_id`` and ``scene`` (each a ``uint32`` length with the terminating
NUL, then the bytes, 4-aligned), then the ``uint32`` count of ``entities``; an entity takes
at least ``MIN_ENTITY_BYTES`` (116: two empty names, 5 bytes and padding each, and 13
``float64``).
"""

from __future__ import annotations

import struct
from typing import Any

from rclpy.serialization import deserialize_message

from nps_sonar import msg as nps_msg
from nps_sonar_py.ros.message_checks import MAX_ENTITIES
from nps_sonar_py.ros.tf_reader import MessageError

__all__ = ['MIN_ENTITY_BYTES', 'entity_count', 'read_scene_state']

_CDR_BE, _CDR_LE = 0x0000, 0x0001
#: The fewest bytes an entity takes: two empty strings (length and NUL, 8 bytes each with the
#: padding before the next), then the pose's 7 and the twist's 6 float64, 8-aligned.
MIN_ENTITY_BYTES = 8 + 8 + 13 * 8 - 4


def entity_count(data: bytes) -> int:
    """The count of ``entities`` in the serialized ``SceneState`` ``data``, read first.

    Raises:
        MessageError: not plain CDR, shorter than its fields say, or more entities than
            ``MAX_ENTITIES`` or than its bytes can hold (one line).
    """
    if len(data) < 4 + 8 + 4:
        raise MessageError(f'{len(data)} bytes are too short for a SceneState')
    kind = int.from_bytes(data[:2], 'big')
    if kind not in (_CDR_BE, _CDR_LE):
        raise MessageError(f'encapsulation 0x{kind:04x} is not plain CDR')
    order = '<' if kind == _CDR_LE else '>'
    body = memoryview(data)[4:]
    pos = 8  # after the stamp
    for field in ('header.frame_id', 'scene'):
        try:
            (n,) = struct.unpack_from(f'{order}I', body, pos)
        except struct.error:
            raise MessageError(f'{field} runs past the message') from None
        pos = (pos + 4 + n + 3) & ~3
    try:
        (count,) = struct.unpack_from(f'{order}I', body, pos)
    except struct.error:
        raise MessageError('entities runs past the message') from None
    if count > MAX_ENTITIES:
        raise MessageError(f'entities has {count} entries, more than {MAX_ENTITIES}')
    if count * MIN_ENTITY_BYTES > len(body) - pos - 4:
        raise MessageError(f'entities has {count} entries, more than {len(data)} bytes hold')
    return int(count)


def read_scene_state(data: bytes) -> Any:
    """The ``SceneState`` of the serialized ``data``, deserialised once its size is checked.

    Raises:
        MessageError: as :func:`entity_count`.
    """
    entity_count(data)
    return deserialize_message(bytes(data), nps_msg.SceneState)
