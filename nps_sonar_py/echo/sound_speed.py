"""The sound-speed profile of the water: speed against depth, from a table, a file or a CTD cast.

A :class:`SoundSpeedProfile` is a table of depths (m, positive down from the sea surface,
strictly increasing) and sound speeds (m/s). Between two rows the speed is linear in depth
(a constant gradient: the rays of ``echo.ray_trace`` are circular arcs there); above the
first row the first speed holds, below the last row the last. Temperature and salinity
against depth become speeds by Mackenzie's (1981) nine-term equation
(:func:`mackenzie_1981`), whose validity range is checked. ``docs/refraction.md`` has the
model and its sources. No rclpy, numpy only.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.errors import InputError
from nps_sonar_py.input_files import read_input_file

__all__ = [
    'MACKENZIE_VALIDITY',
    'MAX_LAYERS',
    'MAX_PROFILE_BYTES',
    'MAX_SPEED',
    'MIN_SPEED',
    'SoundSpeedProfile',
    'mackenzie_1981',
    'mackenzie_problem',
    'read_profile_file',
]

#: Most rows a profile may hold (checked before anything of that size is allocated).
MAX_LAYERS = 10_000
#: Largest profile file read, bytes: 16 MiB. 10 000 rows of three numbers take well under
#: 1 MiB; the rest leaves room for comments without letting a mistaken file fill memory.
MAX_PROFILE_BYTES = 16 * 2**20
#: Sound speeds accepted in water, m/s (sea water spans about 1400 to 1600 m/s).
MIN_SPEED = 1300.0
MAX_SPEED = 1800.0
#: Deepest row accepted, m (the deepest ocean is about 11 km).
MAX_DEPTH = 12_000.0
#: Mackenzie (1981)'s range: temperature (deg C), salinity (ppt), depth (m), each (low, high).
MACKENZIE_VALIDITY = {
    'temperature': (-2.0, 30.0),
    'salinity': (25.0, 40.0),
    'depth': (0.0, 8000.0),
}


def mackenzie_problem(depth: float, temperature: float, salinity: float) -> str | None:
    """Why Mackenzie's equation does not hold at this point (``None``: it does)."""
    values = {'temperature': temperature, 'salinity': salinity, 'depth': depth}
    units = {'temperature': 'deg C', 'salinity': 'ppt', 'depth': 'm'}
    for name, value in values.items():
        low, high = MACKENZIE_VALIDITY[name]
        if not math.isfinite(value):
            return f'{name} must be finite, got {value!r}'
        if not low <= value <= high:
            return (
                f'{name} {value:g} {units[name]} is outside the validity of Mackenzie (1981), '
                f'[{low:g}, {high:g}] {units[name]}'
            )
    return None


def mackenzie_1981(depth: float, temperature: float, salinity: float) -> float:
    """Sound speed in sea water, m/s, by Mackenzie's (1981) nine-term equation.

    K. V. Mackenzie, "Nine-term equation for sound speed in the oceans", J. Acoust. Soc. Am.
    70(3), 807-812, 1981: valid for temperature -2..30 deg C, salinity 25..40 ppt and depth
    0..8000 m (standard error 0.07 m/s); a point outside is refused (``ValueError``, one line).

    Args:
        depth: m below the sea surface.
        temperature: deg C.
        salinity: ppt (parts per thousand).

    >>> round(mackenzie_1981(1000.0, 25.0, 35.0), 3)
    1550.744
    """
    problem = mackenzie_problem(depth, temperature, salinity)
    if problem is not None:
        raise ValueError(problem)
    t, s, d = temperature, salinity - 35.0, depth
    return (
        1448.96
        + 4.591 * t
        - 5.304e-2 * t**2
        + 2.374e-4 * t**3
        + 1.340 * s
        + 1.630e-2 * d
        + 1.675e-7 * d**2
        - 1.025e-2 * t * s
        - 7.139e-13 * t * d**3
    )


def _row_problem(depth: float, speed: float, previous: float | None) -> str | None:
    """Why ``(depth, speed)`` cannot follow a row at ``previous`` depth."""
    if not (math.isfinite(depth) and math.isfinite(speed)):
        return f'depth and speed must be finite, got {depth!r}, {speed!r}'
    if not 0.0 <= depth <= MAX_DEPTH:
        return f'depth must be in [0, {MAX_DEPTH:g}] m below the surface, got {depth:g}'
    if previous is not None and depth <= previous:
        return f'depths must be strictly increasing, got {depth:g} after {previous:g}'
    if not MIN_SPEED <= speed <= MAX_SPEED:
        return f'sound speed must be in [{MIN_SPEED:g}, {MAX_SPEED:g}] m/s, got {speed:g}'
    return None


@dataclass(frozen=True, eq=False)  # arrays: compare fields with numpy
class SoundSpeedProfile:
    """Sound speed against depth: linear between rows, constant beyond the first and last.

    Attributes:
        depths: (k,) float64 m below the sea surface, strictly increasing, >= 0.
        speeds: (k,) float64 m/s.
        source: where the table came from (a file, a parameter), for messages.

    """

    depths: NDArray[np.float64]
    speeds: NDArray[np.float64]
    source: str = '<profile>'

    @classmethod
    def constant(cls, speed: float) -> SoundSpeedProfile:
        """One speed at every depth (the default medium: straight rays)."""
        return cls.from_rows([(0.0, speed)], source='<constant>')

    @classmethod
    def from_rows(
        cls, rows: Sequence[Sequence[float]], *, source: str, lines: Sequence[int] | None = None
    ) -> SoundSpeedProfile:
        """A profile from ``(depth, speed)`` rows; ``InputError`` naming ``source`` and the row.

        Args:
            rows: ``(depth m, speed m/s)`` pairs, depth strictly increasing.
            source: the file or parameter they came from.
            lines: the line of ``source`` each row came from (for a file), else rows count
                from 1.

        """
        if len(rows) > MAX_LAYERS:
            raise InputError(f'more than {MAX_LAYERS} rows ({len(rows)})', file=source)
        if len(rows) == 0:
            raise InputError('no rows: a profile needs at least one (depth, speed)', file=source)
        previous: float | None = None
        for i, row in enumerate(rows):
            line = lines[i] if lines is not None else None
            element = f'row {i + 1}'
            if len(row) != 2:
                raise InputError(
                    f'a row holds depth and speed, got {len(row)} values',
                    file=source,
                    line=line,
                    element=element,
                )
            try:
                depth, speed = float(row[0]), float(row[1])
            except (TypeError, ValueError):
                raise InputError(
                    f'depth and speed must be numbers, got {row!r}',
                    file=source,
                    line=line,
                    element=element,
                ) from None
            problem = _row_problem(depth, speed, previous)
            if problem is not None:
                raise InputError(problem, file=source, line=line, element=element)
            previous = depth
        table = np.array([[float(r[0]), float(r[1])] for r in rows], dtype=np.float64)
        depths, speeds = np.ascontiguousarray(table[:, 0]), np.ascontiguousarray(table[:, 1])
        depths.flags.writeable = False
        speeds.flags.writeable = False
        return cls(depths, speeds, source)

    @classmethod
    def from_flat(cls, values: Sequence[float], *, source: str) -> SoundSpeedProfile:
        """A profile from ``[depth, speed, depth, speed, ...]`` (a ROS parameter's list)."""
        if len(values) > 2 * MAX_LAYERS:
            raise InputError(f'more than {MAX_LAYERS} rows ({len(values) // 2})', file=source)
        if len(values) % 2:
            raise InputError(
                f'a flat list of depth, speed pairs needs an even count, got {len(values)}',
                file=source,
            )
        pairs = [(values[i], values[i + 1]) for i in range(0, len(values), 2)]
        return cls.from_rows(pairs, source=source)

    @property
    def is_constant(self) -> bool:
        """Whether the speed is the same at every depth (straight rays)."""
        return bool(np.all(self.speeds == self.speeds[0]))

    def speed_at(self, depth: ArrayLike) -> NDArray[np.float64]:
        """Sound speed (m/s) at ``depth`` (m): linear between rows, constant beyond them."""
        z = np.asarray(depth, dtype=np.float64)
        return np.interp(z, self.depths, self.speeds)

    def gradients(self) -> NDArray[np.float64]:
        """(k - 1,) the speed gradient dc/dz of each layer between rows, 1/s."""
        return np.diff(self.speeds) / np.diff(self.depths)


_SPLIT = re.compile(r'[,;\s]+')
_UNITS = re.compile(r'[\[(][^\])]*[\])]')  # "[m/s]", "(deg C)" after a column name
_SPEED_NAMES = {'speed', 'sound_speed', 'c', 'velocity', 'sound_velocity', 'svp'}
_DEPTH_NAMES = {'depth', 'z', 'd'}
_TEMPERATURE_NAMES = {'temperature', 't', 'temp'}
_SALINITY_NAMES = {'salinity', 's', 'sal'}


def _columns(header: list[str], file: str, line: int) -> tuple[str, ...]:
    """The meaning of each column of a header line (``depth`` and ``speed`` or T and S)."""
    names: list[str] = []
    for word in header:
        key = word.strip().lower()
        for meaning, known in (
            ('depth', _DEPTH_NAMES),
            ('speed', _SPEED_NAMES),
            ('temperature', _TEMPERATURE_NAMES),
            ('salinity', _SALINITY_NAMES),
        ):
            if key in known:
                names.append(meaning)
                break
        else:
            raise InputError(
                f'unknown column {word!r}: expected depth and speed, or depth, temperature and '
                'salinity',
                file=file,
                line=line,
            )
    columns = tuple(names)
    if sorted(columns) not in (['depth', 'speed'], ['depth', 'salinity', 'temperature']):
        raise InputError(
            f'columns {", ".join(header)}: expected depth and speed, or depth, temperature and '
            'salinity',
            file=file,
            line=line,
        )
    return columns


def read_profile_file(path: str) -> SoundSpeedProfile:
    """A profile from a text table (an SVP or CTD cast); ``InputError`` naming the file and row.

    The form: one row per line, values separated by commas, semicolons or white space; blank
    lines and lines starting with ``#`` are skipped. An optional first line names the columns
    (``depth,speed`` or ``depth,temperature,salinity``, in any order; units in brackets are
    ignored: ``depth [m], speed [m/s]``). Without it, two columns are depth (m) and speed
    (m/s), three are depth (m), temperature (deg C) and salinity (ppt), turned into speed by
    :func:`mackenzie_1981` (its validity range checked per row). At most :data:`MAX_LAYERS`
    rows, and only a regular file of at most :data:`MAX_PROFILE_BYTES` (a FIFO or a device
    is refused before it is opened, as every input file is: ``input_files.read_input_file``).
    """
    data = read_input_file(path, InputError, what='sound-speed profile', limit=MAX_PROFILE_BYTES)
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError:
        raise InputError('not a text file (UTF-8)', file=path) from None
    rows: list[tuple[float, float]] = []
    lines: list[int] = []
    columns: tuple[str, ...] | None = None
    lines_read = text.replace('\r\n', '\n').replace('\r', '\n').split('\n')  # as open() does
    for number, line in enumerate(lines_read, start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith('#'):
            continue
        words = [w for w in _SPLIT.split(stripped) if w]
        if columns is None and not rows:
            try:
                [float(w) for w in words]
            except ValueError:
                names = _UNITS.sub(' ', stripped)
                columns = _columns([w for w in _SPLIT.split(names) if w], path, number)
                continue
            columns = (
                ('depth', 'speed') if len(words) == 2 else ('depth', 'temperature', 'salinity')
            )
        if columns is None:  # pragma: no cover - set above
            raise AssertionError
        if len(rows) >= MAX_LAYERS:
            raise InputError(f'more than {MAX_LAYERS} rows', file=path, line=number)
        rows.append(_row(words, columns, path, number, len(rows) + 1))
        lines.append(number)
    return SoundSpeedProfile.from_rows(rows, source=path, lines=lines)


def _row(
    words: list[str], columns: tuple[str, ...], path: str, line: int, index: int
) -> tuple[float, float]:
    """One ``(depth, speed)`` row of a file, its speed from T and S if the file gives those."""
    element = f'row {index}'
    if len(words) != len(columns):
        raise InputError(
            f'expected {len(columns)} values ({", ".join(columns)}), got {len(words)}',
            file=path,
            line=line,
            element=element,
        )
    try:
        values = dict(zip(columns, (float(w) for w in words), strict=True))
    except ValueError:
        raise InputError(
            f'values must be numbers, got {" ".join(words)!r}',
            file=path,
            line=line,
            element=element,
        ) from None
    depth = values['depth']
    if 'speed' in values:
        return depth, values['speed']
    problem = mackenzie_problem(depth, values['temperature'], values['salinity'])
    if problem is not None:
        raise InputError(problem, file=path, line=line, element=element)
    return depth, mackenzie_1981(depth, values['temperature'], values['salinity'])
