"""Random scatterers tied to the scene: a unit complex Gaussian per point, seeded by the point.

Each ray's hit stands for the many scatterers of its footprint; their sum is a complex
Gaussian amplitude ``xi`` with ``E |xi|**2 = 1`` (``docs/coherent.md#scatterers``). Drawing
``xi`` from a generator would change every ping (the "sparkling" of dave issue 171); here it
is a hash of the hit point quantised to a cell of ``cell`` metres (a fraction of a
wavelength), so that a static scene and pose give the same ``xi`` bit for bit, and a hit that
moves to another cell gets an independent one.

The hash is splitmix64's finaliser (Steele, Lea and Flood 2014) of a linear mix of the cell's
integer coordinates and the seed; its 64 bits give two uniform numbers ``u1, u2`` in (0, 1)
and ``xi = sqrt(-ln u1) exp(2 i pi u2)`` (Box and Muller 1958): ``|xi|**2`` is exponential
with mean 1 and the phase uniform.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

__all__ = ['scatterer_draws']

_MIX = (
    np.uint64(0x9E3779B97F4A7C15),
    np.uint64(0xC2B2AE3D27D4EB4F),
    np.uint64(0x165667B19E3779F9),
)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_TWO_TO_32 = 4294967296.0


def _splitmix(z: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """splitmix64's finaliser, in place on ``z``: a bijection of 64-bit words, all bits mixed."""
    z ^= z >> np.uint64(30)
    z *= _M1
    z ^= z >> np.uint64(27)
    z *= _M2
    z ^= z >> np.uint64(31)
    return z


def scatterer_draws(
    points: Sequence[NDArray[np.float64]], cell: float, seed: int = 0
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """The scatterer of each point: its power ``|xi|**2`` and its phase in turns.

    Args:
        points: the hit points in the world frame by axis, m: three (m,) arrays x, y, z (a
            (3, m) array, or ``p.T`` of an (m, 3) one). One contiguous pass per axis: an
            (m, 3) array's rows of three are slow to work on.
        cell: edge of the cubic cells the points are quantised to, m, > 0.
        seed: selects another, independent realisation of the same scene.

    Returns:
        ``(power, turns)``: (m,) float32 ``-ln u1`` (exponential, mean 1) and (m,) float32
        ``u2`` in [0, 1), so that ``xi = sqrt(power) exp(2 i pi turns)``.
    """
    word = np.full(len(points[0]), (seed * 0xBF58476D1CE4E5B9 + 1) % 2**64, dtype=np.uint64)
    for mix, coordinate in zip(_MIX, points, strict=True):
        scaled = np.multiply(coordinate, 1.0 / cell, dtype=np.float64)
        np.floor(scaled, out=scaled)
        index = scaled.astype(np.int64).view(np.uint64)
        index *= mix
        word += index
    _splitmix(_splitmix(word))
    high = (word >> np.uint64(32)).astype(np.float32)
    high += np.float32(0.5)
    high *= np.float32(1.0 / _TWO_TO_32)
    power = np.log(high, out=high)
    np.negative(power, out=power)
    word &= np.uint64(0xFFFFFFFF)
    turns = word.astype(np.float32)
    turns *= np.float32(1.0 / _TWO_TO_32)
    return power, turns
