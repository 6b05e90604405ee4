"""What the sensors need of a raycaster: cast world-frame rays, report the surfaces hit.

``nps_sonar_py.scene.Raycaster`` is the implementation; the sensors depend only on this
protocol, so that they can be tested against any caster and import no Open3D.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

__all__ = ['BlockCaster', 'SurfaceCaster', 'SurfaceHits', 'cast_block']


class SurfaceHits(Protocol):
    """Per ray: range (inf on a miss), ``|cos|`` of the incidence, Lambert reflectivity ``mu``.

    ``retro`` is the surface's ``laser_retro`` as the scene read it, unclipped (what a ray
    sensor reports as its intensity); the echo model uses only ``mu``.
    """

    @property
    def ranges(self) -> NDArray[np.floating]: ...  # noqa: D102

    @property
    def cos_incidence(self) -> NDArray[np.floating]: ...  # noqa: D102

    @property
    def reflectivity(self) -> NDArray[np.floating]: ...  # noqa: D102

    @property
    def retro(self) -> NDArray[np.floating]: ...  # noqa: D102


class SurfaceCaster(Protocol):
    """Anything that casts world-frame rays and reports the surfaces hit."""

    def cast(  # noqa: D102
        self, origins: NDArray[np.float64], directions: NDArray[np.float64]
    ) -> SurfaceHits: ...


@runtime_checkable
class BlockCaster(Protocol):
    """A caster with a trusted entry for rays the package built itself (no checks, no packing).

    ``scene.Raycaster`` is one; ``block`` is Open3D's (n, 6) float32 ray block.
    """

    def cast_block(self, block: NDArray[np.float32]) -> SurfaceHits: ...  # noqa: D102


def cast_block(caster: SurfaceCaster, block: NDArray[np.float32]) -> SurfaceHits:
    """Cast rays the package built itself: (n, 6) float32, origin and unit direction per row.

    Through the caster's trusted entry where it is a :class:`BlockCaster`; any other caster
    (a refracting one, a test's) gets them through its ``cast``.
    """
    if isinstance(caster, BlockCaster):
        return caster.cast_block(block)
    return caster.cast(block[:, :3].astype(np.float64), block[:, 3:].astype(np.float64))
