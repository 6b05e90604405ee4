"""Record what a sonar publishes to a ROS 2 bag in MCAP, then draw its pictures (``bag_report``).

``ros2 run nps_sonar sonar_record OUTPUT_DIR [--topics TOPIC[:TYPE] ...] [--sidescan SENSOR
[--waterfall] [--xtf]] [--oculus SENSOR] [--gsf SENSOR] [--side-by-side NAME LEFT RIGHT]
[--duration S]`` writes the bag directory
``OUTPUT_DIR`` (``metadata.yaml`` and
``<name>.mcap``, the layout of ``ros2 bag record -s mcap -o OUTPUT_DIR``) with rosbags, then
draws the pictures of ``ros/bag_report.py`` next to the ``.mcap``: ``profile.png`` and
``sweep.png`` of the ``SonarPoint``s, ``multibeam.png``, an ``image<topic>.png`` per image topic
and a ``raw_waterfall<topic>.png`` per side-scan raw image topic, as far as it holds them, and
per ``--side-by-side NAME LEFT RIGHT`` ``NAME.png``: the last images of two image topics side by
side (``scripts/demo --coherent``: an incoherent sonar beside its coherent twin).
The defaults record ``/sonar/range``, ``/sonar/scan`` and ``/sonar/sonar_point``;
``--sidescan SENSOR`` records a side-scan's data instead (``sidescan_topics``: its raw pings and
its ``RangerData``, from which the report draws the waterfall), leaving out its display
``waterfall`` image, which republishes every line at each new one, unless ``--waterfall``. It
stops after ``--duration`` seconds or on SIGINT/SIGTERM, closing the bag cleanly.
``--xtf`` (with ``--sidescan``), ``--oculus SENSOR`` (a fan) and ``--gsf SENSOR`` (an
echosounder) also record what the field's files need and write them next to the ``.mcap``:
``sidescan.xtf``, ``oculus.raw`` and ``soundings.gsf`` (``ros/bag_formats.py``; the nodes'
display chains make the device-encoded images, ``docs/display.md``).

As ``ros2 bag record`` does, a topic is subscribed once a publisher of it is seen: with the
publisher's type when ``TYPE`` is left out, reliable only if every publisher is, and with the
publishers' QoS written to the bag for replay. Messages are written serialized as received,
stamped with their receive time on the node's clock (simulated time under ``use_sim_time``).
Each topic's message definition goes into the bag (rosbags' type store of the ROS distribution,
plus this package's ``msg/*.msg``), so the bag reads without ROS. ``--redraw`` draws the
pictures of an existing bag again, without ROS: only rclpy-free code runs before recording.
The pictures are drawn by ``ros/bag_report.py`` (rosbags and ``plots`` only).
"""

from __future__ import annotations

import argparse
import importlib
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from rosbags.highlevel import AnyReaderError
from rosbags.interfaces import (
    Connection,
    Qos,
    QosDurability,
    QosHistory,
    QosLiveliness,
    QosReliability,
    QosTime,
)
from rosbags.rosbag2 import ReaderError, StoragePlugin, Writer, WriterError
from rosbags.typesys import get_types_from_msg
from rosbags.typesys.store import Typestore

from nps_sonar_py.ament import find_installed
from nps_sonar_py.errors import ConfigurationError, NpsSonarError, error_line
from nps_sonar_py.ros.startup import (
    OneLineParser,
    bad_input,
    catch_signals,
    init_rclpy,
    rcl_error,
    seconds,
    spin_until_shutdown,
)

if TYPE_CHECKING:
    from rclpy.context import Context
    from rclpy.node import Node
    from rclpy.topic_endpoint_info import TopicEndpointInfo

    from nps_sonar_py.ros.bag_formats import FormatExports
    from nps_sonar_py.ros.bag_report import Report, SideBySide

__all__ = [
    'BAG_VERSION',
    'DEFAULT_TOPICS',
    'BagRecorder',
    'TopicSpec',
    'main',
    'parse_topic',
    'register_type',
    'sidescan_topics',
]

#: The topics recorded by default, ``name:type``.
DEFAULT_TOPICS = (
    '/sonar/range:sensor_msgs/msg/Range',
    '/sonar/scan:sensor_msgs/msg/LaserScan',
    '/sonar/sonar_point:nps_sonar/msg/SonarPoint',
)
#: rosbag2 metadata version, as the rosbag2 of Jazzy and Kilted writes (QoS profiles as a list).
BAG_VERSION: Final = 9
#: Messages the subscriptions queue before the recorder writes them.
SUBSCRIPTION_DEPTH = 100
DISCOVERY_PERIOD = 0.1  # s, how often new publishers are looked for
# rosbag2's YAML spelling of an infinite QoS duration (RMW_DURATION_INFINITE).
_INFINITE = QosTime(2147483647, 4294967295)
_PACKAGE = 'nps_sonar'


@dataclass(frozen=True)
class TopicSpec:
    """A topic to record and its type (``pkg/msg/Name``); ``None``: its publishers' type."""

    topic: str
    msgtype: str | None = None


def parse_topic(text: str) -> TopicSpec:
    """``/sonar/range:sensor_msgs/msg/Range`` (or ``sensor_msgs/Range``, no type): a TopicSpec."""
    topic, _, msgtype = text.partition(':')
    if not topic:
        raise ConfigurationError(f'topic {text!r}: expected TOPIC[:TYPE]')
    return TopicSpec(topic, normalize_type(msgtype) if msgtype else None)


def sidescan_topics(sensor: str, *, waterfall: bool = False) -> list[TopicSpec]:
    """A side-scan ``sensor``'s topics to record: its raw pings and RangerData (+ waterfall).

    ``<sensor>/raw_image`` holds the data (the report draws the waterfall from it) and
    ``<sensor>/ranger`` its exact range window; ``<sensor>/waterfall`` is the display image,
    ``waterfall_lines`` x 2 ``waterfall_samples`` pixels published whole at every new line.
    """
    base = sensor.rstrip('/')
    if not base:
        raise ConfigurationError(
            f'--sidescan {sensor!r}: expected the sensor name, e.g. /sidescan'
        )
    names = [
        f'{base}/raw_image:marine_acoustic_msgs/msg/RawSonarImage',
        f'{base}/ranger:nps_sonar/msg/RangerData',
    ]
    if waterfall:
        names.append(f'{base}/waterfall:sensor_msgs/msg/Image')
    return [parse_topic(name) for name in names]


def normalize_type(name: str) -> str:
    """``pkg/msg/Name`` of ``pkg/msg/Name`` or ``pkg/Name``; ConfigurationError otherwise."""
    parts = name.split('/')
    if len(parts) == 2:
        parts.insert(1, 'msg')
    if len(parts) != 3 or parts[1] != 'msg' or not all(parts):
        raise ConfigurationError(f'message type {name!r}: expected pkg/msg/Name')
    return '/'.join(parts)


def message_class(msgtype: str) -> Any:
    """The generated Python class of ``pkg/msg/Name`` (its package must be built and sourced)."""
    package, _, name = normalize_type(msgtype).split('/')
    try:
        return getattr(importlib.import_module(f'{package}.msg'), name)
    except (ImportError, AttributeError):
        msg = f'message type {msgtype!r} is not installed (is its workspace sourced?)'
        raise ConfigurationError(msg) from None


def msg_directory(package: str) -> Path | None:
    """``share/<package>/msg`` of the first prefix with it (this package: else ``msg/``)."""
    installed = find_installed(f'share/{package}/msg')
    if installed is not None:
        return installed
    source = Path(__file__).resolve().parents[2] / 'msg'
    return source if package == _PACKAGE and source.is_dir() else None


def register_type(typestore: Typestore, msgtype: str) -> None:
    """Make ``msgtype`` known to ``typestore``, registering its package's ``.msg`` files."""
    if msgtype in typestore.fielddefs:
        return
    package = msgtype.split('/')[0]
    directory = msg_directory(package)
    if directory is None:
        msg = f'no definition of {msgtype}: share/{package}/msg is in no AMENT_PREFIX_PATH prefix'
        raise ConfigurationError(msg)
    types: dict[str, Any] = {}
    for path in sorted(directory.glob('*.msg')):
        types.update(get_types_from_msg(path.read_text(), f'{package}/msg/{path.stem}'))
    typestore.register(types)
    if msgtype not in typestore.fielddefs:
        raise ConfigurationError(f'no definition of {msgtype} in {directory}')


class BagRecorder:
    """Records topics into a new MCAP bag through a node of its own; ``close()`` finishes the bag.

    The caller spins ``node`` (on the context it was made with) and calls ``close`` once.
    Subscriptions are made when publishers appear (checked every DISCOVERY_PERIOD s).
    """

    def __init__(
        self,
        path: str | Path,
        topics: Sequence[TopicSpec],
        *,
        node_name: str = 'sonar_record',
        context: Context | None = None,
    ) -> None:
        import rclpy
        from rclpy.clock import Clock, ClockType

        # The report's module (matplotlib and all) only once the arguments are good.
        from nps_sonar_py.ros.bag_report import make_typestore

        self.path = Path(path)
        self.typestore = make_typestore()
        for spec in topics:
            if spec.msgtype is not None:
                message_class(spec.msgtype)
                register_type(self.typestore, spec.msgtype)
        self.node: Node = rclpy.create_node(node_name, context=context)
        self.connections: dict[str, Connection] = {}
        self.writer = Writer(self.path, version=BAG_VERSION, storage_plugin=StoragePlugin.MCAP)
        try:  # the names first: a bad one leaves no bag behind
            self._pending = {self._resolve(s.topic): s.msgtype for s in topics}
            self.writer.open()
        except BaseException:
            self.node.destroy_node()
            raise
        self._timer = self.node.create_timer(
            DISCOVERY_PERIOD,
            self._discover,
            clock=Clock(clock_type=ClockType.STEADY_TIME),
        )
        self._closed = False

    def _resolve(self, topic: str) -> str:
        """The full name of ``topic``; ConfigurationError if it is no valid topic name."""
        try:
            return self.node.resolve_topic_name(topic)
        except rcl_error() as error:
            raise ConfigurationError(f'topic {topic!r}: {error_line(error)}') from None

    def counts(self) -> dict[str, int]:
        """Messages written so far per topic."""
        return {topic: self.writer.counts[c.id] for topic, c in self.connections.items()}

    def _discover(self) -> None:
        for topic, msgtype in list(self._pending.items()):
            publishers = self.node.get_publishers_info_by_topic(topic)
            if publishers:
                self._subscribe(topic, msgtype, publishers)

    def _subscribe(
        self, topic: str, msgtype: str | None, publishers: list[TopicEndpointInfo]
    ) -> None:
        from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

        offered = {normalize_type(p.topic_type) for p in publishers}
        log = self.node.get_logger()
        if msgtype is None:
            if len(offered) != 1:
                log.warning(
                    f'{topic}: publishers disagree on its type {sorted(offered)}; waiting',
                    once=True,
                )
                return
            msgtype = offered.pop()
        elif msgtype not in offered:
            log.warning(
                f'{topic}: publishers offer {sorted(offered)}, not {msgtype}; waiting', once=True
            )
            return
        del self._pending[topic]
        try:
            register_type(self.typestore, msgtype)
            message_type = message_class(msgtype)
        except ConfigurationError as error:
            log.error(f'{topic}: not recorded: {error}')
            return
        digest = self.typestore.hash_rihs01(msgtype)
        for p in publishers:
            if str(p.topic_type_hash) not in {digest, 'INVALID'}:
                log.warning(
                    f'{topic}: {p.node_name} publishes {msgtype} hashed {p.topic_type_hash}, '
                    'but the bag '
                    f'records the definition hashed {digest}; readers may misread it',
                )
        connection = self.writer.add_connection(
            topic,
            msgtype,
            typestore=self.typestore,
            offered_qos_profiles=[_bag_qos(p.qos_profile) for p in publishers],
        )
        self.connections[topic] = connection
        qos = QoSProfile(
            history=HistoryPolicy.KEEP_LAST,
            depth=SUBSCRIPTION_DEPTH,
            reliability=ReliabilityPolicy.RELIABLE
            if all(p.qos_profile.reliability == ReliabilityPolicy.RELIABLE for p in publishers)
            else ReliabilityPolicy.BEST_EFFORT,
            durability=DurabilityPolicy.TRANSIENT_LOCAL
            if all(
                p.qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL for p in publishers
            )
            else DurabilityPolicy.VOLATILE,
        )
        clock = self.node.get_clock()
        first = [True]

        def write(data: bytes) -> None:
            self.writer.write(connection, clock.now().nanoseconds, data)
            if first[0]:  # the publisher has matched: data flows (a test waits on this line)
                first[0] = False
                log.info(f'{topic}: first message written')

        self.node.create_subscription(message_type, topic, write, qos, raw=True)
        log.info(f'recording {topic} ({msgtype}, {qos.reliability.name.lower()})')

    def close(self) -> None:
        """Stop receiving and finish the bag (metadata.yaml and the MCAP summary); idempotent."""
        if self._closed:
            return
        self._closed = True
        self.node.destroy_node()
        self.writer.close()


def _bag_qos(profile: Any) -> Qos:
    """An rclpy QoSProfile as rosbags' Qos (the enums share their values)."""

    def duration(value: Any) -> QosTime:
        sec, nsec = divmod(int(value.nanoseconds), 10**9)
        return _INFINITE if sec >= _INFINITE.sec else QosTime(sec, nsec)

    return Qos(
        history=QosHistory(int(profile.history)),
        depth=int(profile.depth),
        reliability=QosReliability(int(profile.reliability)),
        durability=QosDurability(int(profile.durability)),
        deadline=duration(profile.deadline),
        lifespan=duration(profile.lifespan),
        liveliness=QosLiveliness(int(profile.liveliness)),
        liveliness_lease_duration=duration(profile.liveliness_lease_duration),
        avoid_ros_namespace_conventions=bool(profile.avoid_ros_namespace_conventions),
    )


def _strip_ros_args(argv: Sequence[str]) -> list[str]:
    """``argv`` without its ``--ros-args ... [--]`` sections (as rclpy's remove_ros_args)."""
    kept: list[str] = []
    inside = False
    for arg in argv:
        if arg == '--ros-args':
            inside = True
        elif inside and arg == '--':
            inside = False
        elif not inside:
            kept.append(arg)
    return kept


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog='sonar_record',
        description=__doc__.splitlines()[0],
        epilog='The bag reads without ROS with rosbags (docs/recording.md).',
    )
    parser.add_argument('output', type=Path, help='the bag directory to create (must not exist)')
    parser.add_argument(
        '--topics',
        nargs='+',
        metavar='TOPIC[:TYPE]',
        default=None,
        help="topics to record, with pkg/msg/Name types or none (the publishers'); "
        f'default (without --sidescan): {" ".join(DEFAULT_TOPICS)}',
    )
    parser.add_argument(
        '--sidescan',
        metavar='SENSOR',
        help='record the side-scan SENSOR (e.g. /sidescan): its raw_image and ranger topics, '
        'instead of the default topics (beside any --topics given)',
    )
    parser.add_argument(
        '--waterfall',
        action='store_true',
        help='with --sidescan: record its display waterfall image too (the whole image at '
        'every new line: 0.4 MB a line at the demo settings)',
    )
    parser.add_argument(
        '--xtf',
        action='store_true',
        help='with --sidescan: record its display_line too (it needs display set on the node) '
        'and write OUTPUT/sidescan.xtf',
    )
    parser.add_argument(
        '--oculus',
        metavar='SENSOR',
        help="record the fan SENSOR's display_image and multibeam and write OUTPUT/oculus.raw "
        '(Oculus simple ping results)',
    )
    parser.add_argument(
        '--gsf',
        metavar='SENSOR',
        help="record the echosounder SENSOR's soundings and write OUTPUT/soundings.gsf",
    )
    parser.add_argument(
        '--db-window',
        nargs=2,
        type=float,
        metavar=('LOW', 'HIGH'),
        help="draw float32 raw pings' waterfalls in mono8 over LOW..HIGH dB (the node's "
        'image_db_min, image_db_max); default: 60 dB below the strongest pixel',
    )
    parser.add_argument(
        '--side-by-side',
        nargs=3,
        action='append',
        default=[],
        metavar=('NAME', 'LEFT', 'RIGHT'),
        help='also draw NAME.png: the last image of the image topic LEFT beside that of RIGHT '
        '(both recorded; the same height and encoding)',
    )
    parser.add_argument(
        '--duration',
        type=seconds,
        default=0.0,
        help='stop after this many seconds (0: on SIGINT or SIGTERM)',
    )
    parser.add_argument(
        '--redraw',
        action='store_true',
        help='only draw the pictures of the existing bag OUTPUT (needs no ROS)',
    )
    return parser


def _print_report(report: Report) -> None:
    if report.multibeam is not None:
        print(f'drew {report.multibeam} (last ping on {report.multibeam_topic})', flush=True)
    for image in report.images:
        print(f'drew {image}', flush=True)
    if report.profile is None:
        if report.multibeam is None and not report.images:
            where = f' on {report.topic}' if report.topic else ''
            print(f'no SonarPoint profile recorded{where}; no pictures', flush=True)
        return
    print(
        f'drew {report.profile} and {report.sweep} ({report.sweep_kind} of {report.pings} pings '
        f'on {report.topic})',
        flush=True,
    )


def _db_window(options: argparse.Namespace) -> tuple[float, float] | None:
    """``--db-window`` as (low, high); ConfigurationError unless finite with low < high."""
    window = options.db_window
    if window is None:
        return None
    low, high = window
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ConfigurationError(f'--db-window {low:g} {high:g}: expected finite LOW < HIGH')
    return (low, high)


def _side_by_side(options: argparse.Namespace) -> tuple[SideBySide, ...]:
    """``--side-by-side`` as SideBySide; ConfigurationError for a NAME that is no file name."""
    if not options.side_by_side:
        return ()
    from nps_sonar_py.ros.bag_report import SideBySide

    pairs = tuple(SideBySide(*words) for words in options.side_by_side)
    for pair in pairs:
        if not pair.name or pair.name in {'.', '..'} or '/' in pair.name:
            raise ConfigurationError(f'--side-by-side {pair.name!r}: NAME must be a file name')
    return pairs


def _draw(options: argparse.Namespace) -> Report:
    """The report of the bag ``options.output``: ``--db-window``, ``--side-by-side``."""
    from nps_sonar_py.ros.bag_report import draw_report

    return draw_report(
        options.output, db_window=_db_window(options), side_by_side=_side_by_side(options)
    )


def _exports(options: argparse.Namespace) -> FormatExports:
    """The field's files the options ask for (``--xtf``, ``--oculus``, ``--gsf``)."""
    from nps_sonar_py.ros.bag_formats import FormatExports

    if options.xtf and not options.sidescan:
        raise ConfigurationError('--xtf writes the side-scan of --sidescan SENSOR: give it')
    sidescan = options.sidescan if options.xtf else None
    return FormatExports(sidescan=sidescan, oculus=options.oculus, gsf=options.gsf)


def _topic_specs(options: argparse.Namespace) -> list[TopicSpec]:
    """The topics asked for: ``--topics``, ``--sidescan``'s, the exports', else DEFAULT_TOPICS."""
    from nps_sonar_py.ros.bag_formats import format_topics

    if options.waterfall and not options.sidescan:
        raise ConfigurationError('--waterfall records the waterfall of --sidescan SENSOR: give it')
    exported = [f'{topic}:{kind}' for topic, kind in format_topics(_exports(options))]
    topics = options.topics
    if topics is None:
        topics = [] if options.sidescan or exported else list(DEFAULT_TOPICS)
    specs = [parse_topic(t) for t in topics]
    extra = (
        sidescan_topics(options.sidescan, waterfall=options.waterfall) if options.sidescan else []
    )
    extra += [parse_topic(t) for t in exported]
    for spec in extra:
        if spec.topic not in {s.topic for s in specs}:
            specs.append(spec)
    return specs


def _write_exports(options: argparse.Namespace) -> None:
    """Write the field's files the options ask for into the bag; print each one."""
    from nps_sonar_py.ros.bag_formats import write_formats

    for path in write_formats(options.output, _exports(options)):
        print(f'wrote {path}', flush=True)


def main(args: list[str] | None = None) -> int:
    """Entry point of ``ros2 run nps_sonar sonar_record``; the exit status."""
    argv = list(args if args is not None else sys.argv)
    options = _parser().parse_args(_strip_ros_args(argv[1:]))
    if options.redraw:
        try:
            _print_report(_draw(options))
            _write_exports(options)
        except (AnyReaderError, ReaderError, FileNotFoundError) as error:
            return bad_input(f'{options.output}: {error}')
        except NpsSonarError as error:
            return bad_input(error)
        return 0
    try:
        specs = _topic_specs(options)
        _db_window(options)
        _side_by_side(options)
    except NpsSonarError as error:
        return bad_input(error)
    request = catch_signals()
    if request:  # stopped before recording began
        return 0

    import rclpy
    from rclpy.executors import SingleThreadedExecutor

    try:
        init_rclpy(argv)
    except rcl_error() as error:
        return bad_input(error)
    try:
        recorder = BagRecorder(options.output, specs)
    except (NpsSonarError, WriterError) as error:
        rclpy.try_shutdown()
        return bad_input(error)
    except OSError as error:  # the bag's directory cannot be made
        rclpy.try_shutdown()
        return bad_input(
            f'{error.filename or options.output}: cannot write the bag: {error.strerror or error}'
        )
    topics = ', '.join(s.topic for s in specs)
    print(f'recording {topics} into {options.output} (MCAP; Ctrl-C to stop)', flush=True)
    executor = SingleThreadedExecutor()
    executor.add_node(recorder.node)
    deadline = time.monotonic() + options.duration if options.duration > 0 else math.inf
    try:
        spin_until_shutdown(executor, deadline)
    finally:
        counts = recorder.counts()
        executor.shutdown()
        recorder.close()
        rclpy.try_shutdown()
    for topic, count in counts.items():
        print(f'{topic}: {count} messages', flush=True)
    print(f'wrote {options.output} ({sum(counts.values())} messages)', flush=True)
    try:
        _print_report(_draw(options))
        _write_exports(options)
    except NpsSonarError as error:  # e.g. a --side-by-side topic that sent nothing
        return bad_input(error)
    return 0 if sum(counts.values()) or options.duration <= 0 else 1


if __name__ == '__main__':
    sys.exit(main())
