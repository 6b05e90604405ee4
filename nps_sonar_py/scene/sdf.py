"""Gazebo SDF worlds (SDFormat 1.6 to 1.11) as a :class:`~nps_sonar_py.scene.world.World`.

``load_world`` hands a file here when it ends in ``.sdf`` or its root element is ``<sdf>``
(a Gazebo ``.world``); the format is described in ``docs/scene.md``. In short::

    <sdf version="1.9">
      <world name="harbour">
        <frame name="quay"><pose>10 0 0 0 0 0</pose></frame>
        <model name="pillar">
          <static>true</static>
          <pose relative_to="quay" degrees="true">0 2 3 0 0 90</pose>
          <link name="l"><collision name="c">
            <geometry><cylinder><radius>0.3</radius><length>6</length></cylinder></geometry>
            <laser_retro>120</laser_retro>
          </collision></link>
        </model>
        <include><uri>model://block</uri><name>block_1</name><pose>2 0 0 0 0 0</pose></include>
      </world>
    </sdf>

Each top-level ``<model>`` or ``<include>`` becomes one static :class:`Entity` placed at its
pose: the collision (or, on request, visual) shapes of all its links and nested models, in
the model's frame, with each shape's ``<laser_retro>`` as read (0 where it has none, as in
Gazebo) and its Lambert coefficient (``lambert_coefficient`` of it, else the loader's
``default_lambert``). Poses follow SDFormat's frame semantics: a ``<pose
relative_to>`` names a frame of the same scope (a model, link, joint, ``<frame>``, or a
nested one as ``a::b``), by default the model (links, nested models, frames), the link
(shapes), the child link (joints) or the world (models, frames). Nothing moves: there is no
physics here, so ``<static>`` is read (a boolean) but every model stands at its pose.

Elements that do not shape what a ray hits are skipped (lights, physics, plugins, sensors,
gui, scene, inertials, actors, ...); shapes that cannot be read are errors, one located line
each (``file:line: element: problem``), as are populations and the geometry kinds not
tessellated here (polyline, image). A ``<heightmap>`` is read by
:mod:`nps_sonar_py.scene.heightmap` (a PNG as Gazebo's, or a ``.npy`` grid in metres). A
``<heightmap>`` or ``<mesh>`` may hold an ``<nps:reflectivity_map>`` (namespace
``urn:nps_sonar``, declared on ``<sdf>``; Gazebo ignores it), a grayscale PNG giving the
Lambert coefficient at each hit (:mod:`nps_sonar_py.scene.reflectivity_map`). A top-level
``<model>`` may hold an ``<nps:seabed>``, its sediment, texture and ripples
(:mod:`nps_sonar_py.scene.seabed_element`, ``docs/seabed.md``).

Bounds, checked before anything is allocated: lengths within ``[0, MAX_POSITION]`` (1e6 m),
pose positions within ``MAX_POSITION`` and angles within ``MAX_ANGLE`` rad, includes nested
at most :data:`MAX_INCLUDE_DEPTH` deep, models nested at most :data:`MAX_MODEL_DEPTH` deep
(across includes), at most :data:`MAX_SDF_MODELS` models and :data:`MAX_INCLUDED_ELEMENTS`
elements read through includes (each copy counted, as it is read), and at most
:data:`MAX_SDF_TRIANGLES` triangles in all (counted before each shape is tessellated or a
mesh transformed). Chains of ``relative_to`` are followed without recursion, however long.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NoReturn
from urllib.parse import unquote, urlsplit

import numpy as np
from lxml import etree
from numpy.typing import NDArray

from nps_sonar_py.echo.reflectivity import DEFAULT_LAMBERT, lambert_coefficient
from nps_sonar_py.echo.seabed import Seabed
from nps_sonar_py.errors import SceneError, one_line
from nps_sonar_py.scene.heightmap import heightmap_triangles, read_heights
from nps_sonar_py.scene.meshes import (
    MeshLoader,
    PackageResolver,
    find_model,
    model_search_path,
    resolve_mesh_path,
    shown,
)
from nps_sonar_py.scene.options import (
    LARGEST_COORDINATE,
    Geometry,
    ReadOptions,
    read_options,
)
from nps_sonar_py.scene.reflectivity_map import (
    MAP_TAG,
    NAMESPACE,
    ReflectivityMap,
    SurfaceMaps,
    heightmap_map,
    mesh_map,
    read_map_pixels,
)
from nps_sonar_py.scene.scene_state import (
    FRAME_SEPARATOR,
    MAX_ANGLE,
    MAX_POSITION,
    WORLD_FRAME,
    EntityState,
    SceneState,
)
from nps_sonar_py.scene.seabed_element import read_seabed
from nps_sonar_py.scene.tessellation import (
    DEFAULT_CYLINDER_SEGMENTS,
    DEFAULT_SPHERE_SUBDIVISIONS,
    Triangles,
    box_triangles,
    capsule_triangles,
    cylinder_triangles,
    ellipsoid_triangles,
    plane_triangles,
    sphere_triangles,
)
from nps_sonar_py.scene.world import Entity, World
from nps_sonar_py.transforms import invert_transform, rpy_to_matrix, transform_from
from nps_sonar_py.xml_input import (
    Element,
    NumberError,
    children,
    label,
    parse_document,
    parse_numbers,
    raise_at,
    read_document,
)

__all__ = [
    'MAX_INCLUDED_ELEMENTS',
    'MAX_INCLUDE_DEPTH',
    'MAX_MODEL_DEPTH',
    'MAX_SDF_MODELS',
    'MAX_SDF_TRIANGLES',
    'SDF_VERSIONS',
    'is_sdf',
    'parse_sdf_world',
]

#: SDFormat versions read (``<sdf version>``), oldest first.
SDF_VERSIONS = ('1.6', '1.7', '1.8', '1.9', '1.10', '1.11')

#: Deepest chain of ``<include>`` (a model that includes a model that ...); deeper is a cycle
#: in all likelihood, and an error.
MAX_INCLUDE_DEPTH = 16

#: Deepest nesting of ``<model>`` in ``<model>``, counted across includes (a world's top-level
#: model is at depth 1). Gazebo models nest a few levels; the parser recurses per level.
MAX_MODEL_DEPTH = 100

#: Most models in a world: each ``<model>`` and ``<include>``, nested ones too, and each copy
#: an include makes, counted as they are read. Gazebo worlds hold at most thousands; a few
#: files including each other ten times over would otherwise make millions.
MAX_SDF_MODELS = 10_000

#: Most XML elements read through ``<include>``: each included file's elements, counted
#: again for each copy. Bounds the work of a fan-out of includes of large models.
MAX_INCLUDED_ELEMENTS = 1_000_000

#: Most triangles of all shapes of a world: 2e7 (about 1.4 GB of vertices and indices once
#: tessellated, before Open3D's copy); 3900 default spheres, or 78000 default cylinders.
MAX_SDF_TRIANGLES = 20_000_000

#: Geometry kinds that are valid SDF but not tessellated here.
_UNSUPPORTED_GEOMETRY = ('polyline', 'image')
_GEOMETRY = (
    'box',
    'capsule',
    'cylinder',
    'ellipsoid',
    'heightmap',
    'mesh',
    'plane',
    'sphere',
    'empty',
)
_MODEL_FRAME = '__model__'
_TRUE = ('true', '1')
_FALSE = ('false', '0')

#: Most characters of a bad value (a ``<pose>``, a name, a URI) echoed in a message.
_SHOWN = 80

#: Most characters of a problem, after the values in it are cut to :data:`_SHOWN` each.
_LONGEST_PROBLEM = 1000


def is_sdf(data: bytes) -> bool:
    """Whether the XML document ``data`` has an ``<sdf>`` root (parsed up to that start tag)."""
    events = etree.iterparse(
        io.BytesIO(data),
        events=('start',),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
    )
    try:
        for _, element in events:
            return bool(element.tag == 'sdf')
    except etree.XMLSyntaxError:
        return False  # the scene reader reports it
    return False


# --- small readers ------------------------------------------------------------------------


def _fail(element: Element, problem: str) -> NoReturn:
    """A SceneError at ``element``, long names and text cut (``InputError`` escapes them)."""
    source = _source(element)
    raise_at(
        SceneError,
        element,
        one_line(problem, _LONGEST_PROBLEM),
        element=_label(element),
        file=source or None,
    )


def _label(element: Element) -> str:
    """:func:`label` of ``element``, escaped to one line, its name cut to :data:`_SHOWN`."""
    return one_line(label(element), _SHOWN + 20)


def _text(element: Element) -> str:
    return (element.text or '').strip()


def _child(element: Element, tag: str) -> Element | None:
    found = children(element, tag)
    if len(found) > 1:
        _fail(found[1], f'more than one <{tag}> in {_label(element)}')
    return found[0] if found else None


def _required(element: Element, tag: str) -> Element:
    found = _child(element, tag)
    if found is None:
        _fail(element, f'missing required <{tag}>')
    return found


def _numbers(element: Element, count: int) -> tuple[float, ...]:
    text = _text(element)
    try:
        return parse_numbers(text, count)
    except NumberError as err:
        _fail(element, f'{shown(text)} {err.reason(text, count)}')


def _lengths(element: Element, tag: str, count: int) -> tuple[float, ...]:
    """``count`` lengths in metres from the required child ``tag``, each in [0, 1e6]."""
    child = _required(element, tag)
    values = _numbers(child, count)
    if not all(0.0 <= v <= MAX_POSITION for v in values):
        what = 'a length' if count == 1 else f'{count} lengths'
        _fail(child, f'{shown(_text(child))} must be {what} in [0, {MAX_POSITION:.0f}] m')
    return values


def _bool(element: Element | None, default: bool) -> bool:
    if element is None:
        return default
    return _bool_text(element, _text(element), default)


def _bool_text(element: Element, text: str | None, default: bool, key: str = '') -> bool:
    if text is None:
        return default
    word = text.strip().lower()
    if word not in _TRUE + _FALSE:
        what = f'{key}={shown(text)}' if key else shown(text)
        _fail(element, f'{what} must be true, false, 1 or 0')
    return word in _TRUE


def _name(element: Element) -> str:
    name = (element.get('name') or '').strip()
    if not name:
        _fail(element, "missing required attribute 'name'")
    if FRAME_SEPARATOR in name or name in (WORLD_FRAME, _MODEL_FRAME):
        _fail(element, f'name {shown(name)} is reserved or contains {FRAME_SEPARATOR!r}')
    return name


def _pose(element: Element | None) -> tuple[NDArray[np.float64], str | None]:
    """(4, 4) transform of a ``<pose>`` and its ``relative_to`` (None: the default frame)."""
    if element is None:
        return np.eye(4), None
    if (element.get('frame') or '').strip():
        _fail(element, 'frame= is not supported (SDFormat 1.5); use relative_to (1.7+)')
    degrees = _bool_text(element, element.get('degrees'), False, 'degrees')
    rotation_format = element.get('rotation_format', 'euler_rpy')
    count = {'euler_rpy': 6, 'quat_xyzw': 7}.get(rotation_format)
    if count is None:
        problem = f'rotation_format={shown(rotation_format)} must be euler_rpy or quat_xyzw'
        _fail(element, problem)
    values = _numbers(element, count) if _text(element) else (0.0,) * 6
    if len(values) == 6:  # an empty pose is the identity in either format
        angles = np.radians(values[3:]) if degrees else np.array(values[3:])
        if not np.all(np.abs(angles) <= MAX_ANGLE):
            _fail(element, f'angles {values[3:]} must be within {MAX_ANGLE:.0f} rad')
        rotation = rpy_to_matrix(angles)
    else:
        x, y, z, w = values[3:]
        norm = math.sqrt(x * x + y * y + z * z + w * w)
        if not 1e-6 <= norm <= MAX_POSITION:
            _fail(element, f'quaternion {values[3:]} must have a norm in [1e-6, 1e6]')
        x, y, z, w = (v / norm for v in values[3:])
        rotation = np.array(
            [
                [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
            ]
        )
    if not all(abs(v) <= MAX_POSITION for v in values[:3]):
        _fail(element, f'position {values[:3]} must be within {MAX_POSITION:.0f} m')
    relative_to = (element.get('relative_to') or '').strip() or None
    return transform_from(rotation, values[:3]), relative_to


def _version(root: Element) -> None:
    if root.tag != 'sdf':
        _fail(root, f'expected <sdf>, got <{root.tag}>')
    version = (root.get('version') or '').strip()
    if version not in SDF_VERSIONS:
        _fail(
            root,
            f'version={shown(version)} is not supported (SDFormat {", ".join(SDF_VERSIONS)})',
        )


# --- frames -------------------------------------------------------------------------------


@dataclass
class _Frame:
    """A named frame of a scope: its pose ``local`` relative to frame ``relative_to``."""

    element: Element
    local: NDArray[np.float64]
    relative_to: str | None  # None: the scope's own frame (the model's, or the world)
    model: _Model | None = None  # a nested model: its own scope


@dataclass
class _Scope:
    """The frames of a model (or of the world), resolved to poses in the scope's frame."""

    own: str  # the scope's own frame: '__model__' or 'world'
    frames: dict[str, _Frame] = field(default_factory=dict)
    _poses: dict[str, NDArray[np.float64]] = field(default_factory=dict)

    def add(self, name: str, frame: _Frame) -> None:
        if name in self.frames:
            _fail(frame.element, f'two frames named {shown(name)} (models, links, joints, frames)')
        self.frames[name] = frame

    def pose(self, name: str, at: Element) -> NDArray[np.float64]:
        """(4, 4) pose of frame ``name`` (``a::b`` into nested models) in the scope's frame.

        The chain of ``relative_to`` is followed in a loop (a chain of any length is fine,
        a cycle is an error at the frame that closes it); only ``a::b`` steps into the
        nested model's scope, at most :data:`MAX_MODEL_DEPTH` deep.
        """
        steps: list[tuple[str, NDArray[np.float64]]] = []  # (name, pose in the next one)
        visiting: dict[str, int] = {}  # frame names of this chain -> index in order
        order: list[str] = []
        current, where = name, at
        while True:
            if current == self.own:
                base = np.eye(4)
                break
            if current in self._poses:
                base = self._poses[current]
                break
            head, sep, rest = current.partition(FRAME_SEPARATOR)
            if sep:
                nested = self.frames.get(head)
                if nested is None or nested.model is None:
                    problem = f'unknown frame {shown(current)}: no nested model named'
                    _fail(where, f'{problem} {shown(head)}')
                steps.append((current, nested.model.scope.pose(rest, where)))
                current = head
                continue
            frame = self.frames.get(current)
            if frame is None:
                known = ', '.join([self.own, *self.frames])
                _fail(where, f'unknown frame {shown(current)} (known: {one_line(known, 200)})')
            if current in visiting:
                cycle = ' -> '.join([*order[visiting[current] :], current])
                _fail(frame.element, f'poses form a cycle: {one_line(cycle, 200)}')
            visiting[current] = len(order)
            order.append(current)
            steps.append((current, frame.local))
            if frame.relative_to is None:
                base = np.eye(4)
                break
            current, where = frame.relative_to, frame.element
        for key, local in reversed(steps):
            base = base @ local
            self._poses[key] = base
        return base


@dataclass
class _Model:
    """A parsed ``<model>``: its frames, its links' shapes and its nested models."""

    name: str
    element: Element
    scope: _Scope
    links: list[Element]
    nested: list[_Model]


@dataclass
class _Reader:
    """What a load shares: options, the triangle budget, mesh and include caches."""

    options: ReadOptions
    model_path: tuple[Path, ...]
    package_resolver: PackageResolver | None
    triangles: int = 0
    models: int = 0
    included_elements: int = 0
    documents: dict[Path, tuple[Element, int]] = field(default_factory=dict)
    maps: dict[Path, tuple[NDArray[np.integer], int]] = field(default_factory=dict)

    def take(self, count: int, element: Element) -> None:
        """Count ``count`` more triangles; a SceneError past :data:`MAX_SDF_TRIANGLES`."""
        self.triangles += count
        if self.triangles > MAX_SDF_TRIANGLES:
            problem = f'the world has more than {MAX_SDF_TRIANGLES} triangles'
            _fail(element, f'{problem} (the limit MAX_SDF_TRIANGLES)')

    def model(self, element: Element, depth: int) -> None:
        """Count one more model (a ``<model>`` or ``<include>``) at nesting ``depth``.

        A SceneError past :data:`MAX_SDF_MODELS` models, or deeper than :data:`MAX_MODEL_DEPTH`.
        """
        if depth > MAX_MODEL_DEPTH:
            _fail(element, f'models nested deeper than {MAX_MODEL_DEPTH} (MAX_MODEL_DEPTH)')
        self.models += 1
        if self.models > MAX_SDF_MODELS:
            problem = f'the world has more than {MAX_SDF_MODELS} models, counting nested and'
            _fail(element, f'{problem} included ones (the limit MAX_SDF_MODELS)')

    def include(self, element: Element, count: int) -> None:
        """Count the ``count`` elements of one more included copy of a file."""
        self.included_elements += count
        if self.included_elements > MAX_INCLUDED_ELEMENTS:
            problem = f'the world includes more than {MAX_INCLUDED_ELEMENTS} elements, each'
            _fail(element, f'{problem} copy counted (the limit MAX_INCLUDED_ELEMENTS)')


# --- geometry -----------------------------------------------------------------------------


def _geometry(
    geometry: Element, reader: _Reader, base_dir: Path
) -> tuple[Triangles, ReflectivityMap | None] | None:  # None: <empty/>
    """Triangles of one ``<geometry>`` in its shape's frame, and its reflectivity map if any."""
    shapes = children(geometry)
    if len(shapes) != 1:
        _fail(geometry, f'needs exactly one shape ({", ".join(_GEOMETRY)}), got {len(shapes)}')
    shape = shapes[0]
    kind = shape.tag
    if kind == 'empty':
        return None
    if kind == 'mesh':
        return _mesh(shape, reader, base_dir)
    if kind == 'heightmap':
        return _heightmap(shape, reader, base_dir)
    _map_element(shape)  # only a mesh or a heightmap carries one
    return _primitive(shape, reader), None


def _primitive(shape: Element, reader: _Reader) -> Triangles:
    """Triangles of a ``<box>``, ``<sphere>``, ... in its shape's frame."""
    kind = shape.tag
    options = reader.options
    n, s = options.cylinder_segments, options.sphere_subdivisions
    if kind in _UNSUPPORTED_GEOMETRY:
        _fail(shape, f'<{kind}> geometry is not supported here')
    if kind == 'box':
        size = _lengths(shape, 'size', 3)
        reader.take(12, shape)
        return box_triangles(size)
    if kind == 'sphere':
        (radius,) = _lengths(shape, 'radius', 1)
        reader.take(20 * 4**s, shape)
        return sphere_triangles(radius, s)
    if kind == 'ellipsoid':
        radii = _lengths(shape, 'radii', 3)
        reader.take(20 * 4**s, shape)
        return ellipsoid_triangles(radii, s)
    if kind in ('cylinder', 'capsule'):
        (radius,) = _lengths(shape, 'radius', 1)
        (length,) = _lengths(shape, 'length', 1)
        if kind == 'cylinder':
            reader.take(4 * n, shape)
            return cylinder_triangles(radius, length, n)
        reader.take(4 * n * max(1, n // 4), shape)
        return capsule_triangles(radius, length, n)
    if kind == 'plane':
        size = _lengths(shape, 'size', 2)
        normal_element = _required(shape, 'normal')
        normal = np.array(_numbers(normal_element, 3))
        if not 1e-9 <= float(np.linalg.norm(normal)) <= MAX_POSITION:
            _fail(normal_element, f'{_text(normal_element)!r} must be a non-zero vector')
        reader.take(2, shape)
        return plane_triangles(size, normal)
    _fail(shape, f'unknown geometry <{kind}> (expected one of {", ".join(_GEOMETRY)})')


def _map_element(shape: Element) -> Element | None:
    """The ``<nps:reflectivity_map>`` of a shape, if any; one in another namespace is an error."""
    found = None
    for child in children(shape):
        if etree.QName(child).localname != 'reflectivity_map':
            continue
        if child.tag != MAP_TAG:
            problem = f'<reflectivity_map> must be in the namespace {NAMESPACE!r}: declare'
            _fail(
                child, f'{problem} xmlns:nps="{NAMESPACE}" on <sdf>, write <nps:reflectivity_map>'
            )
        if found is not None:
            _fail(child, f'more than one <nps:reflectivity_map> in {_label(shape)}')
        if shape.tag not in ('heightmap', 'mesh'):
            _fail(
                child,
                f'only a <heightmap> or a <mesh> carries a reflectivity map, not <{shape.tag}>',
            )
        found = child
    return found


def _map_pixels(
    element: Element, reader: _Reader, base_dir: Path
) -> tuple[NDArray[np.integer], int, Path]:
    """Codes and full scale of the PNG an ``<nps:reflectivity_map>`` names, and its path."""
    uri = _text(element)
    if not uri:
        _fail(element, 'empty reflectivity map URI')
    try:
        path = resolve_mesh_path(
            uri, base_dir, package_resolver=reader.package_resolver, model_path=reader.model_path
        )
        key = path.resolve()
    except (LookupError, ValueError, OSError) as err:
        _fail(element, str(err))
    if key not in reader.maps:
        source = _source(element)
        reader.maps[key] = read_map_pixels(
            path, file=source or '<string>', line=element.sourceline, element=_label(element)
        )
    codes, full = reader.maps[key]
    return codes, full, path


def _mesh(
    shape: Element, reader: _Reader, base_dir: Path
) -> tuple[Triangles, ReflectivityMap | None]:
    uri_element = _required(shape, 'uri')
    uri = _text(uri_element)
    if not uri:
        _fail(uri_element, 'empty mesh URI')
    if _child(shape, 'submesh') is not None:
        _fail(shape, '<submesh> is not supported: export the submesh as its own file')
    scale_element = _child(shape, 'scale')
    scale = (1.0, 1.0, 1.0) if scale_element is None else _numbers(scale_element, 3)
    if scale_element is not None and not all(0.0 < abs(v) <= MAX_POSITION for v in scale):
        problem = f'{_text(scale_element)!r} must be three non-zero numbers within 1e6'
        _fail(scale_element, problem)
    source = _source(shape)
    mesh = reader.options.meshes.load(
        uri, base_dir, file=source or None, line=uri_element.sourceline
    )
    reader.take(len(mesh), shape)
    map_element = _map_element(shape)
    if map_element is None:
        return mesh.scaled(scale), None
    codes, full, path = _map_pixels(map_element, reader, base_dir)
    if mesh.uvs is None:
        problem = f'mesh {shown(uri)} has no texture coordinates (OBJ vt, DAE TEXCOORD)'
        _fail(map_element, f'{problem} for its reflectivity map {path}')
    if not np.all(np.isfinite(mesh.uvs)):
        _fail(map_element, f'mesh {shown(uri)} has texture coordinates that are not finite')
    return mesh.scaled(scale), mesh_map(codes, full, str(path))


def _heightmap(
    shape: Element, reader: _Reader, base_dir: Path
) -> tuple[Triangles, ReflectivityMap | None]:
    """A ``<heightmap>``: ``<uri>`` (PNG, or ``.npy`` in metres), ``<size>``, ``<pos>``, a map."""
    uri_element = _required(shape, 'uri')
    try:
        path = resolve_mesh_path(
            _text(uri_element),
            base_dir,
            package_resolver=reader.package_resolver,
            model_path=reader.model_path,
        )
    except (LookupError, ValueError) as err:
        _fail(uri_element, str(err))
    size = _lengths(shape, 'size', 3)
    pos_element = _child(shape, 'pos')
    pos = (0.0, 0.0, 0.0) if pos_element is None else _numbers(pos_element, 3)
    if not all(abs(v) <= MAX_POSITION for v in pos):
        _fail(shape, f'<pos> {pos} must be within {MAX_POSITION:.0f} m')
    source = _source(shape)
    heights = read_heights(  # within the heightmap module's own file and sample limits
        path,
        size[2] if path.suffix.lower() == '.png' else None,
        file=source or None,
        line=shape.sourceline,
        element=_label(shape),
    )
    rows, cols = heights.shape
    reader.take(2 * (rows - 1) * (cols - 1), shape)
    map_element = _map_element(shape)
    reflectivity_map = None
    if map_element is not None:
        codes, full, map_path = _map_pixels(map_element, reader, base_dir)
        try:
            reflectivity_map = heightmap_map(codes, full, str(map_path), heights.shape)
        except ValueError as err:
            _fail(map_element, str(err))
    try:
        triangles = heightmap_triangles(heights, size[:2], pos, uvs=map_element is not None)
    except ValueError as err:
        _fail(shape, str(err))
    return triangles, reflectivity_map


# --- models and includes ------------------------------------------------------------------


def _source(element: Element) -> str | None:
    url: str | None = element.getroottree().docinfo.URL
    return url


def _base_dir(element: Element) -> Path:
    source = _source(element)
    return Path.cwd() if source is None else Path(source).parent


def _model_file(uri_element: Element, reader: _Reader) -> Path:
    """The SDF file an ``<include><uri>`` names: a model directory's, or a file."""
    uri = _text(uri_element)
    try:
        parts = urlsplit(uri)
    except ValueError as err:  # 'http://[': Invalid IPv6 URL
        _fail(uri_element, f'{shown(uri)} is not a valid URI: {err}')
    if parts.scheme == 'model':
        try:
            path = find_model(uri, reader.model_path)
        except (LookupError, ValueError) as err:
            _fail(uri_element, str(err))
    elif parts.scheme in ('', 'file'):
        relative = Path(unquote(parts.netloc + parts.path)) if parts.scheme else Path(uri)
        path = _base_dir(uri_element) / relative
    else:
        problem = f'unsupported URI scheme {shown(parts.scheme)} in {shown(uri)} (Fuel is'
        _fail(uri_element, f'{problem} not fetched: download the model and name it by model://')
    if '\0' in str(path):
        _fail(uri_element, f'{shown(uri)} holds a NUL character')
    # os.path: False, never OSError, for a name too long for the file system
    if not uri or not os.path.exists(path):
        _fail(uri_element, f'model {shown(uri)} not found: {path}')
    return _config_sdf(path, uri_element, reader) if os.path.isdir(path) else path


def _config_sdf(directory: Path, uri_element: Element, reader: _Reader) -> Path:
    """The SDF file a model directory's ``model.config`` names (the newest version read)."""
    config = directory / 'model.config'
    if not os.path.exists(config):
        if os.path.exists(directory / 'model.sdf'):
            return directory / 'model.sdf'
        _fail(uri_element, f'model directory {directory} has neither model.config nor model.sdf')
    root, _ = _document(config, reader, uri_element)
    files = children(root, 'sdf')
    if not files:
        _fail(root, 'names no <sdf> file')

    def rank(element: Element) -> tuple[int, ...]:
        version = (element.get('version') or '').strip()
        if version not in SDF_VERSIONS:
            return (-1,)
        return tuple(int(p) for p in version.split('.'))

    best = max(files, key=rank)
    if not _text(best):
        _fail(best, 'empty <sdf> file name')
    return directory / _text(best)


def _document(path: Path, reader: _Reader, at: Element) -> tuple[Element, int]:
    """Root of the XML file ``path`` (read once) and its number of elements.

    A file that cannot be read (missing, not a regular file, too large) is an error at
    ``at``, the element naming it; malformed XML at its own line in ``path``.
    """
    key = path.resolve()
    if key not in reader.documents:
        data = read_document(
            path,
            SceneError,
            file=_source(at) or '<string>',
            line=at.sourceline,
            element=_label(at),
            what=f'included file {path} ',
        )
        root = parse_document(data, str(path), SceneError)
        reader.documents[key] = (root, sum(1 for _ in root.iter()))
    return reader.documents[key]


def _included(
    include: Element, reader: _Reader, stack: tuple[Path, ...], depth: int
) -> tuple[_Model, Element]:
    """The model of an ``<include>``, renamed, and the element holding its pose."""
    uri_element = _required(include, 'uri')
    path = _model_file(uri_element, reader)
    try:
        path = path.resolve()
    except (OSError, ValueError) as err:
        _fail(uri_element, f'cannot resolve {one_line(str(path), _SHOWN)}: {err}')
    if path in stack:
        chain = ' -> '.join(str(p) for p in [*stack, path])
        _fail(include, f'include cycle: {chain}')
    if len(stack) >= MAX_INCLUDE_DEPTH:
        _fail(include, f'includes nested deeper than {MAX_INCLUDE_DEPTH} (MAX_INCLUDE_DEPTH)')
    root, elements = _document(path, reader, include)
    reader.include(include, elements)
    _version(root)
    models = children(root, 'model')
    if len(models) != 1:
        _fail(root, f'an included file must hold one <model>, got {len(models)}')
    _bool(_child(include, 'static'), False)  # checked, as a model's
    name_element = _child(include, 'name')
    name = _text(name_element) if name_element is not None else _name(models[0])
    if name_element is not None:
        _name_check(name_element, name)
    return _model(models[0], name, reader, (*stack, path), depth), models[0]


def _name_check(element: Element, name: str) -> None:
    if not name or FRAME_SEPARATOR in name or name in (WORLD_FRAME, _MODEL_FRAME):
        _fail(element, f'name {shown(name)} is empty, reserved or contains {FRAME_SEPARATOR!r}')


def _placed(
    model: _Model, pose_holder: Element, model_element: Element
) -> tuple[NDArray[np.float64], str | None]:
    """Pose of a model's frame in its parent scope, and what it is relative to.

    ``pose_holder`` has the ``<pose>`` (the ``<model>``, or the ``<include>`` that overrides
    it); ``placement_frame`` (attribute of a model, element of an include) says which of
    the model's frames that pose places.
    """
    pose_element = _child(pose_holder, 'pose')
    if pose_holder is not model_element and pose_element is None:
        pose_element = _child(model_element, 'pose')  # an include without <pose>: the model's
    local, relative_to = _pose(pose_element)
    placement = model_element.get('placement_frame')
    if pose_holder is not model_element:
        element = _child(pose_holder, 'placement_frame')
        placement = _text(element) if element is not None else placement
    if placement:
        at = pose_element if pose_element is not None else pose_holder
        local = local @ invert_transform(model.scope.pose(placement, at))
    return local, relative_to


def _model(
    element: Element, name: str, reader: _Reader, stack: tuple[Path, ...], depth: int
) -> _Model:
    """Parse a ``<model>`` at nesting ``depth``: its frames, nested models and includes.

    Nested ones recursively: each is counted, and its depth checked, before it is read.
    """
    _bool(_child(element, 'static'), False)  # checked; nothing moves here anyway
    scope = _Scope(_MODEL_FRAME)
    model = _Model(name, element, scope, [], [])
    for child in children(element):
        if child.tag == 'link':
            local, relative_to = _pose(_child(child, 'pose'))
            scope.add(_name(child), _Frame(child, local, relative_to))
            model.links.append(child)
        elif child.tag == 'frame':
            local, relative_to = _pose(_child(child, 'pose'))
            attached = (child.get('attached_to') or '').strip() or None
            scope.add(_name(child), _Frame(child, local, relative_to or attached))
        elif child.tag == 'joint':
            child_link = _child(child, 'child')
            if child_link is not None and _text(child_link):
                local, relative_to = _pose(_child(child, 'pose'))
                scope.add(_name(child), _Frame(child, local, relative_to or _text(child_link)))
        elif child.tag in ('model', 'include'):
            nested, model_element = _nested(child, reader, stack, depth + 1)
            local, relative_to = _placed(nested, child, model_element)
            scope.add(nested.name, _Frame(child, local, relative_to, nested))
            model.nested.append(nested)
    return model


def _nested(
    child: Element, reader: _Reader, stack: tuple[Path, ...], depth: int
) -> tuple[_Model, Element]:
    """A ``<model>`` or ``<include>`` at nesting ``depth`` (1: the world's), counted first."""
    reader.model(child, depth)
    if child.tag == 'include':
        return _included(child, reader, stack, depth)
    return _model(child, _name(child), reader, stack, depth), child


@dataclass
class _Surface:
    """The shapes of a model in its frame, each shape's surface values, and its link poses."""

    parts: list[Triangles] = field(default_factory=list)
    mus: list[NDArray[np.float64]] = field(default_factory=list)  # Lambert, per triangle
    retros: list[NDArray[np.float64]] = field(default_factory=list)  # laser_retro as read
    maps: list[ReflectivityMap | None] = field(default_factory=list)  # one per part
    links: dict[str, NDArray[np.float64]] = field(default_factory=dict)


def _surface(model: _Model, reader: _Reader) -> _Surface:
    """Shapes of a model and its nested models in its frame; link poses (``nested::link``)."""
    out = _Surface()
    scope, options = model.scope, reader.options
    for link in model.links:
        link_name = link.get('name', '').strip()
        link_pose = scope.pose(link_name, link)
        out.links[link_name] = link_pose
        for shape in children(link, options.geometry):
            local, relative_to = _pose(_child(shape, 'pose'))
            base = link_pose if relative_to is None else scope.pose(relative_to, shape)
            found = _geometry(_required(shape, 'geometry'), reader, _base_dir(shape))
            if found is None:
                continue
            mesh, reflectivity_map = found
            mesh = mesh.transformed(base @ local)
            if not np.all(np.abs(mesh.vertices) <= LARGEST_COORDINATE):  # also catches nan
                problem = f'shape reaches beyond {LARGEST_COORDINATE:g} m'
                _fail(shape, f'{problem} (Open3D works in float32)')
            retro_element = _child(shape, 'laser_retro')
            retro: float | None = None
            if retro_element is not None:
                (retro,) = _numbers(retro_element, 1)
                if retro < 0.0:
                    _fail(retro_element, f'{_text(retro_element)!r} must be >= 0')
            mu = lambert_coefficient(None, retro, options.default_lambert)
            out.parts.append(mesh)
            out.maps.append(reflectivity_map)
            out.mus.append(np.full(len(mesh), mu))
            out.retros.append(np.full(len(mesh), 0.0 if retro is None else retro))
    for nested in model.nested:
        name, pose = nested.name, scope.pose(nested.name, nested.element)
        inner = _surface(nested, reader)
        out.parts += [p.transformed(pose) for p in inner.parts]
        out.mus += inner.mus
        out.retros += inner.retros
        out.maps += inner.maps
        out.links.update({f'{name}{FRAME_SEPARATOR}{k}': pose @ v for k, v in inner.links.items()})
    return out


def _entity(model: _Model, reader: _Reader, source: str | None) -> Entity:
    found = _surface(model, reader)
    surface = Triangles.concatenate(found.parts)
    mu = np.concatenate(found.mus) if found.mus else np.zeros(0)
    retro = np.concatenate(found.retros) if found.retros else np.zeros(0)
    maps = SurfaceMaps.of([(len(p), m) for p, m in zip(found.parts, found.maps, strict=True)])
    seabed = _seabed(model.element, source)
    return Entity(model.name, surface, mu, found.links, source, retro, maps, seabed)


#: The seabed element's qualified tag.
SEABED_TAG = f'{{{NAMESPACE}}}seabed'


def _seabed(model: Element, source: str | None) -> Seabed | None:
    """The ``<nps:seabed>`` of a top-level model (``scene.seabed_element``), if any."""
    found = [c for c in children(model) if etree.QName(c).localname == 'seabed']
    for child in found:
        if child.tag != SEABED_TAG:
            problem = f'<seabed> must be in the namespace {NAMESPACE!r}: declare'
            _fail(child, f'{problem} xmlns:nps="{NAMESPACE}" on <sdf>, write <nps:seabed>')
    if len(found) > 1:
        _fail(found[1], f'more than one <nps:seabed> in {_label(model)}')
    return read_seabed(found[0], source) if found else None


def parse_sdf_world(
    text: str | bytes,
    *,
    source: str | None = None,
    geometry: Geometry = 'collision',
    cylinder_segments: int = DEFAULT_CYLINDER_SEGMENTS,
    sphere_subdivisions: int = DEFAULT_SPHERE_SUBDIVISIONS,
    default_lambert: float = DEFAULT_LAMBERT,
    package_resolver: PackageResolver | None = None,
    model_path: Sequence[str | os.PathLike[str]] | None = None,
) -> World:
    """Parse an SDF world into a :class:`World` of one static entity per top-level model.

    Args:
        text: the XML of an ``<sdf>`` holding one ``<world>``.
        source: its file name: errors name it, and relative mesh and include URIs are
            relative to its directory (else to the working directory).
        geometry: ``collision`` (default) or ``visual`` shapes.
        cylinder_segments: segments of tessellated cylinders and capsules.
        sphere_subdivisions: icosphere subdivisions of spheres and ellipsoids.
        default_lambert: Lambert coefficient of shapes without ``<laser_retro>``.
        package_resolver: optional lookup of ``package://`` share directories.
        model_path: directories holding ``model://`` models; default the environment's
            (``meshes.model_search_path``).

    Raises:
        SceneError: anything wrong in the world, an included model or a mesh (one line).

    """
    options = read_options(
        geometry, cylinder_segments, sphere_subdivisions, default_lambert, package_resolver
    )
    search = model_search_path() if model_path is None else tuple(Path(p) for p in model_path)
    options = replace(options, meshes=MeshLoader(package_resolver, model_path=search))
    reader = _Reader(options, search, package_resolver)
    root = parse_document(text, source, SceneError)
    _version(root)
    worlds = children(root, 'world')
    if len(worlds) != 1:
        _fail(root, f'expected one <world> in <sdf>, got {len(worlds)}')
    world = worlds[0]
    world_name = (world.get('name') or '').strip()
    if not world_name:
        _fail(world, "missing required attribute 'name'")
    scope = _Scope(WORLD_FRAME)
    models: list[tuple[_Model, Element]] = []
    for child in children(world):
        if child.tag in ('model', 'include'):
            model, model_element = _nested(child, reader, (), 1)
            local, relative_to = _placed(model, child, model_element)
            scope.add(model.name, _Frame(child, local, relative_to, model))
            models.append((model, child))
        elif child.tag == 'frame':
            local, relative_to = _pose(_child(child, 'pose'))
            attached = (child.get('attached_to') or '').strip() or None
            scope.add(_name(child), _Frame(child, local, relative_to or attached))
        elif child.tag == 'population':
            _fail(child, '<population> is not supported: write its models out')
    entities = [_entity(m, reader, _source(m.element)) for m, _ in models]
    states = tuple(
        EntityState(m.name, WORLD_FRAME, scope.pose(m.name, el), line=el.sourceline)
        for m, el in models
    )
    scene_state = SceneState(world_name, 0.0, states, source, world.sourceline)
    return World(world_name, tuple(entities), scene_state, source)
