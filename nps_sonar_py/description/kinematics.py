"""Forward kinematics of URDF joints (``joints``) at given joint positions.

Poses are computed one configuration at a time. A joint's transform is
``parent_link <- child_link = origin @ motion(q)``, where ``motion`` is a rotation of ``q``
radians about the unit ``axis`` (revolute, continuous), a translation of ``q`` metres along
it (prismatic), or the identity (fixed). A joint without a position is at 0; a ``<mimic>``
joint without one follows ``multiplier * q_other + offset``. Positions are not clamped to
the limits.

Floating and planar joints have no single position, so a pose below one is not known:
asking for it raises :class:`~nps_sonar_py.errors.DescriptionError` naming the joint. The
robot itself still loads, and ``Robot.chain`` tells which joints a link depends on.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.description.joints import Joint, JointType
from nps_sonar_py.errors import DescriptionError
from nps_sonar_py.transforms import axis_angle_matrix, transform_from

__all__ = ['chain_transform', 'joint_motion', 'joint_transform', 'resolve_positions']


_REVOLVING = frozenset({JointType.REVOLUTE, JointType.CONTINUOUS})


def joint_motion(joint: Joint, position: float) -> NDArray[np.float64]:
    """(4, 4) motion of ``joint`` at ``position`` (radians or metres), in its own frame.

    Raises:
        DescriptionError: a floating or planar joint, whose pose one number cannot give.

    """
    kind = joint.type
    if kind is JointType.FIXED:
        return np.eye(4)
    if kind in _REVOLVING:
        return transform_from(axis_angle_matrix(joint.axis, position), np.zeros(3))
    if kind is JointType.PRISMATIC:
        return transform_from(np.eye(3), position * joint.axis)
    raise DescriptionError(
        f'{kind.value} joint: a pose through it is not given by a joint position, '
        'so links below it cannot be placed',
        file=joint.source,
        line=joint.line,
        element=f'<joint name="{joint.name}">',
    )


def joint_transform(joint: Joint, position: float = 0.0) -> NDArray[np.float64]:
    """(4, 4) transform parent_link <- child_link of ``joint`` at ``position``."""
    return joint.origin @ joint_motion(joint, position)


def resolve_positions(
    joints: Mapping[str, Joint],
    positions: Mapping[str, float] | None,
    needed: Iterable[Joint],
) -> dict[str, float]:
    """Position of every joint in ``needed``: given, else mimicked, else 0.

    Raises:
        ValueError: a position for a joint the robot does not have, or one that is not finite.

    """
    given = dict(positions or {})
    unknown = sorted(set(given) - set(joints))
    if unknown:
        raise ValueError(
            f'positions given for joints the robot does not have: {", ".join(unknown)}'
        )
    for name, value in given.items():
        if not math.isfinite(float(value)):
            raise ValueError(f'position of joint {name!r} is not finite: {value!r}')

    known: dict[str, float] = {name: float(value) for name, value in given.items()}

    def position_of(joint: Joint) -> float:
        # Up the mimic leaders to a known position (the parser has rejected mimic cycles),
        # then back down: a loop, not recursion, so that a long mimic chain costs its length.
        followers: list[tuple[str, float, float]] = []  # name, multiplier, offset
        node = joint
        while node.name not in known and node.mimic is not None:
            followers.append((node.name, node.mimic.multiplier, node.mimic.offset))
            node = joints[node.mimic.joint]
        value = known.setdefault(node.name, 0.0)
        for name, multiplier, offset in reversed(followers):
            value = multiplier * value + offset
            known[name] = value
        return value

    return {joint.name: position_of(joint) for joint in needed}


def chain_transform(chain: Iterable[Joint], positions: Mapping[str, float]) -> NDArray[np.float64]:
    """(4, 4) product of the joint transforms of ``chain`` (root first) at ``positions``."""
    result = np.eye(4)
    for joint in chain:
        result = result @ joint_transform(joint, positions.get(joint.name, 0.0))
    return result
