"""A bathymetric multibeam echosounder (``sensing.echosounder``) as a device of one element.

Each reading is one ping: every beam's detection and sounding. The Ranger configuration's
angles are the swath's beam axes (their spacing sets the beam count), its ranges the range
window, its frequency the ping rate.
"""

from __future__ import annotations

import dataclasses

from nps_sonar_py.devices.interface import RangerConfig, steps_problem
from nps_sonar_py.devices.pinging import PingingRanger, beam_axes, rebuilt
from nps_sonar_py.echo import EchoConfig
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

    def _angles_problem(self, config: RangerConfig) -> str | None:
        """Beam axes: their spacing sets the beam count (``SwathConfig`` bounds the count)."""
        _, problem = steps_problem(config)
        return problem

    def _rebuilt(self, echo: EchoConfig, config: RangerConfig) -> Echosounder:
        """The swath of the new axes."""
        swath = dataclasses.replace(self.sonar.swath, **beam_axes(config))
        return rebuilt(self.sonar, echo=echo, swath=swath)
