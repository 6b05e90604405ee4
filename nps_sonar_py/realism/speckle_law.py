"""What a record's samples are, read from its speckle: the power of intensity and the looks.

Over a homogeneous seabed a sonar's intensity is speckle, gamma distributed with ``L`` looks
(``L = 1``: one look, exponential intensity, fully developed speckle; Goodman, *Speckle
Phenomena in Optics*, 2007, ch. 3 and 5). A record stores some power of it, ``Y = c X**k``
(amplitude is ``k = 1/2``; a display gamma multiplies ``k``), and does not say which. Two
moments of ``Y`` about each patch's own level tell ``k`` and ``L`` apart:

    var(ln Y) = k**2 psi'(L)                          (psi' the trigamma function)
    var(Y) / mean(Y)**2 = G(L + 2k) G(L) / G(L + k)**2 - 1     (G the gamma function)

The scintillation index alone cannot: a one-look amplitude (``k = 1/2``, ``L = 1``) has
0.27, as an intensity averaged over 3.7 looks does, but its log-variance is 0.41 where the
average's is 0.31. For each ``L`` the first equation gives ``k``; the second then picks
``L`` (the index rises with ``L`` at a fixed log-variance). Both moments are pooled over
whole tiles, each about its own mean, so the level's trend over the image stays out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq
from scipy.special import gammaln, polygamma

from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.realism.metrics import PATCH, image_tiles

__all__ = ['SpeckleLaw', 'scintillation_of', 'speckle_law']

Image = NDArray[np.float64]
#: The looks searched, from far below one look (heavy texture) to nearly constant.
_LOOKS = (0.05, 1000.0)


@dataclass(frozen=True)
class SpeckleLaw:
    """The stored quantity's law: ``Y = c X**power``, ``X`` gamma distributed of ``looks``.

    Attributes:
        power: ``k``, the power of intensity the values are (1 intensity, 1/2 amplitude).
        looks: ``L``, the looks of the intensity (1: fully developed speckle).
        scintillation: the pooled ``var(Y) / mean(Y)**2`` it was fitted to.
        log_variance: the pooled ``var(ln Y)`` it was fitted to.
    """

    power: float
    looks: float
    scintillation: float
    log_variance: float


def scintillation_of(power: float, looks: float) -> float:
    """``var / mean**2`` of ``X**power``, ``X`` gamma distributed with ``looks`` looks."""
    a, k = looks, power
    return math.exp(gammaln(a + 2.0 * k) + gammaln(a) - 2.0 * gammaln(a + k)) - 1.0


def speckle_law(image: Image, patch: tuple[int, int] = PATCH) -> SpeckleLaw:
    """Fit ``power`` and ``looks`` to the whole ``patch`` tiles of ``image`` (all positive).

    Tiles holding a zero (a sample under one code) are left out; ``ConfigurationError``
    when none is left. Looks are bounded to 0.05-1000 (a moment pair beyond gives the bound).
    """
    tiles = image_tiles(np.asarray(image, dtype=np.float64), patch)
    tiles = tiles[np.all(tiles > 0.0, axis=1)]
    if tiles.shape[0] == 0:
        msg = f'speckle_law: no {patch[0]} x {patch[1]} tile of the image is free of zeros'
        raise ConfigurationError(msg)
    ratio = tiles / tiles.mean(axis=1, keepdims=True)
    scintillation = float(np.mean(ratio**2) - 1.0)
    log_variance = float(np.mean(np.log(tiles).var(axis=1)))

    def power(looks: float) -> float:
        return math.sqrt(log_variance / float(polygamma(1, looks)))

    def miss(looks: float) -> float:
        return scintillation_of(power(looks), looks) - scintillation

    low, high = _LOOKS
    if miss(low) >= 0.0:
        looks = low
    elif miss(high) <= 0.0:
        looks = high
    else:
        looks = float(brentq(miss, low, high, xtol=1e-6))
    return SpeckleLaw(power(looks), looks, scintillation, log_variance)
