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
a ``<heightmap>``, a seabed grid (:mod:`nps_sonar_py.scene.heightmap`), with an optional
``reflectivity_map`` (:mod:`nps_sonar_py.scene.reflectivity_map`).

Gazebo SDF worlds (``.sdf``, or a ``.world`` whose root is ``<sdf>``) are read by
:mod:`nps_sonar_py.scene.sdf`; :func:`nps_sonar_py.scene.load_world` picks the reader.

Reflectivity of a shape (the echo model's Lambert coefficient), first that is given: the
shape's ``reflectivity``, its link's ``reflectivity``, that of the shape's or else the link's
``laser_retro``, the ``<model reflectivity>``, that of ``<model retro>``, and finally
``default_lambert`` (``DEFAULT_LAMBERT``, -30 dB, unless the loader is told otherwise); each
retro is turned into a coefficient by ``echo.reflectivity.lambert_coefficient``. The retro
itself is kept as read, for the ray sensors' intensity: the shape's, else the link's, else
``<model retro>``, else 0.
"""

from __future__ import annotations

import math
import os
from dataclasses import replace
from pathlib import Path

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
from nps_sonar_py.echo.reflectivity import DEFAULT_LAMBERT, lambert_coefficient
from nps_sonar_py.echo.seabed import Seabed
from nps_sonar_py.errors import SceneError
from nps_sonar_py.scene.heightmap import parse_heightmap
from nps_sonar_py.scene.meshes import PackageResolver
from nps_sonar_py.scene.options import (
    GEOMETRY_KINDS,
    LARGEST_COORDINATE,
    Geometry,
    ReadOptions,
    is_geometry,
    read_options,
)
from nps_sonar_py.scene.reflectivity_map import SurfaceMaps
from nps_sonar_py.scene.scene_state import (
    FRAME_SEPARATOR,
    MISSING_ATTRIBUTE,
    WORLD_FRAME,
    SceneState,
    check_children,
    parse_scene_state,
)
from nps_sonar_py.scene.seabed_element import read_seabed, seabed_of_name
from nps_sonar_py.scene.tessellation import (
    DEFAULT_CYLINDER_SEGMENTS,
    DEFAULT_SPHERE_SUBDIVISIONS,
    Triangles,
    box_triangles,
    cylinder_triangles,
    sphere_triangles,
)
from nps_sonar_py.scene.world import Entity, World
from nps_sonar_py.xml_input import (
    Element,
    NumberError,
    children,
    label,
    parse_document,
    parse_number,
    raise_at,
    required_attribute,
    xml_file_problem,
)

__all__ = ['entity_from_robot', 'parse_world']


def _shape_triangles(
    shape: Shape, base_dir: str | os.PathLike[str] | None, options: ReadOptions
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
    options = read_options(
        geometry, cylinder_segments, sphere_subdivisions, default_lambert, package_resolver
    )
    return _entity(name, robot, options, reflectivity, retro)


def _entity(
    name: str, robot: Robot, options: ReadOptions, reflectivity: float | None, retro: float | None
) -> Entity:
    model_mu = lambert_coefficient(reflectivity, retro, options.default_lambert)
    parts: list[Triangles] = []
    mus: list[NDArray[np.float64]] = []
    retros: list[NDArray[np.float64]] = []
    links: dict[str, NDArray[np.float64]] = {}
    # One pass per link and shape, each vectorised; each joint's transform is computed once.
    for link_name, link_to_root in robot.link_transforms():
        link = robot.links[link_name]
        links[link_name] = link_to_root
        shapes = link.collisions if options.geometry == 'collision' else link.visuals
        for shape in shapes:
            mesh = _shape_triangles(shape, robot.base_dir, options).transformed(link_to_root)
            if not np.all(np.abs(mesh.vertices) <= LARGEST_COORDINATE):  # also catches nan
                problem = f'shape reaches beyond {LARGEST_COORDINATE:g} m'
                problem += ' (Open3D works in float32)'
                raise SceneError(
                    problem,
                    file=shape.source,
                    line=shape.line,
                    element=f'<link name="{link_name}">',
                )
            link_retro = _first(shape.retro, link.retro)
            own = _first(shape.reflectivity, link.reflectivity)
            parts.append(mesh)
            mus.append(np.full(len(mesh), lambert_coefficient(own, link_retro, model_mu)))
            retros.append(np.full(len(mesh), _first(link_retro, retro, 0.0)))
    surface = Triangles.concatenate(parts)
    mu_all = np.concatenate(mus) if mus else np.zeros(0)
    retro_all = np.concatenate(retros) if retros else np.zeros(0)
    return Entity(name, surface, mu_all, links, robot.source, retro_all)


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


def _model(element: Element, file: str | None, base_dir: Path, options: ReadOptions) -> Entity:
    check_children(
        element,
        file=file,
        attributes=('name', 'file', 'geometry', 'reflectivity', 'retro', 'sediment'),
        elements=('robot', 'heightmap', 'seabed'),
    )
    name = required_attribute(
        element, 'name', SceneError, strip=True, problem=MISSING_ATTRIBUTE, file=file
    )
    geometry: str = element.get('geometry', options.geometry)
    if not is_geometry(geometry):
        raise_at(
            SceneError,
            element,
            f'geometry={geometry!r} must be one of {GEOMETRY_KINDS}',
            file=file,
        )
    reflectivity = _model_number(element, 'reflectivity', file, 0.0, 1.0)
    retro = _model_number(element, 'retro', file, 0.0, math.inf)
    seabed = _seabed(element, file)
    inline = [child for child in children(element) if child.tag != 'seabed']
    model_file = element.get('file')
    if (model_file is None) == (not inline) or len(inline) > 1:
        problem = 'needs either a file attribute or one inline <robot> or <heightmap>,'
        raise_at(SceneError, element, f'{problem} not several or none', file=file)
    if inline and inline[0].tag == 'heightmap':  # a seabed: the same for collision and visual
        surface, path, reflectivity_map = parse_heightmap(inline[0], file=file, base_dir=base_dir)
        mu = lambert_coefficient(reflectivity, retro, options.default_lambert)
        as_read = 0.0 if retro is None else retro
        maps = SurfaceMaps.of([(len(surface), reflectivity_map)])
        return Entity(
            name,
            surface,
            np.asarray(mu),
            source=str(path),
            retro=np.asarray(as_read),
            maps=maps,
            seabed=seabed,
        )
    if model_file is not None:
        path = base_dir / model_file
        if not os.path.lexists(path):
            raise_at(SceneError, element, f'model file not found: {path}', file=file)
        unreadable = xml_file_problem(path)  # a FIFO, a device, a directory, too large
        if unreadable is not None:
            raise_at(SceneError, element, f'model file {path} {unreadable}', file=file)
        robot = load_robot(path)
    else:
        # Leading newlines keep the robot's line numbers those of the scene file.
        text = '\n' * (inline[0].sourceline - 1) + etree.tostring(inline[0], encoding='unicode')
        robot = parse_robot(text, source=file or '<world>', base_dir=str(base_dir))
    entity = _entity(name, robot, replace(options, geometry=geometry), reflectivity, retro)
    return entity if seabed is None else replace(entity, seabed=seabed)


def _seabed(element: Element, file: str | None) -> Seabed | None:
    """The ``<model>``'s seabed: its ``sediment`` attribute or its one ``<seabed>``."""
    found = children(element, 'seabed')
    name = element.get('sediment')
    if len(found) > 1 or (found and name is not None):
        problem = 'gives its seabed twice: one sediment attribute or one <seabed>'
        raise_at(SceneError, element, problem, file=file)
    if found:
        return read_seabed(found[0], file)
    return None if name is None else seabed_of_name(element, name, file)


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
    options = read_options(
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
