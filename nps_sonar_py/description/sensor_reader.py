"""Reading sensors from a robot description: the URDF ``<sensor>`` proposal and Gazebo's form.

Two forms are read onto the same :class:`~nps_sonar_py.description.sensor_specs.Sensor`:

- the proposal (``<robot><sensor name type id update_rate><parent link/><origin/>...``),
  whose ``<origin>`` is the sensor's optical frame (z forward, x right, y down);
- Gazebo's (``<gazebo reference="link"><sensor name type>`` with SDF ``<pose>``,
  ``<update_rate>``, ``<ray>``/``<lidar>`` or ``<sonar>``), whose pose is an x-forward body
  frame: it is turned into the optical frame with ``BODY_FROM_OPTICAL``, so that
  ``Sensor.origin`` always means parent link <- optical frame.

A spec's fields are read by their :class:`~nps_sonar_py.description.sensor_specs.XmlField`. A
value may be an attribute or a child element's text (``<sonar max="7"/>`` or
``<sonar><max>7</max></sonar>``), not both. The proposal form is read strictly (an unknown
element or attribute is an error, so a typo cannot silently fall back to a default); the
Gazebo form ignores what it does not read, as SDF has more.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any, cast

import numpy as np
from lxml import etree
from numpy.typing import NDArray

from nps_sonar_py.description.geometry import parse_origin
from nps_sonar_py.description.sensor_specs import (
    BODY_FROM_OPTICAL_TRANSFORM,
    SPEC_CLASSES,
    Sensor,
    SensorForm,
    SensorType,
    UnreadSensor,
    ValueKind,
    XmlField,
    xml_field,
)
from nps_sonar_py.description.values import ANGLE, COORDINATE, RATE, FieldError
from nps_sonar_py.description.xml import (
    Located,
    check_bound,
    describe,
    fail,
    find_value,
    only_child,
    parse_float,
    parse_int,
    parse_vector,
    required_child,
    to_text,
)
from nps_sonar_py.errors import DescriptionError
from nps_sonar_py.transforms import rpy_to_matrix, transform_from
from nps_sonar_py.xml_input import Element, children, local_name, required_attribute, source_of

__all__ = ['parse_gazebo_sensor', 'parse_sensor']


class _SpecReader:
    """Reads spec dataclasses from XML by their field declarations and remembers what it read.

    With ``strict``, :meth:`check_unknown` then rejects any element or attribute that no field
    asked for.
    """

    def __init__(self, *, strict: bool) -> None:
        self.strict = strict
        self._children: dict[Element, set[str]] = {}
        self._attributes: dict[Element, set[str]] = {}

    def _visit(self, el: Element) -> None:
        self._children.setdefault(el, set())
        self._attributes.setdefault(el, set())

    def _descend(self, el: Element, segments: list[str]) -> Element | None:
        node = el
        for segment in segments:
            self._visit(node)
            self._children[node].add(segment)
            child = only_child(node, segment)
            if child is None:
                return None
            node = child
        self._visit(node)
        return node

    def read(self, cls: type, el: Element) -> Any:
        """Read the spec ``cls`` from ``el``; fields not written keep their defaults."""
        self._visit(el)
        values: dict[str, Any] = {}
        where: dict[str, Element] = {}
        for f in fields(cls):
            declared = xml_field(f)
            nested = declared.kind is ValueKind.SPEC
            found: list[tuple[str, Any]] = []
            for path in declared.paths:
                *containers, leaf = path.split('/')
                node = self._descend(el, containers)
                if node is None:
                    continue
                self._children[node].add(leaf)
                if nested:
                    item: Any = only_child(node, leaf)
                else:
                    self._attributes[node].add(leaf)
                    item = find_value(node, leaf)
                if item is not None:
                    found.append((path, item))
            if len(found) > 1:
                second = found[1][1]
                fail(
                    second if nested else second.element,
                    f'{f.name} given twice: as <{found[0][0]}> and as <{found[1][0]}>',
                )
            if not found:
                required = f.default is MISSING and f.default_factory is MISSING
                if required or declared.required:
                    self._missing(el, declared.paths[0], spec=nested)
                continue
            item = found[0][1]
            if nested:
                values[f.name] = self.read(cast(type, f.default_factory), item)
                where[f.name] = item
            else:
                values[f.name] = self._convert(declared, item)
                where[f.name] = item.element
        try:
            return cls(**values)
        except FieldError as err:
            fail(where.get(err.field, el), f'{err.field}: {err.problem}')

    @staticmethod
    def _missing(el: Element, path: str, *, spec: bool) -> None:
        *containers, leaf = path.split('/')
        node = el
        for segment in containers:
            child = only_child(node, segment)
            if child is None:
                fail(node, f'missing <{segment}>')
            node = child
        fail(node, f'missing <{leaf}>' if spec else f'missing {leaf} (attribute or element)')

    @staticmethod
    def _convert(declared: XmlField, value: Located) -> Any:
        kind = declared.kind
        if kind is ValueKind.FLOAT:
            return parse_float(value)
        if kind is ValueKind.INT:
            return parse_int(value)
        text = value.text.strip()
        if kind is ValueKind.TEXT:
            if not text:
                value.fail('must not be empty')
            return text
        enum = declared.choices
        if kind is not ValueKind.CHOICE or enum is None:  # pragma: no cover (declarations)
            raise TypeError(f'cannot read a {kind.value} field from text')
        try:
            return enum(text)
        except ValueError:
            options = ', '.join(e.value for e in enum)
            value.fail(f'{text!r} is not one of {options}')

    def check_unknown(self) -> None:
        """Reject elements and attributes that no field read (strict reading only)."""
        if not self.strict:
            return
        for el, allowed in self._children.items():
            for child in children(el):
                if child.tag not in allowed:
                    expected = ', '.join(f'<{a}>' for a in sorted(allowed)) or 'no elements'
                    problem = f'unknown element <{local_name(child)}> in <{local_name(el)}>'
                    fail(child, f'{problem}; expected {expected}')
            for name in el.attrib:
                if name not in self._attributes[el]:
                    expected = ', '.join(sorted(self._attributes[el])) or 'no attributes'
                    fail(el, f'unknown attribute {name}; expected {expected}')


# --- reading sensors ------------------------------------------------------------------------

_URDF_ATTRIBUTES = frozenset({'name', 'type', 'id', 'update_rate'})


def _update_rate(value: Located | None) -> float | None:
    if value is None:
        return None
    rate = parse_float(value)
    if rate < 0.0:
        value.fail(f'must be >= 0 (0: every cycle), got {rate!r}')
    if rate > 0.0:
        check_bound(value, (rate,), RATE)
    return rate if rate > 0.0 else None


def _sensor_type(el: Element, text: str) -> SensorType:
    try:
        return SensorType(text)
    except ValueError:
        options = ', '.join(t.value for t in SensorType)
        fail(el, f'unknown sensor type {text!r}; expected one of {options}')


def _check_parent(el: Element, link: str, links: frozenset[str] | set[str]) -> None:
    if link not in links:
        fail(el, f'unknown link {link!r}')


def _build(el: Element, **kwargs: Any) -> Sensor:
    try:
        return Sensor(**kwargs, source=source_of(el), line=el.sourceline)
    except FieldError as err:
        fail(el, f'{err.field}: {err.problem}')


def parse_sensor(el: Element, links: frozenset[str] | set[str]) -> Sensor:
    """Read a proposal-form ``<sensor>``; ``links``: the robot's link names (for ``<parent>``)."""
    for name in el.attrib:
        if name not in _URDF_ATTRIBUTES:
            fail(el, f'unknown attribute {name}; expected name, type, id, update_rate')
    name = required_attribute(el, 'name', DescriptionError, element=describe(el))
    if not name.strip():
        fail(el, 'name must not be empty')
    sensor_type = _sensor_type(
        el, required_attribute(el, 'type', DescriptionError, element=describe(el))
    )
    rate_text = el.get('update_rate')
    rate = _update_rate(
        None if rate_text is None else Located(rate_text, el, f'update_rate="{rate_text}"')
    )
    parent = required_child(el, 'parent')
    parent_link = required_attribute(parent, 'link', DescriptionError, element=describe(parent))
    _check_parent(parent, parent_link, links)
    origin = parse_origin(only_child(el, 'origin'))
    gazebo_el = only_child(el, 'gazebo')
    gazebo = (
        None
        if gazebo_el is None
        else etree.tostring(gazebo_el, encoding='unicode', with_tail=False)
    )

    typed = sensor_type.value
    for child in children(el):
        tag = local_name(child)
        if tag in ('parent', 'origin', 'gazebo', typed):
            continue
        if tag in {t.value for t in SensorType}:
            fail(child, f'<{tag}> does not belong in a {typed} sensor')
        fail(child, f'unknown element <{tag}>; expected <parent>, <origin>, <gazebo> or <{typed}>')
    cls = SPEC_CLASSES[sensor_type]
    typed_el = only_child(el, typed)
    if typed_el is None:
        if any(f.default is MISSING and f.default_factory is MISSING for f in fields(cls)):
            fail(el, f'missing <{typed}>')
        spec = cls()
    else:
        reader = _SpecReader(strict=True)
        spec = reader.read(cls, typed_el)
        reader.check_unknown()
    return _build(
        el,
        name=name,
        type=sensor_type,
        id=el.get('id'),
        update_rate=rate,
        parent_link=parent_link,
        origin=origin,
        spec=spec,
        gazebo=gazebo,
        form=SensorForm.URDF,
    )


#: Gazebo sensor types read, with the SensorType and the child elements holding their parameters.
_GAZEBO_TYPES: dict[str, tuple[SensorType, tuple[str, ...]]] = {
    'ray': (SensorType.RAY, ('ray', 'lidar')),
    'gpu_ray': (SensorType.RAY, ('ray', 'lidar')),
    'lidar': (SensorType.RAY, ('ray', 'lidar')),
    'gpu_lidar': (SensorType.RAY, ('ray', 'lidar')),
    'sonar': (SensorType.SONAR, ('sonar',)),
}


def _sdf_pose(el: Element | None, reference: str) -> NDArray[np.float64]:
    """4x4 transform of an SDF ``<pose>x y z roll pitch yaw</pose>``, from the reference link.

    Bounded as a URDF ``<origin>``, the angles after conversion from degrees.
    """
    if el is None:
        return np.eye(4)
    for key in ('relative_to', 'frame'):
        frame = el.get(key)
        if frame not in (None, '', reference):
            fail(el, f'{key}="{frame}": only poses relative to the reference link are supported')
    rotation_format = el.get('rotation_format', 'euler_rpy')
    if rotation_format != 'euler_rpy':
        fail(el, f'rotation_format="{rotation_format}": only euler_rpy is supported')
    degrees = el.get('degrees', 'false').strip().lower()
    if degrees not in ('true', 'false', '1', '0'):
        fail(el, f'degrees="{degrees}" is not a boolean')
    located = Located(to_text(el), el, '')
    x, y, z, roll, pitch, yaw = parse_vector(located, 6)
    rpy = np.array([roll, pitch, yaw])
    if degrees in ('true', '1'):
        rpy = np.radians(rpy)
    check_bound(located, (x, y, z), COORDINATE, 'x y z')
    check_bound(located, rpy.tolist(), ANGLE, 'roll pitch yaw (rad)')
    return transform_from(rpy_to_matrix(rpy), (x, y, z))


def parse_gazebo_sensor(
    el: Element,
    reference: str | None,
    links: frozenset[str] | set[str],
) -> Sensor | UnreadSensor:
    """Read a ``<sensor>`` inside ``<gazebo reference="...">``; only ray-like and sonar types."""
    name = required_attribute(el, 'name', DescriptionError, element=describe(el))
    type_text = required_attribute(el, 'type', DescriptionError, element=describe(el)).strip()
    if type_text not in _GAZEBO_TYPES:
        return UnreadSensor(name, type_text, reference, source_of(el), el.sourceline)
    if not name.strip():
        fail(el, 'name must not be empty')
    gazebo_el = el.getparent()
    if reference is None:
        fail(
            gazebo_el if gazebo_el is not None else el,
            'a Gazebo <sensor> needs <gazebo reference="link">',
        )
    if reference not in links:
        fail(gazebo_el if gazebo_el is not None else el, f'unknown link {reference!r}')
    sensor_type, tags = _GAZEBO_TYPES[type_text]
    typed = [c for c in children(el) if c.tag in tags]
    if len(typed) > 1:
        fail(typed[1], f'<{local_name(typed[1])}> given more than once')
    cls = SPEC_CLASSES[sensor_type]
    spec = _SpecReader(strict=False).read(cls, typed[0]) if typed else cls()
    rate_el = only_child(el, 'update_rate')
    rate = _update_rate(None if rate_el is None else Located(to_text(rate_el), rate_el, ''))
    origin = _sdf_pose(only_child(el, 'pose'), reference) @ BODY_FROM_OPTICAL_TRANSFORM
    return _build(
        el,
        name=name,
        type=sensor_type,
        id=None,
        update_rate=rate,
        parent_link=reference,
        origin=origin,
        spec=spec,
        gazebo=etree.tostring(el, encoding='unicode', with_tail=False),
        form=SensorForm.GAZEBO,
    )
