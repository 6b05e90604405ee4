"""The one pose-and-cast of the sonars with a fixed ray pattern: :class:`PosedRays`.

The fan (``multibeam``), the side-scan (``sidescan``) and the echosounder (``echosounder``)
place their fixed body-frame rays in the world at each pose and cast them, with their
multipath ghosts (``multipath``) when those are on.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo import EchoConfig, ExtraReturns
from nps_sonar_py.sensing.caster import RayHits, SurfaceCaster
from nps_sonar_py.sensing.multipath import MultipathConfig, multipath_returns

__all__ = ['PosedRays']


class PosedRays:
    """A sonar's fixed rays placed in the world and cast with their multipath ghosts.

    The one pose-and-cast of the sonars with a fixed ray pattern (the fan, the side-scan, the
    echosounder): a subclass sets ``echo``, ``multipath`` and ``body_rays`` before its first
    :meth:`set_pose`, and, for multipath, ``_ray_pattern`` (:func:`multipath_returns`) and
    :meth:`_hear_body`. :meth:`_hear` turns world arrival directions into body ones for it.
    """

    echo: EchoConfig
    multipath: MultipathConfig
    body_rays: NDArray[np.float64]
    world_from_body: NDArray[np.float64]
    origin: NDArray[np.float64]
    directions: NDArray[np.float64]
    _ray_pattern: NDArray[np.float64]

    def set_pose(self, world_from_body: NDArray[np.float64]) -> None:
        """Place the sensor: ``world_from_body`` is the 4x4 pose of its body frame."""
        pose = np.asarray(world_from_body, dtype=np.float64)
        self.world_from_body = pose.copy()
        self.origin = pose[:3, 3].copy()
        self.origin.flags.writeable = False
        # Read-only: the raycaster reuses its checked float32 rays while they do not change.
        self.directions = np.einsum('ij,nj->ni', pose[:3, :3], self.body_rays)
        self.directions.flags.writeable = False

    def _hear_body(
        self, ray: NDArray[np.intp], body: NDArray[np.float64]
    ) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """The beam and one-way pattern of returns arriving along body directions ``body``."""
        raise NotImplementedError

    def _hear(
        self, ray: NDArray[np.intp], u: NDArray[np.float64]
    ) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """:data:`Hearing` of world directions ``u``: :meth:`_hear_body` of ``R^T u``."""
        return self._hear_body(ray, u @ self.world_from_body[:3, :3])  # R^T u, row by row

    def _cast(
        self, caster: SurfaceCaster, rays_per_beam: int, ghost_rays: int | None = None
    ) -> tuple[RayHits, NDArray[np.floating], ExtraReturns | None]:
        """Cast the rays: the hits, the direct ranges (cut at the sea surface), the ghosts.

        With multipath off the ranges are the hits' own and there are no ghosts (``None``).
        ``rays_per_beam`` and ``ghost_rays`` are :func:`multipath_returns`'s.
        """
        hits = caster.cast(self.origin, self.directions)
        if not self.multipath.enabled:
            return hits, np.asarray(hits.ranges), None
        ranges, extra = multipath_returns(
            caster,
            self.origin,
            self.directions,
            hits,
            self.multipath,
            hear=self._hear,
            ray_pattern=self._ray_pattern,
            rays_per_beam=rays_per_beam,
            n_way=self.echo.n_way,
            max_range=self.echo.max_range,
            ghost_rays=ghost_rays,
        )
        return hits, ranges, extra
