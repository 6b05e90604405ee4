"""Checks shared by the description's value objects: bounds, poses, and equality with arrays.

The value objects (geometry, sensor specs, joints) check themselves when built, so an
object that exists is valid whether it came from a file or from code. A failed check
raises :class:`FieldError`, a ``ValueError`` naming the field; the parsers turn it into a
:class:`~nps_sonar_py.errors.DescriptionError` that points at the element in the file.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import Field, dataclass, fields
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.limits import MAX_ANGLE, MAX_POSITION, MAX_RATE, MIN_RATE

__all__ = [
    'ANGLE',
    'COORDINATE',
    'FRACTION',
    'NON_NEGATIVE',
    'POSITIVE',
    'RATE',
    'Bound',
    'FieldError',
    'RecordEq',
    'as_transform',
    'check_fields',
]

FloatArray = NDArray[np.float64]


class FieldError(ValueError):
    """A field of a value object that breaks its constraint; ``field`` names it."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f'{field}: {problem}')


@dataclass(frozen=True)
class Bound:
    """An interval a number must lie in; ``None`` leaves that side open to infinity."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def problem(self, value: float) -> str | None:
        """Say what is wrong with ``value``; ``None`` when it lies in the interval."""
        try:
            finite = math.isfinite(value)
        except OverflowError:  # an int beyond float's range: finite, compared exactly below
            finite = True
        if not finite:
            return f'must be finite, got {value!r}'
        if self.low is not None and (value < self.low or (self.low_open and value == self.low)):
            return f'must be {">" if self.low_open else ">="} {_plain(self.low)}, got {value!r}'
        if self.high is not None and (
            value > self.high or (self.high_open and value == self.high)
        ):
            return f'must be {"<" if self.high_open else "<="} {_plain(self.high)}, got {value!r}'
        return None


def _plain(value: float) -> str:
    """A bound as people write it: ``4000000`` rather than ``4e+06``, else ``%g``."""
    if float(value).is_integer() and abs(value) < 1e16:
        return str(int(value))
    return f'{value:g}'


#: Lengths, standard deviations, radii.
NON_NEGATIVE = Bound(low=0.0)
#: Rates, resolutions, sizes that cannot be zero.
POSITIVE = Bound(low=0.0, low_open=True)
#: Coefficients such as the Lambert reflectivity.
FRACTION = Bound(low=0.0, high=1.0)
#: A coordinate of a position, m: the bound of scene files and messages (``limits``).
COORDINATE = Bound(low=-MAX_POSITION, high=MAX_POSITION)
#: An angle (of a roll-pitch-yaw, a scan), rad: as scene files and messages (``limits``).
ANGLE = Bound(low=-MAX_ANGLE, high=MAX_ANGLE)
#: A sensor's readings per second, Hz (``limits``): its period, in nanoseconds, stays a
#: whole, finite int64 for a timer.
RATE = Bound(low=MIN_RATE, high=MAX_RATE)


def check_fields(record: Any) -> None:
    """Check every dataclass field of ``record`` carrying a ``bound`` in its metadata.

    ``None`` passes (an optional value left out); ints and floats are checked alike.
    """
    for f in fields(record):
        bound = f.metadata.get('bound')
        value = getattr(record, f.name)
        if bound is None or value is None:
            continue
        problem = bound.problem(value)
        if problem is not None:
            raise FieldError(f.name, problem)


def as_transform(value: ArrayLike, field: str) -> FloatArray:
    """Copy a rigid 4x4 transform as a read-only float64 array, checking that it is one.

    Raises:
        FieldError: not 4x4, not finite, a translation beyond :data:`COORDINATE`, last row not
            ``0 0 0 1``, or rotation not orthonormal (tolerance 1e-6).

    """
    m = np.array(value, dtype=np.float64)
    if m.shape != (4, 4):
        raise FieldError(field, f'must be a 4x4 transform, got shape {m.shape}')
    # Plain floats: a robot has a transform per joint, and numpy's small-array calls
    # (allclose, det) cost more than the arithmetic.
    rows = m.tolist()
    if not all(math.isfinite(v) for row in rows for v in row):
        raise FieldError(field, 'must be finite')
    for row in rows[:3]:
        problem = COORDINATE.problem(row[3])
        if problem:
            raise FieldError(field, f'translation {[row[3] for row in rows[:3]]}: {problem}')
    if rows[3] != [0.0, 0.0, 0.0, 1.0]:
        raise FieldError(field, f'last row must be 0 0 0 1, got {rows[3]}')
    if not _is_rotation([row[:3] for row in rows[:3]]):
        raise FieldError(field, 'rotation part is not a rotation matrix')
    m.flags.writeable = False
    return m


def _is_rotation(r: list[list[float]]) -> bool:
    """Whether the 3x3 ``r`` is a rotation: ``allclose(r.T @ r, I, atol=1e-6)``, ``det >= 0``."""
    for i in range(3):
        for j in range(i, 3):
            dot = r[0][i] * r[0][j] + r[1][i] * r[1][j] + r[2][i] * r[2][j]
            target = 1.0 if i == j else 0.0
            if not abs(dot - target) <= 1e-6 + 1e-5 * target:
                return False
    (a, b, c), (d, e, f), (g, h, k) = r
    return a * (e * k - f * h) - b * (d * k - f * g) + c * (d * h - e * g) >= 0.0


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    return bool(a == b)


def _hashable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return (value.shape, value.tobytes())
    if isinstance(value, Sequence) and not isinstance(value, str):
        return tuple(_hashable(v) for v in value)
    return value


class RecordEq:
    """Field-wise equality and hashing for frozen dataclasses that hold numpy arrays.

    A dataclass's own ``__eq__`` compares field tuples, which fails on arrays; declare the
    dataclass with ``eq=False`` and inherit this instead. Arrays compare element-wise exactly.
    """

    __slots__ = ()

    def _compared(self) -> list[Field[Any]]:
        return [f for f in fields(cast(Any, self)) if f.compare]

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(_same(getattr(self, f.name), getattr(other, f.name)) for f in self._compared())

    def __hash__(self) -> int:
        return hash(
            tuple(_hashable(getattr(self, f.name)) for f in self._compared()),
        )
