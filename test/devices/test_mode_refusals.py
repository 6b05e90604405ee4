"""Every mode refuses every setting that is another mode's own, in one line, from ``KINDS``.

For each pair of scanning kinds, a field of the second's own record set to another value in
the first's mode is refused, naming the mode and the kind it belongs to; the same setting in
its own mode is taken (the negative control). A throwaway kind with a record of its own is
refused by the others with no edit to them: the refusals come from the table.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import pytest
from device_kinds import robot_of, setup_of

from nps_sonar_py.devices import build_device
from nps_sonar_py.devices.kinds import KINDS, Family, Kind, ModeSettings, family_kinds
from nps_sonar_py.devices.kinds import family_records as records_of
from nps_sonar_py.devices.settings import BeamSettings, OutputSettings, ScanningSettings
from nps_sonar_py.errors import ConfigurationError, DescriptionError
from nps_sonar_py.records import Record, setting, specs

SCANNING = [kind.name for kind in family_kinds(Family.SCANNING)]


def other_value(spec: Any) -> Any:
    """A valid value of ``spec`` that is not its default."""
    default = spec.default
    if isinstance(default, bool):
        return not default
    if spec.choices:
        choices = spec.choices() if callable(spec.choices) else spec.choices
        return next(c for c in choices if c != default)
    if isinstance(default, int):
        return default + 1 if spec.high is None or default < spec.high else default - 1
    if isinstance(default, float):
        low = spec.low if spec.low is not None else 0.0
        high = spec.high if spec.high is not None else 2.0 * default + 1.0
        return 0.5 * (max(default, low) + high) if default < high else 0.5 * (low + default)
    return None


def own_fields(kind: Kind) -> list[tuple[type[Record], Any]]:
    """The fields of the records only ``kind`` of its family has, with a value to set."""
    others = [r for k in family_kinds(kind.family) if k is not kind for r in k.records]
    found = []
    for record in kind.records:
        if record in others:
            continue
        for spec in specs(record):
            if other_value(spec) is not None:
                found.append((record, spec))
    return found


@pytest.mark.parametrize(
    ('mode', 'owner'), [(m, o) for m in SCANNING for o in SCANNING if m != o]
)  # a mode with its own settings is the control below
def test_a_mode_refuses_another_modes_own_settings(mode: str, owner: str) -> None:
    kind = KINDS[owner]
    fields = own_fields(kind)
    assert fields, owner
    checked = 0
    for record, spec in fields[:3]:
        value = other_value(spec)
        try:
            changed = dataclasses.replace(record(), **{spec.name: value})
        except ConfigurationError:
            continue  # a value its own record refuses (a relation with another field)
        checked += 1
        setup = setup_of(mode).replaced(ModeSettings(mode), changed)
        with pytest.raises(DescriptionError) as refused:
            build_device(robot_of(mode), setup)
        line = str(refused.value)
        assert '\n' not in line
        assert f'mode {mode} does not use {spec.name}' in line, line
        assert f"mode {owner}'s settings" in line, line
    assert checked, f'no setting of {owner} was tried'  # not all skipped as refused values


def test_a_mode_takes_its_own_settings() -> None:
    """The negative control: a setting refused elsewhere, in its own mode."""
    fan = setup_of('multibeam')
    record = KINDS['multibeam'].records[0]
    setup = fan.replaced(dataclasses.replace(fan[record], beams=9))
    _, device = build_device(robot_of('multibeam'), setup)
    assert device.sonar.fan.beams == 9  # type: ignore[attr-defined]


@dataclass(frozen=True)
class ThrowawaySettings(Record):
    """A throwaway kind's own setting."""

    ping_colour: int = setting(0, 'throwaway: a setting of its own', 0, 10)


def test_a_new_kinds_settings_are_refused_by_the_others_with_no_edit() -> None:
    throwaway = Kind(
        'throwaway',
        Family.SCANNING,
        'a throwaway kind',
        object,
        lambda robot, setup, entities: (None, None),  # type: ignore[arg-type,return-value]
        records=(ThrowawaySettings,),
    )
    family = (*family_kinds(Family.SCANNING), throwaway)
    records = (*records_of(Family.SCANNING), ThrowawaySettings)
    setup = setup_of('multibeam').replaced(ThrowawaySettings(ping_colour=3))
    with pytest.raises(ConfigurationError) as refused:
        KINDS['multibeam'].check(setup, records, family)
    assert str(refused.value) == (
        "mode multibeam does not use ping_colour: they are mode throwaway's settings; "
        'set ping_colour 0'
    )
    KINDS['multibeam'].check(setup_of('multibeam'), records, family)  # its default: taken


#: A shared setting each mode does not use (issue 32 item 4), and a mode that uses it.
SHARED_UNUSED = [
    ('multibeam', BeamSettings, 'rays', 'sweep'),
    ('sidescan', BeamSettings, 'rays', 'sweep'),
    ('echosounder', BeamSettings, 'rays', 'sweep'),
    ('sweep', OutputSettings, 'update_rate', 'multibeam'),
    ('sidescan', ScanningSettings, 'max_angle', 'multibeam'),
]


@pytest.mark.parametrize(('mode', 'record', 'name', 'user'), SHARED_UNUSED)
def test_a_mode_refuses_a_shared_setting_it_does_not_use(
    mode: str, record: type[Any], name: str, user: str
) -> None:
    """``rays`` (one cone's) in the modes that cast their own rays per beam, ``update_rate`` in
    the sweep (it steps every step_period), the sector in the side-scan (two fixed channels):
    refused in one line; taken where used (the control)."""
    value = 0.5 if name == 'max_angle' else 7
    setup = setup_of(mode, record, **{name: value})
    with pytest.raises(DescriptionError) as refused:
        build_device(robot_of(mode), setup)
    line = str(refused.value)
    assert '\n' not in line
    assert f'mode {mode} does not use {name}' in line, line
    build_device(robot_of(user), setup_of(user, record, **{name: value}))  # its user takes it
