"""URDF joints as records: their type, limit, mimic and the joint itself.

Each checks itself when built (``docs/description.md``); ``kinematics`` computes their poses
and ``urdf`` reads them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.description.values import (
    NON_NEGATIVE,
    FieldError,
    RecordEq,
    as_transform,
    check_fields,
)

__all__ = ['LIMIT_TOLERANCE', 'Joint', 'JointLimit', 'JointType', 'Mimic']

#: How far past its ``<limit>`` a revolute or prismatic joint's position is still taken, rad or
#: m: a simulator holds a joint at its limit softly and may report it a little beyond; farther
#: out is not a position the robot can take.
LIMIT_TOLERANCE = 1e-3


class JointType(Enum):
    """URDF joint types; the value is the ``type`` attribute."""

    FIXED = 'fixed'
    REVOLUTE = 'revolute'
    CONTINUOUS = 'continuous'
    PRISMATIC = 'prismatic'
    FLOATING = 'floating'
    PLANAR = 'planar'


@dataclass(frozen=True)
class JointLimit:
    """``<limit>``: position range (radians or metres, ``lower <= upper``), effort and velocity."""

    lower: float = 0.0
    upper: float = 0.0
    effort: float | None = field(default=None, metadata={'bound': NON_NEGATIVE})
    velocity: float | None = field(default=None, metadata={'bound': NON_NEGATIVE})

    def __post_init__(self) -> None:
        check_fields(self)
        if self.upper < self.lower:
            raise FieldError('upper', f'must be >= lower ({self.lower!r}), got {self.upper!r}')


@dataclass(frozen=True)
class Mimic:
    """``<mimic joint multiplier offset>``: position = multiplier * position(joint) + offset."""

    joint: str
    multiplier: float = 1.0
    offset: float = 0.0


@dataclass(frozen=True, eq=False)
class Joint(RecordEq):
    """One URDF joint.

    Attributes:
        name: unique among the robot's joints.
        type: how it moves.
        parent: parent link name.
        child: child link name.
        origin: (4, 4) float64 transform parent_link <- joint frame at position 0, read-only.
        axis: (3,) float64 unit axis in the joint frame (default 1 0 0), read-only.
        limit: ``<limit>``, required for revolute and prismatic joints, else optional.
        mimic: ``<mimic>``, if any.
        source: the file (or ``'<robot_description>'``) it was read from.
        line: its line there, ``None`` when built in code.

    """

    name: str
    type: JointType
    parent: str
    child: str
    origin: NDArray[np.float64]
    axis: NDArray[np.float64] = field(default_factory=lambda: np.array([1.0, 0.0, 0.0]))
    limit: JointLimit | None = None
    mimic: Mimic | None = None
    source: str = '<code>'
    line: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, 'origin', as_transform(self.origin, 'origin'))
        axis = np.array(self.axis, dtype=np.float64)
        if axis.shape != (3,) or not all(math.isfinite(v) for v in axis.tolist()):
            raise FieldError('axis', 'must be 3 finite numbers')
        largest = float(np.max(np.abs(axis)))
        if largest == 0.0:
            raise FieldError('axis', 'must not be zero')
        axis = axis / largest  # first, so that the norm of 1e300 1e300 0 does not overflow
        axis = axis / float(np.linalg.norm(axis))
        axis.flags.writeable = False
        object.__setattr__(self, 'axis', axis)

    def position_problem(self, position: float) -> str | None:
        """Why the robot cannot take ``position`` (rad or m) of this joint, or None if it can.

        A revolute or prismatic joint moves within its ``<limit>`` ``[lower, upper]`` (give or
        take :data:`LIMIT_TOLERANCE`); a continuous joint counts turns without end, and fixed,
        floating and planar joints take no single position: no range for them here.
        """
        if self.type not in (JointType.REVOLUTE, JointType.PRISMATIC) or self.limit is None:
            return None
        lower, upper = self.limit.lower, self.limit.upper
        if lower - LIMIT_TOLERANCE <= position <= upper + LIMIT_TOLERANCE:  # nan: outside
            return None
        unit = 'rad' if self.type is JointType.REVOLUTE else 'm'
        return f'{position:g} {unit} is outside the limits [{lower:g}, {upper:g}] {unit}'
