"""Every kind of device, one module each, registered in one table: :data:`KINDS`.

A kind's module holds its settings records, its builder, its device (where it has its own)
and the outputs it offers (``base.Kind``). The builder (``devices/build.py``), the nodes'
parameters (``ros/device_node.py``, ``ros/params.py``) and their outputs (``ros/outputs.py``)
read this table; adding a kind is a module and a row here (docs/architecture.md).

:data:`FAMILY_RECORDS` are the settings records a node of each family shares among its
kinds; :class:`ModeSettings` chooses a scanning node's kind by name, among this table's rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nps_sonar_py.devices.kinds import (
    array,
    echosounder,
    multibeam,
    scanner,
    sidescan,
    single_beam,
    sweep,
)
from nps_sonar_py.devices.kinds.base import Built, Family, Kind, Setup, Unused
from nps_sonar_py.devices.settings import (
    BeamSettings,
    GeometrySettings,
    ImageSettings,
    OutputSettings,
    RangerSettings,
    ScanningSettings,
    SelectionSettings,
    SensorSettings,
)
from nps_sonar_py.records import Record, choice_text, setting

__all__ = [
    'FAMILY_RECORDS',
    'KINDS',
    'Built',
    'Family',
    'Kind',
    'ModeSettings',
    'Setup',
    'Unused',
    'family_kinds',
    'family_records',
    'kind_of',
]

#: Every kind, by name: one row each.
KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in (
        single_beam.KIND,
        array.KIND,
        scanner.KIND,
        sweep.KIND,
        multibeam.KIND,
        sidescan.KIND,
        echosounder.KIND,
    )
}


def family_kinds(family: Family) -> tuple[Kind, ...]:
    """The kinds a node of ``family`` runs, in table order."""
    return tuple(kind for kind in KINDS.values() if kind.family is family)


def _modes() -> tuple[str, ...]:
    """The names of the scanning node's kinds: the choices of ``mode``, read from the table."""
    return tuple(kind.name for kind in family_kinds(Family.SCANNING))


@dataclass(frozen=True)
class ModeSettings(Record):
    """Which of its kinds a scanning node simulates: a row of :data:`KINDS` by name."""

    mode: str = setting('sweep', lambda: _mode_text(), choices=_modes)


def _mode_text() -> str:
    """The description of ``mode``: each scanning kind and its summary."""
    kinds = [f'{k.name} ({k.summary})' for k in family_kinds(Family.SCANNING)]
    return f'the kind of device: {choice_text(tuple(kinds))}'


#: The settings records each family's node shares among its kinds, in declaration order.
FAMILY_RECORDS: dict[Family, tuple[type[Record], ...]] = {
    Family.SONAR: (SensorSettings, OutputSettings, BeamSettings),
    Family.RANGER: (
        SelectionSettings,
        RangerSettings,
        GeometrySettings,
        OutputSettings,
        BeamSettings,
    ),
    Family.SCANNING: (
        SensorSettings,
        ModeSettings,
        ScanningSettings,
        GeometrySettings,
        OutputSettings,
        BeamSettings,
        ImageSettings,
    ),
}


def family_records(family: Family) -> tuple[type[Record], ...]:
    """The records of a ``family`` node's device: the shared ones, then each kind's own."""
    records = list(FAMILY_RECORDS[family])
    for kind in family_kinds(family):
        records += [r for r in kind.records if r not in records]
    return tuple(records)


def kind_of(device: Any) -> Kind:
    """The kind whose builder makes ``device`` (by its exact class)."""
    for kind in KINDS.values():
        if type(device) is kind.device:
            return kind
    raise KeyError(f'no kind makes a {type(device).__name__}')
