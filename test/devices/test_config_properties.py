"""Property tests: no float of a request or a start parameter can do more than be refused.

Every float field of every ``set_config`` request (``RangerConfig``, for every device kind)
and every float field of every settings record (built as a node builds them: records, then
``build_device``) is drawn over the whole double range, NaN, +-inf, subnormals and +-0. Each
must give a refusal (a reason string, ``ConfigurationError`` or ``DescriptionError``) or a
valid configuration (finite, positive period; the request's values in force), never another
exception. Core level, no DDS; derandomized, so CI draws the same examples each run.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from typing import Any

import pytest
from device_kinds import KINDS, build, robot_of, setup_of
from fuzzing import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nps_sonar_py.devices import RangerConfig, build_device, robot_root_pose
from nps_sonar_py.devices.interface import MAX_FREQUENCY, MIN_FREQUENCY
from nps_sonar_py.devices.kinds import family_records
from nps_sonar_py.devices.settings import (
    ImageSettings,
    MotionSettings,
    OutputSettings,
    RangerSettings,
    RobotSettings,
    SelectionSettings,
)
from nps_sonar_py.errors import ConfigurationError, DescriptionError


def profile(count: int) -> settings:
    """``count`` examples (times ``NPS_FUZZ_SCALE``), drawn the same way every run."""
    return settings(
        max_examples=examples(count),
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


#: Values at the edges of float64 that every draw may also take.
EDGES = [0.0, -0.0, 5e-324, -5e-324, 2.2e-308, 1e-300, 1e-12, 1e308, -1e308, 1.8e308]
ANY_FLOAT = st.one_of(
    st.sampled_from([*EDGES, math.inf, -math.inf, math.nan]),
    st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
    st.floats(min_value=-10.0, max_value=10.0),  # near the real values, to reach deeper checks
)
REFUSALS = (ConfigurationError, DescriptionError)


def _refusal(error: Exception) -> None:
    """A refusal says why, in one line."""
    message = str(error)
    assert message
    assert '\n' not in message


def _valid_period(period: float) -> None:
    assert math.isfinite(period)
    assert period > 0.0


@st.composite
def requests(draw: st.DrawFn, current: RangerConfig) -> RangerConfig:
    """``current`` with any of its fields replaced by any float."""
    changes = {
        f.name: draw(ANY_FLOAT) for f in dataclasses.fields(RangerConfig) if draw(st.booleans())
    }
    return dataclasses.replace(current, **changes)


@pytest.mark.parametrize('kind', list(KINDS))
def test_any_float_in_a_request_is_refused_or_applied(kind: str) -> None:
    device = build(kind)
    start = device.ranger_config()

    @profile(300)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        before, period = device.ranger_config(), device.period
        wanted = data.draw(requests(start))
        reason = device.reconfigure(wanted)
        if reason is not None:
            assert isinstance(reason, str)
            assert reason
            assert device.ranger_config() == before
            assert device.period == period
            return
        _valid_period(device.period)
        now = device.ranger_config()
        assert all(math.isfinite(getattr(now, f.name)) for f in dataclasses.fields(now))
        assert now.frequency == pytest.approx(wanted.frequency)
        assert (now.min_range, now.max_range) == pytest.approx(
            (wanted.min_range, wanted.max_range)
        )

    check()


def _float_fields(record: type[Any]) -> list[str]:
    hints = typing.get_type_hints(record)
    return [
        f.name
        for f in dataclasses.fields(record)
        if hints[f.name] is float or typing.get_origin(hints[f.name]) is tuple
    ]


def _value(record: type[Any], name: str, data: st.DataObject) -> Any:
    kind = typing.get_type_hints(record)[name]
    if typing.get_origin(kind) is tuple:
        size = len(getattr(record(), name)) or 6
        return tuple(data.draw(st.lists(ANY_FLOAT, min_size=size, max_size=size)))
    return data.draw(ANY_FLOAT)


@pytest.mark.parametrize('kind', list(KINDS))
def test_any_float_start_parameter_is_refused_or_builds_a_valid_device(kind: str) -> None:
    setup = setup_of(kind)
    robot = robot_of(kind)
    fields = [
        (record, name) for record in family_records(setup.family) for name in _float_fields(record)
    ]
    assert fields  # every setup has float settings

    @profile(150)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        record, name = data.draw(st.sampled_from(fields))
        try:
            changed = setup_of(kind, record, **{name: _value(record, name, data)})
            _, device = build_device(robot, changed)
        except REFUSALS as error:
            _refusal(error)
            return
        _valid_period(device.period)
        config = device.ranger_config()
        assert all(math.isfinite(getattr(config, f.name)) for f in dataclasses.fields(config))

    check()


def test_element_poses_of_any_float_are_refused_or_build_an_array() -> None:
    robot = robot_of('array')
    base = setup_of('array')

    @profile(150)
    @given(st.lists(ANY_FLOAT, min_size=6, max_size=12))
    def check(values: list[float]) -> None:
        try:
            ranger = RangerSettings(element_poses=tuple(values))
            setup = base.replaced(
                dataclasses.replace(base[SelectionSettings], sensors='ring_00'), ranger
            )
            _, device = build_device(robot, setup)
        except REFUSALS as error:
            _refusal(error)
            return
        _valid_period(device.period)
        assert len(values) % 6 == 0

    check()


@pytest.mark.parametrize('record', [RobotSettings, MotionSettings, ImageSettings, OutputSettings])
def test_the_float_settings_of_records_outside_a_setup_are_refused_or_finite(
    record: type[Any],
) -> None:
    names = _float_fields(record)
    assert names

    @profile(150)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(names))
        value = _value(record, name, data)
        try:
            made = record(**{name: value})
            if record is RobotSettings:
                robot_root_pose(made.robot_pose)
        except ConfigurationError as error:
            _refusal(error)
            return
        kept = getattr(made, name)
        assert all(math.isfinite(v) for v in (kept if isinstance(kept, tuple) else (kept,)))
        if name.endswith('_rate') and kept != 0.0:  # a node's timer period: 1 / rate
            assert MIN_FREQUENCY <= kept <= MAX_FREQUENCY

    check()
