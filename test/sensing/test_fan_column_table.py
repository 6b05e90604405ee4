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
