"""The pictures of a recorded bag, drawn without ROS: a profile, the sweep, fans, images.

``draw_report`` reads a bag (``ros2 bag record`` or ``sonar_record``) with rosbags alone, from
the definitions the bag carries, and draws with ``nps_sonar_py.plots``: ``profile.png`` (the
profile of the last ``SonarPoint`` nearest azimuth 0) and ``sweep.png`` (every
``SonarPoint``: a fan by azimuth if they span azimuths, else an echogram over time); if the bag
holds them, ``multibeam.png``
(the last ``MultibeamPing``: its beams' profiles as a fan), per ``sensor_msgs/Image``
topic, ``image<topic, / as _>.png`` (its last image, pixel for pixel: a side-scan's
``waterfall`` too, when it was recorded) and, per ``marine_acoustic_msgs/RawSonarImage`` topic
of two beams (a side-scan's ``raw_image``), ``raw_waterfall<topic, / as _>.png``: the
waterfall of its raw pings (``raw_waterfall``); per ``SideBySide`` asked for, ``<name>.png``:
the last images of two topics side by side (``side_by_side``). No rclpy.
"""

from __future__ import annotations

import bisect
import math
import os
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from rosbags.highlevel import AnyReader
from rosbags.interfaces import Connection
from rosbags.typesys import Stores, get_typestore
from rosbags.typesys.store import Typestore

from nps_sonar_py import plots
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.sensing.images import DbWindow, db_pixels
from nps_sonar_py.sensing.sidescan import SidescanPing
from nps_sonar_py.sensing.waterfall import Waterfall, WaterfallConfig

__all__ = [
    'IMAGE',
    'MULTIBEAM_PING',
    'RAW_SONAR_IMAGE',
    'RAW_WATERFALL_LINES',
    'SONAR_POINT',
    'Report',
    'SideBySide',
    'draw_report',
    'make_typestore',
    'raw_waterfall',
]

SONAR_POINT = 'nps_sonar/msg/SonarPoint'
MULTIBEAM_PING = 'nps_sonar/msg/MultibeamPing'
IMAGE = 'sensor_msgs/msg/Image'
RAW_SONAR_IMAGE = 'marine_acoustic_msgs/msg/RawSonarImage'
RANGER_DATA = 'nps_sonar/msg/RangerData'
#: Rows of the waterfall drawn from a RawSonarImage topic (``waterfall_lines``' default).
RAW_WATERFALL_LINES = 400
#: Black columns between the two images of a ``SideBySide`` picture.
SIDE_BY_SIDE_GAP = 6


class SideBySide(NamedTuple):
    """A picture ``<name>.png``: the last image of ``left`` beside that of ``right``.

    Both ``sensor_msgs/Image`` topics, of the same height and encoding (the demo's incoherent
    and coherent twins: ``scripts/demo --coherent``).
    """

    name: str
    left: str
    right: str


class Report(NamedTuple):
    """What ``draw_report`` drew: the ``SonarPoint`` topic, its pings, the pictures (or None).

    ``multibeam`` is the last ``MultibeamPing``'s fan (its topic ``multibeam_topic``) and
    ``images`` the last image of each ``sensor_msgs/Image`` topic, then the waterfall of each
    two-beam ``RawSonarImage`` topic, then the ``SideBySide`` pictures.
    """

    topic: str | None
    pings: int
    profile: Path | None
    sweep: Path | None
    sweep_kind: str | None  # 'fan' (pings span azimuths) or 'echogram' (a fixed beam over time)
    multibeam: Path | None = None
    multibeam_topic: str | None = None
    images: tuple[Path, ...] = ()


def make_typestore(distro: str | None = None) -> Typestore:
    """The rosbags type store of ROS ``distro`` (default ``$ROS_DISTRO``; unknown: the latest)."""
    distro = os.environ.get('ROS_DISTRO', '') if distro is None else distro
    return get_typestore(Stores.__members__.get(f'ROS2_{distro.upper()}', Stores.LATEST))


def draw_report(
    bag_path: str | Path,
    out_dir: str | Path | None = None,
    *,
    topic: str | None = None,
    db_window: tuple[float, float] | None = None,
    side_by_side: tuple[SideBySide, ...] = (),
) -> Report:
    """Draw ``profile.png`` and ``sweep.png`` of a bag's ``SonarPoint`` messages into ``out_dir``.

    Reads the bag with rosbags alone (no ROS), from the definitions the bag carries. The topic
    is ``topic`` or the ``SonarPoint`` topic with the most messages. The profile is that of the
    last ping nearest azimuth 0 (``plots.profile_ping``); the sweep takes the pings with the
    last ping's bins, as a fan when their azimuths differ, else as an echogram over their header
    stamps. ``out_dir`` defaults to the bag. ``db_window`` (low, high dB): float32 raw pings'
    waterfalls in mono8 over it, as the node's ``image_db_min..image_db_max`` (default: over
    60 dB below the strongest pixel). ``side_by_side``: the pictures of two image topics
    side by side (``SideBySide``); ConfigurationError if a topic holds no image or the two
    differ in height or encoding.
    """
    bag_path = Path(bag_path)
    out = Path(out_dir) if out_dir is not None else bag_path
    bag = _read_bag(bag_path, topic)
    drawn: dict[str, Any] = {
        'multibeam_topic': bag.fan_topic,
        'multibeam': _draw_multibeam(out, bag.fan),
    }
    images = bag.images
    drawn['images'] = tuple(_draw_image(out, t, m) for t, m in images.items() if m is not None)
    drawn['images'] += tuple(
        _draw_raw(out, t, w, db_window) for t, w in bag.raws.items() if w.pings
    )
    drawn['images'] += tuple(_draw_side_by_side(out, pair, images) for pair in side_by_side)
    if bag.chosen is None:
        return Report(topic, 0, None, None, None, **drawn)
    with_profiles = [p for p in bag.pings if len(p.profile)]
    if not with_profiles:
        return Report(bag.chosen, len(bag.pings), None, None, None, **drawn)
    out.mkdir(parents=True, exist_ok=True)
    profile_png = _draw_profile(out, bag.chosen, with_profiles)
    sweep_png, kind = _draw_sweep(out, bag.chosen, with_profiles)
    return Report(bag.chosen, len(bag.pings), profile_png, sweep_png, kind, **drawn)


class _BagContents(NamedTuple):
    """What ``draw_report`` draws, read from a bag.

    Attributes:
        chosen: the ``SonarPoint`` topic drawn, or None (none in the bag).
        pings: its messages, in bag order.
        fan_topic: the ``MultibeamPing`` topic with the most messages, or None.
        fan: its last message, or None.
        images: the last ``Image`` of each image topic.
        raws: the raw waterfall of each ``RawSonarImage`` topic.
    """

    chosen: str | None
    pings: list[Any]
    fan_topic: str | None
    fan: Any
    images: dict[str, Any]
    raws: dict[str, Any]


def _read_bag(bag_path: Path, topic: str | None) -> _BagContents:
    """The messages ``draw_report`` draws (its docstring says which)."""
    with AnyReader([bag_path], default_typestore=make_typestore()) as reader:
        candidates = [
            c for c in reader.connections if c.msgtype == SONAR_POINT and topic in {None, c.topic}
        ]
        chosen = max(candidates, key=lambda c: (c.msgcount, c.topic)).topic if candidates else None
        pings: list[Any] = [
            reader.deserialize(raw, c.msgtype)
            for c, _, raw in reader.messages(
                connections=[c for c in candidates if c.topic == chosen]
            )
        ]
        fans = [c for c in reader.connections if c.msgtype == MULTIBEAM_PING]
        fan_topic = max(fans, key=lambda c: (c.msgcount, c.topic)).topic if fans else None
        fan = _last(reader, [c for c in fans if c.topic == fan_topic])
        images = {c.topic: _last(reader, [c]) for c in reader.connections if c.msgtype == IMAGE}
        raws = {
            c.topic: _raw_waterfall(reader, c, RAW_WATERFALL_LINES)
            for c in reader.connections
            if c.msgtype == RAW_SONAR_IMAGE
        }
    return _BagContents(chosen, pings, fan_topic, fan, images, raws)


def _draw_multibeam(out: Path, fan: Any) -> Path | None:
    """``multibeam.png``: the last multibeam ping ``fan`` as a fan, or None without one."""
    if fan is None or not len(fan.profiles):
        return None
    out.mkdir(parents=True, exist_ok=True)
    path = out / 'multibeam.png'
    plots.draw_sweep(
        path,
        np.asarray(fan.profiles).reshape(fan.beam_count, fan.bin_count),
        plots.bin_edges(fan.min_range, fan.max_range, fan.bin_count),
        np.asarray(fan.azimuths, dtype=np.float64),
        source_level=float(fan.source_level),
        title='Last multibeam ping',
    )
    return path


def _draw_profile(out: Path, chosen: str, with_profiles: list[Any]) -> Path:
    """``profile.png``: the last ping nearest azimuth 0 (``plots.profile_ping``)."""
    profile_png = out / 'profile.png'
    shown = with_profiles[plots.profile_ping([p.azimuth for p in with_profiles])]
    degrees = round(math.degrees(shown.azimuth), 1) + 0.0  # + 0.0: 0.0, never -0.0
    plots.draw_profile(
        profile_png,
        shown.profile,
        plots.bin_edges(shown.min_range, shown.max_range, len(shown.profile)),
        range_estimate=float(shown.range),
        source_level=float(shown.source_level),
        title=f'Intensity profile on {chosen}, azimuth {degrees} deg',
    )
    return profile_png


def _draw_sweep(out: Path, chosen: str, with_profiles: list[Any]) -> tuple[Path, str]:
    """``sweep.png`` of the pings with the last ping's bins, and its kind (``Report``)."""
    last = with_profiles[-1]
    edges = plots.bin_edges(last.min_range, last.max_range, len(last.profile))
    layout = (last.min_range, last.max_range, len(last.profile))
    same = [p for p in with_profiles if (p.min_range, p.max_range, len(p.profile)) == layout]
    grid = np.stack([p.profile for p in same])
    azimuths = np.array([p.azimuth for p in same], dtype=np.float64)
    sweep_png = out / 'sweep.png'
    if np.ptp(azimuths) > 1e-6:
        plots.draw_sweep(
            sweep_png,
            grid,
            edges,
            azimuths,
            source_level=float(last.source_level),
            title=f'Sweep on {chosen}',
        )
        return sweep_png, 'fan'
    times = np.array([p.header.stamp.sec + 1e-9 * p.header.stamp.nanosec for p in same])
    order = np.argsort(times, kind='stable')
    keep = order[np.concatenate(([True], np.diff(times[order]) > 0.0))]  # one ping per stamp
    plots.draw_echogram(
        sweep_png,
        grid[keep],
        edges,
        times[keep],
        source_level=float(last.source_level),
        title=f'Echogram on {chosen}',
    )
    return sweep_png, 'echogram'


def _last(reader: AnyReader, connections: list[Connection]) -> Any:
    """The last message of ``connections`` (only it deserialized), or None."""
    if not connections:  # (rosbags reads every connection when given none)
        return None
    last = None
    for connection, _, raw in reader.messages(connections=connections):
        last = (connection, raw)
    return None if last is None else reader.deserialize(last[1], last[0].msgtype)


#: Pixel types of the image encodings drawn (little-endian; big-endian ones are swapped).
_IMAGE_TYPES = {'mono8': np.uint8, 'mono16': np.uint16, '32FC1': np.float32}


def _pixels(topic: str, image: Any) -> Any:
    """The (height, width) pixels of a ``sensor_msgs/Image`` (mono8, mono16, 32FC1)."""
    kind = _IMAGE_TYPES.get(image.encoding)
    if kind is None:
        raise ConfigurationError(f'{topic}: cannot draw images of encoding {image.encoding!r}')
    dtype = np.dtype(kind).newbyteorder('>' if image.is_bigendian else '<')
    rows = np.frombuffer(bytes(image.data), dtype=np.uint8).reshape(image.height, image.step)
    return rows[:, : image.width * dtype.itemsize].copy().view(dtype)


def _draw_image(out: Path, topic: str, image: Any) -> Path:
    """``image<topic>.png``: a ``sensor_msgs/Image`` (mono8, mono16, 32FC1) pixel for pixel."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f'image{topic.replace("/", "_")}.png'
    plots.draw_image(path, _pixels(topic, image), image.encoding)
    return path


def _draw_side_by_side(out: Path, pair: SideBySide, images: dict[str, Any]) -> Path:
    """``<pair.name>.png``: the last images of ``pair.left`` and ``pair.right``, a gap between."""
    left, right = images.get(pair.left), images.get(pair.right)
    if left is None or right is None:
        missing = pair.left if left is None else pair.right
        raise ConfigurationError(f'{pair.name}: no image recorded on {missing}')
    if (left.height, left.encoding) != (right.height, right.encoding):
        raise ConfigurationError(
            f'{pair.name}: {pair.left} is {left.height} rows of {left.encoding}, '
            f'{pair.right} {right.height} rows of {right.encoding}: cannot put them side by side'
        )
    pixels = _pixels(pair.left, left)
    gap = np.zeros((pixels.shape[0], SIDE_BY_SIDE_GAP), dtype=pixels.dtype)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f'{pair.name}.png'
    plots.draw_image(path, np.hstack((pixels, gap, _pixels(pair.right, right))), left.encoding)
    return path


#: RawSonarImage dtypes (SonarImageData.DTYPE_*): numpy type and the encoding drawn as.
_RAW_TYPES = {0: ('<u1', 'mono8'), 2: ('<u2', 'mono16'), 4: ('<u4', 'mono16'), 8: ('<f4', '32FC1')}


class RawWaterfall(NamedTuple):
    """A waterfall drawn from raw pings: the image, its encoding and the pings it took."""

    image: Any  # (lines, 2 samples) float32, newest line at row 0 (sensing/waterfall.py)
    encoding: str  # '32FC1' (float32 raw pings: linear), or 'mono8'/'mono16' (dB pixels)
    pings: int  # pings added (rows filled: min(pings, lines))


def raw_waterfall(
    bag_path: str | Path,
    topic: str,
    *,
    lines: int = RAW_WATERFALL_LINES,
    samples: int | None = None,
    until: int | None = None,
) -> RawWaterfall:
    """The waterfall of a two-beam ``RawSonarImage`` topic, as the node draws its own.

    A line per ping, in slant range, port reversed then starboard: the node's ``waterfall``
    with ``ground_range: false`` and ``waterfall_line_spacing: 0`` (``sensing/waterfall.py``,
    the same code), of ``lines`` rows and ``samples`` per side (default the last ping's
    samples per beam). Pings stamped after ``until`` (ns) are left out. The slant-range window
    of each ping is that of the ``RangerData`` on the sibling ``ranger`` topic with the same
    stamp (exact) or the one before it, else ``sample0`` and ``sample_rate`` (the window's
    start rounded to a sample). The raw message carries no altitude nor position, so ground
    range and a line spacing in metres are the recorded ``waterfall``'s alone.
    """
    with AnyReader([Path(bag_path)], default_typestore=make_typestore()) as reader:
        found = [c for c in reader.connections if c.topic == topic]
        if not found or found[0].msgtype != RAW_SONAR_IMAGE:
            raise ConfigurationError(f'{bag_path}: no {RAW_SONAR_IMAGE} topic {topic!r}')
        return _raw_waterfall(reader, found[0], lines, samples, until)


def _windows(reader: AnyReader, topic: str) -> list[tuple[int, tuple[float, float]]]:
    """(stamp ns, (min_range, max_range)) of each ``RangerData`` beside a raw image topic."""
    sibling = topic.rsplit('/', 1)[0] + '/ranger'
    rangers = [c for c in reader.connections if c.topic == sibling and c.msgtype == RANGER_DATA]
    windows = []
    for c, _, raw in reader.messages(connections=rangers) if rangers else ():
        data: Any = reader.deserialize(raw, c.msgtype)
        config = data.config
        windows.append((_nanoseconds(data.header.stamp), (config.min_range, config.max_range)))
    return sorted(windows)


def _window(
    windows: list[tuple[int, tuple[float, float]]], stamp: int, message: Any
) -> tuple[float, float]:
    """The slant-range window of a raw ping, m (``raw_waterfall``).

    Its RangerData's, else the one before (before the first: the first), if that has the
    ping's sample width and start; else from ``sample0`` and ``sample_rate``.
    """
    n = int(message.samples_per_beam)
    width = float(message.ping_info.sound_speed) / (2.0 * float(message.sample_rate))
    start = int(message.sample0) * width
    if windows:
        before = bisect.bisect_right(windows, (stamp, (math.inf, math.inf)))
        low, high = windows[max(before - 1, 0)][1]
        if math.isclose((high - low) / n, width, rel_tol=1e-5) and abs(low - start) <= width:
            return low, high
    return start, start + n * width


def _nanoseconds(stamp: Any) -> int:
    return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)


def _raw_waterfall(
    reader: AnyReader,
    connection: Connection,
    lines: int,
    samples: int | None = None,
    until: int | None = None,
) -> RawWaterfall:
    """``raw_waterfall`` of an open bag's connection; pings of other beam counts are skipped.

    The waterfall starts anew where the window or the dtype changes (as the node's does on a
    new window), so it holds the last run of alike pings.
    """
    windows = _windows(reader, connection.topic)
    pings: list[tuple[Any, tuple[float, float], int]] = []
    for c, _, raw in reader.messages(connections=[connection]):
        message: Any = reader.deserialize(raw, c.msgtype)
        stamp = _nanoseconds(message.header.stamp)
        image, n = message.image, int(message.samples_per_beam)
        if (until is not None and stamp > until) or image.beam_count != 2 or n == 0:
            continue
        if int(image.dtype) not in _RAW_TYPES or len(image.data) != 2 * n * _itemsize(image):
            continue
        pings.append((message, _window(windows, stamp, message), int(image.dtype)))
    if not pings:
        return RawWaterfall(np.zeros((lines, 0), dtype=np.float32), 'mono8', 0)
    last = pings[-1][0]
    waterfall = Waterfall(
        WaterfallConfig(lines=lines, samples=int(samples or last.samples_per_beam))
    )
    count, layout = 0, None
    for message, window, dtype in pings:
        if (window, dtype) != layout:
            waterfall.clear()
            count, layout = 0, (window, dtype)
        profiles = _samples(message).T.astype(np.float64)
        edges = np.linspace(window[0], window[1], profiles.shape[1] + 1)
        waterfall.add(SidescanPing(profiles, edges, math.nan), np.zeros(3))
        count += 1
    return RawWaterfall(waterfall.image(), _RAW_TYPES[pings[-1][2]][1], count)


def _itemsize(image: Any) -> int:
    return np.dtype(_RAW_TYPES[int(image.dtype)][0]).itemsize if image.dtype in _RAW_TYPES else 0


def _samples(message: Any) -> Any:
    """(samples, 2) values of a two-beam raw ping (sample-major, docs/marine.md); uint32: >> 16."""
    image = message.image
    dtype = np.dtype(_RAW_TYPES[int(image.dtype)][0]).newbyteorder(
        '>' if image.is_bigendian else '<'
    )
    data = np.frombuffer(bytes(image.data), dtype=dtype).reshape(-1, 2)
    if dtype.kind == 'u' and dtype.itemsize == 4:  # no 32-bit grey encoding: its high 16 bits
        return data >> 16
    return data


def _draw_raw(
    out: Path, topic: str, waterfall: RawWaterfall, db_window: tuple[float, float] | None
) -> Path:
    """``raw_waterfall<topic>.png``: the filled rows of a raw waterfall, newest at the top.

    Linear (float32) rows in mono8 over ``db_window`` when given (``sensing.images.db_pixels``),
    resampled to be readable (``plots.readable_waterfall``: at most 1000 columns, each a block
    mean; rows repeated up to 4 times while the picture is flatter than 2 : 1).
    """
    rows = waterfall.image[: min(waterfall.pings, waterfall.image.shape[0])]
    encoding = waterfall.encoding
    if encoding == '32FC1' and db_window is not None:
        pixels: Any = db_pixels(rows, DbWindow(db_window[0], db_window[1], 8))
        encoding = 'mono8'
    elif encoding == '32FC1':
        pixels = rows
    else:
        pixels = rows.astype(np.uint8 if encoding == 'mono8' else np.uint16)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f'raw_waterfall{topic.replace("/", "_")}.png'
    plots.draw_image(path, plots.readable_waterfall(pixels), encoding)
    return path
