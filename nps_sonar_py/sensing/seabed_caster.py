"""The seabed law's one hook: a caster that gives seabed hits their sediment's reflectivity.

A world whose models carry a seabed (``Entity.seabed``, ``docs/seabed.md``) is cast through
a :class:`SeabedCaster` around its raycaster (``devices.rig.medium_caster`` wraps it, the one
place that wraps casters). It casts as the inner caster does, then replaces the hits'
``reflectivity`` on each seabed's rays by ``echo.seabed.seabed_reflectivities``, the equivalent
Lambert coefficient of the sediment's backscatter at the sonar's frequency: every echo law
that reads ``mu`` (``EchoModel``'s profile and ``ray_intensities``, the coherent model's
input) then follows the seabed, unchanged. It also gives the hits their ``mirror``: on a
seabed's rays the sediment's Rayleigh ``|R|**2`` (``echo.seabed.seabed_mirror``), what the
multipath's bounces off the seabed take, elsewhere the reflectivity as before; and, where a
seabed has a texture, their ``untextured`` reflectivity, what the surfaces' fixed scatterers
take (they carry the texture at their own places, ``docs/seabed.md``). The hits of
surfaces without a seabed are handed on untouched, bit for bit; a world without seabeds is
not wrapped at all (:func:`seabed_caster`).
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo.seabed import Seabed, seabed_mirror, seabed_reflectivities, seabed_table
from nps_sonar_py.scene.tessellation import rotate_rows
from nps_sonar_py.sensing.caster import RayHits, SurfaceCaster
from nps_sonar_py.sensing.refraction import PlacedScene

__all__ = ['SeabedCaster', 'seabed_caster']

_IDENTITY = np.eye(4)


class SeabedCaster:
    """``inner``'s hits with each seabed entity's reflectivity from its sediment's law.

    Args:
        inner: the world's raycaster.
        scene: where its entities are (the same raycaster, as ``PlacedScene``).
        frequency: the sonar's carrier frequency, Hz.
        sound_speed: the water's sound speed, m/s.
    """

    def __init__(
        self, inner: SurfaceCaster, scene: PlacedScene, frequency: float, sound_speed: float
    ) -> None:
        self._inner, self._scene = inner, scene
        names = scene.entity_names
        self._seabeds: list[tuple[int, str, Seabed]] = [
            (i, names[i], e.seabed)
            for i, e in enumerate(scene.world.entities)
            if e.seabed is not None
        ]
        self._tables = [seabed_table(s, frequency, sound_speed) for _, _, s in self._seabeds]

    def cast(self, origins: NDArray[np.float64], directions: NDArray[np.float64]) -> RayHits:
        """The inner caster's hits, the seabeds' reflectivity replaced."""
        hits = self._inner.cast(origins, directions)
        o = np.broadcast_to(np.asarray(origins, dtype=np.float64), np.shape(directions))
        return self._with_seabeds(hits, o, np.asarray(directions, dtype=np.float64))

    def cast_block(self, block: NDArray[np.float32]) -> RayHits:
        """:meth:`cast` of a trusted (n, 6) float32 ray block."""
        hits = self._inner.cast_block(block)
        return self._with_seabeds(hits, block[:, :3], block[:, 3:])

    def _with_seabeds(
        self, hits: RayHits, origins: NDArray[np.floating], directions: NDArray[np.floating]
    ) -> RayHits:
        """``hits`` with the reflectivity and the mirror of every seabed's rays from its law."""
        entity = hits.entity
        mu: NDArray[np.float64] | None = None
        mirror: NDArray[np.float64] | None = None
        plain: list[tuple[NDArray[np.intp], NDArray[np.float64]]] = []  # textured rows
        for (index, name, seabed), table in zip(self._seabeds, self._tables, strict=True):
            rows = np.flatnonzero(entity == index)
            if rows.size == 0:
                continue
            d = np.asarray(directions[rows], dtype=np.float64)
            points = origins[rows] + np.asarray(hits.ranges)[rows, None] * d
            normals = np.asarray(hits.normals[rows], dtype=np.float64)
            pose = self._scene.entity_pose(name)  # entity -> world
            if not np.array_equal(pose, _IDENTITY):  # into the entity's frame: R^T (x - t)
                rotation = pose[:3, :3].T
                points = rotate_rows(points - pose[:3, 3], rotation)
                normals, d = rotate_rows(normals, rotation), rotate_rows(d, rotation)
            if mu is None or mirror is None:
                mu = np.array(hits.reflectivity, dtype=np.float64)
                mirror = np.array(hits.mirror_gain, dtype=np.float64)
            mu[rows], untextured = seabed_reflectivities(seabed, table, d, normals, points.T)
            mirror[rows] = seabed_mirror(seabed, d, normals)
            if untextured is not None:
                plain.append((rows, untextured))
        if mu is None:
            return hits
        scatterers = None
        if plain:
            scatterers = mu.copy()
            for rows, untextured in plain:
                scatterers[rows] = untextured
        return dataclasses.replace(hits, reflectivity=mu, mirror=mirror, untextured=scatterers)


def seabed_caster(caster: SurfaceCaster, frequency: float, sound_speed: float) -> SurfaceCaster:
    """``caster``, or a :class:`SeabedCaster` around it when its world has seabeds."""
    if not isinstance(caster, PlacedScene):
        return caster
    if all(e.seabed is None for e in caster.world.entities):
        return caster
    return SeabedCaster(caster, caster, frequency, sound_speed)
