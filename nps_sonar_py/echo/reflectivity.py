"""Acoustic reflectivity of surfaces: from Gazebo's ``laser_retro`` to a Lambert coefficient.

Gazebo's ``laser_retro`` is an unbounded number that its ray sensors return unchanged as
the intensity; worlds written for it use 0 to 255 (the NPS reference tank: walls 50,
target 255). This package reads it as a fraction of a perfect diffuse reflector:

    mu = clip(retro / 255, 0, 1)

so 255 is a perfect Lambertian surface (mu = 1) and 0 reflects nothing. That is the one
conversion: the scene keeps each surface's ``laser_retro`` as read (``Entity.retro``,
``RayHits.retro``: a ray sensor reports it unchanged, as Gazebo's do, so 1000 reads 1000) and
every reader calls :func:`lambert_coefficient` for the echo's ``mu``. A surface with
neither ``laser_retro`` nor this package's own ``reflectivity`` gets ``DEFAULT_LAMBERT``,
DAVE's default of -30 dB (``docs/physics.md#reflectivity``).

Unlike Gazebo, where the intensity *is* the retro value, ``echo.model.EchoModel`` uses ``mu``
only as the surface's Lambert coefficient and derives every angle and range dependence from
the physics (``mu cos(alpha) dOmega / r**2``); with ``Scattering.SPECULAR`` it reads the same
number as the power reflection coefficient ``|R|**2``. ``ping`` does not check ``mu`` per ray
(it is on the hot path): NaN on a miss (the raycaster's) is harmless, as the ray is dropped,
but NaN on a hit would spoil its bin; replace it, e.g. by ``DEFAULT_LAMBERT``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ['DEFAULT_LAMBERT', 'RETRO_FULL_SCALE', 'lambert_coefficient', 'lambert_from_retro']

#: The ``laser_retro`` value read as a perfect Lambertian reflector.
RETRO_FULL_SCALE = 255.0

#: Lambert coefficient of a surface that gives no reflectivity: 1e-3 (-30 dB), as DAVE.
DEFAULT_LAMBERT = 1e-3


def lambert_from_retro(retro: ArrayLike) -> NDArray[np.float64]:
    """Lambert coefficient ``mu`` in [0, 1] of Gazebo ``laser_retro`` values; NaN stays NaN.

    >>> lambert_from_retro([255.0, 51.0, 0.0, 300.0]).tolist()
    [1.0, 0.2, 0.0, 1.0]
    """
    return np.clip(np.asarray(retro, dtype=np.float64) / RETRO_FULL_SCALE, 0.0, 1.0)


def lambert_coefficient(reflectivity: float | None, retro: float | None, default: float) -> float:
    """Lambert coefficient of a surface: its reflectivity, else its retro's, else ``default``.

    The one place where a scene's ``laser_retro`` becomes the echo model's coefficient (the
    scene readers call it with what the file gives; the retro itself is kept as read).

    >>> lambert_coefficient(None, 1000.0, DEFAULT_LAMBERT), lambert_coefficient(0.3, 51.0, 0.1)
    (1.0, 0.3)
    """
    if reflectivity is not None:
        return float(reflectivity)
    if retro is not None:
        return float(lambert_from_retro(retro))
    return float(default)
