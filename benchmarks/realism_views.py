"""The regions ``benchmarks/realism.py`` measures: seabed, water column and shadow of an image.

One rule for a record and its simulation alike, from the geometry and the image's own level:

* side-scan (lines = pings, samples near to far): the water column is the samples before
  0.8 of the lowest altitude's first return (past the first 12, which hold the record's
  markers); the seabed is the far half of the swath (from sample ``samples / 2``); the
  shadow is the largest connected region of the starboard channel whose level, smoothed
  over 9 x 9 samples, lies 15 dB or more under the seabed's median, past 1.3 times the first
  return.
* forward-looking (lines = beams, samples = range rows): the seabed band starts at the first
  row whose beam-averaged level, smoothed over 15 rows, comes within 10 dB of its highest;
  the water column is the rows from a tenth of the range to 20 rows before that; the seabed
  is the rows from 20 past it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.ndimage import label, uniform_filter, uniform_filter1d

from nps_sonar_py.echo.display import DisplayChain

__all__ = ['FanViews', 'SidescanViews', 'View', 'fan_views', 'sidescan_views']

Image = NDArray[np.float64]
#: Samples at the near end of each side-scan channel that hold the record's markers.
MARKERS = 12
#: Level under the seabed's median that makes a shadow, dB.
SHADOW_DB = 15.0


@dataclass(frozen=True)
class View:
    """The regions of one image (or part of one), linear intensity; ``floor``: one code's."""

    seabed: Image
    water: Image
    shadow: Image | None
    floor: float


@dataclass(frozen=True)
class SidescanViews:
    """Both channels stacked and the real pairs."""

    whole: View
    pairs: list[tuple[View, View]]


@dataclass(frozen=True)
class FanViews:
    """The whole fan, its left and right halves, and the seabed band's near edge, m."""

    whole: View
    pairs: list[tuple[View, View]]
    band_start: float


def _floor(chain: DisplayChain) -> float:
    """Intensity of half the lowest code: the least mean an image of this chain can show."""
    return float(chain.decode(np.array([1]))[0]) * 0.5 ** (1.0 / chain.gamma)


def _shadow(starboard: Image, first: Image, seabed_from: int) -> Image | None:
    """The starboard channel's shadow (its intensities), or None."""
    level = 10.0 * np.log10(np.maximum(uniform_filter(starboard, 9), 1e-30))
    median = np.median(level[:, seabed_from:])
    samples = np.arange(starboard.shape[1])
    beyond = samples[None, :] > 1.3 * first[:, None] + 20
    regions, count = label((level < median - SHADOW_DB) & beyond)
    if count == 0:
        return None
    sizes = np.bincount(regions.ravel())[1:]
    biggest = regions == 1 + int(np.argmax(sizes))
    if sizes.max() < 50:
        return None
    return starboard[biggest]


def sidescan_views(
    channels: dict[str, Image], altitude: Image, spacing: float, chain: DisplayChain
) -> SidescanViews:
    """The regions of a side-scan's ``port`` and ``starboard`` (pings, samples) intensities."""
    port, starboard = channels['port'], channels['starboard']
    first = altitude / spacing
    water_end = max(int(0.8 * first.min()), MARKERS + 8)
    half = port.shape[1] // 2
    floor = _floor(chain)
    shadow = _shadow(starboard, first, half)

    def view(parts: list[Image], with_shadow: bool) -> View:
        stacked = np.concatenate(parts)
        return View(
            stacked[:, half:-8],
            stacked[:, MARKERS:water_end],
            shadow if with_shadow else None,
            floor,
        )

    middle = port.shape[0] // 2
    pairs = [
        (view([port], False), view([starboard], False)),
        (
            view([port[:middle], starboard[:middle]], False),
            view([port[middle:], starboard[middle:]], False),
        ),
    ]
    return SidescanViews(view([port, starboard], True), pairs)


def fan_views(image: Image, chain: DisplayChain) -> FanViews:
    """The regions of a forward-looking (beams, rows) intensity image."""
    rows = image.shape[1]
    profile = 10.0 * np.log10(np.maximum(uniform_filter1d(image.mean(axis=0), 15), 1e-30))
    start = int(np.flatnonzero(profile >= profile.max() - 10.0)[0])
    water = slice(rows // 10, max(start - 20, rows // 10 + 8))
    seabed = slice(min(start + 20, rows - 32), rows)
    floor = _floor(chain)

    def view(part: Image) -> View:
        return View(part[:, seabed], part[:, water], None, floor)

    half = image.shape[0] // 2
    spacing = chain.max_range / chain.samples
    return FanViews(
        view(image), [(view(image[:half]), view(image[half:]))], (start + 0.5) * spacing
    )
