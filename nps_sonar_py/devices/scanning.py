"""Scanning and multibeam sonars as devices of one element (``sensing.sweep``, ``.multibeam``).

A scanning sonar's reading is one step of its sweep: the ping at the head angle of that
step and, when the step ends a sweep, the whole sweep as one scan. A multibeam's reading
is one ping of every beam.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.devices.interface import (
    Beam,
    RangerConfig,
    RangerGeometry,
    config_problem,
    steps_problem,
    window_problem,
)
from nps_sonar_py.devices.pinging import PingingRanger, beam_axes, echo_with_ranges, rebuilt
from nps_sonar_py.echo import EchoConfig, Ping
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.sensing.caster import SurfaceCaster
from nps_sonar_py.sensing.multibeam import FanPing, MultibeamSonar, fan_problem
from nps_sonar_py.sensing.sweep import ScanningSonar, SweepConfig, SweepStep, sweep_problem

__all__ = ['FanRanger', 'SweepRanger', 'SweepReading', 'SweepScan']


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
    """One step: where the head was, its ping, and the sweep it finished (``None`` mid-sweep)."""

    step: SweepStep
    ping: Ping
    sweep: SweepScan | None


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

    def read(self, caster: SurfaceCaster) -> SweepReading:
        """Ping at the next step's head angle; at the end of a sweep, the sweep too."""
        sonar = self.sonar
        step = sonar.step(self._next)
        self._next += 1
        ping = sonar.ping(caster, step.angle)
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
        return SweepReading(step, ping, sweep)

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
            )
        except (ConfigurationError, ValueError) as error:
            return str(error)
        self.sonar = sonar
        self.restart()
        return None


class FanRanger(PingingRanger[MultibeamSonar]):
    """A multibeam sonar as a Ranger device of one element; a reading pings every beam."""

    def read(self, caster: SurfaceCaster) -> FanPing:
        """One ping of every beam."""
        return self.sonar.ping(caster)

    def ranger_config(self) -> RangerConfig:
        """The configuration in Ranger terms."""
        f, e = self.sonar.fan, self.sonar.echo
        return RangerConfig(
            f.min_angle,
            f.max_angle,
            f.spacing,
            e.min_range,
            e.max_range,
            e.bin_width,
            self.frequency,
        )

    def _angles_problem(self, config: RangerConfig) -> str | None:
        """Beam axes: their spacing sets the beam count, within what a fan may hold."""
        intervals, problem = steps_problem(config)
        return problem or fan_problem(intervals + 1, config.min_angle, config.max_angle)

    def _rebuilt(self, echo: EchoConfig, config: RangerConfig) -> MultibeamSonar:
        """The fan of the new axes."""
        fan = dataclasses.replace(self.sonar.fan, **beam_axes(config))
        return rebuilt(self.sonar, echo=echo, fan=fan)
