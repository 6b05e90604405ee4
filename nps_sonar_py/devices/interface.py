"""The Ranger interface every device implements: geometry, configuration, pose, reading.

After Player's ``Ranger`` (``shared/seeds/001``): a device has a :class:`RangerGeometry`
(its pose and size, each element's pose and size) and a :class:`RangerConfig` (angles,
angular resolution, ranges, range resolution, frequency). ``SetConfig`` goes through
:meth:`Device.reconfigure`, which returns a reason instead of applying an impossible
configuration, so that the device keeps its last good one.

What ``RangerConfig`` means per device (``docs/ranger.md``):

| field | scanner | sonar (array) | scanning sonar | multibeam |
| --- | --- | --- | --- | --- |
| min/max_angle | first/last reading | -/+ cone half angle | first/last head | first/last axis |
| angular_resolution | reading spacing | cone full angle | head step | beam spacing |
| range_resolution | rounding of ranges | rounding of ranges | range bin width | range bin width |
| frequency | scans/s | pings/s | steps (pings)/s | pings/s |

Frames: element poses are x-forward body frames in the *device* frame; the device pose is
in the robot's root link. No rclpy here.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.sensing.caster import SurfaceCaster

__all__ = [
    'MAX_FREQUENCY',
    'Beam',
    'Device',
    'IndependentReadings',
    'RangerConfig',
    'RangerGeometry',
    'config_problem',
    'steps_problem',
    'window_problem',
]

#: Fastest frequency any device accepts, Hz (a guard, not physics).
MAX_FREQUENCY = 1000.0
#: Relative tolerance when a requested value must match a fixed or derived one.
TOLERANCE = 1e-6

ReadingT_co = TypeVar('ReadingT_co', covariant=True)


@dataclass(frozen=True)
class RangerConfig:
    """Player's ``RangerConfig``; SI units (rad, m, Hz). Validated by :func:`config_problem`."""

    min_angle: float
    max_angle: float
    angular_resolution: float
    min_range: float
    max_range: float
    range_resolution: float
    frequency: float


@dataclass(frozen=True, eq=False)
class RangerGeometry:
    """Where a device and its elements are and how big they are.

    Attributes:
        parent_frame: frame the device pose is expressed in (the robot's root link).
        device_frame: the device's frame (the ``frame_id`` of its messages).
        pose: (4, 4) parent_frame <- device frame.
        size: (3,) extent of the device in its frame, m.
        element_frames: name of each element's frame (its ``Range`` messages' ``frame_id``).
        element_poses: (k, 4, 4) device frame <- element body frame (x forward).
        element_sizes: (k, 3) m.
    """

    parent_frame: str
    device_frame: str
    pose: NDArray[np.float64]
    size: NDArray[np.float64]
    element_frames: tuple[str, ...]
    element_poses: NDArray[np.float64]
    element_sizes: NDArray[np.float64]

    @classmethod
    def of_elements(
        cls,
        parent_frame: str,
        device_frame: str,
        pose: NDArray[np.float64],
        element_frames: Sequence[str],
        element_poses: NDArray[np.float64],
        element_size: Sequence[float],
    ) -> RangerGeometry:
        """Geometry sized as the box of the elements' origins grown by the element size."""
        poses = np.asarray(element_poses, dtype=np.float64).reshape(-1, 4, 4)
        sizes = np.broadcast_to(
            np.asarray(element_size, dtype=np.float64), (poses.shape[0], 3)
        ).copy()
        origins = poses[:, :3, 3]
        size = origins.max(axis=0) - origins.min(axis=0) + sizes.max(axis=0)
        return cls(
            parent_frame,
            device_frame,
            np.asarray(pose, dtype=np.float64),
            size,
            tuple(element_frames),
            poses,
            sizes,
        )


@dataclass(frozen=True, eq=False)
class Beam:
    """A sonar beam as rviz draws it: a cone and the last hits of its rays, in ``frame``.

    Attributes:
        frame: the element's x-forward frame.
        half_angle: half angle of the cast cone, rad.
        length: the cone's length (the maximum range), m.
        directions: (n, 3) unit ray directions in ``frame``.
        ranges: (n,) range of each ray at the last reading (inf on a miss).
    """

    frame: str
    half_angle: float
    length: float
    directions: NDArray[np.float64]
    ranges: NDArray[np.floating]


class Device(Protocol[ReadingT_co]):
    """What every simulated device offers: one protocol, so that no node switches on device types.

    A device keeps its rays built once per configuration and moves them with its pose;
    :meth:`read` casts them once and returns the device's reading.
    """

    #: Frames and poses of the device and its elements (the robot's joints may change it).
    geometry: RangerGeometry
    #: Whether a reading that falls due while the node is busy is still taken (the steps of a
    #: sweep, each at its own time) rather than dropped (independent pings and scans).
    catch_up: bool

    @property
    def period(self) -> float:
        """Seconds between readings."""
        ...

    @property
    def cycle_length(self) -> int:
        """Readings in one cycle: a sweep's steps; 1 where readings are independent."""
        ...

    def set_pose(self, world_from_device: NDArray[np.float64]) -> None:
        """Place the device: the 4x4 pose of its x-forward body frame in the world."""
        ...

    def read(self, caster: SurfaceCaster) -> ReadingT_co:
        """Cast once from the current pose and turn the hits into the device's reading."""
        ...

    def restart(self) -> None:
        """Start a new cycle: the next reading is the first of a sweep (no-op for others)."""
        ...

    def ranger_config(self) -> RangerConfig:
        """The configuration in force."""
        ...

    def reconfigure(self, config: RangerConfig) -> str | None:
        """Apply ``config`` and return ``None``, or return why not and change nothing."""
        ...

    def beams(self) -> tuple[Beam, ...]:
        """The sonar beams to draw (empty for devices that are not cones of rays)."""
        ...


class IndependentReadings:
    """What a device whose readings are independent of each other shares: no cycle, no catch-up.

    A base of the devices that ping or scan afresh each time (all but the scanning sonar);
    it draws no beams unless the device says otherwise.
    """

    catch_up = False
    cycle_length = 1

    def restart(self) -> None:
        """Readings are independent: nothing to restart."""

    def beams(self) -> tuple[Beam, ...]:
        """No sonar beam to draw."""
        return ()


def config_problem(config: RangerConfig) -> str | None:
    """Why ``config`` is impossible for any device (non-finite, disordered...), or ``None``."""
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if not math.isfinite(value):
            return f'{f.name} must be finite, got {value!r}'
    if config.max_angle < config.min_angle:
        return f'max_angle ({config.max_angle!r}) must be >= min_angle ({config.min_angle!r})'
    if config.angular_resolution < 0.0:
        return f'angular_resolution must be >= 0 rad, got {config.angular_resolution!r}'
    if config.min_range < 0.0:
        return f'min_range must be >= 0 m, got {config.min_range!r}'
    if config.max_range <= config.min_range:
        return f'max_range ({config.max_range!r}) must be > min_range ({config.min_range!r})'
    if config.range_resolution < 0.0:
        return f'range_resolution must be >= 0 m, got {config.range_resolution!r}'
    if not 0.0 < config.frequency <= MAX_FREQUENCY:
        return f'frequency must be in (0, {MAX_FREQUENCY:g}] Hz, got {config.frequency!r}'
    return None


def _within(name: str, low: float, high: float, value: float, what: str) -> str | None:
    slack = TOLERANCE * max(1.0, abs(low), abs(high))
    if value < low - slack or value > high + slack:
        return f'{name} {value:.6g} is outside the {what} [{low:.6g}, {high:.6g}]'
    return None


def window_problem(
    config: RangerConfig,
    angles: tuple[float, float] | None,
    ranges: tuple[float, float],
) -> str | None:
    """Why ``config`` asks for angles or ranges outside what the device can do, or ``None``."""
    checks = []
    if angles is not None:
        checks += [
            ('min_angle', config.min_angle, angles, 'field of view'),
            ('max_angle', config.max_angle, angles, 'field of view'),
        ]
    checks += [
        ('min_range', config.min_range, ranges, 'range window'),
        ('max_range', config.max_range, ranges, 'range window'),
    ]
    for name, value, (low, high), what in checks:
        problem = _within(name, low, high, value, what)
        if problem:
            return problem
    return None


def steps_problem(config: RangerConfig) -> tuple[int, str | None]:
    """Number of ``angular_resolution`` intervals from ``min_angle`` to ``max_angle`` (whole)."""
    span, resolution = config.max_angle - config.min_angle, config.angular_resolution
    if span == 0.0:
        return 0, None
    if resolution <= 0.0:
        return 0, f'angular_resolution must be > 0 for a span of {span:.6g}'
    count = round(span / resolution)
    if count < 1 or abs(count * resolution - span) > 1e-4 * resolution + 1e-12:
        return (
            0,
            f'the span {span:.6g} is not a whole number of angular_resolution steps '
            f'({resolution:.6g})',
        )
    return count, None
