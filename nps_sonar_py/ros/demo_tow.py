"""The demo's towfish and rate monitor: tows side-scans, counts what every sonar publishes.

``python -m nps_sonar_py.ros.demo_tow --sidescan SENSOR... [--fan TOPIC...] [--duration S]``,
run by ``scripts/demo --sidescan`` and ``--coherent``. It publishes the towfish's odometry
(``odom -> base_link`` on ``/odom``) at 20 Hz, 10 m above the seabed: at ``x = -50 m`` (the
side-scans' ``robot_pose`` in ``scripts/demo``) until every side-scan's first raw ping has come
(its node has loaded the world; a ping comes every period, where the waterfall's first line,
published before this subscription may have matched, can be missed and a towfish that waited
for it would never move), then along +x at 2.5 m/s. Once a second it prints the towfish's x,
the waterfall lines received per side-scan and the pings per second each sonar achieved (a
side-scan's raw pings, a fan's images on ``--fan`` image topics), and the rates again on
stop. ``--duration`` stops it after that many seconds, with status 1 if a sonar sent nothing
(a side-scan no waterfall line, a fan no image); SIGINT or SIGTERM stops it at any time. A
bad argument or topic name is one line and status 2.
"""

from __future__ import annotations

import math
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

__all__ = ['ALTITUDE', 'SPEED', 'START', 'Counter', 'DemoTow', 'main']

START = -50.0  # m, x where the tow starts
SPEED = 2.5  # m/s along +x
ALTITUDE = 10.0  # m above the seabed (z = 0)
PERIOD = 0.05  # s between odometry messages


@dataclass
class Counter:
    """Messages of one topic: how many, the first and the last arrival (monotonic s)."""

    count: int = 0
    first: float = 0.0
    last: float = 0.0

    def add(self, _: object) -> None:
        """Count a message (raw bytes: nothing is deserialized) at its arrival time."""
        now = time.monotonic()
        if not self.count:
            self.first = now
        self.count += 1
        self.last = now

    def rate(self) -> float:
        """Messages per second between the first and the last; 0 before the second."""
        if self.count < 2 or self.last <= self.first:
            return 0.0
        return (self.count - 1) / (self.last - self.first)


class DemoTow(Node):
    """Tows the side-scans along +x once they all ping; counts every sonar's messages."""

    def __init__(self, sidescans: list[str], fans: list[str]) -> None:
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
        self._sidescans = [self.pings[sensor] for sensor in sidescans]
        self._moving_since = math.nan
        self._last_report = time.monotonic()
        steady = rclpy.clock.Clock(clock_type=rclpy.clock.ClockType.STEADY_TIME)
        self.create_timer(PERIOD, self._tow, clock=steady)

    def _count(self, message_type: type, topic: str, counter: Counter) -> None:
        self.create_subscription(
            message_type, topic, counter.add, qos_profile_sensor_data, raw=True
        )

    def rates(self) -> str:
        """``<sonar> <pings/s>, ...`` of every sonar."""
        return ', '.join(f'{name} {c.rate():.1f}' for name, c in self.pings.items())

    def silent(self) -> list[str]:
        """The sonars that sent nothing yet."""
        return [name for name, counter in self.sent.items() if not counter.count]

    def _tow(self) -> None:
        now = time.monotonic()
        if math.isnan(self._moving_since) and all(c.count for c in self._sidescans):
            self._moving_since = now
        moving = not math.isnan(self._moving_since)
        message = Odometry()
        message.header.stamp = self.get_clock().now().to_msg()
        message.header.frame_id, message.child_frame_id = 'odom', 'base_link'
        message.pose.pose.position.x = START + (
            SPEED * (now - self._moving_since) if moving else 0.0
        )
        message.pose.pose.position.z = ALTITUDE
        message.pose.pose.orientation.w = 1.0
        message.twist.twist.linear.x = SPEED
        self.odometry.publish(message)
        if now - self._last_report >= 1.0:
            self._last_report = now
            lines = ', '.join(str(c.count) for c in self.lines)
            print(
                f'towfish at x = {message.pose.pose.position.x:6.1f} m, waterfall lines '
                f'received {lines}; pings/s {self.rates()}',
                flush=True,
            )


def main(args: list[str] | None = None) -> int:
    """Tow and count until a signal or ``--duration``; the exit status."""
    parser = OneLineParser(prog='demo_tow', description=__doc__.splitlines()[0])
    parser.add_argument('--sidescan', nargs='+', required=True, metavar='SENSOR')
    parser.add_argument('--fan', nargs='+', default=[], metavar='IMAGE_TOPIC')
    options = tool_options(parser, args)
    status, tow = run_tool(lambda: DemoTow(options.sidescan, options.fan), options.duration, args)
    if tow is None:
        return status
    print(f'achieved pings/s: {tow.rates()}', flush=True)
    silent = tow.silent()
    if silent and options.duration > 0:
        print(f'nothing received from {", ".join(silent)}', flush=True)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
