"""A bathymetric multibeam echosounder (``sensing.echosounder``) as a device of one element.

Each reading is one ping: every beam's detection and sounding. The Ranger configuration's
angles are the swath's beam axes (their spacing sets the beam count), its ranges the range
window, its frequency the ping rate.
"""

from __future__ import annotations

import dataclasses

from nps_sonar_py.devices.interface import (
    RangerConfig,
    config_problem,
    steps_problem,
    window_problem,
)
from nps_sonar_py.devices.pinging import PingingRanger, echo_with_ranges, ping_rate_problem
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.sensing.caster import SurfaceCaster
from nps_sonar_py.sensing.echosounder import Echosounder, EchosounderPing

__all__ = ['EchosounderRanger']


class EchosounderRanger(PingingRanger[Echosounder]):
    """An echosounder as a Ranger device of one element; a reading pings every beam."""

    def read(self, caster: SurfaceCaster) -> EchosounderPing:
        """One ping of every beam."""
        return self.sonar.ping(caster)

    def ranger_config(self) -> RangerConfig:
        """The configuration in Ranger terms (angles from nadir about +x)."""
        s, e = self.sonar.swath, self.sonar.echo
        spacing = (s.max_angle - s.min_angle) / (s.beams - 1) if s.beams > 1 else 0.0
        return RangerConfig(
            s.min_angle,
            s.max_angle,
            spacing,
            e.min_range,
            e.max_range,
            e.bin_width,
            self.frequency,
        )

    def reconfigure(self, config: RangerConfig) -> str | None:
        """Beam axes (their spacing sets the beam count), range window, bin width and ping rate."""
        problem = config_problem(config) or window_problem(config, None, self.limits)
        if problem:
            return problem
        intervals, problem = steps_problem(config)
        if problem:
            return problem
        try:
            echo = echo_with_ranges(self.sonar.echo, config)
            problem = ping_rate_problem(echo, config.frequency)
            if problem:
                return problem
            swath = dataclasses.replace(
                self.sonar.swath,
                beams=intervals + 1,
                min_angle=config.min_angle,
                max_angle=config.max_angle,
            )
            sonar = Echosounder(
                echo,
                swath,
                self.sonar.world_from_body,
                processing=self.sonar.processing,
                surface_z=self.sonar.surface_z,
            )
        except (ConfigurationError, ValueError) as error:
            return str(error)
        self.sonar = sonar
        self.frequency = config.frequency
        return None
