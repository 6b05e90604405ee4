"""Print what a sonar publishes, once a second: its latest reading, echo and achieved rate.

``ros2 run nps_sonar sonar_monitor [sensor] [--duration SECONDS]``: it listens to
``<sensor>/range`` (``sensor_msgs/Range``) and ``<sensor>/sonar_point`` (``SonarPoint``);
the sensor defaults to ``sonar``. It subscribes with the sensor-data QoS, which receives
reliable and best-effort publishers alike (REP 2003). ``--duration`` stops it that
many seconds after the first reading (the sonar's start-up is not counted), or with status 1
if no reading came within ``--wait`` seconds (300); SIGINT or SIGTERM stops it at any time.
A bad argument or topic name is one line on stderr and status 2.
"""

from __future__ import annotations

import math
import sys
import time

import rclpy
from rclpy.node import Node
from rclpy.qos import qos_profile_sensor_data
from sensor_msgs.msg import Range

from nps_sonar.msg import SonarPoint
from nps_sonar_py.ros.startup import OneLineParser, run_tool, tool_options

__all__ = ['SonarMonitor', 'main']


class SonarMonitor(Node):
    """Counts a sonar's ``Range`` messages and prints the latest reading, echo and rate."""

    def __init__(self, sensor: str) -> None:
        super().__init__('sonar_monitor')
        self.latest: Range | None = None
        self.echo: SonarPoint | None = None
        self.total = 0
        self.first: float | None = None  # time.monotonic() of the first reading
        self._window_count = 0
        self._window_start = time.monotonic()
        self.create_subscription(Range, f'{sensor}/range', self._on_range, qos_profile_sensor_data)
        self.create_subscription(
            SonarPoint, f'{sensor}/sonar_point', self._on_echo, qos_profile_sensor_data
        )
        steady = rclpy.clock.Clock(clock_type=rclpy.clock.ClockType.STEADY_TIME)
        self.create_timer(1.0, self._report, clock=steady)
        self.topic = self.resolve_topic_name(f'{sensor}/range')
        print(
            f'listening on {self.topic} and {self.resolve_topic_name(f"{sensor}/sonar_point")} '
            '(Ctrl-C to stop)',
            flush=True,
        )

    def _on_range(self, message: Range) -> None:
        if self.first is None:
            self.first = time.monotonic()
        self.latest = message
        self.total += 1
        self._window_count += 1

    def _on_echo(self, message: SonarPoint) -> None:
        self.echo = message

    def _report(self) -> None:
        now = time.monotonic()
        rate = self._window_count / (now - self._window_start)
        self._window_count, self._window_start = 0, now
        if self.latest is None:
            print(f'{self.topic}: waiting for the sonar', flush=True)
            return
        m = self.latest
        echo = ''
        if self.echo is not None:
            echo = (
                f'echo {self.echo.intensity_db:7.2f} dB (confidence {self.echo.confidence:.2f})  '
            )
        print(
            f'range {_reading(m.range)}  {echo}[{m.min_range:.2f}, {m.max_range:.2f}] m, '
            f'fov {math.degrees(m.field_of_view):.2f} deg, frame "{m.header.frame_id}"  '
            f'{rate:5.1f} Hz',
            flush=True,
        )


def _reading(value: float) -> str:
    if math.isinf(value):
        return '+Inf (nothing in range)' if value > 0 else '-Inf (closer than min)'
    return f'{value:.3f} m'


def main(args: list[str] | None = None) -> int:
    """Entry point of ``ros2 run nps_sonar sonar_monitor``."""
    parser = OneLineParser(prog='sonar_monitor', description=__doc__.splitlines()[0])
    parser.add_argument(
        'sensor', nargs='?', default='sonar', help='the sensor name (topic prefix)'
    )
    options = tool_options(parser, args)
    status, monitor = run_tool(
        lambda: SonarMonitor(options.sensor), options, args, lambda m: m.first
    )
    if monitor is None:
        return status
    print(f'received {monitor.total} readings', flush=True)
    return 0 if monitor.total or options.duration <= 0 else 1


if __name__ == '__main__':
    sys.exit(main())
