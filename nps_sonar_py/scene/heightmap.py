"""Seabeds: a grid of heights (Gazebo's ``<heightmap>``) as triangles, from a PNG or a ``.npy``.

A scene file places one as a model (``docs/scene.md``)::

    <model name="seabed" retro="60">
      <heightmap file="bathymetry.npy" size="400 400" pos="0 0 -20"/>
    </model>

Conventions, as Gazebo's (its heightmap shapes, read in gazebo-classic's ``HeightmapShape``
and DART's ``HeightmapShape``): the grid is centred on ``pos`` in the model's frame, column
``j`` runs along +x and row ``i`` along -y, so row 0 (an image's top row) is the +y edge and
the image looks like a map seen from above, north (+y) up. A grid of R rows and C columns
puts sample ``(i, j)`` at::

    x = pos_x - size_x / 2 + j size_x / (C - 1)
    y = pos_y + size_y / 2 - i size_y / (R - 1)
    z = pos_z + h[i, j]

The samples span exactly ``size_x`` by ``size_y``. Heights ``h``, in metres:

* PNG (8- or 16-bit grayscale): ``h = size_z * p / p_max``, ``p_max`` the brightest pixel,
  as Gazebo scales (``size_z / MaxColor``): pixel 0 is at ``pos_z``, the brightest pixel at
  ``pos_z + size_z`` (an image that uses the full range: 65535 or 255). All black is flat.
* ``.npy`` (a 2-D array of floats or integers): metres as given, added to ``pos_z``; its
  ``size`` has only x and y.

Each grid cell becomes two triangles, split along the diagonal from sample ``(i, j)`` to
``(i + 1, j + 1)`` and wound counter-clockwise seen from above (normals up, +z): R x C
samples give ``2 (R - 1) (C - 1)`` triangles, triangle ``2 k`` and ``2 k + 1`` in cell
``k = i (C - 1) + j``. The surface is open (no sides or bottom), so a ray from below meets it
too. Gazebo's bilinear ``<sampling>`` is not applied: the triangles go through the samples.

A heightmap samples a smooth surface, so it is smooth-shaded: each vertex carries the normal
of the surface there, ``(-dh/dx, -dh/dy, 1)`` normalised, the slopes by central differences
of the grid (one-sided at its edges, ``numpy.gradient``), and the raycaster interpolates
them over a hit's triangle (``Triangles.vertex_normals``) instead of taking the face normal,
whose steps from cell to cell would show as stripes near grazing.

A ``reflectivity_map="mu.png"`` attribute puts a grayscale PNG over the same extent
(:mod:`nps_sonar_py.scene.reflectivity_map`); the vertices then carry texture coordinates,
their normalised x and y (``heightmap_triangles(..., uvs=True)``).

Limits, checked before anything is allocated: files are read only when regular and at most
:data:`MAX_HEIGHTMAP_BYTES`; grids of at least 2 x 2 and at most :data:`MAX_HEIGHTMAP_SAMPLES`
(4097 x 4097) samples; heights, sizes and positions finite and within 1e6 m.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import NoReturn

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.errors import SceneError, one_line
from nps_sonar_py.input_files import read_input_file
from nps_sonar_py.scene.png import decode_gray_png
from nps_sonar_py.scene.reflectivity_map import ReflectivityMap, heightmap_map, read_map_pixels
from nps_sonar_py.scene.scene_state import MAX_POSITION, check_children, floats_attribute
from nps_sonar_py.scene.tessellation import Triangles
from nps_sonar_py.xml_input import Element, label, raise_at, required_attribute

__all__ = [
    'HEIGHTMAP_FORMATS',
    'MAX_HEIGHTMAP_BYTES',
    'MAX_HEIGHTMAP_SAMPLES',
    'heightmap_triangles',
    'parse_heightmap',
    'read_heights',
]

#: File suffixes of heightmaps (lower case): a grayscale PNG image or a numpy array.
HEIGHTMAP_FORMATS = ('.npy', '.png')

#: Most samples of a grid: 4097 x 4097 (16.8e6, Gazebo's largest usual terrain, 2^12 + 1).
#: Its triangles take about 1.2 GB as float64/int64 arrays (1.6 GB with the vertex normals),
#: and as much again in Open3D.
MAX_HEIGHTMAP_SAMPLES = 4097 * 4097

#: Largest heightmap file read, bytes: 256 MiB, room for the largest grid as float64 (134 MB).
MAX_HEIGHTMAP_BYTES = 256 * 2**20

#: Largest |height| and |coordinate|, m: the scene's ``MAX_POSITION`` (float32 keeps 6 cm there).
MAX_HEIGHT = MAX_POSITION


def heightmap_triangles(
    heights: ArrayLike,
    size: ArrayLike,
    pos: ArrayLike = (0.0, 0.0, 0.0),
    *,
    uvs: bool = False,
) -> Triangles:
    """Tessellate a grid of heights (R, C), in metres above ``pos_z``, over ``size`` (x, y) m.

    Sample ``(i, j)`` goes to the x, y, z of the module docstring (row 0 at the +y edge);
    ``2 (R - 1) (C - 1)`` triangles, normals up. Vectorised: no loop over cells. With
    ``uvs``, each vertex gets the texture coordinates of a reflectivity map over the same
    extent: its normalised x and y, ``u = j / (C - 1)``, ``v = 1 - i / (R - 1)``.

    Raises:
        ValueError: not a 2-D grid of at least 2 x 2 samples, more than
            :data:`MAX_HEIGHTMAP_SAMPLES`, a height that is not finite, or a size or position
            that is not finite (sizes must be > 0).

    """
    sx, sy = (float(s) for s in np.asarray(size, dtype=np.float64).reshape(2))
    px, py, pz = (float(p) for p in np.asarray(pos, dtype=np.float64).reshape(3))
    if not (0.0 < sx <= MAX_HEIGHT and 0.0 < sy <= MAX_HEIGHT):
        msg = f'heightmap size must be two numbers in (0, {MAX_HEIGHT:g}] m, got {sx}, {sy}'
        raise ValueError(msg)
    if not all(abs(p) <= MAX_HEIGHT for p in (px, py, pz)):
        msg = f'heightmap pos must be finite, within {MAX_HEIGHT:g} m, got {px}, {py}, {pz}'
        raise ValueError(msg)
    shape = np.shape(heights)
    _check_shape(shape)
    h = np.asarray(heights, dtype=np.float64)
    problem = _bad_heights(h)
    if problem is not None:
        raise ValueError(problem)
    rows, cols = shape
    vertices = np.empty((rows, cols, 3))
    vertices[:, :, 0] = np.linspace(px - sx / 2.0, px + sx / 2.0, cols)[np.newaxis, :]
    vertices[:, :, 1] = np.linspace(py + sy / 2.0, py - sy / 2.0, rows)[:, np.newaxis]
    np.add(h, pz, out=vertices[:, :, 2])
    a = (np.arange(rows - 1)[:, np.newaxis] * cols + np.arange(cols - 1)).ravel()
    triangles = np.empty((a.size, 2, 3), dtype=np.int64)  # two per cell, side by side
    triangles[:, :, 0] = a[:, np.newaxis]  # both start at (i, j), the cell's -x +y corner
    triangles[:, 0, 1] = a + cols  # (i + 1, j)
    triangles[:, 0, 2] = a + cols + 1  # (i + 1, j + 1)
    triangles[:, 1, 1] = a + cols + 1
    triangles[:, 1, 2] = a + 1  # (i, j + 1)
    texture: NDArray[np.float32] | None = None
    if uvs:
        grid = np.empty((rows, cols, 2), dtype=np.float32)
        grid[:, :, 0] = np.linspace(0.0, 1.0, cols)[np.newaxis, :]
        grid[:, :, 1] = np.linspace(1.0, 0.0, rows)[:, np.newaxis]
        texture = grid.reshape(-1, 2)
    return Triangles(
        vertices.reshape(-1, 3), triangles.reshape(-1, 3), texture, _vertex_normals(h, sx, sy)
    )


def _vertex_normals(h: NDArray[np.float64], sx: float, sy: float) -> NDArray[np.float64]:
    """(R C, 3) unit normals of the grid's surface at its samples, from central differences.

    Rows run along -y, so their spacing in y is negative.
    """
    rows, cols = h.shape
    dh_dy, dh_dx = np.gradient(h, -sy / (rows - 1), sx / (cols - 1))
    normals = np.empty((rows, cols, 3))
    np.negative(dh_dx, out=normals[:, :, 0])
    np.negative(dh_dy, out=normals[:, :, 1])
    normals[:, :, 2] = 1.0
    normals /= np.linalg.norm(normals, axis=2, keepdims=True)
    return normals.reshape(-1, 3)


def _check_shape(shape: tuple[int, ...]) -> None:
    """Refuse a grid that is not 2-D, smaller than 2 x 2 or larger than the limit."""
    if len(shape) != 2:
        msg = f'heights must be a 2-D grid (rows, columns), got shape {tuple(shape)}'
        raise ValueError(msg)
    rows, cols = shape
    if rows < 2 or cols < 2:
        msg = f'a heightmap needs at least 2 x 2 samples, got {rows} x {cols}'
        raise ValueError(msg)
    if rows * cols > MAX_HEIGHTMAP_SAMPLES:
        msg = f'a grid of {rows} x {cols} = {rows * cols} samples is more than the limit of'
        msg += f' {MAX_HEIGHTMAP_SAMPLES} (4097 x 4097)'
        raise ValueError(msg)


def _bad_heights(h: NDArray[np.float64]) -> str | None:
    """Say where the first height is not finite or beyond :data:`MAX_HEIGHT`; None if none is."""
    bad = ~(np.abs(h) <= MAX_HEIGHT)  # also true for nan
    if not bad.any():
        return None
    i, j = np.unravel_index(int(np.argmax(bad)), h.shape)
    return (
        f'height {float(h[i, j])} at row {i}, column {j} ({int(bad.sum())} of {h.size}'
        f' samples bad): heights must be finite, within {MAX_HEIGHT:g} m'
    )


def read_heights(
    path: str | os.PathLike[str],
    size_z: float | None = None,
    *,
    file: str | None = None,
    line: int | None = None,
    element: str | None = None,
) -> NDArray[np.float64]:
    """The (R, C) heights in metres above ``pos_z`` of a PNG (scaled to ``size_z``) or ``.npy``.

    Raises:
        SceneError: at ``file:line: element`` (the ``<heightmap>`` element) when given, else
            at ``path``: an unknown suffix, a file that is missing, not regular or larger than
            :data:`MAX_HEIGHTMAP_BYTES`, not a PNG or ``.npy`` it claims to be, not 2-D
            grayscale or numbers, outside the sample limits, with heights not finite; a PNG
            without ``size_z``.

    """
    path = Path(path)
    shown = str(path)
    if element is None:
        element = f'<heightmap file="{path.name}">'
    element = one_line(element, 100)

    def refuse(problem: str) -> NoReturn:  # SceneError escapes whatever numpy or Pillow said
        where = file if file is not None else shown
        raise SceneError(problem, file=where, line=line, element=element)

    suffix = path.suffix.lower()
    if suffix not in HEIGHTMAP_FORMATS:
        refuse(_unsupported(path))
    if suffix == '.png' and (size_z is None or not 0.0 <= size_z <= MAX_HEIGHT):
        refuse(f'a PNG heightmap needs a height range size_z in [0, {MAX_HEIGHT:g}] m')
    data = read_input_file(
        path,
        SceneError,
        what='heightmap file',
        limit=MAX_HEIGHTMAP_BYTES,
        file=file if file is not None else shown,
        line=line,
        element=element,
    )
    try:
        if suffix == '.npy':
            heights = _npy_grid(data)
        else:
            assert size_z is not None  # checked above
            heights = _png_heights(data, size_z)
        problem = _bad_heights(heights)
        if problem is not None:
            raise ValueError(problem)
    except ValueError as err:
        refuse(f'{shown}: {err}')
    return heights


def _unsupported(path: Path) -> str:
    return (
        f'unsupported heightmap format {path.suffix or "(none)"!r} of {path}'
        f' (expected one of {HEIGHTMAP_FORMATS})'
    )


def _npy_grid(data: bytes) -> NDArray[np.float64]:
    """The 2-D grid of a ``.npy`` file's bytes as float64; its header is checked first."""
    stream = io.BytesIO(data)
    fmt = np.lib.format
    try:
        version = fmt.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(stream)
        else:
            msg = f'unsupported .npy format version {version[0]}.{version[1]}'
            raise ValueError(msg)
    except Exception as err:  # ValueError, EOFError, SyntaxError, tokenize.TokenError, ...
        # numpy's own first line only: the rest of its header-size message advises
        # allow_pickle=True, not wanted here
        reason = one_line((str(err).splitlines() or [type(err).__name__])[0], 200)
        msg = f'not a readable .npy file ({reason})'
        raise ValueError(msg) from None
    if dtype.fields is not None or dtype.subdtype is not None or dtype.kind not in 'iuf':
        msg = f'heights must be floats or integers, got dtype {dtype}'
        raise ValueError(msg)
    _check_shape(shape)  # before anything the size of the grid is allocated
    count = int(np.prod(shape))
    offset = stream.tell()
    if len(data) - offset < count * dtype.itemsize:
        msg = f'the file is truncated: {len(data) - offset} bytes of data for shape {shape}'
        raise ValueError(msg)
    raw = np.frombuffer(data, dtype=dtype, count=count, offset=offset)
    return raw.reshape(shape, order='F' if fortran else 'C').astype(np.float64)


def _png_heights(data: bytes, size_z: float) -> NDArray[np.float64]:
    """Heights of a grayscale PNG's bytes: ``size_z * p / p_max``; the size is checked first."""
    pixels, _ = decode_gray_png(data, _check_shape)
    heights = pixels.astype(np.float64)
    brightest = float(heights.max())
    if brightest > 0.0:
        heights *= size_z / brightest
    return heights


def _bounded(
    element: Element, key: str, count: int, low: float, high: float, *, file: str | None
) -> NDArray[np.float64]:
    values = floats_attribute(element, key, count, file=file)
    if not np.all((values >= low) & (values <= high)):
        problem = f'{key}={element.get(key)!r} must have each number in [{low:g}, {high:g}] m'
        raise_at(SceneError, element, problem, file=file)
    return values


def parse_heightmap(
    element: Element, *, file: str | None, base_dir: str | os.PathLike[str]
) -> tuple[Triangles, Path, ReflectivityMap | None]:
    """Triangles, in its model's frame, of a ``<heightmap file size pos>``, its file, its map.

    ``file`` (relative to ``base_dir``), ``size`` (PNG: ``x y z``; ``.npy``: ``x y``, metres)
    and ``pos`` (``x y z``, default the origin) as in the module docstring;
    ``reflectivity_map`` (optional, relative to ``base_dir``) a grayscale PNG over the same
    extent (:mod:`nps_sonar_py.scene.reflectivity_map`): the triangles then carry its
    texture coordinates.

    Raises:
        SceneError: at the element: unknown attributes or children, a missing ``file`` or
            ``size``, numbers out of range, anything :func:`read_heights` refuses, or a map
            that cannot be read or does not fit the grid.

    """
    check_children(element, file=file, attributes=('file', 'pos', 'reflectivity_map', 'size'))
    missing = 'missing required attribute {name!r}'
    name = required_attribute(element, 'file', SceneError, strip=True, problem=missing, file=file)
    path = Path(base_dir) / name
    count = {'.png': 3, '.npy': 2}.get(path.suffix.lower())
    if count is None:
        raise_at(SceneError, element, _unsupported(path), file=file)
    size_text = required_attribute(element, 'size', SceneError, problem=missing, file=file)
    if len(size_text.split()) != count:
        what = (
            'x y z (metres; z is the height range of the pixels)'
            if count == 3
            else 'x y (metres; a .npy grid holds heights in metres)'
        )
        problem = f'size={size_text!r} must be {count} numbers for a {path.suffix} heightmap:'
        raise_at(SceneError, element, f'{problem} {what}', file=file)
    size = _bounded(element, 'size', count, 0.0, MAX_HEIGHT, file=file)
    if not np.all(size[:2] > 0.0):
        raise_at(SceneError, element, f'size={size_text!r} must have x and y > 0', file=file)
    pos = _bounded(element, 'pos', 3, -MAX_HEIGHT, MAX_HEIGHT, file=file)
    where = file or element.getroottree().docinfo.URL or '<string>'
    heights = read_heights(
        path,
        float(size[2]) if count == 3 else None,
        file=where,
        line=element.sourceline,
        element=label(element),
    )
    map_name = element.get('reflectivity_map')
    if map_name is None:
        return heightmap_triangles(heights, size[:2], pos), path, None
    if not map_name.strip():
        raise_at(SceneError, element, 'reflectivity_map="" names no file', file=file)
    map_path = Path(base_dir) / map_name.strip()
    codes, full = read_map_pixels(
        map_path, file=where, line=element.sourceline, element=label(element)
    )
    try:
        reflectivity_map = heightmap_map(codes, full, str(map_path), heights.shape)
    except ValueError as err:
        raise_at(SceneError, element, str(err), file=file)
    return heightmap_triangles(heights, size[:2], pos, uvs=True), path, reflectivity_map
