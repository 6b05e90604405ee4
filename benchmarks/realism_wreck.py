"""The side-scan record's wreck as the scene of ``benchmarks/realism.py`` holds it: a ship's hull.

The record (``docs/realism.md``) shows, to starboard, a hull about 22 m long and 6.5 m across
its gunwales, its pointed bow toward the line's start, turned 6.5 degrees away from the track
and heeled 3 degrees toward it, standing 0.3 m (bow) to 1.0 m (stern) out of the sand on its
middle line, open (the near gunwale shadows the sand inside it), with an upright piece beside
its stern whose shadow runs to the end of the swath. ``docs/realism.md`` says how each figure
was read from the record's geometry.

The hull is procedural: two side walls and a transom of no thickness (the echo model is
two-sided), from below the seabed to the gunwale, over a plan of a transom stern, a parallel
middle body and a parabolic bow (the waterline of Wigley's mathematical hull).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.dataset.shapes import grid_triangles
from nps_sonar_py.scene import Triangles, box_triangles
from nps_sonar_py.transforms import transform_from_xyz_rpy

__all__ = ['WRECK', 'WRECK_POST', 'Hull', 'hull_triangles', 'wreck_triangles']


@dataclass(frozen=True)
class Hull:
    """An open hull's plan and heights, m; x from stern to bow in its own frame, z up.

    Attributes:
        length: transom to stem.
        beam: across the gunwales at the widest.
        stern_height, bow_height: the gunwale above the seabed at the transom and at the stem
            (linear between).
        transom: the transom's width as a fraction of the beam.
        run, entrance: fractions of the length of the after body (transom to the parallel
            middle body) and of the parabolic bow.
        buried: how far the walls reach under the seabed (out of sight).
        stations: plan stations from transom to stem.
    """

    length: float
    beam: float
    stern_height: float
    bow_height: float
    transom: float = 0.46
    run: float = 0.3
    entrance: float = 0.45
    buried: float = 0.6
    stations: int = 65

    def half_beam(self, s: NDArray[np.float64]) -> NDArray[np.float64]:
        """Half the width at ``s`` (0 at the transom, 1 at the stem)."""
        aft = 1.0 - (1.0 - self.transom) * np.clip(1.0 - s / self.run, 0.0, 1.0) ** 2
        fore = 1.0 - np.clip((s - (1.0 - self.entrance)) / self.entrance, 0.0, 1.0) ** 2
        return 0.5 * self.beam * np.minimum(aft, fore)


def _wall(
    x: NDArray[np.float64], y: NDArray[np.float64], top: NDArray[np.float64], low: float
) -> Triangles:
    """A wall of no thickness along the polyline ``(x, y)``, from ``low`` up to ``top``."""
    cols = x.size
    bottom = np.column_stack((x, y, np.full(cols, low)))
    upper = np.column_stack((x, y, top))
    return Triangles(np.concatenate((bottom, upper)), grid_triangles(2, cols, closed_cols=False))


def hull_triangles(hull: Hull) -> Triangles:
    """The hull's two sides and transom, in its frame: origin amidships on the seabed."""
    s = np.linspace(0.0, 1.0, hull.stations)
    x = (s - 0.5) * hull.length
    b = hull.half_beam(s)
    top = hull.stern_height + (hull.bow_height - hull.stern_height) * s
    low = -hull.buried
    sides = [_wall(x, sign * b, top, low) for sign in (1.0, -1.0)]
    transom = _wall(np.full(2, x[0]), np.array([b[0], -b[0]]), np.full(2, top[0]), low)
    return Triangles.concatenate([*sides, transom])


@dataclass(frozen=True)
class Placement:
    """Where the record puts a part, m, its yaw about z and its heel about its length, rad.

    In the record's track frame: x along the line from its first ping, y to port (the
    starboard side is negative).
    """

    x: float
    y: float
    yaw: float
    heel: float = 0.0


#: The record's hull (``docs/realism.md``: its plan fitted by least squares to its gunwales and
#: stem read from the starboard channel in ground range, 0.33 m rms; its heights, on its
#: middle line, from the lengths of the shadows its gunwales cast).
WRECK_HULL = Hull(length=21.8, beam=6.5, stern_height=1.0, bow_height=0.3)
#: Amidships 31.1 m along the line and 8.9 m to starboard, the stern-to-stem line 6.5
#: degrees off the track (the bow points back along the line and away from it), heeled 3
#: degrees toward the track: the near gunwale's shadow inside the hull is shorter than the
#: far one's outside it.
WRECK = Placement(31.1, -8.9, -math.radians(180.0 - 6.5), math.radians(3.0))
#: The upright piece beside the stern (1 m square, 3 m tall) whose shadow is the record's
#: stripe 42.5-43.4 m along the line from 12.5 m out to the end of the swath.
WRECK_POST = ((1.0, 1.0, 3.0), Placement(43.0, -12.0, WRECK.yaw))


def wreck_triangles(seabed_level: float) -> Triangles:
    """The hull and the post in the track frame, standing on a seabed at ``seabed_level``."""
    hull = hull_triangles(WRECK_HULL).transformed(
        transform_from_xyz_rpy((WRECK.x, WRECK.y, seabed_level), (WRECK.heel, 0.0, WRECK.yaw))
    )
    size, at = WRECK_POST
    height = size[2] + WRECK_HULL.buried
    post = box_triangles([size[0], size[1], height]).transformed(
        transform_from_xyz_rpy(
            (at.x, at.y, seabed_level - WRECK_HULL.buried + 0.5 * height), (0.0, 0.0, at.yaw)
        )
    )
    return Triangles.concatenate([hull, post])
