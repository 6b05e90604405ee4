"""The demo's towfish and rate monitor: tows side-scans, counts what every sonar publishes.

``python -m nps_sonar_py.ros.demo_tow --sidescan SENSOR... [--fan TOPIC...] [--recorded
TOPIC...] [--duration S]``, run by ``scripts/demo --sidescan`` and ``--coherent``. It publishes
the towfish's odometry (``odom -> base_link`` on ``/odom``) at 20 Hz, 10 m above the seabed: at
``x = -50 m`` (the side-scans' ``robot_pose`` in ``scripts/demo``) until every side-scan's first
raw ping has come (its node has loaded the world) and every ``--recorded`` topic has a
subscriber besides this one (the recorder: it misses no ping of the tow), then along +x at
2.5 m/s, but never more than :data:`PING_STEP` (a ping's worth at 10 Hz) past the position of
the slowest side-scan's last ping: a side-scan that falls behind slows the tow, so its
waterfall gets a line every ``waterfall_line_spacing`` all the same. Once a second it prints
what it waits for, or the towfish's x, the waterfall lines received per side-scan and the
pings per second each sonar achieved over the last second (a side-scan's raw pings, a fan's
images on ``--fan`` image topics); on stop, the distance towed, its mean speed and each
sonar's pings per second over the whole tow. ``--duration`` stops it that many seconds after
the tow started (the sonars' start-up is not counted), with status 1 if a sonar sent nothing
(a side-scan no waterfall line, a fan no image) or nothing came within ``--wait`` s; SIGINT
or SIGTERM stops it at any time. A bad argument or topic name is one line and status 2.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import rclpy
from marine_acoustic_msgs.msg import RawSonarImage
from nav_msgs.msg import Odometry
from rclpy.node import Node
from rclpy.qos import qos_profile_sensor_data
from sensor_msgs.msg import Image

from nps_sonar_py.ros.startup import OneLineParser, run_tool, tool_options

__all__ = ['ALTITUDE', 'PING_STEP', 'SPEED', 'START', 'Counter', 'DemoTow', 'main']

START = -50.0  # m, x where the tow starts
SPEED = 2.5  # m/s along +x
ALTITUDE = 10.0  # m above the seabed (z = 0)
PERIOD = 0.05  # s between odometry messages
#: The farthest the towfish goes past the slowest side-scan's last ping, m: a ping every
#: 0.25 m, as at config/sidescan_sonar.yaml's 10 pings/s and SPEED.
PING_STEP = 0.25


@dataclass
class Counter:
    """Messages of one topic: how many, in all and at the last report."""

    count: int = 0
    reported: int = 0

    def add(self, _: object) -> None:
        """Count a message (raw bytes: nothing is deserialized)."""
        self.count += 1

    def since_report(self) -> int:
        """Messages since the last call."""
        count, self.reported = self.count - self.reported, self.count
        return count


class DemoTow(Node):
    """Tows the side-scans along +x once they all ping; counts every sonar's messages."""

    def __init__(self, sidescans: list[str], fans: list[str], recorded: list[str]) -> None:
        super().__init__('demo_tow')
        self.odometry = self.create_publisher(Odometry, '/odom', 10)
        self.pings: dict[str, Counter] = {}  # per sonar: what its rate counts
        self.sent: dict[str, Counter] = {}  # per sonar: what it must send
        self.lines: list[Counter] = []
        for sensor in sidescans:
            self.pings[sensor], lines = Counter(), Counter()
            self._count(RawSonarImage, f'{sensor}/raw_image', self.pings[sensor])
            self._count(Image, f'{sensor}/waterfall', lines)
            self.sent[sensor] = lines
            self.lines.append(lines)
        for topic in fans:
            self.pings[topic] = self.sent[topic] = Counter()
            self._count(Image, topic, self.pings[topic])
        self._names = list(sidescans)
        self._recorded = [self.resolve_topic_name(topic) for topic in recorded]
        self.moving_since: float | None = None  # time.monotonic() the tow started
        self._at_start: dict[str, int] = {}  # each sonar's count when the tow started
        self.x = START
        self._last_report = time.monotonic()
        steady = rclpy.clock.Clock(clock_type=rclpy.clock.ClockType.STEADY_TIME)
        self.create_timer(PERIOD, self._tow, clock=steady)

    def _count(self, message_type: type, topic: str, counter: Counter) -> None:
        self.create_subscription(
            message_type, topic, counter.add, qos_profile_sensor_data, raw=True
        )

    def waiting_for(self) -> list[str]:
        """What the tow waits for: the silent side-scans, then the unrecorded topics."""
        silent = [name for name in self._names if not self.pings[name].count]
        unrecorded = [t for t in self._recorded if self.count_subscribers(t) < 2]
        return silent + [f'the recorder on {t}' for t in unrecorded]

    def rates(self) -> str:
        """``<sonar> <pings/s>, ...`` of every sonar over the tow so far (0 before it)."""
        elapsed = time.monotonic() - self.moving_since if self.moving_since else 0.0
        return ', '.join(
            f'{name} {(c.count - self._at_start[name]) / elapsed if elapsed > 0 else 0.0:.1f}'
            for name, c in self.pings.items()
        )

    def summary(self) -> str:
        """The distance towed, its mean speed and the rates over the tow."""
        if self.moving_since is None:
            return 'not towed: the sonars did not start'
        elapsed = time.monotonic() - self.moving_since
        towed = self.x - START
        return (
            f'towed {towed:.1f} m in {elapsed:.1f} s ({towed / max(elapsed, 1e-9):.2f} m/s of '
            f'{SPEED} asked); achieved pings/s over the tow: {self.rates()}'
        )

    def silent(self) -> list[str]:
        """The sonars that sent nothing yet."""
        return [name for name, counter in self.sent.items() if not counter.count]

    def _tow(self) -> None:
        now = time.monotonic()
        if self.moving_since is None and not self.waiting_for():
            self.moving_since = now
            self._at_start = {name: c.count for name, c in self.pings.items()}
            for counter in self.pings.values():  # the first second's rates: the tow's
                counter.since_report()
            self._last_report = now
        was = self.x
        if self.moving_since is not None:
            pinged = min(self.pings[name].count - self._at_start[name] for name in self._names)
            self.x = START + min(SPEED * (now - self.moving_since), PING_STEP * (pinged + 1))
        message = Odometry()
        message.header.stamp = self.get_clock().now().to_msg()
        message.header.frame_id, message.child_frame_id = 'odom', 'base_link'
        message.pose.pose.position.x = self.x
        message.pose.pose.position.z = ALTITUDE
        message.pose.pose.orientation.w = 1.0
        message.twist.twist.linear.x = (self.x - was) / PERIOD  # as towed: slowed, or still
        self.odometry.publish(message)
        if now - self._last_report >= 1.0:
            self._report(now)

    def _report(self, now: float) -> None:
        elapsed, self._last_report = now - self._last_report, now
        if self.moving_since is None:
            print(f'waiting for {", ".join(self.waiting_for())}', flush=True)
            return
        lines = ', '.join(str(c.count) for c in self.lines)
        rates = ', '.join(
            f'{name} {c.since_report() / elapsed:.1f}' for name, c in self.pings.items()
        )
        print(
            f'towfish at x = {self.x:6.1f} m, waterfall lines received {lines}; pings/s {rates}',
            flush=True,
        )


def main(args: list[str] | None = None) -> int:
    """Tow and count until a signal or ``--duration``; the exit status."""
    parser = OneLineParser(prog='demo_tow', description=__doc__.splitlines()[0])
    parser.add_argument('--sidescan', nargs='+', required=True, metavar='SENSOR')
    parser.add_argument('--fan', nargs='+', default=[], metavar='IMAGE_TOPIC')
    parser.add_argument(
        '--recorded',
        nargs='+',
        default=[],
        metavar='TOPIC',
        help='topics a recorder must subscribe to before the tow starts',
    )
    options = tool_options(parser, args)
    status, tow = run_tool(
        lambda: DemoTow(options.sidescan, options.fan, options.recorded),
        options,
        args,
        lambda t: t.moving_since,
    )
    if tow is None:
        return status
    print(tow.summary(), flush=True)
    silent = tow.silent()
    if silent and options.duration > 0:
        print(f'nothing received from {", ".join(silent)}', flush=True)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
