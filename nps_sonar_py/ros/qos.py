"""The QoS of sensor publishers: reliable by default (REP 2003), best effort on request."""

from __future__ import annotations

from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy

from nps_sonar_py.errors import ConfigurationError

__all__ = ['RELIABILITIES', 'publisher_qos']

RELIABILITIES = {
    'reliable': ReliabilityPolicy.RELIABLE,
    'best_effort': ReliabilityPolicy.BEST_EFFORT,
}


def publisher_qos(reliability: str, depth: int) -> QoSProfile:
    """Keep-last ``depth``, ``reliable`` or ``best_effort``; ConfigurationError for others."""
    if reliability not in RELIABILITIES:
        raise ConfigurationError(
            f'qos_reliability must be reliable or best_effort, got {reliability!r}'
        )
    return QoSProfile(
        history=HistoryPolicy.KEEP_LAST, depth=depth, reliability=RELIABILITIES[reliability]
    )
