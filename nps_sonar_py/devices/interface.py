"""The Ranger interface every device implements: geometry, configuration, pose, reading.

After Player's ``ranger`` interface (Player/Stage,
``libplayerinterface/interfaces/062_ranger.def``): a device has a :class:`RangerGeometry` (its
pose and size, each element's pose and size) and a :class:`RangerConfig` (angles, angular
resolution, ranges, range resolution, frequency). ``SetConfig`` goes through
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
from enum import StrEnum
from typing import Any, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo import EchoConfig
from nps_sonar_py.limits import MAX_POSITION
from nps_sonar_py.sensing.caster import SurfaceCaster

__all__ = [
    'MAX_ANGLE',
    'MAX_FREQUENCY',
    'MAX_RANGE',
    'MAX_STEPS',
    'MIN_FREQUENCY',
    'MIN_RESOLUTION',
    'STEPS_TOLERANCE',
    'BasebandBeams',
    'BasebandFrame',
    'BasebandSource',
    'Beam',
    'Device',
    'IndependentReadings',
    'RangerConfig',
    'RangerGeometry',
    'config_problem',
    'frequency_problem',
    'steps_problem',
    'window_problem',
]

# The bounds of every RangerConfig (a SetConfig request or a start parameter), checked by
# config_problem before any device looks at it: far beyond real devices, they keep the timer
# period 1 / frequency, the counts span / resolution and the ranges finite and small, so that
# no request can overflow a computation or stall the node.

#: Fastest frequency any device accepts, Hz (a guard, not physics).
MAX_FREQUENCY = 1000.0
#: Slowest frequency any device accepts, Hz: a reading every 10000 s (2.8 h; a sweep step of
#: the longest step_period, 3600 s, still fits). Slower would give a timer period rclpy cannot
#: hold (5e-324 Hz: inf s; 1e-12 Hz: 1e21 ns, beyond int64).
MIN_FREQUENCY = 1e-4
#: Largest |angle| of min_angle and max_angle, rad: two turns either way (a head or a fan axis
#: is never further round than that).
MAX_ANGLE = 4.0 * math.pi
#: Largest range, m (the bound of positions, ``nps_sonar_py.limits.MAX_POSITION``).
MAX_RANGE = MAX_POSITION
#: Smallest non-zero angular or range resolution, rad or m (0 means none or "keep").
MIN_RESOLUTION = 1e-9
#: Most angular steps (readings, beams, head steps) from min_angle to max_angle.
MAX_STEPS = 1_000_000
#: Relative tolerance when a requested value must match a fixed or derived one.
TOLERANCE = 1e-6
#: A span is a whole number of angular_resolution steps when within this fraction of a step.
STEPS_TOLERANCE = 1e-4

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


def frequency_problem(frequency: float) -> str | None:
    """Why ``frequency`` (readings per second) is outside what any device does, or ``None``."""
    if not MIN_FREQUENCY <= frequency <= MAX_FREQUENCY:  # nan fails too
        return f'frequency must be in [{MIN_FREQUENCY:g}, {MAX_FREQUENCY:g}] Hz, got {frequency!r}'
    return None


def _resolution_problem(name: str, value: float, high: float, unit: str) -> str | None:
    if value != 0.0 and not MIN_RESOLUTION <= value <= high:
        return f'{name} must be 0 or in [{MIN_RESOLUTION:g}, {high:.6g}] {unit}, got {value!r}'
    return None


def config_problem(config: RangerConfig) -> str | None:
    """Why ``config`` is impossible for any device (out of bounds, disordered...), or ``None``.

    The shared bounds (module constants): angles within +-``MAX_ANGLE``, ranges within
    [0, ``MAX_RANGE``], resolutions 0 or within [``MIN_RESOLUTION``, a turn or ``MAX_RANGE``],
    frequency within [``MIN_FREQUENCY``, ``MAX_FREQUENCY``].
    """
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f'{f.name} must be a number, got {value!r}'
        if not math.isfinite(value):
            return f'{f.name} must be finite, got {value!r}'
    for name in ('min_angle', 'max_angle'):
        value = getattr(config, name)
        if abs(value) > MAX_ANGLE:
            return f'{name} must be in [-4 pi, 4 pi] rad, got {value!r}'
    if config.max_angle < config.min_angle:
        return f'max_angle ({config.max_angle!r}) must be >= min_angle ({config.min_angle!r})'
    if config.angular_resolution < 0.0:
        return f'angular_resolution must be >= 0 rad, got {config.angular_resolution!r}'
    problem = _resolution_problem(
        'angular_resolution', config.angular_resolution, 2.0 * math.pi, 'rad'
    )
    if problem:
        return problem
    if config.min_range < 0.0:
        return f'min_range must be >= 0 m, got {config.min_range!r}'
    if config.max_range > MAX_RANGE:
        return f'max_range must be <= {MAX_RANGE:g} m, got {config.max_range!r}'
    if config.max_range <= config.min_range:
        return f'max_range ({config.max_range!r}) must be > min_range ({config.min_range!r})'
    if config.range_resolution < 0.0:
        return f'range_resolution must be >= 0 m, got {config.range_resolution!r}'
    problem = _resolution_problem('range_resolution', config.range_resolution, MAX_RANGE, 'm')
    return problem or frequency_problem(config.frequency)


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
    """Number of ``angular_resolution`` intervals from ``min_angle`` to ``max_angle`` (whole).

    Whole within ``1e-4`` of a step (``STEPS_TOLERANCE``), and at most ``MAX_STEPS``. Expects a
    ``config`` that :func:`config_problem` accepted (finite, bounded).
    """
    span, resolution = config.max_angle - config.min_angle, config.angular_resolution
    if span == 0.0:
        return 0, None
    if resolution <= 0.0:
        return 0, f'angular_resolution must be > 0 for a span of {span:.6g}'
    if span / resolution > MAX_STEPS:
        return (
            0,
            f'the span {span:.6g} rad is more than {MAX_STEPS} steps of angular_resolution '
            f'{resolution:.6g} rad',
        )
    count = round(span / resolution)
    if count < 1 or abs(count * resolution - span) > STEPS_TOLERANCE * resolution + 1e-12:
        return (
            0,
            f'the span {span:.6g} is not a whole number of angular_resolution steps '
            f'({resolution:.6g})',
        )
    return count, None


class BasebandFrame(StrEnum):
    """The frame a kind's baseband is published in (``docs/marine.md``).

    ``acoustic``: ``<frame>_acoustic`` (z forward, x up, y starboard: a beam at azimuth ``a``
    has ``rx_angle -a``); ``frd``: ``<frame>_frd``, with the angles of the kind's raw image
    or detections.
    """

    ACOUSTIC = 'acoustic'
    FRD = 'frd'


@dataclass(frozen=True, eq=False)
class BasebandBeams:
    """Where a reading's baseband beams look, as its kind says (``BasebandSource``).

    Attributes:
        rx_angles: (N,) each beam's receive angle in the baseband's frame, rad.
        tx_width: the transmit beam width, rad.
        rx_width: the receive beam width, rad.
    """

    rx_angles: NDArray[np.float64]
    tx_width: float
    rx_width: float


class BasebandSource(Protocol):
    """A device whose readings may carry a baseband (``reading.echo.coherent``)."""

    baseband_frame: BasebandFrame

    @property
    def echo(self) -> EchoConfig:
        """Its echo configuration (carrier, sound speed)."""
        ...

    def baseband_beams(self, reading: Any) -> BasebandBeams:
        """The reading's beams: their angles and widths."""
        ...
