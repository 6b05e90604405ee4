"""The ``<scene_state>`` element: where each entity is, in which frame, and how it moves.

Following the URDF ``<scene_state>`` proposal (``seeds/002``)::

    <scene_state scene="reference_tank" time_stamp="0.0">
      <entity_state model="target">
        <parent frame="world"/>
        <origin xyz="2.1 3.0 1.0" rpy="0 0 0"/>
        <twist linear="0.1 0 0" angular="0 0 0.2"/>
      </entity_state>
    </scene_state>

* ``<parent frame>`` is ``world``, ``<model>`` (that entity's root link) or
  ``<model>::<link>`` (a link of that entity, at zero joint positions).
* ``<origin>`` is the pose parent<-entity at ``time_stamp`` (URDF xyz in metres, fixed-axis
  rpy in radians); absent means identity.
* ``<twist>`` is constant, about the entity's origin and expressed in the parent frame:
  ``linear`` (m/s) is the velocity of the entity's origin, ``angular`` (rad/s) its angular
  velocity vector. It is integrated exactly as a separate translation and rotation about the
  entity's origin, not as a screw: after ``dt = t - time_stamp`` seconds the origin is at
  ``p0 + v dt`` and the orientation is ``exp([w] dt) R0`` (a rotation by ``|w| dt`` about
  ``w``). A twist with both parts non-zero therefore slides the entity along a straight line
  while it spins about its own origin.

Unknown attributes and elements are errors, so a misspelt ``<twist>`` cannot silently leave
an entity standing still.

Numbers are finite and bounded, each component on its own, so that poses integrated over
any time stay finite (the same bounds as the checks of the ROS messages that move entities):
:data:`MAX_POSITION` (1e6 m) for ``xyz``, :data:`MAX_ANGLE` (1e3 rad) for ``rpy``,
:data:`MAX_LINEAR` (1e4 m/s) and :data:`MAX_ANGULAR` (1e3 rad/s) for the twist, and
:data:`MAX_TIME_STAMP` (1e10 s) for ``time_stamp``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.errors import SceneError
from nps_sonar_py.limits import MAX_ANGLE, MAX_ANGULAR, MAX_LINEAR, MAX_POSITION
from nps_sonar_py.transforms import axis_angle_matrix, transform_from_xyz_rpy
from nps_sonar_py.xml_input import (
    Element,
    NumberError,
    children,
    label,
    parse_document,
    parse_number,
    parse_numbers,
    raise_at,
    read_document,
    required_attribute,
)

__all__ = [
    'MAX_ANGLE',
    'MAX_ANGULAR',
    'MAX_LINEAR',
    'MAX_POSITION',
    'MAX_TIME_STAMP',
    'WORLD_FRAME',
    'EntityState',
    'SceneState',
    'integrate_twist',
    'load_scene_state',
    'parse_scene_state',
    'split_frame',
    'update_problem',
]

#: The name of the fixed world frame in ``<parent frame>``.
WORLD_FRAME = 'world'

#: Separates a model from one of its links in ``<parent frame="model::link">``.
FRAME_SEPARATOR = '::'


#: Largest ``time_stamp`` magnitude, s: 317 years, past any Unix time a clock gives (1.7e9
#: in 2024), so that ``t - time_stamp`` times a twist stays finite.
MAX_TIME_STAMP = 1e10

#: The scene's ``problem`` for :func:`~nps_sonar_py.xml_input.required_attribute`, which the
#: scene calls with ``strip=True``: a required attribute must not be blank either.
MISSING_ATTRIBUTE = 'missing required attribute {name!r}'


@dataclass(frozen=True, eq=False)  # arrays: compare fields with numpy
class EntityState:
    """The state of one entity at the scene state's ``time_stamp``.

    Attributes:
        model: the name of the model this state places.
        frame: the parent frame as written: ``world``, ``<model>`` or ``<model>::<link>``.
        origin: (4, 4) transform entity -> parent frame at ``time_stamp``.
        linear: (3,) velocity of the entity's origin in m/s, in the parent frame.
        angular: (3,) angular velocity in rad/s, in the parent frame, about the entity's origin.
        line: line of the ``<entity_state>`` element in its file, if known.

    """

    model: str
    frame: str = WORLD_FRAME
    origin: NDArray[np.float64] = field(default_factory=lambda: np.eye(4))
    linear: NDArray[np.float64] = field(default_factory=lambda: np.zeros(3))
    angular: NDArray[np.float64] = field(default_factory=lambda: np.zeros(3))
    line: int | None = None

    @property
    def moves(self) -> bool:
        """Whether the twist is not zero."""
        return bool(np.any(self.linear != 0.0) or np.any(self.angular != 0.0))

    def pose(self, dt: float) -> NDArray[np.float64]:
        """(4, 4) transform entity -> parent frame ``dt`` seconds after ``time_stamp``."""
        return integrate_twist(self.origin, self.linear, self.angular, dt)


@dataclass(frozen=True)
class SceneState:
    """A parsed ``<scene_state>``.

    Attributes:
        scene: the name of the scene (world) it belongs to.
        time_stamp: time in seconds at which the entity states hold.
        entities: one state per entity, in the order of the file.
        source: the file it was read from, if any.
        line: line of the ``<scene_state>`` element in it, if known.

    """

    scene: str
    time_stamp: float
    entities: tuple[EntityState, ...] = ()
    source: str | None = None
    line: int | None = None

    def entity(self, model: str) -> EntityState | None:
        """Return the state of ``model``, or None if the scene state does not place it."""
        return next((e for e in self.entities if e.model == model), None)


def update_problem(
    scene: str, states: Sequence[EntityState], *, world: str, frames: Mapping[str, str]
) -> str | None:
    """Why an update of a world's scene state cannot be applied, or None: one bad state spoils it.

    An update (a ``SceneState`` message) names its scene (empty matches any) and gives new
    states; it is applied whole or not at all, as a scene file is loaded whole. ``world`` is
    the world's name and ``frames`` maps each of its models to the parent frame it is placed
    in, which an update cannot change. The states are named ``entities[i]``, in order.
    (Two states for one model are refused with the message, before: ``ros/message_checks``.)
    """
    if scene and scene != world:
        return f'scene {scene!r} is not this world, {world!r}'
    for i, state in enumerate(states):
        name = f'entities[{i}]'
        declared = frames.get(state.model)
        if declared is None:
            return f'{name}.model {state.model!r} is no model of world {world!r}'
        if state.frame != declared:
            return (
                f'{name}.parent_frame {state.frame!r} is not {declared!r}, the frame that'
                f' places {state.model!r}'
            )
    return None


def split_frame(frame: str) -> tuple[str | None, str | None]:
    """``(model, link)`` of a frame: world -> (None, None), m -> (m, None), m::l -> (m, l)."""
    if frame == WORLD_FRAME:
        return None, None
    model, sep, link = frame.partition(FRAME_SEPARATOR)
    return model, (link if sep else None)


def integrate_twist(
    origin: ArrayLike, linear: ArrayLike, angular: ArrayLike, dt: float
) -> NDArray[np.float64]:
    """Pose after ``dt`` seconds of a constant twist about the entity's origin (parent frame).

    Translation and rotation are separate: ``p = p0 + v dt`` and ``R = exp([w] dt) R0``.

    >>> pose = integrate_twist(np.eye(4), [1.0, 0.0, 0.0], [0.0, 0.0, np.pi], 0.5)
    >>> np.round(pose[:3, 3], 12).tolist(), np.round(pose[:2, :2], 12).tolist()
    ([0.5, 0.0, 0.0], [[0.0, -1.0], [1.0, 0.0]])
    """
    pose = np.array(origin, dtype=np.float64).reshape(4, 4)
    v = np.asarray(linear, dtype=np.float64).reshape(3)
    w = np.asarray(angular, dtype=np.float64).reshape(3)
    pose[:3, 3] += v * dt
    speed = float(np.linalg.norm(w))
    if speed > 0.0 and dt != 0.0:
        pose[:3, :3] = axis_angle_matrix(w / speed, speed * dt) @ pose[:3, :3]
    return pose


def check_children(
    element: Element,
    *,
    file: str | None,
    attributes: Collection[str],
    elements: Collection[str] = (),
) -> None:
    """Reject attributes and child elements that the scene format does not define."""
    for key in element.attrib:
        if key not in attributes:
            expected = ', '.join(sorted(attributes)) or 'none'
            problem = f'unknown attribute {key!r} (expected one of: {expected})'
            raise_at(SceneError, element, problem, file=file)
    for child in children(element):
        if child.tag not in elements:
            problem = f'unknown element <{child.tag}> in <{element.tag}>'
            raise_at(SceneError, child, problem, element=label(element), file=file)


def floats_attribute(
    element: Element, key: str, count: int, *, file: str | None, default: float = 0.0
) -> NDArray[np.float64]:
    """Attribute ``key`` as ``count`` finite floats separated by spaces; ``default``s if absent."""
    text = element.get(key)
    if text is None:
        return np.full(count, default)
    try:
        return np.array(parse_numbers(text, count))
    except NumberError as err:
        raise_at(SceneError, element, f'{key}={text!r} {err.reason(text, count)}', file=file)


def _bounded_attribute(
    element: Element, key: str, bound: float, unit: str, *, file: str | None
) -> NDArray[np.float64]:
    """Attribute ``key`` as 3 finite floats, each within ``[-bound, bound]``; zeros if absent."""
    values = floats_attribute(element, key, 3, file=file)
    if not np.all(np.abs(values) <= bound):
        text = element.get(key)
        problem = f'{key}={text!r} must have each number in [-{bound:.0f}, {bound:.0f}] {unit}'
        raise_at(SceneError, element, problem, file=file)
    return values


def _entity_state(element: Element, *, file: str | None) -> EntityState:
    check_children(
        element, file=file, attributes=('model',), elements=('parent', 'origin', 'twist')
    )
    model = required_attribute(
        element, 'model', SceneError, strip=True, problem=MISSING_ATTRIBUTE, file=file
    )
    by_tag: dict[str, Element] = {}
    for child in children(element):
        if child.tag in by_tag:
            raise_at(
                SceneError,
                child,
                f'more than one <{child.tag}>',
                element=label(element),
                file=file,
            )
        by_tag[child.tag] = child
    parent = by_tag.get('parent')
    if parent is None:
        raise_at(SceneError, element, 'missing required element <parent frame="...">', file=file)
    check_children(parent, file=file, attributes=('frame',))
    frame = required_attribute(
        parent, 'frame', SceneError, strip=True, problem=MISSING_ATTRIBUTE, file=file
    )
    origin = np.eye(4)
    if (element_origin := by_tag.get('origin')) is not None:
        check_children(element_origin, file=file, attributes=('xyz', 'rpy'))
        xyz = _bounded_attribute(element_origin, 'xyz', MAX_POSITION, 'm', file=file)
        rpy = _bounded_attribute(element_origin, 'rpy', MAX_ANGLE, 'rad', file=file)
        origin = transform_from_xyz_rpy(xyz, rpy)
    linear, angular = np.zeros(3), np.zeros(3)
    if (twist := by_tag.get('twist')) is not None:
        check_children(twist, file=file, attributes=('linear', 'angular'))
        linear = _bounded_attribute(twist, 'linear', MAX_LINEAR, 'm/s', file=file)
        angular = _bounded_attribute(twist, 'angular', MAX_ANGULAR, 'rad/s', file=file)
    return EntityState(model, frame, origin, linear, angular, element.sourceline)


def parse_scene_state(element: Element | str | bytes, *, source: str | None = None) -> SceneState:
    """Parse a ``<scene_state>`` element, or its XML document, into a :class:`SceneState`.

    Raises:
        SceneError: malformed XML, a missing or unknown attribute or element, a number that
            is not a finite number, or two states for one model.

    """
    root = (
        parse_document(element, source, SceneError)
        if isinstance(element, (str, bytes))
        else element
    )
    if root.tag != 'scene_state':
        raise_at(SceneError, root, f'expected <scene_state>, got <{root.tag}>', file=source)
    check_children(
        root, file=source, attributes=('scene', 'time_stamp'), elements=('entity_state',)
    )
    scene = required_attribute(
        root, 'scene', SceneError, strip=True, problem=MISSING_ATTRIBUTE, file=source
    )
    stamp_text = required_attribute(
        root, 'time_stamp', SceneError, strip=True, problem=MISSING_ATTRIBUTE, file=source
    )
    try:
        time_stamp = parse_number(stamp_text)
    except NumberError:
        problem = f'time_stamp={stamp_text!r} is not a finite number of seconds'
        raise_at(SceneError, root, problem, file=source)
    if not abs(time_stamp) <= MAX_TIME_STAMP:
        limit = f'{MAX_TIME_STAMP:.0f}'
        problem = f'time_stamp={stamp_text!r} must be in [-{limit}, {limit}] s'
        raise_at(SceneError, root, problem, file=source)
    entities: list[EntityState] = []
    for child in children(root):
        state = _entity_state(child, file=source)
        if any(e.model == state.model for e in entities):
            raise_at(SceneError, child, f'a second state for model {state.model!r}', file=source)
        entities.append(state)
    return SceneState(scene, time_stamp, tuple(entities), source, root.sourceline)


def load_scene_state(path: str | Path) -> SceneState:
    """Read a :class:`SceneState` from a file whose root element is ``<scene_state>``."""
    return parse_scene_state(read_document(path, SceneError), source=str(path))
