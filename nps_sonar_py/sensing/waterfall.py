"""The side-scan waterfall: one line per ping or per distance travelled, port left, newest on top.

Pixel conventions of :meth:`Waterfall.image` (``lines`` rows, ``2 * samples`` columns, linear
intensity, float32):

* row 0 is the newest line, row ``lines - 1`` the oldest; rows not filled yet are 0;
* columns ``0 .. samples - 1`` are port, REVERSED: column 0 is the farthest port sample,
  column ``samples - 1`` the nearest; columns ``samples .. 2 samples - 1`` are starboard in
  range order; nadir is between the two halves, in the middle of the line;
* sample ``j`` of a side covers ``[j, j + 1] * max_range / samples`` of ground range in
  ground-range mode (from nadir, 0), or ``min_range + [j, j + 1] * (max_range - min_range) /
  samples`` of slant range otherwise, its value the slant bin at the sample's centre
  (nearest lookup, no interpolation: edges and shadows stay sharp).

Ground range (:func:`ground_range_profiles`): over a flat bottom at altitude ``h`` a return at
slant range ``r`` lies at ground range ``g = sqrt(r**2 - h**2)``; ``h`` is the ping's
altitude (``SidescanPing.altitude``: a bottom track or an altimeter, ``sensing.altitude``).
The water column (``r < h``) has no ground range and is removed; ground ranges past
``sqrt(max_range**2 - h**2)`` are 0. ``docs/sidescan.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.records import Record, setting
from nps_sonar_py.sensing.sidescan import MAX_SIDESCAN_BINS, SidescanPing

__all__ = [
    'MAX_WATERFALL_LINES',
    'MAX_WATERFALL_PIXELS',
    'MAX_WATERFALL_SAMPLES',
    'Waterfall',
    'WaterfallConfig',
    'ground_range_profiles',
]

#: Most lines (rows) of a waterfall.
MAX_WATERFALL_LINES = 100_000
#: Most samples per side of a line.
MAX_WATERFALL_SAMPLES = MAX_SIDESCAN_BINS
#: Most pixels of a waterfall image (float32: 256 MB).
MAX_WATERFALL_PIXELS = 1 << 26


def _samples_problem(samples: object) -> str | None:
    if not (isinstance(samples, int) and not isinstance(samples, bool)):
        return f'samples must be an integer in [1, {MAX_WATERFALL_SAMPLES}], got {samples!r}'
    if not 1 <= samples <= MAX_WATERFALL_SAMPLES:
        return f'samples must be an integer in [1, {MAX_WATERFALL_SAMPLES}], got {samples!r}'
    return None


def _slant_lookup(bin_edges: NDArray[np.float64], ranges: NDArray[np.float64]) -> NDArray[np.intp]:
    """Index of the slant bin holding each range; -1 outside the window."""
    lo, hi = float(bin_edges[0]), float(bin_edges[-1])
    n = bin_edges.size - 1
    with np.errstate(invalid='ignore'):
        index = np.floor((ranges - lo) * (n / (hi - lo)))
    index = np.where(ranges == hi, n - 1, index)
    inside = (ranges >= lo) & (ranges <= hi) & np.isfinite(ranges)
    return np.where(inside, index, -1).astype(np.intp)


def _take(profiles: NDArray[np.float64], index: NDArray[np.intp]) -> NDArray[np.float64]:
    """``profiles[:, index]`` with 0 where ``index`` is -1."""
    out: NDArray[np.float64] = np.where(index >= 0, profiles[:, np.maximum(index, 0)], 0.0)
    return out


def ground_range_profiles(
    profiles: ArrayLike,
    bin_edges: ArrayLike,
    altitude: float,
    *,
    samples: int | None = None,
    max_ground_range: float | None = None,
) -> NDArray[np.float64]:
    """(2, samples) profiles on ground-range bins from 0 to ``max_ground_range``, flat bottom.

    Sample ``j`` covers ground ranges ``[j, j + 1] * max_ground_range / samples`` and takes
    the slant bin holding ``sqrt(g**2 + altitude**2)`` at its centre ``g``; 0 outside the
    slant window. The water column is removed (ground range 0 is nadir). A NaN altitude (no
    bottom) gives zeros.

    Args:
        profiles: (2, n_bins) slant-range profiles, row 0 port.
        bin_edges: (n_bins + 1,) their slant bin edges, m.
        altitude: the altitude over the flat bottom, m, >= 0 or NaN.
        samples: output samples per side, default ``n_bins``; at most ``MAX_WATERFALL_SAMPLES``.
        max_ground_range: far end, m, > 0; default the slant window's far end.

    Raises:
        ConfigurationError: a bad sample count or range (before anything is allocated).
        ValueError: profiles and bin edges that do not match.
    """
    edges = np.asarray(bin_edges, dtype=np.float64)
    p = np.asarray(profiles, dtype=np.float64)
    if p.ndim != 2 or p.shape[0] != 2 or edges.shape != (p.shape[1] + 1,):
        msg = f'profiles (2, n) and bin_edges (n + 1,) expected, got {p.shape} and {edges.shape}'
        raise ValueError(msg)
    n = p.shape[1] if samples is None else samples
    problem = _samples_problem(n)
    far = float(edges[-1]) if max_ground_range is None else max_ground_range
    if problem is None and not (isinstance(far, (int, float)) and math.isfinite(far) and far > 0):
        problem = f'max_ground_range must be > 0 m, got {max_ground_range!r}'
    if problem:
        raise ConfigurationError(problem)
    if not (isinstance(altitude, (int, float)) and altitude >= 0.0):  # NaN: no bottom
        return np.zeros((2, n))
    g = (np.arange(n) + 0.5) * (far / n)
    slant = np.sqrt(g * g + float(altitude) ** 2)
    return _take(p, _slant_lookup(edges, slant))


@dataclass(frozen=True)
class WaterfallConfig(Record):
    """The waterfall's size and line spacing, checked on creation (``nps_sonar_py.records``).

    Attributes:
        lines: rows of the image.
        samples: samples per side.
        ground_range: ground range (water column removed) instead of slant range.
        line_spacing: metres travelled (horizontally) per line; 0 adds one line per ping.
            Travel accumulates between pings; a ping that completes ``n`` spacings adds ``n``
            copies of its line (at most ``lines``), so a jump of many spacings fills the gap
            with the latest ping and the rows keep their along-track scale.
    """

    lines: int = setting(
        400, 'rows of the waterfall image (newest at the top)', 1, MAX_WATERFALL_LINES
    )
    samples: int = setting(
        500,
        'waterfall pixels per side (image width 2 x this, nadir in the middle)',
        1,
        MAX_WATERFALL_SAMPLES,
    )
    ground_range: bool = setting(
        False,
        "waterfall in ground range (flat bottom, the ping's altitude) instead of slant range",
    )
    line_spacing: float = setting(
        0.0,
        'metres travelled along track per waterfall line; 0: a line per ping',
        1e-3,
        1000.0,
        zero=True,
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.lines * 2 * self.samples > MAX_WATERFALL_PIXELS:
            raise ConfigurationError(
                f'a waterfall of {self.lines} lines x {2 * self.samples} samples is over '
                f'{MAX_WATERFALL_PIXELS} pixels'
            )


class Waterfall:
    """The last ``config.lines`` lines of a side-scan, each port-reversed then starboard.

    Pixel conventions: the module docstring. Nothing is allocated for a configuration its
    record refuses.
    """

    def __init__(self, config: WaterfallConfig) -> None:
        self.config = config
        self.lines = config.lines
        self.samples = config.samples
        self.ground_range = config.ground_range
        self.line_spacing = config.line_spacing
        self._rows = np.zeros((config.lines, 2 * config.samples), dtype=np.float32)
        self._head = 0  # the row of self._rows the next line goes to
        self._last: NDArray[np.float64] | None = None
        self._travelled = 0.0

    def clear(self) -> None:
        """Every line blank again; the next ping starts a new track."""
        self._rows[:] = 0.0
        self._head = 0
        self._last = None
        self._travelled = 0.0

    def line(self, ping: SidescanPing) -> NDArray[np.float32]:
        """(2 samples,) the line of ``ping``: port reversed, then starboard."""
        if ping.profiles.shape[0] != 2:
            msg = f'a side-scan ping has 2 channels, got {ping.profiles.shape[0]}'
            raise ValueError(msg)
        n = self.samples
        if self.ground_range:
            sides = ground_range_profiles(ping.profiles, ping.bin_edges, ping.altitude, samples=n)
        else:
            lo, hi = float(ping.bin_edges[0]), float(ping.bin_edges[-1])
            centres = lo + (np.arange(n, dtype=np.float64) + 0.5) * ((hi - lo) / n)
            sides = _take(ping.profiles, _slant_lookup(ping.bin_edges, centres))
        out = np.empty(2 * n, dtype=np.float32)
        out[:n] = sides[0, ::-1]
        out[n:] = sides[1]
        return out

    def add(self, ping: SidescanPing, position: ArrayLike) -> bool:
        """Add the ping at the sensor's world ``position`` (3,); True if line(s) were added."""
        where = np.asarray(position, dtype=np.float64).reshape(3)
        if self._last is None or self.line_spacing == 0.0:
            count = 1
        else:
            step = where[:2] - self._last[:2]
            self._travelled += math.hypot(float(step[0]), float(step[1]))
            # A hair of slack: a track sampled at exact multiples of the spacing adds its line.
            count = math.floor(self._travelled / self.line_spacing + 1e-9)
            self._travelled -= count * self.line_spacing
        self._last = where.copy()
        if count == 0:
            return False
        line = self.line(ping)
        for _ in range(min(count, self.lines)):  # at most `lines` rows, not per ray
            self._head = (self._head - 1) % self.lines
            self._rows[self._head] = line
        return True

    def image(self) -> NDArray[np.float32]:
        """(lines, 2 samples) float32 copy: newest line at row 0 (module docstring)."""
        image: NDArray[np.float32] = np.roll(self._rows, -self._head, axis=0)
        return image
