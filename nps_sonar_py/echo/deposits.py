"""Where a ping's returns go: the flat layout of ``N`` beams' bins and the deposits in it.

``EchoModel`` sums every deposit of a ping in one ``np.bincount`` over a flat layout: beam
``j``'s bins, then dump cells for the dropped deposits. ``Layout`` holds the per-ray constants
of one beam count, ``Deposits`` the cells and weights of one ping.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

__all__ = ['DUMP_BINS', 'GUARD', 'WIDEST_BINS', 'Deposits', 'Layout', 'Ramps']

T = TypeVar('T', bound=np.generic)

#: Dump bins after the last cell: dropped rays take them in turn, so that np.bincount's adds
#: to them do not wait on one another (one dump bin made the bincounts twice as slow).
DUMP_BINS = 16
#: Guard bins on either side of each beam's bins in the spread deposits' layout: a live
#: return's two deposits fall at most two bins outside its beam's window.
GUARD = 2
#: The widest interval a return is spread over, in bins (a grazing ray's footprint).
WIDEST_BINS = 64.0


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
    """Returns spread evenly over many bins, as the first differences of their bins' shares.

    A return of echo ``W`` over ``[s, e]`` (in bins from ``min_range``, cut to the window)
    adds ``h = W / width`` per bin of overlap: bin ``k`` holds ``h (F(k + 1) - F(k))`` with
    ``F`` a ramp from ``s`` to ``e``, whose first difference across the bins is
    ``h (1 - frac s)`` at ``floor(s)``, ``h frac(s)`` at ``floor(s) + 1``, and the same,
    negative, at ``e``: four deposits whatever the width, summed by one ``np.bincount``
    and one int64 cumulative sum per beam over the columns they touch (``add_to``; an integer
    running sum is exact, and five times faster than a float64 one). The heights are whole
    numbers of ``unit``, their beam's tallest over ``2**bits`` with ``bits = 51 -
    ceil(log2 k))`` (35 bits for 58,368 ramps: a rounding under 3e-11 of the tallest), and
    each pair of deposits sums to its height exactly, so the sums are exact integers (under
    ``2**53``): a bin that no return overlaps holds exactly 0. The bins a return overlaps,
    ``floor(s)`` to ``ceil(e) - 1``, are counted the same way, +1 at the first and -1 after
    the last (the same cell for a return wholly outside the window), only when the hits are
    read (``coverage``). The cells are ``width`` per beam, the window's bins from ``offset``
    on (the first any ramp touches) to past the last: no pass over the bins no ramp reaches.

    ``order`` 3: the returns of a fan's cells (``echo.cell_spread``), whose echo per bin is
    quadratic over each interval: the deposits are the fourth differences of its cumulative
    echo at the bin edges (``cell_spread.quadratic_ramps``), summed three times.

    Attributes:
        n_bins: bins of the window.
        offset: the window's bin of each beam's first cell.
        width: cells per beam.
        unit: (N,) each beam's unit of height.
        cells: (4k,) cells of the differences (8k for order 3).
        weights: (4k,) float64 differences, whole numbers of units.
        edges: (2, k) cells where the overlapped bins start and stop.
        order: how many running sums make the profile of the differences.
    """

    n_bins: int
    offset: int
    width: int
    unit: NDArray[np.float64]
    cells: NDArray[np.intp]
    weights: NDArray[np.float64]
    edges: NDArray[np.intp]
    order: int = 1

    def _summed(
        self, cells: NDArray[np.intp], weights: NDArray[np.float64], order: int = 1
    ) -> NDArray[np.int64]:
        """(N, n_bins) ``order`` running sums of ``weights`` at ``cells``, int64, 0 before."""
        n_beams, offset = self.unit.size, self.offset
        used = min(self.width, self.n_bins - offset)  # the columns inside the window
        sums = np.bincount(cells, weights, n_beams * self.width).reshape(n_beams, self.width)
        out = np.zeros((n_beams, self.n_bins), dtype=np.int64)
        window = out[:, offset : offset + used]
        # An int64 running sum of whole numbers: exact (the float64 sums are).
        np.cumsum(sums[:, :used], axis=1, dtype=np.int64, out=window)
        for _ in range(order - 1):
            np.cumsum(window, axis=1, out=window)
        return out

    def profile(self) -> NDArray[np.float64]:
        """(N, n_bins) the ramps' echoes."""
        summed = self._summed(self.cells, self.weights, self.order)
        intensity: NDArray[np.float64] = np.multiply(summed, self.unit[:, None])
        return intensity

    def coverage(self) -> NDArray[np.int64]:
        """(N, n_bins) how many of the ramps overlap each bin."""
        steps = np.repeat([1.0, -1.0], self.edges.shape[1])  # whole numbers: exact sums
        return self._summed(self.edges.ravel(), steps)


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
        without a pass over every bin.
        """
        cells = self.cells_of(flat)
        inside = np.flatnonzero(cells < self.n_beams * self.n_bins)
        if not isinstance(values, int):
            values = values.take(inside)
        np.add.at(per_bin.reshape(-1), cells.take(inside), values)

    def cells_of(self, flat: NDArray[np.intp]) -> NDArray[np.intp]:
        """``flat`` as ``beam * n_bins + bin``, dropped cells as ``N n_bins`` (for labels)."""
        if self.stride == self.n_bins and self.shift == 0:
            return flat
        beam, column = np.divmod(flat, self.stride)
        column -= self.shift
        inside = (column >= 0) & (column < self.n_bins) & (flat < self.dump)
        return np.where(inside, beam * self.n_bins + column, self.n_beams * self.n_bins)
