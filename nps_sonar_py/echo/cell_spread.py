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

Three placements, all of the cell's own interval ``[R(theta0 - D/2), R(theta0 + D/2)]``:

* ``quadratic_ramps``: ``q`` to second order about ``r`` (from the derivatives of ``ln q``),
  scaled to the ray's echo over the interval (its third-order error about ``35 d**3`` for a
  cell spanning ``2 d`` of its range: 0.2 % at 8 %, 0.8 % at ``WIDEST_SPAN``); its integral
  over the bins is summed as ``deposits.Ramps`` of order 3.
* grazing cells (spanning more than ``WIDEST_SPAN`` of their range, ``grazing_parts``): cut
  into parts of equal range ratio, each at most ``PART_SPAN``, each part a cell of its own
  placed by ``quadratic_ramps``, its share of the echo ``cos**3`` integrated over it times the
  absorption at its centre.
* ``exact_pieces``: the returns whose cell lies within ``NEAR_NORMAL_CELLS`` cells of the
  normal (where ``R`` turns: at nadir the cell starts at ``p``, never before it), and the
  grazing ones reaching past grazing or needing more than ``MOST_PARTS`` parts (and all of
  ``exact_cells`` when labels or speckle take each piece as a return): the share of the cell
  nearer than each bin edge, ``|theta| <= acos(p / R)``, by the closed form of ``int
  cos(theta)**3`` and ``int theta cos(theta)**3``, the absorption linear across the cell. One
  piece per bin.

``docs/echo.md`` (A fan's cells).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo.deposits import Ramps, ramp_units
from nps_sonar_py.echo.ray_cells import Pieces

__all__ = [
    'MOST_PARTS',
    'NEAR_NORMAL_CELLS',
    'PART_SPAN',
    'WIDEST_SPAN',
    'CellGeometry',
    'CellRamps',
    'exact_cells',
    'exact_pieces',
    'grazing_parts',
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
#: A grazing cell (spanning more than ``WIDEST_SPAN``) is cut into parts of equal range ratio,
#: each spanning at most this share of its near range, and each part is a quadratic ramp.
PART_SPAN = 0.05
#: At most this many parts a cell: one needing more (or reaching past grazing) takes pieces.
MOST_PARTS = 16
#: ``ramp_units``'s headroom: a ramp's deposits, at either end, are under 12 times the sum of
#: its forward differences' sizes.
_HEADROOM = 46


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


@dataclass(frozen=True)
class CellRamps:
    """The live returns of a fan's cells placed by quadratic ramps (``quadratic_ramps``).

    Attributes:
        rows: (k,) live indices of the cells ramped whole.
        tangent: (k,) their ``tan(theta0)``.
        cut_rows: (m,) live indices of the grazing cells cut into parts.
        cut: those cells.
        parts: (m,) how many parts each (``grazing_parts``).
    """

    rows: NDArray[np.intp]
    tangent: NDArray[np.float64]
    cut_rows: NDArray[np.intp]
    cut: CellGeometry
    parts: NDArray[np.intp]

    @property
    def taken(self) -> NDArray[np.intp]:
        """Every live index these ramps stand for."""
        return np.concatenate((self.rows, self.cut_rows))


def grazing_parts(cells: CellGeometry) -> NDArray[np.intp]:
    """(m,) the parts each of ``exact_cells``'s cells is cut into, 0 for those left to pieces.

    The grazing ones into parts of at most ``PART_SPAN`` (at most ``MOST_PARTS``); those near
    the normal, reaching past grazing or needing more parts take ``exact_pieces``.
    """
    with np.errstate(divide='ignore', invalid='ignore'):
        parts = np.ceil(np.log(cells.far / cells.near) / math.log1p(PART_SPAN))
    near_normal = cells.centre < NEAR_NORMAL_CELLS * 2.0 * cells.half
    parts[near_normal | ~(parts <= MOST_PARTS)] = 0.0  # inf and NaN too
    out: NDArray[np.intp] = parts.astype(np.intp)
    return out


def _parts(
    cells: CellGeometry, parts: NDArray[np.intp], echo: NDArray[np.floating], attenuation: float
) -> tuple[
    NDArray[np.intp],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.bool_],
]:
    """The parts of ``cells`` (``grazing_parts``), of equal range ratio, as cells of their own.

    Returns (p,) each: the owner's index, range at the part's centre angle, ``tan`` of it,
    ``sin`` and ``cos`` of its half height, its share of ``echo`` and whether it continues
    the one before. The share: the weight ``cos**3`` integrated over the part times the
    absorption at its centre, ``exp(-2 a' R)`` (``attenuation``, 1/m: linear across a part,
    its first order cancels), over the cell's sum of them.
    """
    owner = np.repeat(np.arange(parts.size), parts)
    first = np.cumsum(parts) - parts
    step = np.arange(owner.size) - first[owner]
    foot, near, far = (a.take(owner) for a in (cells.foot, cells.near, cells.far))
    # The parts' near and far angles, |theta| = acos(p / R) at R = near (far / near)**(i / n).
    ratio = (near / far) ** (np.stack((step, step + 1)) / parts[owner].astype(np.float64))
    ratio *= foot / near  # cos(theta) = p / R
    angles = np.arccos(np.minimum(ratio, 1.0))
    angles[0, first] = cells.centre - cells.half
    angles[1, first + parts - 1] = cells.centre + cells.half
    low, high = angles
    centre, half = 0.5 * (low + high), 0.5 * (high - low)
    r = foot / np.cos(centre)
    sine = np.sin(angles)
    integral = sine - sine**3 / 3.0  # int cos**3
    weight = (integral[1] - integral[0]) * np.exp(-attenuation * (r - near))
    share = weight / np.bincount(owner, weight, parts.size)[owner]
    return owner, r, np.tan(centre), np.sin(half), np.cos(half), share * echo[owner], step > 0


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


_Grazing = tuple[CellGeometry, NDArray[np.intp], NDArray[np.floating], NDArray[np.intp]]


def _with_parts(
    cells: tuple[
        NDArray[np.floating], NDArray[np.float64], NDArray[np.floating], NDArray[np.intp]
    ],
    half: tuple[float, float],
    grazing: _Grazing,
    attenuation: float,
) -> tuple[
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.intp],
    tuple[NDArray[np.float64], NDArray[np.float64]],
    NDArray[np.intp],
]:
    """``cells`` (ranges, tangents, echoes, beams) and the parts of ``grazing`` after them.

    Also their half heights' sine and cosine, and the indices of the continuing parts.
    """
    r, tangent, echo, beam = cells
    geometry, parts, cut_echo, cut_beam = grazing
    owner, part_r, part_tangent, part_sin, part_cos, share, goes_on = _parts(
        geometry, parts, cut_echo, attenuation
    )
    k = r.size
    return (
        np.concatenate((r.astype(np.float64), part_r)),
        np.concatenate((tangent, part_tangent)),
        np.concatenate((echo.astype(np.float64), share)),
        np.concatenate((beam, cut_beam.take(owner))),
        (
            np.concatenate((np.full(k, half[0]), part_sin)),
            np.concatenate((np.full(k, half[1]), part_cos)),
        ),
        k + np.flatnonzero(goes_on),
    )


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
    grazing: _Grazing | None = None,
) -> Ramps:
    """The echoes (k,) of cells not ``exact_cells`` as ``Ramps`` of order 3.

    ``r`` (k,) their ranges, ``tangent`` their ``tan(theta0)``, ``beam`` (k,) sorted;
    ``window``: ``min_range``, bins per metre, ``n_bins``. Each echo per bin is ``q`` to
    second order about the range, ``q(r) (1 + L1 y + (L1**2 + L2) y**2 / 2)`` with ``L1``,
    ``L2`` the derivatives of ``ln q`` (``-(5 + 1/t**2) / r - 2 a'`` and ``(5 + (3 + 2/t**2) /
    t**2) / r**2``), scaled to the echo over the cell's interval ``[r / (cos h + t sin h), r /
    (cos h - t sin h)]`` (``h = D / 2``) and cut to the window. Its cumulative ``P`` at the
    bin edges is 0 up to the first edge ``a`` past the interval's start, a cubic ``Q`` up to
    the last edge ``b`` before its end, then the echo ``T``, written by the forward
    differences of ``Q`` at ``a`` in whole numbers of the beam's unit (``_cubic_deposits``).

    ``grazing``: grazing cells, their parts, echoes and beams (any order), each part a ramp
    (``grazing_parts``); a part continuing its cell counts as a hit from the bin after the
    one its cell's last part ends in.
    """
    min_range, scale, n_bins = window
    half: tuple[NDArray[np.float64] | float, NDArray[np.float64] | float]
    half = math.sin(0.5 * height), math.cos(0.5 * height)
    sorted_to, continued = r.size, None
    if grazing is not None and grazing[1].size:
        r, tangent, echo, beam, half, continued = _with_parts(
            (r, tangent, echo, beam), half, grazing, attenuation
        )
    x_r = np.multiply(r, scale, dtype=np.float64)  # the range in bins
    c1, h1, h2 = _log_derivatives(x_r, tangent, attenuation / scale)
    lean = tangent * half[0]
    near = np.add(lean, half[1])
    np.divide(x_r, near, out=near)
    near -= x_r  # in bins from the range
    far = np.subtract(half[1], lean, out=lean)
    np.divide(x_r, far, out=far)
    far -= x_r
    x0 = np.subtract(r, min_range, dtype=np.float64)  # as the boxes and pieces round it
    x0 *= scale
    at_near = _cumulative(near, h1, h2)
    c0 = _cumulative(far, h1, h2)
    c0 -= at_near
    np.divide(echo, c0, out=c0)
    total = np.array(echo, dtype=np.float64)
    start = np.add(x0, near, out=near)
    end = np.add(x0, far, out=far)
    starts, a = _forward_differences((c0, c1, h1, h2), x0, start, at_near)
    stop = np.ceil(end)  # the last edge of the bins overlapped
    cut = np.flatnonzero((start < 0.0) | (end > n_bins))  # cut to the window
    if cut.size:
        _cut(cut, (c0, c1, h1, h2), (x0, start, end, total), (starts, a, stop), n_bins)
    b = np.maximum(stop, a)
    # The unit from the coefficients themselves (the deposits are sums of a few of them): a
    # part narrower than a bin, or a cell within a few bins of the sonar, has them larger
    # than its echo.
    unit = ramp_units(n_beams, beam, np.abs(starts).sum(axis=0), _HEADROOM, sorted_to)
    per = np.divide(1.0, unit).take(beam)
    starts *= per
    total *= per
    np.rint(starts, out=starts)
    np.rint(total, out=total)
    weights = _cubic_deposits(starts, b - a, total)
    ramps = Ramps.laid_out(weights, (a, b, stop), beam, n_bins, unit)
    if continued is not None:  # from ceil(start): the bin before is its cell's last part's
        ramps.edges[0, continued] += start.take(continued) > a.take(continued) - 1.0
    return ramps


def _cubic_deposits(
    starts: NDArray[np.float64], span: NDArray[np.float64], total: NDArray[np.float64]
) -> NDArray[np.float64]:
    """(8, k) the deposits of cubic ramps (``Ramps.laid_out``), whole numbers of units.

    ``starts`` (4, k): the forward differences ``A_j`` of ``Q`` at ``a``; ``span`` ``b - a``;
    ``total`` ``T``. At ``a``: ``A0``, ``A1 - 3 A0``, ``A2 - 2 A1 + 3 A0``, ``A3 - A2 + A1 -
    A0`` (the fourth differences of ``P`` there); at ``b`` the same of ``Q - T``, negated, from
    its forward differences ``E_j = sum_{i >= j} A_i C(span, i - j)`` (less ``T`` for ``j =
    0``). Exact: whole numbers in float64 below ``2**53``, in a few passes each.
    """
    a0, a1, a2, a3 = starts
    out = np.empty((8, span.size))
    scratch = np.empty((3, span.size))
    c2, c3, term = scratch  # C(span, 2) and C(span, 3): whole numbers, exact
    np.subtract(span, 1.0, out=c2)
    c2 *= span
    c2 *= 0.5
    np.subtract(span, 2.0, out=c3)
    c3 *= c2
    c3 /= 3.0
    e0, e1, e2 = out[4], out[5], out[6]  # the ends' differences, then their deposits
    _binomial_sum(e0, starts, (span, c2, c3), term)
    e0 -= total
    _binomial_sum(e1, starts[1:], (span, c2), term)
    _binomial_sum(e2, starts[2:], (span,), term)
    np.subtract(e2, e1, out=out[7])
    out[7] += e0
    out[7] -= a3
    np.subtract(e1, e2, out=e2)
    np.multiply(e0, 3.0, out=term)
    np.subtract(term, e1, out=e1)  # 3 E0 - E1
    e2 -= e1  # E1 - E2 - (3 E0 - E1) = 2 E1 - E2 - 3 E0
    np.negative(e0, out=e0)
    np.multiply(a0, 3.0, out=out[1])
    np.add(out[1], a2, out=out[2])
    np.multiply(a1, 2.0, out=term)
    out[2] -= term
    np.subtract(a1, out[1], out=out[1])
    np.subtract(a3, a2, out=out[3])
    out[3] += a1
    out[3] -= a0
    out[0] = a0
    return out


def _binomial_sum(
    out: NDArray[np.float64],
    starts: NDArray[np.float64],
    binomials: tuple[NDArray[np.float64], ...],
    term: NDArray[np.float64],
) -> None:
    """``out = A0 + A1 C1 + A2 C2 + ...`` in place (``E_j`` of :func:`_cubic_deposits`).

    ``starts`` (k + 1, n) the ``A`` from ``A_j`` on, ``binomials`` the k ``C(span, i)`` from
    ``i = 1``; ``term`` (n,) scratch. The sums in this one order: exact in float64.
    """
    np.multiply(starts[1], binomials[0], out=out)
    out += starts[0]
    for a, c in zip(starts[2:], binomials[1:], strict=True):
        np.multiply(a, c, out=term)
        out += term


def _log_derivatives(
    x_r: NDArray[np.float64], tangent: NDArray[np.float64], attenuation: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """``c1``, ``h1 = c1 / 2`` and ``h2 = c2 / 3`` per bin (``quadratic_ramps``).

    ``x_r`` the ranges in bins, ``attenuation`` per bin; ``G(y) = y (1 + y (h1 + y h2))`` is
    the integral from 0 of ``1 + c1 y + c2 y**2``.
    """
    inverse = tangent * tangent
    np.divide(1.0, inverse, out=inverse)
    c1 = np.subtract(-5.0, inverse)
    c1 /= x_r
    c1 -= attenuation
    h2 = 2.0 * inverse
    h2 += 3.0
    h2 *= inverse
    h2 += 5.0
    h2 /= x_r
    h2 /= x_r
    h2 += c1 * c1
    h2 *= 1.0 / 6.0
    h1 = np.multiply(c1, 0.5)
    return c1, h1, h2


def _cumulative(
    y: NDArray[np.float64], h1: NDArray[np.float64], h2: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``G(y) = y (1 + y (h1 + y h2))``, the integral from 0 of ``1 + c1 y + c2 y**2``."""
    out = y * h2
    out += h1
    out *= y
    out += 1.0
    out *= y
    return out


def _forward_differences(
    coefficients: tuple[NDArray[np.float64], ...],
    x0: NDArray[np.float64],
    start: NDArray[np.float64],
    at_start: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(4, k) the forward differences ``A_j`` of ``Q`` at ``a = floor(start) + 1``, and ``a``.

    ``coefficients``: ``c0`` (the scale), ``c1``, ``h1``, ``h2`` (``quadratic_ramps``);
    ``x0`` the ranges and ``start`` the starts in bins, ``at_start`` ``G(start - x0)``.
    ``Q(m) = c0 (G(y + m) - G(start - x0))`` with ``y = a - x0``: ``A0 = Q(0)``, ``A1 = Q(1)
    - Q(0)``, ``A2 = c0 (c1 + 6 h2 (y + 1))``, ``A3 = 6 c0 h2``.
    """
    c0, c1, h1, h2 = coefficients
    a = np.floor(start)
    a += 1.0
    y = a - x0
    out = np.empty((4, a.size))
    at_y = _cumulative(y, h1, h2)
    np.subtract(at_y, at_start, out=out[0])
    y += 1.0
    np.subtract(_cumulative(y, h1, h2), at_y, out=out[1])
    np.multiply(h2, 6.0, out=out[3])
    np.multiply(out[3], y, out=out[2])
    out[2] += c1
    out *= c0
    return out, a


def _cut(
    cut: NDArray[np.intp],
    coefficients: tuple[NDArray[np.float64], ...],
    places: tuple[NDArray[np.float64], ...],
    out: tuple[NDArray[np.float64], ...],
    n_bins: int,
) -> None:
    """Redo, in place, the ramps ``cut`` whose interval leaves the window, cut to it.

    ``places``: ``x0``, ``start``, ``end`` (clipped in place) and the totals, ``out`` the
    forward differences, ``a`` and the last edges ``ceil(end)`` (``quadratic_ramps``).
    """
    c0, c1, h1, h2 = (c.take(cut) for c in coefficients)
    x0, start, end, total = places
    starts, a, stop = out
    inside = [np.clip(ends.take(cut), 0.0, n_bins) for ends in (start, end)]
    start[cut], end[cut] = inside
    x = x0.take(cut)
    at_start = _cumulative(inside[0] - x, h1, h2)
    starts[:, cut], a[cut] = _forward_differences((c0, c1, h1, h2), x, inside[0], at_start)
    total[cut] = c0 * (_cumulative(inside[1] - x, h1, h2) - at_start)
    stop[cut] = np.ceil(inside[1])
