"""Single-beam sonars as devices: one sonar, or an array of them pinging together.

The URDF ``<sonar>`` gives a cone (``min``, ``max``, and ``radius`` at ``max``); this package
reads that cone as the beam's one-way -3 dB width, ``beam_width = 2 atan(radius / max)``,
unless the settings set another (``BeamSettings.echo_config``). Rays fill the cast cone
(``EchoConfig.cast_half_angle``, by default the -3 dB half width, so the URDF cone itself)
at equal solid angle (``sensing.cone``), built once per configuration, and the echo model
(``nps_sonar_py.echo``) turns their hits into a range, an intensity and a profile per element.

A single sonar is an array of one element at the device's own frame
(:class:`SingleBeamSonar`). Array elements ping at once and each hears only the echoes along
its own cone: cross-talk between elements is not simulated.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.devices.interface import (
    TOLERANCE,
    BasebandBeams,
    BasebandFrame,
    Beam,
    IndependentReadings,
    RangerConfig,
    RangerGeometry,
    config_problem,
    frequency_problem,
    window_problem,
)
from nps_sonar_py.echo import EchoConfig, EchoModel, Ping, beam_intensity
from nps_sonar_py.echo.channel_echoes import ChannelEngine
from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.engine import CoherentEngine, Returns, echo_engine
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

__all__ = ['ArrayReading', 'SingleBeamSonar', 'SonarArray', 'travel_time_problem']


@dataclass(frozen=True, eq=False)
class ArrayReading:
    """One ping of every element: ranges, intensities, each element's ping, the echo record.

    ``ranges`` (k,) m, REP 117; ``intensities`` (k,) linear; ``pings`` each element's
    ``Ping``; ``echo`` the record of all of them (``echo.engine``).
    """

    ranges: NDArray[np.float64]
    intensities: NDArray[np.float64]
    pings: tuple[Ping, ...]
    echo: EchoRecord


class SonarArray(IndependentReadings):
    """Single-beam sonars at fixed poses, pinging together; each hears only its own cone.

    Args:
        echo: the beam and echo model shared by every element (``beam_width``, ranges, medium...).
        world_from_device: (4, 4) device frame in the world.
        geometry: frames and poses of the elements (x-forward body frames in the device frame).
        n_rays: rays per element's cone.
        range_resolution: readings are rounded to multiples of it, m; 0 for none.
        frequency: pings per second, at most ``c / (2 max_range)``.
        multipath: ghost echoes (``sensing.multipath``), off by default; each element hears
            only its own cone.
        coherent: the coherent engine's settings (``echo.engine``) for the profiles and
            totals (the ranges and confidence are the law's; multipath ghosts are not in
            it); ``None`` (default): the incoherent engine.
    """

    #: Whether a frequency faster than the two-way travel time allows is refused.
    refuses_fast_pings = True

    def __init__(
        self,
        echo: EchoConfig,
        world_from_device: NDArray[np.float64],
        geometry: RangerGeometry,
        *,
        n_rays: int = 500,
        range_resolution: float = 0.0,
        frequency: float = 10.0,
        multipath: MultipathConfig | None = None,
        coherent: CoherentConfig | None = None,
    ) -> None:
        self.geometry = geometry
        self.coherent = coherent
        self.limits = echo
        self.n_rays = n_rays
        self.multipath = multipath if multipath is not None else MultipathConfig()
        self._world_from_device = np.asarray(world_from_device, dtype=np.float64)
        self._apply(echo, range_resolution, frequency)

    def _apply(self, echo: EchoConfig, range_resolution: float, frequency: float) -> None:
        problem = self._timing_problem(echo, frequency) or multipath_problem(echo, self.multipath)
        if problem:
            raise ConfigurationError(problem)
        self.echo = echo
        self.range_resolution = range_resolution
        self.frequency = frequency
        self.pattern: RayPattern = cone_pattern(echo.cast_half_angle, self.n_rays)
        self.model = EchoModel(echo, self.pattern.off_axis, self.pattern.solid_angle)
        self.engine = echo_engine(self.model, None)
        self._lighting: ConeLighting | None = None
        if self.coherent is not None:  # the surfaces' fixed scatterers (``echo.channel_echoes``)
            heard = ChannelEngine(
                self.model, self.coherent, cone_two_way(echo), self.size, echo.beam_width
            )
            self.engine = CoherentEngine(self.model, heard)
            self._lighting = ConeLighting(self.pattern, heard.farthest())
        one_way = beam_intensity(echo.pattern, self.pattern.off_axis, echo.beam_width)
        self._ray_pattern = np.tile(one_way, self.size)
        #: (elements, rays) range of each ray at the last ping (inf on a miss), for visualisation.
        self.last_ranges: NDArray[np.floating] = np.full((self.size, self.n_rays), np.inf)
        self.set_pose(self._world_from_device)

    def _timing_problem(self, echo: EchoConfig, frequency: float) -> str | None:
        problem = frequency_problem(frequency)
        if problem:
            return problem
        if self.refuses_fast_pings:
            return travel_time_problem(echo, frequency)
        return None

    @property
    def period(self) -> float:
        """Seconds between pings."""
        return 1.0 / self.frequency

    @property
    def size(self) -> int:
        """Number of elements."""
        return int(self.geometry.element_poses.shape[0])

    @property
    def field_of_view(self) -> float:
        """Full angle of the cast cone, radians, as ``sensor_msgs/Range.field_of_view``."""
        return 2.0 * self.echo.cast_half_angle

    def set_pose(self, world_from_device: NDArray[np.float64]) -> None:
        """Place the device; every element follows."""
        self._world_from_device = np.asarray(world_from_device, dtype=np.float64).copy()
        world_from_element = (
            self._world_from_device[None] @ self.geometry.element_poses
        )  # (k, 4, 4)
        self.world_from_elements = world_from_element
        # (k, n, 3): each element's cone turned into the world. einsum, not @: right after an
        # Open3D cast, BLAS threads would wait for the cores.
        directions = np.einsum(
            'kij,nj->kni', world_from_element[:, :3, :3], self.pattern.directions
        )
        # Read-only: the raycaster reuses its checked float32 rays while they do not change.
        self._directions = directions.reshape(-1, 3)
        self._directions.flags.writeable = False
        n = self.pattern.directions.shape[0]
        origins = world_from_element[:, :3, 3]
        self._origins = origins[0].copy() if self.size == 1 else np.repeat(origins, n, axis=0)
        self._origins.flags.writeable = False

    def read(self, caster: SurfaceCaster) -> ArrayReading:
        """All elements ping once: one cast of every cone, one pass of the echo model."""
        hits = caster.cast(self._origins, self._directions)
        k, n = self.size, self.pattern.directions.shape[0]
        ranges, extra = np.asarray(hits.ranges), None
        if self.multipath.enabled:
            ranges, extra = multipath_returns(
                caster,
                self._origins,
                self._directions,
                hits,
                self.multipath,
                hear=cone_hearing(self.echo, self.world_from_elements[:, :3, 0], n),
                ray_pattern=self._ray_pattern,
                rays_per_beam=n,
                n_way=self.echo.n_way,
                max_range=self.echo.max_range,
            )
        r = ranges.reshape(k, n)
        self.last_ranges = r
        cos = np.asarray(hits.cos_incidence).reshape(k, n)
        mu = np.asarray(hits.reflectivity).reshape(k, n)  # NaN on misses: dropped by the model
        lit = None
        if self._lighting is not None:
            lit = self._lighting.lit(
                hits, ranges, self.world_from_elements, self._directions, caster
            )
        record = self.engine.ping(
            Returns(r, cos, mu, self._origins, self._directions, extra=extra, lit=lit)
        )
        pings = tuple(record.beam(i) for i in range(k))
        ranges = record.law.ranges.copy()
        if self.range_resolution > 0.0:
            finite = np.isfinite(ranges)
            ranges[finite] = (
                np.round(ranges[finite] / self.range_resolution) * self.range_resolution
            )
        return ArrayReading(ranges, record.totals, pings, record)

    def beams(self) -> tuple[Beam, ...]:
        """Each element's cone and its rays' last hits, in the element's frame."""
        half, length = self.echo.cast_half_angle, self.echo.max_range
        directions = self.pattern.directions
        return tuple(
            Beam(frame, half, length, directions, ranges)
            for frame, ranges in zip(self.geometry.element_frames, self.last_ranges, strict=True)
        )

    def ranger_config(self) -> RangerConfig:
        """The configuration in Ranger terms (the angles are the cone's, fixed)."""
        half = self.echo.cast_half_angle
        return RangerConfig(
            -half,
            half,
            2.0 * half,
            self.echo.min_range,
            self.echo.max_range,
            self.range_resolution,
            self.frequency,
        )

    def reconfigure(self, config: RangerConfig) -> str | None:
        """Apply ranges, range resolution and frequency; the cone cannot change."""
        problem = config_problem(config)
        half = self.echo.cast_half_angle
        slack = TOLERANCE * max(1.0, half)
        if problem is None and (
            abs(config.min_angle + half) > slack
            or abs(config.max_angle - half) > slack
            or abs(config.angular_resolution - 2.0 * half) > slack
        ):
            problem = (
                f'the angles of a sonar element are fixed by its transducer: min_angle '
                f'{-half:.6g}, max_angle {half:.6g}, angular_resolution {2.0 * half:.6g} rad'
            )
        lim = self.limits
        problem = problem or window_problem(config, None, (lim.min_range, lim.max_range))
        if problem:
            return problem
        try:
            echo = dataclasses.replace(
                self.echo, min_range=config.min_range, max_range=config.max_range
            )
            problem = self._timing_problem(echo, config.frequency)
            if problem:
                return problem
            self._apply(echo, config.range_resolution, config.frequency)
        except (ConfigurationError, ValueError) as error:
            return str(error)
        return None


class SingleBeamSonar(SonarArray):
    """One sonar: an array of one element at the device's own frame.

    Unlike an array, it takes a ping rate faster than the two-way travel time allows (a
    simulation may want it); :meth:`too_fast` says so, and the node warns.
    """

    refuses_fast_pings = False
    #: A single beam's baseband is in the acoustic frame: its axis is the frame's z.
    baseband_frame = BasebandFrame.ACOUSTIC

    def baseband_beams(self, reading: ArrayReading) -> BasebandBeams:
        """The one beam on the axis; one beam width both ways."""
        del reading
        width = self.echo.beam_width
        return BasebandBeams(np.zeros(1), width, width)

    def too_fast(self) -> str | None:
        """Why the rate is faster than a real sonar pings to its maximum range, or ``None``."""
        return travel_time_problem(self.echo, self.frequency)


def travel_time_problem(echo: EchoConfig, frequency: float) -> str | None:
    """Why ``frequency`` beats the two-way travel time to ``max_range``, or ``None``."""
    highest = 1.0 / echo.min_ping_interval
    if frequency > highest * (1.0 + 1e-9):
        return (
            f'{frequency:g} Hz is faster than the two-way travel time allows: c / (2 max_range) = '
            f'{echo.speed_of_sound:.6g} / (2 * {echo.max_range:g}) = {highest:.6g} Hz'
        )
    return None
