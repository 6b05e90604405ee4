"""Raycasting a :class:`World` with Open3D; the only module of the package that imports open3d.

How moving entities move without rebuilding the world. Open3D's ``RaycastingScene`` can
only add triangles, never move or remove them, and adding after a cast rebuilds the whole
BVH. Embree's instancing would be the textbook answer but Open3D does not expose it. So:

* Every entity that does not move (no twist on it or on any ancestor) goes, in world
  coordinates, into one ``RaycastingScene`` built once: the world.
* Every moving entity has a ``RaycastingScene`` of its own, built once in the entity's frame.
  A cast transforms the rays that can reach its bounding sphere into that frame (a rigid
  transform keeps distances, so ``t_hit`` is still the world range) and keeps the nearer hit.
  Moving it (:meth:`Raycaster.set_time`, :meth:`Raycaster.set_entity_pose`) only changes
  a 4x4 pose: no BVH is rebuilt, ever, for any motion.
* The price is one extra, culled cast per moving entity. ``benchmarks/bench_scene_update.py``
  measures it against a full rebuild in the same run.
* ``set_entity_pose`` on an entity that was static takes it (and the entities parented to
  it) out of the world scene: a one-off rebuild of that scene. Name such entities in
  ``dynamic=`` to avoid it.

Two entries. :meth:`Raycaster.cast` takes any rays (float64 or not, shared or per-ray
origins) and checks them: shapes, finite values, unit directions; a fixed, read-only
pattern is checked once and kept. :meth:`Raycaster.cast_block` takes rays the package built
itself and knows are valid, as Open3D's (n, 6) float32 block, and casts it as it is: no
value checks, no conversion, no copy. It is for rays made per cast (multipath's mirrored and
visibility rays, a refracted fan's segments), whose checking and packing would otherwise cost
a pass each; the hits are exactly :meth:`Raycaster.cast`'s on the same float32 values.

Smooth shading. An entity whose surface carries vertex normals (a heightmap's,
``Triangles.vertex_normals``) gets, at each hit, the normalised barycentric interpolation of
its triangle's vertex normals instead of the face normal Open3D returns; other entities keep
the face normal, bit for bit. The normals are transformed into the scene's frame once, when
it is built.

Precision: Open3D works in float32, so world coordinates of ~10 m carry ~1 um of rounding;
moving entities are cast in their own frame, which keeps their coordinates small.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.background import beside, cast_threads
from nps_sonar_py.echo.entity_scatterers import EntityMesh
from nps_sonar_py.scene.hits import HitTriangles, RayHits
from nps_sonar_py.scene.open3d_import import without_dash
from nps_sonar_py.scene.scene_state import EntityState
from nps_sonar_py.scene.tessellation import Triangles, rotate_rows
from nps_sonar_py.scene.world import Entity, World

with without_dash():  # its web viewer's imports cost each node a second (open3d_import.py)
    import open3d as o3d  # the one core module allowed to import it (pyproject.toml, banned-api)

__all__ = ['PATTERNS', 'Raycaster', 'check_rays']

#: Largest accepted deviation of a ray direction's length from 1.
UNIT_TOLERANCE = 1e-4
#: Fixed ray patterns whose checked rays a raycaster keeps (least recently cast out first).
PATTERNS = 4
#: Open3D's geometry and primitive id of a miss (the largest uint32).
_INVALID_ID = 2**32 - 1


def check_rays(
    origins: ArrayLike, directions: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Rays as float64 origins, (1, 3) shared by all rays or (n, 3), and (n, 3) directions.

    Raises:
        ValueError: wrong shapes, values that are not finite, or directions not of unit length.

    """
    o = np.asarray(origins, dtype=np.float64)
    d = np.asarray(directions, dtype=np.float64)
    if d.ndim == 1:
        d = d.reshape(1, -1)
    if o.ndim == 1:
        o = o.reshape(1, -1)
    if (
        d.ndim != 2
        or d.shape[1] != 3
        or o.ndim != 2
        or o.shape[1] != 3
        or o.shape[0] not in (1, d.shape[0])
    ):
        msg = f'expected origins (n, 3) or (3,) and directions (n, 3), got {o.shape} and {d.shape}'
        raise ValueError(msg)
    if not (np.all(np.isfinite(o)) and np.all(np.isfinite(d))):
        msg = 'ray origins and directions must be finite'
        raise ValueError(msg)
    if d.shape[0] and np.max(np.abs(np.einsum('ij,ij->i', d, d) - 1.0)) > 2.0 * UNIT_TOLERANCE:
        msg = f'ray directions must be unit vectors (within {UNIT_TOLERANCE})'
        raise ValueError(msg)
    return o, d


@dataclass(frozen=True, eq=False)
class _Rays:
    """Prepared rays: origins and directions, Open3D's block and float32 directions.

    Origins are (1, 3) (shared) or (n, 3), directions (n, 3): float64 when checked
    (:meth:`Raycaster.cast`), float32 views of the block when trusted
    (:meth:`Raycaster.cast_block`). ``tensor`` is Open3D's (n, 6) float32 block and
    ``directions32`` the directions as float32 (n, 3), for the incidence.
    """

    origins: NDArray[np.floating]
    directions: NDArray[np.floating]
    tensor: o3d.core.Tensor
    directions32: NDArray[np.float32]

    @staticmethod
    def of(origins: NDArray[np.float64], directions: NDArray[np.float64]) -> _Rays:
        rays = np.empty((directions.shape[0], 6), dtype=np.float32)
        rays[:, :3] = origins
        rays[:, 3:] = directions
        d32 = np.ascontiguousarray(rays[:, 3:])
        return _Rays(origins, directions, o3d.core.Tensor.from_numpy(rays), d32)


@dataclass(frozen=True, eq=False)
class _Pattern:
    """A fixed ray pattern's checked rays: its read-only directions array, origins, rays."""

    directions: object
    origins: object
    rays: _Rays


@dataclass(frozen=True, eq=False)
class _Smooth:
    """An entity's vertex normals, in its scene's frame, and its triangles' vertex indices."""

    triangles: NDArray[np.int64]
    normals: NDArray[np.float64]

    @staticmethod
    def of(surface: Triangles) -> _Smooth | None:
        """The smooth shading of a surface with vertex normals, None for a flat-shaded one."""
        if surface.vertex_normals is None:
            return None
        return _Smooth(surface.triangles, surface.vertex_normals)

    def shade(
        self,
        normals: NDArray[np.float32],
        triangle: NDArray[np.integer],
        barycentric: NDArray[np.float32],
    ) -> NDArray[np.float32]:
        """Hit normals with the interpolated vertex normals where the triangle has them.

        ``normals`` are the face normals of hits on ``triangle`` at barycentric coordinates
        (a, b): the vertex normals weigh ``1 - a - b``, ``a``, ``b``. A triangle whose vertices
        have zero normals (a flat-shaded part of the entity) keeps its face normal.
        """
        corners = self.normals[self.triangles[triangle]]  # (n, 3 vertices, 3)
        ab = barycentric.astype(np.float64)
        weights = np.column_stack([1.0 - ab[:, 0] - ab[:, 1], ab[:, 0], ab[:, 1]])
        smooth = np.einsum('ij,ijk->ik', weights, corners)
        length = np.sqrt(np.einsum('ij,ij->i', smooth, smooth))
        flat = length == 0.0
        unit = smooth / np.where(flat, 1.0, length)[:, np.newaxis]
        out: NDArray[np.float32] = unit.astype(np.float32)
        out[flat] = normals[flat]
        return out


def _abs_dot(a: NDArray[np.float32], b: NDArray[np.float32]) -> NDArray[np.float32]:
    """``|a_i . b_i|`` of (n, 3) rows: columns summed, twice as fast as einsum on float32."""
    p = a * b
    dot = p[:, 0] + p[:, 1]
    dot += p[:, 2]
    return np.abs(dot, out=dot)


def _scene(
    parts: Iterable[tuple[NDArray[np.float64], NDArray[np.int64]]],
) -> o3d.t.geometry.RaycastingScene:
    """Build a scene of (vertices, triangles) parts, geometry ids 0, 1, ... in order, BVH included.

    Open3D builds the BVH on the first query; one ray cast here moves that cost out of the
    first sensor cycle and into construction.
    """
    # Open3D's stubs leave out that Tensor's dtype and device have defaults (the array's
    # dtype, the CPU): hence the ignores of call-overload.
    scene = o3d.t.geometry.RaycastingScene()
    for vertices, triangles in parts:
        v = np.ascontiguousarray(vertices, dtype=np.float32)
        t = np.ascontiguousarray(triangles, dtype=np.uint32)
        scene.add_triangles(o3d.core.Tensor(v), o3d.core.Tensor(t))  # type: ignore[call-overload]
    ray = np.array([[0, 0, 0, 0, 0, 1]], dtype=np.float32)
    scene.cast_rays(o3d.core.Tensor(ray))  # type: ignore[call-overload]
    return scene


def _cast(
    scene: o3d.t.geometry.RaycastingScene, rays: o3d.core.Tensor
) -> tuple[
    NDArray[np.float32],
    NDArray[np.uint32],
    NDArray[np.uint32],
    NDArray[np.float32],
    Callable[[], NDArray[np.float32]],
]:
    """Ranges, geometry ids, primitive ids, normals, and barycentric coordinates on demand.

    All are views of Open3D's memory; the barycentric ``primitive_uvs`` (n, 2) (the hit is
    ``(1 - a - b) p0 + a p1 + b p2``) are converted only when a reflectivity map asks.
    An array handed out of the raycaster must be a copy: one that outlived Open3D would be
    reported as a leak at exit.
    """
    ans = scene.cast_rays(rays, nthreads=cast_threads())
    return (
        ans['t_hit'].numpy(),
        ans['geometry_ids'].numpy(),
        ans['primitive_ids'].numpy(),
        ans['primitive_normals'].numpy(),
        lambda: ans['primitive_uvs'].numpy(),
    )


@dataclass(frozen=True, eq=False)
class _Moving:
    """A moving entity's own scene, built once in its frame, and its bounding sphere there."""

    index: int
    scene: o3d.t.geometry.RaycastingScene
    reflectivity: NDArray[np.float64]
    retro: NDArray[np.float64]
    centre: NDArray[np.float64]
    radius: float
    entity: Entity
    smooth: _Smooth | None


class Raycaster:
    """The world as Open3D raycasting scenes: cast rays, move entities.

    Args:
        world: the entities and their states.
        time: scene time in seconds for the entity poses (default the world's time stamp).
        dynamic: names of entities, besides those with a twist, that will be moved by
            :meth:`set_entity_pose` (they get their own scene up front).

    """

    def __init__(
        self, world: World, *, time: float | None = None, dynamic: Iterable[str] = ()
    ) -> None:
        self._world = world
        self._time = world.time_stamp if time is None else float(time)
        self._overrides: dict[int, NDArray[np.float64]] = {}
        self._states: dict[int, tuple[EntityState, float]] = {}
        self._moving_mask = world.moving()
        for name in dynamic:
            self._moving_mask[world.index(name)] = True
        self._moving_mask = self._with_descendants(self._moving_mask)
        self._poses = world.poses(self._time)
        # Entity i's triangles have the ids first_triangle[i] onwards (``HitTriangles``).
        sizes = [len(entity.surface) for entity in world.entities]
        self._first_triangle = np.cumsum([0, *sizes]).astype(np.int64)
        # Fixed ray patterns, most recently cast last (``_checked``).
        self._patterns: OrderedDict[int, _Pattern] = OrderedDict()
        self._build_static()
        self._moving: list[_Moving] = []
        self._add_moving(np.flatnonzero(self._moving_mask))

    @property
    def world(self) -> World:
        """The world this raycaster casts into."""
        return self._world

    @property
    def entity_names(self) -> tuple[str, ...]:
        """Names of the entities; :attr:`RayHits.entity` indexes this."""
        return self._world.entity_names

    @property
    def moving_entities(self) -> tuple[str, ...]:
        """Names of the entities cast in their own scenes (a twist, ``dynamic=``, or moved)."""
        names = self._world.entity_names
        return tuple(names[i] for i in np.flatnonzero(self._moving_mask))

    @property
    def time(self) -> float:
        """Scene time in seconds of the current poses."""
        return self._time

    def entity_pose(self, name: str) -> NDArray[np.float64]:
        """(4, 4) transform entity -> world of entity ``name`` now."""
        pose: NDArray[np.float64] = self._poses[self._world.index(name)].copy()
        return pose

    def set_time(self, time: float) -> None:
        """Move the entities with a twist (and their children) to their poses at ``time`` (s)."""
        self._time = float(time)
        self._poses = self._world.poses(self._time, overrides=self._overrides, states=self._states)

    def set_entity_pose(self, name: str, pose: ArrayLike) -> None:
        """Place entity ``name`` at ``pose`` (4, 4), entity -> world, until set again.

        Its twist no longer applies; entities parented to it follow it. An entity that was
        static leaves the world scene, which is rebuilt once.
        """
        i = self._world.index(name)
        m = np.asarray(pose, dtype=np.float64)
        if m.shape != (4, 4) or not np.all(np.isfinite(m)):
            msg = f'pose must be a finite (4, 4) transform, got shape {m.shape}'
            raise ValueError(msg)
        if (
            not np.allclose(m[:3, :3] @ m[:3, :3].T, np.eye(3), atol=1e-6)
            or np.linalg.det(m[:3, :3]) < 0.0
        ):
            msg = 'pose must be a rigid transform (orthonormal rotation, determinant +1)'
            raise ValueError(msg)
        self._overrides[i] = m.copy()
        self._states.pop(i, None)
        self._make_moving(i)
        self.set_time(self._time)

    def set_entity_state(self, state: EntityState, *, since: float) -> None:
        """Move entity ``state.model`` by a newer state (a scene-state update: ``<entity_state>``).

        Its origin holds at scene time ``since``, and its twist applies from then on. The parent
        frame must be the one the world gives the entity. An entity that was static leaves the
        world scene, which is rebuilt once.
        """
        i = self._world.index(state.model)
        declared = self._world.states[i].frame
        if state.frame != declared:
            msg = f'entity {state.model!r} is placed in frame {declared!r}, not {state.frame!r}'
            raise ValueError(msg)
        self._overrides.pop(i, None)
        self._states[i] = (state, float(since))
        self._make_moving(i)
        self.set_time(self._time)

    def _make_moving(self, i: int) -> None:
        """Give entity ``i`` (and its children) their own scenes, once."""
        if self._moving_mask[i]:
            return
        mask = self._moving_mask.copy()
        mask[i] = True
        mask = self._with_descendants(mask)
        new = np.flatnonzero(mask & ~self._moving_mask)
        self._moving_mask = mask
        self._build_static()
        self._add_moving(new)

    def cast(self, origins: ArrayLike, directions: ArrayLike) -> RayHits:
        """Cast rays: the first hit of each, all in the world frame.

        A fixed ray pattern costs no checks and no conversion after its first cast: when
        ``directions`` is the same read-only array as in an earlier call (a sensor's
        directions, set ``writeable = False`` when they are made) and the origins are equal,
        the checked rays and Open3D's float32 ray block of that call are reused. The last
        ``PATTERNS`` such patterns are kept, so that a sonar's fixed rays stay prepared
        while other casts (its multipath rays, another sensor) come in between. A read-only
        array must then not change through another (writable) view of its memory.

        Args:
            origins: (n, 3) or (3,) ray origins in metres.
            directions: (n, 3) unit ray directions (or (3,) for one ray).

        """
        return self._cast_rays(self._checked(origins, directions))

    def cast_block(self, rays: NDArray[np.float32]) -> RayHits:
        """Cast rays the caller built itself and knows are valid: no checks, no conversion.

        The trusted entry for the package's own rays (the multipath's mirrored and visibility
        rays, a refracted fan's segments): ``rays`` is Open3D's ray block, a C-contiguous
        (n, 6) float32 array of origin and unit direction per row, handed to Open3D as it is.
        Only its shape and dtype are checked (refused with one line, before anything is
        allocated); its values are not: finite origins and unit directions (to
        ``UNIT_TOLERANCE``) are the caller's promise, and a ray that breaks it gives
        undefined hits. The hits are exactly those :meth:`cast` gives on the same float32
        values (the origins and directions it would convert to float32 itself). Build the
        block where the rays are made, writing float32 directly, so that no float64 copy
        is converted later. The block must not change during the call.
        """
        if (
            not isinstance(rays, np.ndarray)
            or rays.dtype != np.float32
            or rays.ndim != 2
            or rays.shape[1] != 6
            or not rays.flags.c_contiguous
        ):
            shape = getattr(rays, 'shape', None)
            dtype = getattr(rays, 'dtype', None)
            msg = f'expected a C-contiguous (n, 6) float32 ray block, got {shape} {dtype}'
            raise ValueError(msg)
        directions = rays[:, 3:]
        block = _Rays(rays[:, :3], directions, o3d.core.Tensor.from_numpy(rays), directions)
        return self._cast_rays(block)

    def _cast_rays(self, rays: _Rays) -> RayHits:
        """The first hits of prepared rays (:meth:`cast`, :meth:`cast_block`)."""
        o, d = rays.origins, rays.directions
        n = d.shape[0]
        cosines: Callable[[], NDArray[np.float32]] | None = None
        ids_of: Callable[[], NDArray[np.int64]]  # the triangle ids when read (HitTriangles)
        if self._static is not None and n:
            # Open3D gives t = inf, a zero normal and INVALID_ID on a miss.
            t, geometry, primitive, found, barycentric = _cast(self._static, rays.tensor)
            if not self._moving and not self._static_smooth:  # final normals: cosines now
                cosines = beside(n, lambda: _abs_dot(rays.directions32, found))
            ranges, normals = t.copy(), found.copy()  # copies out of Open3D's memory, float32
            # INVALID_ID (the largest uint32), past every table's end, is taken as its last row,
            # a miss (mode='clip': faster than bounding the rows). intp: native indices.
            row = geometry.astype(np.intp)
            if self._mu_table is not None and self._retro_table is not None:
                mu = self._mu_table.take(row, mode='clip')
                look_up = _static_look_up(self._entity_table, row, self._retro_table, row)
            else:
                triangle = np.where(row < len(self._static_entity), primitive, 0).astype(np.int64)
                triangle += self._offset_table.take(row, mode='clip')
                mu = self._static_reflectivity[triangle]
                look_up = _static_look_up(self._entity_table, row, self._static_retro, triangle)
            primitives = primitive.copy()  # the ids may be read after Open3D's memory is gone
            ids_of = lambda: self._first_table.take(row, mode='clip') + primitives  # noqa: E731
            if self._static_mapped:  # only scenes with reflectivity maps pay for them
                self._map_static(mu, geometry, primitive, barycentric())
            if self._static_smooth:  # only scenes with heightmaps pay for smooth shading
                self._shade_static(normals, geometry, primitive, barycentric())
        else:
            ranges = np.full(n, np.inf, dtype=np.float32)
            normals = np.zeros((n, 3), dtype=np.float32)
            mu = np.full(n, np.nan)
            look_up = lambda: (np.full(n, -1, dtype=np.int64), np.full(n, np.nan))  # noqa: E731
            ids_of = lambda: np.full(n, -1, dtype=np.int64)  # noqa: E731
        if self._moving:  # the moving entities' hits overwrite the static ones'
            entity, retro = look_up()
            look_up = lambda: (entity, retro)  # noqa: E731
            ids = ids_of()
            ids_of = lambda: ids  # noqa: E731
        for moving in self._moving:
            pose = self._poses[moving.index]
            rotation, translation = pose[:3, :3], pose[:3, 3]
            # Only rays that can meet the bounding sphere before the hit so far are cast.
            oc = rotation @ moving.centre + translation - o
            # einsum, not @: right after an Open3D cast, BLAS threads would wait for the cores.
            along = np.einsum('ij,ij->i', np.broadcast_to(oc, d.shape), d)
            miss2 = np.einsum('ij,ij->i', oc, oc) - along * along
            near = along - moving.radius
            rows = np.flatnonzero(
                (miss2 <= moving.radius**2) & (along + moving.radius >= 0.0) & (near < ranges)
            )
            if rows.size == 0:
                continue
            # x_local = R^T (x - p); the normals go back with R.
            local_o = rotate_rows(np.broadcast_to(o, d.shape)[rows] - translation, rotation.T)
            local_d = np.asarray(d[rows], dtype=np.float64)  # float32 when trusted
            local = _Rays.of(local_o, rotate_rows(local_d, rotation.T))
            t, _, primitive, normal, barycentric = _cast(moving.scene, local.tensor)
            closer = t < ranges[rows]
            rows = rows[closer]
            ranges[rows] = t[closer]
            triangle = primitive[closer].astype(np.int64)
            normal = normal[closer]
            if moving.smooth is not None:
                normal = moving.smooth.shade(normal, triangle, barycentric()[closer])
            normals[rows] = rotate_rows(normal.astype(np.float64), rotation)
            entity[rows] = moving.index
            ids[rows] = self._first_triangle[moving.index] + triangle
            mu[rows] = moving.reflectivity[triangle]
            retro[rows] = moving.retro[triangle]
            maps = moving.entity.maps
            if maps is not None:
                on_map, mapped = maps.lookup(
                    moving.entity.surface, triangle, barycentric()[closer]
                )
                mu[rows[on_map]] = mapped
        cos_incidence = cosines() if cosines is not None else _abs_dot(rays.directions32, normals)
        triangles = HitTriangles(ids_of, self.entity_meshes)
        return RayHits(ranges, normals, cos_incidence, mu, look_up, triangles=triangles)

    def entity_meshes(self, ids: ArrayLike) -> tuple[EntityMesh, ...]:
        """The meshes and poses now of the entities owning triangles ``ids`` (``HitTriangles``)."""
        first = self._first_triangle
        entities = np.unique(np.searchsorted(first, np.asarray(ids), side='right') - 1)
        owners = [self._world.entities[i] for i in entities]
        return tuple(
            EntityMesh(
                int(first[i]),
                e.surface.vertices,
                e.surface.triangles,
                self._poses[i].copy(),
                e.seabed,
            )
            for i, e in zip(entities, owners, strict=True)
        )

    def _checked(self, origins: ArrayLike, directions: ArrayLike) -> _Rays:
        """The rays of a cast, checked and converted once per fixed, read-only pattern.

        Patterns are keyed on the identity of their read-only directions array; each entry
        holds that array (so that its id cannot be reused while it is cached), the origins it
        was cast from and the rays. At most ``PATTERNS`` are kept, least recently used out.
        """
        fixed = isinstance(directions, np.ndarray) and not directions.flags.writeable
        if fixed:
            pattern = self._patterns.get(id(directions))
            if pattern is not None and pattern.directions is directions:
                last = pattern.rays
                if (
                    isinstance(origins, np.ndarray)
                    and origins is pattern.origins
                    and not origins.flags.writeable
                ):
                    self._patterns.move_to_end(id(directions))
                    return last
                o = np.asarray(origins, dtype=np.float64).reshape(-1, 3)
                if o.shape == last.origins.shape and np.array_equal(o, last.origins):
                    self._patterns.move_to_end(id(directions))
                    return last
        o, d = check_rays(origins, directions)
        rays = _Rays.of(o, d)
        if fixed:
            self._patterns[id(directions)] = _Pattern(directions, origins, rays)
            self._patterns.move_to_end(id(directions))
            while len(self._patterns) > PATTERNS:
                self._patterns.popitem(last=False)
        return rays

    def _map_static(
        self,
        mu: NDArray[np.float64],
        geometry: NDArray[np.uint32],
        primitive: NDArray[np.uint32],
        barycentric: NDArray[np.float32],
    ) -> None:
        """Overwrite ``mu`` where a static hit lies on a reflectivity map (one pass per entity)."""
        for g, entity in self._static_mapped:
            rows = np.flatnonzero(geometry == g)
            if rows.size == 0 or entity.maps is None:
                continue
            if rows.size == geometry.size:  # every ray hit this entity: no selection
                triangle, ab = primitive.astype(np.intp), barycentric
            else:
                triangle, ab = primitive.take(rows).astype(np.intp), barycentric.take(rows, axis=0)
            on_map, mapped = entity.maps.lookup(entity.surface, triangle, ab)
            mu[rows[on_map]] = mapped

    def _shade_static(
        self,
        normals: NDArray[np.float32],
        geometry: NDArray[np.uint32],
        primitive: NDArray[np.uint32],
        barycentric: NDArray[np.float32],
    ) -> None:
        """Smooth-shade ``normals`` where a static hit is on a heightmap (one pass per entity)."""
        for g, smooth in self._static_smooth:
            rows = np.flatnonzero(geometry == g)
            if rows.size:
                normals[rows] = smooth.shade(
                    normals[rows], primitive[rows].astype(np.intp), barycentric[rows]
                )

    def _with_descendants(self, mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
        mask = mask.copy()
        for i in self._world.order:  # parents come first
            parent = self._world.parents[i]
            mask[i] = mask[i] or (parent >= 0 and mask[parent])
        return mask

    def _build_static(self) -> None:
        """Build one scene of the static entities, world frame; geometry g is _static_entity[g]."""
        world = self._world
        members = [
            i
            for i in range(len(world.entities))
            if not self._moving_mask[i] and len(world.entities[i].surface)
        ]
        self._static_entity = np.array(members, dtype=np.int64)
        # (geometry id, entity) of the static entities with reflectivity maps
        self._static_mapped = [
            (g, world.entities[i])
            for g, i in enumerate(members)
            if world.entities[i].maps is not None
        ]
        self._entity_table = np.append(self._static_entity, -1)
        # Per geometry, its entity's first triangle id; a miss's primitive id is INVALID_ID,
        # so its row holds -1 - INVALID_ID: one gather and one add give every hit's id.
        self._first_table = np.append(
            self._first_triangle[self._static_entity], -1 - _INVALID_ID
        ).astype(np.int64)
        sizes = [len(world.entities[i].surface) for i in members]
        # Per triangle of the static entities, in order; a miss points at the nan after the
        # last triangle.
        mus = [world.entities[i].reflectivity for i in members]
        retros = [world.entities[i].retro for i in members]
        self._static_reflectivity = np.append(np.concatenate([np.zeros(0), *mus]), np.nan)
        self._static_retro = np.append(np.concatenate([np.zeros(0), *retros]), np.nan)
        offsets = np.cumsum([0, *sizes])
        self._offset_table = offsets.astype(np.int64)
        # One value per entity, when each is uniform (the usual case): no per-triangle
        # gather on the hot path.
        self._mu_table = _per_entity(mus)
        self._retro_table = _per_entity(retros)
        self._static: o3d.t.geometry.RaycastingScene | None = None
        self._static_smooth: list[tuple[int, _Smooth]] = []
        if not members:
            return
        self._static = _scene(self._static_parts(members))

    def _static_parts(
        self, members: list[int]
    ) -> Iterable[tuple[NDArray[np.float64], NDArray[np.int64]]]:
        """The static entities' triangles in the world frame, one at a time (peak memory).

        Records (geometry id, smooth shading in the world frame) of the smooth-shaded ones.
        """
        for g, i in enumerate(members):
            surface = self._world.entities[i].surface.transformed(self._poses[i])
            smooth = _Smooth.of(surface)
            if smooth is not None:
                self._static_smooth.append((g, smooth))
            yield surface.vertices, surface.triangles

    def _add_moving(self, indices: Iterable[int]) -> None:
        """Give each of these entities (those with triangles) a scene of its own, in its frame."""
        for i in indices:
            entity = self._world.entities[i]
            vertices = entity.surface.vertices
            if vertices.shape[0] == 0:
                continue
            centre = (vertices.min(axis=0) + vertices.max(axis=0)) / 2.0
            # Padded so that float32 rounding inside Open3D cannot put a triangle outside it.
            radius = float(np.max(np.linalg.norm(vertices - centre, axis=1))) * (1.0 + 1e-6) + 1e-6
            scene = _scene([(vertices, entity.surface.triangles)])
            smooth = _Smooth.of(entity.surface)
            moving = _Moving(
                int(i), scene, entity.reflectivity, entity.retro, centre, radius, entity, smooth
            )
            self._moving.append(moving)


def _static_look_up(
    entities: NDArray[np.int64],
    entity_row: NDArray[np.intp],
    retros: NDArray[np.float64],
    retro_row: NDArray[np.integer],
) -> Callable[[], tuple[NDArray[np.int64], NDArray[np.float64]]]:
    """The gathers of ``RayHits.entity`` and ``retro`` (rows of the tables), when first read.

    A row past a table's end is its last (a miss: ``Raycaster._cast_rays``).
    """
    return lambda: (entities.take(entity_row, mode='clip'), retros.take(retro_row, mode='clip'))


def _per_entity(values: list[NDArray[np.float64]]) -> NDArray[np.float64] | None:
    """The one value of each entity and a nan for a miss, if each entity's values are equal."""
    if all(v.size and np.all(v == v[0]) for v in values):
        return np.array([v[0] for v in values] + [np.nan])
    return None
