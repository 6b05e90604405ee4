"""Where the echo of a fan's ray cell falls in range: its cell's interval and echo density.

A fan's ray ``d`` stands for a cell ``D`` tall in elevation (``d(tau) = cos(tau) d + sin(tau)
t``, ``|tau| <= D / 2``, ``t`` the elevation tangent). On the plane it hits, at incidence
``alpha`` and range ``r``, that rotation meets the plane at

    R(theta) = p / cos(theta),    theta in [theta0 - D/2, theta0 + D/2],

with ``theta`` the angle from the foot of the perpendicular to the plane within the plane of
``d`` and ``t``, ``tan(theta0) = |t . n| / |d . n|`` and ``p = r cos(theta0)``; the sonar's
footprint ``e = r |t . n| D / |d . n|`` gives ``theta0 = atan(e / (r D))``. The echo law
(``docs/physics.md#the-model``) per unit ``theta`` is ``cos(alpha) / R**2 exp(-2 a' R)``,
proportional to ``w(theta) = cos(theta)**3 exp(-2 a' R(theta))`` (the cell's solid angle and
the patterns taken as constant over it), so per metre of range it is

    q(R) = w / (dR / dtheta) ~ (p / R)**5 / sqrt(1 - (p / R)**2) exp(-2 a' R),

steep (as ``R**-5``) and not the flat box about ``r`` it was: with 24 rows over 20 degrees a
cell spans up to 8 % of its range at 10 degrees depression, over which ``q`` changes by 40 %.

Two placements, both of the cell's own interval ``[R(theta0 - D/2), R(theta0 + D/2)]``:

* ``quadratic_ramps``: ``q`` to second order about ``r`` (from the derivatives of ``ln q``),
  scaled to the ray's echo over the interval (its third-order error about ``35 d**3`` for a
  cell spanning ``2 d`` of its range: 0.2 % at 8 %, 0.8 % at ``WIDEST_SPAN``); its integral
  over the bins is summed as ``deposits.Ramps`` of order 3.
* ``exact_pieces``: the returns whose cell lies within ``NEAR_NORMAL_CELLS`` cells of the normal
  (where ``R`` turns: at nadir the cell starts at ``p``, never before it) or spans more than
  ``WIDEST_SPAN`` of its range (towards grazing): the share of the cell nearer than each bin
  edge, ``|theta| <= acos(p / R)``, by the closed form of ``int cos(theta)**3`` and ``int
  theta cos(theta)**3``, the absorption linear across the cell. One piece per bin.

``docs/echo.md`` (A fan's cells).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo.deposits import Ramps
from nps_sonar_py.echo.ray_cells import Pieces

__all__ = [
    'NEAR_NORMAL_CELLS',
    'WIDEST_SPAN',
    'CellGeometry',
    'exact_cells',
    'exact_pieces',
    'quadratic_ramps',
]

#: A cell whose centre lies within this many cells of the surface normal is placed exactly.
NEAR_NORMAL_CELLS = 4.0
#: A cell whose far range exceeds its near one by more than this share is placed exactly.
WIDEST_SPAN = 0.12
#: Relative range below which a cell's near end is taken to lie on the bin edge it is that
#: close to: Open3D casts in float32, so a seabed at an altitude on a bin edge must not light
#: the bin before it.
_FLOAT32_SLACK = 1e-6


@dataclass(frozen=True)
class CellGeometry:
    """(m,) float64 cells on the planes they hit (module docstring), ranges in m.

    Attributes:
        foot: ``p``, m.
        centre: ``theta0``, rad, >= 0.
        half: ``D / 2``, rad.
        near: the cell's nearest range, m (``p`` when it holds the normal).
        far: its farthest, m (inf towards grazing).
        slope: the absorption's relative slope across the cell, 1/rad (``-2 a' r tan
            theta0``), held so that the weight stays >= 0.
    """

    foot: NDArray[np.float64]
    centre: NDArray[np.float64]
    half: float
    near: NDArray[np.float64]
    far: NDArray[np.float64]
    slope: NDArray[np.float64]

    @classmethod
    def of(
        cls,
        r: NDArray[np.floating],
        tangent: NDArray[np.float64],
        height: float,
        attenuation: float,
    ) -> CellGeometry:
        """The cells of returns at ranges ``r`` whose cells have ``tan(theta0) = tangent``."""
        r64 = r.astype(np.float64)
        centre = np.arctan(tangent)
        foot = r64 / np.sqrt(1.0 + tangent * tangent)
        half = 0.5 * height
        low, high = centre - half, centre + half
        with np.errstate(divide='ignore'):
            far = np.where(high < 0.5 * math.pi, foot / np.cos(high), np.inf)
        near = foot / np.cos(np.maximum(low, 0.0))
        slope = np.clip(-attenuation * r64 * tangent, -0.99 / half, 0.99 / half)
        return cls(foot, centre, half, near, far, slope)

    def take(self, chosen: NDArray[np.intp]) -> CellGeometry:
        """The cells ``chosen``."""
        return CellGeometry(
            self.foot[chosen],
            self.centre[chosen],
            self.half,
            self.near[chosen],
            self.far[chosen],
            self.slope[chosen],
        )

    def cumulative(
        self,
        theta: NDArray[np.float64],
        trig: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
    ) -> NDArray[np.float64]:
        """The weight ``cos**3 (1 + slope (theta - theta0))`` integrated from 0 to ``theta``.

        ``trig``: ``sin`` and ``cos`` of ``theta`` when known.
        """
        sine, cosine = (np.sin(theta), np.cos(theta)) if trig is None else trig
        s = sine - sine**3 / 3.0
        # int theta cos^3 = theta S + (2/3) cos + cos^3 / 9 (taken from 0)
        moment = theta * s + (2.0 / 3.0) * cosine + cosine**3 / 9.0 - 7.0 / 9.0
        out: NDArray[np.float64] = (1.0 - self.slope * self.centre) * s + self.slope * moment
        return out


def exact_pieces(
    cells: CellGeometry,
    owners: NDArray[np.intp],
    *,
    min_range: float,
    scale: float,
    n_bins: int,
) -> Pieces:
    """The cells' echoes bin by bin, ``owners`` (m,) their returns' indices (module docstring).

    Bins past the window's end are not made (the last piece, past it, is dropped).
    """
    near_bins = (cells.near - min_range) * scale
    first = np.floor(near_bins)
    next_edge = min_range + (first + 1.0) / scale
    first += next_edge - cells.near <= _FLOAT32_SLACK * next_edge
    far_bins = np.fmin((cells.far - min_range) * scale, n_bins + 1.0)
    last = np.maximum(np.ceil(far_bins) - 1.0, first)
    first = np.maximum(first, -1.0)
    count = (last - first + 1.0).astype(np.intp)
    owner = np.repeat(np.arange(first.size), count)
    starts = np.cumsum(count) - count
    bins = first[owner] + (np.arange(owner.size) - starts[owner])
    low, high = cells.centre - cells.half, cells.centre + cells.half
    at_low, at_high = cells.cumulative(low), cells.cumulative(high)
    whole = (at_high - at_low)[owner]
    cell = cells.take(owner)
    # The share of each cell nearer than each piece's far edge: |theta| <= acos(p / R), the
    # sine and cosine of acos(c) taken without trigonometry.
    c = np.clip(cell.foot / (min_range + (bins + 1.0) / scale), 0.0, 1.0)
    reach = np.arccos(c)
    short = reach < high[owner]
    upper = np.where(short, cell.cumulative(reach, (np.sqrt(1.0 - c * c), c)), at_high[owner])
    lower = at_low[owner]
    holding = np.flatnonzero(low[owner] < 0.0)  # cells holding the normal: cut at -reach
    if holding.size:
        lo = np.maximum(low[owner[holding]], -reach[holding])
        lower[holding] = cells.take(owner[holding]).cumulative(lo)
    below = np.maximum(upper - lower, 0.0) / whole
    below[bins >= last[owner]] = 1.0
    fraction = below.copy()
    fraction[1:] -= below[:-1]
    fraction[starts] = below[starts]
    np.clip(fraction, 0.0, 1.0, out=fraction)
    return Pieces(owners[owner], bins.astype(np.intp), fraction)


def exact_cells(tangent: NDArray[np.floating], height: float) -> NDArray[np.bool_]:
    """(m,) the cells placed by ``exact_pieces``, from ``tan(theta0)`` and ``D`` alone.

    Within ``NEAR_NORMAL_CELLS`` cells of the normal, or spanning more than ``WIDEST_SPAN``
    of their near range: ``R(theta0 + D/2) / R(theta0 - D/2) = (cos h + t sin h) / (cos h -
    t sin h)`` (``h = D / 2``, ``t = tan(theta0)``) grows with ``t``, so both are bounds on it.
    """
    near_normal = math.tan(min(NEAR_NORMAL_CELLS * height, 0.5 * math.pi - 1e-9))
    widest = WIDEST_SPAN / ((2.0 + WIDEST_SPAN) * math.tan(0.5 * height))
    chosen: NDArray[np.bool_] = (tangent < near_normal) | (tangent > widest)
    return chosen


def quadratic_ramps(
    r: NDArray[np.floating],
    tangent: NDArray[np.float64],
    echo: NDArray[np.floating],
    beam: NDArray[np.intp],
    n_beams: int,
    *,
    height: float,
    window: tuple[float, float, int],
    attenuation: float,
) -> Ramps:
    """The echoes (k,) of cells not ``exact_cells`` as ``Ramps`` of order 3.

    ``r`` (k,) their ranges, ``tangent`` their ``tan(theta0)``, ``beam`` (k,) sorted;
    ``window``: ``min_range``, bins per metre, ``n_bins``. Each echo per bin is ``q`` to
    second order about the range, ``q(r) (1 + L1 y + (L1**2 + L2) y**2 / 2)`` with ``L1``,
    ``L2`` the derivatives of ``ln q`` (``-(5 + 1/t**2) / r - 2 a'`` and ``(5 + (3 + 2/t**2) /
    t**2) / r**2``), scaled to the echo over the cell's interval ``[r / (cos h + t sin h), r /
    (cos h - t sin h)]`` (``h = D / 2``) and cut to the window. Its cumulative ``P`` at the
    bin edges is 0 up to the first edge ``a`` past the interval's start, a cubic ``Q`` up to
    the last edge ``b`` before its end, then the echo ``T``: ``P = Q H_a - (Q - T) H_b``.
    ``Q`` is written by its forward differences at ``a`` (``Q(a + m) = sum A_j C(m, j)``,
    whole numbers of the beam's unit), so the fourth differences of ``P`` are four deposits
    at each end and three running sums of them give the bins ``P(k + 1) - P(k)`` exactly.
    """
    min_range, scale, n_bins = window
    r64 = r.astype(np.float64)
    x0 = (r64 - min_range) * scale
    inverse_r = 1.0 / r64
    inverse = 1.0 / (tangent * tangent)
    c1 = (5.0 + inverse) * inverse_r
    c1 += attenuation
    c1 *= -1.0 / scale
    c2 = (3.0 + 2.0 * inverse) * inverse
    c2 += 5.0
    c2 *= inverse_r * inverse_r
    c2 *= 1.0 / (scale * scale)
    c2 += c1 * c1
    c2 *= 0.5
    lean = tangent * math.sin(0.5 * height)
    near = r64 / (math.cos(0.5 * height) + lean)
    near -= r64
    near *= scale  # in bins from the range
    far = r64 / (math.cos(0.5 * height) - lean)
    far -= r64
    far *= scale
    c0 = echo.astype(np.float64) / _integral((1.0, c1, c2), near, far)
    c1 *= c0
    c2 *= c0
    start = np.clip(x0 + near, 0.0, n_bins)  # a return wholly outside adds 0
    end = np.clip(x0 + far, 0.0, n_bins)
    a = np.floor(start) + 1.0
    y = a - x0
    ys = start - x0
    differences = np.empty((4, a.size))
    differences[0] = _integral((c0, c1, c2), ys, y)
    np.multiply(c2, 2.0, out=differences[3])
    np.multiply(differences[3], y + 1.0, out=differences[2])
    differences[2] += c1
    np.multiply(c2, y * y + y + 1.0 / 3.0, out=differences[1])
    differences[1] += c0
    differences[1] += c1 * (y + 0.5)
    total = _integral((c0, c1, c2), ys, end - x0)
    unit = _units(n_beams, beam, np.abs(differences[1]) + np.abs(differences[2]))
    per = 1.0 / unit[beam]
    differences *= per
    scaled = np.rint(differences, out=differences).astype(np.int64)
    total *= per
    t_int = np.rint(total, out=total).astype(np.int64)
    b = np.maximum(np.ceil(end), a)
    return _ramps_of(scaled, t_int, (a, b, start, end), beam, n_bins, unit)


def _ramps_of(
    scaled: NDArray[np.int64],
    t_int: NDArray[np.int64],
    places: tuple[NDArray[np.float64], ...],
    beam: NDArray[np.intp],
    n_bins: int,
    unit: NDArray[np.float64],
) -> Ramps:
    """The ``Ramps`` of cubics ``Q`` (``quadratic_ramps``) from ``a`` to ``b``, ``T`` after.

    The end's coefficients are ``Q - T``'s forward differences at ``b = a + L``:
    ``sum_j A_j C(L, j)`` less ``T``, then ``A_1 + A_2 L + A_3 C(L, 2)``, ``A_2 + A_3 L``,
    ``A_3``.
    """
    a, b, start, end = places
    span = (b - a).astype(np.int64)
    pairs = span * (span - 1) // 2
    a0, a1, a2, a3 = scaled
    ends = np.empty_like(scaled)
    np.multiply(a3, span, out=ends[2])
    ends[2] += a2
    np.multiply(a3, pairs, out=ends[1])
    ends[1] += a1
    ends[1] += a2 * span
    ends[0] = pairs * (span - 2) // 3
    ends[0] *= a3
    ends[0] += a2 * pairs
    ends[0] += a1 * span
    ends[0] += a0
    ends[0] -= t_int
    ends[3] = a3
    weights = np.empty((8, span.size))
    _fourth(scaled, weights[:4])
    _fourth(ends, weights[4:])
    weights[4:] *= -1.0
    first = np.floor(start).astype(np.intp)
    offset = int(first.min())
    stride = int(b.max()) + 4 - offset
    base = beam * stride - offset
    cells_at = np.empty((8, span.size), dtype=np.intp)
    np.add(base, a.astype(np.intp), out=cells_at[0])
    cells_at[0] -= 1
    np.add(base, b.astype(np.intp), out=cells_at[4])
    cells_at[4] -= 1
    for step in (1, 2, 3):
        np.add(cells_at[0], step, out=cells_at[step])
        np.add(cells_at[4], step, out=cells_at[4 + step])
    edges = np.stack([base + first, base + np.ceil(end).astype(np.intp)])
    return Ramps(n_bins, offset, stride, unit, cells_at.ravel(), weights.ravel(), edges, order=3)


def _integral(
    c: tuple[NDArray[np.float64] | float, NDArray[np.float64], NDArray[np.float64]],
    y0: NDArray[np.float64],
    y1: NDArray[np.float64],
) -> NDArray[np.float64]:
    """``int_{y0}^{y1} c0 + c1 y + c2 y**2 dy``."""
    c0, c1, c2 = c
    half, third = 0.5 * c1, c2 / 3.0
    out: NDArray[np.float64] = y1 * (c0 + y1 * (half + y1 * third)) - y0 * (
        c0 + y0 * (half + y0 * third)
    )
    return out


def _fourth(c: NDArray[np.int64], out: NDArray[np.float64]) -> None:
    """Into ``out`` (4, k): the fourth differences at ``m = 0..3`` of ``sum c_j C(m, j)``."""
    c0, c1, c2, c3 = c
    out[0] = c0
    np.subtract(c1, 3 * c0, out=out[1], casting='unsafe')
    np.subtract(c2, 2 * c1 - 3 * c0, out=out[2], casting='unsafe')
    np.subtract(c3 + c1, c2 + c0, out=out[3], casting='unsafe')


def _units(
    n_beams: int, beam: NDArray[np.intp], height: NDArray[np.float64]
) -> NDArray[np.float64]:
    """(N,) each beam's unit: its tallest height over ``2**bits``.

    ``bits`` leaves room for the sums of a beam's deposits (each under eight heights) below
    ``2**53``.
    """
    starts = np.searchsorted(beam, np.arange(n_beams))
    counts = np.diff(np.append(starts, beam.size))
    bits = 49 - math.ceil(math.log2(int(counts.max()) + 1))
    has = counts > 0
    tallest = np.maximum.reduceat(height, np.minimum(starts, beam.size - 1))
    unit: NDArray[np.float64] = np.where(has & (tallest > 0.0), tallest * 2.0**-bits, 1.0)
    return unit
