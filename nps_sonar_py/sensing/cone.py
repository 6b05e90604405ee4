"""Rays filling a cone at equal solid angle.

The sampling, as documented in the README:

* The cone's axis is the sensor's +x axis (body frame, REP 103); its half angle is
  ``beta``. A URDF ``<sonar>`` gives it as ``atan(radius / max)``, the cone whose radius
  at maximum range is ``radius``.
* The cap ``psi <= beta`` has solid angle ``Omega = 2 pi (1 - cos beta)``. It is cut into
  ``n`` bands of equal solid angle ``Omega / n`` in ``u = 1 - cos psi``. Ray 0 is the
  boresight, the centre of the first band (a small cap); ray ``i >= 1`` sits at the middle
  of band ``i``, ``u_i = (i + 1/2) (1 - cos beta) / n``, at azimuth ``i`` times the golden
  angle (a Fibonacci spiral), so that consecutive rays fill the cap evenly.
* Every ray therefore stands for the same solid angle ``Omega / n``: a sum of per-ray
  contributions weighted by it does not depend on the ray count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = ['GOLDEN_ANGLE', 'RayPattern', 'cone_half_angle', 'cone_pattern']

#: pi (3 - sqrt 5): the azimuth step of a Fibonacci spiral.
GOLDEN_ANGLE = math.pi * (3.0 - math.sqrt(5.0))


@dataclass(frozen=True)
class RayPattern:
    """Unit ray directions in the sensor's body frame, built once per configuration.

    Attributes:
        directions: (n, 3) float64 unit vectors, x forward.
        off_axis: (n,) float64 angle of each ray from the +x axis, in radians.
        solid_angle: (n,) float64 solid angle each ray stands for, in steradians.
    """

    directions: NDArray[np.float64]
    off_axis: NDArray[np.float64]
    solid_angle: NDArray[np.float64]

    def __len__(self) -> int:
        return int(self.directions.shape[0])


def cone_half_angle(radius: float, max_range: float) -> float:
    """Half angle (radians) of the cone whose radius at ``max_range`` is ``radius``."""
    return math.atan2(radius, max_range)


def cone_pattern(half_angle: float, n_rays: int) -> RayPattern:
    """``n_rays`` rays at equal solid angle filling the cone ``psi <= half_angle``.

    Args:
        half_angle: cone half angle in radians, in (0, pi/2].
        n_rays: number of rays, at least 1 (one ray is the boresight alone).
    """
    if not 0.0 < half_angle <= math.pi / 2:
        msg = f'cone half angle must be in (0, pi/2] radians, got {half_angle!r}'
        raise ValueError(msg)
    if n_rays < 1:
        msg = f'a cone needs at least one ray, got {n_rays!r}'
        raise ValueError(msg)
    cap = 1.0 - math.cos(half_angle)
    index = np.arange(n_rays, dtype=np.float64)
    u = (index + 0.5) * cap / n_rays
    u[0] = 0.0
    cos_psi = 1.0 - u
    sin_psi = np.sqrt(np.maximum(0.0, 1.0 - cos_psi * cos_psi))
    azimuth = index * GOLDEN_ANGLE
    directions = np.column_stack((cos_psi, sin_psi * np.cos(azimuth), sin_psi * np.sin(azimuth)))
    solid_angle = np.full(n_rays, 2.0 * math.pi * cap / n_rays)
    off_axis = np.arccos(np.clip(cos_psi, -1.0, 1.0))
    return RayPattern(directions=directions, off_axis=off_axis, solid_angle=solid_angle)
