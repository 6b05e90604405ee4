"""Scatterers that belong to the surfaces: placed and phased from the triangle and the seed.

A rough surface backscatters as many small scatterers spread over it. Here each triangle of
the scene holds scatterers at a density ``rho`` per square metre: ``floor(A rho + u)`` of
them (``u`` uniform from the triangle's hash, so that the mean count is exactly ``A rho``),
spread evenly over the triangle by an R2 low-discrepancy sequence from a random start
(Roberts 2018), each with a unit complex Gaussian amplitude ``xi`` (``E |xi|**2 = 1``), all
drawn from a hash of the triangle's id, the scatterer's index and the seed (splitmix64's
finaliser, as ``scatterers.py``; Box and Muller 1958). Nothing
depends on the rays or the sensor's pose: a still scene gives the same echoes bit for bit,
and a moving sensor sees the same scatterers from elsewhere, so its speckle decorrelates as
a real one does, over a fraction of the aperture or of the range cell
(``docs/beamforming.md#scatterers-fixed-in-the-world``).

A scatterer stands for the area ``1 / rho``: its echo's mean intensity is the incoherent
model's for that area (backscatter strength times area, spreading, patterns). Its phase is
that of its true two-way path, ``exp(-2 i pi (|p - tx| + |p - rx|) / lambda)``.

Fully developed speckle: a resolution cell's echo is the sum of its scatterers' echoes, a
complex Gaussian sum, so it is complex Gaussian however few they are, as long as there is
one; the count's spread from cell to cell adds about ``1 / n`` to the scintillation index
(``n`` the scatterers in the cell's equivalent area) when they are placed independently,
much less when they are spread evenly, as here: ``DEFAULT_PER_CELL`` = 4 in the nominal
cell ``c / (2 B) x r w`` gives an index of 1.00 (:func:`default_density`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.echo.scatterers import _splitmix

__all__ = [
    'DEFAULT_PER_CELL',
    'Scatterers',
    'default_density',
    'keyed_phasors',
    'surface_scatterers',
    'two_way',
    'unit_phasor',
]

#: Scatterers in a nominal resolution cell at the reference range, by default.
DEFAULT_PER_CELL = 4.0
_TWO_TO_32 = 4294967296.0
#: The R2 sequence's steps, 1 / g and 1 / g**2, g the plastic number.
_R2 = (0.7548776662466927, 0.5698402909980532)
#: Salts of the independent draws of one key.
_COUNT, _PLACE, _PHASE = (
    np.uint64(0x632BE59BD9B4E019),
    np.uint64(0x85157AF5),
    np.uint64(0x3C6EF372FE94F82A),
)


def default_density(
    range_resolution: float,
    beam_width: float,
    reference_range: float,
    per_cell: float = DEFAULT_PER_CELL,
) -> float:
    """Scatterers per m2 that put ``per_cell`` in a resolution cell at ``reference_range``.

    The cell ``c / (2 B)`` (m) by ``r w`` (``w`` the beam's width, rad) on a surface seen
    face on; a seabed seen at grazing holds more (its cell is ``c / (2 B cos g)`` long). Nearer
    cells hold fewer, farther ones more: take the nearest range where speckle must be full.
    """
    return per_cell / (range_resolution * reference_range * beam_width)


@dataclass(frozen=True)
class Scatterers:
    """Fixed scatterers of some triangles, in the world frame.

    Attributes:
        positions: (m, 3) points on the triangles, m.
        amplitudes: (m,) unit complex Gaussian ``xi`` (``E |xi|**2 = 1``), complex128.
        triangles: (m,) the id of each one's triangle.
        area: the area each stands for, ``1 / rho``, m2.
    """

    positions: NDArray[np.float64]
    amplitudes: NDArray[np.complex128]
    triangles: NDArray[np.int64]
    area: float


def _uniforms(
    key: NDArray[np.uint64], salt: np.uint64
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Two independent uniforms in (0, 1) from each 64-bit ``key`` and a ``salt``."""
    word = key ^ salt
    _splitmix(_splitmix(word))
    high = ((word >> np.uint64(32)).astype(np.float64) + 0.5) / _TWO_TO_32
    low = ((word & np.uint64(0xFFFFFFFF)).astype(np.float64) + 0.5) / _TWO_TO_32
    return high, low


def _keys(ids: NDArray[np.int64], index: NDArray[np.int64], seed: int) -> NDArray[np.uint64]:
    """One 64-bit key per (triangle id, scatterer index, seed)."""
    with np.errstate(over='ignore'):
        key = ids.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        key += index.astype(np.uint64) * np.uint64(0xC2B2AE3D27D4EB4F)
        key += np.uint64((seed * 0x165667B19E3779F9 + 1) % 2**64)
    return key


def surface_scatterers(
    vertices: ArrayLike, density: float, seed: int = 0, ids: ArrayLike | None = None
) -> Scatterers:
    """The fixed scatterers of triangles ``vertices`` (T, 3, 3) at ``density`` per m2.

    Args:
        vertices: (T, 3, 3) the triangles' corners in the world, m.
        density: scatterers per m2, > 0.
        seed: selects another, independent realisation of the same surfaces.
        ids: (T,) each triangle's id in its mesh (default ``0 .. T-1``): the draws are keyed
            by it, so a subset of the triangles (the lit ones) gives their same scatterers.

    Returns:
        Their ``Scatterers``, triangle by triangle.
    """
    if not density > 0.0:
        raise ValueError(f'density: {density} scatterers per m2 (must be > 0)')
    v = np.asarray(vertices, dtype=np.float64).reshape(-1, 3, 3)
    tri_ids = np.arange(len(v), dtype=np.int64) if ids is None else np.asarray(ids, dtype=np.int64)
    edge1, edge2 = v[:, 1] - v[:, 0], v[:, 2] - v[:, 0]
    area = 0.5 * np.linalg.norm(np.cross(edge1, edge2), axis=1)
    fraction, _ = _uniforms(_keys(tri_ids, np.full(len(v), -1, dtype=np.int64), seed), _COUNT)
    counts = np.floor(area * density + fraction).astype(np.int64)
    owner = np.repeat(np.arange(len(v)), counts)
    starts = np.cumsum(counts) - counts
    index = np.arange(owner.size, dtype=np.int64) - np.repeat(starts, counts)
    key = _keys(np.take(tri_ids, owner), index, seed)
    # An R2 low-discrepancy sequence (Roberts 2018) from each triangle's own random start,
    # folded onto the triangle: evenly spread, so that a cell's count hardly varies.
    start_a, start_b = _uniforms(_keys(tri_ids, np.full(len(v), -2, dtype=np.int64), seed), _PLACE)
    a, b = _fraction(start_a, owner, index, _R2[0]), _fraction(start_b, owner, index, _R2[1])
    fold = a + b > 1.0
    np.subtract(1.0, a, out=a, where=fold)
    np.subtract(1.0, b, out=b, where=fold)
    # Coordinate by coordinate, each a contiguous row: (3, m), then its (m, 3) view.
    corner = np.take(np.ascontiguousarray(v[:, 0].T), owner, axis=1)
    corner += a * np.take(np.ascontiguousarray(edge1.T), owner, axis=1)
    corner += b * np.take(np.ascontiguousarray(edge2.T), owner, axis=1)
    points = np.ascontiguousarray(corner.T)
    u1, u2 = _uniforms(key, _PHASE)
    # The phase in single precision (its draw has 32 bits; cos and sin ten times faster).
    xi = unit_phasor(np.multiply(u2, 2.0 * math.pi, dtype=np.float32)).astype(np.complex128)
    xi *= np.sqrt(-np.log(u1))
    return Scatterers(points, xi, np.take(tri_ids, owner), 1.0 / density)


def _fraction(
    start: NDArray[np.float64], owner: NDArray[np.intp], index: NDArray[np.int64], step: float
) -> NDArray[np.float64]:
    """``(start[owner] + index * step) mod 1`` (all positive: ``x - floor(x)``, exact)."""
    x = np.take(start, owner)
    x += index * step
    x -= np.floor(x)
    return x


def keyed_phasors(places: NDArray[np.int64], count: int) -> NDArray[np.complex128]:
    """(m, count) unit phasors of uniform random phase keyed by (m, 3) integer ``places``.

    The same place gives the same phases: points fixed to a place in the world keep their
    speckle from ping to ping (``seabed_diffuse``).
    """
    with np.errstate(over='ignore'):
        u = places.astype(np.uint64)
        ids = u[:, 0] * np.uint64(0x9E3779B97F4A7C15)
        ids ^= u[:, 1] * np.uint64(0xBF58476D1CE4E5B9)
        ids ^= u[:, 2] * np.uint64(0x94D049BB133111EB)
    index = np.arange(count, dtype=np.int64)
    key = _keys(np.repeat(ids.view(np.int64), count), np.tile(index, ids.size), 0)
    _, u2 = _uniforms(key, _PHASE)
    phasors = unit_phasor(2.0 * math.pi * u2).astype(np.complex128).reshape(-1, count)
    return phasors


def unit_phasor(phase: NDArray[np.floating]) -> NDArray[np.complexfloating]:
    """``exp(i phase)`` by ``cos`` and ``sin`` (five times faster than numpy's complex ``exp``).

    Single precision for a float32 ``phase``, double for a float64 one.
    """
    out = np.empty(phase.shape, dtype=np.result_type(phase.dtype, np.complex64))
    out.real = np.cos(phase)
    out.imag = np.sin(phase)
    return out


def two_way(
    positions: NDArray[np.float64], transmitter: ArrayLike, receiver: ArrayLike, wavelength: float
) -> tuple[NDArray[np.float64], NDArray[np.complex128]]:
    """Each scatterer's two-way path ``|p - tx| + |p - rx|`` (m) and its phase factor.

    The phase factor is ``exp(-2 i pi path / lambda)``, the carrier's delay over the true
    path (a monostatic sonar: ``tx = rx``, ``2 r``).
    """
    out_path = np.linalg.norm(positions - np.asarray(transmitter, dtype=np.float64), axis=1)
    back = np.linalg.norm(positions - np.asarray(receiver, dtype=np.float64), axis=1)
    path = out_path + back
    turns = path / wavelength
    turns -= np.floor(turns)
    return path, unit_phasor(-2.0 * math.pi * turns).astype(np.complex128, copy=False)
