"""The one record of a cast's hits, whatever cast it: :class:`RayHits` (no Open3D here).

The scene's raycaster (straight rays, ``scene.raycaster``) and the refracting caster around
it (``sensing.refraction``) both return it, and so does any caster a test writes
(:meth:`RayHits.of`). A sensor reads every field of every caster's hits the same way: no
probing for what a caster may or may not give.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.echo.entity_scatterers import EntityMesh
from nps_sonar_py.echo.sound_speed import SoundSpeedProfile

__all__ = ['Bending', 'HitTriangles', 'RayHits']

F = NDArray[np.float64]
#: The gathers of ``entity`` and ``retro``, made when first read.
LookUp = Callable[[], tuple[NDArray[np.int64], NDArray[np.float64]]]


@dataclass(frozen=True, eq=False)  # arrays: compare fields with numpy
class Bending:
    """How a refracting caster bent the rays of one cast (``sensing.refraction``).

    Attributes:
        profile: the water's sound speed against depth the rays were traced through.
        surface_z: world z of the sea surface, m (a depth is ``surface_z - z``).
        travel_time: (n,) float64 one-way time along each bent path, s; inf on a miss.
        path_length: (n,) float64 length of each bent path, m; inf on a miss.
        reference_speed: (n,) float64 ``c_ref``, the sound speed at each ray's origin, m/s:
            the hits' ``ranges`` are ``c_ref * travel_time``.

    """

    profile: SoundSpeedProfile
    surface_z: float
    travel_time: F
    path_length: F
    reference_speed: F


@dataclass(frozen=True, eq=False)
class HitTriangles:
    """Which triangle of the scene each ray hit, and the meshes and poses of their entities.

    What the surfaces' fixed scatterers (``echo.fixed_scatterers``) are keyed by: a triangle's
    id is the same from ping to ping and pose to pose (its entity's first id plus its index
    in the entity's mesh); the scatterers are placed in the entity's frame and follow its
    pose (``echo.entity_scatterers``).

    Attributes:
        ids: (n,) int64 id of the triangle each ray hit; -1 on a miss. Worked out when first
            read (from the constructor's function): a sonar that reads none does not pay.
        meshes: the mesh and pose at the cast (``EntityMesh``) of each entity that owns
            some of triangles ``ids`` (k,), in the order of their first ids.
    """

    _ids: Callable[[], NDArray[np.int64]] = field(repr=False)
    meshes: Callable[[NDArray[np.int64]], tuple[EntityMesh, ...]]

    @functools.cached_property
    def ids(self) -> NDArray[np.int64]:
        """(n,) int64 id of the triangle each ray hit; -1 on a miss."""
        return self._ids()


@dataclass(frozen=True, eq=False)  # arrays: compare fields with numpy
class RayHits:
    """The first surface each of ``n`` rays meets, in the world frame: every caster's record.

    Ranges, normals and incidence are float32 from the scene's raycaster, as Open3D computes
    them (a float32 range is exact to ~6e-8 relative, 0.6 um at 10 m), float64 from the
    refracting caster; read them with ``np.asarray`` either way. ``entity`` and ``retro`` are
    looked up when first read: a sonar that reads neither does not pay for their gathers.

    Attributes:
        ranges: (n,) distance in metres from the origin to the hit along the ray; inf on a
            miss. For bent rays the *equivalent* range ``c_ref * travel_time`` (``bending``),
            what the sensors' straight-ray models (range bins, spreading) expect.
        normals: (n, 3) unit normal of the triangle hit, world frame, as the triangle is wound
            (outward for primitives), not turned toward the ray; zero on a miss.
        cos_incidence: (n,) ``|d . n|``, cosine of the angle between the arriving ray and the
            normal, dimensionless; 0 on a miss.
        reflectivity: (n,) float64 Lambert coefficient ``mu`` of the surface hit; nan on a miss.
        entity: (n,) int64 index into the world's entity names; -1 on a miss.
        retro: (n,) float64 ``laser_retro`` of the surface hit as read, unclipped (what a ray
            sensor reports as its intensity; 0 where the scene gives none); nan on a miss.
        bending: how the rays were bent (travel times, path lengths, the profile); ``None``
            for straight rays, whose travel time is the range over the water's uniform speed
            (:meth:`travel_time`).
        triangles: the triangle each ray hit (``HitTriangles``), from a caster that knows
            its scene's triangles; ``None`` from one that does not (``RayHits.of``).
        mirror: (n,) float64 ``|R|**2`` of the surface hit as a specular mirror (multipath's
            bounces); ``None``: ``reflectivity``, the package's reading of a plain surface as
            a mirror. A seabed's is its sediment's Rayleigh reflection (``docs/seabed.md``).
        untextured: (n,) float64 the reflectivity without a seabed's texture, which the
            surfaces' fixed scatterers carry at their own places instead
            (``echo.surface_echoes``); ``None``: ``reflectivity`` (no texture on any hit).

    """

    ranges: NDArray[np.floating]
    normals: NDArray[np.floating]
    cos_incidence: NDArray[np.floating]
    reflectivity: NDArray[np.float64]
    _look_up: LookUp = field(repr=False)
    bending: Bending | None = None
    triangles: HitTriangles | None = None
    mirror: NDArray[np.float64] | None = None
    untextured: NDArray[np.float64] | None = None

    @staticmethod
    def of(
        ranges: ArrayLike,
        normals: ArrayLike,
        cos_incidence: ArrayLike,
        reflectivity: ArrayLike,
        *,
        entity: ArrayLike | None = None,
        retro: ArrayLike | None = None,
    ) -> RayHits:
        """Hits from arrays (a caster of one's own); ``entity`` -1 and ``retro`` 0 if not given.

        ``normals`` may be one (3,) normal for every ray.
        """
        r = np.asarray(ranges, dtype=np.float64)
        n = r.shape[0]
        normal = np.broadcast_to(np.asarray(normals, dtype=np.float64), (n, 3))
        hit = r < np.inf
        index = (
            np.where(hit, 0, -1).astype(np.int64)
            if entity is None
            else np.asarray(entity, dtype=np.int64)
        )
        retros = (
            np.where(hit, 0.0, np.nan) if retro is None else np.asarray(retro, dtype=np.float64)
        )
        return RayHits(
            r,
            normal,
            np.asarray(cos_incidence, dtype=np.float64),
            np.asarray(reflectivity, dtype=np.float64),
            lambda: (index, retros),
        )

    @functools.cached_property
    def _entity_and_retro(self) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        return self._look_up()

    @property
    def entity(self) -> NDArray[np.int64]:
        """(n,) int64 index into the world's entity names; -1 on a miss."""
        return self._entity_and_retro[0]

    @property
    def retro(self) -> NDArray[np.float64]:
        """(n,) float64 ``laser_retro`` of the surface hit; nan on a miss."""
        return self._entity_and_retro[1]

    def __len__(self) -> int:
        return int(self.ranges.shape[0])

    @property
    def mirror_gain(self) -> NDArray[np.float64]:
        """(n,) ``|R|**2`` of each surface hit as a mirror: ``mirror``, else ``reflectivity``."""
        return np.asarray(self.reflectivity if self.mirror is None else self.mirror)

    @property
    def scatterer_reflectivity(self) -> NDArray[np.float64]:
        """(n,) what the fixed scatterers take: ``untextured``, else ``reflectivity``."""
        return np.asarray(self.reflectivity if self.untextured is None else self.untextured)

    @property
    def hit(self) -> NDArray[np.bool_]:
        """(n,) whether each ray met a surface."""
        return np.asarray(self.ranges < np.inf)

    def reference_speed(self, speed_of_sound: float) -> F:
        """(n,) the sound speed, m/s, that turns each range into a travel time.

        The speed at each ray's origin for bent rays; ``speed_of_sound`` (the uniform water's,
        which a straight caster does not know) for straight ones.
        """
        if self.bending is not None:
            return self.bending.reference_speed
        return np.full(self.ranges.shape[0], float(speed_of_sound))

    def travel_time(self, speed_of_sound: float) -> F:
        """(n,) one-way travel time along each ray's path, s; inf on a miss.

        The traced time for bent rays; the range over ``speed_of_sound`` (m/s, the uniform
        water's) for straight ones.
        """
        if self.bending is not None:
            return self.bending.travel_time
        return np.asarray(self.ranges, dtype=np.float64) / float(speed_of_sound)

    @property
    def path_length(self) -> F:
        """(n,) length of each ray's path to its hit, m; inf on a miss (straight: the range)."""
        if self.bending is not None:
            return self.bending.path_length
        return np.asarray(self.ranges, dtype=np.float64)
