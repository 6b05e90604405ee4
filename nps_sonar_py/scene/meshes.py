"""Mesh files as triangles: where a URDF ``<mesh filename>`` points, and reading it with trimesh.

Paths (:func:`resolve_mesh_path`):

* ``package://<pkg>/<path>``: ``<share>/<path>`` where ``<share>`` is what the optional
  ``package_resolver(pkg)`` returns (a callable such as ament_index_python's
  ``get_package_share_directory``; returning None or raising LookupError passes), else the
  first prefix ``P`` on ``AMENT_PREFIX_PATH`` with a marker file
  ``P/share/ament_index/resource_index/packages/<pkg>`` gives ``P/share/<pkg>``. This is
  the ament index read directly, without importing ament.
* ``file:///abs/path`` and absolute paths as they are; ``file://rel/path`` and relative
  paths relative to the directory of the model file that names them.
* ``model://<model>/<path>`` (SDF only, when the caller passes a ``model_path``): ``<path>``
  in the first directory ``D/<model>`` for ``D`` on the search path of
  :func:`model_search_path`, Gazebo's ``GZ_SIM_RESOURCE_PATH``, then ``GAZEBO_MODEL_PATH``,
  then ``SDF_PATH`` (each a colon-separated list).
* Any other scheme (``http://``, and ``model://`` in a URDF) is an error.

Formats (:data:`MESH_FORMATS`): STL, OBJ and COLLADA (``.dae``), by file suffix. A DAE's
``<unit meter>`` scales its vertices to metres, as Gazebo does; its ``<up_axis>`` is not
applied (vertices are read as written, z up). Scenes with several nodes are flattened with
their node transforms. Winding is kept as the file has it.

Only regular files are read (``os.stat`` before opening: a FIFO or a device is refused, not
waited on), and at most :data:`MAX_MESH_BYTES`; trimesh parses the bytes read here, never
the path, so the limit holds. (Material and texture files an OBJ or DAE names are not read:
only the triangles and their texture coordinates matter.)
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NoReturn
from urllib.parse import unquote, urlsplit

import numpy as np
from lxml import etree

from nps_sonar_py.ament import package_share
from nps_sonar_py.errors import SceneError, one_line
from nps_sonar_py.input_files import read_input_file
from nps_sonar_py.scene.tessellation import Triangles
from nps_sonar_py.xml_input import xml_parser

__all__ = [
    'MAX_MESH_BYTES',
    'MESH_FORMATS',
    'MODEL_PATH_VARIABLES',
    'MeshLoader',
    'PackageResolver',
    'find_model',
    'model_search_path',
    'read_mesh',
    'resolve_mesh_path',
    'resolve_package',
    'shown',
]

#: Mesh file suffixes this package reads (lower case).
MESH_FORMATS = ('.dae', '.obj', '.stl')

#: Largest mesh file read, bytes: 256 MiB, a binary STL of 5.4 million triangles (50 bytes
#: each), well beyond what a sonar scene needs (the benchmarks use 1e6 triangles in all);
#: trimesh's arrays take a few times the file's size.
MAX_MESH_BYTES = 256 * 2**20

#: A callable giving the share directory of a ROS package, or None if it does not know it.
PackageResolver = Callable[[str], 'str | os.PathLike[str] | None']

#: Environment variables naming the directories that hold Gazebo models, searched in order.
MODEL_PATH_VARIABLES = ('GZ_SIM_RESOURCE_PATH', 'GAZEBO_MODEL_PATH', 'SDF_PATH')


def shown(text: str, limit: int = 80) -> str:
    """``repr`` of a bad value for a message: at most ``limit`` characters of it, then ``...``."""
    if len(text) > limit:
        return f'{text[:limit]!r}... ({len(text)} characters)'
    return repr(text)


def model_search_path(environ: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """Directories searched for ``model://<name>``: :data:`MODEL_PATH_VARIABLES`, in order."""
    env = os.environ if environ is None else environ
    return tuple(
        Path(part) for key in MODEL_PATH_VARIABLES for part in env.get(key, '').split(':') if part
    )


def _searched(model_path: Sequence[Path]) -> str:
    where = ', '.join(str(p) for p in model_path) or 'nothing: all are unset'
    return f'{", ".join(MODEL_PATH_VARIABLES)} (searched {where})'


def find_model(uri: str, model_path: Sequence[Path]) -> Path:
    """Path named by ``model://<model>[/<path>]``: ``<path>`` in the first ``D/<model>``.

    Raises:
        LookupError: no directory ``D/<model>`` on ``model_path``; the message names the
            variables and the directories searched.
        ValueError: not a ``model://`` URI with a model name.

    """
    parts = urlsplit(uri)
    if parts.scheme != 'model' or not parts.netloc:
        msg = f'{uri!r} must be model://<model>[/<path>]'
        raise ValueError(msg)
    relative = unquote(parts.path).lstrip('/')
    if '\0' in uri:
        msg = f'{shown(uri)} holds a NUL character'
        raise ValueError(msg)
    for directory in model_path:
        if os.path.isdir(directory / parts.netloc):  # False, never OSError, for a bad name
            return directory / parts.netloc / relative if relative else directory / parts.netloc
    msg = f'model {shown(parts.netloc)} of {shown(uri)} is in none of {_searched(model_path)}'
    raise LookupError(msg)


def resolve_package(
    package: str, *, package_resolver: PackageResolver | None = None
) -> Path | None:
    """Find the share directory of ROS package ``package``; None if no resolver or index has it."""
    if package_resolver is not None:
        try:
            found = package_resolver(package)
        except LookupError:  # ament_index_python's PackageNotFoundError is a KeyError
            found = None
        if found is not None:
            return Path(found)
    return package_share(package)


def resolve_mesh_path(
    filename: str,
    base_dir: str | os.PathLike[str] | None,
    *,
    package_resolver: PackageResolver | None = None,
    model_path: Sequence[Path] | None = None,
) -> Path:
    """Resolve a mesh ``filename``, as written, to a file path, against ``base_dir``.

    ``model://`` names are resolved only when ``model_path`` is given (SDF input).

    Raises:
        LookupError: a ``package://`` package or ``model://`` model that cannot be found.
        ValueError: an unsupported URI scheme or an empty path.

    """
    parts = urlsplit(filename)
    if parts.scheme == 'model' and model_path is not None:
        return find_model(filename, model_path)
    if parts.scheme == 'package':
        relative = unquote(parts.path).lstrip('/')
        if not parts.netloc or not relative:
            msg = f'{filename!r} must be package://<package>/<path>'
            raise ValueError(msg)
        share = resolve_package(parts.netloc, package_resolver=package_resolver)
        if share is None:
            msg = f'package {parts.netloc!r} of {filename!r}'
            msg += ' is neither on AMENT_PREFIX_PATH nor resolved'
            raise LookupError(msg)
        return share / relative
    if parts.scheme == 'file':
        path = Path(unquote(parts.netloc + parts.path))
    elif parts.scheme and len(parts.scheme) > 1:  # one letter is a Windows drive
        msg = f'unsupported URI scheme {parts.scheme!r} in {filename!r}'
        msg += ' (use package://, file:// or a path)'
        raise ValueError(msg)
    else:
        path = Path(filename)
    if not str(path).strip() or str(path) == '.':
        msg = f'empty mesh path {filename!r}'
        raise ValueError(msg)
    if '\0' in str(path):
        msg = f'{shown(filename)} holds a NUL character'
        raise ValueError(msg)
    if not path.is_absolute() and base_dir is not None:
        path = Path(base_dir) / path
    return path


def _dae_unit(data: bytes) -> float:
    """Metres per unit of a COLLADA document (``<asset><unit meter>``), 1 if not given.

    Its vertex positions are checked first, as written: trimesh's COLLADA reader turns a
    ``nan`` into 0 and drops a triangle with an ``inf``, so a bad vertex would load unseen.

    Raises:
        ValueError: a bad ``<unit meter>``; ``_NotFiniteError``, a position source (a
            ``<float_array>`` that an ``<input semantic="POSITION">`` names) with a value
            that is not a finite number.

    """
    root = etree.fromstring(data, xml_parser())
    _check_dae_positions(root)
    unit = root.find('{*}asset/{*}unit')
    meter = float(unit.get('meter', '1')) if unit is not None else 1.0
    if not (np.isfinite(meter) and meter > 0.0):
        msg = f'<unit meter="{meter}"> must be a positive number'
        raise ValueError(msg)
    return meter


class _NotFiniteError(ValueError):
    """A vertex position of a mesh file that is not a finite number."""


def _check_dae_positions(root: etree._Element) -> None:
    """_NotFiniteError naming the first position value of a COLLADA document that is not finite."""
    sources = {s.get('id'): s for s in root.iter('{*}source')}
    for position in root.iter('{*}input'):
        if position.get('semantic') != 'POSITION':
            continue
        source = sources.get((position.get('source') or '').removeprefix('#'))
        if source is None:
            continue  # trimesh reports a missing source
        for array in source.iter('{*}float_array'):
            words = (array.text or '').split()
            try:
                values = np.array(words, dtype=np.float64)
            except ValueError:
                values = np.array([_number_or_nan(w) for w in words])
            bad = ~np.isfinite(values)
            if bad.any():
                word = words[int(np.argmax(bad))]
                where = f'<float_array id="{one_line(array.get("id", ""), 80)}">'
                msg = f'{where} (line {array.sourceline}) holds {shown(word)}: vertex positions'
                raise _NotFiniteError(f'{msg} must be finite numbers')


def _number_or_nan(word: str) -> float:
    try:
        return float(word)
    except ValueError:
        return float('nan')


def read_mesh(
    path: str | os.PathLike[str], *, file: str | None = None, line: int | None = None
) -> Triangles:
    """Triangles of the mesh file ``path``, in the file's units scaled to metres.

    Texture coordinates, where the file has one pair per vertex as trimesh reads it (OBJ
    ``vt``, a DAE's first ``TEXCOORD`` set), come along as ``Triangles.uvs``.

    Raises:
        SceneError: at ``file:line`` (the referring element): a missing file, one that is not
            a regular file or is larger than :data:`MAX_MESH_BYTES`, an unsupported suffix,
            or a file trimesh cannot read or that holds no triangles.

    """
    import trimesh

    path = Path(path)
    element = f'<mesh filename="{one_line(path.name, 80)}">'
    shown = str(path)

    def refuse(problem: str) -> NoReturn:
        raise SceneError(problem, file=file, line=line, element=element)

    suffix = path.suffix.lower()
    if suffix not in MESH_FORMATS:
        problem = f'unsupported mesh format {path.suffix or "(none)"!r} of {shown}'
        refuse(f'{problem} (expected one of {MESH_FORMATS})')
    data = read_input_file(
        path,
        SceneError,
        what='mesh file',
        limit=MAX_MESH_BYTES,
        file=file if file is not None else shown,
        line=line,
        element=element,
    )
    try:
        unit = _dae_unit(data) if suffix == '.dae' else 1.0
        # trimesh computes face normals as it loads: a vertex that is not finite would print
        # numpy's warnings before the one line below says what is wrong.
        with np.errstate(all='ignore'):
            mesh = trimesh.load_mesh(io.BytesIO(data), file_type=suffix[1:], process=False)
        vertices = np.asarray(mesh.vertices, dtype=np.float64) * unit
        faces = np.asarray(mesh.faces, dtype=np.int64).reshape(-1, 3)
        uv = getattr(mesh.visual, 'uv', None)  # OBJ vt, DAE TEXCOORD: one per vertex
        uvs = None
        if uv is not None and np.shape(uv) == (vertices.shape[0], 2):
            uvs = np.asarray(uv, dtype=np.float32)
    except _NotFiniteError as err:
        refuse(f'mesh {shown}: {err}')
    except Exception as err:
        reason = one_line((str(err).splitlines() or [''])[0], 200)
        refuse(f'cannot read mesh {shown}: {type(err).__name__}: {reason}')
    if faces.shape[0] == 0:
        refuse(f'mesh {shown} holds no triangles')
    if not np.all(np.isfinite(vertices)) or faces.min() < 0 or faces.max() >= vertices.shape[0]:
        refuse(f'mesh {shown} has invalid vertices or faces')
    return Triangles(vertices, faces, uvs)


class MeshLoader:
    """Reads each mesh file once while a world loads, and resolves its names.

    Args:
        package_resolver: optional share-directory lookup for ``package://`` names.
        model_path: directories holding Gazebo models, for ``model://`` names (SDF only).

    """

    def __init__(
        self,
        package_resolver: PackageResolver | None = None,
        *,
        model_path: Sequence[Path] | None = None,
    ) -> None:
        self._package_resolver = package_resolver
        self._model_path = model_path
        self._cache: dict[Path, Triangles] = {}

    def load(
        self,
        filename: str,
        base_dir: str | os.PathLike[str] | None,
        *,
        file: str | None = None,
        line: int | None = None,
    ) -> Triangles:
        """Triangles of the mesh named ``filename`` by the element at ``file:line``."""
        try:
            path = resolve_mesh_path(
                filename,
                base_dir,
                package_resolver=self._package_resolver,
                model_path=self._model_path,
            )
            key = path.resolve()
        except (LookupError, ValueError, OSError) as err:  # urlsplit's, a NUL, a bad name
            raise SceneError(
                str(err),
                file=file,
                line=line,
                element=f'<mesh filename="{one_line(filename, 80)}">',
            ) from None
        if key not in self._cache:
            self._cache[key] = read_mesh(path, file=file, line=line)
        return self._cache[key]
