"""Sonar images of beam profiles: polar (beams x range bins) and Cartesian (a fan or a disc).

Numpy only, no ROS. One convention for every image, as a screen shows a sonar with its
forward axis up: **up is farther (forward), left is the sensor's left (+y, REP 103)**.

* Polar image, ``(n_bins, n_beams)``: row ``r`` is range bin ``n_bins - 1 - r`` (row 0 the
  farthest bin, the last row the nearest), column ``c`` is beam ``n_beams - 1 - c`` (column 0
  the beam of largest azimuth, the leftmost; beams in increasing azimuth as the
  ``MultibeamPing`` holds them). So ``image[r, c] = profiles[n_beams - 1 - c, n_bins - 1 - r]``.
* Cartesian image: pixel ``(row, col)`` is centred on the body-frame point
  ``x = (origin_row - row) * m``, ``y = (origin_col - col) * m`` (``m`` metres per pixel):
  image rows go down along ``-x``, columns right along ``-y``, the sensor origin is the
  centre of pixel ``(origin_row, origin_col)``. The image is the bounding box of the sector
  out to ``max_range`` and always holds the origin (a forward fan: the origin in the bottom row).
  A pixel is inside when its range is in ``[min_range, max_range]`` and its azimuth within
  half a beam spacing (one beam: half its ``beam_width``) of the first and last beam axes;
  outside pixels are NaN (float) or 0 (dB). ``linear`` interpolation: linear in azimuth
  between the two nearest beam axes and in range between the two nearest bin centres
  (clamped to the first and last beam and bin); ``nearest``: the beam and bin the pixel is in,
  a pixel centre on an edge (within ``EDGE_SLACK`` of a cell, float rounding) taking the
  farther bin and the beam of larger azimuth (the cell that starts there).
* dB images: ``level = source_level + 10 log10(I)``,
  ``pixel = round((clip(level, lo, hi) - lo) / (hi - lo) * (2**bits - 1))``; silent bins
  (``I <= 0``) and NaN are 0.

Sizes are checked before anything is allocated (:func:`size_problem`).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo import EchoConfig
from nps_sonar_py.errors import ConfigurationError

__all__ = [
    'INTERPOLATIONS',
    'CartesianImager',
    'DbWindow',
    'SectorGeometry',
    'SweepProfiles',
    'available_memory',
    'db_pixels',
    'polar_image',
    'size_problem',
]

#: How a Cartesian pixel takes its value from the beams and bins.
INTERPOLATIONS = ('linear', 'nearest')
#: Share of a bin or beam cell within which a nearest pixel's centre is on the cell's edge
#: (its hypot and arctan2 are a few units of 1e-16 off an edge it lies on).
EDGE_SLACK = 1e-9
#: Peak bytes per pixel of a Cartesian image over its life: building its lookup, then making
#: an image, its dB pixels and the message's copy of them. Measured with tracemalloc on a
#: 2001 x 2001 disc (pi / 4 of the pixels inside, the most a sector's bounding box holds), every
#: bin above the dB floor: linear 62.8 building, 68.8 publishing mono8; nearest 37.7 and 37.4;
#: about 10 % is added. The lookup keeps intp indices (int32 ones would save 16 bytes per
#: inside pixel but numpy converts them on every gather: 2x slower images) and float32
#: weights, and the float64 grids it is built from are freed as their inside pixels are taken.
_PEAK_BYTES = {'linear': 76, 'nearest': 42}
#: Largest pixel count worked out exactly; float counts above it (or inf) are refused first.
_COUNTABLE = 2.0**53
_TWO_PI = 2.0 * math.pi
#: The pixel type of a dB image of each bit count.
_PIXEL_TYPES: dict[int, type[np.unsignedinteger]] = {8: np.uint8, 16: np.uint16, 32: np.uint32}


@dataclass(frozen=True)
class DbWindow:
    """The dB window of an integer image: ``low`` maps to 0, ``high`` to ``2**bits - 1``.

    8 and 16 bits make ``mono8`` and ``mono16`` images; 32 bits only marine_acoustic_msgs'
    ``DTYPE_UINT32`` (``ros/marine.py``), which no ``sensor_msgs/Image`` encoding holds.
    """

    low: float = -100.0
    high: float = -20.0
    bits: int = 8

    def __post_init__(self) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high) and self.low < self.high):
            msg = f'dB window must be finite with low < high, got [{self.low!r}, {self.high!r}]'
            raise ConfigurationError(msg)
        if self.bits not in _PIXEL_TYPES:
            msg = f'dB image bits must be 8 or 16 (mono8, mono16) or 32, got {self.bits!r}'
            raise ConfigurationError(msg)

    @property
    def encoding(self) -> str:
        """``mono8`` or ``mono16`` (sensor_msgs/image_encodings)."""
        return f'mono{self.bits}'

    @property
    def dtype(self) -> type[np.unsignedinteger]:
        """``uint8``, ``uint16`` or ``uint32``."""
        return _PIXEL_TYPES[self.bits]


def db_pixels(
    intensity: NDArray[np.floating[Any]], window: DbWindow, source_level: float = 0.0
) -> NDArray[np.unsignedinteger[Any]]:
    """Linear intensities as integer pixels of ``window`` (module docstring); silent, NaN: 0."""
    values = np.asarray(intensity)
    # Only values above the window's floor need a logarithm: the others (silent, NaN) are 0.
    floor = 10.0 ** ((window.low - source_level) / 10.0)
    with np.errstate(invalid='ignore'):
        loud = values > floor
    level = source_level + 10.0 * np.log10(values[loud].astype(np.float64))
    np.clip(level, window.low, window.high, out=level)
    scale = (2**window.bits - 1) / (window.high - window.low)
    result: NDArray[np.unsignedinteger[Any]] = np.zeros(values.shape, dtype=window.dtype)
    result[loud] = np.rint((level - window.low) * scale)
    return result


def polar_image(profiles: NDArray[np.floating]) -> NDArray[np.float32]:
    """``(n_beams, n_bins)`` profiles as the ``(n_bins, n_beams)`` polar image (docstring)."""
    image: NDArray[np.float32] = np.ascontiguousarray(
        np.asarray(profiles)[::-1, ::-1].T, dtype=np.float32
    )
    return image


def available_memory() -> int | None:
    """Bytes of memory available now (Linux ``MemAvailable``, else the free pages), or ``None``."""
    try:
        with open('/proc/meminfo', encoding='ascii') as meminfo:
            for line in meminfo:
                if line.startswith('MemAvailable:'):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf('SC_AVPHYS_PAGES')) * int(os.sysconf('SC_PAGE_SIZE'))
    except (ValueError, OSError, AttributeError):
        return None


def size_problem(
    what: str, height: float, width: float, bytes_per_pixel: float, max_pixels: int
) -> str | None:
    """Why an image of ``height x width`` must not be made, or ``None``; no allocation.

    Refused: more than ``max_pixels`` pixels, or more bytes than the memory available. Counts
    may be floats (an estimate of an absurd size, even inf): they are then shown to 3 digits.
    """
    pixels = height * width
    size = f'{_count(width)} x {_count(height)}'
    if not pixels <= max_pixels:  # NaN too
        count = _count(pixels)
        return f'{what}: {size} = {count} pixels, more than image_max_pixels ({max_pixels})'
    needed = pixels * bytes_per_pixel
    free = available_memory()
    if free is not None and needed > free:
        return (
            f'{what}: {size} pixels need {needed / 2**20:.0f} MiB, more than the '
            f'{free / 2**20:.0f} MiB of memory available'
        )
    return None


def _count(n: float) -> str:
    """A pixel count: exact while an integer below 10**12, else to 3 digits (``1.05e+308``)."""
    if isinstance(n, int) and n < 10**12:
        return str(n)
    try:
        return f'{float(n):.3g}'
    except OverflowError:  # an int beyond the largest float
        return 'inf'


@dataclass(frozen=True)
class SectorGeometry:
    """Where the beams of an image point and where their bins lie (``n_beams`` >= 1).

    Beam ``j`` points at ``first_azimuth + j * spacing`` rad about +z (REP 103), or at
    ``bearings[j]`` when the axes are not evenly spaced (a fan even in sine, or a table:
    ``first_azimuth`` is then ``bearings[0]``, ``spacing`` their mean step); a beam's cell
    reaches halfway to its neighbours. One beam covers ``first_azimuth +- width / 2``. Bin
    ``k`` spans ``min_range + [k, k + 1] * bin_width``.
    """

    n_beams: int
    first_azimuth: float
    spacing: float
    width: float
    min_range: float
    max_range: float
    n_bins: int
    bearings: tuple[float, ...] | None = None

    @classmethod
    def of_beams(
        cls,
        n_beams: int,
        first_azimuth: float,
        spacing: float,
        echo: EchoConfig,
        *,
        bearings: tuple[float, ...] | None = None,
    ) -> SectorGeometry:
        """``n_beams`` axes from ``first_azimuth`` every ``spacing`` rad, ``echo``'s bins.

        Axes not evenly spaced: ``bearings``, each beam's. The image geometry of a fan's ping
        or a sweep: the beams' width and the range bins are the echo model's.
        """
        return cls(
            n_beams,
            first_azimuth,
            spacing,
            echo.beam_width,
            echo.min_range,
            echo.max_range,
            echo.n_bins,
            bearings,
        )

    @property
    def bin_width(self) -> float:
        """Width of a range bin, m."""
        return (self.max_range - self.min_range) / self.n_bins

    @property
    def half_cell(self) -> float:
        """Half the azimuth the first beam covers below its axis.

        Half the spacing (half the first gap when ``bearings``), or half one beam's width.
        """
        if self.bearings is not None:
            return 0.5 * (self.bearings[1] - self.bearings[0])
        return 0.5 * (self.spacing if self.n_beams > 1 else self.width)

    @property
    def span(self) -> float:
        """Azimuth covered from the first beam's cell edge to the last one's, rad (<= 2 pi)."""
        if self.bearings is not None:
            b = self.bearings
            return min(_TWO_PI, b[-1] - b[0] + 0.5 * (b[1] - b[0]) + 0.5 * (b[-1] - b[-2]))
        return min(_TWO_PI, (self.n_beams - 1) * self.spacing + 2.0 * self.half_cell)

    @property
    def full_circle(self) -> bool:
        """Whether the beams go all the way round (the last beam's neighbour is the first)."""
        if self.bearings is not None:
            return False  # a fan's table spans less than a turn
        return self.n_beams > 1 and self.n_beams * abs(self.spacing) >= _TWO_PI - 1e-9

    def beam_cells(self, offset: NDArray[np.float64]) -> NDArray[np.intp]:
        """The beam whose cell holds each ``offset`` (rad past the first cell's edge).

        ``offset`` at most ``span``, overwritten; on an edge, the cell that starts there. More
        than one beam.
        """
        if self.bearings is None:
            offset /= self.spacing
            offset += EDGE_SLACK
            return np.minimum(offset, self.n_beams - 1).astype(np.intp)
        b = np.asarray(self.bearings)
        edges = 0.5 * (b[1:] + b[:-1]) - (b[0] - self.half_cell)
        return np.searchsorted(edges, offset, side='right').astype(np.intp)

    def beam_positions(self, offset: NDArray[np.float64]) -> NDArray[np.float64]:
        """Fractional beam index (0 at the first axis) of each ``offset``.

        ``offset``: rad past the first cell's edge, overwritten when the axes are even; linear
        in azimuth between the axes. More than one beam.
        """
        if self.bearings is None:
            offset -= self.half_cell
            offset /= self.spacing
            return offset
        b = np.asarray(self.bearings)
        axes = b - (b[0] - self.half_cell)
        return np.interp(offset, axes, np.arange(b.size, dtype=np.float64))


class CartesianImager:
    """Maps the profiles of a :class:`SectorGeometry` to a Cartesian image (module docstring).

    The lookup (pixel -> beams, bins, weights) is built once; :meth:`image` then costs a few
    gathers per pixel. Raises ``ConfigurationError`` (one line) for an image over
    ``max_pixels`` or the memory available, before allocating it, and for one without a pixel
    inside the sector (``metres_per_pixel`` too coarse for it).
    """

    def __init__(
        self,
        geometry: SectorGeometry,
        metres_per_pixel: float,
        interpolation: str = 'linear',
        *,
        max_pixels: int,
        what: str = 'Cartesian image',
    ) -> None:
        if not (math.isfinite(metres_per_pixel) and metres_per_pixel > 0.0):
            msg = f'metres per pixel must be finite and > 0, got {metres_per_pixel!r}'
            raise ConfigurationError(msg)
        if interpolation not in INTERPOLATIONS:
            msg = f'interpolation must be linear or nearest, got {interpolation!r}'
            raise ConfigurationError(msg)
        self.geometry, self.metres_per_pixel, self.interpolation = (
            geometry,
            metres_per_pixel,
            interpolation,
        )
        x_low, x_high, y_low, y_high = _bounds(geometry)
        m = metres_per_pixel
        per_pixel = _PEAK_BYTES[interpolation]
        # Pixel counts as floats first: a size too large to count exactly (inf at 1e-310 m
        # per pixel) is refused before math.ceil, which would overflow or make huge ints.
        up, down = x_high / m - 1e-9, -x_low / m - 1e-9
        left, right = y_high / m - 1e-9, -y_low / m - 1e-9
        rows, cols = up + down + 1.0, left + right + 1.0  # at most the height and width
        if not rows * cols <= _COUNTABLE:
            problem = size_problem(what, rows, cols, per_pixel, max_pixels)
            raise ConfigurationError(
                problem or f'{what}: {cols:.3g} x {rows:.3g} pixels, more than {_COUNTABLE:.3g}'
            )
        rows_up, rows_down = math.ceil(up), math.ceil(down)
        cols_left, cols_right = math.ceil(left), math.ceil(right)
        height, width = rows_up + rows_down + 1, cols_left + cols_right + 1
        problem = size_problem(what, height, width, per_pixel, max_pixels)
        if problem:
            raise ConfigurationError(problem)
        self.height, self.width = height, width
        self.origin_row, self.origin_col = rows_up, cols_left
        # Inside pixels (flat); (neighbours, inside) flat profile indices; their weights
        # (None: nearest, one neighbour of weight 1).
        self._index: tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.float32] | None]
        self._build()
        if self._index[0].size == 0:
            raise ConfigurationError(
                f'{what}: no pixel centre inside the sector out to {geometry.max_range:g} m, '
                f'got {m:g} m per pixel'
            )

    def _build(self) -> None:
        """Build the lookup, with few whole-image arrays alive at once (``_PEAK_BYTES``).

        The full grids are dropped as soon as the inside pixels are taken from them.
        """
        g, m = self.geometry, self.metres_per_pixel
        x = (self.origin_row - np.arange(self.height, dtype=np.float64))[:, None] * m
        y = (self.origin_col - np.arange(self.width, dtype=np.float64))[None, :] * m
        r = np.hypot(x, y)
        inside = r >= g.min_range
        inside &= r <= g.max_range
        # Azimuth past the first cell edge, in [0, 2 pi).
        offset = np.arctan2(y, x)
        offset -= g.first_azimuth - g.half_cell
        np.mod(offset, _TWO_PI, out=offset)
        inside &= offset <= g.span
        flat = np.flatnonzero(inside)
        r = r[inside]  # one at a time: each full grid is freed as its inside part is taken
        offset = offset[inside]
        del inside
        n, bins = g.n_beams, g.n_bins
        if self.interpolation == 'nearest':
            k = (r - g.min_range) / g.bin_width
            k += EDGE_SLACK  # on an edge: the cell that starts there
            del r
            beam = np.zeros(offset.size, dtype=np.intp)
            if n > 1:
                beam = g.beam_cells(offset)
            del offset
            np.minimum(k, bins - 1, out=k)
            beam *= bins
            beam += k.astype(np.intp)
            self._index = (flat, beam[None, :], None)
            return
        # Fractional beam u and bin v of each inside pixel: neighbours floor(u), floor(u) + 1
        # (wrapped round a full circle, else clamped) and floor(v), floor(v) + 1 (clamped).
        if n > 1:
            offset = g.beam_positions(offset)
        else:
            offset[:] = 0.0
        b0, wb = _floor_and_fraction(offset)
        del offset
        b1 = b0 + 1
        if g.full_circle:
            np.mod(b0, n, out=b0)
            np.mod(b1, n, out=b1)
        else:
            np.clip(b0, 0, n - 1, out=b0)
            np.clip(b1, 0, n - 1, out=b1)
        r -= g.min_range
        r /= g.bin_width
        r -= 0.5
        np.clip(r, 0.0, bins - 1.0, out=r)
        k0, wk = _floor_and_fraction(r)
        del r
        k1 = np.minimum(k0 + 1, bins - 1)
        b0 *= bins
        b1 *= bins
        indices = np.empty((4, flat.size), dtype=np.intp)
        np.add(b0, k0, out=indices[0])
        np.add(b0, k1, out=indices[1])
        np.add(b1, k0, out=indices[2])
        np.add(b1, k1, out=indices[3])
        del b0, b1, k0, k1
        weights = np.empty((4, flat.size), dtype=np.float32)
        not_wb, not_wk = 1.0 - wb, 1.0 - wk
        np.multiply(not_wb, not_wk, out=weights[0])
        np.multiply(not_wb, wk, out=weights[1])
        np.multiply(wb, not_wk, out=weights[2])
        np.multiply(wb, wk, out=weights[3])
        self._index = (flat, indices, weights)

    def image(self, profiles: NDArray[np.floating]) -> NDArray[np.float32]:
        """``(height, width)`` float32 image of ``(n_beams, n_bins)`` profiles; NaN outside."""
        g = self.geometry
        values = np.asarray(profiles)
        if values.shape != (g.n_beams, g.n_bins):
            msg = f'profiles of shape {values.shape}, expected {(g.n_beams, g.n_bins)}'
            raise ValueError(msg)
        flat, indices, weights = self._index
        table = values.astype(np.float32).reshape(-1)
        # Neighbour by neighbour: one gathered row alive at a time, not all four.
        total = table[indices[0]]
        if weights is not None:
            total *= weights[0]
            for i in range(1, indices.shape[0]):
                term = table[indices[i]]
                term *= weights[i]
                total += term
        out = np.full(self.height * self.width, np.nan, dtype=np.float32)
        out[flat] = total
        return out.reshape(self.height, self.width)


def _floor_and_fraction(u: NDArray[np.float64]) -> tuple[NDArray[np.intp], NDArray[np.float32]]:
    """``floor(u)`` as indices and ``u - floor(u)`` as float32 (``u`` is overwritten)."""
    whole = np.floor(u)
    u -= whole
    fraction = u.astype(np.float32)
    return whole.astype(np.intp), fraction


class SweepProfiles:
    """The latest profile at each head angle of a scanning sonar: its sweep as beams.

    Row ``k`` is head angle ``k`` in increasing order (the sweep's forward order); rows not
    pinged yet are silent (0). :meth:`restart` empties it (a new configuration).
    """

    def __init__(self, n_angles: int, n_bins: int) -> None:
        self.profiles = np.zeros((n_angles, n_bins))

    def restart(self) -> None:
        """Every head angle silent again."""
        self.profiles[:] = 0.0

    def update(self, angle_index: int, profile: NDArray[np.floating]) -> None:
        """The ping at head angle ``angle_index``."""
        self.profiles[angle_index] = profile


def _bounds(g: SectorGeometry) -> tuple[float, float, float, float]:
    """``(x_low, x_high, y_low, y_high)`` of the sector out to ``max_range`` with the origin."""
    start, span, radius = g.first_azimuth - g.half_cell, g.span, g.max_range
    angles = [start, start + span]
    quarter = math.pi / 2
    k = math.ceil(start / quarter)
    while k * quarter < start + span:
        angles.append(k * quarter)
        k += 1
    a = np.array(angles)
    xs, ys = np.append(radius * np.cos(a), 0.0), np.append(radius * np.sin(a), 0.0)
    return float(xs.min()), float(xs.max()), float(ys.min()), float(ys.max())
