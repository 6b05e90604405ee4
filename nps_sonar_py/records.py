"""Frozen configuration records checked by one mechanism: every setting, in every layer.

A record is a frozen dataclass deriving from :class:`Record` whose fields are declared with
:func:`setting` (default, description, bounds, choices, whether it may change at run time).
The field's annotation is its type (``bool``, ``int``, ``float``, ``str``, a tuple of floats,
or an enum of choices), and :func:`check_record` checks every field from its type and
metadata when the record is made: one mechanism, one message format, ``<name> must be ...,
got <value>``. The core's own configurations (``sensing``) and the settings records of
``devices`` (and, through them, every ROS parameter: ``ros/params.py``) use it, so a bound is
declared once, where its setting is, and says itself the same way from Python and from ROS.

An enum field also takes its value's string (as a ROS parameter holds it) and keeps the
member, unless the record's ``members_only`` is set (a core record, whose callers hand it
members: a string there is a caller's mistake). A field may also be ``X | None`` (``None``
passes, anything else is checked as ``X``), an enum or a number (``CastLimit | float``), or a
record of its own (``Environment``), which must be an instance of it (it checked itself). A
``str`` field with ``choices`` takes only those; its choices may be a function (read at each
check), for a choice whose values are a table's keys (``mode``: the kinds of
``devices/kinds``). A shared root module: it imports no layer.
"""

from __future__ import annotations

import dataclasses
import math
import re
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar, NoReturn

import numpy as np

from nps_sonar_py.errors import ConfigurationError

__all__ = [
    'Record',
    'SettingSpec',
    'check_record',
    'choice_text',
    'in_setting_names',
    'plain',
    'read_records',
    'refuse',
    'same_as',
    'setting',
    'specs',
    'supplied_defaults',
]


@dataclass(frozen=True)
class SettingSpec:
    """One setting: name, default, description, bounds, choices, whether it may change at run time.

    ``runtime`` settings may change while a node runs when that node takes run-time changes
    (the sonar node); the others need a restart. ``choices``: the allowed values as strings
    (an enum field's values, or a field's own list), empty when any value of the type will do.
    ``zero``: 0 is a value of its own (off, or "take the default"), outside ``low``..``high``.
    ``above``: ``low`` itself is refused (``(low, high]``). ``low`` ``-inf``: ``-inf`` is taken
    besides the finite numbers (``threshold_db``: any echo). ``supplies``: for a setting that
    gives other settings their defaults (a preset, ``sonar_preset``), the function of its value
    that returns them by name; ``ConfigurationError`` for a value it refuses. ``longest``: the
    most numbers a list setting takes (checked before its numbers are read).
    """

    name: str
    default: Any
    description: str
    low: float | None = None
    high: float | None = None
    runtime: bool = False
    choices: tuple[str, ...] = ()
    zero: bool = False
    above: bool = False
    supplies: Callable[[Any], dict[str, Any]] | None = None
    longest: int | None = None

    @property
    def plain_default(self) -> Any:
        """The default as YAML files and ROS parameters hold it (arrays as lists)."""
        return plain(self.default)


def plain(value: Any) -> Any:
    """``value`` as YAML files and ROS parameters hold it: a tuple as a list, a choice as str."""
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Enum):
        return value.value
    return value


def setting(
    default: Any,
    description: str | Callable[[], str],
    low: float | None = None,
    high: float | None = None,
    *,
    runtime: bool = False,
    choices: tuple[Any, ...] | Callable[[], tuple[Any, ...]] = (),
    zero: bool = False,
    above: bool = False,
    supplies: Callable[[Any], dict[str, Any]] | None = None,
    longest: int | None = None,
) -> Any:
    """A record field carrying its :class:`SettingSpec` (name filled in by :func:`specs`).

    The field's annotation is its type; ``low`` and ``high`` bound a number (each element of
    a tuple); ``choices`` lists the allowed values of a field that is not an enum; ``zero``
    allows 0 besides ``low``..``high`` (a positive number too small to mean anything, such as a
    beam width of 5e-324 rad, is refused rather than taken for "the URDF's"). ``description``
    and ``choices`` may be functions, read when used, for a setting whose text and values are
    a table's rows (``mode``). ``supplies``: the other settings' defaults this one's value
    gives (:class:`SettingSpec`; :func:`read_records`). ``longest``: the most numbers of a
    tuple (a list from a file is refused by its length before its numbers are read).
    """
    meta = {
        'description': description,
        'low': low,
        'high': high,
        'runtime': runtime,
        'choices': choices,
        'zero': zero,
        'above': above,
        'supplies': supplies,
        'longest': longest,
    }
    return dataclasses.field(default=default, metadata=meta)


def same_as(
    record: type[Any],
    name: str,
    description: str,
    *,
    runtime: bool = False,
    default: Any = dataclasses.MISSING,
    zero: bool | None = None,
) -> Any:
    """A field declared by ``record``'s field ``name``: its default, bounds and choices.

    For a setting whose parameter name differs from the core field it sets (``waterfall_lines``
    sets ``WaterfallConfig.lines``): its bounds are declared once, in the core's record, and
    checked by the same mechanism in both, in the same words; ``description`` is the
    parameter's. ``default`` and ``zero`` replace the core's for a parameter whose 0 means
    "take it from elsewhere" (``beam_width`` 0: the URDF cone), where the core has ``None``
    or no such value.
    """
    field = next(f for f in dataclasses.fields(record) if f.name == name)
    meta = field.metadata
    return setting(
        field.default if default is dataclasses.MISSING else default,
        description,
        meta['low'],
        meta['high'],
        runtime=runtime,
        choices=meta['choices'],
        zero=meta['zero'] if zero is None else zero,
        above=meta['above'],
        longest=meta.get('longest'),
    )


def refuse(name: str, must: str, value: object) -> NoReturn:
    """Raise ``ConfigurationError('<name> <must>, got <value>')``: the one refusal format.

    For the checks that are not a record's field (an argument's array shape, a relation
    between two models); ``must`` starts with ``must``.
    """
    raise ConfigurationError(f'{name} {must}, got {value!r}')


def in_setting_names(build: Callable[[], object], names: Mapping[str, str]) -> None:
    """Run ``build`` (it makes a core record); its refusal said in the settings' names.

    The relations between a core record's fields (``max_altitude >= min_altitude``) are
    checked once, by that record; a settings record whose fields set them (``same_as``) calls
    this in its ``__post_init__``, so that the refusal comes when the settings are read and
    names the parameters (``names``: core field -> setting).
    """
    try:
        build()
    except ConfigurationError as error:
        text = str(error)
        for field, name in names.items():
            text = re.sub(rf'\b{field}\b', name, text)
        raise ConfigurationError(text) from None


_TYPES: dict[type[Any], dict[str, Any]] = {}


def _types(record: type[Any]) -> dict[str, Any]:
    """The field types of ``record`` (annotations resolved once per class)."""
    if record not in _TYPES:
        _TYPES[record] = typing.get_type_hints(record)
    return _TYPES[record]


def specs(record: type[Any]) -> Iterator[SettingSpec]:
    """The :class:`SettingSpec` of every field of a settings record class, in order."""
    types = _types(record)
    for f in dataclasses.fields(record):
        meta = dict(f.metadata)
        meta.setdefault('supplies', None)
        if callable(meta['description']):
            meta['description'] = meta['description']()
        kind = types[f.name]
        allowed = _choices(meta.pop('choices', ()))
        if isinstance(kind, type) and issubclass(kind, Enum):
            allowed = tuple(m.value for m in kind)
        choices = tuple(str(c) for c in allowed)
        yield SettingSpec(f.name, f.default, **meta, choices=choices)


def _choices(choices: tuple[Any, ...] | Callable[[], tuple[Any, ...]]) -> tuple[Any, ...]:
    """A field's choices: its tuple, or what its function gives now."""
    return choices() if callable(choices) else choices


def choice_text(choices: tuple[str, ...]) -> str:
    """``a or b``, ``a, b or c``: the choices as an error message lists them."""
    return (
        ' or '.join(choices) if len(choices) < 3 else f'{", ".join(choices[:-1])} or {choices[-1]}'
    )


def _bounds_text(low: float | None, high: float | None, above: bool = False) -> str:
    if low == -math.inf:
        low = None
    if low is not None and high is not None:
        return f' in {"(" if above else "["}{low:g}, {high:g}]'
    if low is not None:
        return f' {">" if above else ">="} {low:g}'
    if high is not None:
        return f' <= {high:g}'
    return ''


def _number(
    name: str,
    kind: type,
    value: Any,
    low: float | None,
    high: float | None,
    zero: bool = False,
    above: bool = False,
) -> Any:
    """``value`` as a ``kind`` (int or float) within the bounds, else ConfigurationError."""
    what = 'an integer' if kind is int else 'a finite number'
    number = isinstance(value, (int, float, np.integer)) and not isinstance(value, bool)
    integer = isinstance(value, (int, np.integer))
    finite = number and (math.isfinite(value) or value == low == -math.inf)
    ok = number and (integer if kind is int else finite)
    ok = ok and (low is None or (value > low if above else value >= low))
    ok = ok and (high is None or value <= high)
    if not ok:
        what = f'-inf or {what}' if low == -math.inf else what
        what = f'0 or {what}' if zero else what
        bounds = _bounds_text(low, high, above)
        raise ConfigurationError(f'{name} must be {what}{bounds}, got {value!r}')
    return kind(value)


def _union(name: str, kind: Any, value: Any, meta: Mapping[str, Any], members_only: bool) -> Any:
    """``value`` checked against ``X | None`` (``None`` passes) or ``Enum | float``."""
    options = [k for k in typing.get_args(kind) if k is not type(None)]
    if value is None and len(options) < len(typing.get_args(kind)):
        return None
    enums = [k for k in options if isinstance(k, type) and issubclass(k, Enum)]
    if enums and isinstance(value, (enums[0], str)):
        return _checked(name, enums[0], value, meta, members_only)
    try:
        return _checked(name, options[-1], value, meta, members_only)
    except ConfigurationError as error:
        text = str(error).removeprefix(f'{name} must be ')
        if enums:
            text = f'{choice_text(tuple(str(m.value) for m in enums[0]))} or {text}'
        if len(options) < len(typing.get_args(kind)):
            text = f'None or {text}'
        raise ConfigurationError(f'{name} must be {text}') from None


def _checked(
    name: str, kind: Any, value: Any, meta: Mapping[str, Any], members_only: bool = False
) -> Any:
    """``value`` checked against the field's type and metadata, as the record keeps it."""
    low, high, choices = meta.get('low'), meta.get('high'), _choices(meta.get('choices', ()))
    if isinstance(kind, types.UnionType):
        return _union(name, kind, value, meta, members_only)
    if meta.get('zero') and value == 0 and not isinstance(value, bool):
        return kind(value)
    if isinstance(kind, type) and issubclass(kind, Enum):
        if isinstance(value, kind):
            return value
        values = tuple(str(m.value) for m in kind)
        if members_only:
            raise ConfigurationError(
                f'{name} must be {choice_text(values)} (a {kind.__name__} member), got {value!r}'
            )
        if isinstance(value, str) and value in values:
            return kind(value)
        raise ConfigurationError(f'{name} must be {choice_text(values)}, got {value!r}')
    if kind is bool:
        if not isinstance(value, bool):
            raise ConfigurationError(f'{name} must be true or false, got {value!r}')
        return value
    if kind is str:
        if not isinstance(value, str):
            raise ConfigurationError(f'{name} must be a string, got {value!r}')
        if choices and value not in choices:
            allowed = tuple(str(c) for c in choices)
            raise ConfigurationError(f'{name} must be {choice_text(allowed)}, got {value!r}')
        return value
    if kind in (int, float):
        zero, above = bool(meta.get('zero')), bool(meta.get('above'))
        checked = _number(name, kind, value, low, high, zero, above)
        if choices and checked not in choices:
            allowed = tuple(str(c) for c in choices)
            raise ConfigurationError(f'{name} must be {choice_text(allowed)}, got {value!r}')
        return checked
    if typing.get_origin(kind) is tuple:
        return _numbers(name, value, low, high, meta.get('longest'))
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        if not isinstance(value, kind):
            raise ConfigurationError(f'{name} must be a {kind.__name__}, got {value!r}')
        return value
    raise TypeError(f'setting {name}: no check for the type {kind!r}')  # a record's own bug


#: A refused list longer than this is shown by its first wrong element, not whole.
_SHOWN = 16


def _numbers(
    name: str, value: Any, low: float | None, high: float | None, longest: int | None
) -> tuple[float, ...]:
    """``value`` as a tuple of finite floats within the bounds, else ConfigurationError.

    Its length is checked first (``longest``), so that a huge list is refused by its size
    alone; a long list's refusal names its first wrong element, to keep it one short line.
    """
    if not isinstance(value, (tuple, list)):
        raise ConfigurationError(f'{name} must be a list of numbers, got {value!r}')
    if longest is not None and len(value) > longest:
        raise ConfigurationError(f'{name} must hold at most {longest} numbers, got {len(value)}')
    what = f'finite numbers{_bounds_text(low, high)}'
    try:
        return tuple(_number(name, float, v, low, high) for v in value)
    except ConfigurationError:
        if len(value) > _SHOWN:
            k, wrong = next(
                (k, v) for k, v in enumerate(value) if not _is_number(v, float, low, high)
            )
            shown = f'{wrong!r} at [{k}] of {len(value)}'
            raise ConfigurationError(f'{name} must be {what}, got {shown}') from None
        listed = [v if isinstance(v, bool) or not isinstance(v, int) else float(v) for v in value]
        raise ConfigurationError(f'{name} must be {what}, got {listed!r}') from None


def _is_number(value: Any, kind: type, low: float | None, high: float | None) -> bool:
    """Whether :func:`_number` takes ``value``."""
    try:
        _number('', kind, value, low, high)
    except ConfigurationError:
        return False
    return True


def check_record(record: Any) -> None:
    """Check every field of ``record`` by its type and metadata; keep enum members and floats.

    The one check of every setting (types, bounds, choices): :class:`Record` calls it on
    creation. Raises ``ConfigurationError`` naming the field.
    """
    kinds = _types(type(record))
    members_only = bool(getattr(record, 'members_only', False))
    prefix = str(getattr(record, 'prefix', ''))
    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        checked = _checked(prefix + f.name, kinds[f.name], value, f.metadata, members_only)
        if checked is not value:
            object.__setattr__(record, f.name, checked)


class Record:
    """Base of the settings records: each is checked on creation by :func:`check_record`.

    ``members_only``: an enum field refuses its value's string (a core record, whose callers
    convert strings where they read them). ``prefix``: put before each field's name in a
    refusal, for a record held by another (``environment.``: ``environment.depth must be ...``).
    """

    members_only: ClassVar[bool] = False
    prefix: ClassVar[str] = ''

    def __post_init__(self) -> None:
        check_record(self)


def supplied_defaults(
    settings: Iterable[SettingSpec], value_of: Callable[[SettingSpec], Any]
) -> dict[str, Any]:
    """The defaults the supplying settings among ``settings`` give, by name (``supplies``).

    ``value_of(spec)`` is a supplying setting's value; ``ConfigurationError`` for one its
    function refuses (an unknown preset).
    """
    supplied: dict[str, Any] = {}
    for spec in settings:
        if spec.supplies is not None:
            supplied.update(spec.supplies(value_of(spec)))
    return supplied


def read_records(records: Iterable[type[Any]], values: Mapping[str, Any]) -> list[Any]:
    """The records of the classes ``records`` from ``values`` (name -> value), as a node would.

    A setting not in ``values`` takes what a supplying setting gives it (a preset), else its
    default: a value given wins over a preset, as a parameter does in a node.
    """
    classes = list(records)
    every = [spec for record in classes for spec in specs(record)]
    supplied = supplied_defaults(every, lambda spec: values.get(spec.name, spec.default))
    made = []
    for record in classes:
        fields = {
            spec.name: values.get(spec.name, supplied.get(spec.name, spec.default))
            for spec in specs(record)
        }
        made.append(record(**fields))
    return made
