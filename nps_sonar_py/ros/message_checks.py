"""Checks of the messages that move a sensor node, before it uses them: pure functions, no node.

Each check returns the message's first problem, naming the field as a path into the message
(``'pose.pose.position.x is nan'``), or None when the message can be used. ``ros/motion.py``
drops a message with a problem whole and keeps its last good state. Only the fields a node
reads are checked: an odometry's twist and covariances, a joint state's velocities and
efforts, are not used and may hold anything.

The bounds are far beyond any real use and exist to stop nonsense (uninitialised memory, a
diverged filter, a unit mix-up) before it reaches the raycaster, where a nan, an inf or an
overflow stopped the node or made an entity vanish:

* :data:`MAX_POSITION`, 1e6 m, per coordinate of a pose: a thousand kilometres, beyond any
  tank, harbour or survey area. Open3D casts in float32, whose spacing there is already
  6 cm, so a robot farther out would get meaningless ranges anyway; products of poses stay
  far from float64 overflow.
* :data:`MAX_LINEAR`, 1e4 m/s, per component of an entity's linear twist: about seven times
  the speed of sound in water, faster than anything an echo sounder works on. An entity
  moving at it for a century is still about 3e13 m away: finite.
* :data:`MAX_ANGULAR`, 1e3 rad/s, per component of an entity's angular twist: about 160 turns
  a second, above any propeller or sonar head. It keeps the turn ``|w| dt`` finite and
  resolved (under 1e12 rad after 30 years); an overflow to inf made the rotation nan and
  the entity vanished.
* :data:`MAX_JOINT_POSITION`, 1e9 rad or m: a message does not say whether a joint turns or
  slides, and a continuous joint (a wheel) counts turns without end: 1e9 rad is five years
  of a wheel at 1 turn/s, where angles still resolve 1e-7 rad. It keeps a prismatic joint's
  translation finite through every product too.
* Quaternions: finite, with a norm in [:data:`MIN_QUATERNION_NORM`,
  :data:`MAX_QUATERNION_NORM`] = [1e-6, 1e6]; they are normalised when used, as before.
  Shorter is a zero quaternion (an unset orientation) plus rounding, whose direction is noise;
  the upper bound is its mirror, and keeps the normalisation's sum of squares far from
  overflow.
* :data:`MAX_JOINTS` names in a joint state (10 000) and :data:`MAX_ENTITIES` entities in a
  scene state (1 000), checked before anything is built from them: a robot or a world has a
  few dozen; each one costs Python work between two readings. A scene state is read raw and
  its count checked in its bytes before rclpy deserialises it (``ros/scene_state_reader.py``):
  rclpy builds Python objects for every field of every entity, about 20 to 50 us an entity
  (10 000: 0.2 to 0.5 s, several pings; 1 000: under one ping at 10 Hz).
* A scene state's ``header.stamp`` must be a valid time: ``sec >= 0`` (``rclpy.time.Time``
  refuses negative seconds, which raised in the callback and stopped the node) and
  ``nanosec < 1e9``.
* Names (joint names, entity models) must not be empty: nothing is called ``''``. A scene
  state gives at most one state per model (a scene file refuses two as well); its scene name
  and models are checked against the world when it is applied, whole or not at all.
* A joint state may carry no positions (only velocities or efforts, as ``sensor_msgs/
  JointState`` allows): nothing is taken from it. Otherwise it has a position per name.
* A ``tf2_msgs/TFMessage`` (``/tf``, ``/tf_static``) holds at most :data:`MAX_TRANSFORMS`
  transforms, counted before any is looked at; each has a valid stamp, a parent and a child
  frame (not empty once a leading ``/`` is dropped, as tf2 drops it, and not the same), a
  translation within :data:`MAX_POSITION` and a rotation as above. One bad transform spoils
  the message: tf2 publishers send a robot's transforms together.
"""

from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.limits import (
    MAX_ANGULAR,
    MAX_JOINT_POSITION,
    MAX_LINEAR,
    MAX_POSITION,
    MAX_QUATERNION_NORM,
    MIN_QUATERNION_NORM,
)

if TYPE_CHECKING:
    from builtin_interfaces.msg import Time
    from geometry_msgs.msg import Point, Pose, PoseStamped, Quaternion, Twist, Vector3
    from nav_msgs.msg import Odometry
    from sensor_msgs.msg import JointState

    from nps_sonar import msg as nps_msg
    from nps_sonar_py.devices.transform_buffer import TransformBatch

__all__ = [
    'MAX_ANGULAR',
    'MAX_ENTITIES',
    'MAX_JOINTS',
    'MAX_JOINT_POSITION',
    'MAX_LINEAR',
    'MAX_POSITION',
    'MAX_QUATERNION_NORM',
    'MAX_TRANSFORMS',
    'MIN_QUATERNION_NORM',
    'joint_state_problem',
    'number_problem',
    'odometry_problem',
    'pose_problem',
    'pose_stamped_problem',
    'quaternion_problem',
    'scene_state_problem',
    'stamp_problem',
    'tf_message_problem',
    'twist_problem',
]

#: Most names in one ``sensor_msgs/JointState``.
MAX_JOINTS = 10_000
#: Most entities in one ``nps_sonar/SceneState``: its deserialisation within a ping.
MAX_ENTITIES = 1_000
#: Most transforms in one ``tf2_msgs/TFMessage``.
MAX_TRANSFORMS = 10_000

_NANOSECONDS = 10**9


def number_problem(name: str, value: float, bound: float, unit: str) -> str | None:
    """Why field ``name`` holding ``value`` is unusable (nan, inf, beyond ``bound``), or None."""
    value = float(value)
    if math.isnan(value):
        return f'{name} is nan'
    if math.isinf(value):
        return f'{name} is {value!r}'
    if abs(value) > bound:
        return f'{name} is {value!r}, beyond the bound of {bound:g} {unit}'
    return None


def _vector_problem(name: str, vector: Point | Vector3, bound: float, unit: str) -> str | None:
    for axis in 'xyz':
        problem = number_problem(f'{name}.{axis}', getattr(vector, axis), bound, unit)
        if problem is not None:
            return problem
    return None


def quaternion_problem(q: Quaternion, name: str = 'orientation') -> str | None:
    """Why quaternion ``q`` is no rotation: a component not finite, a norm out of the band."""
    return _rotation_problem([q.x, q.y, q.z, q.w], name)


def _rotation_problem(values: list[float], name: str) -> str | None:
    """:func:`quaternion_problem` of the components ``(x, y, z, w)``."""
    for axis, value in zip('xyzw', map(float, values), strict=True):
        if not math.isfinite(value):
            return f'{name}.{axis} is {value!r}'
    norm = math.hypot(*values)  # scaled: no overflow or underflow on the way
    if norm < MIN_QUATERNION_NORM:
        return f'{name} has norm {norm:.3g}, below {MIN_QUATERNION_NORM:g}'
    if norm > MAX_QUATERNION_NORM:
        return f'{name} has norm {norm:.3g}, above {MAX_QUATERNION_NORM:g}'
    return None


def pose_problem(pose: Pose, name: str = 'pose') -> str | None:
    """Why a ``geometry_msgs/Pose`` cannot place anything, or None."""
    problem = _vector_problem(f'{name}.position', pose.position, MAX_POSITION, 'm')
    return problem or quaternion_problem(pose.orientation, f'{name}.orientation')


def twist_problem(twist: Twist, name: str = 'twist') -> str | None:
    """Why a ``geometry_msgs/Twist`` cannot move anything, or None."""
    problem = _vector_problem(f'{name}.linear', twist.linear, MAX_LINEAR, 'm/s')
    return problem or _vector_problem(f'{name}.angular', twist.angular, MAX_ANGULAR, 'rad/s')


def odometry_problem(message: Odometry) -> str | None:
    """Why a ``nav_msgs/Odometry`` cannot place the robot (only its pose is read), or None."""
    return pose_problem(message.pose.pose, 'pose.pose')


def pose_stamped_problem(message: PoseStamped) -> str | None:
    """Why a ``geometry_msgs/PoseStamped`` cannot place the robot, or None."""
    return pose_problem(message.pose, 'pose')


def joint_state_problem(message: JointState) -> str | None:
    """Why a ``sensor_msgs/JointState`` cannot set joint positions, or None.

    The number of names is checked first, before anything is built from them; the
    positions are checked as one array.
    """
    names, positions = message.name, message.position
    if len(names) > MAX_JOINTS:
        return f'name has {len(names)} entries, more than {MAX_JOINTS}'
    if '' in names:
        return f'name[{names.index("")}] is empty'
    if len(positions) == 0:  # velocities or efforts only: no positions to take
        return None
    if len(positions) != len(names):
        return f'name and position differ in length: {len(names)} and {len(positions)}'
    values = np.asarray(positions, dtype=np.float64)
    bad = ~(np.abs(values) <= MAX_JOINT_POSITION)  # nan compares false: bad too
    if not bad.any():
        return None
    i = int(np.argmax(bad))
    problem = number_problem(f'position[{i}]', values[i], MAX_JOINT_POSITION, 'rad or m')
    return f'{problem} (joint {names[i]!r})'


def stamp_problem(stamp: Time, name: str = 'header.stamp') -> str | None:
    """Why a ``builtin_interfaces/Time`` is not a valid time (negative, nanosec past 1e9)."""
    return _stamp_problem(stamp.sec, stamp.nanosec, name)


def _stamp_problem(sec: int, nanosec: int, name: str) -> str | None:
    if sec < 0:
        return f'{name}.sec is {sec}, negative'
    if nanosec >= _NANOSECONDS:
        return f'{name}.nanosec is {nanosec}, not below 1e9'
    return None


def scene_state_problem(message: nps_msg.SceneState) -> str | None:
    """Why an ``nps_sonar/SceneState`` cannot be applied, or None: one bad entity spoils it.

    The number of entities is checked first, before any entity is looked at; two states for
    one model are refused, as in a scene file. What needs the world (the scene's name, the
    models and their parent frames) is checked when the message is applied
    (``scene.scene_state.update_problem``).
    """
    problem = stamp_problem(message.header.stamp)
    if problem is not None:
        return problem
    entities = message.entities
    if len(entities) > MAX_ENTITIES:
        return f'entities has {len(entities)} entries, more than {MAX_ENTITIES}'
    first: dict[str, int] = {}
    for i, entity in enumerate(entities):
        name = f'entities[{i}]'
        if not entity.model:
            return f'{name}.model is empty'
        if entity.model in first:
            earlier = f'entities[{first[entity.model]}]'
            problem = f'{name}.model {entity.model!r} has a state in {earlier} already'
            return f'{problem}: two states for one model'
        first[entity.model] = i
        problem = pose_problem(entity.pose, f'{name}.pose')
        problem = problem or twist_problem(entity.twist, f'{name}.twist')
        if problem is not None:
            return f'{problem} (model {entity.model!r})'
    return None


def _norm_out_of_band(q: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Whether each finite quaternion row's norm is outside the band (as :func:`math.hypot`).

    Scaled by the largest component, so that no square overflows or underflows; a norm
    within rounding of a bound is worked out by ``math.hypot``, as one quaternion is.
    """
    scale = np.max(np.abs(q), axis=1)
    safe = np.where(scale > 0.0, scale, 1.0)
    norm = scale * np.sqrt(np.sum((q / safe[:, None]) ** 2, axis=1))
    out = (norm < MIN_QUATERNION_NORM) | (norm > MAX_QUATERNION_NORM)
    near = np.flatnonzero(
        (np.abs(norm - MIN_QUATERNION_NORM) <= 1e-9 * MIN_QUATERNION_NORM)
        | (np.abs(norm - MAX_QUATERNION_NORM) <= 1e-9 * MAX_QUATERNION_NORM)
    )
    for k in near.tolist():
        exact = math.hypot(*q[k].tolist())
        out[k] = exact < MIN_QUATERNION_NORM or exact > MAX_QUATERNION_NORM
    return out


def tf_message_problem(batch: TransformBatch) -> str | None:
    """Why the transforms of a ``tf2_msgs/TFMessage`` cannot be used, or None.

    One bad transform spoils the message; the first is named. Checked as arrays, for the
    whole message at once (``ros/tf_reader.py`` reads it, counted first); only the first bad
    transform is looked at one by one, for its words.
    """
    n = len(batch)
    if n > MAX_TRANSFORMS:
        return f'transforms has {n} entries, more than {MAX_TRANSFORMS}'
    if n == 0:
        return None
    parents, children = batch.parents, batch.children
    t, q = batch.translations, batch.rotations
    with np.errstate(invalid='ignore', over='ignore'):
        bad = (batch.sec < 0) | (batch.nanosec >= _NANOSECONDS)
        bad |= ~np.all(np.abs(t) <= MAX_POSITION, axis=1)  # nan compares false: bad too
        finite = np.all(np.isfinite(q), axis=1)
        bad |= ~finite | _norm_out_of_band(np.where(finite[:, None], q, 0.0))
    first = [int(np.argmax(bad))] if bad.any() else []
    # the names, as lists (a scan in C each): empty ones, and a child named as its parent
    first += [names.index('') for names in (parents, children) if '' in names]
    if any(map(operator.eq, children, parents)):
        first.append(
            next(k for k, (c, p) in enumerate(zip(children, parents, strict=True)) if c == p)
        )
    if not first:
        return None
    i = min(first)
    name, parent, child = f'transforms[{i}]', parents[i], children[i]
    problem = _stamp_problem(int(batch.sec[i]), int(batch.nanosec[i]), f'{name}.header.stamp')
    if problem is not None:
        return problem
    if not parent:
        return f'{name}.header.frame_id is empty'
    if not child:
        return f'{name}.child_frame_id is empty'
    if child == parent:
        return f'{name}.child_frame_id is its own parent {child!r}'
    for axis, value in zip('xyz', t[i].tolist(), strict=True):
        problem = number_problem(f'{name}.transform.translation.{axis}', value, MAX_POSITION, 'm')
        if problem is not None:
            return f'{problem} ({parent!r} -> {child!r})'
    problem = _rotation_problem(q[i].tolist(), f'{name}.transform.rotation')
    return f'{problem} ({parent!r} -> {child!r})'
