"""Link geometry: URDF ``<visual>`` and ``<collision>`` shapes with their surface properties.

Shapes follow URDF: a box is centred on its origin, a cylinder's axis is its z axis and it
is centred, a sphere is centred, a mesh is placed by its origin and scaled per axis. Lengths
are in metres. A mesh's ``filename`` is kept as written (``package://``, ``file://``, relative
to the robot file's directory, or absolute); the scene layer resolves it.

Surface properties of a shape, each ``None`` when not given:

- ``retro``: Gazebo's ``laser_retro`` (any non-negative number; worlds use 0..255), from a
  ``<laser_retro>`` child of the ``<visual>`` or ``<collision>``, else the link's value.
- ``reflectivity``: this package's Lambert coefficient in [0, 1], from
  ``<nps_sonar><reflectivity>`` (or ``<nps_sonar reflectivity="..."/>``) inside the
  ``<visual>`` or ``<collision>``, else the link's value.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Union

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.description.values import (
    ANGLE,
    COORDINATE,
    FRACTION,
    NON_NEGATIVE,
    FieldError,
    RecordEq,
    as_transform,
    check_fields,
)
from nps_sonar_py.description.xml import (
    Located,
    describe,
    fail,
    find_value,
    only_child,
    parse_float,
    parse_vector,
    required_child,
    to_text,
    vector_attribute,
)
from nps_sonar_py.errors import DescriptionError
from nps_sonar_py.transforms import transform_from_xyz_rpy
from nps_sonar_py.xml_input import Element, children, local_name, required_attribute, source_of

__all__ = [
    'Box',
    'Cylinder',
    'Geometry',
    'Mesh',
    'Shape',
    'Sphere',
    'Surface',
    'parse_origin',
    'parse_shape',
    'parse_surface',
]


@dataclass(frozen=True)
class Box:
    """A box centred on its origin; ``size`` is its x, y, z extent in metres."""

    size: tuple[float, float, float]

    def __post_init__(self) -> None:
        for value in self.size:
            problem = NON_NEGATIVE.problem(value)
            if problem:
                raise FieldError('size', problem)


@dataclass(frozen=True)
class Cylinder:
    """A cylinder centred on its origin, axis along z; radius and length in metres."""

    radius: float = field(metadata={'bound': NON_NEGATIVE})
    length: float = field(metadata={'bound': NON_NEGATIVE})

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True)
class Sphere:
    """A sphere centred on its origin; radius in metres."""

    radius: float = field(metadata={'bound': NON_NEGATIVE})

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True)
class Mesh:
    """A mesh file, as written, scaled per axis (non-zero; negative mirrors)."""

    filename: str
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)

    def __post_init__(self) -> None:
        if not self.filename.strip():
            raise FieldError('filename', 'must not be empty')
        for value in self.scale:
            if not np.isfinite(value) or value == 0.0:
                raise FieldError('scale', f'must be finite and non-zero, got {value!r}')


Geometry = Union[Box, Cylinder, Sphere, Mesh]  # noqa: UP007 (a runtime alias, read by isinstance users)


@dataclass(frozen=True)
class Surface:
    """Surface properties given in one place; ``None`` where not given."""

    retro: float | None = field(default=None, metadata={'bound': NON_NEGATIVE})
    reflectivity: float | None = field(default=None, metadata={'bound': FRACTION})

    def __post_init__(self) -> None:
        check_fields(self)

    def over(self, fallback: Surface) -> Surface:
        """Combine: this surface's values, else ``fallback``'s."""
        return Surface(
            self.retro if self.retro is not None else fallback.retro,
            self.reflectivity if self.reflectivity is not None else fallback.reflectivity,
        )


@dataclass(frozen=True, eq=False)
class Shape(RecordEq):
    """One ``<visual>`` or ``<collision>`` of a link.

    Attributes:
        geometry: the shape in its own frame.
        origin: (4, 4) float64 transform link <- shape (read-only).
        retro: ``laser_retro``, its own or the link's; ``None`` if neither gives one.
        reflectivity: Lambert coefficient in [0, 1], its own or the link's; ``None`` if neither.
        source: the file (or ``'<robot_description>'``) it was read from.
        line: its line there, ``None`` when built in code.
        name: its ``name`` attribute, if any.

    """

    geometry: Geometry
    origin: NDArray[np.float64]
    retro: float | None = field(default=None, metadata={'bound': NON_NEGATIVE})
    reflectivity: float | None = field(default=None, metadata={'bound': FRACTION})
    source: str = '<code>'
    line: int | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, 'origin', as_transform(self.origin, 'origin'))
        check_fields(self)

    @property
    def surface(self) -> Surface:
        """Its surface properties as one value."""
        return Surface(self.retro, self.reflectivity)

    def with_fallback(self, surface: Surface) -> Shape:
        """Copy of the shape with ``surface``'s values where it gives none of its own."""
        own = self.surface.over(surface)
        return replace(self, retro=own.retro, reflectivity=own.reflectivity)


def parse_origin(el: Element | None) -> NDArray[np.float64]:
    """4x4 transform of a URDF ``<origin xyz rpy>``; identity when ``el`` is ``None``.

    ``xyz`` within :data:`~nps_sonar_py.limits.MAX_POSITION` m and ``rpy`` within
    :data:`~nps_sonar_py.limits.MAX_ANGLE` rad, as in scene files and messages.
    """
    if el is None:
        return np.eye(4)
    xyz = vector_attribute(el, 'xyz', 3, (0.0, 0.0, 0.0), COORDINATE)
    rpy = vector_attribute(el, 'rpy', 3, (0.0, 0.0, 0.0), ANGLE)
    return transform_from_xyz_rpy(xyz, rpy)


def _parse_geometry(el: Element) -> Geometry:
    shapes = children(el)
    if len(shapes) != 1:
        fail(el, f'<geometry> must hold exactly one shape, got {len(shapes)}')
    shape = shapes[0]
    kind = local_name(shape)

    def number(name: str) -> float:
        text = required_attribute(shape, name, DescriptionError, element=describe(shape))
        located = Located(text, shape, f'{name}="{text}"')
        value = parse_float(located)
        problem = NON_NEGATIVE.problem(value)
        if problem:
            located.fail(problem)
        return value

    def vector(name: str) -> tuple[float, float, float]:
        text = required_attribute(shape, name, DescriptionError, element=describe(shape))
        x, y, z = parse_vector(Located(text, shape, f'{name}="{text}"'), 3)
        return (x, y, z)

    try:
        if kind == 'box':
            return Box(vector('size'))
        if kind == 'cylinder':
            return Cylinder(number('radius'), number('length'))
        if kind == 'sphere':
            return Sphere(number('radius'))
        if kind == 'mesh':
            filename = required_attribute(
                shape, 'filename', DescriptionError, element=describe(shape)
            )
            scale = vector_attribute(shape, 'scale', 3, (1.0, 1.0, 1.0))
            return Mesh(filename, (scale[0], scale[1], scale[2]))
    except FieldError as err:
        fail(shape, f'{err.field}: {err.problem}')
    fail(shape, f'unknown geometry <{kind}>; expected box, cylinder, sphere or mesh')


def parse_surface(el: Element) -> Surface:
    """Surface properties written directly inside ``el``: ``<laser_retro>`` and ``<nps_sonar>``."""
    retro = None
    retro_el = only_child(el, 'laser_retro')
    if retro_el is not None:
        located = Located(to_text(retro_el), retro_el, '')
        retro = parse_float(located)
        problem = NON_NEGATIVE.problem(retro)
        if problem:
            located.fail(problem)
    reflectivity = None
    ours = only_child(el, 'nps_sonar')
    if ours is not None:
        for child in children(ours):
            if child.tag != 'reflectivity':
                problem = f'unknown element <{local_name(child)}>; <nps_sonar> holds only '
                fail(child, problem + '<reflectivity>')
        for name in ours.attrib:
            if name != 'reflectivity':
                fail(ours, f'unknown attribute {name}; <nps_sonar> takes only reflectivity')
        value = find_value(ours, 'reflectivity')
        if value is not None:
            reflectivity = parse_float(value)
            problem = FRACTION.problem(reflectivity)
            if problem:
                value.fail(problem)
    return Surface(retro, reflectivity)


def parse_shape(el: Element) -> Shape:
    """Read a ``<visual>`` or ``<collision>`` element, with only its own surface properties."""
    origin = parse_origin(only_child(el, 'origin'))
    geometry = _parse_geometry(required_child(el, 'geometry'))
    surface = parse_surface(el)
    try:
        return Shape(
            geometry=geometry,
            origin=origin,
            retro=surface.retro,
            reflectivity=surface.reflectivity,
            source=source_of(el),
            line=el.sourceline,
            name=el.get('name'),
        )
    except FieldError as err:
        fail(el, f'{err.field}: {err.problem}')
