"""What the outputs and the diagnostics of a device node use of it: one small typed context.

``DeviceNode`` builds one :class:`OutputContext` (``ros/device_node.py``) and gives it to
its output (``ros/outputs.py``) and its diagnostics (``ros/diagnostics.py``) instead of
itself, so that neither imports the node and this record says all they read of it: the
device's name and frame, the node's name, a publisher factory with the node's QoS, the
node's logger and the run-time state of the Ranger services (power, intensities, the
geometry and configuration messages).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from rclpy.impl.rcutils_logger import RcutilsLogger
from rclpy.node import Node
from rclpy.publisher import Publisher
from rclpy.qos import QoSProfile

__all__ = ['OutputContext', 'PublisherFactory', 'Publishers', 'RangerState']


class RangerState(Protocol):
    """What outputs read of the Ranger services (``ros/services.py``), current at each reading."""

    @property
    def powered(self) -> bool:
        """Whether the device is on (the ``power`` service)."""
        ...

    @property
    def intensities(self) -> bool:
        """Whether intensities are published (the ``enable_intensities`` service)."""
        ...

    @property
    def geometry_message(self) -> Any:
        """The device's ``nps_sonar/RangerGeometry`` now."""
        ...

    @property
    def config_message(self) -> Any:
        """The device's ``nps_sonar/RangerConfig`` now."""
        ...


class PublisherFactory(Protocol):
    """A publisher of the node on ``topic``, with the node's QoS."""

    def __call__(self, msg_type: type[Any], topic: str) -> Publisher:
        """The publisher of ``msg_type`` on ``topic``."""
        ...


class Publishers:
    """A node's publishers with one QoS: one per topic and type, made on first use, then kept.

    A new output for a new configuration (``DeviceNode._apply_pending``) asks again for the
    topics of the one it replaces and gets the same publishers, so that subscribers stay
    matched and no publisher is left behind.
    """

    def __init__(self, node: Node, qos: QoSProfile) -> None:
        self._node = node
        self._qos = qos
        self._made: dict[tuple[type[Any], str], Publisher] = {}

    def __call__(self, msg_type: type[Any], topic: str) -> Publisher:
        """The publisher of ``msg_type`` on ``topic``, made if it is the first time."""
        made = self._made.get((msg_type, topic))
        if made is None:
            made = self._node.create_publisher(msg_type, topic, self._qos)
            self._made[(msg_type, topic)] = made
        return made


@dataclass(frozen=True)
class OutputContext:
    """What an output or the diagnostics of a device node use of the node (module docstring).

    Built once: the device's name and frame do not change while the node runs (``sensor``,
    ``sensors`` and ``frame_id`` are read-only), the state is read at each use.
    """

    #: The device's name: the prefix of its topics and services.
    name: str
    #: The device's frame: the ``frame_id`` of its messages.
    frame: str
    #: The node's fully qualified name.
    node_name: str
    #: The node's publishers, with its QoS.
    publisher: PublisherFactory
    #: The node's logger.
    logger: RcutilsLogger
    #: Power, intensities and the Ranger messages, from the services.
    state: RangerState
