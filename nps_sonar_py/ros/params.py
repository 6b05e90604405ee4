"""ROS parameters from the settings records: declared from one table, read back as frozen records.

Each field of a record of ``nps_sonar_py.devices.settings`` is one parameter, declared with
a ``ParameterDescriptor`` (description, range, choices, read-only flag), so that
``config/*.yaml``, the launch files, the tests and ``ros2 param describe`` agree. A choice
(an enum field) is a string parameter; its allowed values are the descriptor's
``additional_constraints``. :func:`read_settings` is the one reader: it turns the node's
current values (with pending changes, for a run-time change) into the records, which check
them (types, bounds and choices: ``devices.settings.check_record``) and turn a choice's
string into its enum member.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor
from rclpy.node import Node
from rclpy.parameter import Parameter

from nps_sonar_py.devices.settings import RENAMED, renamed_problem
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.records import SettingSpec, specs, supplied_defaults
from nps_sonar_py.ros.overrides import refuse_hidden_override

__all__ = [
    'Settings',
    'declare_settings',
    'descriptor',
    'parameter_specs',
    'read_settings',
    'supplied_line',
]

R = TypeVar('R')


class Settings:
    """A node's settings records, one per record class: ``settings[BeamSettings]``."""

    def __init__(self, records: Iterable[Any]) -> None:
        self._records = {type(r): r for r in records}

    def __getitem__(self, record: type[R]) -> R:
        value: R = self._records[record]
        return value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Settings) and self._records == other._records

    def __hash__(self) -> int:
        return hash(tuple(self._records.values()))


def parameter_specs(records: Iterable[type[Any]]) -> list[SettingSpec]:
    """The specs of every field of ``records``, in order; a name given twice is an error."""
    seen: dict[str, SettingSpec] = {}
    for record in records:
        for spec in specs(record):
            if spec.name in seen:
                msg = f'parameter {spec.name!r} is declared by two settings records'
                raise ValueError(msg)
            seen[spec.name] = spec
    return list(seen.values())


def descriptor(spec: SettingSpec, *, read_only: bool) -> ParameterDescriptor:
    """The rcl descriptor: description, range (enforced by rclpy), choices, read-only flag."""
    result = ParameterDescriptor(description=spec.description, read_only=read_only)
    if spec.choices:
        result.additional_constraints = f'one of: {", ".join(spec.choices)}'

    if spec.low is None or spec.high is None or isinstance(spec.default, bool):
        return result
    low, high = spec.low, spec.high
    if spec.zero:  # 0 too: the record refuses the gap between 0 and the bounds
        low, high = min(0.0, low), max(0.0, high)
    if isinstance(spec.default, int):
        result.integer_range = [IntegerRange(from_value=int(low), to_value=int(high), step=1)]
    elif isinstance(spec.default, float):
        low, high = float(low), float(high)
        result.floating_point_range = [FloatingPointRange(from_value=low, to_value=high, step=0.0)]
    return result


def declare_settings(node: Node, records: Iterable[type[Any]], *, runtime: bool) -> dict[str, Any]:
    """Declare a parameter per field of ``records``; ``runtime`` lets the run-time ones change.

    A setting that supplies others' defaults (``sonar_preset``: ``SettingSpec.supplies``) is
    declared first; the others are then declared with the defaults it gives, so that a value
    from a parameter file or ``-p`` wins over them. Returns those supplied defaults by name.
    """
    every = parameter_specs(records)
    suppliers = [spec for spec in every if spec.supplies is not None]
    for spec in suppliers:
        _declare(node, spec, spec.plain_default, runtime=runtime)
    supplied = supplied_defaults(suppliers, lambda spec: node.get_parameter(spec.name).value)
    for spec in every:
        if spec.supplies is None:
            _declare(node, spec, supplied.get(spec.name, spec.plain_default), runtime=runtime)
    _refuse_renamed(node)
    return supplied


def _refuse_renamed(node: Node) -> None:
    """``ConfigurationError`` (one line, the new name) for a value given under an old name."""
    for old in RENAMED:
        if node.has_parameter(old):
            continue
        given = node.declare_parameter(old, None, ParameterDescriptor(dynamic_typing=True))
        node.undeclare_parameter(old)
        problem = renamed_problem(old)
        if given.value is not None and problem:
            raise ConfigurationError(problem)


def _declare(node: Node, spec: SettingSpec, default: Any, *, runtime: bool) -> None:
    """Declare ``spec``'s parameter with ``default``, read-only unless it may change now."""
    read_only = not (runtime and spec.runtime)
    if default == []:  # an empty array has no type of its own: an array of doubles
        default = Parameter.Type.DOUBLE_ARRAY
    node.declare_parameter(spec.name, default, descriptor(spec, read_only=read_only))
    refuse_hidden_override(node, spec.name)  # a -p that a --params-file would hide


def supplied_line(node: Node, records: Iterable[type[Any]], supplied: Mapping[str, Any]) -> str:
    """The line a node logs on the defaults a preset gave it, and those given that won over it."""
    chosen = ', '.join(
        f'{spec.name} {node.get_parameter(spec.name).value}'
        for spec in parameter_specs(records)
        if spec.supplies is not None
    )
    kept = [name for name, value in supplied.items() if node.get_parameter(name).value != value]
    line = f'{chosen} sets {", ".join(supplied)} (docs/presets.md)'
    return f'{line}; given, kept over it: {", ".join(kept)}' if kept else line


def _value(spec: SettingSpec, value: Any) -> Any:
    if value is None:  # a typed parameter declared without a value
        return spec.default
    if isinstance(spec.default, tuple):
        return tuple(float(v) for v in value)
    return value


def read_settings(
    node: Node, records: Iterable[type[Any]], changes: Mapping[str, Any] | None = None
) -> Settings:
    """The records of ``node``'s parameters, with ``changes`` (name -> value) over them."""
    changes = changes or {}
    made = []
    for record in records:
        values = {}
        for spec in specs(record):
            value = (
                changes[spec.name]
                if spec.name in changes
                else node.get_parameter_or(spec.name, Parameter(spec.name)).value
            )
            values[spec.name] = _value(spec, value)
        made.append(record(**values))
    return Settings(made)
