"""Specs that parse but cannot make what they ask for, refused in one line before a sample runs.

* The range window: ``sensor.min_range`` must be below every range drawn.
* The seabed in view: a slant range never reaches below the sensor farther than its
  altitude, so an altitude at or above a drawn range makes a sample without seabed (a black
  image labelled ok).
* Objects in view: an object placed at ``x``, ``y`` (``place: xy``) whose every drawn
  position is farther from the sensor than the longest range (for a fan from ``(x, y)``, for
  a side-scan across the track from ``y``; with the lowest altitude) is in no sample's image.
* Mesh files: a mesh outside the spec's folder is read only from a folder the user allows
  (``--mesh-folder``): a spec from elsewhere must not make the command read any file.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path

from nps_sonar_py.dataset.spec import Draw, Spec, SpecError

__all__ = ['check_meshes', 'check_spec']


def _nearest(draw: Draw) -> float:
    """The smallest ``|v|`` of the values ``draw`` gives."""
    return 0.0 if draw.low <= 0.0 <= draw.high else min(abs(draw.low), abs(draw.high))


def check_spec(spec: Spec) -> None:
    """Refuse a spec whose samples would show nothing it asks for (module docstring)."""
    s = spec.sensor
    if s.min_range >= s.range.low:
        raise SpecError(
            f'{s.min_range:g} m must be below the range (lowest {s.range.low:g} m)',
            file=spec.source,
            element='sensor.min_range',
        )
    if s.altitude.high >= s.range.low:
        raise SpecError(
            f'up to {s.altitude.high:g} m, at or above the range (lowest {s.range.low:g} m): '
            'a sample drawn so sees no seabed',
            file=spec.source,
            element='sensor.altitude',
        )
    for index, item in enumerate(spec.objects):
        if item.place == 'view':  # placed in view by dataset/placement.py
            continue
        across = _nearest(item.y)
        ground = across if s.preset == 'sidescan' else math.hypot(_nearest(item.x), across)
        slant = math.hypot(ground, s.altitude.low)
        if item.count[1] > 0 and slant > s.range.high:
            raise SpecError(
                f'every position drawn is at least {slant:.3g} m from the sensor, beyond its '
                f'range ({s.range.high:g} m): in no image',
                file=spec.source,
                element=f'objects[{index}]',
            )


def check_meshes(spec: Spec, folders: Sequence[Path]) -> None:
    """Refuse a mesh file outside ``folders`` (the spec's and those the user allows)."""
    allowed = [os.path.realpath(folder) for folder in folders]
    for index, item in enumerate(spec.objects):
        if not item.file:
            continue
        real = os.path.realpath(item.file)
        if not any(os.path.commonpath([real, folder]) == folder for folder in allowed):
            raise SpecError(
                f"{item.file} is outside the spec's folder: allow its folder with --mesh-folder",
                file=spec.source,
                element=f'objects[{index}].file',
            )
