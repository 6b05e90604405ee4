"""Diagnostics: the achieved rate on /diagnostics over real DDS, and falling behind.

The rate window is pure arithmetic (readings in the last window over its length); the
node tests check what a user of ``rqt_robot_monitor`` sees: the configured rate, an
achieved rate near it when the machine keeps up, and WARN when it cannot.
"""

from __future__ import annotations

from typing import Any

import pytest
from ros_helpers import Probe, first_such, running

pytestmark = pytest.mark.ros


def test_the_rate_is_the_readings_of_the_last_window() -> None:
    from nps_sonar_py.ros.diagnostics import ReadingRate

    rates = ReadingRate(window=2.0)
    for k in range(41):  # 20 Hz from t = 10 s to t = 12 s
        rates.record(10.0 + 0.05 * k, 0.001)
    assert rates.rate(11.0) is None  # not yet a whole window
    # In (10.0, 12.0]: the readings at 10.05 ... 12.00, 40 of them over 2 s.
    assert rates.rate(12.0) == pytest.approx(20.0)
    # A second later, only those after 11.0 remain: 20 readings over the 2 s window.
    assert rates.rate(13.0) == pytest.approx(10.0)
    assert rates.count == 41
    rates.restart()
    assert rates.rate(13.0) is None


def _values(status: Any) -> dict[str, str]:
    return {kv.key: kv.value for kv in status.values}


def _sonar_status(message: Any) -> Any:
    return next((s for s in message.status if s.name.endswith(': sonar')), None)


def test_a_node_that_keeps_up_reports_its_rate(probe: Probe) -> None:
    from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus

    probe.subscribe(DiagnosticArray, '/diagnostics')
    with running('sonar_node', {'rays': 10, 'update_rate': 20.0}) as node:
        message = first_such(
            probe,
            '/diagnostics',
            node,
            lambda m: (
                (s := _sonar_status(m)) is not None and _values(s)['achieved rate [Hz]'] != ''
            ),
        )
    status = _sonar_status(message)
    values = _values(status)
    assert status.name == '/sonar: sonar'
    assert status.hardware_id == 'sonar'
    assert values['configured rate [Hz]'] == '20'
    assert int(values['readings']) > 0
    # OK exactly when the node read at least 90 % of 20 Hz over the window (a loaded machine
    # may fall behind even here: then the status must say so).
    kept_up = float(values['achieved rate [Hz]']) >= 0.9 * 20.0
    assert (status.level == DiagnosticStatus.OK) == kept_up, (status.level, values)


def test_a_node_that_cannot_keep_up_warns(probe: Probe) -> None:
    from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus

    probe.subscribe(DiagnosticArray, '/diagnostics')
    # 200000 rays per ping at 1000 pings/s: no machine of this size casts 2e8 rays a second.
    with running('sonar_node', {'rays': 200_000, 'update_rate': 1000.0}) as node:
        message = first_such(
            probe,
            '/diagnostics',
            node,
            lambda m: (s := _sonar_status(m)) is not None and s.level == DiagnosticStatus.WARN,
        )
    status = _sonar_status(message)
    assert status.message.startswith('falling behind')
    assert float(_values(status)['achieved rate [Hz]']) < 900.0
