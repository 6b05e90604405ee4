"""The range gain law a side-scan record was stored with, read from its own seabed.

A side-scan's stored seabed level is ``L(r, h) = f(r) + g(theta)``: a part that depends on
the slant range only (the device's gain and TVG, the spreading ``-40 log r``, the two-way
absorption and the footprint's ``+10 log r`` along track) and a part that depends on the
grazing angle only (the seabed's backscatter strength, the across-track footprint's
``1 / cos theta`` and the transducer's vertical pattern, whose depression is the grazing
angle over a flat seabed). One range is seen at many grazing angles when the altitude
changes along the line, so the two parts separate: a least-squares fit of the mean level of
each (range cell, grazing cell) to ``f_r + g_theta`` (Lurton, *An Introduction to Underwater
Acoustics*, 2nd ed. 2010, ch. 3 and 8, on TVG and the seabed's echo level; the same
separation of angular and range dependence underlies backscatter mosaic corrections).

With a TVG ``n log r + 2 alpha r`` that restores the absorption, ``f(r) = (n - 30) log r``
plus a constant, so the slope of ``f`` against ``10 log10 r`` gives ``n`` (``docs/realism.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo.display import Tvg
from nps_sonar_py.errors import ConfigurationError

__all__ = ['RangeLaw', 'nearest_tvg', 'range_law']

Image = NDArray[np.float64]


@dataclass(frozen=True)
class RangeLaw:
    """The range factor of a seabed's level and the TVG exponent it implies.

    Attributes:
        ranges: (k,) centres of the range cells fitted, m.
        level_db: (k,) the range factor ``f(r)`` there, dB about its mean.
        exponent: ``n`` of the TVG ``n log r + 2 alpha r`` that gives this ``f``.
        residual_db: RMS misfit of ``f_r + g_theta`` to the cells' mean levels, dB.
    """

    ranges: NDArray[np.float64]
    level_db: NDArray[np.float64]
    exponent: float
    residual_db: float


def range_law(
    intensity: Image,
    ranges: NDArray[np.float64],
    altitude: NDArray[np.float64],
    cells: tuple[float, float] = (1.0, 3.0),
    min_count: int = 200,
) -> RangeLaw:
    """Separate a side-scan's seabed level (pings, samples) into range and grazing factors.

    Args:
        intensity: linear intensity after the device's gain, (pings, samples).
        ranges: (samples,) slant range of each sample, m.
        altitude: (pings,) the sonar's altitude at each ping, m (a flat seabed assumed).
        cells: the range cell, m, and the grazing cell, degrees.
        min_count: samples a (range, grazing) cell needs to take part.

    Only samples past ``1.3`` times the altitude plus 1 m are used (clear of the first
    return). Raises ``ConfigurationError`` when fewer than three range cells remain.
    """
    values = np.asarray(intensity, dtype=np.float64)
    r = np.broadcast_to(np.asarray(ranges, dtype=np.float64)[None, :], values.shape)
    h = np.broadcast_to(np.asarray(altitude, dtype=np.float64)[:, None], values.shape)
    use = (r > 1.3 * h + 1.0) & (values > 0.0)
    grazing = np.degrees(np.arcsin(np.clip(h / np.maximum(r, 1e-9), 0.0, 1.0)))
    range_cell = np.floor(r[use] / cells[0]).astype(np.int64)
    angle_cell = np.floor(grazing[use] / cells[1]).astype(np.int64)
    keys, index = np.unique(range_cell * 100_000 + angle_cell, return_inverse=True)
    counts = np.bincount(index)
    means = np.bincount(index, values[use]) / np.maximum(counts, 1)
    kept = counts >= min_count
    level = 10.0 * np.log10(means[kept])
    range_of, angle_of = keys[kept] // 100_000, keys[kept] % 100_000
    range_ids, range_at = np.unique(range_of, return_inverse=True)
    angle_ids, angle_at = np.unique(angle_of, return_inverse=True)
    if range_ids.size < 3:
        msg = f'range law: {range_ids.size} range cells with {min_count} samples (needs 3)'
        raise ConfigurationError(msg)
    design = np.zeros((level.size, range_ids.size + angle_ids.size))
    design[np.arange(level.size), range_at] = 1.0
    design[np.arange(level.size), range_ids.size + angle_at] = 1.0
    solution = np.linalg.lstsq(design, level, rcond=None)[0]
    factor = solution[: range_ids.size]
    centres = (range_ids + 0.5) * cells[0]
    slope = float(np.polyfit(10.0 * np.log10(centres), factor, 1)[0])
    residual = float(np.sqrt(np.mean((design @ solution - level) ** 2)))
    return RangeLaw(centres, factor - factor.mean(), 30.0 + 10.0 * slope, residual)


def nearest_tvg(exponent: float) -> Tvg:
    """The device TVG law (none, ``20 log r``, ``40 log r``) nearest a fitted ``n``."""
    return min(Tvg, key=lambda law: abs(10.0 * law.exponent - exponent))
