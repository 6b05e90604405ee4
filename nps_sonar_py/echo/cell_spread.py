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

* ``quadratic_ramps``: ``q`` through its values at the interval's ends and at ``r``, a
  quadratic in range scaled to the ray's echo (within 0.2 % of ``q`` over a cell spanning 12
  % of its range); its integral over the bins is summed as ``deposits.Ramps`` of order 3.
* ``exact_pieces``: the returns whose cell lies within ``NEAR_NORMAL_CELLS`` cells of the normal
  (where ``R`` turns: at nadir the cell starts at ``p``, never before it) or spans more than
  ``WIDEST_SPAN`` of its range (towards grazing): the share of the cell nearer than each bin
  edge, ``|theta| <= acos(p / R)``, by the closed form of ``int cos(theta)**3`` and ``int
  theta cos(theta)**3``, the absorption linear across the cell. One piece per bin.

``docs/echo.md#a-fans-cells``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo.deposits import Ramps
from nps_sonar_py.echo.ray_cells import Pieces

__all__ = ['NEAR_NORMAL_CELLS', 'WIDEST_SPAN', 'CellGeometry', 'exact_pieces', 'quadratic_ramps']

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
    """(m,) float64 cells on the planes they hit (module docstring), in bins from ``min_range``.

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
        extent: NDArray[np.floating],
        height: float,
        attenuation: float,
    ) -> CellGeometry:
        """The cells of returns at ranges ``r`` with footprints ``extent`` (m, finite, >= 0)."""
        r64 = r.astype(np.float64)
        tangent = extent.astype(np.float64) / (r64 * height)
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

    def exact(self) -> NDArray[np.bool_]:
        """(m,) the cells placed by ``exact_pieces``: near the normal or spanning widely."""
        chosen: NDArray[np.bool_] = (self.centre < NEAR_NORMAL_CELLS * 2.0 * self.half) | (
            self.far > (1.0 + WIDEST_SPAN) * self.near
        )
        return chosen

    def cumulative(self, theta: NDArray[np.float64]) -> NDArray[np.float64]:
        """The weight ``cos**3 (1 + slope (theta - theta0))`` integrated from 0 to ``theta``."""
        sine = np.sin(theta)
        s = sine - sine**3 / 3.0
        # int theta cos^3 = theta S + (2/3) cos + cos^3 / 9 (taken from 0)
        cosine = np.cos(theta)
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
    cell = cells.take(owner)
    low, high = cell.centre - cell.half, cell.centre + cell.half
    # The share of each cell nearer than each piece's far edge: |theta| <= acos(p / R).
    edge = min_range + (bins + 1.0) / scale
    reach = np.arccos(np.clip(cell.foot / edge, -1.0, 1.0))
    lo, hi = np.maximum(low, -reach), np.minimum(high, reach)
    whole = cell.cumulative(high) - cell.cumulative(low)
    below = np.where(hi > lo, (cell.cumulative(hi) - cell.cumulative(lo)) / whole, 0.0)
    below[bins >= last[owner]] = 1.0
    fraction = below.copy()
    fraction[1:] -= below[:-1]
    fraction[starts] = below[starts]
    np.clip(fraction, 0.0, 1.0, out=fraction)
    return Pieces(owners[owner], bins.astype(np.intp), fraction)


def _density(
    cells: CellGeometry, theta: NDArray[np.float64], attenuation: float
) -> NDArray[np.float64]:
    """``q`` (module docstring) at the cell's angle ``theta``, up to a factor."""
    cosine = np.cos(theta)
    out: NDArray[np.float64] = (
        cosine**5 / np.sin(theta) * np.exp(-attenuation * cells.foot / cosine)
    )
    return out


def quadratic_ramps(
    cells: CellGeometry,
    echo: NDArray[np.floating],
    beam: NDArray[np.intp],
    n_beams: int,
    *,
    min_range: float,
    scale: float,
    n_bins: int,
    attenuation: float,
) -> Ramps | None:
    """The cells' echoes (k,) as ``Ramps`` of order 3 (``beam`` (k,) sorted), or None.

    Each echo per bin is the quadratic through ``q`` at the cell's ends and centre, scaled to
    the echo, over the cell's interval cut to the window. Its cumulative ``P`` at the bin
    edges is 0 up to the first edge ``a`` past the interval's start, a cubic ``Q`` up to the
    last edge ``b`` before its end, then the echo ``T``: ``P = Q H_a - (Q - T) H_b``. ``Q``
    is written by its forward differences at ``a`` (``Q(a + m) = sum A_j C(m, j)``, whole
    numbers of the beam's unit), so the fourth differences of ``P`` are four deposits at
    each end and three running sums of them give the bins ``P(k + 1) - P(k)`` exactly.
    """
    x, (c0, c1, c2) = _scaled_quadratics(cells, echo, min_range, scale, attenuation)
    start, end = np.clip(x[0], 0.0, n_bins), np.clip(x[2], 0.0, n_bins)
    keep = np.flatnonzero((end > start) & (c0 > 0.0))
    if keep.size == 0:
        return None
    c0, c1, c2, start, end, centre = (
        c0[keep],
        c1[keep],
        c2[keep],
        start[keep],
        end[keep],
        x[1][keep],
    )
    beam = beam[keep]
    a = np.floor(start) + 1.0
    points = a + np.arange(4.0)[:, None]  # Q at a, a + 1, a + 2, a + 3
    q_at = _integral(c0, c1, c2, start - centre, points - centre)
    total = _integral(c0, c1, c2, start - centre, end - centre)
    diffs = np.stack([q_at[0], q_at[1] - q_at[0], q_at[2] - 2 * q_at[1] + q_at[0]])
    diffs = np.concatenate([diffs, [q_at[3] - 3 * q_at[2] + 3 * q_at[1] - q_at[0]]])
    unit = _units(n_beams, beam, np.abs(q_at[1] - q_at[0]) + np.abs(diffs[2]))
    scaled = (diffs / unit[beam]).round().astype(np.int64)
    t_int = (total / unit[beam]).round().astype(np.int64)
    b = np.maximum(np.ceil(end), a)
    span = (b - a).astype(np.int64)
    a0, a1, a2, a3 = scaled
    pairs = span * (span - 1) // 2
    triples = pairs * (span - 2) // 3
    ends = np.stack(
        [
            a0 + a1 * span + a2 * pairs + a3 * triples - t_int,
            a1 + a2 * span + a3 * pairs,
            a2 + a3 * span,
            a3,
        ]
    )
    weights = np.concatenate([_fourth(scaled), -_fourth(ends)]).astype(np.float64)
    first = np.floor(start).astype(np.intp)
    offset = int(first.min())
    stride = int(b.max()) + 4 - offset
    base = beam * stride - offset
    steps = np.arange(4)[:, None]
    cells_at = np.concatenate(
        [base + a.astype(np.intp) - 1 + steps, base + b.astype(np.intp) - 1 + steps]
    )
    edges = np.stack([base + first, base + np.ceil(end).astype(np.intp)])
    return Ramps(n_bins, offset, stride, unit, cells_at.ravel(), weights.ravel(), edges, order=3)


def _scaled_quadratics(
    cells: CellGeometry,
    echo: NDArray[np.floating],
    min_range: float,
    scale: float,
    attenuation: float,
) -> tuple[NDArray[np.float64], tuple[NDArray[np.float64], ...]]:
    """(3, k) the cells' near end, range and far end in bins, and their echo per bin.

    The echo per bin is ``c0 + c1 y + c2 y**2``, ``y`` in bins from the range, through ``q``
    at the three, scaled to integrate to ``echo`` over the cell.
    """
    x = np.stack(
        [
            (cells.near - min_range) * scale,
            np.zeros_like(cells.near),
            (cells.far - min_range) * scale,
        ]
    )
    x[1] = (cells.foot / np.cos(cells.centre) - min_range) * scale
    angles = np.stack([cells.centre - cells.half, cells.centre, cells.centre + cells.half])
    q = _density(cells, angles, attenuation)
    c0, c1, c2 = _quadratic(x, q)
    full = _integral(c0, c1, c2, x[0] - x[1], x[2] - x[1])
    norm = echo.astype(np.float64) / full
    return x, (c0 * norm, c1 * norm, c2 * norm)


def _fourth(c: NDArray[np.int64]) -> NDArray[np.int64]:
    """(4, k) the fourth differences at ``m = 0..3`` of ``sum c_j C(m, j)`` started at 0."""
    c0, c1, c2, c3 = c
    return np.stack([c0, c1 - 3 * c0, c2 - 2 * c1 + 3 * c0, c3 - c2 + c1 - c0])


def _quadratic(
    x: NDArray[np.float64], q: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Coefficients of ``c0 + c1 y + c2 y**2`` (``y = x - x[1]``) through the three points."""
    h0, h2 = x[0] - x[1], x[2] - x[1]
    d0, d2 = (q[0] - q[1]) / h0, (q[2] - q[1]) / h2
    c2 = (d2 - d0) / (h2 - h0)
    c1 = d0 - c2 * h0
    return q[1], c1, c2


def _integral(
    c0: NDArray[np.float64],
    c1: NDArray[np.float64],
    c2: NDArray[np.float64],
    y0: NDArray[np.float64],
    y1: NDArray[np.float64],
) -> NDArray[np.float64]:
    """``int_{y0}^{y1} c0 + c1 y + c2 y**2 dy``."""

    def g(y: NDArray[np.float64]) -> NDArray[np.float64]:
        out: NDArray[np.float64] = y * (c0 + y * (0.5 * c1 + y * (c2 / 3.0)))
        return out

    return g(y1) - g(y0)


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
