"""A throwaway setting taken end to end: record field -> ROS parameter -> core configuration.

What ``docs/architecture.md``'s "where a change goes" says a new setting needs, and nothing
more: a field in a settings record (its type, default, description, bounds or choices) and,
where the core takes it, the record's method that builds the core configuration. The node
then declares it (with its range or its choices for ``ros2 param describe``), reads it back
typed, and refuses a bad value at start or at run time with the record's one message.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from nps_sonar_py.devices.kinds.single_beam import SonarTopicSettings
from nps_sonar_py.echo.profile_effects import ImagingConfig, Tvg
from nps_sonar_py.records import Record, setting, specs

pytestmark = pytest.mark.ros


@dataclass(frozen=True)
class ThrowawaySettings(Record):
    """Two settings of this test only, built into a core configuration (``ImagingConfig``)."""

    throwaway_tvg: Tvg = setting(Tvg.NONE, 'throwaway: a gain law', runtime=True)
    throwaway_side_lobe_db: float = setting(
        0.0, 'throwaway: a side-lobe level [dB]; 0: off', -200.0, -1.0, runtime=True, zero=True
    )

    def imaging_config(self) -> ImagingConfig:
        """The core configuration of these settings; 0 dB is off (``None``)."""
        return ImagingConfig(
            tvg=self.throwaway_tvg, side_lobe_db=self.throwaway_side_lobe_db or None
        )


@contextmanager
def throwaway_node(**parameters: Any) -> Iterator[Any]:
    """A sonar node with the throwaway record, in this process (not spinning)."""
    import rclpy
    from rclpy.parameter import Parameter

    from nps_sonar_py.ros.sonar_node import SonarNode

    class ThrowawayNode(SonarNode):
        EXTRA_RECORDS = (SonarTopicSettings, ThrowawaySettings)

    context = rclpy.context.Context()
    rclpy.init(context=context)
    node = None
    try:
        overrides = [Parameter(k, value=v) for k, v in {'rays': 20, **parameters}.items()]
        node = ThrowawayNode(context=context, parameter_overrides=overrides)
        yield node
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.shutdown(context=context)


def test_a_new_setting_is_declared_read_typed_checked_and_reaches_the_core() -> None:
    from rcl_interfaces.msg import ParameterType
    from rclpy.parameter import Parameter

    from nps_sonar_py.errors import ConfigurationError
    from nps_sonar_py.ros.params import read_settings

    assert [s.name for s in specs(ThrowawaySettings)] == [
        'throwaway_tvg',
        'throwaway_side_lobe_db',
    ]
    with throwaway_node(throwaway_tvg='40log', throwaway_side_lobe_db=-30.0) as node:
        # Declared from the record: a string parameter listing its choices, a bounded double.
        tvg = node.describe_parameter('throwaway_tvg')
        assert tvg.type == ParameterType.PARAMETER_STRING
        assert tvg.description == 'throwaway: a gain law'
        assert tvg.additional_constraints == 'one of: none, 20log, 40log'
        assert not tvg.read_only
        level = node.describe_parameter('throwaway_side_lobe_db')
        assert level.type == ParameterType.PARAMETER_DOUBLE
        bounds = level.floating_point_range[0]
        assert (bounds.from_value, bounds.to_value) == (-200.0, 0.0)  # 0 (off) included
        # Read back typed, and built into the core configuration.
        record = node.settings[ThrowawaySettings]
        assert record.throwaway_tvg is Tvg.LOG40
        assert record.imaging_config() == ImagingConfig(Tvg.LOG40, False, -30.0)
        # A run-time change the record refuses: the reason, and the settings kept.
        for name, value, reason in [
            ('throwaway_tvg', '30log', "throwaway_tvg must be none, 20log or 40log, got '30log'"),
            (
                'throwaway_side_lobe_db',
                -0.5,
                'throwaway_side_lobe_db must be 0 or a finite number in [-200, -1], got -0.5',
            ),
        ]:
            [result] = node.set_parameters([Parameter(name, value=value)])
            assert not result.successful
            assert result.reason == reason
        assert node.settings[ThrowawaySettings] == record
        [result] = node.set_parameters([Parameter('throwaway_tvg', value='20log')])
        assert result.successful, result.reason
        changed = read_settings(node, [ThrowawaySettings])[ThrowawaySettings]
        assert changed.imaging_config() == ImagingConfig(Tvg.LOG20, False, -30.0)
    # At start: the same check, the same message.
    with (
        pytest.raises(ConfigurationError, match=r'^throwaway_tvg must be none, 20log or 40log'),
        throwaway_node(throwaway_tvg='loud'),
    ):
        pass
