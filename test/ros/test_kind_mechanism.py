"""A throwaway kind of device taken end to end: one module's worth of code and one table row.

What ``docs/architecture.md``'s "where a change goes" says a new kind needs, and nothing
more: a settings record, a device and its reading, a builder, and a row of
``devices.kinds.KINDS`` naming the outputs it offers (here only ``ranger``, a message every
kind may publish). Nothing in ``ros/`` or ``devices/build.py`` changes: the scanning node
offers the kind as a ``mode``, declares its parameters, refuses a bad one with the record's
one message, builds the device and publishes its readings over DDS.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from nps_sonar_py.description import Robot
from nps_sonar_py.devices import KINDS, Family, Kind, RangerConfig, RangerGeometry, Setup
from nps_sonar_py.devices.interface import IndependentReadings
from nps_sonar_py.devices.kinds import ModeSettings, family_records
from nps_sonar_py.devices.kinds.base import Built
from nps_sonar_py.devices.sensors import one_sonar_mount, reading_rate
from nps_sonar_py.devices.settings import GeometrySettings, OutputSettings, SensorSettings
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.records import Record, setting

pytestmark = pytest.mark.ros

# --- the kind: what its module would hold --------------------------------------------------------


@dataclass(frozen=True)
class ThrowawayKindSettings(Record):
    """The throwaway kind's one setting."""

    throwaway_ranges: tuple[float, ...] = setting(
        (1.5, 2.5), 'throwaway: the ranges each reading holds [m]', 0.0, 100.0
    )


@dataclass(frozen=True, eq=False)
class ThrowawayReading:
    """One reading: a range and an intensity per beam."""

    ranges: NDArray[np.float64]
    intensities: NDArray[np.float64]


class ThrowawayRanger(IndependentReadings):
    """A device that reads its settings' ranges wherever it is, ``frequency`` times a second."""

    def __init__(self, ranges: tuple[float, ...], geometry: RangerGeometry, frequency: float):
        self.ranges = np.array(ranges)
        self.geometry = geometry
        self.frequency = frequency

    @property
    def period(self) -> float:
        return 1.0 / self.frequency

    def set_pose(self, world_from_device: NDArray[np.float64]) -> None:
        """Placed like any device; its readings do not depend on where."""

    def read(self, caster: Any) -> ThrowawayReading:
        return ThrowawayReading(self.ranges, np.ones_like(self.ranges))

    def ranger_config(self) -> RangerConfig:
        return RangerConfig(0.0, 0.0, 0.0, 0.0, 100.0, 0.0, self.frequency)

    def reconfigure(self, config: RangerConfig) -> str | None:
        return 'a throwaway device takes no request'


def build(robot: Robot, setup: Setup, _entities: int) -> Built:
    """The robot's first sonar (or ``sensor``), reading the settings' ranges."""
    chosen = setup[SensorSettings]
    sensor, mount = one_sonar_mount(
        robot, chosen.sensor, chosen.frame_id, setup[GeometrySettings].element_size
    )
    rate = reading_rate(setup[OutputSettings], sensor)
    device = ThrowawayRanger(
        setup[ThrowawayKindSettings].throwaway_ranges, mount.geometry({}), rate
    )
    return mount, device  # type: ignore[return-value]


KIND = Kind(
    name='throwaway',
    family=Family.SCANNING,
    summary='a kind of this test only',
    device=ThrowawayRanger,
    build=build,
    records=(ThrowawayKindSettings,),
    outputs=('ranger',),
)

# --- the test ------------------------------------------------------------------------------------


@contextmanager
def registered(kind: Kind) -> Iterator[None]:
    """``kind`` as a row of ``KINDS`` while the block runs."""
    KINDS[kind.name] = kind
    try:
        yield
    finally:
        del KINDS[kind.name]


@contextmanager
def spinning_node(**parameters: Any) -> Iterator[Any]:
    """A scanning sonar node in this process, spinning in a thread on its own context."""
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter

    from nps_sonar_py.ros.scanning_sonar_node import ScanningSonarNode

    context = rclpy.context.Context()
    rclpy.init(context=context)
    node = executor = thread = None
    try:
        overrides = [Parameter(k, value=v) for k, v in parameters.items()]
        node = ScanningSonarNode(context=context, parameter_overrides=overrides)
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        thread = threading.Thread(target=executor.spin, daemon=True)
        thread.start()
        yield node
    finally:
        if executor is not None:
            executor.shutdown(timeout_sec=1.0)
        if node is not None:
            node.destroy_node()
        rclpy.shutdown(context=context)
        if thread is not None:
            thread.join(timeout=5.0)


def test_a_new_kind_is_a_mode_declared_checked_built_and_published(
    receiver: Callable[..., Any],
) -> None:
    from nps_sonar import msg as nps_msg

    assert 'throwaway' not in KINDS
    with pytest.raises(ConfigurationError, match=r"^mode must be .* got 'throwaway'$"):
        ModeSettings('throwaway')
    with registered(KIND):
        # A mode now, and its record among the scanning node's parameters.
        assert ModeSettings('throwaway').mode == 'throwaway'
        assert ThrowawayKindSettings in family_records(Family.SCANNING)
        data = receiver(nps_msg.RangerData, '/sonar/ranger')
        with spinning_node(mode='throwaway', throwaway_ranges=[3.0, 4.0, 5.0]) as node:
            described = node.describe_parameter('throwaway_ranges')
            assert described.description == 'throwaway: the ranges each reading holds [m]'
            mode = node.describe_parameter('mode')
            assert 'throwaway' in mode.additional_constraints.split(': ')[1].split(', ')
            assert 'throwaway (a kind of this test only)' in mode.description
            assert isinstance(node.rig.device, ThrowawayRanger)
            [first] = data.wait_for(1)
        np.testing.assert_allclose(first.ranges, [3.0, 4.0, 5.0])
        np.testing.assert_allclose(first.intensities, [1.0, 1.0, 1.0])
        assert first.header.frame_id == 'sonar'
        # A bad value of its setting stops the node at start with the record's one message.
        with (
            pytest.raises(ConfigurationError, match=r'^throwaway_ranges must be finite numbers'),
            spinning_node(mode='throwaway', throwaway_ranges=[-1.0]),
        ):
            pass
    assert 'throwaway' not in KINDS
    assert ThrowawayKindSettings not in family_records(Family.SCANNING)
