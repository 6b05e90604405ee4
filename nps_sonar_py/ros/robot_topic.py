"""The robot from the ``robot_description`` topic, as ``robot_state_publisher`` publishes it.

A node given neither ``robot_description_file`` nor ``robot_description`` listens on
``robot_description`` (``std_msgs/String``, reliable, transient local, depth 1: what
``robot_state_publisher`` offers since ROS 2 Iron; relative, so a namespace or a remapping
``-r robot_description:=/other`` moves it). :func:`listen` subscribes as early as the node
can, so that discovery runs while the node loads its world; :meth:`RobotTopic.robot` then, if
a publisher of the topic is discovered within ``robot_description_wait`` (1 s) of subscribing,
logs one line saying it waits and spins until the description comes, a signal stops the wait
(:class:`StartInterrupted`, status 0) or the text is refused (the one-line error of a bad
file, with the topic's name in the file's place). With no publisher discovered by then the
node keeps its default robot (a debug line says so; DDS cannot tell that no publisher exists):
a description that comes later is not used, and a warning says so.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.subscription import Subscription
from std_msgs.msg import String

from nps_sonar_py.description import Robot, parse_robot
from nps_sonar_py.devices.settings import RobotSettings
from nps_sonar_py.ros.startup import POLL_PERIOD, StartInterrupted, catch_signals

__all__ = ['QOS', 'TOPIC', 'RobotTopic', 'listen']

#: The topic, relative to the node's namespace, as robot_state_publisher names it.
TOPIC = 'robot_description'
#: robot_state_publisher's QoS: a late subscriber still gets the last description.
QOS = QoSProfile(
    depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL
)


@dataclass
class RobotTopic:
    """A subscription to the robot description and what it has received."""

    node: Node
    subscription: Subscription | None = None
    discovery: float = 1.0
    texts: list[str] = field(default_factory=list)
    default: bool = False
    since: float = field(default_factory=time.monotonic)

    @property
    def name(self) -> str:
        """The topic's full name (namespace and remappings applied)."""
        assert self.subscription is not None
        return self.subscription.topic_name

    def robot(self) -> Robot | None:
        """The published robot, waiting for it while a publisher exists; None without one.

        Without one the subscription stays: a description that comes later is not used, and
        a warning says so once.
        """
        assert self.subscription is not None
        if not self.texts and not self._publisher_found():
            self.default = True
            # debug: a node that then stops on bad input says that in its one line alone
            self.node.get_logger().debug(
                f'no publisher of {self.name} within robot_description_wait '
                f'({self.discovery:g} s): using the default robot (give robot_description_file '
                'or robot_description, or start robot_state_publisher first)'
            )
            return None
        try:
            if not self.texts:
                self._wait()
            return parse_robot(self.texts[-1], source=self.name)
        finally:
            self.node.destroy_subscription(self.subscription)
            self.subscription = None

    def received(self, message: String) -> None:
        """Keep a description; after the default robot was taken, say once it came too late."""
        self.texts.append(message.data)
        if self.default and len(self.texts) == 1:
            self.node.get_logger().warning(
                f'a robot description came on {self.name} after the node had started with its '
                'default robot: not used; restart the node, or give robot_description_file'
            )

    def _publisher_found(self) -> bool:
        """Whether a publisher (or its description) comes within ``discovery`` s of listening.

        The executor waits for the description itself (a transient-local publisher's arrives
        soon after discovery) in slices of at most :data:`POLL_PERIOD`, between which the
        graph is looked at.
        """
        request = catch_signals()
        with _spinning(self.node) as executor:
            while not self.texts and not self.node.count_publishers(self.name):
                left = self.discovery - (time.monotonic() - self.since)
                if left <= 0.0 or request:
                    return False
                executor.spin_once(timeout_sec=min(left, POLL_PERIOD))
        return True

    def _wait(self) -> None:
        self.node.get_logger().info(
            f"waiting for the robot description on {self.name} (robot_state_publisher's)"
        )
        request = catch_signals()
        with _spinning(self.node) as executor:
            while not self.texts and not request:
                executor.spin_once(timeout_sec=POLL_PERIOD)
        if request:
            raise StartInterrupted


@contextmanager
def _spinning(node: Node) -> Iterator[SingleThreadedExecutor]:
    """An executor of ``node`` alone, for the node's start-up before its own executor runs."""
    executor = SingleThreadedExecutor(context=node.context)
    executor.add_node(node)
    try:
        yield executor
    finally:
        executor.remove_node(node)
        executor.shutdown()


def listen(node: Node, settings: RobotSettings) -> RobotTopic | None:
    """Subscribe ``node`` to the robot description now, unless ``settings`` name a robot.

    Read it later with ``robot()``.
    """
    if settings.robot_description_file or settings.robot_description:
        return None
    topic = RobotTopic(node, discovery=settings.robot_description_wait)
    topic.subscription = node.create_subscription(String, TOPIC, topic.received, QOS)
    return topic
