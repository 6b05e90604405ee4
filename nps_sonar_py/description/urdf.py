"""Robots from URDF: links, joints and sensors, read from a file, a xacro file or a string.

:func:`parse_robot` reads a ``robot_description`` string, :func:`load_robot` a ``.urdf`` file
or a ``.xacro`` file expanded with the xacro package and its arguments. Either checks the
whole description before returning: a robot that loads is a tree of known links, and every
sensor is attached to one of them. Every problem raises
:class:`~nps_sonar_py.errors.DescriptionError` with the file, line and element.

For a xacro file, lines are those of xacro's output (what ``xacro FILE ARGS`` prints), and
the file is named ``FILE (xacro output)`` in errors.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar
from xml.parsers.expat import ErrorString, ExpatError

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.description.geometry import (
    Shape,
    Surface,
    parse_origin,
    parse_shape,
    parse_surface,
)
from nps_sonar_py.description.joints import Joint, JointLimit, JointType, Mimic
from nps_sonar_py.description.kinematics import (
    chain_transform,
    joint_transform,
    resolve_positions,
)
from nps_sonar_py.description.sensor_reader import parse_gazebo_sensor, parse_sensor
from nps_sonar_py.description.sensor_specs import (
    OPTICAL_FROM_BODY_TRANSFORM,
    Sensor,
    SensorFrame,
    SensorType,
    UnreadSensor,
)
from nps_sonar_py.description.values import (
    FRACTION,
    NON_NEGATIVE,
    FieldError,
    check_fields,
)
from nps_sonar_py.description.xml import (
    Located,
    describe,
    fail,
    only_child,
    parse_float,
    required_child,
    vector_attribute,
)
from nps_sonar_py.errors import DescriptionError, joined_lines
from nps_sonar_py.xml_input import (
    Element,
    check_xml_file,
    children,
    local_name,
    parse_document,
    read_document,
    required_attribute,
    source_of,
)

__all__ = [
    'DEFAULT_SOURCE',
    'Link',
    'Robot',
    'load_robot',
    'parse_robot',
]

#: Source name of a description given as a string.
DEFAULT_SOURCE = '<robot_description>'

_XACRO_NAMESPACE = '{http://www.ros.org/wiki/xacro}'


@dataclass(frozen=True)
class Link:
    """One URDF link with its shapes.

    Attributes:
        name: unique among the robot's links.
        visuals: its ``<visual>`` shapes, in file order.
        collisions: its ``<collision>`` shapes, in file order.
        retro: link-level ``laser_retro`` from ``<gazebo reference="name">``, else ``None``.
        reflectivity: link-level Lambert coefficient from
            ``<gazebo reference="name"><nps_sonar><reflectivity>``, else ``None``.
        source: the file it was read from.
        line: its line there.

    """

    name: str
    visuals: tuple[Shape, ...] = ()
    collisions: tuple[Shape, ...] = ()
    retro: float | None = field(default=None, metadata={'bound': NON_NEGATIVE})
    reflectivity: float | None = field(default=None, metadata={'bound': FRACTION})
    source: str = '<code>'
    line: int | None = None

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True)
class Robot:
    """A robot description: a tree of links joined by joints, and its sensors.

    Attributes:
        name: the ``<robot name>``.
        root_link: the one link that is no joint's child; poses are relative to it.
        links: read-only mapping name -> :class:`Link`, in file order.
        joints: read-only mapping name -> :class:`Joint`, in file order.
        sensors: every sensor of both forms, in file order.
        source: the file path, or ``'<robot_description>'``.
        base_dir: directory relative mesh file names are relative to, or ``None``.
        unread_sensors: Gazebo sensors of types not read (camera, imu, ...), for reporting.

    """

    name: str
    root_link: str
    links: Mapping[str, Link]
    joints: Mapping[str, Joint]
    sensors: tuple[Sensor, ...] = ()
    source: str = DEFAULT_SOURCE
    base_dir: str | None = None
    unread_sensors: tuple[UnreadSensor, ...] = ()
    _parent_joint: Mapping[str, Joint] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, 'links', MappingProxyType(dict(self.links)))
        object.__setattr__(self, 'joints', MappingProxyType(dict(self.joints)))
        object.__setattr__(self, 'sensors', tuple(self.sensors))
        parents = {j.child: j for j in self.joints.values()}
        object.__setattr__(self, '_parent_joint', MappingProxyType(parents))
        if self.root_link not in self.links or self.root_link in parents:
            raise FieldError('root_link', f'{self.root_link!r} is not a link without a parent')

    def _error(self, problem: str) -> DescriptionError:
        return DescriptionError(problem, file=self.source, element=f'<robot name="{self.name}">')

    def sensor(self, name: str) -> Sensor:
        """Return the sensor called ``name``; :class:`DescriptionError` if there is none."""
        for sensor in self.sensors:
            if sensor.name == name:
                return sensor
        known = ', '.join(s.name for s in self.sensors) or 'none'
        raise self._error(f'no sensor {name!r} (sensors: {known})')

    def sensors_of_type(self, sensor_type: SensorType) -> tuple[Sensor, ...]:
        """Return the sensors of one type, in file order."""
        return tuple(s for s in self.sensors if s.type is sensor_type)

    def chain(self, link: str) -> tuple[Joint, ...]:
        """Return the joints from the root link down to ``link`` (empty for the root)."""
        if link not in self.links:
            raise self._error(f'no link {link!r}')
        joints: list[Joint] = []
        node = link
        while node in self._parent_joint:
            joint = self._parent_joint[node]
            joints.append(joint)
            node = joint.parent
        return tuple(reversed(joints))

    def link_transform(
        self, link: str, joint_positions: Mapping[str, float] | None = None
    ) -> NDArray[np.float64]:
        """(4, 4) transform root_link <- ``link`` with joints at ``joint_positions`` (others at 0).

        Raises:
            DescriptionError: no such link, or a floating or planar joint on the way.
            ValueError: a position for a joint the robot lacks, or one not finite.

        """
        chain = self.chain(link)
        positions = resolve_positions(self.joints, joint_positions, chain)
        return chain_transform(chain, positions)

    def link_transforms(
        self, joint_positions: Mapping[str, float] | None = None
    ) -> Iterator[tuple[str, NDArray[np.float64]]]:
        """``(link, root_link <- link)`` of every link in file order, as :meth:`link_transform`.

        Each joint's transform is computed once, so all links cost as much as the joints
        (asking :meth:`link_transform` for each costs the sum of their depths). An error
        (a floating joint on the way) is raised when the link below it is reached.
        """
        positions = resolve_positions(self.joints, joint_positions, self.joints.values())
        done: dict[str, NDArray[np.float64]] = {}
        for link in self.links:
            path: list[Joint] = []  # the joints from the nearest link already placed down
            node = link
            while node not in done and node in self._parent_joint:
                joint = self._parent_joint[node]
                path.append(joint)
                node = joint.parent
            pose = done.setdefault(node, np.eye(4))  # a placed link, or the root
            for joint in reversed(path):
                pose = pose @ joint_transform(joint, positions[joint.name])
                done[joint.child] = pose
            yield link, done[link]

    def sensor_transform(
        self,
        name: str,
        joint_positions: Mapping[str, float] | None = None,
        *,
        frame: SensorFrame = SensorFrame.OPTICAL,
    ) -> NDArray[np.float64]:
        """(4, 4) transform root_link <- sensor frame: optical (z forward), or body (x forward)."""
        sensor = self.sensor(name)
        pose = self.link_transform(sensor.parent_link, joint_positions) @ sensor.origin
        return pose @ OPTICAL_FROM_BODY_TRANSFORM if frame is SensorFrame.BODY else pose


# --- reading ------------------------------------------------------------------------------


def _optional_number(el: Element, name: str) -> float | None:
    text = el.get(name)
    return None if text is None else parse_float(Located(text, el, f'{name}="{text}"'))


def _number(el: Element, name: str, default: float) -> float:
    value = _optional_number(el, name)
    return default if value is None else value


_T = TypeVar('_T')


def _build(el: Element, cls: type[_T], **kwargs: Any) -> _T:
    try:
        return cls(**kwargs)
    except FieldError as err:
        fail(el, f'{err.field}: {err.problem}')


def _parse_joint(el: Element, links: Mapping[str, Element]) -> Joint:
    where = describe(el)
    name = required_attribute(el, 'name', DescriptionError, element=where)
    type_text = required_attribute(el, 'type', DescriptionError, element=where)
    try:
        joint_type = JointType(type_text)
    except ValueError:
        options = ', '.join(t.value for t in JointType)
        fail(el, f'unknown joint type {type_text!r}; expected one of {options}')
    ends = {}
    for end in ('parent', 'child'):
        end_el = required_child(el, end)
        link = end_el.get('link')
        if link is None:  # (the element's description is made only for the error)
            link = required_attribute(end_el, 'link', DescriptionError, element=describe(end_el))
        if link not in links:
            fail(end_el, f'unknown link {link!r}')
        ends[end] = link
    if ends['parent'] == ends['child']:
        fail(el, f'joins link {ends["parent"]!r} to itself')
    axis_el = only_child(el, 'axis')
    axis = (
        (1.0, 0.0, 0.0)
        if axis_el is None
        else vector_attribute(axis_el, 'xyz', 3, (1.0, 0.0, 0.0))
    )
    if axis_el is not None and joint_type is not JointType.FIXED and not any(axis):
        fail(axis_el, 'axis must not be zero')
    if not any(axis):  # a fixed joint ignores its axis
        axis = (1.0, 0.0, 0.0)
    limit_el = only_child(el, 'limit')
    limit = None
    if limit_el is None and joint_type in (JointType.REVOLUTE, JointType.PRISMATIC):
        fail(el, f'missing <limit>: a {joint_type.value} joint needs one')
    if limit_el is not None:
        limit = _build(
            limit_el,
            JointLimit,
            lower=_number(limit_el, 'lower', 0.0),
            upper=_number(limit_el, 'upper', 0.0),
            effort=_optional_number(limit_el, 'effort'),
            velocity=_optional_number(limit_el, 'velocity'),
        )
    mimic_el = only_child(el, 'mimic')
    mimic = None
    if mimic_el is not None:
        mimic = Mimic(
            required_attribute(mimic_el, 'joint', DescriptionError, element=describe(mimic_el)),
            _number(mimic_el, 'multiplier', 1.0),
            _number(mimic_el, 'offset', 0.0),
        )
    return _build(
        el,
        Joint,
        name=name,
        type=joint_type,
        parent=ends['parent'],
        child=ends['child'],
        origin=parse_origin(only_child(el, 'origin')),
        axis=axis,
        limit=limit,
        mimic=mimic,
        source=source_of(el),
        line=el.sourceline,
    )


def _check_tree(
    robot_el: Element,
    link_els: Mapping[str, Element],
    joint_els: Mapping[str, Element],
    joints: Mapping[str, Joint],
) -> str:
    """Check that links and joints form one tree; return its root link.

    Linear in the number of links: each link is walked up from once, then marked as leading
    to a root, so no later walk passes it again.
    """
    parent_of: dict[str, Joint] = {}
    for joint in joints.values():
        if joint.child in parent_of:
            first = parent_of[joint.child]
            fail(
                joint_els[joint.name],
                f'link {joint.child!r} has two parents: '
                f'joint {first.name!r} (line {first.line}) already ends at it',
            )
        parent_of[joint.child] = joint
    reaches_root: set[str] = set()
    for link in link_els:
        path = [link]  # the walk up from `link`, and where each link sits on it
        on_path = {link: 0}
        node = link
        while node in parent_of and node not in reaches_root:
            node = parent_of[node].parent
            if node in on_path:
                loop = ' -> '.join([*path[on_path[node] :], node])
                fail(joint_els[parent_of[node].name], f'kinematic loop: {loop}')
            on_path[node] = len(path)
            path.append(node)
        reaches_root.update(path)
    roots = [name for name in link_els if name not in parent_of]
    if len(roots) != 1:  # loops were caught above, so there is at least one root
        fail(
            robot_el,
            f'{len(roots)} root links ({", ".join(roots)}); a robot is a tree with one root',
        )
    mimics_checked: set[str] = set()
    for joint in joints.values():
        if joint.mimic is not None:
            _check_mimic(joint, joints, joint_els, mimics_checked)
    return roots[0]


def _check_mimic(
    joint: Joint,
    joints: Mapping[str, Joint],
    joint_els: Mapping[str, Element],
    checked: set[str],
) -> None:
    """Follow ``joint``'s mimic leaders to a joint that mimics none, or one in ``checked``.

    Adds the joints passed to ``checked``, so that each joint is followed once per robot.
    """
    seen = [joint.name]
    on_path = {joint.name}
    node = joint
    while node.mimic is not None and node.name not in checked:
        leader = node.mimic.joint
        if leader not in joints:
            fail(joint_els[node.name], f'<mimic> names unknown joint {leader!r}')
        if leader in on_path:
            fail(joint_els[joint.name], f'mimic loop: {" -> ".join([*seen, leader])}')
        seen.append(leader)
        on_path.add(leader)
        node = joints[leader]
    checked.update(seen)


def _reject_misplaced(root: Element) -> None:
    """Refuse what would be skipped silently: xacro left unexpanded, a ``<sensor>`` astray."""
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        if el.tag.startswith(_XACRO_NAMESPACE):
            problem = 'unexpanded xacro element; expand with xacro first'
            fail(el, f'{problem} (load_robot does it for .xacro files)')
        in_robot = el.getparent() is root or any(a.tag == 'gazebo' for a in el.iterancestors())
        if el.tag == 'sensor' and not in_robot:
            fail(el, 'a <sensor> belongs in <robot> or in <gazebo reference="link">')


def _read_links(
    root: Element,
) -> tuple[dict[str, Element], dict[str, tuple[tuple[Shape, ...], tuple[Shape, ...]]]]:
    """The ``<link>`` elements by name and their (visual, collision) shapes; names unique."""
    link_els: dict[str, Element] = {}
    shapes: dict[str, tuple[tuple[Shape, ...], tuple[Shape, ...]]] = {}
    for el in children(root, 'link'):
        link_name = required_attribute(el, 'name', DescriptionError, element=describe(el))
        if not link_name:
            fail(el, 'name must not be empty')
        if link_name in link_els:
            first = link_els[link_name].sourceline
            fail(el, f'link {link_name!r} defined twice (first on line {first})')
        link_els[link_name] = el
        shapes[link_name] = (
            tuple(parse_shape(v) for v in children(el, 'visual')),
            tuple(parse_shape(c) for c in children(el, 'collision')),
        )
    if not link_els:
        fail(root, 'no <link>')
    return link_els, shapes


def _read_joints(
    root: Element, link_els: dict[str, Element]
) -> tuple[dict[str, Element], dict[str, Joint]]:
    """The ``<joint>`` elements and joints by name; names unique."""
    joint_els: dict[str, Element] = {}
    joints: dict[str, Joint] = {}
    for el in children(root, 'joint'):
        joint = _parse_joint(el, link_els)
        if joint.name in joints:
            first = joint_els[joint.name].sourceline
            fail(el, f'joint {joint.name!r} defined twice (first on line {first})')
        joint_els[joint.name] = el
        joints[joint.name] = joint
    return joint_els, joints


def _read_surface(
    el: Element, link_els: dict[str, Element], surfaces: dict[str, tuple[Surface, Element]]
) -> None:
    """Add the link surface a ``<gazebo>`` element gives (if any) to ``surfaces``."""
    reference = el.get('reference')
    surface = parse_surface(el)
    if surface == Surface():
        return
    if reference is None or reference not in link_els:
        what = 'no reference' if reference is None else f'unknown link {reference!r}'
        problem = f'laser_retro or nps_sonar for {what}'
        fail(el, f'{problem}; they belong to <gazebo reference="link">')
    if reference in surfaces:
        first = surfaces[reference][1].sourceline
        fail(el, f'link surface given twice (first on line {first})')
    surfaces[reference] = (surface, el)


def _read_sensors_and_surfaces(
    root: Element, link_els: dict[str, Element]
) -> tuple[dict[str, tuple[Surface, Element]], list[tuple[Sensor, Element]], list[UnreadSensor]]:
    """The link surfaces, the sensors read and those not read, in document order."""
    surfaces: dict[str, tuple[Surface, Element]] = {}
    sensors: list[tuple[Sensor, Element]] = []
    unread: list[UnreadSensor] = []
    link_names = frozenset(link_els)
    for el in children(root):
        if el.tag == 'sensor':
            sensors.append((parse_sensor(el, link_names), el))
        elif el.tag == 'gazebo':
            _read_surface(el, link_els, surfaces)
            for sensor_el in children(el, 'sensor'):
                found = parse_gazebo_sensor(sensor_el, el.get('reference'), link_names)
                if isinstance(found, Sensor):
                    sensors.append((found, sensor_el))
                else:
                    unread.append(found)
    _check_unique_sensors(sensors)
    return surfaces, sensors, unread


def _check_unique_sensors(sensors: list[tuple[Sensor, Element]]) -> None:
    """Fail on the second sensor of a name."""
    seen: dict[str, Sensor] = {}
    for sensor, el in sensors:
        if sensor.name in seen:
            fail(
                el,
                f'sensor {sensor.name!r} defined twice (first on line {seen[sensor.name].line})',
            )
        seen[sensor.name] = sensor


def _build_links(
    link_els: dict[str, Element],
    shapes: dict[str, tuple[tuple[Shape, ...], tuple[Shape, ...]]],
    surfaces: dict[str, tuple[Surface, Element]],
) -> dict[str, Link]:
    """The links, their shapes falling back to the link's surface."""
    links = {}
    for link_name, el in link_els.items():
        surface = surfaces.get(link_name, (Surface(), el))[0]
        visuals, collisions = shapes[link_name]
        links[link_name] = Link(
            name=link_name,
            visuals=tuple(s.with_fallback(surface) for s in visuals),
            collisions=tuple(s.with_fallback(surface) for s in collisions),
            retro=surface.retro,
            reflectivity=surface.reflectivity,
            source=source_of(el),
            line=el.sourceline,
        )
    return links


def _read_robot(root: Element, *, source: str, base_dir: str | None) -> Robot:
    if root.tag != 'robot':
        fail(root, f'root element is <{local_name(root)}>, expected <robot>')
    _reject_misplaced(root)
    name = required_attribute(root, 'name', DescriptionError, element=describe(root))
    link_els, shapes = _read_links(root)
    joint_els, joints = _read_joints(root, link_els)
    root_link = _check_tree(root, link_els, joint_els, joints)
    surfaces, sensors, unread = _read_sensors_and_surfaces(root, link_els)
    return Robot(
        name=name,
        root_link=root_link,
        links=_build_links(link_els, shapes, surfaces),
        joints=joints,
        sensors=tuple(sensor for sensor, _ in sensors),
        source=source,
        base_dir=base_dir,
        unread_sensors=tuple(unread),
    )


def parse_robot(
    xml_text: str | bytes,
    *,
    source: str = DEFAULT_SOURCE,
    base_dir: str | None = None,
) -> Robot:
    """Read the robot of a URDF document (a ``robot_description`` string, already expanded).

    Args:
        xml_text: the URDF XML.
        source: names the text in errors and in ``Robot.source``.
        base_dir: directory that relative mesh file names are relative to.

    Raises:
        DescriptionError: anything that makes the description unusable, with file, line and
            element.

    """
    return _read_robot(
        parse_document(xml_text, source, DescriptionError), source=source, base_dir=base_dir
    )


def _xacro_error(path: str, err: Exception, xacro: Any) -> DescriptionError:
    """The one-line error of a failed expansion, at the file xacro was reading (and line).

    xacro keeps the files it is reading (``xacro.filestack``, the top file first) and the
    macros it is expanding (``xacro.macrostack``) in module state, which it leaves as they
    were when it raised; only the XML parser's errors carry a line.
    """
    files = [f for f in getattr(xacro, 'filestack', None) or [] if f]
    file = str(files[-1]) if files else path
    line: int | None = None
    if isinstance(err, ExpatError):
        line = getattr(err, 'lineno', None)
        detail = f'malformed XML: {ErrorString(err.code)}'
    else:
        cause = getattr(err, 'exc', None)
        if isinstance(cause, OSError) and cause.filename:
            detail = f'cannot read {cause.filename}: {cause.strerror or cause}'
        else:
            detail = joined_lines(str(err), '; ') or type(err).__name__
    macros = [
        m.body.getAttribute('name')
        for m in getattr(xacro, 'macrostack', None) or []
        if getattr(m, 'body', None) is not None
    ]
    if macros:
        detail += f' (in macro {", called from ".join(repr(m) for m in reversed(macros))})'
    if file != path:
        detail += f' (included from {path})'
    return DescriptionError(f'xacro failed: {detail}', file=file, line=line)


def _expand_xacro(path: str, args: Mapping[str, str]) -> str:
    check_xml_file(path, DescriptionError)  # before xacro opens it
    try:
        import xacro
    except ImportError:
        raise DescriptionError(
            'cannot expand xacro: the xacro package is not installed', file=path
        ) from None
    try:
        doc = xacro.process_file(path, mappings={str(k): str(v) for k, v in args.items()})
    except Exception as err:  # xacro raises XacroException, ExpatError, NameError, OSError, ...
        raise _xacro_error(path, err, xacro) from err
    return str(doc.toprettyxml(indent='  '))


def load_robot(
    path: str | os.PathLike[str], *, xacro_args: Mapping[str, str] | None = None
) -> Robot:
    """Load the robot of a ``.urdf`` file, or of a ``.xacro`` file expanded with ``xacro_args``.

    Relative mesh file names are relative to the file's directory (``Robot.base_dir``).

    Raises:
        DescriptionError: the file cannot be read or expanded, or its description is unusable.

    """
    file = os.fspath(path)
    base_dir = os.path.dirname(os.path.abspath(file))
    if file.endswith('.xacro'):
        text: str | bytes = _expand_xacro(file, xacro_args or {})
        document = f'{file} (xacro output)'
    else:
        if xacro_args:
            raise DescriptionError('xacro_args given for a file that is not .xacro', file=file)
        text = read_document(file, DescriptionError)
        document = file
    root = parse_document(text, document, DescriptionError)
    return _read_robot(root, source=file, base_dir=base_dir)
