"""What a minute of each sonar costs on disk: real recordings of a fixed count of pings, scaled.

Each sonar is started as the README's ``scripts/run`` lines start it (the launch files'
configurations, the ``config/*.yaml`` settings), or with the demo's settings where the demo
differs (the multibeam: 128 beams at 5 Hz with its Cartesian image). ``sonar_record``'s
``BagRecorder`` records the node's data topics (every topic it publishes but ``/tf``,
``/tf_static``, ``/rosout``, ``/parameter_events``, ``/diagnostics`` and the ``markers``, which
are display and state; the side-scan's display ``waterfall`` only in its own row, as
``--waterfall`` records it) until ``--pings`` pings of its per-ping topic are written. Then:

* per topic, bytes per message = its serialized messages' mean size plus an equal share per
  message of the rest of the ``.mcap`` file (MCAP records, indexes, schemas, summary: a
  longer recording has slightly less of it per message);
* kB per ping = the sum over the topics of messages x bytes each, over the pings (so a topic
  published once per sweep, or once, counts as often as it came);
* MB per minute = kB per ping x the pings per second the files configure x 60 (1 MB = 1e6
  bytes): what a minute costs where the node keeps its rate. ``achieved`` is the rate of the
  recorded pings' stamps (1 / their median interval), lower where this machine fell behind.

Run: ``scripts/run python benchmarks/recording_size.py [--pings 100] [--only NAME ...]``.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ros_watch import executable

REPOSITORY = Path(__file__).resolve().parents[1]
CONFIG = REPOSITORY / 'config'
#: Topics never recorded here: state, logs and display.
LEFT_OUT = {'/tf', '/tf_static', '/rosout', '/parameter_events', '/diagnostics'}


@dataclass(frozen=True)
class Sonar:
    """A sonar to record: its node, the arguments, its per-ping topic, extra topics kept."""

    name: str
    executable: str
    node: str  # the node's name (-r __node:=)
    arguments: tuple[str, ...]
    per_ping: str  # the topic with one message per ping
    rate: float  # pings per second the files configure (the URDF's update_rate, ...)
    pings: int = 100  # pings recorded at least (more than --pings: a sweep's two turns)
    also: tuple[str, ...] = ()  # display topics recorded in this row all the same


def _files(params: str, robot: str, *more: str) -> tuple[str, ...]:
    return (
        '--params-file',
        str(CONFIG / params),
        '-p',
        f'robot_description_file:={CONFIG / "robots" / robot}',
        *more,
    )


SIDESCAN = _files(
    'sidescan_sonar.yaml',
    'sidescan_sonar.urdf',
    '-p',
    f'scene_file:={CONFIG / "worlds" / "sidescan_survey.sdf"}',
)
SONARS = (
    Sonar('single beam', 'sonar_node', 'sonar', ('--params-file', str(CONFIG / 'sonar.yaml')),
          '/sonar/sonar_point', 15.0),
    Sonar('scanner', 'ranger_node', 'ranger', _files('ranger.yaml', 'ranger_scanner.urdf'),
          '/laser/scan', 40.0),
    Sonar('sweep', 'scanning_sonar_node', 'scanning_sonar',
          _files('scanning_sonar.yaml', 'ranger_scanning_sonar.urdf', '-p', 'mode:=sweep'),
          '/ping360/sonar_point', 1.0 / 0.0108, pings=900),  # a step per 2 x 8 m / c
    Sonar('multibeam', 'scanning_sonar_node', 'scanning_sonar',
          _files('multibeam_sonar.yaml', 'ranger_scanning_sonar.urdf', '-p', 'mode:=multibeam',
                 '-p', 'min_angle:=-0.7853981633974483', '-p', 'max_angle:=0.7853981633974483'),
          '/ping360/multibeam', 10.0),
    Sonar('multibeam (the demo)', 'scanning_sonar_node', 'scanning_sonar',
          _files('multibeam_sonar.yaml', 'ranger_scanning_sonar.urdf', '-p', 'mode:=multibeam',
                 '-p', 'beams:=128', '-p', 'min_angle:=0.5236', '-p', 'max_angle:=2.618',
                 '-p', 'update_rate:=5.0', '-p', 'publish_image:=true',
                 '-p', 'image_resolution:=0.02'),
          '/ping360/multibeam', 5.0),
    Sonar('side-scan', 'scanning_sonar_node', 'scanning_sonar', SIDESCAN,
          '/sidescan/raw_image', 10.0),
    Sonar('side-scan + display waterfall', 'scanning_sonar_node', 'scanning_sonar', SIDESCAN,
          '/sidescan/raw_image', 10.0, also=('/sidescan/waterfall',)),
    Sonar('echosounder', 'scanning_sonar_node', 'scanning_sonar',
          _files('echosounder.yaml', 'echosounder.urdf'), '/mbes/detections', 5.0),
)  # fmt: skip


def _data_topics(node: object, sonar: Sonar, timeout: float = 60.0) -> dict[str, str]:
    """Topic -> type of the node's data topics, once its per-ping topic is published."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            published = dict(node.get_publisher_names_and_types_by_node(sonar.node, '/'))  # type: ignore[attr-defined]
        except Exception:  # NodeNameNonExistentError: not discovered yet
            published = {}
        if sonar.per_ping in published:
            return {
                topic: types[0]
                for topic, types in published.items()
                if topic not in LEFT_OUT
                and not topic.endswith('/markers')
                and (not topic.endswith('/waterfall') or topic in sonar.also)
            }
        time.sleep(0.1)
    sys.exit(f'{sonar.name}: no {sonar.per_ping} from node {sonar.node} in {timeout:g} s')


def _nanoseconds(stamp: object) -> int:
    return int(stamp.sec) * 10**9 + int(stamp.nanosec)  # type: ignore[attr-defined]


class Measured(NamedTuple):
    """A recording's cost: per topic (messages, bytes each), and the pings' achieved rate."""

    topics: dict[str, tuple[int, float]]
    achieved: float  # pings per second: 1 / the median interval of their header stamps


def costs(bag: Path, per_ping: str) -> Measured:
    """Per topic, its messages and bytes per message; the per-ping topic's achieved rate.

    Bytes per message: the topic's serialized messages' mean size plus an equal share per
    message of the rest of the file (MCAP records, chunk indexes, schemas, summary).
    """
    from rosbags.highlevel import AnyReader

    every: dict[str, list[tuple[int | None, int]]] = {}  # topic -> (stamp, bytes) per message
    with AnyReader([bag]) as reader:
        for c, _, raw in reader.messages():
            header = getattr(reader.deserialize(raw, c.msgtype), 'header', None)
            stamp = None if header is None else _nanoseconds(header.stamp)
            every.setdefault(c.topic, []).append((stamp, len(raw)))
    total = sum(f.stat().st_size for f in bag.glob('*.mcap'))
    share = (total - sum(n for v in every.values() for _, n in v)) / sum(map(len, every.values()))
    stamps = sorted(t for t, _ in every[per_ping] if t is not None)
    gaps = [b - a for a, b in itertools.pairwise(stamps) if b > a]
    topics = {}
    for topic, messages in every.items():  # those stamped within the pings' span
        kept = [n for t, n in messages if t is None or stamps[0] <= t <= stamps[-1]]
        if kept:
            topics[topic] = (len(kept), sum(kept) / len(kept) + share)
    return Measured(topics, 1e9 / statistics.median(gaps))


def _spin(executor: object, stop: threading.Event) -> None:
    while not stop.is_set():
        executor.spin_once(timeout_sec=0.05)  # type: ignore[attr-defined]


def measure(sonar: Sonar, pings: int, directory: Path) -> Measured:
    """Record ``pings`` pings of ``sonar`` (at least ``sonar.pings``); ``costs`` of its bag."""
    import rclpy
    from rclpy.executors import SingleThreadedExecutor

    from nps_sonar_py.ros.recorder import BagRecorder, TopicSpec

    command = [executable(sonar.executable), '--ros-args', '-r', f'__node:={sonar.node}',
               *sonar.arguments, '--log-level', 'warn']  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    bag = directory / sonar.name.replace(' ', '_').replace('(', '').replace(')', '')
    try:
        watcher = rclpy.create_node('recording_size_watch')
        topics = _data_topics(watcher, sonar)
        watcher.destroy_node()
        recorder = BagRecorder(bag, [TopicSpec(t, m) for t, m in sorted(topics.items())])
        executor = SingleThreadedExecutor()
        executor.add_node(recorder.node)
        stop = threading.Event()
        thread = threading.Thread(target=_spin, args=(executor, stop), daemon=True)
        thread.start()
        while recorder.counts().get(sonar.per_ping, 0) < max(pings, sonar.pings):
            if process.poll() is not None:
                sys.exit(f'{sonar.name}: the node exited with {process.returncode}')
            time.sleep(0.05)
        stop.set()
        thread.join()
        executor.shutdown()
        recorder.close()
    finally:
        process.send_signal(2)
        process.wait(timeout=30)
    return costs(bag, sonar.per_ping)


def main() -> None:
    """Record each sonar and print its bytes per ping and MB per minute."""
    import rclpy

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--pings', type=int, default=100)
    parser.add_argument('--only', nargs='+', metavar='NAME', help='these sonars (the names below)')
    options = parser.parse_args()
    rclpy.init()
    print(f'{"sonar":30s} {"pings":>6s} {"kB/ping":>8s} {"pings/s":>7s} {"MB/min":>7s}  '
          f'{"achieved":>8s}  topic: messages, kB each', flush=True)  # fmt: skip
    try:
        with tempfile.TemporaryDirectory() as directory:
            for sonar in SONARS:
                if options.only and sonar.name not in options.only:
                    continue
                measured = measure(sonar, options.pings, Path(directory))
                count = measured.topics[sonar.per_ping][0]
                per_ping = sum(n * size for n, size in measured.topics.values()) / count
                minute = per_ping * sonar.rate * 60.0
                detail = '; '.join(
                    f'{t}: {n}, {size / 1e3:.2f}'
                    for t, (n, size) in sorted(measured.topics.items())
                )
                print(f'{sonar.name:30s} {count:6d} {per_ping / 1e3:8.2f} {sonar.rate:7.1f} '
                      f'{minute / 1e6:7.2f}  {measured.achieved:8.1f}  {detail}',
                      flush=True)  # fmt: skip
    finally:
        rclpy.try_shutdown()


if __name__ == '__main__':
    main()
