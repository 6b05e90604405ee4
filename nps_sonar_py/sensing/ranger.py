"""The Ranger interface: one element returning many ranges (a scanner) or many elements returning one each.

After Player's ``Ranger`` (``shared/seeds/001``): a device has a :class:`RangerGeometry`
(its pose and size, each element's pose and size) and a :class:`RangerConfig` (angles,
angular resolution, ranges, range resolution, frequency). ``SetConfig`` goes through
:meth:`RangerDevice.reconfigure`, which returns a reason instead of applying an impossible
configuration, so that the device keeps its last good one.

Devices here:

* :class:`ScannerRanger`: a ray sensor (``sensing.scan.Scanner``), one element.
* :class:`SonarArray`: single-beam sonars (cone + ``echo.EchoModel``) at element poses, many
  elements, each with one range. All elements ping at once and each hears only the echoes
  along its own cone: cross-talk between elements is not simulated.
* :class:`SweepRanger` and :class:`FanRanger`: a scanning sonar and a multibeam fan.

What ``RangerConfig`` means per device (``docs/ranger.md``):

| field | scanner | sonar array | scanning sonar | multibeam |
| --- | --- | --- | --- | --- |
| min/max_angle | first/last reading | -/+ cone half angle | first/last head angle | first/last beam axis |
| angular_resolution | reading spacing | cone full angle | head step | beam spacing |
| range_resolution | rounding of ranges | rounding of ranges | range bin width | range bin width |
| frequency | scans/s | pings/s | steps (pings)/s | pings/s |

Frames: element poses are x-forward body frames in the *device* frame; the device pose is
in the robot's root link. No rclpy here.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.description import Robot, Sensor, SensorType
from nps_sonar_py.echo import EchoConfig, EchoModel, Ping
from nps_sonar_py.errors import ConfigurationError, DescriptionError
from nps_sonar_py.sensing.cone import RayPattern, cone_pattern
from nps_sonar_py.sensing.multibeam import MultibeamSonar, fan_problem
from nps_sonar_py.sensing.scan import AxisSampling, ScanConfig, Scanner, SurfaceCaster
from nps_sonar_py.sensing.sweep import ScanningSonar, SweepConfig, sweep_problem
from nps_sonar_py.transforms import transform_from_xyz_rpy

__all__ = [
    'ArrayReading',
    'FanRanger',
    'RangerConfig',
    'RangerDevice',
    'RangerGeometry',
    'ScannerRanger',
    'SonarArray',
    'SweepRanger',
    'config_problem',
    'element_poses_from_flat',
    'ring_poses',
    'select_sensors',
]

#: Fastest frequency any device accepts, Hz (a guard, not physics).
MAX_FREQUENCY = 1000.0
#: Relative tolerance when a requested value must match a fixed or derived one.
_TOLERANCE = 1e-6


@dataclass(frozen=True)
class RangerConfig:
    """Player's ``RangerConfig``; SI units (rad, m, Hz). Not validated here: see :func:`config_problem`."""

    min_angle: float
    max_angle: float
    angular_resolution: float
    min_range: float
    max_range: float
    range_resolution: float
    frequency: float


def config_problem(config: RangerConfig) -> str | None:
    """Why ``config`` is impossible for any device (non-finite, disordered, negative), or ``None``."""
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
    slack = _TOLERANCE * max(1.0, abs(low), abs(high))
    if value < low - slack or value > high + slack:
        return f'{name} {value:.6g} is outside the {what} [{low:.6g}, {high:.6g}]'
    return None


def _window_problem(
    config: RangerConfig, angles: tuple[float, float] | None, ranges: tuple[float, float],
) -> str | None:
    """Why ``config`` asks for angles or ranges outside what the device can do, or ``None``."""
    checks = []
    if angles is not None:
        checks += [('min_angle', config.min_angle, angles, 'field of view'),
                   ('max_angle', config.max_angle, angles, 'field of view')]
    checks += [('min_range', config.min_range, ranges, 'range window'),
               ('max_range', config.max_range, ranges, 'range window')]
    for name, value, (low, high), what in checks:
        problem = _within(name, low, high, value, what)
        if problem:
            return problem
    return None


def _steps(config: RangerConfig) -> tuple[int, str | None]:
    """Number of ``angular_resolution`` intervals from ``min_angle`` to ``max_angle``, which must be whole."""
    span, resolution = config.max_angle - config.min_angle, config.angular_resolution
    if span == 0.0:
        return 0, None
    if resolution <= 0.0:
        return 0, f'angular_resolution must be > 0 for a span of {span:.6g}'
    count = round(span / resolution)
    if count < 1 or abs(count * resolution - span) > 1e-4 * resolution + 1e-12:
        return 0, f'the span {span:.6g} is not a whole number of angular_resolution steps ({resolution:.6g})'
    return count, None


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
        cls, parent_frame: str, device_frame: str, pose: NDArray[np.float64], element_frames: Sequence[str],
        element_poses: NDArray[np.float64], element_size: Sequence[float],
    ) -> RangerGeometry:
        """Geometry whose size is the box holding every element's origin grown by the element size."""
        poses = np.asarray(element_poses, dtype=np.float64).reshape(-1, 4, 4)
        sizes = np.broadcast_to(np.asarray(element_size, dtype=np.float64), (poses.shape[0], 3)).copy()
        origins = poses[:, :3, 3]
        size = origins.max(axis=0) - origins.min(axis=0) + sizes.max(axis=0)
        return cls(parent_frame, device_frame, np.asarray(pose, dtype=np.float64), size,
                   tuple(element_frames), poses, sizes)


class RangerDevice(Protocol):
    """What the ROS layer needs of a device for the Ranger services."""

    geometry: RangerGeometry

    def ranger_config(self) -> RangerConfig:
        """The configuration in force."""
        ...

    def reconfigure(self, config: RangerConfig) -> str | None:
        """Apply ``config`` and return ``None``, or return why it is impossible and change nothing."""
        ...


# --- selecting sensors and elements --------------------------------------------------------


def select_sensors(robot: Robot, patterns: str) -> list[Sensor]:
    """The sensors named by ``patterns``: comma-separated names or shell globs, in URDF order.

    Empty: the first ``ray`` sensor, else every ``sonar`` sensor. A name that matches nothing
    is an error listing the robot's sensors.
    """
    names = [p.strip() for p in patterns.split(',') if p.strip()]
    chosen: list[Sensor] = []
    available = ', '.join(f'{s.name} ({s.type.value})' for s in robot.sensors) or 'none'
    if not names:
        rays = robot.sensors_of_type(SensorType.RAY)
        chosen += list(rays[:1]) or list(robot.sensors_of_type(SensorType.SONAR))
        if not chosen:
            raise DescriptionError(f'has no ray or sonar <sensor>; sensors: {available}',
                                   file=robot.source, element='<robot>')
        return chosen
    for pattern in names:
        matched = [s for s in robot.sensors if fnmatch.fnmatchcase(s.name, pattern)]
        if not matched:
            raise DescriptionError(f'no <sensor> matches "{pattern}"; sensors: {available}',
                                   file=robot.source, element='<robot>')
        chosen += [s for s in matched if s not in chosen]
    return chosen


def element_poses_from_flat(values: Sequence[float]) -> NDArray[np.float64]:
    """(k, 4, 4) poses from ``[x, y, z, roll, pitch, yaw] * k`` (URDF conventions, m and rad)."""
    flat = [float(v) for v in values]
    if len(flat) % 6 or not flat:
        raise ConfigurationError(
            f'element_poses needs 6 numbers (x y z roll pitch yaw) per element, got {len(flat)}'
        )
    if not all(math.isfinite(v) for v in flat):
        raise ConfigurationError('element_poses must be finite numbers')
    rows = np.array(flat).reshape(-1, 6)
    return np.array([transform_from_xyz_rpy(row[:3], row[3:]) for row in rows])


def ring_poses(count: int, radius: float, *, start: float = 0.0) -> NDArray[np.float64]:
    """(count, 4, 4) elements on a circle about +z, each looking outwards, the first at ``start`` rad."""
    yaw = start + 2.0 * math.pi * np.arange(count) / count
    poses = np.tile(np.eye(4), (count, 1, 1))
    c, s = np.cos(yaw), np.sin(yaw)
    poses[:, 0, 0], poses[:, 0, 1], poses[:, 1, 0], poses[:, 1, 1] = c, -s, s, c
    poses[:, 0, 3], poses[:, 1, 3] = radius * c, radius * s
    return poses


# --- a scanner --------------------------------------------------------------------------


class ScannerRanger:
    """A ray sensor as a Ranger device of one element.

    ``limits`` (the description's configuration) bound what ``SetConfig`` may ask: the angle
    window and the range window can only be narrowed; the reading spacing may change (the
    rays per reading, ``resolution``, and the vertical rows are kept).
    """

    def __init__(
        self, limits: ScanConfig, world_from_body: NDArray[np.float64], geometry: RangerGeometry,
    ) -> None:
        self.limits = limits
        self.geometry = geometry
        self.scanner = Scanner(limits, world_from_body)

    @property
    def config(self) -> ScanConfig:
        """The scanner's configuration in force."""
        return self.scanner.config

    def ranger_config(self) -> RangerConfig:
        """The configuration in Ranger terms."""
        cfg = self.config
        return RangerConfig(
            min_angle=cfg.horizontal.min_angle, max_angle=cfg.horizontal.max_angle,
            angular_resolution=AxisSampling(cfg.horizontal).increment, min_range=cfg.min_range,
            max_range=cfg.max_range, range_resolution=cfg.range_resolution, frequency=cfg.update_rate,
        )

    def reconfigure(self, config: RangerConfig) -> str | None:
        """Apply ``config`` unless impossible (then the reason, and nothing changes)."""
        hw = self.limits.horizontal
        problem = config_problem(config) or _window_problem(
            config, (hw.min_angle, hw.max_angle), (self.limits.min_range, self.limits.max_range),
        )
        if problem:
            return problem
        intervals, problem = _steps(config)
        if problem:
            return problem
        old = self.config
        try:
            horizontal = dataclasses.replace(
                old.horizontal, samples=intervals + 1, min_angle=config.min_angle, max_angle=config.max_angle,
            )
            new = dataclasses.replace(
                old, horizontal=horizontal, min_range=config.min_range, max_range=config.max_range,
                range_resolution=config.range_resolution, update_rate=config.frequency,
            )
            scanner = Scanner(new, self.scanner.world_from_body)
        except (ConfigurationError, ValueError) as error:
            return str(error)
        self.scanner = scanner
        return None


# --- an array of single-beam sonars --------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ArrayReading:
    """One ping of every element: ``ranges`` (k,) m REP 117 and ``intensities`` (k,) linear totals."""

    ranges: NDArray[np.float64]
    intensities: NDArray[np.float64]
    pings: tuple[Ping, ...]


class SonarArray:
    """Single-beam sonars at fixed poses, pinging together; each hears only its own cone.

    Args:
        echo: the beam and echo model shared by every element (``beam_width``, ranges, medium...).
        world_from_device: (4, 4) device frame in the world.
        geometry: frames and poses of the elements (x-forward body frames in the device frame).
        n_rays: rays per element's cone.
        range_resolution: readings are rounded to multiples of it, m; 0 for none.
        frequency: pings per second, at most ``c / (2 max_range)``.
    """

    def __init__(
        self, echo: EchoConfig, world_from_device: NDArray[np.float64], geometry: RangerGeometry, *,
        n_rays: int = 200, range_resolution: float = 0.0, frequency: float = 10.0,
    ) -> None:
        self.geometry = geometry
        self.limits = echo
        self.n_rays = n_rays
        self._world_from_device = np.asarray(world_from_device, dtype=np.float64)
        self._apply(echo, range_resolution, frequency)

    def _apply(self, echo: EchoConfig, range_resolution: float, frequency: float) -> None:
        problem = _array_timing_problem(echo, frequency)
        if problem:
            raise ConfigurationError(problem)
        self.echo = echo
        self.range_resolution = range_resolution
        self.frequency = frequency
        self.pattern: RayPattern = cone_pattern(echo.cast_half_angle, self.n_rays)
        self.model = EchoModel(echo, self.pattern.off_axis, self.pattern.solid_angle)
        #: (elements, rays) range of each ray at the last ping (inf on a miss), for visualisation.
        self.last_ranges: NDArray[np.floating] = np.full((self.size, self.n_rays), np.inf)
        self.set_pose(self._world_from_device)

    def set_pose(self, world_from_device: NDArray[np.float64]) -> None:
        """Place the device; every element follows."""
        self._world_from_device = np.asarray(world_from_device, dtype=np.float64).copy()
        world_from_element = self._world_from_device[None] @ self.geometry.element_poses  # (k, 4, 4)
        self.world_from_elements = world_from_element
        # (k, n, 3): each element's cone turned into the world.
        directions = np.einsum('kij,nj->kni', world_from_element[:, :3, :3], self.pattern.directions)
        self._directions = directions.reshape(-1, 3)
        self._origins = np.repeat(world_from_element[:, :3, 3], self.pattern.directions.shape[0], axis=0)

    @property
    def size(self) -> int:
        """Number of elements."""
        return int(self.geometry.element_poses.shape[0])

    def ping(self, caster: SurfaceCaster) -> ArrayReading:
        """All elements ping once: one cast of every cone, the echo model per element."""
        hits = caster.cast(self._origins, self._directions)
        k, n = self.size, self.pattern.directions.shape[0]
        r = np.asarray(hits.ranges).reshape(k, n)
        self.last_ranges = r
        cos = np.asarray(hits.cos_incidence).reshape(k, n)
        mu = np.nan_to_num(np.asarray(hits.reflectivity), nan=0.0).reshape(k, n)
        pings = tuple(self.model.ping(r[i], cos[i], mu[i]) for i in range(k))
        ranges = np.array([p.range for p in pings], dtype=np.float64)
        if self.range_resolution > 0.0:
            finite = np.isfinite(ranges)
            ranges[finite] = np.round(ranges[finite] / self.range_resolution) * self.range_resolution
        return ArrayReading(ranges, np.array([p.total for p in pings]), pings)

    def ranger_config(self) -> RangerConfig:
        """The configuration in Ranger terms (the angles are the cone's, fixed)."""
        half = self.echo.cast_half_angle
        return RangerConfig(-half, half, 2.0 * half, self.echo.min_range, self.echo.max_range,
                            self.range_resolution, self.frequency)

    def reconfigure(self, config: RangerConfig) -> str | None:
        """Apply ranges, range resolution and frequency; the cone cannot change."""
        problem = config_problem(config)
        half = self.echo.cast_half_angle
        slack = _TOLERANCE * max(1.0, half)
        if problem is None and (abs(config.min_angle + half) > slack or abs(config.max_angle - half) > slack
                                or abs(config.angular_resolution - 2.0 * half) > slack):
            problem = (f'the angles of an array element are fixed by its transducer: min_angle {-half:.6g}, '
                       f'max_angle {half:.6g}, angular_resolution {2.0 * half:.6g} rad')
        lim = self.limits
        problem = problem or _window_problem(config, None, (lim.min_range, lim.max_range))
        if problem:
            return problem
        try:
            echo = dataclasses.replace(self.echo, min_range=config.min_range, max_range=config.max_range)
            problem = _array_timing_problem(echo, config.frequency)
            if problem:
                return problem
            self._apply(echo, config.range_resolution, config.frequency)
        except (ConfigurationError, ValueError) as error:
            return str(error)
        return None


def _array_timing_problem(echo: EchoConfig, frequency: float) -> str | None:
    if not (math.isfinite(frequency) and 0.0 < frequency <= MAX_FREQUENCY):
        return f'frequency must be in (0, {MAX_FREQUENCY:g}] Hz, got {frequency!r}'
    highest = 1.0 / echo.min_ping_interval
    if frequency > highest * (1.0 + 1e-9):
        return (f'{frequency:g} Hz is faster than the two-way travel time allows: c / (2 max_range) = '
                f'{echo.speed_of_sound:.6g} / (2 * {echo.max_range:g}) = {highest:.6g} Hz')
    return None


# --- scanning and multibeam sonars as Ranger devices --------------------------------------


class SweepRanger:
    """A scanning sonar as a Ranger device of one element (see the module table)."""

    def __init__(
        self, sonar: ScanningSonar, geometry: RangerGeometry, *, limits: tuple[float, float] | None = None,
    ) -> None:
        self.sonar = sonar
        self.geometry = geometry
        self.limits = limits or (sonar.echo.min_range, sonar.echo.max_range)

    def ranger_config(self) -> RangerConfig:
        """The configuration in Ranger terms."""
        s, e = self.sonar.sweep, self.sonar.echo
        return RangerConfig(float(self.sonar.angles[0]), float(self.sonar.angles[-1]), s.step, e.min_range,
                            e.max_range, e.bin_width, 1.0 / self.sonar.step_period)

    def reconfigure(self, config: RangerConfig) -> str | None:
        """Sector, step, range window, bin width and step rate; the step rate obeys ``2 max_range / c``."""
        problem = config_problem(config) or _window_problem(config, None, self.limits)
        if problem:
            return problem
        try:
            echo = _echo_with_ranges(self.sonar.echo, config)
            sweep = SweepConfig(config.min_angle, config.max_angle, config.angular_resolution,
                                1.0 / config.frequency, self.sonar.sweep.bounce)
            problem = sweep_problem(echo, sweep)
            if problem:
                return problem
            sonar = ScanningSonar(echo, sweep, self.sonar.world_from_body, n_rays=len(self.sonar.pattern))
        except (ConfigurationError, ValueError) as error:
            return str(error)
        self.sonar = sonar
        return None


class FanRanger:
    """A multibeam sonar as a Ranger device of one element (see the module table)."""

    def __init__(
        self, sonar: MultibeamSonar, geometry: RangerGeometry, *, frequency: float,
        limits: tuple[float, float] | None = None,
    ) -> None:
        problem = _array_timing_problem(sonar.echo, frequency)
        if problem:
            raise ConfigurationError(problem)
        self.sonar = sonar
        self.geometry = geometry
        self.frequency = frequency
        self.limits = limits or (sonar.echo.min_range, sonar.echo.max_range)

    def ranger_config(self) -> RangerConfig:
        """The configuration in Ranger terms."""
        f, e = self.sonar.fan, self.sonar.echo
        return RangerConfig(f.min_angle, f.max_angle, f.spacing, e.min_range, e.max_range, e.bin_width,
                            self.frequency)

    def reconfigure(self, config: RangerConfig) -> str | None:
        """Beam axes (their spacing sets the beam count), range window, bin width and ping rate."""
        problem = config_problem(config) or _window_problem(config, None, self.limits)
        if problem:
            return problem
        intervals, problem = _steps(config)
        problem = problem or fan_problem(intervals + 1, config.min_angle, config.max_angle)
        if problem:
            return problem
        try:
            echo = _echo_with_ranges(self.sonar.echo, config)
            problem = _array_timing_problem(echo, config.frequency)
            if problem:
                return problem
            fan = dataclasses.replace(self.sonar.fan, beams=intervals + 1, min_angle=config.min_angle,
                                      max_angle=config.max_angle)
            sonar = MultibeamSonar(echo, fan, self.sonar.world_from_body)
        except (ConfigurationError, ValueError) as error:
            return str(error)
        self.sonar = sonar
        self.frequency = config.frequency
        return None


def _echo_with_ranges(echo: EchoConfig, config: RangerConfig) -> EchoConfig:
    """``echo`` with the window and bin width of ``config`` (0 keeps the bin count)."""
    min_range = config.min_range
    span = config.max_range - min_range
    n_bins = echo.n_bins if config.range_resolution == 0.0 else max(1, round(span / config.range_resolution))
    if n_bins > 1_000_000:
        raise ConfigurationError(
            f'range_resolution {config.range_resolution:g} m makes {n_bins} bins, more than 1000000'
        )
    return dataclasses.replace(echo, min_range=min_range, max_range=config.max_range, n_bins=n_bins)
