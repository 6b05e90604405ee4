"""Forward-looking pings in the Oculus ``SimplePingResult`` message, read and written.

The layout is the interface of Blueprint Subsea's Oculus sonars as the public liboculus
library (APL-UW) declares it (``SimplePingResult.h``, ``Constants.h``), little-endian and
packed: a 16-byte message header (``oculusId`` 0x4f53, source and destination ids, ``msgId``
35 for a simple ping result, ``msgVersion``, ``payloadSize``, a spare), the fire message that
made the ping (master mode, ping rate, network speed, gamma correction, flags, then range,
gain percent, speed of sound and salinity as doubles), then the result (ping id, status,
frequency, temperature, pressure, speed of sound used, ping start time, data size, range
resolution, number of ranges and of beams, image offset, image size, message size), then one
int16 bearing per beam in hundredths of a degree, and at ``imageOffset`` the image, row-major
(range, beam), row 0 nearest, with a uint32 gain before each row when flag 0x04 is set.
Messages follow each other ``16 + payloadSize`` bytes apart. Only version 1 of the result
(``msgVersion`` 0 or 1) is read; version 2's longer fields are refused with a clear error.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.errors import NpsSonarError

__all__ = ['OculusPing', 'read_oculus', 'write_oculus']

_HEADER = struct.Struct('<HHHHHIH')
_FIRE = struct.Struct('<BBBBBdddd')
_RESULT = struct.Struct('<IIddddIBdHHIII')
#: The magic number of every Oculus message, and the id of a simple ping result.
_OCULUS_ID, _PING_RESULT = 0x4F53, 35
#: Flag of the fire message: each image row starts with its uint32 gain.
_ROW_GAIN = 0x04
#: Bytes per sample of each ``dataSize`` code (8, 16 bits).
_SAMPLE_BYTES = {0: 1, 1: 2}
#: Where the image starts in a written message (as the device puts it).
_IMAGE_ALIGN = 2048


@dataclass(frozen=True)
class OculusPing:
    """One simple ping result.

    Attributes:
        image: (ranges, beams) the stored codes, row 0 nearest (uint8 or uint16).
        bearings: (beams,) beam directions, rad (positive to starboard, as stored).
        frequency: carrier, Hz.
        range_resolution: metres per range row.
        range: the fire message's range setting, m.
        gain_percent: the fire message's gain, percent.
        gamma: the fire message's gamma correction, 0-255.
        speed_of_sound: sound speed the sonar used, m/s.
        ping_id: the result's ping counter.
        row_gains: (ranges,) uint32 gain of each row when the message has them, else None.
    """

    image: NDArray[np.unsignedinteger]
    bearings: NDArray[np.float64]
    frequency: float
    range_resolution: float
    range: float
    gain_percent: float
    gamma: int
    speed_of_sound: float
    ping_id: int = 0
    row_gains: NDArray[np.uint32] | None = None


def read_oculus(path: Path) -> list[OculusPing]:
    """Every simple ping result in file ``path``; ``NpsSonarError`` names a bad message."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        msg = f'{path}: not a readable Oculus file ({error.strerror})'
        raise NpsSonarError(msg) from error
    pings = []
    start = 0
    while start < len(data):
        if start + _HEADER.size > len(data):
            msg = f'{path}: byte {start}: {len(data) - start} stray bytes after the last message'
            raise NpsSonarError(msg)
        oculus_id, _, _, msg_id, version, payload, _ = _HEADER.unpack_from(data, start)
        if oculus_id != _OCULUS_ID:
            msg = f'{path}: byte {start}: not an Oculus message (id {oculus_id:#06x})'
            raise NpsSonarError(msg)
        if start + _HEADER.size + payload > len(data):
            msg = (
                f'{path}: byte {start}: message of {payload} payload bytes is cut off (truncated)'
            )
            raise NpsSonarError(msg)
        if msg_id == _PING_RESULT:
            if version > 1:
                msg = f'{path}: byte {start}: SimplePingResult version {version} is not supported'
                raise NpsSonarError(msg)
            if payload < _FIRE.size + _RESULT.size:
                msg = f'{path}: byte {start}: payload of {payload} bytes is too short for a ping'
                raise NpsSonarError(msg)
            end = start + _HEADER.size + payload
            pings.append(_ping(memoryview(data)[:end], start, f'{path}: byte {start}'))
        start += _HEADER.size + payload
    if not pings:
        msg = f'{path}: no Oculus simple ping result'
        raise NpsSonarError(msg)
    return pings


def _ping(data: bytes | memoryview, start: int, where: str) -> OculusPing:
    """The ping result whose message starts at ``start`` (``data`` ends with the message)."""
    _, _, _, gamma, flags, fire_range, gain, _, _ = _FIRE.unpack_from(data, start + _HEADER.size)
    result = _RESULT.unpack_from(data, start + _HEADER.size + _FIRE.size)
    ping_id, _, frequency, _, _, sound, _, size_code, resolution, ranges, beams = result[:11]
    offset, image_size = result[11], result[12]
    if size_code not in _SAMPLE_BYTES:
        msg = f'{where}: data size code {size_code} (only 8 and 16 bits are read)'
        raise NpsSonarError(msg)
    width = _SAMPLE_BYTES[size_code]
    row_bytes = beams * width + (4 if flags & _ROW_GAIN else 0)
    bearing_at = start + _HEADER.size + _FIRE.size + _RESULT.size
    outside = bearing_at + 2 * beams > len(data) or start + offset + image_size > len(data)
    if image_size != ranges * row_bytes or outside:
        msg = f'{where}: image of {image_size} bytes does not hold {ranges} x {beams} samples'
        raise NpsSonarError(msg)
    centi = np.frombuffer(data, '<i2', beams, bearing_at)
    raw = np.frombuffer(data, np.uint8, image_size, start + offset).reshape(ranges, row_bytes)
    gains = None
    if flags & _ROW_GAIN:
        gains = raw[:, :4].copy().view('<u4').reshape(ranges)
        raw = raw[:, 4:]
    image = raw.copy().view('<u2' if width == 2 else np.uint8).reshape(ranges, beams)
    return OculusPing(
        image=image,
        bearings=np.radians(centi / 100.0),
        frequency=frequency,
        range_resolution=resolution,
        range=fire_range,
        gain_percent=gain,
        gamma=gamma,
        speed_of_sound=sound,
        ping_id=ping_id,
        row_gains=gains,
    )


def write_oculus(path: Path, pings: list[OculusPing]) -> None:
    """Write ``pings`` as consecutive simple ping results (version 1, no row gains)."""
    Path(path).write_bytes(b''.join(_message(ping) for ping in pings))


def _message(ping: OculusPing) -> bytes:
    """One simple ping result message of ``ping``."""
    ranges, beams = ping.image.shape
    size_code = 0 if ping.image.dtype == np.uint8 else 1
    head_size = _HEADER.size + _FIRE.size + _RESULT.size + 2 * beams
    offset = _IMAGE_ALIGN * math.ceil(head_size / _IMAGE_ALIGN)
    image = np.ascontiguousarray(ping.image, dtype='<u2' if size_code else np.uint8).tobytes()
    total = offset + len(image)
    header = _HEADER.pack(_OCULUS_ID, 0, 0, _PING_RESULT, 0, total - _HEADER.size, 0)
    flags = 0x01 | 0x08  # range in metres, simple return
    fire = _FIRE.pack(2, 0, 0, ping.gamma, flags, ping.range, ping.gain_percent, 0.0, 0.0)
    result = _RESULT.pack(
        ping.ping_id,
        0,
        ping.frequency,
        0.0,
        0.0,
        ping.speed_of_sound,
        0,
        size_code,
        ping.range_resolution,
        ranges,
        beams,
        offset,
        len(image),
        total,
    )
    bearings = np.rint(np.degrees(ping.bearings) * 100.0).astype('<i2').tobytes()
    body = header + fire + result + bearings
    return body + bytes(offset - len(body)) + image
