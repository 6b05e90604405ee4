"""Sequences: consecutive pings of one scene, the sensor moving along a track or an approach.

With ``sequence: {length: L, ...}`` sample ``i`` is ping ``k = i mod L`` of sequence
``n = i div L``; the scene, the sonar's settings and the pose's altitude and tilt are drawn from
``SeedSequence([seed, n])``, the same for the whole sequence, and only the place changes (and
the noise, drawn from ``SeedSequence([seed, n, k])``). The places, in the scene's frame (the
sequence's reference: the sensor at the origin heading +x, where objects are placed):

* ``track``: ``x_k = (k - (L - 1) / 2) step``, ``y_k = 0``, heading 0: a straight line centred
  on the reference (a side-scan's default step is its block's length: blocks end to end);
* ``approach``: ``x_k = k step cos b``, ``y_k = k step sin b``, heading ``b``, the bearing of
  the first object drawn from the reference (0 without objects): from the reference straight
  towards it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.dataset.sensor import SensorSettings
from nps_sonar_py.dataset.spec import Spec

__all__ = ['POSE_COLUMNS', 'place_row', 'sequence_places', 'sequence_step']

#: The manifest's columns of a sample's place in its sequence.
POSE_COLUMNS = ('sequence', 'ping', 'sensor_x', 'sensor_y', 'sensor_yaw')


def sequence_step(spec: Spec, settings: SensorSettings) -> float:
    """Metres between pings: the spec's, or (0) a side-scan's block length."""
    step = spec.sequence.step
    if step == 0.0 and not settings.fls:
        s = settings.sidescan
        step = s.waterfall_lines * (s.waterfall_line_spacing or 0.25)
    return step


def sequence_places(
    spec: Spec, settings: SensorSettings, objects: list[dict[str, Any]]
) -> NDArray[np.float64]:
    """(L, 3): each ping's ``x``, ``y`` (m) and heading (degrees) in the scene's frame."""
    q = spec.sequence
    step = sequence_step(spec, settings)
    k = np.arange(q.length, dtype=np.float64)
    if q.kind == 'approach':
        bearing = math.atan2(objects[0]['y'], objects[0]['x']) if objects else 0.0
        travel = k * step
        return np.column_stack(
            [travel * math.cos(bearing), travel * math.sin(bearing),
             np.full(q.length, math.degrees(bearing))]
        )  # fmt: skip
    along = (k - (q.length - 1) / 2.0) * step
    return np.column_stack([along, np.zeros(q.length), np.zeros(q.length)])


def place_row(
    spec: Spec, settings: SensorSettings, index: int, objects: list[dict[str, Any]]
) -> dict[str, Any]:
    """The :data:`POSE_COLUMNS` of sample ``index``."""
    sequence, ping = divmod(index, spec.sequence.length)
    x, y, yaw = sequence_places(spec, settings, objects)[ping]
    return {
        'sequence': sequence,
        'ping': ping,
        'sensor_x': float(x),
        'sensor_y': float(y),
        'sensor_yaw': float(yaw),
    }
