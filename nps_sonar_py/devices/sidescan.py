"""The side-scan sonar as a device of one element (``sensing.sidescan``).

A reading is one ping of both channels (port and starboard) with where the sonar was, which
the waterfall needs to space its lines along track. In Ranger terms (``docs/ranger.md``) the
device has two beams, starboard at -pi/2 and port at +pi/2 about the body's z
(``angular_resolution`` pi, fixed), a slant-range window and bin width, and a ping rate no
faster than the two-way travel time to ``max_range``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.devices.interface import RangerConfig
from nps_sonar_py.devices.pinging import PingingRanger, rebuilt
from nps_sonar_py.echo import EchoConfig
from nps_sonar_py.sensing.caster import SurfaceCaster
from nps_sonar_py.sensing.sidescan import SidescanPing, SidescanSonar

__all__ = ['SIDESCAN_ANGLES', 'SidescanRanger', 'SidescanReading']

#: The two beams in Ranger terms, (min_angle, max_angle): starboard and port about body z.
SIDESCAN_ANGLES = (-math.pi / 2, math.pi / 2)


@dataclass(frozen=True, eq=False)
class SidescanReading:
    """One ping of both channels and the sonar's position in the world then (m)."""

    ping: SidescanPing
    position: NDArray[np.float64]


class SidescanRanger(PingingRanger[SidescanSonar]):
    """A side-scan sonar as a Ranger device of one element; a reading pings both channels."""

    def read(self, caster: SurfaceCaster) -> SidescanReading:
        """One ping of both channels, with the position it was taken at."""
        position = self.sonar.world_from_body[:3, 3].copy()
        return SidescanReading(self.sonar.ping(caster), position)

    def ranger_config(self) -> RangerConfig:
        """The configuration in Ranger terms (module docstring)."""
        e = self.sonar.echo
        low, high = SIDESCAN_ANGLES
        return RangerConfig(
            low, high, high - low, e.min_range, e.max_range, e.bin_width, self.frequency
        )

    def _angles_problem(self, config: RangerConfig) -> str | None:
        """The two beams' angles are fixed (``SIDESCAN_ANGLES``, ``angular_resolution`` pi)."""
        low, high = SIDESCAN_ANGLES
        angles = (config.min_angle, config.max_angle, config.angular_resolution)
        if not np.allclose(angles, (low, high, high - low), rtol=0.0, atol=1e-6):
            return (
                'a side-scan has two fixed beams: min_angle -pi/2 (starboard), max_angle pi/2 '
                '(port), angular_resolution pi'
            )
        return None

    def _rebuilt(self, echo: EchoConfig, config: RangerConfig) -> SidescanSonar:
        """The same fans with the new range window and bins."""
        return rebuilt(self.sonar, echo=echo)
