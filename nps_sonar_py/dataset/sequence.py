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

from nps_sonar_py.dataset.spec import Spec, SpecError

__all__ = [
    'MAX_TRACK',
    'POSE_COLUMNS',
    'check_track',
    'place_row',
    'sequence_places',
    'sequence_step',
]

#: The manifest's columns of a sample's place in its sequence.
POSE_COLUMNS = ('sequence', 'ping', 'sensor_x', 'sensor_y', 'sensor_yaw')
#: The longest track of a sequence, m: its seabed is one grid under every ping.
MAX_TRACK = 200.0


def sequence_step(spec: Spec, block: float) -> float:
    """Metres between pings: the spec's, or (0) ``block``, a side-scan block's length."""
    return spec.sequence.step or block


def check_track(spec: Spec, block: float) -> None:
    """Refuse a sequence whose track is longer than :data:`MAX_TRACK` (one line).

    ``block``: a side-scan block's length along the track, m (0 for a fan).
    """
    track = (spec.sequence.length - 1) * sequence_step(spec, block)
    if track > MAX_TRACK:
        raise SpecError(
            f'a track of {track:.4g} m, longer than {MAX_TRACK:g} m (its seabed is one grid): '
            'fewer or shorter steps',
            file=spec.source,
            element='sequence',
        )


def sequence_places(
    spec: Spec, block: float, objects: list[dict[str, Any]]
) -> NDArray[np.float64]:
    """(L, 3): each ping's ``x``, ``y`` (m) and heading (degrees) in the scene's frame.

    ``block``: a side-scan block's length along the track, m (0 for a fan).
    """
    q = spec.sequence
    step = sequence_step(spec, block)
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
    spec: Spec, block: float, index: int, objects: list[dict[str, Any]]
) -> dict[str, Any]:
    """The :data:`POSE_COLUMNS` of sample ``index`` (``block``: as :func:`sequence_places`)."""
    sequence, ping = divmod(index, spec.sequence.length)
    x, y, yaw = sequence_places(spec, block, objects)[ping]
    return {
        'sequence': sequence,
        'ping': ping,
        'sensor_x': float(x),
        'sensor_y': float(y),
        'sensor_yaw': float(yaw),
    }
