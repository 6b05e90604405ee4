"""The side-scan's altitude, which puts its slant ranges on the ground: bottom track, altimeter.

Ground range ``sqrt(r**2 - h**2)`` needs the altitude ``h`` of each ping. Real systems take it
one of two ways (``docs/sidescan.md``, Altitude):

* **Bottom tracking** (:class:`BottomTrack`, the default): each ping's first bottom return
  gives a measurement, the vertical drop to the nearest return of either channel, and the
  track smooths it over pings, robust to what is not the seabed. Here the track holds the
  seabed's level under the sonar (the sensor's world z minus each measurement) over the last
  ``pings`` pings and takes their median: an object that fools fewer than half of them
  changes nothing, and the sensor's own heave and depth changes are followed exactly (they
  are the sensor's z, not the seabed's level). A seabed sloping along track is followed with a
  lag of about ``pings / 2`` pings.
* **An altimeter** (:func:`altimeter`): a narrow beam straight down (the world's vertical, as
  an attitude-compensated altimeter gives it), the true vertical distance to whatever is
  directly below: the seabed, or an object exactly beneath the sensor.
"""

from __future__ import annotations

import math
from enum import Enum

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.sensing.caster import SurfaceCaster

__all__ = ['DOWN', 'AltitudeSource', 'BottomTrack', 'altimeter']

#: The altimeter's beam: the world's vertical, down.
DOWN = np.array([[0.0, 0.0, -1.0]])


class AltitudeSource(Enum):
    """Where a side-scan ping's altitude comes from (module docstring)."""

    BOTTOM_TRACK = 'bottom_track'
    ALTIMETER = 'altimeter'


class BottomTrack:
    """The median seabed level under the sonar over the last ``pings`` pings.

    Args:
        pings: pings the median runs over (1: each ping's own first return).
    """

    def __init__(self, pings: int) -> None:
        self._levels = np.full(pings, math.nan)
        self._next = 0

    def update(self, sensor_z: float, drop: float) -> float:
        """The altitude of a ping at world ``sensor_z`` whose first return was ``drop`` m down.

        A ping that heard nothing (``drop`` NaN) keeps the track; NaN until a ping hears.
        """
        if math.isfinite(drop):
            self._levels[self._next] = sensor_z - drop
            self._next = (self._next + 1) % self._levels.size
        levels = np.sort(self._levels[np.isfinite(self._levels)])
        n = levels.size
        if n == 0:
            return math.nan
        # The median as np.median takes it (the two middle levels' mean when n is even),
        # without its overhead, ten times the sort's on a few levels.
        median = float(levels[n // 2]) if n % 2 else (levels[n // 2 - 1] + levels[n // 2]) / 2.0
        return float(sensor_z - median)


def altimeter(caster: SurfaceCaster, origin: NDArray[np.float64]) -> float:
    """The vertical distance from ``origin`` (3,) to the surface straight below, m; NaN: none.

    The path length of the ray cast down (exactly the distance through a sound-speed profile,
    where a vertical ray does not bend).
    """
    hits = caster.cast(origin, DOWN)
    distance = float(hits.path_length[0])
    return distance if math.isfinite(distance) else math.nan
