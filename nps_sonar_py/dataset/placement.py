"""A sample's objects, drawn, and placed where the sonar sees the seabed (``place: view``).

The view is worked out on a flat seabed at its mean level, from the sample's drawn range,
altitude and tilt and the sonar's settings, at the sequence's reference pose (the sensor at
the origin heading +x, ``dataset/sequence.py``):

* a fan: a direction of the sensor's frame, pitched down by the tilt, of azimuth within the
  sector (``min_angle .. max_angle``) and elevation within the vertical beam
  (``vertical_beam_width``), whose ray meets the seabed between ``min_range`` and the range.
  The azimuth is drawn uniformly; then the slant range ``s`` so that the ground is covered
  evenly (``s**2`` uniform) among those the elevation allows at that azimuth. With
  ``-d_z = A cos e - B sin e = C cos(e + psi)`` (``A = cos a sin tilt``, ``B = cos tilt``) the
  ray of elevation ``e`` meets the seabed at ``s = altitude / (-d_z)``;
* a side-scan: a side (port or starboard), a ground range across the track whose depression
  angle is within the fans' (``sidescan_tilt`` +- half ``sidescan_vertical_beam_width``) and
  whose slant range is within the range, and a place along the block (in a sequence, along
  the blocks of the whole track).

Each bound is kept :data:`MARGIN` of its span inside, so that a centre drawn at the edge of
the view stays in it over relief. An object off the seabed is placed in the view at its
height (its ``elevation``). Objects of a cluster are scattered evenly over a disc of ``spread``
m about the place drawn (pieces at the view's edge may fall out of it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from nps_sonar_py.dataset.sensor import SensorSettings, block_length
from nps_sonar_py.dataset.sequence import sequence_step
from nps_sonar_py.dataset.spec import Draw, ObjectSpec, Spec

__all__ = ['MARGIN', 'View', 'draw_objects', 'value', 'view_of']

#: The part of each bound's span kept inside it when placing in view.
MARGIN = 0.05


@dataclass(frozen=True)
class View:
    """What the sonar sees, before a sample's draws (module docstring); angles in radians."""

    fls: bool
    min_angle: float
    max_angle: float
    vertical: float
    min_range: float
    half_track: float


def view_of(spec: Spec, settings: SensorSettings) -> View:
    """The view of ``spec``'s sonar: its sector, its vertical beam and its block's length."""
    if settings.fls:
        s = settings.scanning
        return View(True, s.min_angle, s.max_angle, settings.fan.vertical_beam_width,
                    spec.sensor.min_range, 0.0)  # fmt: skip
    ss = settings.sidescan
    half = 0.5 * (ss.waterfall_lines - 1) * (ss.waterfall_line_spacing or 0.25)
    if spec.sequence.kind == 'track':  # the blocks of the whole track
        half += 0.5 * (spec.sequence.length - 1) * sequence_step(spec, block_length(settings))
    return View(False, 0.0, 0.0, ss.sidescan_vertical_beam_width, spec.sensor.min_range, half)


def value(draw: Draw, rng: np.random.Generator) -> Any:
    """One value of ``draw``; always one number of ``rng`` consumed, fixed or not."""
    u = float(rng.random())
    if draw.choices:
        return draw.choices[min(int(u * len(draw.choices)), len(draw.choices) - 1)]
    return draw.low + (draw.high - draw.low) * u


def _inside(low: float, high: float) -> tuple[float, float]:
    """``low .. high`` narrowed by :data:`MARGIN` of its span at each end."""
    cut = MARGIN * (high - low)
    return low + cut, high - cut


def _fan_place(view: View, row: dict[str, Any], u: float, v: float) -> tuple[float, float]:
    """(x, y) on the seabed in the fan's view (module docstring) for uniforms ``u``, ``v``."""
    h, tilt = float(row['altitude']), math.radians(row['tilt'])
    low, high = _inside(view.min_angle, view.max_angle)
    a = low + (high - low) * u
    c = math.hypot(math.cos(a) * math.sin(tilt), math.cos(tilt))
    psi = math.atan2(math.cos(tilt), math.cos(a) * math.sin(tilt))
    e_low, e_high = _inside(-0.5 * view.vertical, 0.5 * view.vertical)
    near, far = _inside(max(view.min_range, h), float(row['range']))
    # -d_z falls as the elevation rises: the highest elevation gives the farthest slant range.
    down_far = max(h / far, c * math.cos(min(psi + e_high, 0.5 * math.pi)), 1e-9)
    down_near = min(h / near, c * math.cos(max(psi + e_low, 0.0)))
    s_far, s_near = h / down_far, h / max(down_near, down_far)
    s = math.sqrt(s_near**2 + v * (s_far**2 - s_near**2))
    e = math.acos(min(1.0, h / s / c)) - psi
    direction = np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])
    pitch = np.array(
        [
            [math.cos(tilt), 0.0, math.sin(tilt)],
            [0.0, 1.0, 0.0],
            [-math.sin(tilt), 0.0, math.cos(tilt)],
        ]
    )  # world <- sensor, pitched down by the tilt
    world = pitch @ direction
    reach = h / max(-world[2], 1e-9)
    return float(reach * world[0]), float(reach * world[1])


def _sidescan_place(view: View, row: dict[str, Any], u: float, v: float) -> tuple[float, float]:
    """(x, y) on the seabed a side-scan's fans see: along the block, then across the track."""
    h, tilt = float(row['altitude']), math.radians(row['tilt'])
    steep = min(tilt + 0.5 * view.vertical, math.radians(89.0))
    shallow = tilt - 0.5 * view.vertical
    far = math.sqrt(max(float(row['range']) ** 2 - h**2, 0.0))
    if shallow > 0.0:
        far = min(far, h / math.tan(shallow))
    near = max(h / math.tan(steep), math.sqrt(max(view.min_range**2 - h**2, 0.0)))
    near, far = _inside(near, max(far, near))
    side = 1.0 if v < 0.5 else -1.0
    across = near + (far - near) * (2.0 * v % 1.0)
    along_low, along_high = _inside(-view.half_track, view.half_track)
    return along_low + (along_high - along_low) * u, side * across


def _sized(spec: ObjectSpec, rng: np.random.Generator) -> dict[str, Any]:
    """An object's sizes, burial, yaw, reflectivity, elevation and scour, drawn in order."""
    item: dict[str, Any] = {'kind': spec.kind, 'class': spec.label, 'file': spec.file}
    item.update({name: value(d, rng) for name, d in spec.sizes.items()})
    for name in ('burial', 'yaw', 'reflectivity', 'elevation', 'scour_depth', 'scour_width'):
        item[name] = value(getattr(spec, name), rng)
    return item


def _placed(
    entry: ObjectSpec, view: View, row: dict[str, Any], xy: tuple[float, float], height: float
) -> dict[str, float]:
    """The place of an object whose base is ``height`` m above the seabed: ``x``, ``y``."""
    x, y = xy
    if entry.place == 'view':  # the view of a seabed at the object's height
        lifted = {**row, 'altitude': max(float(row['altitude']) - height, 0.1)}
        x, y = (_fan_place if view.fls else _sidescan_place)(view, lifted, x, y)
    return {'x': x, 'y': y}


def draw_objects(
    spec: Spec, row: dict[str, Any], rng: np.random.Generator, view: View
) -> list[dict[str, Any]]:
    """The objects of a sample, in the spec's order, each placed (module docstring)."""
    drawn = []
    for entry in spec.objects:
        low, high = entry.count
        for _ in range(int(rng.integers(low, high + 1))):
            xy = (value(entry.x, rng), value(entry.y, rng))
            if entry.pieces[1] == 0:
                item = _sized(entry, rng)
                drawn.append({**item, **_placed(entry, view, row, xy, item['elevation'])})
                continue
            pieces = int(rng.integers(entry.pieces[0], entry.pieces[1] + 1))
            spread = value(entry.spread, rng)
            centre = _placed(entry, view, row, xy, 0.0)
            for _ in range(pieces):
                r, angle = spread * math.sqrt(float(rng.random())), 2 * math.pi * rng.random()
                offset = {
                    'x': centre['x'] + r * math.cos(angle),
                    'y': centre['y'] + r * math.sin(angle),
                }
                drawn.append({**_sized(entry, rng), **offset})
    return drawn
