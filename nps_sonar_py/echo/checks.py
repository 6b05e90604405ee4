"""Checks shared by the frozen configuration records: one message format, ``<name>: <reason>``.

Used by the records of ``echo`` and by the settings records of ``devices`` (public, so that
no layer imports another's private module).
"""

from __future__ import annotations

import math
from enum import Enum
from typing import NoReturn, TypeVar

from nps_sonar_py.errors import ConfigurationError

E = TypeVar('E', bound=Enum)


def fail(name: str, reason: str, value: object) -> NoReturn:
    """Raise ``ConfigurationError('<name>: <reason>, got <value>')``."""
    raise ConfigurationError(f'{name}: {reason}, got {value!r}')


def check(ok: bool, name: str, reason: str, value: object) -> None:
    """Raise the error of ``fail`` unless ``ok``."""
    if not ok:
        fail(name, reason, value)


def finite(name: str, value: object) -> float:
    """``value`` as a float, which must be a finite real number (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        fail(name, 'must be a real number', value)
    if not math.isfinite(value):
        fail(name, 'must be finite', value)
    return float(value)


def enum_member(enum: type[E], value: object, name: str) -> E:
    """``value``, which must be a member of ``enum``: a string is refused, not converted.

    Settings reach the core as enum members (``devices/settings.py`` converts the ROS
    parameters once, where they are declared), so a string here is a caller's mistake.
    """
    if isinstance(value, enum):
        return value
    choices = ', '.join(repr(m.value) for m in enum)
    fail(name, f'must be one of {choices} (a {enum.__name__} member)', value)


def member(enum: type[E], value: object, name: str) -> E:
    """``value`` as a member of ``enum``, also accepted as its string value (ROS parameters)."""
    if isinstance(value, enum):
        return value
    try:
        return enum(value)
    except ValueError:
        choices = ', '.join(repr(m.value) for m in enum)
        fail(name, f'must be one of {choices}', value)
