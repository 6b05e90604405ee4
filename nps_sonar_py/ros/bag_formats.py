"""The field's files of a recorded bag: a side-scan as XTF, a fan as Oculus pings, GSF soundings.

``sonar_record`` writes them next to the bag's ``.mcap`` once it has closed it (``--xtf``,
``--oculus SENSOR``, ``--gsf SENSOR``; ``--redraw`` writes them again), from the topics it
recorded for them (``format_topics``); rosbags and ``nps_sonar_py.formats`` only, no rclpy:

* ``sidescan.xtf``: each ``<sensor>/display_line`` (the side-scan's uint16 codes of its
  display chain, port far to near then starboard) as an XTF ping of two uint16 channels over
  slant range ``0..max_range`` (``<sensor>/ranger``'s window of the same stamp), the carrier
  from ``<sensor>/raw_image``'s ``ping_info``; seconds from the first ping. The navigation
  fields a bag does not hold (altitude, speed, depth, pitch) are written as 0.
* ``oculus.raw``: each ``<sensor>/display_image`` (a fan's codes, ``image_polar``'s layout)
  as an Oculus simple ping result, rows near to far and beams by bearing positive to
  starboard (the device's layout), the bearings, carrier, sound speed and range from
  ``<sensor>/multibeam`` of the same stamp; the gamma setting is the Oculus display chain's
  (``oculus_chain``), the gain percent 0 (the bag does not say it).
* ``soundings.gsf``: each ``<sensor>/soundings`` (an echosounder's ``PointCloud2``, body frame)
  as a GSF swath bathymetry ping (``formats.gsf``: depth ``-z``, across track ``-y``, along
  ``x``), a beam without a sounding null, every ping as many beams as the most seen; position
  and heading 0 (the soundings are relative to the sensor).

Each file reads back with the reader the realism benchmark uses for the real records
(``formats.xtf.read_sidescan``, ``formats.oculus.read_oculus``, ``formats.gsf.read_soundings``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from rosbags.highlevel import AnyReader

from nps_sonar_py.echo.display_presets import AMPLITUDE, DISPLAY_PRESETS
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.formats.oculus import OculusPing, write_oculus
from nps_sonar_py.formats.xtf import SidescanRecord, write_sidescan

__all__ = ['FormatExports', 'format_topics', 'oculus_chain', 'write_formats']

#: The file each export writes, in the bag's directory.
XTF_FILE, OCULUS_FILE, GSF_FILE = 'sidescan.xtf', 'oculus.raw', 'soundings.gsf'


@dataclass(frozen=True)
class FormatExports:
    """Which sensors' records to write in the field's formats (``None``: none).

    Attributes:
        sidescan: a side-scan sensor (``/sidescan``) whose display lines go to XTF.
        oculus: a fan (``/head``) whose display images go to Oculus pings.
        gsf: an echosounder (``/echosounder``) whose soundings go to GSF.
    """

    sidescan: str | None = None
    oculus: str | None = None
    gsf: str | None = None

    def __post_init__(self) -> None:
        for option, sensor in (
            ('--xtf', self.sidescan),
            ('--oculus', self.oculus),
            ('--gsf', self.gsf),
        ):
            if sensor is not None and not sensor.strip('/'):
                raise ConfigurationError(
                    f'{option} {sensor!r}: expected a sensor name, e.g. /sonar'
                )


def _base(sensor: str) -> str:
    """``/name`` of a sensor name given with or without its leading slash."""
    return '/' + sensor.strip('/')


def format_topics(exports: FormatExports) -> list[tuple[str, str]]:
    """The (topic, type) pairs the exports need recorded."""
    topics = []
    if exports.sidescan is not None:
        base = _base(exports.sidescan)
        topics += [
            (f'{base}/display_line', 'sensor_msgs/msg/Image'),
            (f'{base}/ranger', 'nps_sonar/msg/RangerData'),
            (f'{base}/raw_image', 'marine_acoustic_msgs/msg/RawSonarImage'),
        ]
    if exports.oculus is not None:
        base = _base(exports.oculus)
        topics += [
            (f'{base}/display_image', 'sensor_msgs/msg/Image'),
            (f'{base}/multibeam', 'nps_sonar/msg/MultibeamPing'),
        ]
    if exports.gsf is not None:
        topics.append((f'{_base(exports.gsf)}/soundings', 'sensor_msgs/msg/PointCloud2'))
    return topics


def write_formats(bag: Path, exports: FormatExports) -> list[Path]:
    """Write the exports' files into ``bag``'s directory; the files written.

    Raises:
        ConfigurationError: a topic an export needs holds no message (one line, naming it).
    """
    written = []
    if exports.sidescan is not None:
        written.append(_write_xtf(bag, _base(exports.sidescan)))
    if exports.oculus is not None:
        written.append(_write_oculus(bag, _base(exports.oculus)))
    if exports.gsf is not None:
        written.append(_write_gsf(bag, _base(exports.gsf)))
    return written


def _stamp(message: Any) -> int:
    """A message's header stamp, ns."""
    return int(message.header.stamp.sec) * 1_000_000_000 + int(message.header.stamp.nanosec)


def _messages(bag: Path, topic: str) -> Iterator[Any]:
    """Every message of ``topic`` in ``bag``, deserialized, in the bag's order."""
    with AnyReader([bag]) as reader:
        connections = [c for c in reader.connections if c.topic == topic]
        for connection, _, raw in reader.messages(connections=connections):
            yield reader.deserialize(raw, connection.msgtype)


def _by_stamp(bag: Path, topic: str) -> dict[int, Any]:
    """The messages of ``topic`` by stamp; ConfigurationError if there is none."""
    found = {_stamp(m): m for m in _messages(bag, topic)}
    if not found:
        raise ConfigurationError(f'{bag}: no message on {topic} to write the record from')
    return found


def image_pixels(message: Any) -> NDArray[np.unsignedinteger]:
    """The ``(height, width)`` mono8 or mono16 pixels of a ``sensor_msgs/Image``."""
    bytes_per_pixel = {'mono8': 1, 'mono16': 2}.get(message.encoding)
    if bytes_per_pixel is None:
        raise ConfigurationError(
            f'display image encoding {message.encoding!r}: expected mono8 or mono16'
        )
    order = '>' if message.is_bigendian else '<'
    kind = np.dtype(f'{order}u{bytes_per_pixel}')
    rows = np.frombuffer(bytes(message.data), dtype=np.uint8).reshape(message.height, message.step)
    pixels = rows[:, : message.width * bytes_per_pixel].copy().view(kind)
    native: NDArray[np.unsignedinteger] = pixels.astype(f'u{bytes_per_pixel}')
    return native


def _write_xtf(bag: Path, base: str) -> Path:
    """``sidescan.xtf`` of the side-scan ``base``'s display lines (module docstring)."""
    lines = _by_stamp(bag, f'{base}/display_line')
    windows = _by_stamp(bag, f'{base}/ranger')
    raws = dict(_raw_items(bag, base))
    stamps = sorted(s for s in lines if s in windows)
    if not stamps:
        raise ConfigurationError(f'{bag}: no {base}/display_line with its {base}/ranger window')
    rows = np.concatenate([image_pixels(lines[s]) for s in stamps]).astype(np.uint16)
    samples = rows.shape[1] // 2
    frequency = next((float(raws[s].ping_info.frequency) for s in stamps if s in raws), 0.0)
    times = (np.array(stamps, dtype=np.float64) - stamps[0]) * 1e-9
    zeros = np.zeros(len(stamps))
    path = bag / XTF_FILE
    write_sidescan(
        path,
        SidescanRecord(
            port=np.ascontiguousarray(rows[:, :samples][:, ::-1]),
            starboard=np.ascontiguousarray(rows[:, samples:]),
            slant_range=float(windows[stamps[-1]].config.max_range),
            frequency=frequency,
            altitude=zeros,
            speed=zeros,
            depth=zeros,
            pitch=zeros,
            times=times,
            sonar_name='nps_sonar',
        ),
    )
    return path


def _raw_items(bag: Path, base: str) -> Iterator[tuple[int, Any]]:
    """(stamp, message) of ``base``'s raw images: the carrier's source."""
    for message in _messages(bag, f'{base}/raw_image'):
        yield _stamp(message), message


def oculus_chain() -> str:
    """The display chain whose gamma an Oculus file states: the Oculus multibeam preset's.

    Imported here, not with the module: the presets import every device kind (scipy, the
    scene), which ``sonar_record`` would pay before it even checks its command line.
    """
    from nps_sonar_py.devices.presets import PRESETS

    return PRESETS['oculus_m1200d_hf'].display or ''


def _write_oculus(bag: Path, base: str) -> Path:
    """``oculus.raw`` of the fan ``base``'s display images (module docstring)."""
    images = _by_stamp(bag, f'{base}/display_image')
    pings = _by_stamp(bag, f'{base}/multibeam')
    stamps = sorted(s for s in images if s in pings)
    if not stamps:
        raise ConfigurationError(f'{bag}: no {base}/display_image with its {base}/multibeam ping')
    gamma = round(255 * DISPLAY_PRESETS[oculus_chain()].gamma / AMPLITUDE)  # on amplitude
    results = []
    for index, stamp in enumerate(stamps):
        codes, ping = image_pixels(images[stamp]), pings[stamp]
        rows = codes.shape[0]
        results.append(
            OculusPing(
                image=np.ascontiguousarray(codes[::-1]),  # near first; columns starboard last
                bearings=-np.asarray(ping.azimuths, dtype=np.float64)[::-1],
                frequency=float(ping.frequency),
                range_resolution=float(ping.max_range) / rows,
                range=float(ping.max_range),
                gain_percent=0.0,
                gamma=gamma,
                speed_of_sound=float(ping.sound_speed),
                ping_id=index,
            )
        )
    path = bag / OCULUS_FILE
    write_oculus(path, results)
    return path


def cloud_points(message: Any) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """(n, 3) x y z and (n,) beam of an echosounder's soundings ``PointCloud2``."""
    offsets = {f.name: int(f.offset) for f in message.fields}
    if not {'x', 'y', 'z', 'beam'} <= set(offsets):
        raise ConfigurationError('soundings cloud: expected fields x, y, z and beam')
    order = '>' if message.is_bigendian else '<'
    layout = np.dtype(
        {
            'names': ['x', 'y', 'z', 'beam'],
            'formats': [f'{order}f4'] * 3 + [f'{order}u2'],
            'offsets': [offsets[n] for n in ('x', 'y', 'z', 'beam')],
            'itemsize': int(message.point_step),
        }
    )
    cloud = np.frombuffer(
        bytes(message.data), dtype=layout, count=int(message.width) * int(message.height)
    )
    points = np.stack([cloud[n].astype(np.float64) for n in ('x', 'y', 'z')], axis=1)
    return points, cloud['beam'].astype(np.intp)


def _write_gsf(bag: Path, base: str) -> Path:
    """``soundings.gsf`` of the echosounder ``base``'s soundings (module docstring)."""
    # Imported here (as in oculus_chain): formats.gsf imports the sensing package.
    from nps_sonar_py.formats.gsf import soundings_of_points, write_soundings

    clouds = _by_stamp(bag, f'{base}/soundings')
    stamps = sorted(clouds)
    decoded = [cloud_points(clouds[s]) for s in stamps]
    beams = max((int(b.max()) + 1 for _, b in decoded if b.size), default=1)
    points = np.full((len(stamps), beams, 3), math.nan)
    for row, (xyz, beam) in zip(points, decoded, strict=True):
        row[beam] = xyz
    zeros = np.zeros(len(stamps))
    path = bag / GSF_FILE
    times = np.array(stamps, dtype=np.float64) * 1e-9
    write_soundings(path, soundings_of_points(points, times, zeros, zeros, zeros))
    return path
