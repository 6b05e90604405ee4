"""How a device node keeps up: its achieved rate on ``/diagnostics``, a warning when behind.

Each device node publishes, at ``diagnostics_rate``, a ``diagnostic_msgs/DiagnosticArray``
on ``/diagnostics`` (where ``diagnostic_aggregator``, ``rqt_robot_monitor`` and
``ros2 topic echo /diagnostics`` look) with one status, named ``<node>: <device>``, whose
values are the configured and achieved rates, the readings so far, the node time of the
last reading and what it cost. The level is WARN while the node reads at less than 90 % of
its configured rate over the last window (a configuration the machine cannot hold), with
a warning in the log each time it starts falling behind. The node's timer calls
:meth:`Diagnostics.publish`; what the status reads of the node is its ``OutputContext``.
"""

from __future__ import annotations

import collections
from collections.abc import Callable

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rclpy.time import Time
from std_msgs.msg import Header

from nps_sonar_py.ros.context import OutputContext

__all__ = ['BEHIND', 'Diagnostics', 'ReadingRate']

#: Below this fraction of the configured rate, a node is falling behind.
BEHIND = 0.9


class ReadingRate:
    """Readings counted over a sliding window of node time (seconds): the achieved rate.

    ``rate`` is ``None`` until the node has read for a whole window, so that start-up does
    not count as falling behind.
    """

    def __init__(self, window: float = 2.0) -> None:
        self.window = window
        self.count = 0
        self.last_time: float | None = None
        self.last_cost = 0.0
        self._first: float | None = None
        self._times: collections.deque[float] = collections.deque()

    def record(self, seconds: float, cost: float) -> None:
        """A reading at node time ``seconds`` that took ``cost`` seconds of wall time."""
        self.count += 1
        self.last_time, self.last_cost = seconds, cost
        if self._first is None:
            self._first = seconds
        self._times.append(seconds)

    def rate(self, now: float) -> float | None:
        """Readings per second over the window ending at ``now``; ``None`` before a window."""
        while self._times and self._times[0] <= now - self.window:
            self._times.popleft()
        if self._first is None or now - self._first < self.window:
            return None
        return len(self._times) / self.window

    def restart(self) -> None:
        """Forget the window (after a change of rate, or power): the next window starts afresh."""
        self._first = None
        self._times.clear()


class Diagnostics:
    """The ``/diagnostics`` status of a device node and its falling-behind warning.

    ``period`` gives the device's configured period now (it changes with the rate);
    ``enabled``: whether the status goes out (``diagnostics_rate`` above 0).
    """

    def __init__(
        self, context: OutputContext, period: Callable[[], float], *, enabled: bool
    ) -> None:
        self.context = context
        self.period = period
        self.rates = ReadingRate()
        self._behind = False
        self.publisher = context.publisher(DiagnosticArray, '/diagnostics') if enabled else None

    def status(self, now: float) -> DiagnosticStatus:
        """The node's status at node time ``now`` (seconds); warns in the log on falling behind."""
        context = self.context
        configured = 1.0 / self.period()
        achieved = self.rates.rate(now)
        powered = context.state.powered
        behind = powered and achieved is not None and achieved < BEHIND * configured
        if behind and not self._behind:
            context.logger.warning(
                f'falling behind: {achieved:.3g} of {configured:g} readings/s; this machine '
                'cannot '
                'hold the configuration (lower the rate, the rays or the bins)'
            )
        self._behind = behind
        if not powered:
            level, message = DiagnosticStatus.OK, 'powered off'
        elif behind:
            level, message = (
                DiagnosticStatus.WARN,
                f'falling behind: {achieved:.3g} of {configured:g} Hz',
            )
        else:
            level, message = DiagnosticStatus.OK, 'reading'
        values = {
            'configured rate [Hz]': f'{configured:g}',
            'achieved rate [Hz]': '' if achieved is None else f'{achieved:.4g}',
            'readings': str(self.rates.count),
            'last reading [s]': ''
            if self.rates.last_time is None
            else f'{self.rates.last_time:.6f}',
            'last reading cost [ms]': f'{self.rates.last_cost * 1e3:.3f}',
        }
        return DiagnosticStatus(
            level=level,
            name=f'{context.node_name}: {context.name}',
            message=message,
            hardware_id=context.frame,
            values=[KeyValue(key=k, value=v) for k, v in values.items()],
        )

    def publish(self, now: Time) -> None:
        """Publish the status at node time ``now`` (the timer calls); nothing before the clock."""
        if now.nanoseconds == 0 or self.publisher is None:
            return
        status = self.status(now.nanoseconds * 1e-9)
        self.publisher.publish(DiagnosticArray(header=Header(stamp=now.to_msg()), status=[status]))
