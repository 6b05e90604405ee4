"""Scene files: models (URDF robots or objects) placed by a ``<scene_state>``, as triangles.

The format is described in ``docs/scene.md``; in short::

    <world name="reference_tank">
      <model name="tank" file="models/tank.urdf"/>            <!-- relative to this file -->
      <model name="target" geometry="visual" retro="255">     <!-- or an inline <robot> -->
        <robot name="target"> ... </robot>
      </model>
      <scene_state scene="reference_tank" time_stamp="0"> ... </scene_state>
    </world>

Each model becomes one :class:`Entity`: the triangles of all its links at zero joint
positions, in the frame of its root link, with a Lambert coefficient per triangle. A model
that no ``<entity_state>`` places stands still at the world origin. A model may instead hold
a ``<heightmap>``, a seabed grid (:mod:`nps_sonar_py.scene.heightmap`).

Gazebo SDF worlds (``.sdf``, or a ``.world`` whose root is ``<sdf>``) are read by
:mod:`nps_sonar_py.scene.sdf`, which :func:`load_world` dispatches to.

Reflectivity of a shape, first that is given: the shape's ``reflectivity``, its link's
``reflectivity``, ``lambert_from_retro`` of the shape's or else the link's ``laser_retro``,
the ``<model reflectivity>``, ``lambert_from_retro`` of ``<model retro>``, and finally
``default_lambert`` (``DEFAULT_LAMBERT``, -30 dB, unless the loader is told otherwise).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Literal, TypeGuard

import numpy as np
from lxml import etree
from numpy.typing import NDArray

from nps_sonar_py.description import (
    Box,
    Cylinder,
    Mesh,
    Robot,
    Shape,
    Sphere,
    load_robot,
    parse_robot,
)
from nps_sonar_py.echo.reflectivity import DEFAULT_LAMBERT, lambert_from_retro
from nps_sonar_py.errors import SceneError
from nps_sonar_py.scene.heightmap import parse_heightmap
from nps_sonar_py.scene.meshes import MeshLoader, PackageResolver
from nps_sonar_py.scene.scene_state import (
    FRAME_SEPARATOR,
    MISSING_ATTRIBUTE,
    WORLD_FRAME,
    EntityState,
    SceneState,
    check_children,
    parse_scene_state,
    split_frame,
)
from nps_sonar_py.scene.tessellation import (
    DEFAULT_CYLINDER_SEGMENTS,
    DEFAULT_SPHERE_SUBDIVISIONS,
    Triangles,
    box_triangles,
    cylinder_triangles,
    sphere_triangles,
)
from nps_sonar_py.xml_input import (
    Element,
    NumberError,
    children,
    file_problem,
    label,
    parse_document,
    parse_number,
    raise_at,
    read_document,
    required_attribute,
)

__all__ = [
    'GEOMETRY_KINDS',
    'Entity',
    'World',
    'entity_from_robot',
    'load_world',
    'parse_world',
]

#: Which of a link's shapes make its surface: ``collision`` (the default, as Gazebo's CPU
#: rays) or ``visual``.
GEOMETRY_KINDS = ('collision', 'visual')

Geometry = Literal['collision', 'visual']


def _is_geometry(kind: str) -> TypeGuard[Geometry]:
    return kind in GEOMETRY_KINDS


#: Largest coordinate, in metres, that a triangle may have: float32's range, with room to spare.
_LARGEST = 1e30


@dataclass(frozen=True, eq=False)  # arrays: compare fields with numpy
class Entity:
    """A model's surface in the frame of its root link.

    Attributes:
        name: the model's name in the world; unique, not ``world``, without ``::``.
        surface: triangles of all its links at zero joint positions, in metres, entity frame.
        reflectivity: (k,) Lambert coefficient of each triangle, in [0, 1]; a scalar given
            to the constructor applies to all.
        links: (4, 4) transform link -> entity frame of each link, for
            ``<parent frame="m::link">``.
        source: the file the model was read from, if any.

    """

    name: str
    surface: Triangles
    reflectivity: NDArray[np.float64] = field(default_factory=lambda: np.array(DEFAULT_LAMBERT))
    links: Mapping[str, NDArray[np.float64]] = field(default_factory=dict)
    source: str | None = None

    def __post_init__(self) -> None:
        mu = np.broadcast_to(
            np.asarray(self.reflectivity, dtype=np.float64), (len(self.surface),)
        ).copy()
        if not np.all((mu >= 0.0) & (mu <= 1.0)):
            msg = f'entity {self.name!r}: reflectivity must be in [0, 1]'
            raise ValueError(msg)
        mu.flags.writeable = False
        object.__setattr__(self, 'reflectivity', mu)
        object.__setattr__(self, 'links', MappingProxyType(dict(self.links)))


@dataclass(frozen=True, eq=False)  # arrays: compare fields with numpy
class World:
    """Entities and the scene state that places them; the parent frames are resolved here.

    Attributes:
        name: the world's name (the ``<scene_state scene>`` must match it).
        entities: the entities, in the order of the file; an entity's index is its id.
        scene_state: the states; an entity it does not name stands still at the origin.
        source: the scene file, if any, for error messages.
        states: (derived) the state of each entity, in entity order.
        parents: (derived) index of each entity's parent entity, -1 for the world.
        attachments: (derived) (k, 4, 4) transform parent frame -> parent entity's frame
            (a link's pose in its entity; identity for ``world`` and a root).
        order: (derived) entity indices with every parent before its children.

    Raises:
        SceneError: a state for an unknown model, an unknown parent frame, a cycle of
            parents, or a scene name that is not the world's.

    """

    name: str
    entities: tuple[Entity, ...]
    scene_state: SceneState
    source: str | None = None
    states: tuple[EntityState, ...] = field(init=False, repr=False)
    parents: NDArray[np.int64] = field(init=False, repr=False)
    attachments: NDArray[np.float64] = field(init=False, repr=False)
    order: tuple[int, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, 'entities', tuple(self.entities))
        names = [e.name for e in self.entities]
        index = {name: i for i, name in enumerate(names)}
        for i, entity in enumerate(self.entities):
            if entity.name == WORLD_FRAME or FRAME_SEPARATOR in entity.name or not entity.name:
                problem = f'model name {entity.name!r} is reserved or contains {FRAME_SEPARATOR!r}'
                raise SceneError(
                    problem, file=self.source, element=f'<model name="{entity.name}">'
                )
            if index[entity.name] != i:
                raise SceneError(
                    f'two models named {entity.name!r}', file=self.source, element='<world>'
                )
        state_file = self.scene_state.source or self.source
        if self.scene_state.scene != self.name:
            problem = (
                f'scene={self.scene_state.scene!r} is not the name of this world, {self.name!r}'
            )
            raise SceneError(
                problem, file=state_file, line=self.scene_state.line, element='<scene_state>'
            )
        for state in self.scene_state.entities:
            if state.model not in index:
                problem = f'no model named {state.model!r} (models: {", ".join(names) or "none"})'
                raise SceneError(
                    problem, file=state_file, line=state.line, element=_state_label(state)
                )
        states = tuple(self.scene_state.entity(n) or EntityState(n) for n in names)
        parents = np.full(len(names), -1, dtype=np.int64)
        attachments = np.tile(np.eye(4), (len(names), 1, 1))
        for i, state in enumerate(states):
            model, link = split_frame(state.frame)
            if model is None:
                continue
            where = _state_label(state)
            if model not in index:
                problem = f'unknown parent frame {state.frame!r}: no model named {model!r}'
                raise SceneError(problem, file=state_file, line=state.line, element=where)
            parent = self.entities[index[model]]
            if link is not None:
                if link not in parent.links:
                    known = ', '.join(parent.links) or 'none'
                    problem = f'unknown parent frame {state.frame!r}: model {model!r}'
                    problem += f' has no link {link!r} ({known})'
                    raise SceneError(problem, file=state_file, line=state.line, element=where)
                attachments[i] = parent.links[link]
            parents[i] = index[model]
        order = _parents_first(parents, names, states, state_file)
        parents.flags.writeable = False
        attachments.flags.writeable = False
        object.__setattr__(self, 'states', states)
        object.__setattr__(self, 'parents', parents)
        object.__setattr__(self, 'attachments', attachments)
        object.__setattr__(self, 'order', order)

    @property
    def time_stamp(self) -> float:
        """Time in seconds at which the scene state holds."""
        return self.scene_state.time_stamp

    @property
    def entity_names(self) -> tuple[str, ...]:
        """Names of the entities; index ``i`` is the id a raycast reports."""
        return tuple(e.name for e in self.entities)

    @property
    def triangle_count(self) -> int:
        """Number of triangles of all entities."""
        return sum(len(e.surface) for e in self.entities)

    def index(self, name: str) -> int:
        """Index of the entity ``name``; KeyError if there is none."""
        for i, entity in enumerate(self.entities):
            if entity.name == name:
                return i
        msg = f'no entity named {name!r} in world {self.name!r}'
        raise KeyError(msg)

    def moving(self) -> NDArray[np.bool_]:
        """(k,) whether each entity's world pose changes with time (its twist or an ancestor's)."""
        moves = np.zeros(len(self.entities), dtype=bool)
        for i in self.order:
            moves[i] = self.states[i].moves or (self.parents[i] >= 0 and moves[self.parents[i]])
        return moves

    def poses(
        self,
        time: float | None = None,
        *,
        overrides: Mapping[int, NDArray[np.float64]] | None = None,
        states: Mapping[int, tuple[EntityState, float]] | None = None,
    ) -> NDArray[np.float64]:
        """(k, 4, 4) transforms entity -> world at ``time`` seconds (default: the time stamp).

        ``overrides`` maps entity indices to a fixed entity -> world transform that replaces
        the one from its state; its children follow it. ``states`` maps entity indices to a
        newer state (same parent frame) and the scene time at which it holds.
        """
        t = self.time_stamp if time is None else float(time)
        overrides = overrides or {}
        states = states or {}
        poses = np.zeros((len(self.entities), 4, 4))
        for i in self.order:  # one small matrix product per entity, not per triangle
            if i in overrides:
                poses[i] = overrides[i]
                continue
            state, since = states.get(i, (self.states[i], self.time_stamp))
            local = state.pose(t - since)
            parent = self.parents[i]
            poses[i] = local if parent < 0 else poses[parent] @ self.attachments[i] @ local
        return poses


def _state_label(state: EntityState) -> str:
    return f'<entity_state model="{state.model}">'


def _parents_first(
    parents: NDArray[np.int64],
    names: Sequence[str],
    states: Sequence[EntityState],
    file: str | None,
) -> tuple[int, ...]:
    """Entity indices ordered parents first; a cycle of parents is a SceneError."""
    order: list[int] = []
    done = np.zeros(len(names), dtype=bool)
    for start in range(len(names)):
        chain: list[int] = []
        i = start
        while i >= 0 and not done[i]:
            if i in chain:
                cycle = ' -> '.join(names[j] for j in [*chain[chain.index(i) :], i])
                problem = f'parent frames form a cycle: {cycle}'
                raise SceneError(
                    problem, file=file, line=states[i].line, element=_state_label(states[i])
                )
            chain.append(i)
            i = int(parents[i])
        for j in reversed(chain):
            done[j] = True
            order.append(j)
    return tuple(order)


@dataclass(frozen=True)
class _Options:
    geometry: Geometry
    cylinder_segments: int
    sphere_subdivisions: int
    default_lambert: float
    meshes: MeshLoader


def _options(
    geometry: str,
    cylinder_segments: int,
    sphere_subdivisions: int,
    default_lambert: float,
    package_resolver: PackageResolver | None,
) -> _Options:
    if not _is_geometry(geometry):
        msg = f'geometry must be one of {GEOMETRY_KINDS}, got {geometry!r}'
        raise ValueError(msg)
    if not 0.0 <= default_lambert <= 1.0:
        msg = f'default_lambert must be in [0, 1], got {default_lambert!r}'
        raise ValueError(msg)
    if int(cylinder_segments) < 3 or not 0 <= int(sphere_subdivisions) <= 7:
        msg = 'need cylinder_segments >= 3 and sphere_subdivisions in 0..7'
        msg += f', got {cylinder_segments} and {sphere_subdivisions}'
        raise ValueError(msg)
    return _Options(
        geometry,
        int(cylinder_segments),
        int(sphere_subdivisions),
        float(default_lambert),
        MeshLoader(package_resolver),
    )


def _shape_triangles(
    shape: Shape, base_dir: str | os.PathLike[str] | None, options: _Options
) -> Triangles:
    """Triangles of one URDF shape, in its link's frame."""
    g = shape.geometry
    kind = type(g).__name__.lower()
    try:
        if isinstance(g, Box):
            mesh = box_triangles(g.size)
        elif isinstance(g, Cylinder):
            mesh = cylinder_triangles(g.radius, g.length, options.cylinder_segments)
        elif isinstance(g, Sphere):
            mesh = sphere_triangles(g.radius, options.sphere_subdivisions)
        elif isinstance(g, Mesh):
            scale = np.asarray(g.scale, dtype=np.float64).reshape(3)
            if not np.all(np.isfinite(scale) & (scale != 0.0)):
                msg = f'mesh scale must be three finite non-zero numbers, got {scale.tolist()}'
                raise ValueError(msg)
            mesh = options.meshes.load(
                g.filename, base_dir, file=shape.source, line=shape.line
            ).scaled(scale)
        else:
            msg = f'unsupported geometry {type(g).__name__}'
            raise ValueError(msg)
    except ValueError as err:
        raise SceneError(
            str(err), file=shape.source, line=shape.line, element=f'<{kind}>'
        ) from None
    return mesh.transformed(shape.origin)


def _first(*values: float | None) -> float | None:
    return next((v for v in values if v is not None), None)


def entity_from_robot(
    name: str,
    robot: Robot,
    *,
    geometry: Geometry = 'collision',
    cylinder_segments: int = DEFAULT_CYLINDER_SEGMENTS,
    sphere_subdivisions: int = DEFAULT_SPHERE_SUBDIVISIONS,
    default_lambert: float = DEFAULT_LAMBERT,
    reflectivity: float | None = None,
    retro: float | None = None,
    package_resolver: PackageResolver | None = None,
) -> Entity:
    """Make the :class:`Entity` of a parsed robot: its links' shapes as triangles, root frame.

    ``reflectivity`` and ``retro`` are the model-level fallbacks (see the module docstring).
    """
    options = _options(
        geometry, cylinder_segments, sphere_subdivisions, default_lambert, package_resolver
    )
    return _entity(name, robot, options, reflectivity, retro)


def _entity(
    name: str, robot: Robot, options: _Options, reflectivity: float | None, retro: float | None
) -> Entity:
    model_mu = _first(reflectivity, None if retro is None else float(lambert_from_retro(retro)))
    parts: list[Triangles] = []
    mus: list[NDArray[np.float64]] = []
    links: dict[str, NDArray[np.float64]] = {}
    # One pass per link and shape, each vectorised; each joint's transform is computed once.
    for link_name, link_to_root in robot.link_transforms():
        link = robot.links[link_name]
        links[link_name] = link_to_root
        shapes = link.collisions if options.geometry == 'collision' else link.visuals
        for shape in shapes:
            mesh = _shape_triangles(shape, robot.base_dir, options).transformed(link_to_root)
            if not np.all(np.abs(mesh.vertices) <= _LARGEST):  # also catches nan
                problem = f'shape reaches beyond {_LARGEST:g} m (Open3D works in float32)'
                raise SceneError(
                    problem,
                    file=shape.source,
                    line=shape.line,
                    element=f'<link name="{link_name}">',
                )
            link_retro = _first(shape.retro, link.retro)
            mu = _first(
                shape.reflectivity,
                link.reflectivity,
                None if link_retro is None else float(lambert_from_retro(link_retro)),
                model_mu,
                options.default_lambert,
            )
            parts.append(mesh)
            mus.append(np.full(len(mesh), mu))
    surface = Triangles.concatenate(parts)
    mu_all = np.concatenate(mus) if mus else np.zeros(0)
    return Entity(name, surface, mu_all, links, robot.source)


def _model_number(
    element: Element, key: str, file: str | None, low: float, high: float
) -> float | None:
    text = element.get(key)
    if text is None:
        return None
    try:
        value = parse_number(text)
    except NumberError:
        value = math.nan
    if not low <= value <= high:  # also false for nan
        raise_at(
            SceneError, element, f'{key}={text!r} must be a number in [{low}, {high}]', file=file
        )
    return value


def _model(element: Element, file: str | None, base_dir: Path, options: _Options) -> Entity:
    check_children(
        element,
        file=file,
        attributes=('name', 'file', 'geometry', 'reflectivity', 'retro'),
        elements=('robot', 'heightmap'),
    )
    name = required_attribute(
        element, 'name', SceneError, strip=True, problem=MISSING_ATTRIBUTE, file=file
    )
    geometry: str = element.get('geometry', options.geometry)
    if not _is_geometry(geometry):
        raise_at(
            SceneError,
            element,
            f'geometry={geometry!r} must be one of {GEOMETRY_KINDS}',
            file=file,
        )
    reflectivity = _model_number(element, 'reflectivity', file, 0.0, 1.0)
    retro = _model_number(element, 'retro', file, 0.0, math.inf)
    inline = children(element)
    model_file = element.get('file')
    if (model_file is None) == (not inline) or len(inline) > 1:
        problem = 'needs either a file attribute or one inline <robot> or <heightmap>,'
        raise_at(SceneError, element, f'{problem} not several or none', file=file)
    if inline and inline[0].tag == 'heightmap':  # a seabed: the same for collision and visual
        surface, path = parse_heightmap(inline[0], file=file, base_dir=base_dir)
        retro_mu = None if retro is None else float(lambert_from_retro(retro))
        mu = _first(reflectivity, retro_mu)
        mu = options.default_lambert if mu is None else mu
        return Entity(name, surface, np.asarray(mu), source=str(path))
    if model_file is not None:
        path = base_dir / model_file
        if not os.path.lexists(path):
            raise_at(SceneError, element, f'model file not found: {path}', file=file)
        unreadable = file_problem(path)  # a FIFO, a device, a directory, too large
        if unreadable is not None:
            raise_at(SceneError, element, f'model file {path} {unreadable}', file=file)
        robot = load_robot(path)
    else:
        # Leading newlines keep the robot's line numbers those of the scene file.
        text = '\n' * (inline[0].sourceline - 1) + etree.tostring(inline[0], encoding='unicode')
        robot = parse_robot(text, source=file or '<world>', base_dir=str(base_dir))
    model_options = (
        options
        if geometry == options.geometry
        else _Options(
            geometry,
            options.cylinder_segments,
            options.sphere_subdivisions,
            options.default_lambert,
            options.meshes,
        )
    )
    return _entity(name, robot, model_options, reflectivity, retro)


def parse_world(
    text: str | bytes,
    *,
    source: str | None = None,
    base_dir: str | os.PathLike[str] | None = None,
    geometry: Geometry = 'collision',
    cylinder_segments: int = DEFAULT_CYLINDER_SEGMENTS,
    sphere_subdivisions: int = DEFAULT_SPHERE_SUBDIVISIONS,
    default_lambert: float = DEFAULT_LAMBERT,
    package_resolver: PackageResolver | None = None,
) -> World:
    """Parse the text of a scene file into a :class:`World`.

    Args:
        text: the XML of a ``<world>``.
        source: its file name, for error messages.
        base_dir: directory that model files and relative mesh paths of inline robots are
            relative to; default the directory of ``source``, else the working directory.
        geometry: ``collision`` (default) or ``visual`` shapes, unless a ``<model geometry>``
            says otherwise.
        cylinder_segments: segments of a tessellated cylinder (faceting error R (1 - cos(pi/n))).
        sphere_subdivisions: icosphere subdivisions of a tessellated sphere.
        default_lambert: Lambert coefficient of surfaces that give no reflectivity.
        package_resolver: optional lookup of ``package://`` share directories.

    Raises:
        SceneError: anything wrong in the scene file or its meshes (one line, with where).
        DescriptionError: a model's URDF that cannot be used.

    """
    options = _options(
        geometry, cylinder_segments, sphere_subdivisions, default_lambert, package_resolver
    )
    if base_dir is None:
        base_dir = Path(source).parent if source is not None else Path.cwd()
    root = parse_document(text, source, SceneError)
    if root.tag != 'world':
        raise_at(SceneError, root, f'expected <world>, got <{root.tag}>', file=source)
    check_children(root, file=source, attributes=('name',), elements=('model', 'scene_state'))
    name = required_attribute(
        root, 'name', SceneError, strip=True, problem=MISSING_ATTRIBUTE, file=source
    )
    states = root.findall('scene_state')
    if len(states) > 1:
        raise_at(
            SceneError, states[1], 'more than one <scene_state>', element=label(root), file=source
        )
    scene_state = parse_scene_state(states[0], source=source) if states else SceneState(name, 0.0)
    models = root.findall('model')
    seen: set[str] = set()
    for element in models:  # names first, so that a duplicate fails before any mesh is read
        model = required_attribute(
            element, 'name', SceneError, strip=True, problem=MISSING_ATTRIBUTE, file=source
        )
        if model in seen:
            raise_at(SceneError, element, f'two models named {model!r}', file=source)
        if model == WORLD_FRAME or FRAME_SEPARATOR in model:
            problem = f'model name {model!r} is reserved or contains {FRAME_SEPARATOR!r}'
            raise_at(SceneError, element, problem, file=source)
        seen.add(model)
    entities = tuple(_model(m, source, Path(base_dir), options) for m in models)
    return World(name, entities, scene_state, source)


def load_world(
    path: str | os.PathLike[str],
    *,
    geometry: Geometry = 'collision',
    cylinder_segments: int = DEFAULT_CYLINDER_SEGMENTS,
    sphere_subdivisions: int = DEFAULT_SPHERE_SUBDIVISIONS,
    default_lambert: float = DEFAULT_LAMBERT,
    package_resolver: PackageResolver | None = None,
) -> World:
    """Read a scene file or a Gazebo SDF world into a :class:`World`.

    A file ending in ``.sdf``, or whose root element is ``<sdf>`` (a Gazebo ``.world``),
    goes to :func:`~nps_sonar_py.scene.sdf.parse_sdf_world`; any other is a scene file (see
    :func:`parse_world` for the options).
    """
    from nps_sonar_py.scene import sdf  # here: sdf imports this module

    data = read_document(path, SceneError)
    if Path(path).suffix.lower() == '.sdf' or sdf.is_sdf(data):
        return sdf.parse_sdf_world(
            data,
            source=str(path),
            geometry=geometry,
            cylinder_segments=cylinder_segments,
            sphere_subdivisions=sphere_subdivisions,
            default_lambert=default_lambert,
            package_resolver=package_resolver,
        )
    return parse_world(
        data,
        source=str(path),
        base_dir=Path(path).parent,
        geometry=geometry,
        cylinder_segments=cylinder_segments,
        sphere_subdivisions=sphere_subdivisions,
        default_lambert=default_lambert,
        package_resolver=package_resolver,
    )
