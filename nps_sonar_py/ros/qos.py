"""The QoS of sensor publishers: reliable by default (REP 2003), best effort on request.

A message published once for every subscriber, even one that joins later (a table the
readings refer to), goes out with :data:`LATCHED_QOS`.
"""

from __future__ import annotations

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

from nps_sonar_py.devices.settings import QosReliability

__all__ = ['LATCHED_QOS', 'RELIABILITIES', 'publisher_qos']

#: The rclpy policy of each choice of ``qos_reliability`` (checked by ``OutputSettings``).
RELIABILITIES = {
    QosReliability.RELIABLE: ReliabilityPolicy.RELIABLE,
    QosReliability.BEST_EFFORT: ReliabilityPolicy.BEST_EFFORT,
}


def publisher_qos(reliability: QosReliability, depth: int) -> QoSProfile:
    """Keep-last ``depth``, reliable or best effort."""
    return QoSProfile(
        history=HistoryPolicy.KEEP_LAST, depth=depth, reliability=RELIABILITIES[reliability]
    )


#: Published once and kept for late subscribers: reliable, transient local, depth 1.
LATCHED_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=1,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
)
