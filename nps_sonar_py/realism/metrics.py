"""Measures of how real a sonar image looks, each comparable between two images of one kind.

Every function takes linear intensity images, shape (lines, samples): lines are pings (a
side-scan's along-track axis) or beams (a forward-looking sonar's), samples run along range.
The measures and their sources (``docs/realism.md``): the scintillation (speckle) index
``var(I) / mean(I)**2`` over small patches; histograms of the level about its mean compared
by Jensen-Shannon divergence and earth mover's distance (as ACOUSIM compares real and
simulated images); texture as the histogram of rotation-invariant uniform local binary
patterns (Ojala, Pietikainen and Maenpaa 2002, P = 8, R = 1); the speckle grain as the lag at
which the autocorrelation falls to ``1/e``; the mean level's profile over range; and the
contrast of a region (water column, shadow) to the seabed.
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.errors import ConfigurationError

__all__ = [
    'LEVEL_BINS',
    'contrast_db',
    'earth_movers',
    'grain_length',
    'image_tiles',
    'jensen_shannon',
    'lbp_histogram',
    'level_histogram',
    'level_profile_db',
    'speckle_by_band',
    'speckle_index',
]

#: Edges of the level histograms, dB about the image's mean intensity.
LEVEL_BINS = np.linspace(-30.0, 12.0, 85)
#: A patch for the local speckle index, (lines, samples), as measured on the records.
PATCH = (16, 16)
Image = NDArray[np.float64]


def speckle_index(image: Image, patch: tuple[int, int] = PATCH) -> float:
    """Median over whole ``patch``-sized tiles of ``var(I) / mean(I)**2`` (tiles with signal)."""
    tiles = image_tiles(image, patch)
    mean = tiles.mean(axis=-1)
    lit = mean > 0.0
    if not np.any(lit):
        return float('nan')
    return float(np.median(tiles.var(axis=-1)[lit] / mean[lit] ** 2))


def speckle_by_band(image: Image, bands: int, patch: tuple[int, int] = PATCH) -> Image:
    """(bands,) :func:`speckle_index` of ``bands`` equal range bands of ``image``."""
    edges = np.linspace(0, image.shape[1], bands + 1).astype(int)
    return np.array([speckle_index(image[:, a:b], patch) for a, b in itertools.pairwise(edges)])


def level_histogram(image: Image) -> Image:
    """Normalised histogram over :data:`LEVEL_BINS` of ``10 log10(I / mean I)`` (I > 0).

    An image without a positive value has no level: :class:`ConfigurationError`.
    """
    values = image[image > 0.0]
    if values.size == 0:
        raise ConfigurationError(
            f'level histogram: an image of shape {image.shape} has no positive intensity'
        )
    level = 10.0 * np.log10(values / values.mean())
    counts, _ = np.histogram(np.clip(level, LEVEL_BINS[0], LEVEL_BINS[-1]), LEVEL_BINS)
    histogram: Image = counts / max(counts.sum(), 1)
    return histogram


def jensen_shannon(p: Image, q: Image) -> float:
    """Jensen-Shannon divergence of two histograms, bits (0 equal, 1 disjoint).

    An empty histogram (no positive count) has no distribution: :class:`ConfigurationError`.
    """
    for name, h in (('first', p), ('second', q)):
        if not np.sum(h) > 0.0:
            raise ConfigurationError(f'Jensen-Shannon divergence: the {name} histogram is empty')
    p = p / p.sum()
    q = q / q.sum()
    m = 0.5 * (p + q)

    def kl(a: Image) -> float:
        inside = a > 0.0
        return float(np.sum(a[inside] * np.log2(a[inside] / m[inside])))

    return 0.5 * kl(p) + 0.5 * kl(q)


def earth_movers(p: Image, q: Image, edges: Image = LEVEL_BINS) -> float:
    """Earth mover's distance of two histograms over ``edges``: the integral of |CDF p - CDF q|."""
    gap = np.abs(np.cumsum(p / p.sum()) - np.cumsum(q / q.sum()))
    return float(np.sum(gap * np.diff(edges)))


def lbp_histogram(image: Image) -> Image:
    """Normalised histogram of the rotation-invariant uniform LBP (P 8, R 1): 10 codes.

    A pixel's 8 neighbours, each 1 when at least the centre; a pattern with at most two 0/1
    changes round the circle is coded by its number of ones (0-8), any other one as 9.
    """
    centre = image[1:-1, 1:-1]
    h, w = image.shape
    offsets = ((-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1))
    bits = np.stack(
        [image[1 + dy : h - 1 + dy, 1 + dx : w - 1 + dx] >= centre for dy, dx in offsets]
    ).astype(np.int8)
    changes = np.abs(np.diff(np.concatenate((bits, bits[:1])), axis=0)).sum(axis=0)
    codes = np.where(changes <= 2, bits.sum(axis=0), 9)
    counts = np.bincount(codes.ravel(), minlength=10).astype(np.float64)
    histogram: Image = counts / counts.sum()
    return histogram


def grain_length(image: Image, axis: int, patch: tuple[int, int] = PATCH) -> float:
    """Lag, in lines (axis 0) or samples (axis 1), where the autocorrelation falls to ``1/e``.

    Within each whole ``patch`` tile, less its mean (so that the level's trend over range
    does not count as grain); pooled over the tiles, normalised by lag 0, linear between lags.
    """
    a, b = patch
    tiles = image_tiles(image, patch).reshape(-1, a, b)
    tiles = tiles[tiles.mean(axis=(1, 2)) > 0.0]
    centred = np.moveaxis(tiles - tiles.mean(axis=(1, 2), keepdims=True), axis + 1, -1)
    power = float(np.sum(centred * centred))
    lags = centred.shape[-1] // 2
    rho = np.array(
        [1.0]
        + [float(np.sum(centred[..., k:] * centred[..., :-k])) / power for k in range(1, lags)]
    )
    below = np.flatnonzero(rho < np.exp(-1.0))
    if below.size == 0 or power == 0.0:
        return float(lags)
    k = int(below[0])
    return float(k - 1 + (rho[k - 1] - np.exp(-1.0)) / (rho[k - 1] - rho[k]))


def level_profile_db(image: Image, bands: int) -> Image:
    """(bands,) mean level of ``bands`` equal range bands, dB, about the profile's own mean."""
    edges = np.linspace(0, image.shape[1], bands + 1).astype(int)
    means = np.array([image[:, a:b].mean() for a, b in itertools.pairwise(edges)])
    level = 10.0 * np.log10(np.maximum(means, np.finfo(np.float64).tiny))
    profile: Image = level - level.mean()
    return profile


def contrast_db(region: Image, seabed: Image, floor: float) -> float:
    """``10 log10`` of a region's mean intensity over the seabed's; ``floor``: the least mean."""
    return float(10.0 * np.log10(max(region.mean(), floor) / max(seabed.mean(), floor)))


def image_tiles(image: Image, patch: tuple[int, int] = PATCH) -> Image:
    """(tiles, pixels) the whole ``patch`` tiles of ``image``, row-major."""
    a, b = patch
    h, w = (image.shape[0] // a) * a, (image.shape[1] // b) * b
    cut = image[:h, :w].reshape(h // a, a, w // b, b).transpose(0, 2, 1, 3)
    tiles: Image = cut.reshape(-1, a * b)
    return tiles
