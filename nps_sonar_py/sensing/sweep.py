"""A mechanically scanned sonar: one beam stepped through a sector, one echo ping per step.

Like a Ping360 or a Tritech Micron. The head turns about the sensor's body +z axis (x
forward, REP 103); head angle 0 looks along +x, positive angles turn towards +y, as
``LaserScan`` angles do. The beam is a cone of rays at equal solid angle
(``sensing.cone``), built once; each step rotates the cached directions by the head angle
(one 3x3 product), casts them and runs ``echo.EchoModel.ping``.

Timing (``docs/physics.md#ping-rate``, test case T12): a step cannot be shorter than the
two-way travel time to the maximum range, ``2 max_range / c``; ``step_period == 0`` takes
exactly that.
Steps are scheduled at ``t0 + k * step_period`` whatever the callback jitter (the ROS node
runs every step that is due), so a sweep of ``n`` steps lasts ``n * step_period``.

Sweeps: the head angles are ``min_angle + k * step`` up to ``max_angle``. A full turn
(``max_angle - min_angle >= 2 pi``) has ``floor(2 pi / step)`` steps and goes round and round.
A sector restarts at ``min_angle`` (fly-back) unless ``bounce``, where every other sweep runs
from ``max_angle`` back to ``min_angle`` (the end angle is pinged once per sweep, so twice
at each turn).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo import EchoConfig, EchoModel, Ping, beam_intensity
from nps_sonar_py.echo.channel_echoes import ChannelEngine
from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.engine import CoherentEngine, Returns, echo_engine
from nps_sonar_py.echo.labels import label_problem
from nps_sonar_py.echo.records import EchoRecord
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.sensing.caster import SurfaceCaster
from nps_sonar_py.sensing.cone import RayPattern, cone_pattern
from nps_sonar_py.sensing.cone_lighting import ConeLighting, cone_two_way
from nps_sonar_py.sensing.multipath import (
    MultipathConfig,
    cone_hearing,
    multipath_problem,
    multipath_returns,
)

__all__ = ['ScanningSonar', 'SweepConfig', 'SweepStep', 'rotation_z', 'sweep_problem']

_FULL_TURN = 2.0 * math.pi
_EPS = 1e-9


def rotation_z(angle: float) -> NDArray[np.float64]:
    """3x3 rotation by ``angle`` radians about +z."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


@dataclass(frozen=True)
class SweepConfig:
    """How the head steps, validated on creation (``ConfigurationError``).

    Attributes:
        min_angle: first head angle, rad.
        max_angle: last head angle, rad, >= min_angle; a span of 2 pi or more is a full turn.
        step: angle between steps, rad, > 0 (Ping360: 2 pi / 400, 0.9 degrees).
        step_period: seconds per step, >= 2 max_range / c; 0 takes that minimum.
        bounce: a sector sweeps back and forth instead of restarting at ``min_angle``.
    """

    min_angle: float = -math.pi
    max_angle: float = math.pi
    step: float = _FULL_TURN / 400
    step_period: float = 0.0
    bounce: bool = False

    def __post_init__(self) -> None:
        problem = _angles_problem(self.min_angle, self.max_angle, self.step)
        if problem is None and not (math.isfinite(self.step_period) and self.step_period >= 0.0):
            problem = (
                f'step_period must be a number of seconds >= 0 (0: the two-way travel time), '
                f'got {self.step_period!r}'
            )
        if problem is None and self.bounce and self.full_turn:
            problem = 'bounce needs a sector narrower than a full turn'
        if problem:
            raise ConfigurationError(problem)

    @property
    def full_turn(self) -> bool:
        """Whether the sweep goes all the way round."""
        return self.max_angle - self.min_angle >= _FULL_TURN - _EPS

    def head_angles(self) -> NDArray[np.float64]:
        """The head angle of each step of a (forward) sweep, rad."""
        if self.full_turn:
            n = max(1, math.floor(_FULL_TURN / self.step + _EPS))
            if self.min_angle + (n - 1) * self.step >= self.min_angle + _FULL_TURN - _EPS:
                n -= 1
        else:
            n = math.floor((self.max_angle - self.min_angle) / self.step + 1e-6) + 1
        return self.min_angle + self.step * np.arange(n, dtype=np.float64)


def _angles_problem(min_angle: float, max_angle: float, step: float) -> str | None:
    if not (math.isfinite(min_angle) and math.isfinite(max_angle)):
        return f'min_angle and max_angle must be finite, got {min_angle!r} and {max_angle!r}'
    if max_angle < min_angle:
        return f'max_angle ({max_angle!r}) must be >= min_angle ({min_angle!r})'
    if max_angle - min_angle > _FULL_TURN + 1e-6:
        return f'the sector spans more than a full turn ({max_angle - min_angle!r} rad)'
    if not (math.isfinite(step) and step > 0.0):
        return f'step must be a positive angle in radians, got {step!r}'
    if step > _FULL_TURN:
        return f'step must be at most 2 pi, got {step!r}'
    if (max_angle - min_angle) / step > 100_000:
        return (
            f'{(max_angle - min_angle) / step:.0f} steps per sweep is more than the 100000 allowed'
        )
    return None


def sweep_problem(echo: EchoConfig, sweep: SweepConfig) -> str | None:
    """Why this echo and sweep configuration cannot be run together, or ``None``.

    The only coupling is timing: a ping must wait for the echo from ``max_range``.
    """
    minimum = echo.min_ping_interval
    if sweep.step_period and sweep.step_period < minimum * (1.0 - 1e-9):
        return (
            f'a step every {sweep.step_period:.6g} s is shorter than the two-way travel time '
            f'2 max_range / c = 2 * {echo.max_range:g} / {echo.speed_of_sound:.6g} '
            f'= {minimum:.6g} s'
        )
    return None


@dataclass(frozen=True)
class SweepStep:
    """Step ``index`` of the run: its sweep, its place, the head angle (rad), whether last."""

    index: int
    sweep: int
    position: int
    angle: float
    last: bool


class ScanningSonar:
    """One beam, its cone built once, rotated to each head angle of a sweep.

    Args:
        echo: the beam and the echo model's configuration.
        sweep: the head's stepping.
        world_from_body: (4, 4) pose of the sensor's body frame (x forward) in the world.
        n_rays: rays in the cone.
        label_entities: the length of the label table (the world's entities): every ping
            then carries ``labels`` (``echo.labels``); ``None`` (default): no labels.
        multipath: ghost echoes (``sensing.multipath``), off by default.
        coherent: the coherent engine's settings (``echo.engine``) for each ping's profile
            (its total too; the range, confidence, hits and labels are the law's; multipath
            ghosts are not in it); ``None`` (default): the incoherent engine.

    Raises:
        ConfigurationError: the step period is shorter than the two-way travel time; labels
            a label table over the entity limit (``echo.labels.label_problem``); multipath
            with specular scattering; a pulse or sampling the coherent model refuses.
    """

    def __init__(
        self,
        echo: EchoConfig,
        sweep: SweepConfig,
        world_from_body: NDArray[np.float64],
        *,
        n_rays: int = 200,
        label_entities: int | None = None,
        multipath: MultipathConfig | None = None,
        coherent: CoherentConfig | None = None,
    ) -> None:
        self.multipath = multipath if multipath is not None else MultipathConfig()
        problem = sweep_problem(echo, sweep)
        if problem is None and label_entities is not None:
            problem = label_problem(label_entities)
        problem = problem or multipath_problem(echo, self.multipath)
        if problem:
            raise ConfigurationError(problem)
        self.echo = echo
        self.sweep = sweep
        self.label_entities = label_entities
        self.pattern: RayPattern = cone_pattern(echo.cast_half_angle, n_rays)
        self.model = EchoModel(echo, self.pattern.off_axis, self.pattern.solid_angle)
        self.coherent = coherent
        self.engine = echo_engine(self.model, None)
        self._lighting: ConeLighting | None = None
        if coherent is not None:  # the surfaces' fixed scatterers (``echo.channel_echoes``)
            heard = ChannelEngine(self.model, coherent, cone_two_way(echo), 1, echo.beam_width)
            self.engine = CoherentEngine(self.model, heard)
            self._lighting = ConeLighting(self.pattern, heard.farthest())
        self._ray_pattern = beam_intensity(echo.pattern, self.pattern.off_axis, echo.beam_width)
        self.angles = sweep.head_angles()
        self.angles.flags.writeable = False
        self.set_pose(world_from_body)

    @property
    def step_period(self) -> float:
        """Seconds per step: the configured period, or the two-way time ``2 max_range / c``."""
        return self.sweep.step_period or self.echo.min_ping_interval

    @property
    def steps_per_sweep(self) -> int:
        """Number of steps (pings) in one sweep."""
        return int(self.angles.shape[0])

    @property
    def sweep_period(self) -> float:
        """Seconds from the start of one sweep to the start of the next."""
        return self.steps_per_sweep * self.step_period

    def set_pose(self, world_from_body: NDArray[np.float64]) -> None:
        """Place the sensor: ``world_from_body`` is the 4x4 pose of its x-forward frame."""
        pose = np.asarray(world_from_body, dtype=np.float64)
        self.world_from_body = pose.copy()
        self.origin = pose[:3, 3].copy()

    def step(self, index: int) -> SweepStep:
        """Step ``index`` (0, 1, ...) of the run."""
        n = self.steps_per_sweep
        sweep, position = divmod(int(index), n)
        reverse = self.sweep.bounce and sweep % 2 == 1
        angle = float(self.angles[n - 1 - position] if reverse else self.angles[position])
        return SweepStep(int(index), sweep, position, angle, position == n - 1)

    def sweep_angles(self, sweep: int) -> tuple[float, float, float]:
        """``(angle_min, angle_max, angle_increment)`` of sweep ``sweep``, as ``LaserScan``'s.

        ``angle_min`` is the first step's angle; a reverse (bounce) sweep has a negative increment.
        """
        first, last = float(self.angles[0]), float(self.angles[-1])
        if self.sweep.bounce and sweep % 2 == 1:
            return last, first, -self.sweep.step
        return first, last, self.sweep.step

    def directions(self, angle: float) -> NDArray[np.float64]:
        """(n, 3) world directions of the cone with the head at ``angle`` rad."""
        rotation = self.world_from_body[:3, :3] @ rotation_z(angle)
        # einsum, not @: right after an Open3D cast, BLAS threads would wait for the cores.
        directions: NDArray[np.float64] = np.einsum('ij,nj->ni', rotation, self.pattern.directions)
        return directions

    def ping(self, caster: SurfaceCaster, angle: float) -> Ping:
        """The echo of one ping with the head at ``angle`` rad (with ``labels`` if built so)."""
        return self.record(caster, angle).beam(0)

    def record(self, caster: SurfaceCaster, angle: float) -> EchoRecord:
        """The engine's echo record of one ping with the head at ``angle`` rad (one beam)."""
        directions = self.directions(angle)
        hits = caster.cast(self.origin, directions)
        ranges, extra = hits.ranges, None
        if self.multipath.enabled:
            axis = (self.world_from_body[:3, :3] @ rotation_z(angle))[:, 0]
            ranges, extra = multipath_returns(
                caster,
                self.origin,
                directions,
                hits,
                self.multipath,
                hear=cone_hearing(self.echo, axis, len(self.pattern)),
                ray_pattern=self._ray_pattern,
                rays_per_beam=len(self.pattern),
                n_way=self.echo.n_way,
                max_range=self.echo.max_range,
            )
        labelled = self.label_entities is not None
        lit = None
        if self._lighting is not None:
            head = self.world_from_body.copy()
            head[:3, :3] = head[:3, :3] @ rotation_z(angle)
            lit = self._lighting.lit(hits, np.asarray(ranges), head[None], directions, caster)
        return self.engine.ping(
            Returns(
                np.asarray(ranges).reshape(1, -1),
                np.asarray(hits.cos_incidence).reshape(1, -1),
                _beam_row(hits.reflectivity),
                self.origin,
                directions,
                entity=np.asarray(hits.entity).reshape(1, -1) if labelled else None,
                n_entities=self.label_entities or 0,
                extra=extra,
                lit=lit,
            )
        )


def _beam_row(values: NDArray[np.floating] | float) -> NDArray[np.floating]:
    """A ray array as one beam's row (a scalar stays a scalar)."""
    array = np.asarray(values)
    return array if array.ndim == 0 else array.reshape(1, -1)
