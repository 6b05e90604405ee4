"""The QoS of sensor publishers: reliable by default (REP 2003), best effort on request."""

from __future__ import annotations

from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy

from nps_sonar_py.devices.settings import QosReliability

__all__ = ['RELIABILITIES', 'publisher_qos']

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
