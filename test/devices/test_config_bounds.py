"""The shared bounds of a SetConfig request and of pose parameters, per device kind (issue 21).

Every device refuses a request outside ``devices.interface``'s bounds with a reason and keeps
its configuration; its period stays finite and positive (the node's timer never sees an
impossible one). The bounds are the module's documented constants, not the devices' output.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
from device_kinds import KINDS, build

from nps_sonar_py.devices import SweepRanger, element_poses_from_flat, robot_root_pose
from nps_sonar_py.devices.interface import (
    MAX_ANGLE,
    MAX_FREQUENCY,
    MAX_RANGE,
    MAX_STEPS,
    MIN_FREQUENCY,
    MIN_RESOLUTION,
    RangerConfig,
)
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.limits import MAX_ANGLE as MAX_POSE_ANGLE
from nps_sonar_py.limits import MAX_POSITION

TINY = 5e-324  # the smallest subnormal

#: (field, value, words of the reason): each out of the shared bounds for every device.
BAD_REQUESTS = [
    ('frequency', TINY, 'frequency must be in'),
    ('frequency', 1e-300, 'frequency must be in'),
    ('frequency', 1e-12, 'frequency must be in'),
    ('frequency', MIN_FREQUENCY / 2, 'frequency must be in'),
    ('frequency', MAX_FREQUENCY * 1.5, 'frequency must be in'),
    ('frequency', 0.0, 'frequency must be in'),
    ('frequency', -1.0, 'frequency must be in'),
    ('frequency', math.inf, 'frequency must be finite'),
    ('frequency', math.nan, 'frequency must be finite'),
    ('min_angle', -1e308, 'min_angle must be in [-4 pi, 4 pi]'),
    ('min_angle', -MAX_ANGLE * 1.01, 'min_angle must be in [-4 pi, 4 pi]'),
    ('max_angle', 1e308, 'max_angle must be in [-4 pi, 4 pi]'),
    ('max_angle', -math.inf, 'max_angle must be finite'),
    ('angular_resolution', TINY, 'angular_resolution must be 0 or in'),
    ('angular_resolution', 7.0, 'angular_resolution must be 0 or in'),
    ('angular_resolution', -0.1, 'angular_resolution must be >= 0'),
    ('min_range', -1e-300, 'min_range must be >= 0'),
    ('max_range', 1e300, f'max_range must be <= {MAX_RANGE:g}'),
    ('max_range', math.nan, 'max_range must be finite'),
    ('range_resolution', TINY, 'range_resolution must be 0 or in'),
    ('range_resolution', MAX_RANGE * 2, 'range_resolution must be 0 or in'),
]


@pytest.mark.parametrize('kind', list(KINDS))
@pytest.mark.parametrize(('field', 'value', 'words'), BAD_REQUESTS)
def test_a_request_out_of_the_shared_bounds_is_refused_and_changes_nothing(
    kind: str, field: str, value: float, words: str
) -> None:
    device = build(kind)
    before, period = device.ranger_config(), device.period
    reason = device.reconfigure(dataclasses.replace(before, **{field: value}))
    assert reason is not None
    assert words in reason, reason
    assert '\n' not in reason
    assert device.ranger_config() == before
    assert device.period == period


@pytest.mark.parametrize('kind', ['scanner', 'multibeam', 'sweep'])
def test_a_step_so_fine_that_the_span_holds_more_than_max_steps_is_refused(kind: str) -> None:
    device = build(kind)
    before = device.ranger_config()
    span = before.max_angle - before.min_angle
    fine = dataclasses.replace(
        before, angular_resolution=max(MIN_RESOLUTION, span / MAX_STEPS / 2)
    )
    reason = device.reconfigure(fine)
    assert reason is not None
    assert f'more than {MAX_STEPS} steps' in reason
    assert device.ranger_config() == before


@pytest.mark.parametrize('kind', list(KINDS))
def test_the_bounds_themselves_are_accepted_where_the_device_can_do_them(kind: str) -> None:
    # The slowest rate every device does (no two-way travel time limit at 1e-4 Hz).
    device = build(kind)
    slow = dataclasses.replace(device.ranger_config(), frequency=MIN_FREQUENCY)
    assert device.reconfigure(slow) is None
    assert device.period == pytest.approx(1.0 / MIN_FREQUENCY)
    assert device.ranger_config().frequency == pytest.approx(MIN_FREQUENCY)


def test_a_sweep_whose_step_does_not_divide_the_sector_is_refused() -> None:
    device = build('sweep')
    assert isinstance(device, SweepRanger)
    before = device.ranger_config()  # -0.3 .. 0.3 every 0.1: 6 steps
    assert (before.min_angle, before.max_angle) == pytest.approx((-0.3, 0.3))
    for step in (0.25, 0.11, 0.1 * (1 + 2e-4)):  # 2.4 and 5.45 steps; 1e-4 off: not whole
        reason = device.reconfigure(dataclasses.replace(before, angular_resolution=step))
        assert reason is not None
        assert 'not a whole number of angular_resolution steps' in reason
        assert device.ranger_config() == before
    # Within the tolerance (1e-4 of a step) it is whole: 0.6 / 0.2 = 3 steps.
    assert device.reconfigure(dataclasses.replace(before, angular_resolution=0.2)) is None
    assert device.cycle_length == 4
    assert device.ranger_config().max_angle == pytest.approx(0.3)


POSE_CASES = [
    ([1e308, 0, 0, 0, 0, 0], f'positions must be within {MAX_POSITION:g} m'),
    ([0, MAX_POSITION * 1.01, 0, 0, 0, 0], f'positions must be within {MAX_POSITION:g} m'),
    ([0, 0, 0, 0, 0, MAX_POSE_ANGLE * 2], f'angles must be within {MAX_POSE_ANGLE:g} rad'),
    ([0, 0, 0, -1e300, 0, 0], f'angles must be within {MAX_POSE_ANGLE:g} rad'),
    ([math.nan, 0, 0, 0, 0, 0], 'must be finite'),
    ([0, 0, 0, 0, math.inf, 0], 'must be finite'),
]


@pytest.mark.parametrize(('pose', 'words'), POSE_CASES)
def test_robot_pose_and_element_poses_keep_the_bounds_of_odom(
    pose: list[float], words: str
) -> None:
    with pytest.raises(ConfigurationError, match='robot_pose') as refused:
        robot_root_pose(pose)
    assert words in str(refused.value)
    with pytest.raises(ConfigurationError, match='element_poses: element 1') as refused:
        element_poses_from_flat([0.0] * 6 + pose)
    assert words in str(refused.value)
    edge = [MAX_POSITION, -MAX_POSITION, 0.0, MAX_POSE_ANGLE, 0.0, -MAX_POSE_ANGLE]
    assert robot_root_pose(edge)[:3, 3].tolist() == [MAX_POSITION, -MAX_POSITION, 0.0]
    assert element_poses_from_flat(edge).shape == (1, 4, 4)


def test_every_request_field_is_bounded() -> None:
    # A new field of RangerConfig must get a bound here too.
    assert {f.name for f in dataclasses.fields(RangerConfig)} == {
        'min_angle',
        'max_angle',
        'angular_resolution',
        'min_range',
        'max_range',
        'range_resolution',
        'frequency',
    }
    assert {field for field, _, _ in BAD_REQUESTS} == {
        f.name for f in dataclasses.fields(RangerConfig)
    }
