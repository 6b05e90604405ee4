"""Each entity's fixed scatterers, placed once in its own frame and kept from ping to ping.

A formed fan hears the scatterers of the triangles its cast lit (``surface_echoes.py``).
Drawing them (hashes, places, phases) every ping was most of a ping's cost, so the engine
keeps them (:class:`ScattererCache`): each entity's, keyed by the entity (its first triangle
id) and its mesh (its vertex and triangle arrays, by identity), placed in the entity's own
frame the first time a triangle is lit and moved with the entity by its pose every ping (a
transform only); a changed mesh places them anew. Per ping only the lit triangles' are
selected, by index ranges: a small triangle's all (:class:`EntityScatterers`, triangle ->
range), a large triangle's those of the patches about its hits (``surface_patches.py``,
patch -> range).

The scatterers are those of ``fixed_scatterers.surface_scatterers`` keyed by the triangle's
id (a patch's key for a large one) and the seed: the same whichever ping placed them, so a
warm cache and a cold one give the same ping bit for bit. Their amplitudes are kept in
single precision (their phase is drawn in single precision already).

A seabed with a texture (``echo.seabed``, ``docs/seabed.md``) also keeps each scatterer's
normal score, the texture's Gaussian field at its place, computed when it is placed: the
texture ``T`` (its gamma variate, of the shape the grazing angle gives) is drawn from it
each ping (``surface_echoes``); 4 more bytes a scatterer.

Memory: 32 bytes a scatterer (its float64 position, complex64 amplitude; the positions kept
coordinate by coordinate, ``(3, n)``: a ping's gathers and transform run over contiguous
rows); the arrays' capacity is held to ``CACHE_BYTES`` over all entities (a quarter of a
device's budget, ``limits.MAX_DEVICE_BYTES``; they grow by doubling, to no more than the
budget leaves). A seabed whose lit scatterers would outgrow it falls back: the cache is
emptied and refilled from the ping's lit triangles alone (a vehicle roaming a seabed too
large for the cache places its scatterers anew each time the cache fills).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo.fixed_scatterers import surface_scatterers
from nps_sonar_py.echo.near_triangles import areas, near_small, small_triangles
from nps_sonar_py.echo.seabed import Seabed, gaussian_field
from nps_sonar_py.echo.surface_patches import (
    PATCH_SCATTERERS,
    cells_about,
    halves,
    inside,
    patch_edge,
    plane_axes,
)
from nps_sonar_py.limits import MAX_DEVICE_BYTES

__all__ = ['CACHE_BYTES', 'SCATTERER_BYTES', 'EntityMesh', 'EntityScatterers', 'ScattererCache']

#: Bytes a cached scatterer costs: its float64 position and complex64 amplitude.
SCATTERER_BYTES = 32
#: Most bytes the cached scatterers of one engine hold, over all entities.
CACHE_BYTES = MAX_DEVICE_BYTES // 4
#: A patch's column and row each take 20 bits of its packed key, its triangle 23.
_CELL_BITS = 20
_CELL_HALF = 1 << (_CELL_BITS - 1)


@dataclass(frozen=True, eq=False)
class EntityMesh:
    """An entity's mesh and its pose now (``scene.hits.HitTriangles.meshes``).

    Attributes:
        first: the id of its first triangle (a triangle's id is ``first`` + its index).
        vertices: (v, 3) its mesh's vertices in its own frame, m.
        triangles: (t, 3) its mesh's triangles (vertex indices).
        pose: (4, 4) world from the entity's frame, now.
        seabed: its seabed (``scene.world.Entity.seabed``), whose texture its scatterers
            carry; ``None``: none.
    """

    first: int
    vertices: NDArray[np.float64]
    triangles: NDArray[np.int64]
    pose: NDArray[np.float64]
    seabed: Seabed | None = None


@dataclass(frozen=True, eq=False)
class Selected:
    """Lit scatterers of one entity in its frame, grouped by triangle.

    ``positions`` (m, 3) m (the transpose of a ``(3, m)`` array: each coordinate contiguous),
    ``amplitudes`` (m,) complex64, ``owner`` (m,) the row of each
    one's triangle in ``normals`` (k, 3: the lit triangles' unit normals), ``planes`` (k,:
    their planes' offsets ``p . n``, m) and ``mu`` (k,: their reflectivity); ``textured``:
    the seabed whose texture they carry and (m,) their normal scores, or ``None``.
    """

    positions: NDArray[np.float64]
    amplitudes: NDArray[np.complex64]
    owner: NDArray[np.intp]
    normals: NDArray[np.float64]
    planes: NDArray[np.float64]
    mu: NDArray[np.float64]
    textured: tuple[Seabed, NDArray[np.float32]] | None = None


def _ranges(start: NDArray[np.int64], count: NDArray[np.int64]) -> NDArray[np.int64]:
    """The indices ``start[k] .. start[k] + count[k]`` of every range, range by range."""
    total = int(count.sum())
    offsets = np.cumsum(count) - count
    return np.repeat(start - offsets, count) + np.arange(total, dtype=np.int64)


class EntityScatterers:
    """One entity's scatterers in its own frame, placed triangle by triangle as they are lit.

    Args:
        mesh: the entity (its pose is not kept).
        density: scatterers per m2.
        seed: the scatterers' realisation.
    """

    def __init__(self, mesh: EntityMesh, density: float, seed: int) -> None:
        self.mesh, self.density, self.seed = mesh, density, seed
        seabed = mesh.seabed
        self.texture = seabed if seabed is not None and seabed.texture_shape else None
        corners = mesh.vertices[mesh.triangles]
        self.corners = corners
        self.large = areas(corners) * density > PATCH_SCATTERERS
        rows = np.arange(corners.shape[0], dtype=np.int64)
        self.small = small_triangles(rows, corners, density, PATCH_SCATTERERS)
        normal = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
        with np.errstate(invalid='ignore', divide='ignore'):
            self.normals = normal / np.linalg.norm(normal, axis=1, keepdims=True)
        self.planes = np.einsum('ij,ij->i', corners[:, 0], self.normals)
        self.u, self.w = plane_axes(corners[self.large])
        self.large_row = np.cumsum(self.large) - 1  # each large triangle's row in u, w
        self.q = patch_edge(density)
        # The last ping's hits (triangle, point, spacing) and lit rows: a still sonar over a
        # still entity casts the same hits, whose near triangles are then not sought again.
        self._last_lit: (
            tuple[tuple[NDArray[np.generic], ...], tuple[NDArray[np.int64], NDArray[np.intp]]]
            | None
        ) = None
        self.clear()

    def clear(self) -> None:
        """Forget every placed scatterer."""
        rows = self.corners.shape[0]
        self.start = np.full(rows, -1, dtype=np.int64)  # -1: not placed yet
        self.count = np.zeros(rows, dtype=np.int64)
        self.cell_key = np.zeros(0, dtype=np.int64)  # sorted: (triangle, column, row)
        self.cell_start = np.zeros(0, dtype=np.int64)
        self.cell_count = np.zeros(0, dtype=np.int64)
        self.xyz = np.zeros((3, 0))  # the positions, coordinate by coordinate
        self.amplitudes = np.zeros(0, dtype=np.complex64)
        self.scores = np.zeros(0, dtype=np.float32)  # the texture's, if it has one
        self.size = 0  # the scatterers placed (the arrays' first rows)
        self._most: int | None = None  # the most the arrays may grow to (``place``)

    def fits(self, mesh: EntityMesh, density: float, seed: int) -> bool:
        """Whether these are ``mesh``'s scatterers (the same entity, mesh, density and seed)."""
        mine = self.mesh
        return (
            mine.first == mesh.first
            and mine.vertices is mesh.vertices
            and mine.triangles is mesh.triangles
            and (self.density, self.seed) == (density, seed)
            and mine.seabed == mesh.seabed
        )

    @property
    def positions(self) -> NDArray[np.float64]:
        """(capacity, 3) the positions (a view of :attr:`xyz`; the first ``size`` placed)."""
        return self.xyz.T

    @property
    def bytes(self) -> int:
        """The memory the scatterers' arrays hold (placed and room to grow), bytes."""
        return int(self.xyz.shape[1]) * SCATTERER_BYTES + self.scores.nbytes

    def unplaced(
        self, rows: NDArray[np.int64], cells: NDArray[np.int64]
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], float]:
        """The small triangles of ``rows`` and the patches ``cells`` (keys) not placed yet.

        With about how many scatterers they hold (at most).
        """
        small = rows[~self.large[rows]]
        small = small[self.start[small] < 0]
        at = np.minimum(np.searchsorted(self.cell_key, cells), max(self.cell_key.size - 1, 0))
        new = cells[self.cell_key[at] != cells] if self.cell_key.size else cells
        more = areas(self.corners[small]).sum() * self.density + small.size
        return small, new, float(more + new.size * (PATCH_SCATTERERS + 1))

    def place(
        self, small: NDArray[np.int64], cells: NDArray[np.int64], most: int | None = None
    ) -> None:
        """Place the scatterers of small triangles ``small`` and patches ``cells`` (sorted keys).

        None placed yet (:meth:`unplaced`). ``most``: the arrays grow to no more scatterers
        than this, unless the placed ones need more.
        """
        self._most = most
        if small.size:
            ids = self.mesh.first + small
            field = surface_scatterers(self.corners[small], self.density, self.seed, ids=ids)
            counts = np.searchsorted(field.triangles, ids, 'right')
            counts -= np.searchsorted(field.triangles, ids, 'left')
            self.start[small] = self.size + np.cumsum(counts) - counts
            self.count[small] = counts
            self._append(field.positions, field.amplitudes)
        if cells.size:
            self._place_cells(cells)

    def _place_cells(self, cells: NDArray[np.int64]) -> None:
        """Place the patches ``cells`` (sorted keys) of large triangles, clipped to them."""
        mask = (1 << _CELL_BITS) - 1
        tri = cells >> (2 * _CELL_BITS)
        ij = np.stack([(cells >> _CELL_BITS) & mask, cells & mask], axis=1) - _CELL_HALF
        rows, first = np.unique(tri, return_index=True)
        bounds = np.append(first, cells.size)
        parts = [
            halves(self.corners[row], int(self.mesh.first + row), ij[a:b], self.q)
            for row, a, b in zip(rows, bounds[:-1], bounds[1:], strict=True)
        ]
        key = np.concatenate([p[1] for p in parts])
        field = surface_scatterers(
            np.concatenate([p[0] for p in parts]), self.density, self.seed, ids=key
        )
        cell_of = np.concatenate([p[2] + a for p, a in zip(parts, bounds[:-1], strict=True)])
        by_key = np.argsort(key)
        cell = cell_of[by_key[np.searchsorted(key[by_key], field.triangles)]]  # each one's
        kept = np.zeros(cell.size, dtype=bool)
        spans = np.searchsorted(cell, bounds)  # the scatterers of each triangle's cells
        for k, row in enumerate(rows):
            span = slice(spans[k], spans[k + 1])
            kept[span] = inside(field.positions[span], self.corners[row])
        counts = np.bincount(cell[kept], minlength=cells.size)
        merged = np.concatenate([self.cell_key, cells])
        order = np.argsort(merged, kind='stable')
        starts = self.size + np.cumsum(counts) - counts
        self.cell_key = merged[order]
        self.cell_start = np.concatenate([self.cell_start, starts])[order]
        self.cell_count = np.concatenate([self.cell_count, counts])[order]
        self._append(field.positions[kept], field.amplitudes[kept])

    def _cell_key(self, rows: NDArray[np.int64], cells: NDArray[np.int64]) -> NDArray[np.int64]:
        """One sortable int64 per (triangle ``rows``, column, row ``cells``)."""
        if np.any(np.abs(cells) >= _CELL_HALF) or rows.max(initial=0) >= 1 << 23:
            raise ValueError(
                f'scatterer_density: {self.density:g} per m2 tiles a triangle by more than '
                f'{_CELL_HALF} patches a side (or the mesh has over {1 << 23} triangles); '
                'a lower density'
            )
        shifted = cells + _CELL_HALF
        key: NDArray[np.int64] = (rows << (2 * _CELL_BITS)) | (shifted[:, 0] << _CELL_BITS)
        return key | shifted[:, 1]

    def _append(self, positions: NDArray[np.float64], amplitudes: NDArray[np.complex128]) -> None:
        """Append placed scatterers, growing the arrays by doubling."""
        end = self.size + positions.shape[0]
        if end > self.xyz.shape[1]:
            room = max(end, 2 * self.xyz.shape[1])
            if self._most is not None:
                room = max(end, min(room, self._most))
            grown = np.empty((3, room))
            grown[:, : self.size] = self.xyz[:, : self.size]
            self.xyz = grown
            wider = np.empty(room, dtype=np.complex64)
            wider[: self.size] = self.amplitudes[: self.size]
            self.amplitudes = wider
            if self.texture is not None:
                scores = np.empty(room, dtype=np.float32)
                scores[: self.size] = self.scores[: self.size]
                self.scores = scores
        self.xyz[:, self.size : end] = positions.T
        self.amplitudes[self.size : end] = amplitudes
        if self.texture is not None:  # the texture's field at each place, in this frame
            texture = self.texture
            self.scores[self.size : end] = gaussian_field(
                positions.T, texture.texture_patch, texture.texture_seed
            )
        self.size = end

    def lit_rows(
        self, tri: NDArray[np.int64], points: NDArray[np.float64], spacing: NDArray[np.float64]
    ) -> tuple[NDArray[np.int64], NDArray[np.intp]]:
        """The lit triangles (sorted) and a hit of each: those hit, and small ones near hits.

        ``tri`` (h,) the triangle each hit is on, ``points`` (h, 3) the hits in the entity's
        frame, ``spacing`` (h,) the rays' spacing there; the small triangles within the
        spacing of their nearest hit (``near_triangles.near_small``) are lit too.
        """
        cast = (tri, points, spacing)
        last = self._last_lit
        if last is not None and all(map(np.array_equal, cast, last[0])):
            return last[1]
        order = np.argsort(tri, kind='stable')
        hit, first = np.unique(tri[order], return_index=True)
        near, nearest = near_small(self.small, hit, points, spacing)
        rows = np.concatenate([hit, self.small.ids[near]])
        hits = np.concatenate([order[first], nearest])
        sort = np.argsort(rows, kind='stable')
        lit = rows[sort], hits[sort]
        self._last_lit = cast, lit
        return lit

    def lit_cells(
        self, tri: NDArray[np.int64], points: NDArray[np.float64], spacing: NDArray[np.float64]
    ) -> NDArray[np.int64]:
        """The patches (sorted keys) within ``spacing`` of the hits on large triangles.

        ``tri``, ``points`` (entity's frame) and ``spacing`` of every hit on the entity.
        """
        on = np.flatnonzero(self.large[tri])
        if not on.size:
            return np.zeros(0, dtype=np.int64)
        tri = tri[on]
        frame = self.large_row[tri]
        offset = points[on] - self.corners[tri, 0]
        plane = np.stack(
            [
                np.einsum('ij,ij->i', offset, self.u[frame]),
                np.einsum('ij,ij->i', offset, self.w[frame]),
            ],
            axis=1,
        )
        cell = np.floor(plane / self.q).astype(np.int64)
        reach = np.ceil(spacing[on] / self.q).astype(np.int64)
        # One hit a cell, the widest reaching: its square holds the others' (same centre).
        order = np.lexsort((reach, self._cell_key(tri, cell)))
        key = self._cell_key(tri, cell)[order]
        widest = order[np.append(key[1:] != key[:-1], True)]
        cells, source = cells_about(cell[widest], reach[widest])
        return np.unique(self._cell_key(tri[widest][source], cells))

    def select(
        self, rows: NDArray[np.int64], mu: NDArray[np.float64], cells: NDArray[np.int64]
    ) -> Selected:
        """The placed scatterers of lit triangles ``rows`` (reflectivity ``mu``).

        A small triangle's all; a large one's those of its lit patches ``cells`` (keys).
        """
        small = rows[~self.large[rows]]
        starts, counts, owner = (
            [self.start[small]],
            [self.count[small]],
            [np.searchsorted(rows, small)],
        )
        if cells.size:
            found = np.searchsorted(self.cell_key, cells)
            starts.append(self.cell_start[found])
            counts.append(self.cell_count[found])
            owner.append(np.searchsorted(rows, cells >> (2 * _CELL_BITS)))
        count = np.concatenate(counts)
        index = _ranges(np.concatenate(starts), count)
        texture = self.texture
        return Selected(
            np.take(self.xyz, index, axis=1).T,
            self.amplitudes[index],
            np.repeat(np.concatenate(owner), count),
            self.normals[rows],
            self.planes[rows],
            mu,
            None if texture is None else (texture, self.scores[index]),
        )


class ScattererCache:
    """The engine's entities' scatterers, each kept while its mesh stays, held to a budget.

    Args:
        budget: most bytes of placed scatterers over all entities (``CACHE_BYTES``).
    """

    def __init__(self, budget: int = CACHE_BYTES) -> None:
        self.budget = budget
        self.entities: dict[int, EntityScatterers] = {}
        self.emptied = 0  # times the budget emptied the cache

    def entity(self, mesh: EntityMesh, density: float, seed: int) -> EntityScatterers:
        """``mesh``'s kept scatterers, or a new empty set if none fit (a changed mesh)."""
        kept = self.entities.get(mesh.first)
        if kept is None or not kept.fits(mesh, density, seed):
            kept = EntityScatterers(mesh, density, seed)
            self.entities[mesh.first] = kept
        return kept

    def place(
        self, kept: EntityScatterers, rows: NDArray[np.int64], cells: NDArray[np.int64]
    ) -> None:
        """Place those of ``kept``'s lit triangles ``rows`` and patches ``cells`` not yet placed.

        Over the budget, every entity's scatterers are dropped and this one's placed anew
        from ``rows`` and ``cells`` alone (the ping's lit triangles).
        """
        small, new, more = kept.unplaced(rows, cells)
        if not (small.size or new.size):
            return
        held = sum(e.bytes for e in self.entities.values())
        if held + more * SCATTERER_BYTES > self.budget:
            kept.clear()
            self.entities = {kept.mesh.first: kept}
            self.emptied += 1
            small, new, _ = kept.unplaced(rows, cells)
        others = sum(e.bytes for e in self.entities.values() if e is not kept)
        kept.place(small, new, (self.budget - others) // SCATTERER_BYTES)
