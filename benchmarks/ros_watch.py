"""What the benchmarks that watch nodes share: finding executables, counting messages, spinning."""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

from nps_sonar_py.ament import executable as installed_executable

__all__ = ['TopicCounter', 'executable', 'spin_in_thread']


def executable(name: str) -> str:
    """``lib/nps_sonar/<name>`` of the colcon-built package on ``AMENT_PREFIX_PATH``."""
    found = installed_executable(name)
    if found is None:
        sys.exit(f'{name} is not installed: run `scripts/run python benchmarks/<script>.py`')
    return str(found)


class TopicCounter:
    """Arrival times (monotonic) of one topic's messages here, and their header stamps."""

    def __init__(self, node: Any, msg_type: Any, topic: str) -> None:
        from rclpy.qos import qos_profile_sensor_data

        self.arrivals: list[float] = []
        self.stamps: list[float] = []
        self.lock = threading.Lock()
        node.create_subscription(msg_type, topic, self.on_message, qos_profile_sensor_data)

    def on_message(self, message: Any) -> None:
        """Subscription callback: note the arrival time and, if the message has one, its stamp."""
        header = getattr(message, 'header', None)
        with self.lock:
            self.arrivals.append(time.monotonic())
            if header is not None:
                self.stamps.append(header.stamp.sec + 1e-9 * header.stamp.nanosec)

    def since(self, start: float) -> int:
        """Messages received at or after ``start`` (monotonic time)."""
        with self.lock:
            return sum(1 for t in self.arrivals if t >= start)

    def rate(self, start: float, end: float) -> float:
        """Messages per second received over [start, end] of monotonic time."""
        with self.lock:
            return sum(1 for t in self.arrivals if start <= t <= end) / (end - start)

    def window(self, start: float, end: float) -> tuple[float, float]:
        """(received per second, stamps per second) over [start, end] of monotonic time."""
        with self.lock:
            inside = [i for i, t in enumerate(self.arrivals) if start <= t <= end]
            stamps = (
                [self.stamps[i] for i in inside] if len(self.stamps) == len(self.arrivals) else []
            )
        if len(inside) < 2 or len(stamps) < 2:
            return 0.0, 0.0
        return len(inside) / (end - start), (len(stamps) - 1) / (stamps[-1] - stamps[0])


def spin_in_thread(executor: Any) -> threading.Thread:
    """Spin ``executor`` in a daemon thread until its context shuts down."""
    import rclpy
    from rclpy.executors import ExternalShutdownException

    def spin() -> None:
        try:
            while rclpy.ok():
                executor.spin_once(timeout_sec=0.05)
        except (ExternalShutdownException, RuntimeError):  # the context shut down while spinning
            pass

    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    return thread
