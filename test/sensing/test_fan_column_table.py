"""A formed fan's depth map finds each scatterer's ray column by a table, exactly (issue 33).

``fan_lighting._ColumnTable`` replaces a ``searchsorted`` over the fan's sorted column
azimuths by a look-up in a uniform grid a third of the smallest gap fine; it must answer as
``np.searchsorted`` does for every query, in single and double precision, at the azimuths
themselves and a rounding step either side, for evenly spaced columns, uneven ones and
repeated ones. Control: the same table with a grid step wider than the smallest gap (two
distinct azimuths in a cell) answers otherwise.
"""

from __future__ import annotations

import numpy as np
import pytest

from nps_sonar_py.sensing.fan_lighting import _ColumnTable

RNG = np.random.default_rng(5)
FANS = {
    'even': np.linspace(-0.7, 0.7, 4000),
    'uneven': np.sort(np.round(RNG.uniform(-1.0, 1.0, 3000), 3)),
    'repeated': np.repeat(np.linspace(-1.1, 1.1, 512), 3),
    'edges': np.sort(np.concatenate([np.linspace(-1.0, 1.0, 513), [1.013, 1.02, -1.013]])),
}


def queries(azimuth: np.ndarray, dtype: type) -> np.ndarray:
    """Random azimuths over and past the fan, and each column's own a rounding step either side."""
    spread = RNG.uniform(azimuth[0] - 0.3, azimuth[-1] + 0.3, 100_000)
    near = [azimuth, np.nextafter(azimuth, -np.inf), np.nextafter(azimuth, np.inf)]
    return np.concatenate([spread, *near]).astype(dtype)


@pytest.mark.parametrize('name', FANS)
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_the_table_answers_as_searchsorted(name: str, dtype: type) -> None:
    azimuth = FANS[name]
    table = _ColumnTable.of(azimuth)
    assert table is not None
    q = queries(azimuth, dtype)
    assert np.array_equal(table.right(q), np.searchsorted(azimuth, q))


def test_a_grid_coarser_than_the_gaps_misses() -> None:
    azimuth = FANS['uneven']
    gap = np.diff(np.unique(azimuth)).min()
    coarse = _ColumnTable(azimuth, 4.0 * gap)  # control: several azimuths a cell
    q = queries(azimuth, np.float64)
    assert not np.array_equal(coarse.right(q), np.searchsorted(azimuth, q))


def test_columns_too_close_fall_back() -> None:
    assert _ColumnTable.of(np.array([0.0, 1e-9, 1.0])) is None


def brute_nearest(azimuth: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Each query's nearest azimuth by the rule, written out: the lower of the two about it on
    a tie, the first past it found by ``searchsorted``."""
    right = np.clip(np.searchsorted(azimuth, q), 1, azimuth.size - 1)
    below, above = azimuth[right - 1], azimuth[right]
    return np.where(np.abs(q - below) <= np.abs(above - q), right - 1, right)


def midpoints(azimuth: np.ndarray, dtype: type) -> np.ndarray:
    """The midpoints between neighbours and a rounding step either side (the ties)."""
    middle = (0.5 * (azimuth[1:] + azimuth[:-1])).astype(dtype)
    return np.concatenate([middle, np.nextafter(middle, -np.inf), np.nextafter(middle, np.inf)])


@pytest.mark.parametrize('name', FANS)
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_the_nearest_column_table_answers_as_the_rule(name: str, dtype: type) -> None:
    azimuth = FANS[name]
    table = _ColumnTable.of(azimuth)
    assert table is not None
    q = np.concatenate([queries(azimuth, dtype), midpoints(azimuth, dtype)])
    assert np.array_equal(table.nearest(q), brute_nearest(azimuth, q))
    assert np.mean(table._column < 0) < 0.25  # most cells answer at once


def test_a_nearest_table_without_its_margins_misses() -> None:
    azimuth = FANS['uneven']
    table = _ColumnTable.of(azimuth)
    assert table is not None
    q = np.concatenate([queries(azimuth, np.float64), midpoints(azimuth, np.float64)])
    # Control: every cell answered from its centre, ties and breaks inside it ignored.
    fine = table._fine
    centre = table._low + fine * (np.arange(table._column.size) + 0.5)
    table._column = brute_nearest(azimuth, centre)
    assert not np.array_equal(table.nearest(q), brute_nearest(azimuth, q))
