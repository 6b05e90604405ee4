"""Where the echo of a ray's whole angular cell falls in range, for the returns near an edge.

A fan's ray at along-track angle ``a_c`` stands for a cell ``[a0, a1]`` along track by ``D``
across it. On a plane that is level along track, at perpendicular distance ``p = r cos(alpha)``
from the sensor (``r`` the ray's range, ``alpha`` its incidence, ``cos(alpha) = cos(a_c)
cos(beta)`` with ``beta`` the across-track angle from the normal), the direction
``(a, theta)`` meets the plane at slant range

    p / (cos(a) cos(theta)),    a in [a0, a1],  theta in [beta - D/2, beta + D/2].

The share of the cell's echo nearer than a range ``R`` is the weighted area of the cell where
``cos(a) cos(theta) >= p / R``: for each ``a``, the chord ``|theta| <= acos(p / (R cos a))``
(exact), integrated over ``a`` by Gauss-Legendre on the pieces between the angles where the
chord's ends change (``p / (R cos a) = cos(theta0)``, ``cos(theta1)``, 1). The weight is
linear across the cell in each angle: the pattern's slope over the cell plus that of the echo
law, ``cos(a)**4 cos(theta)**3 exp(-2 a' r)`` (``cos(alpha) / r**2`` times ``dOmega = cos(a) da
dtheta``, with ``r`` as above), so that a sliver of a cell gets its own echo, not the cell's
mean. ``docs/sidescan.md#edges-nadir-and-the-first-return``.

The echo model spreads most returns with a first-order box about their range
(``EchoModel.echoes(spread=)``). Where that is not enough it uses this: at the cells of a
fan's first and last rows (the first return and the fan's far edge cut through them) and
near the normal of the surface, where the range is quadratic, not linear, in the angle (at
nadir a box about the ray would reach before the altitude).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo.beam import BeamPattern, beam_intensity
from nps_sonar_py.records import refuse

__all__ = ['FanPattern', 'Pieces', 'RayCells', 'cell_pieces', 'fan_cells']

#: Gauss-Legendre nodes per piece of the along-track integral. The chord has a square-root
#: end where the range circle first meets the cell; 12 nodes keep that piece within 1e-3.
_NODES = 12
#: The nodes and weights of that rule on [-1, 1] (computed once: an eigenvalue problem).
_GAUSS_LEGENDRE = np.polynomial.legendre.leggauss(_NODES)
#: A return is placed by its whole cell, along track too, when its cell lies within this many
#: cell widths of the normal (where the range is near its minimum in both angles).
WHOLE_CELL_WIDTHS = 4.0
#: An edge row's cell is placed by its whole cell when it covers at most this many bins.
_WHOLE_EDGE_BINS = 3
#: A return is placed by the exact range across its cell (at its own along-track angle) when
#: within this many cell widths of the normal: a box about its range is off by about
#: ``D / (4 beta)`` of the cell there (the range's curvature), 0.25 % at 100 widths.
CHORD_WIDTHS = 100.0
#: Relative range below which a cell's near end is taken to lie on a bin edge it is that
#: close to: Open3D casts in float32 (a few units of 1.2e-7), so a seabed at an altitude on a
#: bin edge must not light the bin before it.
_FLOAT32_SLACK = 1e-6


@dataclass(frozen=True, eq=False)
class RayCells:
    """The angular cell of each of a fan's ``n`` rays: (n,) float64 arrays, (n,) bool ``edge``.

    Attributes:
        across_width: ``D``, the cell's width across track (depression), rad, > 0.
        along_low: ``a0``, the cell's first along-track angle, rad.
        along_high: ``a1 >= a0``, its last; the ray itself is at ``(a0 + a1) / 2``.
        across_slope: relative slope of the ray's pattern weight across the cell per radian
            of depression *decreasing* (away from nadir, the incidence growing on a seabed):
            ``(B(bottom) - B(top)) / (D mean(B))``, 1/rad.
        along_slope: relative slope of its pattern weight along track, per radian of ``a``.
        edge: the cell is in the fan's first or last row, where the profile starts or ends.
    """

    across_width: NDArray[np.float64]
    along_low: NDArray[np.float64]
    along_high: NDArray[np.float64]
    across_slope: NDArray[np.float64]
    along_slope: NDArray[np.float64]
    edge: NDArray[np.bool_]

    def __post_init__(self) -> None:
        n = self.across_width.shape
        for name in ('across_width', 'along_low', 'along_high', 'across_slope', 'along_slope'):
            values = np.asarray(getattr(self, name), dtype=np.float64)
            if values.ndim != 1 or values.shape != n:
                refuse(f'cells.{name}', f'must have shape {n}', values.shape)
            if not np.all(np.isfinite(values)):
                refuse(f'cells.{name}', 'must be finite', 'values')
            object.__setattr__(self, name, values)
        edge = np.asarray(self.edge, dtype=np.bool_)
        if edge.shape != n:
            refuse('cells.edge', f'must have shape {n}', edge.shape)
        object.__setattr__(self, 'edge', edge)
        if not np.all(self.across_width > 0.0):
            refuse('cells.across_width', 'must be > 0', 'values')
        if not np.all(self.along_high >= self.along_low):
            refuse('cells.along_high', 'must be >= along_low', 'values')

    def __len__(self) -> int:
        return int(self.across_width.shape[0])

    def near_normal_cos(
        self, widths: float, rays: NDArray[np.intp] | None = None
    ) -> NDArray[np.float64]:
        """The ``|cos(alpha)|`` above which a cell lies ``widths`` cells from the normal.

        (n,), or (m,) for the cells ``rays``.
        """
        chosen = slice(None) if rays is None else rays
        reach = np.minimum(widths * self.across_width[chosen], 0.5 * math.pi)
        centre = 0.5 * (self.along_low[chosen] + self.along_high[chosen])
        limit: NDArray[np.float64] = np.cos(reach) * np.cos(centre)
        return limit

    @cached_property
    def constants(self) -> NDArray[np.float64]:
        """(14, n) per-cell constants of ``cell_pieces``, worked out once: one gather a ping.

        Rows: along ``a0``, ``a1``, their centre, the half width ``D / 2`` and
        its inverse, ``cos`` and ``tan`` of the centre, the two pattern slopes, ``2 / (a1 -
        a0)`` (inf for no width), ``cos`` of the along angle nearest 0 and farthest from it,
        the ``|cos(alpha)|`` above which the cell is within ``WHOLE_CELL_WIDTHS`` of the
        normal, and 1 for an edge cell (0 otherwise).
        """
        low, high = self.along_low, self.along_high
        half = 0.5 * self.across_width
        centre = 0.5 * (low + high)
        with np.errstate(divide='ignore'):
            most = 2.0 / (high - low)
        columns = (
            low,
            high,
            centre,
            half,
            1.0 / half,
            np.cos(centre),
            np.tan(centre),
            self.across_slope,
            self.along_slope,
            most,
            np.cos(np.minimum(np.maximum(low, 0.0), high)),
            np.cos(np.maximum(np.abs(low), np.abs(high))),
            self.near_normal_cos(WHOLE_CELL_WIDTHS),
            self.edge.astype(np.float64),
        )
        table = np.stack(columns)
        table.flags.writeable = False
        return table


@dataclass(frozen=True)
class FanPattern:
    """One axis of a fan's pattern: ``B(|x - axis|)**n_way`` of this width, x in rad."""

    pattern: BeamPattern
    width: float
    axis: float
    n_way: int

    def slopes(
        self, edges: NDArray[np.float64], means: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """(cells,) relative slope ``(B(edges[i + 1]) - B(edges[i])) / (step mean)``, 1/rad."""
        b = beam_intensity(self.pattern, np.abs(edges - self.axis), self.width, self.n_way)
        step = np.diff(edges)
        with np.errstate(divide='ignore', invalid='ignore'):
            slope = np.diff(b) / (step * means)
        finite: NDArray[np.float64] = np.where(np.isfinite(slope), slope, 0.0)
        return finite


def fan_cells(
    rows: NDArray[np.float64],
    columns: NDArray[np.float64],
    across: FanPattern,
    along: FanPattern,
    across_means: NDArray[np.float64],
    along_means: NDArray[np.float64],
) -> RayCells:
    """The cells of a fan of ``rows x columns`` rays, ray ``i * columns + j`` in row ``i``.

    Args:
        rows: (rows + 1,) depressions of the row edges, steepest first, rad.
        columns: (columns + 1,) along-track angles of the column edges, increasing, rad.
        across: the pattern across track (in depression, about the tilt).
        along: the pattern along track (about 0).
        across_means: (rows,) the pattern's mean over each row (the rays' weights).
        along_means: (columns,) its mean over each column.
    """
    n_rows, n_columns = rows.size - 1, columns.size - 1
    # Depression decreasing is the way the incidence grows on a seabed: rows run steepest first.
    across_slope = -across.slopes(rows, across_means)
    along_slope = along.slopes(columns, along_means)
    row_edge = np.zeros(n_rows, dtype=np.bool_)
    row_edge[[0, -1]] = True
    shape = (n_rows, n_columns)
    return RayCells(
        across_width=np.broadcast_to((rows[:-1] - rows[1:])[:, None], shape).ravel(),
        along_low=np.broadcast_to(columns[None, :-1], shape).ravel(),
        along_high=np.broadcast_to(columns[None, 1:], shape).ravel(),
        across_slope=np.broadcast_to(across_slope[:, None], shape).ravel(),
        along_slope=np.broadcast_to(along_slope[None, :], shape).ravel(),
        edge=np.broadcast_to(row_edge[:, None], shape).ravel(),
    )


@dataclass(frozen=True, eq=False)
class Pieces:
    """Where some returns' echoes go, one piece per bin: flat (p,) arrays.

    Attributes:
        owner: the index of each piece's return among those given.
        bin: the piece's bin, in bins from ``min_range`` (may lie outside the window).
        fraction: the share of its return's echo in that bin; a return's pieces sum to 1.
    """

    owner: NDArray[np.intp]
    bin: NDArray[np.intp]
    fraction: NDArray[np.float64]


def cell_pieces(
    ranges: NDArray[np.floating],
    cos_incidence: NDArray[np.floating],
    rays: NDArray[np.intp],
    cells: RayCells,
    *,
    min_range: float,
    scale: float,
    attenuation: float,
    widest: int,
) -> Pieces:
    """Each return's echo over the bins its cell covers (module docstring).

    Under the caller's ``np.errstate``: a cell reaching grazing incidence divides by 0. The
    returns are few (the edge rows' and those near the normal), so the numpy calls, not the
    passes, are the cost: the cells' constants come in one gather (``RayCells.constants``).

    Args:
        ranges: (m,) slant range of each return, m.
        cos_incidence: (m,) its ``|cos(alpha)|``.
        rays: (m,) the pattern ray of each return (its cell in ``cells``).
        cells: the rays' cells.
        min_range: the window's near end, m.
        scale: bins per metre.
        attenuation: two-way intensity absorption, nepers per metre.
        widest: most bins one return covers (a grazing cell's far end is cut there).
    """
    constants = cells.constants.take(rays, axis=1)  # (14, m)
    low, high, centre, half, inverse_half, cos_centre, tan_centre, across = constants[:8]
    along, most, cos_near_along, cos_far_along, whole_cos, edge = constants[8:]
    r = np.asarray(ranges, dtype=np.float64)
    cosine = np.minimum(np.abs(cos_incidence), 1.0, dtype=np.float64)
    beta = np.arccos(np.minimum(cosine / cos_centre, 1.0))
    distance = r * cosine  # p, to the plane
    absorbed = attenuation * r
    # The linear weights' slopes, held so that each weight stays >= 0 over its cell.
    across_slope = across - (3.0 + absorbed) * np.tan(beta)
    np.minimum(
        np.maximum(across_slope, -inverse_half, out=across_slope), inverse_half, out=across_slope
    )
    along_slope = along - (4.0 + absorbed) * tan_centre
    np.minimum(np.maximum(along_slope, -most, out=along_slope), most, out=along_slope)
    first, last = beta - half, beta + half
    first_bin, last_bin = _bin_span(
        (first, last, distance), (cos_near_along, cos_far_along), min_range, scale, widest
    )
    count = last_bin - first_bin + 1
    owner = np.repeat(np.arange(r.size), count)
    if owner.size == r.size:  # every cell within one bin: all of it there
        return Pieces(owner, first_bin, np.ones(r.size))
    starts = np.cumsum(count) - count
    bins = first_bin[owner] + (np.arange(owner.size) - starts[owner])
    # Below each piece's far edge (the last piece's: all of it).
    below = np.ones(owner.size)
    inner = np.flatnonzero(bins < last_bin[owner])
    who = owner[inner]
    ratio = distance[who] / (min_range + (bins[inner] + 1.0) / scale)
    # The whole cell where its range turns (near the normal) or a row edge cuts it; a
    # grazing edge cell over many bins is placed by its chord, as the rest.
    whole = ((edge[who] > 0.0) & (count[who] <= _WHOLE_EDGE_BINS)) | (
        cosine[who] >= whole_cos[who]
    )
    part = _Cell(low, high, centre, first, last, beta, across_slope, along_slope).part(who)
    if whole.all():
        below[inner] = _share_within(part, ratio)
    else:
        share = _chord_share(part, ratio)
        if whole.any():
            share[whole] = _share_within(part.part(whole), ratio[whole])
        below[inner] = share
    fraction = below.copy()
    fraction[1:] -= below[:-1]
    fraction[starts] = below[starts]
    np.minimum(np.maximum(fraction, 0.0, out=fraction), 1.0, out=fraction)
    return Pieces(owner, bins, fraction)


def _bin_span(
    angles: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]],
    along_cos: tuple[NDArray[np.float64], NDArray[np.float64]],
    min_range: float,
    scale: float,
    widest: int,
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """(m,) first and last bin each cell's ranges reach, at most ``widest`` bins apart.

    ``angles``: the cells' across-track ends ``first``, ``last`` (``last >= |first|``: the
    cell's centre ``beta`` is >= 0) and the distance ``p`` to the plane; ``along_cos``: the
    cosines of the along angles nearest 0 and farthest from it. A near end within float32
    rounding below a bin edge is on it (``_FLOAT32_SLACK``).
    """
    first, last, distance = angles
    cos_near_along, cos_far_along = along_cos
    near = distance / (cos_near_along * np.cos(np.maximum(first, 0.0)))
    far_cos = cos_far_along * np.cos(last)
    far = distance / np.maximum(far_cos, 0.0)  # inf where the cell reaches grazing
    first_bin = np.floor((near - min_range) * scale)
    next_edge = min_range + (first_bin + 1.0) / scale
    first_bin += next_edge - near <= _FLOAT32_SLACK * next_edge
    last_bin = np.ceil(np.fmin((far - min_range) * scale, first_bin + widest)) - 1.0
    np.maximum(last_bin, first_bin, out=last_bin)
    return first_bin.astype(np.intp), last_bin.astype(np.intp)


@dataclass(frozen=True)
class _Cell:
    """(m,) cells in the plane's angles: along ``[low, high]``, across ``[first, last]``."""

    low: NDArray[np.float64]
    high: NDArray[np.float64]
    centre: NDArray[np.float64]
    first: NDArray[np.float64]
    last: NDArray[np.float64]
    beta: NDArray[np.float64]
    across_slope: NDArray[np.float64]
    along_slope: NDArray[np.float64]

    def part(self, chosen: NDArray[np.bool_] | NDArray[np.intp]) -> _Cell:
        """The cells ``chosen`` (a mask or indices)."""
        return _Cell(*(getattr(self, name)[chosen] for name in self.__dataclass_fields__))


def _share_within(cell: _Cell, ratio: NDArray[np.float64]) -> NDArray[np.float64]:
    """(m,) weighted share of each cell where ``cos(a) cos(theta) >= ratio`` (``p / R``)."""
    along_width = cell.high - cell.low
    # Where the chord's ends change: cos(a) = ratio / cos(theta) for theta first, last, 0
    # (columns of one (m, 3) array: few numpy calls, as the cells near an edge are few).
    thetas = np.zeros((ratio.size, 3))
    thetas[:, 0], thetas[:, 1] = cell.first, cell.last
    cos_theta = np.cos(thetas)
    turn = np.arccos(np.fmin(ratio[:, None] / cos_theta, 1.0))
    turn[cos_theta <= 0.0] = 0.0
    low, high = cell.low[:, None], cell.high[:, None]
    points = np.concatenate((low, high, turn, -turn), axis=1)
    np.minimum(np.maximum(points, low, out=points), high, out=points)
    points.sort(axis=1)  # (m, 8)
    nodes, weights = _GAUSS_LEGENDRE
    start, end = points[:, :-1, None], points[:, 1:, None]  # (m, 7, 1)
    half_step = 0.5 * (end - start)
    a = 0.5 * (start + end) + half_step * nodes
    # The chord |theta| <= acos(ratio / cos a), none where ratio / cos a >= 1 (or NaN).
    reach = np.arccos(np.fmin(ratio[:, None, None] / np.cos(a), 1.0))
    lo = np.maximum(cell.first[:, None, None], -reach)
    hi = np.minimum(cell.last[:, None, None], reach)
    inner = np.maximum(hi - lo, 0.0)
    inner *= 1.0 + cell.across_slope[:, None, None] * (0.5 * (lo + hi) - cell.beta[:, None, None])
    inner *= 1.0 + cell.along_slope[:, None, None] * (a - cell.centre[:, None, None])
    inner *= half_step * weights
    share = inner.sum(axis=(1, 2)) / (along_width * (cell.last - cell.first))
    # A cell of no along-track width: its one column, the chord at its angle.
    thin = along_width <= 0.0
    if thin.any():
        share = np.where(thin, _chord_share(cell, ratio), share)
    share[np.isnan(share)] = 1.0
    bounded: NDArray[np.float64] = np.minimum(np.maximum(share, 0.0, out=share), 1.0, out=share)
    return bounded


def _chord_share(cell: _Cell, ratio: NDArray[np.float64]) -> NDArray[np.float64]:
    """(m,) the share of each cell's column at its own angle (cells of no along width)."""
    reach = np.arccos(np.fmin(ratio / np.cos(cell.centre), 1.0))  # 0: no chord
    lo = np.maximum(cell.first, -reach)
    hi = np.minimum(cell.last, reach)
    chord = np.maximum(hi - lo, 0.0) * (1.0 + cell.across_slope * (0.5 * (lo + hi) - cell.beta))
    share: NDArray[np.float64] = np.minimum(np.maximum(chord / (cell.last - cell.first), 0.0), 1.0)
    return share
