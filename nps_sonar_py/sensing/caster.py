"""What the sensors need of a raycaster: cast world-frame rays, report the surfaces hit.

Every caster returns the one record :class:`~nps_sonar_py.scene.hits.RayHits` (ranges,
normals, incidence, reflectivity, entity, retro, and how the rays were bent, if they were):
a sensor reads each field of every caster's hits the same way. ``nps_sonar_py.scene.Raycaster``
casts straight rays, ``sensing.refraction.RefractingCaster`` bends them through a profile;
the sensors depend only on this protocol, so that they can be tested against any caster and
import no Open3D.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.scene.hits import Bending, HitTriangles, RayHits

__all__ = ['Bending', 'HitTriangles', 'RayHits', 'SurfaceCaster']


class SurfaceCaster(Protocol):
    """Anything that casts world-frame rays and reports the surfaces hit.

    ``cast`` takes any rays: origins (n, 3) or one (3,) for all, m, and (n, 3) unit
    directions. ``cast_block`` takes rays the package built itself and knows are valid (no
    checks, no packing where the caster has a faster entry): Open3D's C-contiguous (n, 6)
    float32 block of origin and unit direction per row; a caster without such an entry casts
    them through ``cast``.
    """

    def cast(  # noqa: D102
        self, origins: NDArray[np.float64], directions: NDArray[np.float64]
    ) -> RayHits: ...

    def cast_block(self, block: NDArray[np.float32]) -> RayHits: ...  # noqa: D102
