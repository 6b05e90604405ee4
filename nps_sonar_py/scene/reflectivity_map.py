"""Reflectivity maps: a grayscale PNG whose grey level is the Lambert coefficient of each hit.

A heightmap or a mesh may carry one (``docs/scene.md``, "Seabed reflectivity maps"): in an
SDF world as ``<nps:reflectivity_map>`` (namespace :data:`NAMESPACE`) inside its
``<heightmap>`` or ``<mesh>``, in a scene file as ``<heightmap reflectivity_map="...">``.

Mapping (a choice): ``mu = g = p / p_full``, with ``p_full`` the full-scale code of the
image's bit depth (255 or 65535), replacing the shape's per-triangle reflectivity there.

One mechanism for both kinds: the triangles carry per-vertex texture coordinates
(``Triangles.uvs``; a heightmap's are its normalised x and y), the raycaster hands the hit
triangle and Open3D's barycentric coordinates to :meth:`SurfaceMaps.lookup`, which
interpolates the coordinates and samples the map bilinearly. The two kinds differ only in
where the texels sit:

* ``heightmap``: pixel centres span the extent corner to corner, as the height samples do
  (pixel ``(i, j)`` of an H x W map at ``u = j / (W - 1)``, ``v = 1 - i / (H - 1)``: row 0
  at +y), clamped at the edges;
* ``mesh``: OpenGL's texel centres ``((j + 0.5) / W, 1 - (i + 0.5) / H)`` (v up, row 0 at
  the top), coordinates repeating outside [0, 1] (``GL_REPEAT``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NoReturn

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.errors import SceneError, one_line
from nps_sonar_py.input_files import read_input_file
from nps_sonar_py.scene.png import decode_gray_png
from nps_sonar_py.scene.tessellation import Triangles

__all__ = [
    'ASPECT_TOLERANCE',
    'MAP_TAG',
    'MAX_MAP_BYTES',
    'MAX_REFLECTIVITY_MAP_PIXELS',
    'NAMESPACE',
    'ReflectivityMap',
    'SurfaceMaps',
    'heightmap_map',
    'mesh_map',
    'read_map_pixels',
]

#: XML namespace of the package's custom SDF elements (``xmlns:nps="urn:nps_sonar"``).
NAMESPACE = 'urn:nps_sonar'

#: The Clark-notation tag of ``<nps:reflectivity_map>``, as lxml names it.
MAP_TAG = f'{{{NAMESPACE}}}reflectivity_map'

#: Most pixels of a map: 8192 x 8192 (a large texture), kept as their 8- or 16-bit codes.
MAX_REFLECTIVITY_MAP_PIXELS = 8192 * 8192

#: Largest map file read, bytes: 256 MiB (as a heightmap file).
MAX_MAP_BYTES = 256 * 2**20

#: Largest relative difference between a map's ``(W - 1) / (H - 1)`` and its heightmap's.
ASPECT_TOLERANCE = 0.01

#: Hits sampled per block: the temporaries of a block (~30 arrays of 64 KiB) stay in cache.
CHUNK = 1 << 14

Kind = Literal['heightmap', 'mesh']


def _check_map_shape(shape: tuple[int, int]) -> None:
    """Refuse a map smaller than 2 x 2 or larger than :data:`MAX_REFLECTIVITY_MAP_PIXELS`."""
    rows, cols = shape
    if rows < 2 or cols < 2:
        msg = f'a reflectivity map needs at least 2 x 2 pixels, got {cols} x {rows} (W x H)'
        raise ValueError(msg)
    if rows * cols > MAX_REFLECTIVITY_MAP_PIXELS:
        msg = f'a map of {cols} x {rows} = {rows * cols} pixels is more than the limit of'
        msg += f' {MAX_REFLECTIVITY_MAP_PIXELS} (8192 x 8192)'
        raise ValueError(msg)


@dataclass(frozen=True, eq=False)  # arrays: compare fields with numpy
class ReflectivityMap:
    """A map's pixel codes, their full scale, where its texels sit, and its file.

    Attributes:
        codes: (H, W) the PNG's 8- or 16-bit codes, row 0 the image's top row; read-only.
        full: the full-scale code (255 or 65535): ``mu = codes / full``.
        kind: ``heightmap`` (texels corner to corner, clamped) or ``mesh`` (OpenGL texel
            centres, repeating), as in the module docstring.
        source: the map's file, for messages.

    """

    codes: NDArray[np.integer]
    full: int
    kind: Kind
    source: str

    def sample(self, uv: NDArray[np.float32]) -> NDArray[np.float64]:
        """(n,) mu at (n, 2) texture coordinates ``uv``: bilinear between the 4 nearest texels.

        float32 arithmetic (a texel's position to ~1e-7 of the map), exact where the four
        texels are equal; flat ``take`` gathers, several times faster than 2-D fancy indexing.
        """
        rows, cols = self.codes.shape
        if self.kind == 'heightmap':
            j0, fj = _clamped(uv[:, 0] * np.float32(cols - 1), cols)
            i0, fi = _clamped((np.float32(1.0) - uv[:, 1]) * np.float32(rows - 1), rows)
            j1, i1 = j0 + 1, i0 + 1
        else:  # OpenGL: texel centres at (j + 0.5) / W, v up, repeating
            j0, fj = _wrapped(uv[:, 0], cols, up=False)
            i0, fi = _wrapped(uv[:, 1], rows, up=True)
            j1, i1 = (j0 + 1) % cols, (i0 + 1) % rows
        flat = self.codes.reshape(-1)
        i0 *= cols
        i1 *= cols
        g00, g01 = flat.take(i0 + j0).astype(np.float32), flat.take(i0 + j1).astype(np.float32)
        g10, g11 = flat.take(i1 + j0).astype(np.float32), flat.take(i1 + j1).astype(np.float32)
        top = g00 + (g01 - g00) * fj
        top += ((g10 + (g11 - g10) * fj) - top) * fi
        mu: NDArray[np.float64] = top.astype(np.float64)
        mu /= self.full
        return mu


def _clamped(s: NDArray[np.float32], count: int) -> tuple[NDArray[np.intp], NDArray[np.float32]]:
    """Lower texel index in [0, count - 2] and the weight of the next, s clamped to the grid."""
    s = np.clip(s, np.float32(0.0), np.float32(count - 1))
    low = np.minimum(s.astype(np.intp), count - 2)
    weight: NDArray[np.float32] = s - low.astype(np.float32)
    return low, weight


def _wrapped(
    t: NDArray[np.float32], count: int, *, up: bool
) -> tuple[NDArray[np.intp], NDArray[np.float32]]:
    """Lower texel index and the weight of the next, OpenGL ``GL_REPEAT`` over ``count`` texels.

    ``up``: the coordinate runs from the image's bottom row (v) rather than its first column.
    """
    t = t - np.floor(t)  # in [0, 1): no overflow whatever the coordinate
    if up:
        t = np.float32(1.0) - t
    s = t * np.float32(count) - np.float32(0.5)  # texel space, in [-0.5, count - 0.5]
    low = np.floor(s)
    weight: NDArray[np.float32] = s - low
    return np.mod(low.astype(np.intp), count), weight


@dataclass(frozen=True, eq=False)  # arrays: compare fields with numpy
class SurfaceMaps:
    """Which reflectivity map, if any, covers each triangle of an entity.

    Attributes:
        maps: the maps, each at least once in ``which``.
        which: (k,) int64 index into ``maps`` of each triangle's map, -1 for none; read-only.
        single: (derived) whether one map covers every triangle.

    """

    maps: tuple[ReflectivityMap, ...]
    which: NDArray[np.int64]
    single: bool = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # one map over every triangle (the usual seabed): the cast's fast path
        object.__setattr__(self, 'single', len(self.maps) == 1 and bool(np.all(self.which == 0)))

    @staticmethod
    def of(parts: Sequence[tuple[int, ReflectivityMap | None]]) -> SurfaceMaps | None:
        """The maps of an entity made of parts of (triangle count, map or None), in order.

        None when no part has a map: an entity without maps costs nothing at cast time.
        """
        maps = tuple(m for _, m in parts if m is not None)
        if not maps:
            return None
        index = iter(range(len(maps)))
        which = np.concatenate(
            [
                np.full(count, -1 if m is None else next(index), dtype=np.int64)
                for count, m in parts
            ]
        )
        which.flags.writeable = False
        return SurfaceMaps(maps, which)

    def lookup(
        self,
        surface: Triangles,
        triangle: NDArray[np.int64],
        barycentric: NDArray[np.float32],
    ) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """Positions among the hits that lie on a map, and mu there.

        Args:
            surface: the entity's triangles, with per-vertex ``uvs``.
            triangle: (n,) index of the triangle hit, in ``surface``.
            barycentric: (n, 2) Open3D's ``primitive_uvs`` of the hits: the hit is
                ``(1 - a - b) p0 + a p1 + b p2`` of the triangle's vertices.

        """
        if self.single:  # one map over every triangle: no per-hit selection
            on_map = np.arange(triangle.shape[0])
            which = None
        else:
            which = self.which.take(triangle)
            on_map = np.flatnonzero(which >= 0)
            triangle = triangle.take(on_map)
            barycentric = barycentric.take(on_map, axis=0)
            which = which.take(on_map)
        mu = np.empty(on_map.size)
        for start in range(0, on_map.size, CHUNK):  # blocks of hits, each vectorised
            stop = start + CHUNK
            uv = _interpolate(surface, triangle[start:stop], barycentric[start:stop])
            if which is None:
                mu[start:stop] = self.maps[0].sample(uv)
                continue
            block = which[start:stop]
            for k, reflectivity_map in enumerate(self.maps):  # a loop over maps, not rays
                rows = np.flatnonzero(block == k)
                mu[start + rows] = reflectivity_map.sample(uv.take(rows, axis=0))
        return on_map, mu


def _interpolate(
    surface: Triangles, triangle: NDArray[np.int64], barycentric: NDArray[np.float32]
) -> NDArray[np.float32]:
    """(m, 2) texture coordinates at the hits: the triangles' vertex uvs, barycentric weights."""
    assert surface.uvs is not None  # Entity checks it
    corners = surface.uvs.take(surface.triangles.take(triangle, axis=0), axis=0)  # (m, 3, 2)
    a, b = barycentric[:, 0], barycentric[:, 1]
    uv = np.empty((triangle.shape[0], 2), dtype=np.float32)
    for axis in (0, 1):  # u, then v: 1-D passes, no broadcasting over (m, 2)
        c = corners[:, :, axis]
        value = c[:, 1] - c[:, 0]
        value *= a
        value += c[:, 0]
        other = c[:, 2] - c[:, 0]
        other *= b
        value += other
        uv[:, axis] = value
    return uv


def read_map_pixels(
    path: str | os.PathLike[str],
    *,
    file: str | None,
    line: int | None,
    element: str,
) -> tuple[NDArray[np.integer], int]:
    """The (H, W) codes of the grayscale PNG ``path`` and their full scale (255 or 65535).

    Raises:
        SceneError: at ``file:line: element`` (the element naming the map): a missing file,
            one that is not regular or larger than :data:`MAX_MAP_BYTES`, not a PNG Pillow
            reads, not 8- or 16-bit grayscale, smaller than 2 x 2 or larger than
            :data:`MAX_REFLECTIVITY_MAP_PIXELS` (checked before the pixels are decoded).

    """
    path = Path(path)
    shown = str(path)
    element = one_line(element, 100)

    def refuse(problem: str) -> NoReturn:
        where = file if file is not None else shown
        raise SceneError(problem, file=where, line=line, element=element)

    data = read_input_file(
        path,
        SceneError,
        what='reflectivity map',
        limit=MAX_MAP_BYTES,
        file=file if file is not None else shown,
        line=line,
        element=element,
    )
    try:
        codes, full = decode_gray_png(data, _check_map_shape)
    except ValueError as err:
        refuse(f'{shown}: {err}')
    codes.flags.writeable = False
    return codes, full


def heightmap_map(
    codes: NDArray[np.integer], full: int, source: str, grid: tuple[int, int]
) -> ReflectivityMap:
    """The map of a heightmap of ``grid`` = (R, C) samples.

    Raises:
        ValueError: ``(W - 1) / (H - 1)`` differs from ``(C - 1) / (R - 1)`` by more than
            :data:`ASPECT_TOLERANCE`, relatively: the map would not cover the same extent
            with square-ish pixels the way its heights do.

    """
    rows, cols = codes.shape
    grid_rows, grid_cols = grid
    aspect = (cols - 1) / (rows - 1)
    wanted = (grid_cols - 1) / (grid_rows - 1)
    if abs(aspect - wanted) > ASPECT_TOLERANCE * wanted:
        msg = f'{source}: a {cols} x {rows} map (W x H) does not fit a heightmap of'
        msg += f' {grid_cols} x {grid_rows} samples: (W - 1) / (H - 1) must be'
        msg += ' (C - 1) / (R - 1) within 1 %'
        raise ValueError(msg)
    return ReflectivityMap(codes, full, 'heightmap', source)


def mesh_map(codes: NDArray[np.integer], full: int, source: str) -> ReflectivityMap:
    """The map of a mesh, sampled at its texture coordinates as OpenGL does."""
    return ReflectivityMap(codes, full, 'mesh', source)
