"""Sim time as a device node lives it: waiting for the first ``/clock``, and ``/clock`` jumping.

With ``use_sim_time`` a node reads nothing before the first message on ``/clock``. If none
has come :data:`CLOCK_WAIT` seconds (wall time) after the node started, it says so once,
naming the topic and ``use_sim_time``, and says again when the clock comes.

A step of the clock of more than :data:`JUMP_THRESHOLD` seconds, forward or back (a
simulator reset, a bag played from another time, a paused simulation resumed far ahead), is
a jump, not the node falling behind: the node logs what happened, in one line, and starts
its schedule and its rate window afresh at the new time (``on_jump``), so that its next
readings are stamped there and ``/diagnostics`` does not count the skipped time as readings
missed. The jumps are rclpy's own jump callbacks on the node's clock.
"""

from __future__ import annotations

from collections.abc import Callable

from rclpy.clock import Clock, ClockType, JumpThreshold, TimeJump
from rclpy.duration import Duration
from rclpy.node import Node

__all__ = ['CLOCK_TOPIC', 'CLOCK_WAIT', 'JUMP_THRESHOLD', 'SimTimeWatch']

#: The topic rclpy's ``TimeSource`` takes sim time from.
CLOCK_TOPIC = '/clock'
#: Wall seconds after start before a node still without a clock says it waits for one: long
#: enough for DDS discovery of the clock's publisher on a loaded machine (seen at 2.3 s).
CLOCK_WAIT = 5.0
#: Smallest step of the clock, s, taken for a jump: a simulator's /clock advances in steps
#: of milliseconds, a coarse bridge in tenths of a second.
JUMP_THRESHOLD = 1.0


class SimTimeWatch:
    """Says when a node waits for ``/clock``, and what a jump of it did; ``on_jump`` restarts."""

    def __init__(self, node: Node, on_jump: Callable[[], None]) -> None:
        self._node = node
        self._on_jump = on_jump
        self._said_waiting = False
        jump = Duration(nanoseconds=round(JUMP_THRESHOLD * 1e9))
        threshold = JumpThreshold(
            min_forward=jump,
            min_backward=Duration(nanoseconds=-jump.nanoseconds),
            on_clock_change=False,
        )
        # Kept: the callback lives as long as its handle.
        self._handle = node.get_clock().create_jump_callback(threshold, post_callback=self._jumped)
        self._timer = None
        if node.get_parameter('use_sim_time').value:
            steady = Clock(clock_type=ClockType.STEADY_TIME)
            self._timer = node.create_timer(CLOCK_WAIT, self._check_clock, clock=steady)

    def _check_clock(self) -> None:
        """Once, ``CLOCK_WAIT`` s after start: say that the node waits, if it still does."""
        if self._timer is not None:
            self._timer.cancel()
        if self._node.get_clock().now().nanoseconds == 0:
            self._said_waiting = True
            self._node.get_logger().warning(
                f'waiting for {CLOCK_TOPIC}: use_sim_time is true and no clock has come in '
                f'{CLOCK_WAIT:g} s; nothing is read or published until one does (is the '
                'simulator, or its /clock bridge, running?)'
            )

    def _jumped(self, jump: TimeJump) -> None:
        """Called by rclpy after the clock moved by ``jump.delta`` at once."""
        now = self._node.get_clock().now().nanoseconds
        delta = jump.delta.nanoseconds
        before = now - delta
        if before == 0:  # the first clock: time starts, it does not jump
            if self._said_waiting:
                self._node.get_logger().info(
                    f'{CLOCK_TOPIC} came: time starts at {now * 1e-9:.3f} s'
                )
            return
        direction = 'forward' if delta > 0 else 'back'
        self._node.get_logger().warning(
            f'time jumped {direction} by {abs(delta) * 1e-9:.3f} s on {CLOCK_TOPIC}, from '
            f'{before * 1e-9:.3f} to {now * 1e-9:.3f} s: readings resume at the new time'
        )
        self._on_jump()
