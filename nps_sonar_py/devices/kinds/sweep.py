"""The mechanically scanned sonar (``mode: sweep``): one beam stepped through a sector.

Its settings are the head's stepping (:class:`SweepSettings`) and the scanning node's sector
(``ScanningSettings``: ``min_angle``, ``max_angle``). A reading is one step: the ping at
that step's head angle and, when the step ends a sweep, the whole sweep as one scan. It
publishes ``SonarPoint`` per step, ``LaserScan`` and ``RangerData`` per sweep, and the
switched-on images of its latest sweep, kept across pings by :class:`SweepImage`
(published by ``ros/outputs.py``, part ``sweep``), and with the coherent model each step's
baseband (part ``baseband``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.description import Robot
from nps_sonar_py.devices.interface import (
    BasebandBeams,
    BasebandFrame,
    Beam,
    RangerConfig,
    RangerGeometry,
    config_problem,
    steps_problem,
    window_problem,
)
from nps_sonar_py.devices.kinds.base import FIXED_SCATTERERS, Built, Family, Kind, Setup, Unused
from nps_sonar_py.devices.memory import CELL_BYTES, Size, echo_sizes, image_size
from nps_sonar_py.devices.pinging import echo_with_ranges
from nps_sonar_py.devices.sensors import located, scanning_sonar_mount
from nps_sonar_py.devices.settings import (
    LINE_ARRAY,
    BeamSettings,
    CoherentSettings,
    GeometrySettings,
    ImageSettings,
    ScanningSettings,
    SensorSettings,
)
from nps_sonar_py.echo import EchoConfig, Ping
from nps_sonar_py.echo.records import EchoRecord
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.records import Record, setting
from nps_sonar_py.sensing.caster import SurfaceCaster
from nps_sonar_py.sensing.images import SectorGeometry, SweepProfiles
from nps_sonar_py.sensing.label_images import SweepLabels
from nps_sonar_py.sensing.sweep import ScanningSonar, SweepConfig, SweepStep, sweep_problem

__all__ = ['KIND', 'SweepImage', 'SweepRanger', 'SweepReading', 'SweepScan', 'SweepSettings']


@dataclass(frozen=True)
class SweepSettings(Record):
    """The head's stepping (``mode: sweep``); :meth:`sweep_config` builds the core's."""

    step: float = setting(
        2.0 * math.pi / 400, 'sweep: head step [rad] (Ping360: 2 pi / 400)', 1e-6, 2.0 * math.pi
    )
    step_period: float = setting(
        0.0, 'sweep: seconds per step, >= 2 max_range / c; 0: exactly that', 0.0, 3600.0
    )
    bounce: bool = setting(
        False, 'sweep: a sector goes back and forth instead of restarting at min_angle'
    )

    def sweep_config(self, sector: ScanningSettings) -> SweepConfig:
        """The head's stepping through ``sector``; every name is the core field's."""
        return SweepConfig(
            sector.min_angle, sector.max_angle, self.step, self.step_period, self.bounce
        )


@dataclass(frozen=True, eq=False)
class SweepScan:
    """A finished sweep as one scan: a range and a total intensity per step, in step order.

    ``angle_increment`` is negative for a reverse (bounce) sweep; ``time_increment`` is the
    step period and ``scan_time`` the sweep period, s.
    """

    ranges: NDArray[np.float64]
    intensities: NDArray[np.float64]
    angle_min: float
    angle_increment: float
    time_increment: float
    scan_time: float


@dataclass(frozen=True, eq=False)
class SweepReading:
    """One step: where the head was, its ping, the sweep it finished, its echo record.

    ``sweep`` is ``None`` mid-sweep; ``echo`` is the ping's record (``echo.engine``: its
    baseband with the coherent engine).
    """

    step: SweepStep
    ping: Ping
    sweep: SweepScan | None
    echo: EchoRecord


class SweepImage:
    """The sweep's cross-ping state: the latest profile (and labels) at each head angle.

    Kept while the head angles and bins stay the same (a refused ``set_config``, undone, or
    a change of the ping rate does not blank the image); a new geometry starts a new, empty
    sweep. ``profiles``/``labels``: ``(steps_per_sweep, n_bins)`` arrays, ``None`` when the
    image cannot be made (``add``'s ``problem``) or labels are off.
    """

    def __init__(self) -> None:
        self._geometry: SectorGeometry | None = None
        self._profiles: SweepProfiles | None = None
        self._labels: SweepLabels | None = None

    def add(
        self,
        ranger: SweepRanger,
        reading: SweepReading,
        problem: Callable[[SectorGeometry], str | None],
        labels: bool,
    ) -> bool:
        """Keep the step's profile (and labels) at its head angle's row; False if no image.

        ``problem(geometry)`` says why the sweep's image cannot be made (checked before
        allocating); ``labels``: keep the step's labels too.
        """
        sonar, geometry = ranger.sonar, ranger.image_geometry()
        if geometry != self._geometry:
            self._geometry, self._profiles, self._labels = geometry, None, None
            if problem(geometry) is None:
                self._profiles = SweepProfiles(sonar.steps_per_sweep, sonar.echo.n_bins)
                if labels:
                    self._labels = SweepLabels(sonar.steps_per_sweep, sonar.echo.n_bins)
        if self._profiles is None:
            return False
        step, n = reading.step, sonar.steps_per_sweep
        reverse = sonar.sweep.bounce and step.sweep % 2 == 1
        row = n - 1 - step.position if reverse else step.position
        self._profiles.update(row, reading.ping.intensity)
        if self._labels is not None and reading.ping.labels is not None:
            self._labels.update(row, reading.ping.labels)
        return True

    @property
    def profiles(self) -> NDArray[np.float64]:
        """The latest profile at each head angle, ``(steps_per_sweep, n_bins)``."""
        if self._profiles is None:
            raise RuntimeError('SweepImage.profiles before a successful add')
        return self._profiles.profiles

    @property
    def labels(self) -> NDArray[np.uint16] | None:
        """The latest labels at each head angle, or ``None`` (labels off)."""
        return None if self._labels is None else self._labels.labels


class SweepRanger:
    """A scanning sonar as a Ranger device of one element; each reading is the next step."""

    catch_up = True

    def __init__(
        self,
        sonar: ScanningSonar,
        geometry: RangerGeometry,
        *,
        limits: tuple[float, float] | None = None,
    ) -> None:
        self.sonar = sonar
        self.geometry = geometry
        self.limits = limits or (sonar.echo.min_range, sonar.echo.max_range)
        self.restart()

    @property
    def echo(self) -> EchoConfig:
        """The beam's echo configuration."""
        return self.sonar.echo

    @property
    def period(self) -> float:
        """Seconds per step."""
        return self.sonar.step_period

    @property
    def cycle_length(self) -> int:
        """Steps per sweep."""
        return self.sonar.steps_per_sweep

    def set_pose(self, world_from_device: NDArray[np.float64]) -> None:
        """Place the sonar: the pose of its x-forward body frame (head angle 0 along +x)."""
        self.sonar.set_pose(world_from_device)

    def restart(self) -> None:
        """The next reading is the first step of a sweep; an unfinished sweep is dropped."""
        self._next = 0
        n = self.sonar.steps_per_sweep
        self._ranges = np.full(n, np.nan)
        self._intensities = np.zeros(n)
        self._filled = 0

    #: A sweep's baseband is in the acoustic frame, its one beam at the head angle.
    baseband_frame = BasebandFrame.ACOUSTIC

    def baseband_beams(self, reading: SweepReading) -> BasebandBeams:
        """The step's beam at minus its head angle; one beam width both ways."""
        width = self.echo.beam_width
        return BasebandBeams(np.array([-reading.step.angle]), width, width)

    def read(self, caster: SurfaceCaster) -> SweepReading:
        """Ping at the next step's head angle; at the end of a sweep, the sweep too."""
        sonar = self.sonar
        step = sonar.step(self._next)
        self._next += 1
        echo = sonar.record(caster, step.angle)
        ping = echo.beam(0)
        if step.position == 0:
            self._ranges = np.full(sonar.steps_per_sweep, np.nan)
            self._intensities = np.zeros(sonar.steps_per_sweep)
            self._filled = 0
        self._ranges[step.position] = ping.range
        self._intensities[step.position] = ping.total
        self._filled += 1
        sweep = None
        if step.last and self._filled == sonar.steps_per_sweep:
            angle_min, _, increment = sonar.sweep_angles(step.sweep)
            sweep = SweepScan(
                self._ranges,
                self._intensities,
                angle_min,
                increment,
                sonar.step_period,
                sonar.sweep_period,
            )
        return SweepReading(step, ping, sweep, echo)

    def image_geometry(self) -> SectorGeometry:
        """The geometry of a sweep's images: its head angles and the range bins."""
        sonar = self.sonar
        return SectorGeometry.of_beams(
            sonar.steps_per_sweep, float(sonar.angles[0]), sonar.sweep.step, sonar.echo
        )

    def beams(self) -> tuple[Beam, ...]:
        """The head's beam is not drawn."""
        return ()

    def ranger_config(self) -> RangerConfig:
        """The configuration in Ranger terms."""
        s, e = self.sonar.sweep, self.sonar.echo
        return RangerConfig(
            float(self.sonar.angles[0]),
            float(self.sonar.angles[-1]),
            s.step,
            e.min_range,
            e.max_range,
            e.bin_width,
            1.0 / self.sonar.step_period,
        )

    def reconfigure(self, config: RangerConfig) -> str | None:
        """Sector, step, range window, bin width and step rate (obeying ``2 max_range / c``)."""
        problem = config_problem(config) or window_problem(config, None, self.limits)
        if problem:
            return problem
        _, problem = steps_problem(config)  # the sector: a whole number of head steps
        if problem:
            return problem
        try:
            echo = echo_with_ranges(self.sonar.echo, config)
            sweep = SweepConfig(
                config.min_angle,
                config.max_angle,
                config.angular_resolution,
                1.0 / config.frequency,
                self.sonar.sweep.bounce,
            )
            problem = sweep_problem(echo, sweep)
            if problem:
                return problem
            sonar = ScanningSonar(
                echo,
                sweep,
                self.sonar.world_from_body,
                n_rays=len(self.sonar.pattern),
                label_entities=self.sonar.label_entities,
                multipath=self.sonar.multipath,
                coherent=self.sonar.coherent,
            )
        except (ConfigurationError, ValueError) as error:
            return str(error)
        self.sonar = sonar
        self.restart()
        return None


def build(robot: Robot, setup: Setup, entities: int) -> Built:
    """The sonar's head stepping through the sector (``entities``: labels' table length)."""
    sensor, mount = scanning_sonar_mount(robot, setup[SensorSettings], setup[GeometrySettings])
    geometry = mount.geometry({})
    beam = setup[BeamSettings]
    labels = entities if setup[ImageSettings].publish_labels else None

    def make() -> SweepRanger:
        echo = beam.echo_config(sensor.sonar)
        sonar = ScanningSonar(
            echo,
            setup[SweepSettings].sweep_config(setup[ScanningSettings]),
            geometry.pose,
            n_rays=beam.rays,
            label_entities=labels,
            multipath=beam.multipath_config(),
            coherent=setup[CoherentSettings].coherent_config(),
        )
        return SweepRanger(sonar, geometry, limits=(echo.min_range, echo.max_range))

    return mount, located(sensor, make)


def sizes(setup: Setup) -> tuple[Size, ...]:
    """A step's rays and cells, a sweep's profiles (its images') and an image at its largest."""
    beam, sweep = setup[BeamSettings], setup[SweepSettings]
    try:
        steps = sweep.sweep_config(setup[ScanningSettings]).head_angles().size
    except ConfigurationError:  # the builder refuses it, at its sensor
        steps = 1
    bins = beam.range_bins
    return (
        *echo_sizes(
            ('a step', 1),
            (f'rays {beam.rays}', beam.rays),
            bins,
            coherent=setup[CoherentSettings].is_coherent,
        ),
        Size(
            f'step {sweep.step:g} rad ({steps} steps) x range_bins {bins}',
            "a sweep's profiles, kept for its images",
            steps * bins,
            CELL_BYTES,
        ),
        image_size(setup[ImageSettings].image_max_pixels),
    )


KIND = Kind(
    name='sweep',
    family=Family.SCANNING,
    summary='one beam stepped through a sector',
    device=SweepRanger,
    build=build,
    records=(SweepSettings, CoherentSettings),
    outputs=('sweep', 'baseband'),
    sizes=sizes,
    unused=(
        FIXED_SCATTERERS,
        Unused(('update_rate',), 'its head steps once every step_period'),
        Unused(
            ('publish_projected_image', 'projected_image_dtype'),
            'it publishes no ProjectedSonarImage (mode multibeam does)',
        ),
        Unused(
            ('tvg', 'cell_speckle', 'side_lobe_db'),
            'its images are its profiles as they are (those shape the images of modes '
            'multibeam and sidescan)',
        ),
        Unused(LINE_ARRAY, 'its one beam has no line array across beams to leak through'),
    ),
)
