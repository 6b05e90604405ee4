"""Where a ping's returns go: the flat layout of ``N`` beams' bins and the deposits in it.

``EchoModel`` sums every deposit of a ping in one ``np.bincount`` over a flat layout: beam
``j``'s bins, then dump cells for the dropped deposits. ``Layout`` holds the per-ray constants
of one beam count, ``Deposits`` the cells and weights of one ping.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

__all__ = [
    'DUMP_BINS',
    'GUARD',
    'WIDEST_BINS',
    'Deposits',
    'Layout',
    'Ramps',
    'box_ramps',
    'ramp_units',
]

T = TypeVar('T', bound=np.generic)

#: Dump bins after the last cell: dropped rays take them in turn, so that np.bincount's adds
#: to them do not wait on one another (one dump bin made the bincounts twice as slow).
DUMP_BINS = 16
#: Guard bins on either side of each beam's bins in the spread deposits' layout: a live
#: return's two deposits fall at most two bins outside its beam's window.
GUARD = 2
#: The widest interval a return is spread over, in bins (a grazing ray's footprint).
WIDEST_BINS = 64.0
#: Most cells of a layout whose cell table (``_cell_table``) is kept: 8 MiB of intp.
_TABLE_CELLS = 1 << 20
#: ``Deposits.add_at`` copies the bins when it has a deposit for at least this many bins.
_COPY_BINS = 8


@dataclass(frozen=True)
class Layout:
    """Per-ray constants of ``N`` beams flattened in ray order (``EchoModel._layout``).

    Attributes:
        n_beams: ``N``.
        base: (N n,) each ray's beam offset ``beam * n_bins`` less its dump bin
            (``EchoModel._bins``).
        dumps: (N n,) a dump bin after the last beam's, ``N n_bins + i mod DUMP_BINS``: the
            dropped deposits take them in turn, so that bincount's adds do not wait on one bin.
        guarded: (N,) the first bin of each beam in the spread deposits' layout, whose beams
            have ``GUARD`` guard bins on either side (``EchoModel._spread_deposits``).
        factor: (N n,) the per-ray factor ``B dOmega`` (times the specular constant), float64.
        factor32: the same in float32, for float32 ranges.
        refine_above: (N n,) float32, the ``|cos|`` above which a spread return is placed by
            its whole cell (``ray_cells``): -1 for the rays of an edge cell, 2 (never) without
            cells.
    """

    n_beams: int
    base: NDArray[np.intp]
    dumps: NDArray[np.intp]
    guarded: NDArray[np.intp]
    factor: NDArray[np.float64]
    factor32: NDArray[np.float32]
    refine_above: NDArray[np.float32]


@dataclass(frozen=True, eq=False)
class Ramps:
    """Returns spread over many bins, as differences of their cumulative echo (``build``).

    A return's cumulative echo ``P`` at the bin edges (in bins from ``min_range``, cut to the
    window) is 0 up to its first edge ``a``, a polynomial ``Q`` of degree ``order`` from ``a``
    to ``b`` and its echo ``T`` after: ``P = Q H_a - (Q - T) H_b``. Each bin holds ``P(k + 1)
    - P(k)``, so the differences of order ``order + 1`` of ``P`` are ``order + 1`` deposits at
    each end whatever the width, summed by one ``np.bincount`` and ``order`` int64 running
    sums per beam over the columns they touch (an integer running sum is exact, and five
    times faster than a float64 one). ``order`` 1: a flat box (the side-scan's footprints, the
    echo per bin ``h`` over ``[s, e]``: ``h (1 - frac s)`` and ``h frac s`` at ``floor(s)``
    and the next bin, the same negated at ``e``); ``order`` 3: a fan's cells, whose echo per
    bin is quadratic (``echo.cell_spread``). The coefficients are whole numbers of ``unit``
    (``ramp_units``), so the sums are exact integers (under ``2**53``): a bin that no return
    overlaps holds exactly 0. The bins a return overlaps, ``floor(s)`` to ``ceil(e) - 1``, are
    counted the same way, +1 at the first and -1 after the last (the same cell for a return
    wholly outside the window), only when the hits are read (``coverage``). The cells are
    ``width`` per beam, the window's bins from ``offset`` on (the first any ramp touches) to
    past the last: no pass over the bins no ramp reaches.

    Attributes:
        n_bins: bins of the window.
        offset: the window's bin of each beam's first cell.
        width: cells per beam.
        unit: (N,) each beam's unit of echo.
        cells: (2 (order + 1) k,) cells of the differences.
        weights: the same, float64 differences, whole numbers of units.
        edges: (2, k) cells where the overlapped bins start and stop.
        order: the degree of the ramps' cumulative echo, the running sums after the bincount.
    """

    n_bins: int
    offset: int
    width: int
    unit: NDArray[np.float64]
    cells: NDArray[np.intp]
    weights: NDArray[np.float64]
    edges: NDArray[np.intp]
    order: int = 1

    @classmethod
    def build(
        cls,
        starts: NDArray[np.float64],
        ends: NDArray[np.float64],
        places: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]],
        beam: NDArray[np.intp],
        n_bins: int,
        unit: NDArray[np.float64],
    ) -> Ramps:
        """The ramps of ``order = len(starts) - 1`` from their polynomials' differences.

        ``starts`` (order + 1, k): the forward differences ``A_j`` of ``Q`` at ``a``
        (``Q(a + m) = sum A_j C(m, j)``), ``ends`` those of ``Q - T`` at ``b``, whole numbers
        of their beam's ``unit``; the rest as :meth:`laid_out`.
        """
        order = starts.shape[0] - 1
        weights = np.empty((2 * (order + 1), beam.size))
        # Exact: small whole numbers times whole numbers of units, their sums under 2**53.
        _differences(starts, weights[: order + 1])
        _differences(ends, weights[order + 1 :])
        np.negative(weights[order + 1 :], out=weights[order + 1 :])
        return cls.laid_out(weights, places, beam, n_bins, unit)

    @classmethod
    def laid_out(
        cls,
        weights: NDArray[np.float64],
        places: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]],
        beam: NDArray[np.intp],
        n_bins: int,
        unit: NDArray[np.float64],
    ) -> Ramps:
        """The ramps of ``order = len(weights) / 2 - 1`` from their deposits ``weights``.

        ``weights`` (2 (order + 1), k): the differences of order ``order + 1`` of ``P`` at
        ``a`` and on, then at ``b`` and on, whole numbers of their beam's ``unit``;
        ``places``: ``a``, ``b`` (edges, whole numbers, ``a >= 1``) and the last edge
        ``ceil(e)`` of the bins overlapped, from ``a - 1`` on. ``beam`` (k,) each ramp's.
        """
        a, b, stop = places
        count = weights.shape[0]
        order = count // 2 - 1
        offset = int(a.min()) - 1  # the Ramps' layout: from the first bin touched
        stride = int(b.max()) + order - offset  # to the last deposit's
        base = beam * stride
        base -= offset + 1
        cells = np.empty((count, a.size), dtype=np.intp)
        np.add(base, a, out=cells[0], casting='unsafe')
        np.add(base, b, out=cells[order + 1], casting='unsafe')
        steps = np.arange(1, order + 1, dtype=np.intp)[:, None]
        np.add(cells[0], steps, out=cells[1 : order + 1])
        np.add(cells[order + 1], steps, out=cells[order + 2 :])
        edges = np.empty((2, a.size), dtype=np.intp)
        edges[0] = cells[0]
        np.add(base, stop, out=edges[1], casting='unsafe')
        edges[1] += 1
        return cls(n_bins, offset, stride, unit, cells.ravel(), weights.ravel(), edges, order)

    def _summed(self) -> NDArray[np.int64]:
        """(N, used) ``order`` int64 running sums of the deposits, the columns in the window."""
        n_beams = self.unit.size
        used = min(self.width, self.n_bins - self.offset)  # the columns inside the window
        sums = np.bincount(self.cells, self.weights, n_beams * self.width)
        # An int64 running sum of whole numbers: exact (the float64 sums are).
        window = np.cumsum(sums.reshape(n_beams, self.width)[:, :used], axis=1, dtype=np.int64)
        for _ in range(self.order - 1):
            np.cumsum(window, axis=1, out=window)
        return window

    def profile(self) -> NDArray[np.float64]:
        """(N, n_bins) the ramps' echoes."""
        summed = self._summed()
        intensity = np.zeros((self.unit.size, self.n_bins))
        window = intensity[:, self.offset : self.offset + summed.shape[1]]
        np.multiply(summed, self.unit[:, None], out=window)
        return intensity

    def coverage(self) -> NDArray[np.int64]:
        """(N, n_bins) how many of the ramps overlap each bin.

        +1 where each starts less 1 where it stops, counted without weights (int64, no
        float pass), then one running sum.
        """
        n_beams, size = self.unit.size, self.unit.size * self.width
        steps = np.bincount(self.edges[0], minlength=size)
        steps -= np.bincount(self.edges[1], minlength=size)
        used = min(self.width, self.n_bins - self.offset)
        counts = np.zeros((n_beams, self.n_bins), dtype=np.int64)
        window = counts[:, self.offset : self.offset + used]
        np.cumsum(steps.reshape(n_beams, self.width)[:, :used], axis=1, out=window)
        return counts


def box_ramps(
    r: NDArray[np.floating],
    width: NDArray[np.floating],
    echo: NDArray[np.floating],
    beam: NDArray[np.intp],
    n_beams: int,
    window: tuple[float, float, int],
) -> Ramps:
    """Returns (k,) spread evenly over ``width`` bins about their ranges ``r``: ramps of order 1.

    ``width`` > 1 (at most ``WIDEST_BINS``); ``beam`` (k,) sorted; ``window``: ``min_range``,
    bins per metre, ``n_bins``. Each interval ``[s, e]`` is cut to the window and holds ``h =
    echo / width`` per bin of overlap: ``A0 = h - rint(h frac s)`` at ``a = floor(s) + 1``,
    ``A1 = h``, and at ``b = floor(e) + 1`` ``h - rint(h frac e)`` and ``h``: each pair of
    deposits sums to ``h`` exactly.
    """
    min_range, scale, n_bins = window
    span = np.minimum(width.astype(np.float64), WIDEST_BINS)
    ends = np.empty((2, span.size))  # s and e, each end's calls made once on both
    centre = np.subtract(r, min_range, dtype=np.float64, out=ends[0])
    centre *= scale
    height = echo / span
    centre -= 0.5 * span
    np.add(centre, span, out=ends[1])
    np.clip(ends, 0.0, n_bins, out=ends)
    unit = ramp_units(n_beams, beam, height, 51)
    height /= unit.take(beam)
    np.rint(height, out=height)
    edges, stop = np.floor(ends), np.ceil(ends[1])
    coefficients = np.empty((2, 2, span.size))
    ends -= edges  # the fractions
    first = coefficients[:, 0]
    np.multiply(height, ends, out=first)
    np.rint(first, out=first)
    np.subtract(height, first, out=first)
    coefficients[:, 1] = height
    edges += 1.0
    a, b = edges
    return Ramps.build(coefficients[0], coefficients[1], (a, b, stop), beam, n_bins, unit)


def _differences(coefficients: NDArray[np.float64], out: NDArray[np.float64]) -> None:
    """Into ``out``: the differences of order ``n + 1`` of a polynomial started at 0.

    ``S(m) = sum c_j C(m, j)`` (0 for ``m < 0``) at ``m = 0..n``, ``n + 1`` the rows of
    ``coefficients``: ``sum_l c_l sum_i (-1)**i C(n + 1, i) C(t - i, l)`` for row ``t``
    (order 3: ``c0``, ``c1 - 3 c0``, ``c2 - 2 c1 + 3 c0``, ``c3 - c2 + c1 - c0``). Not
    ``np.matmul``: its BLAS threads wait on a loaded machine (20 times slower).
    """
    for t, row in enumerate(_difference_weights(coefficients.shape[0] - 1)):
        out[t] = coefficients[t]
        for col, m in enumerate(row):
            if m == 1:
                out[t] += coefficients[col]
            elif m == -1:
                out[t] -= coefficients[col]
            elif m:
                out[t] += m * coefficients[col]


@functools.lru_cache(maxsize=8)
def _difference_weights(n: int) -> tuple[tuple[int, ...], ...]:
    """``_differences``' whole-number weights of ``c_l`` in row ``t``, worked out once."""
    return tuple(
        tuple(
            sum((-1) ** i * math.comb(n + 1, i) * math.comb(t - i, col) for i in range(t + 1))
            for col in range(t)
        )
        for t in range(n + 1)
    )


def ramp_units(
    n_beams: int,
    beam: NDArray[np.intp],
    height: NDArray[np.floating],
    headroom: int,
    sorted_to: int | None = None,
) -> NDArray[np.float64]:
    """(N,) each beam's unit of ramp echo: its tallest ``height`` over ``2**bits`` (``Ramps``).

    ``bits = headroom - ceil(log2(k + 1))`` for the most ramps ``k`` of a beam: the sums of a
    beam's deposits stay below ``2**53`` when each is under ``2**(53 - headroom)`` heights.
    ``beam`` (k,) sorted up to ``sorted_to`` (all by default), in any order after; a beam
    without ramps (or only zero heights) has unit 1.
    """
    size = beam.size if sorted_to is None else sorted_to
    bounds = np.searchsorted(beam[:size], np.arange(n_beams + 1))  # beams are < n_beams
    starts = bounds[:-1]
    counts = bounds[1:] - starts
    tallest = np.zeros(n_beams)
    if size:
        reduced = np.maximum.reduceat(height[:size], np.minimum(starts, size - 1))
        np.copyto(tallest, reduced, where=counts > 0)
    if size < beam.size:
        counts += np.bincount(beam[size:], minlength=n_beams)
        np.maximum.at(tallest, beam[size:], height[size:])
    bits = headroom - math.ceil(math.log2(int(counts.max()) + 1))
    tallest *= 2.0**-bits
    unit: NDArray[np.float64] = np.where(tallest > 0.0, tallest, 1.0)
    return unit


@dataclass(frozen=True, eq=False)
class Deposits:
    """Where a ping's returns go: cells of a flat layout and the intensity each one adds.

    Beam ``j``'s bins are cells ``j * stride + shift`` onwards; any other cell below ``dump``
    (a guard bin) and the dump bins from ``dump`` on are dropped.

    Attributes:
        flat: (k,) cell of each deposit.
        weights: (k,) intensity each deposit adds (float32 or float64).
        labelled: (k,) entity of each deposit's ray, or None.
        counted: which deposits count as hits, (k,), or None for all; asked for only when the
            hits are read.
        n_beams: ``N``.
        n_bins: bins per beam.
        stride: cells per beam.
        shift: the first bin's cell in its beam.
        stats: the rays' own beam statistics when asked: nearest range, confidence and the
            kept mask (``EchoModel._beam_stats``), from the rays, not the deposits.
        ramps: returns spread over many bins, added apart (``Ramps``), or None.
    """

    flat: NDArray[np.intp]
    weights: NDArray[np.floating]
    labelled: NDArray[np.integer] | None
    counted: Callable[[], NDArray[np.bool_] | None]
    n_beams: int
    n_bins: int
    stride: int
    shift: int
    stats: Callable[[], tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]]
    ramps: Ramps | None = None

    @property
    def dump(self) -> int:
        """The first dump cell, after every beam's cells."""
        return self.n_beams * self.stride

    def bins_of(self, per_cell: NDArray[T]) -> NDArray[T]:
        """(N, n_bins) of a per-cell array (a bincount's): each beam's bins, C-contiguous."""
        cells = per_cell[: self.dump].reshape(self.n_beams, self.stride)
        return np.ascontiguousarray(cells[:, self.shift : self.shift + self.n_bins])

    def add_at(
        self, per_bin: NDArray[T], flat: NDArray[np.intp], values: NDArray[np.generic] | int
    ) -> None:
        """Add ``values`` (or one value) at cells ``flat`` to ``per_bin`` (N, n_bins), in place.

        The cells outside every beam's bins are dropped. ``np.add.at``: for a few deposits,
        without a pass over every bin. With at least one deposit for every ``_COPY_BINS``
        bins (a side-scan's), the deposits go to their own cells, in a copy of ``per_bin``
        laid out as they are (guard and dump cells, dropped): two copies of the bins then
        cost less than taking the kept deposits out or mapping each one's cell, and each
        bin's adds come in the same order.
        """
        size = self.n_beams * self.n_bins
        if flat.size * _COPY_BINS >= size:
            layout = np.zeros(self.dump + DUMP_BINS, dtype=per_bin.dtype)
            bins = layout[: self.dump].reshape(self.n_beams, self.stride)
            bins = bins[:, self.shift : self.shift + self.n_bins]
            bins[...] = per_bin
            np.add.at(layout, flat, values)
            per_bin[...] = bins
            return
        cells = self.cells_of(flat)
        inside = np.flatnonzero(cells < size)
        if not isinstance(values, int):
            values = values.take(inside)
        np.add.at(per_bin.reshape(-1), cells.take(inside), values)

    def cells_of(self, flat: NDArray[np.intp]) -> NDArray[np.intp]:
        """``flat`` as ``beam * n_bins + bin``, dropped cells as ``N n_bins`` (for labels).

        One gather from the layout's table where it is small (built once per layout: a
        division per deposit costs five times the gather), the division otherwise.
        """
        if self.stride == self.n_bins and self.shift == 0:
            return flat
        if self.dump + DUMP_BINS <= _TABLE_CELLS:
            return _cell_table(self.n_beams, self.n_bins, self.stride, self.shift).take(flat)
        return _cells(flat, self.n_beams, self.n_bins, self.stride, self.shift)


def _cells(
    flat: NDArray[np.intp], n_beams: int, n_bins: int, stride: int, shift: int
) -> NDArray[np.intp]:
    """``Deposits.cells_of`` of a layout, computed: ``beam * n_bins + bin`` or ``N n_bins``."""
    beam, column = np.divmod(flat, stride)
    column -= shift
    inside = (column >= 0) & (column < n_bins) & (flat < n_beams * stride)
    return np.where(inside, beam * n_bins + column, n_beams * n_bins)


@functools.lru_cache(maxsize=4)
def _cell_table(n_beams: int, n_bins: int, stride: int, shift: int) -> NDArray[np.intp]:
    """``_cells`` of every cell of a layout, dump bins included (read-only, built once)."""
    cells = np.arange(n_beams * stride + DUMP_BINS, dtype=np.intp)
    table = _cells(cells, n_beams, n_bins, stride, shift)
    table.flags.writeable = False
    return table
