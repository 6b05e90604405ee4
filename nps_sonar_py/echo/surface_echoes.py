"""The echoes of the fixed scatterers on the surfaces a ping's cast lit.

The rays of a coherent fan only find surfaces: which triangles are lit, where, and their
reflectivity. Each triangle holds its fixed scatterers at the density ``rho``, keyed by the
triangle's id and the seed, the same from ping to ping and pose to pose:

* a triangle of up to ``PATCH_SCATTERERS`` of them holds them all
  (``fixed_scatterers.surface_scatterers``): spread evenly over it; it is lit when a ray
  hits it or a hit on its entity lies within the rays' spacing there (small objects keep
  their unhit triangles' scatterers);
* a larger one (a flat box's face) is tiled, in its own plane from its first corner, by
  square patches of ``PATCH_SCATTERERS`` scatterers each, every patch keyed by the
  triangle, its column and row (``surface_patches.py``); only the patches about the
  triangle's lit part are heard (those within the rays' spacing of its hits), clipped to
  the triangle.

The scatterers are placed once in their entity's frame and kept by the engine
(``entity_scatterers.ScattererCache``): a ping selects the lit triangles' and moves them by
the entity's pose.

Which of them the sonar hears: those in front of what its rays hit (:attr:`LitSurfaces.visible`,
the cast as a depth map: occlusion and shadows) and, if it says so (``lit_echoes``'s ``heard``:
its pattern and range window), those it weighs above zero.

A scatterer stands for the area ``A = 1 / rho``; its mean echo is the incoherent law's for
that area (``model.py``): a ray's ``mu cos(alpha) dOmega / r**2`` with the solid angle
``dOmega = A cos(alpha) / r**2`` the area subtends, so

    I = mu cos(alpha)**2 A / r**4 exp(-2 a r),

times the sonar's own pattern at the scatterer. Its amplitude is ``xi sqrt(T I)``, ``xi`` its
fixed unit complex Gaussian, ``T`` the texture of its entity's seabed at its place (1 without
one: ``echo.seabed.scatterer_texture``, a gamma variate of mean 1 fixed to the surface, of the
shape its grazing angle ``asin(|body . n| / r)`` gives; ``docs/seabed.md``); the carrier
phase of its true path and the receive array are the beam former's
(``formed_beams.form_beams``; ``docs/beamforming.md``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.background import in_halves
from nps_sonar_py.echo.entity_scatterers import EntityMesh, ScattererCache, Selected
from nps_sonar_py.echo.seabed import Seabed, scatterer_texture
from nps_sonar_py.transforms import move_coordinates, rotate_rows

if TYPE_CHECKING:
    from nps_sonar_py.echo.seabed_images import Looks

__all__ = ['Heard', 'LitEchoes', 'LitSurfaces', 'lit_echoes']

#: An intensity loss of x dB is a factor exp(-x ln(10) / 10).
_DB_TO_NEPER = math.log(10.0) / 10.0


@dataclass(frozen=True, eq=False)
class LitSurfaces:
    """What a ping's cast lit, for the surfaces' fixed scatterers.

    Attributes:
        ids: (n,) int64 triangle id each ray hit (``scene.hits.HitTriangles``), -1 for none.
        reflectivity: (n,) each ray's Lambert coefficient (NaN for none).
        points: (n, 3) each ray's hit in the world, m (anything for none).
        spacing: (n,) the distance to the neighbouring rays' hits on the surface, m.
        meshes: the meshes and poses of the entities that own triangles ``ids``.
        world_from_sensor: (4, 4) the sensor's pose; its body frame x ahead, y along the
            receive array.
        visible: which of (m, 3) points in the sensor's frame, at ranges (m,), its rays see
            (none nearer).
        seabed: for the objects' images in the seabed, the ground straight down from points
            in the world, whether the ray towards a direction ends on a seabed or nothing and
            whether legs between points are clear (``seabed_images.Looks``); ``None``: none
            heard.
    """

    ids: NDArray[np.int64]
    reflectivity: NDArray[np.float64]
    points: NDArray[np.float64]
    spacing: NDArray[np.float64]
    meshes: Callable[[NDArray[np.int64]], tuple[EntityMesh, ...]]
    world_from_sensor: NDArray[np.float64]
    visible: Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.bool_]]
    seabed: Looks | None = field(default=None, kw_only=True)


@dataclass(frozen=True, eq=False)
class LitEchoes:
    """The heard scatterers in the sensor's frame.

    Attributes:
        positions: (m, 3) m (the transpose of a ``(3, m)`` array: each coordinate contiguous).
        amplitudes: (m,) ``xi sqrt(I)`` (times ``sqrt(w)``, ``w`` the weight ``heard`` gave).
        ranges: (m,) their ranges ``sqrt(x * x + y * y + z * z)``, m (``None``: not given).
        objects: those of entities without a seabed, if asked for (``lit_echoes``'s
            ``objects``): their rows (q,) in ``positions`` and their triangles' unit normals
            (q, 3) in the sensor's frame, what their images in the seabed need
            (``seabed_images.py``); ``None``: not asked for.
    """

    positions: NDArray[np.float64]
    amplitudes: NDArray[np.complex128]
    ranges: NDArray[np.float64] | None = None
    objects: tuple[NDArray[np.intp], NDArray[np.float64]] | None = None


#: Which scatterers (m, 3, sensor frame; ranges (m,)) a sonar hears and how: (m,) weights of
#: their intensities, 0 for none (its pattern, its range window).
Heard = Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.float64]]


def _entity_lit(
    lit: LitSurfaces, mesh: EntityMesh, cache: ScattererCache, density: float, seed: int
) -> tuple[Selected, NDArray[np.float64], NDArray[np.float64]]:
    """One entity's lit scatterers, and its frame's rotation and origin in the sensor's."""
    kept = cache.entity(mesh, density, seed)
    rays = np.flatnonzero((lit.ids >= mesh.first) & (lit.ids < mesh.first + kept.corners.shape[0]))
    pose = mesh.pose
    tri = lit.ids[rays] - mesh.first
    points = rotate_rows(lit.points[rays] - pose[:3, 3], pose[:3, :3].T)  # in its frame
    spacing = lit.spacing[rays]
    rows, hits = kept.lit_rows(tri, points, spacing)
    cells = kept.lit_cells(tri, points, spacing)
    cache.place(kept, rows, cells)
    mu = np.asarray(lit.reflectivity, dtype=np.float64)[rays[hits]]
    sensor = lit.world_from_sensor
    rotation = sensor[:3, :3].T @ pose[:3, :3]
    origin = (pose[:3, 3] - sensor[:3, 3]) @ sensor[:3, :3]
    return kept.select(rows, mu, cells), rotation, origin


def lit_echoes(
    lit: LitSurfaces,
    density: float,
    seed: int,
    absorption_db_per_m: float,
    cache: ScattererCache | None = None,
    heard: Heard | None = None,
    objects: bool = False,
) -> LitEchoes:
    """The heard scatterers of the lit surfaces and their amplitudes ``xi sqrt(I)``.

    Args:
        lit: what the cast lit and the sensor's pose.
        density: scatterers per m2.
        seed: the scatterers' realisation.
        absorption_db_per_m: one-way absorption, dB/m.
        cache: the entities' scatterers, kept from ping to ping
            (``entity_scatterers.ScattererCache``); ``None``: placed anew.
        heard: the sonar's weight ``w`` of each scatterer's intensity (its pattern and
            window): the amplitudes are times ``sqrt(w)``, those of weight 0 dropped with the
            hidden ones before their law; ``None``: all kept as they are.
        objects: also give the objects' rows and faces' normals (:attr:`LitEchoes.objects`).

    The per-scatterer passes run in two halves, one beside the caller (``background.in_halves``;
    numpy's passes release the GIL); each scatterer's arithmetic is its own, so the answer is
    the same as in one.
    """
    hit = lit.ids[lit.ids >= 0]
    if not hit.size:
        empty = np.zeros(0)
        return LitEchoes(np.zeros((0, 3)), np.zeros(0, dtype=np.complex128), empty)
    cache = cache or ScattererCache()
    meshes = lit.meshes(hit)
    parts = [_entity_lit(lit, mesh, cache, density, seed) for mesh in meshes]
    sizes = np.cumsum([0] + [part.owner.size for part, _, _ in parts])
    owner, height, gain, amplitude = _joined(parts, density)
    textured = _textured(parts, sizes)
    body = np.empty((3, int(sizes[-1])))  # in the sensor's frame, coordinate by coordinate
    r = np.empty(body.shape[1])
    seen = np.empty(body.shape[1], dtype=bool)
    weights = None if heard is None else np.empty(body.shape[1])

    def sense(span: slice) -> None:
        """Move the scatterers of ``span``, their ranges, which are heard and how."""
        for (part, rotation, origin), a, b in zip(parts, sizes[:-1], sizes[1:], strict=True):
            lo, hi = max(a, span.start), min(b, span.stop)
            if lo < hi:
                xyz = part.positions.T[:, lo - a : hi - a]
                move_coordinates(xyz, rotation, origin, body[:, lo:hi])
        x, y, z = body[:, span]
        r[span] = np.sqrt(x * x + y * y + z * z)
        seen[span] = lit.visible(body[:, span].T, r[span])
        if heard is not None and weights is not None:
            weights[span] = heard(body[:, span].T, r[span])
            seen[span] &= weights[span] > 0.0

    in_halves(body.shape[1], sense)
    kept = np.flatnonzero(seen)
    positions = np.empty((3, kept.size)).T
    amplitudes = np.empty(kept.size, dtype=np.complex128)
    ranges = np.empty(kept.size)

    def gather(span: slice) -> None:
        """The kept scatterers of ``span`` (of ``kept``): positions, ranges, amplitudes."""
        k = kept[span]
        for c in range(3):
            np.take(body[c], k, out=positions[span, c], mode='clip')
        d = np.take(r, k, out=ranges[span], mode='clip')
        scale = np.take(gain, np.take(owner, k)) / (d * d * d)
        if absorption_db_per_m > 0.0:
            scale *= np.exp(-absorption_db_per_m * _DB_TO_NEPER * d)
        np.multiply(np.take(amplitude, k), scale, out=amplitudes[span])
        if weights is not None:
            amplitudes[span] *= np.sqrt(np.take(weights, k))
        for a, b, texture in textured:
            _texture(amplitudes[span], k, d, (a, b), texture, (height, owner))

    in_halves(kept.size, gather)
    facing = _objects(parts, meshes, kept, sizes) if objects else None
    return LitEchoes(positions, amplitudes, ranges, facing)


def _textured(
    parts: list[tuple[Selected, NDArray[np.float64], NDArray[np.float64]]],
    sizes: NDArray[np.int64],
) -> list[tuple[int, int, tuple[Seabed, NDArray[np.float32]]]]:
    """The joined scatterers (first, end) of each textured part, and its texture."""
    return [
        (int(a), int(b), part.textured)
        for (part, _, _), a, b in zip(parts, sizes[:-1], sizes[1:], strict=True)
        if part.textured is not None
    ]


def _objects(
    parts: list[tuple[Selected, NDArray[np.float64], NDArray[np.float64]]],
    meshes: tuple[EntityMesh, ...],
    kept: NDArray[np.intp],
    sizes: NDArray[np.int64],
) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """The rows in ``kept`` of the entities without a seabed, and their triangles' normals.

    None of them when no seabed is lit (the objects' images need one).

    ``kept`` (sorted) indexes the joined scatterers, of which part ``k``'s (``meshes[k]``'s)
    are ``sizes[k]`` to ``sizes[k + 1]``; the normals are turned into the sensor's frame by
    each part's rotation.
    """
    rows, normals = [np.zeros(0, dtype=np.intp)], [np.zeros((0, 3))]
    if all(mesh.seabed is None for mesh in meshes):  # no seabed lit: nothing to mirror in
        return rows[0], normals[0]
    for (part, rotation, _), a, b, mesh in zip(parts, sizes[:-1], sizes[1:], meshes, strict=True):
        lo, hi = np.searchsorted(kept, (a, b))
        if mesh.seabed is None and lo < hi:
            rows.append(np.arange(lo, hi, dtype=np.intp))
            normals.append(part.normals[part.owner[kept[lo:hi] - a]] @ rotation.T)
    return np.concatenate(rows), np.concatenate(normals)


def _texture(
    out: NDArray[np.complex128],
    kept: NDArray[np.intp],
    ranges: NDArray[np.float64],
    part: tuple[int, int],
    texture: tuple[Seabed, NDArray[np.float32]],
    heights: tuple[NDArray[np.float64], NDArray[np.intp]],
) -> None:
    """Multiply the amplitudes ``out`` of scatterers ``kept`` (sorted) by ``sqrt(T)``.

    Those of one textured entity, the joined scatterers ``part`` (first, end): ``T`` the
    gamma variate of their normal scores (``texture``: its seabed and the scores from
    ``part``'s first on) at the grazing angle ``asin(|body . n| / r)``: ``heights`` the lit
    triangles' ``|body . n|`` and each joined scatterer's triangle, ``ranges`` (of ``kept``)
    ``r``.
    """
    lo, hi = np.searchsorted(kept, part)
    if lo == hi:
        return
    k = kept[lo:hi]
    seabed, scores = texture
    height, owner = heights
    sin = np.take(height, np.take(owner, k)) / ranges[lo:hi]
    out[lo:hi] *= np.sqrt(scatterer_texture(seabed, sin, np.take(scores, k - part[0])))


def _joined(
    parts: list[tuple[Selected, NDArray[np.float64], NDArray[np.float64]]], density: float
) -> tuple[NDArray[np.intp], NDArray[np.float64], NDArray[np.float64], NDArray[np.complex64]]:
    """The entities' scatterers joined: each one's triangle, the triangles' heights, gains.

    And the scatterers' amplitudes. A triangle's height: ``|body . n|``, the sensor's
    distance to its plane; its gain ``sqrt(mu A) |body . n|``, the part of ``sqrt(I) =
    sqrt(mu A) |body . n| / r**3 exp(-a r)`` the triangle gives; a scatterer ``p`` on its
    plane (``n``, ``d = p . n``) has ``body . n' = d + origin . n'`` in the sensor's frame.
    """
    rows = np.cumsum([0] + [part.planes.size for part, _, _ in parts])  # lit triangles
    owner = np.concatenate(
        [part.owner + k for (part, _, _), k in zip(parts, rows[:-1], strict=False)]
    )
    height = np.concatenate(
        [
            np.abs(part.planes + np.einsum('ij,j->i', part.normals, rotation.T @ origin))
            for part, rotation, origin in parts
        ]
    )
    gain = np.sqrt(np.concatenate([part.mu for part, _, _ in parts]) / density) * height
    return owner, height, gain, np.concatenate([part.amplitudes for part, _, _ in parts])
