"""The seabed-image paths of one scatterer over flat sediment, worked by hand for the tests.

A scatterer ``zc`` up at horizontal distance ``out`` from a sonar ``h`` up, on a face whose
normal points back along that distance: the direct range ``r_d``, its image's ``r_i``, the
one-bounce range ``(r_d + r_i) / 2``, the cosines of the two legs on the face, the sonar's
two-way pattern toward each leg, and the sediment's ``|R|`` at the image's grazing angle.
The image paths' levels over the direct echo (docs/multipath.md): the two one-bounce paths
together ``4 |R|**2 (cos_i / cos_d) (r_d / r_i)**2 sqrt(w_i / w_d)``, the two-bounce path
``|R|**4 (cos_i / cos_d)**2 (r_d / r_i)**4 w_i / w_d``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.integrate import quad

from nps_sonar_py.echo.seabed import Seabed
from nps_sonar_py.echo.sediment import Sediment, reflection_coefficient, with_overrides
from nps_sonar_py.scene import Entity, EntityState, Raycaster, SceneState, World
from nps_sonar_py.scene.tessellation import Triangles, box_triangles
from nps_sonar_py.transforms import transform_from_xyz_rpy


def flat(sediment: Sediment) -> Sediment:
    """``sediment`` without roughness (``w2`` 0): its whole Rayleigh mirror."""
    return with_overrides(sediment, spectral_strength=0.0)


def rough_mirror(sediment: Sediment, wavelength: float, d1: float, d2: float, sin: float) -> float:
    """The coherent part of a rough seabed's mirror, ``exp(-2 k**2 sigma**2 sin**2 theta)``.

    ``sigma**2``: the 2-D roughness spectrum ``w2 K**-gamma2`` integrated numerically
    (``2 pi K W(K) dK``) above ``pi / a``, ``a`` the radius of the area of the bounce's first
    Fresnel zone (legs ``d1``, ``d2``: ``r_F**2 = lambda d1 d2 / (d1 + d2)`` across, ``r_F /
    sin theta`` along: ``a = r_F / sqrt(sin theta)``).
    """
    a = math.sqrt(wavelength * d1 * d2 / (d1 + d2) / sin)
    w2, gamma2 = sediment.spectral_strength, sediment.spectral_exponent
    variance = quad(lambda q: 2.0 * math.pi * q * w2 * q**-gamma2, math.pi / a, np.inf)[0]
    k = 2.0 * math.pi / wavelength
    return math.exp(-2.0 * k**2 * variance * sin**2)


@dataclass(frozen=True)
class ImagePaths:
    """One scatterer's direct and image geometry (module docstring)."""

    r_d: float
    r_i: float
    r_1: float
    cos_d: float
    cos_i: float
    w_d: float
    w_i: float
    r_sand: float

    @property
    def one_db(self) -> float:
        """The two one-bounce paths' level over the direct echo, dB."""
        ratio = self.cos_i / self.cos_d * (self.r_d / self.r_i) ** 2
        return 10 * math.log10(4 * self.r_sand**2 * ratio * math.sqrt(self.w_i / self.w_d))

    @property
    def two_db(self) -> float:
        """The two-bounce path's level over the direct echo, dB."""
        ratio = self.cos_i / self.cos_d * (self.r_d / self.r_i) ** 2
        return 10 * math.log10(self.r_sand**4 * ratio**2 * self.w_i / self.w_d)


def image_paths(
    out: float, h: float, zc: float, two_way: Callable[[float], float], sediment: Sediment
) -> ImagePaths:
    """The paths of a scatterer ``zc`` up, ``out`` away from a sonar ``h`` up.

    ``two_way(depression)``: the sonar's two-way pattern toward a depression angle.
    """
    r_d, r_i = math.hypot(out, h - zc), math.hypot(out, h + zc)
    grazing = math.atan2(h + zc, out)
    return ImagePaths(
        r_d=r_d,
        r_i=r_i,
        r_1=0.5 * (r_d + r_i),
        cos_d=out / r_d,
        cos_i=out / r_i,
        w_d=two_way(math.atan2(h - zc, out)),
        w_i=two_way(grazing),
        r_sand=abs(complex(reflection_coefficient(sediment, grazing))),
    )


def plate_over_seabed(
    plate: Triangles,
    seabed: Seabed,
    seabed_centre: tuple[float, float],
    hiding: tuple[tuple[float, float, float], tuple[float, float, float]] | None = None,
) -> Raycaster:
    """A world of a flat seabed (its top at z = 0, 80 m square, centred at ``seabed_centre``)
    and the scatterer's ``plate``; ``hiding``: a box ``(size, centre)`` on the seabed."""
    entities = [
        Entity('seabed', box_triangles([80.0, 80.0, 0.1]), 1e-10, seabed=seabed),
        Entity('plate', plate, 0.5),
    ]
    origin = transform_from_xyz_rpy((*seabed_centre, -0.05), (0, 0, 0))
    states = [EntityState('seabed', origin=origin), EntityState('plate', origin=np.eye(4))]
    if hiding is not None:
        size, centre = hiding
        entities.append(Entity('box', box_triangles(list(size)), 1e-10))
        states.append(EntityState('box', origin=transform_from_xyz_rpy(centre, (0,) * 3)))
    scene = World('images', tuple(entities), SceneState('images', 0.0, tuple(states)))
    return Raycaster(scene)
