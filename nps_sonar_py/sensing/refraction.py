"""Casting along bent rays: a :class:`SurfaceCaster` that refracts through a sound-speed profile.

:class:`RefractingCaster` wraps any caster (the scene's raycaster). Each ray is traced through
the profile (``echo.ray_trace``: circular arcs in layers of constant gradient); each arc is cut
into chords whose sagitta is at most ``sagitta`` metres, and all chords of all rays go to the
inner caster in one cast. A chord's hit counts if it lies within the chord; each ray takes its
first. The hit is then put back on the arc: its travel time and path length are the arc's
closed forms at the hit's depth, so a horizontal surface is met exactly, whatever the chords.
The chords, in each ray's own vertical plane, depend only on the source depths, the rays'
sines and the scene's depth range: they are kept while those stay (a level tow at any
heading and position) and only placed in the world each cast.

``ranges`` are *equivalent* ranges, ``c_ref * travel_time`` with ``c_ref`` the sound speed at
each ray's origin: what the sensors' straight-ray models (range bins, spreading, ping timing)
expect, and exactly the straight cast's ranges under a constant profile. Rays whose origin
is above the sea surface are cast straight (the profile describes the water only). Rays
reaching the surface end there (they leave the water: no hit); rays turning back end there.
``docs/refraction.md`` has the model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.echo.ray_trace import Pieces, piece_offset, piece_step, pieces
from nps_sonar_py.echo.sound_speed import SoundSpeedProfile
from nps_sonar_py.sensing.caster import Bending, HitTriangles, RayHits, SurfaceCaster

__all__ = ['DEFAULT_SAGITTA', 'PlacedScene', 'RefractingCaster', 'scene_bounds']

F = NDArray[np.float64]

#: Largest distance (m) between an arc and the chord cast for it.
DEFAULT_SAGITTA = 1e-3
#: Most chords one cast may hold (a bound on memory; more is refused).
MAX_CHORDS = 20_000_000
#: Largest error, m, left in a hit moved onto its arc (the cast's float32 rounding is 1e-5).
NEWTON_TOLERANCE = 1e-9
#: Metres the chords reach above and below the scene's depths (whole metres).
DEPTH_MARGIN = 1.0


Bounds = Callable[[], tuple[F, F]]


@runtime_checkable
class PlacedScene(Protocol):
    """What says where the entities are (``scene.Raycaster``): see :func:`scene_bounds`."""

    @property
    def entity_names(self) -> Sequence[str]: ...  # noqa: D102

    @property
    def world(self) -> Any: ...  # noqa: D102  (entities with surface.vertices, entity frame)

    def entity_pose(self, name: str) -> NDArray[np.float64]: ...  # noqa: D102


def scene_bounds(scene: PlacedScene) -> Bounds:
    """The world box ``(low, high)`` holding every entity of ``scene`` where it is now.

    Each entity's box in its own frame is found once; each call places its 8 corners by the
    entity's current pose (moving entities included), a box that holds the entity. While no
    pose changes, the last box is given again.
    """
    boxes = []
    for entity in scene.world.entities:
        v = np.asarray(entity.surface.vertices, dtype=np.float64)
        lo, hi = (v.min(axis=0), v.max(axis=0)) if v.size else (np.zeros(3), np.zeros(3))
        boxes.append(
            [[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
        )
    corners = np.array(boxes, dtype=np.float64).reshape(-1, 8, 3)
    names = tuple(scene.entity_names)
    last: list[tuple[F, tuple[F, F]]] = []  # the poses and the box of the last call

    def bounds() -> tuple[F, F]:
        if not names:
            return np.full(3, np.inf), np.full(3, -np.inf)
        poses = np.stack([scene.entity_pose(n) for n in names])
        if last and np.array_equal(last[0][0], poses):
            return last[0][1]
        placed = corners @ poses[:, :3, :3].transpose(0, 2, 1) + poses[:, None, :3, 3]
        box = placed.min(axis=(0, 1)), placed.max(axis=(0, 1))
        last[:] = [(poses, box)]
        return box

    return bounds


class RefractingCaster:
    """Cast rays bent by a sound-speed profile through any :class:`SurfaceCaster`.

    Args:
        caster: the inner caster (straight rays).
        profile: the water's sound speed against depth.
        surface_z: world z of the sea surface, m; a point's depth is ``surface_z - z``.
        sagitta: largest distance between an arc and its chords, m (> 0).
        bounds: the world box holding everything the inner caster can hit, now
            (:func:`scene_bounds`); chords outside it are not cast. ``None``: all are.

    """

    def __init__(
        self,
        caster: SurfaceCaster,
        profile: SoundSpeedProfile,
        *,
        surface_z: float = 0.0,
        sagitta: float = DEFAULT_SAGITTA,
        bounds: Bounds | None = None,
    ) -> None:
        if not (np.isfinite(surface_z) and np.isfinite(sagitta) and sagitta > 0.0):
            msg = f'surface_z must be finite and sagitta > 0, got {surface_z!r}, {sagitta!r}'
            raise ValueError(msg)
        self.caster = caster
        self.profile = profile
        self.surface_z = float(surface_z)
        self.sagitta = float(sagitta)
        self.bounds = bounds
        #: chords in the last cast (the inner cast's ray count), for benchmarks and tuning
        self.last_chord_count = 0
        #: the rays' chords in their own vertical planes, kept while the source depths, the
        #: rays' sines and the scene's depth range stay (a level tow at any heading)
        self._frame: _Frame | None = None
        #: how many times the chords were made (traced and cut) anew, for tests and benchmarks
        self.frames_made = 0
        #: the kept chords turned to the last cast's directions (kept while they stay)
        self._placement: _Placement | None = None

    def cast(self, origins: ArrayLike, directions: ArrayLike) -> RayHits:
        """Cast bent rays from world ``origins`` ((n, 3) or (3,), m) along unit ``directions``.

        The (n,) hits' ranges are equivalent ranges, their ``bending`` the travel times, path
        lengths and reference speeds (:class:`~nps_sonar_py.scene.hits.Bending`).
        """
        d = np.asarray(directions, dtype=np.float64).reshape(-1, 3)
        o = np.asarray(origins, dtype=np.float64).reshape(-1, 3)
        depth0: F | float
        if o.shape[0] == 1:  # one origin for all: kept (1, 3), its depth a number
            depth0 = float(self.surface_z - o[0, 2])
        else:
            o = np.broadcast_to(o, d.shape)  # (refuses a count that is not n)
            depth0 = self.surface_z - o[:, 2]
        box = None if self.bounds is None else self.bounds()
        place = self._placed_for(d, depth0, None if box is None else self._depth_range(box))
        chords = place.placed(o, box)
        self.last_chord_count = int(chords.lengths.size)
        inner = self.caster.cast_block(chords.block)
        first = _first_hits(np.asarray(inner.ranges, dtype=np.float64), chords)
        arrival = _Arrival.missed(d.shape[0])
        frame = place.frame
        straight = first.step < 0  # straight, unbent rays (above the surface, level in constant
        if straight.any():  # speed): the inner hit as it is
            arrival.put_straight(first.where(straight), frame.c_ref, inner)
        bent = first.where(~straight) if straight.any() else first
        if bent.ray.size:  # bent rays: back on the arc at the hit's depth
            entries = frame.entries.rows(
                bent.chord if chords.entry is None else chords.entry[bent.chord]
            )
            arrival.put_bent(bent, entries, place.horizontal[bent.ray], frame.c_ref, inner)
        reflectivity = np.full(d.shape[0], np.nan)
        reflectivity[first.ray] = np.asarray(inner.reflectivity)[first.chord]
        untextured = None
        if inner.untextured is not None:  # a textured seabed's (``seabed_caster``)
            untextured = np.full(d.shape[0], np.nan)
            untextured[first.ray] = inner.untextured[first.chord]
        normals = np.zeros((d.shape[0], 3))
        normals[first.ray] = np.asarray(inner.normals)[first.chord]
        bending = Bending(self.profile, self.surface_z, arrival.time, arrival.length, frame.c_ref)
        triangles = None
        if inner.triangles is not None:  # the triangle each bent ray ends on
            ids = np.full(d.shape[0], -1, dtype=np.int64)
            ids[first.ray] = inner.triangles.ids[first.chord]
            triangles = HitTriangles(lambda: ids, inner.triangles.meshes)
        return RayHits(
            arrival.ranges,
            normals,
            arrival.cos,
            reflectivity,
            _look_up(inner, d.shape[0], first.ray, first.chord),
            bending,
            triangles,
            untextured=untextured,
        )

    def _placed_for(
        self, d: F, depth0: F | float, depth_range: tuple[float, float] | None
    ) -> _Placement:
        """The chords turned to directions ``d`` (n, 3): the last cast's if nothing changed.

        Placed anew when the directions or the source depths change (the chords in their
        planes kept if they can be, :meth:`frame`).
        """
        place = self._placement
        if (
            place is not None
            and place.frame is self._frame
            and place.frame.profile is self.profile
            and place.frame.sagitta == self.sagitta
            and place.frame.depth_range == depth_range
            and np.array_equal(place.depth0, depth0)
            and np.array_equal(place.d, d)
        ):
            return place
        sine = np.minimum(np.maximum(-d[:, 2], -1.0), 1.0)
        place = self.frame(depth0, sine, depth_range).turned(d, depth0)
        self._placement = place
        return place

    def cast_block(self, block: NDArray[np.float32]) -> RayHits:
        """Cast bent rays of a (n, 6) float32 block of origins and unit directions per row."""
        return self.cast(block[:, :3].astype(np.float64), block[:, 3:].astype(np.float64))

    def _depth_range(self, box: tuple[F, F]) -> tuple[float, float]:
        """The scene's depths ``(top, bottom)``, widened to whole metres and one more.

        Whole metres keep the chords while the scene bobs within them; the extra metre keeps a
        hit on the box's face (a flat seabed) inside a chord, not at its float32 end.
        """
        low, high = box
        return (
            float(np.floor(self.surface_z - high[2])) - DEPTH_MARGIN,
            float(np.ceil(self.surface_z - low[2])) + DEPTH_MARGIN,
        )

    def frame(self, depth0: F | float, sine: F, depth_range: tuple[float, float] | None) -> _Frame:
        """The rays' chords in their own planes: the kept ones if made from the same inputs.

        ``depth0``: the source depths, (n,) or one for all.
        """
        kept = self._frame
        if (
            kept is not None
            and kept.profile is self.profile
            and kept.sagitta == self.sagitta
            and kept.depth_range == depth_range
            and kept.depth0.shape == sine.shape
            and bool(np.all(kept.depth0 == depth0))
            and np.array_equal(kept.sine, sine)
        ):
            return kept
        depth0 = np.broadcast_to(np.asarray(depth0, dtype=np.float64), sine.shape)
        self._frame = _make_frame(self.profile, self.sagitta, depth0, sine, depth_range)
        self.frames_made += 1
        return self._frame


def _look_up(
    inner: RayHits, n: int, rays: NDArray[np.intp], first: NDArray[np.intp]
) -> Callable[[], tuple[NDArray[np.int64], NDArray[np.float64]]]:
    """The entity and retro of ``n`` rays, made when first read.

    Ray ``rays[i]``'s are the inner hit ``first[i]``'s (its first accepted chord's); the
    others' are -1 and nan.
    """

    def look_up() -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        entity = np.full(n, -1, dtype=np.int64)
        retro = np.full(n, np.nan)
        entity[rays] = inner.entity[first]
        retro[rays] = inner.retro[first]
        return entity, retro

    return look_up


@dataclass(frozen=True, eq=False)
class _FirstHits:
    """The first accepted chord hit of each ray that hit, (k,) each, in ray order.

    Attributes:
        ray: the ray.
        chord: the chord's index in the inner cast (its hit's).
        distance: the inner hit's range along the chord from its start, m.
        step: the chord's piece (layer in travel order); -1: straight, unbent.
    """

    ray: NDArray[np.intp]
    chord: NDArray[np.intp]
    distance: F
    step: NDArray[np.intp]

    def where(self, mask: NDArray[np.bool_]) -> _FirstHits:
        """The hits where ``mask`` (k,) holds."""
        return _FirstHits(self.ray[mask], self.chord[mask], self.distance[mask], self.step[mask])


def _first_hits(distance: F, chords: _Chords) -> _FirstHits:
    """Each ray's first chord whose inner hit (``distance`` (m,) m from its start) is on it.

    A hit counts if it lies within the chord; the chords are in path order per ray.
    """
    accepted = np.flatnonzero((distance <= chords.lengths) & np.isfinite(distance))
    hit_rays = chords.ray[accepted]
    new_ray = np.ones(hit_rays.size, dtype=bool)  # entries are in ray order
    np.not_equal(hit_rays[1:], hit_rays[:-1], out=new_ray[1:])
    first = np.flatnonzero(new_ray)
    chord = accepted[first]
    return _FirstHits(hit_rays[first], chord, distance[chord], chords.step[chord])


@dataclass(eq=False)
class _Arrival:
    """Where each of n rays arrives, filled in by kind of ray: (n,) arrays, misses as made.

    Attributes:
        ranges: equivalent range ``c_ref * time``, m; inf on a miss.
        time: one-way travel time, s; inf on a miss.
        length: path length, m; inf on a miss.
        cos: ``|cos|`` between the arriving ray and the surface normal; 0 on a miss.
    """

    ranges: F
    time: F
    length: F
    cos: F

    @staticmethod
    def missed(n: int) -> _Arrival:
        """N rays that met nothing."""
        return _Arrival(np.full(n, np.inf), np.full(n, np.inf), np.full(n, np.inf), np.zeros(n))

    def put_straight(self, hits: _FirstHits, c_ref: F, inner: RayHits) -> None:
        """Straight, unbent rays: the inner hit as it is, its time at the origin's speed."""
        rays, distance = hits.ray, hits.distance
        self.ranges[rays] = distance
        self.time[rays] = distance / c_ref[rays]
        self.length[rays] = distance
        self.cos[rays] = np.asarray(inner.cos_incidence)[hits.chord]

    def put_bent(
        self, hits: _FirstHits, piece: _Entry, horizontal: F, c_ref: F, inner: RayHits
    ) -> None:
        """Bent rays: each inner hit moved back onto its ray's arc (:func:`_onto_arc`).

        ``piece``: the hit chords' entries; ``horizontal`` (k, 2) the rays' unit horizontals.
        """
        normal = np.asarray(inner.normals)[hits.chord].astype(np.float64)
        on_arc = _onto_arc(piece, hits.distance, normal, horizontal)
        rays, c_ray = hits.ray, c_ref[hits.ray]
        ranges = c_ray * on_arc.time
        if on_arc.from_source.any():
            ranges = np.where(on_arc.from_source, (c_ray / piece.c_in) * on_arc.length, ranges)
        self.ranges[rays] = ranges
        self.time[rays] = on_arc.time
        self.length[rays] = on_arc.length
        self.cos[rays] = on_arc.cos


@dataclass(frozen=True, eq=False)
class _OnArc:
    """Bent rays' hits on their arcs, (k,) each.

    Attributes:
        time: one-way travel time from the ray's origin, s.
        length: path length from the ray's origin, m.
        cos: ``|cos|`` between the arc's tangent there and the surface normal.
        from_source: the hit is on a straight piece that starts at the source (its
            equivalent range is the cast's distance scaled, exactly the straight cast's).
    """

    time: F
    length: F
    cos: F
    from_source: NDArray[np.bool_]


def _onto_arc(piece: _Entry, distance: F, normal: F, horizontal: F) -> _OnArc:
    """The hits of chords (``distance`` (k,) m along each) moved onto their rays' arcs.

    Where the arc meets the surface's plane at the hit (``normal`` (k, 3), the inner hit's):
    the closed forms are taken once at the chord's hit depth, then moved to the plane by a
    second-order step (:func:`_onto_plane`); exact for any plane, a horizontal seabed in no
    step. Piece coordinates: start (0, 0), offset x along the ray's horizontal
    (``horizontal`` (k, 2), unit), w down along its travel. A straight piece is one chord from
    its start: the distance along it is the hit's.
    """
    w_hit = piece.w_start + piece.uw * distance  # vertical travel of the hit from the start
    along = np.minimum(np.maximum(w_hit, 0.0), piece.dz)
    flat = piece.gamma == 0.0
    any_flat = bool(flat.any())
    arc = (piece.p, piece.c_in, piece.s_in, piece.gamma)
    c2, s2, dx, dt, ds = piece_step(*arc, np.where(flat, 0.0, along) if any_flat else along)
    # the plane a x + b w = const: the normal's terms along the horizontal and the travel
    a = normal[:, 0] * horizontal[:, 0] + normal[:, 1] * horizontal[:, 1]
    b = -piece.down * normal[:, 2]
    needs = (piece.gamma != 0.0) & (a != 0.0)  # bent pieces, planes not level
    if needs.all():  # the usual case: every hit, no gathers
        x_hit = piece.x_start + piece.ux * distance
        c2, s2, dt, ds = _onto_plane(
            arc, piece.dz, (a, b, x_hit, w_hit), along, (c2, s2, dx, dt, ds)
        )
    elif needs.any():
        e = np.flatnonzero(needs)
        x_hit = piece.x_start[e] + piece.ux[e] * distance[e]
        c2[e], s2[e], dt[e], ds[e] = _onto_plane(
            (piece.p[e], piece.c_in[e], piece.s_in[e], piece.gamma[e]),
            piece.dz[e],
            (a[e], b[e], x_hit, w_hit[e]),
            along[e],
            (c2[e], s2[e], dx[e], dt[e], ds[e]),
        )
    from_source = np.zeros(distance.size, dtype=bool)
    if any_flat:
        # a straight piece's length to the hit: the chord's start may lie past the piece's
        # (clipped to the scene's depths), and chord and piece are one line
        straight = distance + np.hypot(piece.x_start, piece.w_start)
        dt = np.where(flat, straight / piece.c_in, dt)
        ds = np.where(flat, straight, ds)
        s2 = np.where(flat, piece.s_in, s2)
        c2 = np.where(flat, piece.c_in, c2)
        # the first straight piece from the source keeps the cast's equivalent range
        from_source = flat & (piece.t_in == 0.0)
    # the arc's tangent (horizontal p c2, vertical -down s2) against the normal
    cos = np.abs(a * (piece.p * c2) + b * s2)
    return _OnArc(piece.t_in + dt, piece.s_path_in + ds, cos, from_source)


@dataclass(frozen=True, eq=False)
class _Chords:
    """The chords of one cast, (m,) or (m, k) each.

    Attributes:
        block: (m, 6) float32 world start and unit direction of each chord, Open3D's ray
            block (the inner caster's trusted entry).
        lengths: chord lengths, m (inf: an open straight end).
        ray: the ray each chord belongs to.
        step: the piece (layer in travel order) of the chord; -1: straight, unbent.
        entry: the frame's entries cast (``None``: all, in order).
    """

    block: NDArray[np.float32]
    lengths: F
    ray: NDArray[np.intp]
    step: NDArray[np.intp]
    entry: NDArray[np.intp] | None = None


@dataclass(frozen=True, eq=False)
class _Entry:
    """What each of m entries needs when its chord's hit is moved onto the arc, (m,) each.

    Piece coordinates: ``x`` m along the ray's horizontal from the piece's start, ``w`` m of
    vertical travel from it (down for a ray going down, up for one going up).

    Attributes:
        x_start, w_start: the entry's start, m, from its piece's start.
        ux, uw: the entry's unit direction in the piece's plane.
        p: Snell's invariant ``cos(theta) / c`` of the ray, s/m.
        down: +1 for a ray travelling down, -1 up.
        c_in, s_in: speed (m/s) and ``|sin theta|`` at the piece's start.
        gamma: the piece's ``dc/dz`` along the ray's vertical travel, 1/s.
        dz: the piece's vertical extent, m (inf: the open straight end).
        t_in, s_path_in: travel time (s) and path length (m) to the piece's start.
    """

    x_start: F
    w_start: F
    ux: F
    uw: F
    p: F
    down: F
    c_in: F
    s_in: F
    gamma: F
    dz: F
    t_in: F
    s_path_in: F


@dataclass(frozen=True, eq=False)
class _Entries:
    """The m entries of a frame as one (12, m) table, a row per :class:`_Entry` field.

    Kept as one table so that the hits' entries are taken in one gather (:meth:`rows`), each
    field contiguous.
    """

    table: F

    @staticmethod
    def of(entry: _Entry) -> _Entries:
        """The table of ``entry``'s fields, in their order."""
        return _Entries(np.stack([getattr(entry, f.name) for f in fields(_Entry)]))

    def rows(self, index: NDArray[np.intp]) -> _Entry:
        """The entries ``index`` (k,), each field (k,)."""
        return _Entry(*np.take(self.table, index, axis=1))


@dataclass(frozen=True, eq=False)
class _Frame:
    """What is cast for each ray, in the ray's own vertical plane, and what it was made from.

    It depends on the source depths and the rays' sines (the vertical components of their
    directions) alone, and on the scene's depth range: a turn in heading or a horizontal move
    only turns and shifts it, so a level tow makes it once (:meth:`turned` to the rays'
    directions, then placed at their origins each ping). Entries ``(m,)`` in path order per
    ray: a straight start cast as the ray itself (``as_ray``), the chords of the arcs within
    the scene's depths, an open straight end (``length`` inf). Plane coordinates: ``x`` m
    along the ray's horizontal from its origin, ``w`` m of vertical travel (down for a ray
    going down, up for one going up), ``(ux, uw)`` a unit direction in them.
    """

    profile: SoundSpeedProfile
    sagitta: float
    depth0: F
    sine: F
    depth_range: tuple[float, float] | None
    c_ref: F  # (n,) the speed at each ray's origin, m/s
    entries: _Entries  # what the hits need, per entry
    reach: float  # the largest horizontal offset of a chord's end from its ray's origin, m
    ray: NDArray[np.intp]
    step: NDArray[np.intp]  # piece (layer in travel order); -1: straight, unbent
    as_ray: NDArray[np.intp]  # entries cast from the ray's origin along its direction
    chord: NDArray[np.bool_]  # entries that are arc chords (culled by the scene's box)
    x0: F  # m along the ray's horizontal from its origin
    z0: F  # world z of the start from the origin's, m
    x1: F  # the end's x, m
    ux: F
    uz: F  # world z of the unit direction
    length: F  # m; inf: an open end

    def turned(self, d: F, depth0: F | float) -> _Placement:
        """The entries turned to the rays' unit directions ``d`` (n, 3) (their origins at 0).

        ``depth0`` is the source depths as the cast gave them (one for all, or (n,)): kept to
        tell a later cast from the same depths.
        """
        hnorm = np.hypot(d[:, 0], d[:, 1])
        if hnorm.all():
            horizontal = d[:, :2] / hnorm[:, None]
        else:  # a vertical ray's horizontal is any: x
            horizontal = np.where(
                (hnorm > 0.0)[:, None],
                d[:, :2] / np.where(hnorm > 0.0, hnorm, 1.0)[:, None],
                [1.0, 0.0],
            )
        along = horizontal[self.ray]
        start = np.empty((self.ray.size, 3))
        start[:, :2] = along * self.x0[:, None]
        start[:, 2] = self.z0
        block = np.empty((self.ray.size, 6), dtype=np.float32)
        block[:, 3:5] = along * self.ux[:, None]
        block[:, 5] = self.uz
        if self.as_ray.size:
            start[self.as_ray] = 0.0
            block[self.as_ray, 3:] = d[self.ray[self.as_ray]]
        return _Placement(self, np.array(d), np.array(depth0), horizontal, start, block)


@dataclass(frozen=True, eq=False)
class _Placement:
    """A frame's entries turned to the rays' directions ``d``, from origins at 0.

    A cast from other origins along the same directions (a tow at a steady heading) only
    shifts them: :meth:`placed`.
    """

    frame: _Frame
    d: F
    depth0: F
    horizontal: F  # (n, 2) each ray's unit horizontal
    start: F  # (m, 3) the entries' starts from their ray's origin (0 for those cast as the ray)
    block: NDArray[np.float32]  # (m, 6) the entries' unit directions in columns 3..5

    def placed(self, o: F, box: tuple[F, F] | None) -> _Chords:
        """The entries in the world for rays from ``o`` ((1, 3) shared or (n, 3), m).

        The ray block's origins are written in place, once per cast (rounded to float32 from
        the float64 sums, as a checked cast would).
        """
        f = self.frame
        shared = o.shape[0] == 1
        oe = o if shared else o[f.ray]
        low, high = box if box is not None else (None, None)
        lo, hi = (o[0], o[0]) if shared else (o.min(axis=0), o.max(axis=0))
        if (
            low is None
            or high is None
            or (
                lo[0] - f.reach >= low[0]
                and lo[1] - f.reach >= low[1]
                and hi[0] + f.reach <= high[0]
                and hi[1] + f.reach <= high[1]
            )
        ):  # no box, or it holds every chord: none to cull
            np.add(oe, self.start, out=self.block[:, :3], casting='same_kind')
            return _Chords(self.block, f.length, f.ray, f.step)
        # only chords whose box meets the scene's can hit (their depths already do)
        origins = oe + self.start
        end = oe[:, :2] + self.horizontal[f.ray] * f.x1[:, None]
        start = origins[:, :2]
        meets = np.all(np.minimum(start, end) <= high[:2], axis=1)
        meets &= np.all(np.maximum(start, end) >= low[:2], axis=1)
        keep = np.flatnonzero(meets | ~f.chord)
        block = self.block[keep]
        block[:, :3] = origins[keep]
        return _Chords(block, f.length[keep], f.ray[keep], f.step[keep], keep)


@dataclass(frozen=True, eq=False)
class _Cut:
    """Arc pieces cut into chords, in each ray's plane, (c,) each: what :func:`_chords` makes.

    Attributes:
        ray, step: the chord's ray and piece.
        x0, w0, x1, w1: the chord's start and end, m, from the ray's origin (``x`` along its
            horizontal, ``w`` its vertical travel).
        lengths: m.
    """

    ray: NDArray[np.intp]
    step: NDArray[np.intp]
    x0: F
    w0: F
    x1: F
    w1: F
    lengths: F


@dataclass(frozen=True, eq=False)
class _OpenEnds:
    """Each ray's open straight end, where it has one, (e,) each (:func:`_open_ends`).

    Attributes:
        ray: the ray.
        step: its piece; -1 for an unbent ray.
        x, w: the end's start from the ray's origin, m.
        ux, uw: its unit direction in the ray's plane (0 where ``as_ray``).
        as_ray: cast from the ray's origin along its direction (a straight end from the
            source itself, or an unbent ray: exactly the straight cast).
    """

    ray: NDArray[np.intp]
    step: NDArray[np.intp]
    x: F
    w: F
    ux: F
    uw: F
    as_ray: NDArray[np.bool_]


def _make_frame(
    profile: SoundSpeedProfile,
    sagitta: float,
    depth0: F,
    sine: F,
    depth_range: tuple[float, float] | None,
) -> _Frame:
    """Trace the rays and cut their arcs within ``depth_range`` (m, top, bottom) into chords.

    ``depth0`` (n,) source depths, m; ``sine`` (n,) the rays' ``-d_z``.
    """
    wet = depth0 >= 0.0
    c_ref = profile.speed_at(np.maximum(depth0, 0.0))
    traced = pieces(profile, np.maximum(depth0, 0.0), sine)
    valid = traced.valid & wet[:, None]
    # Pieces straight on at the source's speed from the origin are one line: cast as the
    # ray itself (exactly the straight cast), one chord, however many rows they cross.
    collinear = ~valid | ((traced.gamma == 0.0) & (traced.c_in == c_ref[:, None]))
    prefix = np.cumprod(collinear, axis=1).astype(bool) & valid
    merged = np.flatnonzero(np.any(prefix, axis=1))
    merged_length = np.sum(np.where(prefix, traced.ds, 0.0), axis=1)[merged]
    cut = _chords(traced, sagitta, depth0, valid & np.isfinite(traced.dz) & ~prefix, depth_range)
    ends = _open_ends(traced, depth0, wet, valid & ~np.isfinite(traced.dz) & ~prefix, depth_range)
    m_merged, m_chord, m_open = merged.size, cut.ray.size, ends.ray.size
    all_ray = np.concatenate((merged, cut.ray, ends.ray)).astype(np.intp)
    order = np.argsort(all_ray, kind='stable')  # path order per ray: start, chords, open end

    def cat(start: NDArray[Any], chord: NDArray[Any], open_end: NDArray[Any]) -> NDArray[Any]:
        return np.concatenate((start, chord, open_end))[order]

    zeros = np.zeros(m_merged)
    ray = all_ray[order]
    step = cat(np.full(m_merged, -1), cut.step, ends.step).astype(np.intp)
    x0, w0 = cat(zeros, cut.x0, ends.x), cat(zeros, cut.w0, ends.w)
    with np.errstate(divide='ignore', invalid='ignore'):
        ux_cut, uw_cut = (cut.x1 - cut.x0) / cut.lengths, (cut.w1 - cut.w0) / cut.lengths
    ux, uw = cat(zeros, ux_cut, ends.ux), cat(zeros, uw_cut, ends.uw)
    return _Frame(
        profile=profile,
        sagitta=sagitta,
        depth0=np.array(depth0),
        sine=np.array(sine),
        depth_range=depth_range,
        c_ref=c_ref,
        entries=_entries(traced, depth0, ray, step, (x0, w0, ux, uw)),
        reach=float(np.max(np.abs(np.concatenate((cut.x0, cut.x1))), initial=0.0)),
        ray=ray,
        step=step,
        as_ray=np.flatnonzero(cat(np.ones(m_merged, bool), np.zeros(m_chord, bool), ends.as_ray)),
        chord=cat(np.zeros(m_merged, bool), np.ones(m_chord, bool), np.zeros(m_open, bool)),
        x0=x0,
        z0=-traced.down[ray] * w0,
        x1=cat(zeros, cut.x1, ends.x),
        ux=ux,
        uz=-traced.down[ray] * uw,
        length=cat(merged_length, cut.lengths, np.full(m_open, np.inf)),
    )


def _entries(
    traced: Pieces, depth0: F, ray: NDArray[np.intp], step: NDArray[np.intp], at: tuple[F, F, F, F]
) -> _Entries:
    """The entries' table: their pieces' terms and their ``at = (x0, w0, ux, uw)``.

    ``at``: start (m) from the ray's origin and unit direction, in its plane; a straight
    start's piece is any (unused).
    """
    x0, w0, ux, uw = at
    piece = np.maximum(step, 0)
    z_in = traced.z_in[ray, piece]
    return _Entries.of(
        _Entry(
            x_start=x0 - traced.x_in[ray, piece],
            w_start=w0 - (z_in - depth0[ray]) * traced.down[ray],
            ux=ux,
            uw=uw,
            p=traced.p[ray],
            down=traced.down[ray],
            c_in=traced.c_in[ray, piece],
            s_in=traced.s_in[ray, piece],
            gamma=traced.gamma[ray, piece],
            dz=traced.dz[ray, piece],
            t_in=traced.t_in[ray, piece],
            s_path_in=traced.s_path_in[ray, piece],
        )
    )


def _travel_within(
    traced: Pieces, candidate: NDArray[np.bool_], depth_range: tuple[float, float] | None
) -> tuple[F, F, NDArray[np.bool_]]:
    """Each piece's vertical travel ``[u0, u1]`` (m) within the scene's depths.

    And which candidates keep some: an arc piece is monotone in depth, so only that part of
    it can hit.
    """
    finite = np.isfinite(traced.dz)
    u0 = np.zeros_like(traced.dz)
    u1 = np.where(finite, traced.dz, 0.0)
    if depth_range is None:
        return u0, u1, candidate
    top, bottom = depth_range
    going_down = traced.down[:, None] > 0.0
    with np.errstate(invalid='ignore'):
        u0 = np.maximum(u0, np.where(going_down, top - traced.z_in, traced.z_in - bottom))
        u1 = np.minimum(u1, np.where(going_down, bottom - traced.z_in, traced.z_in - top))
        return u0, u1, candidate & (u0 <= u1)


def _chord_counts(sagitta: float, arc: tuple[F, F, F, F], u0: F, u1: F) -> tuple[F, F, F, F]:
    """Chords per arc piece for a sagitta at most ``sagitta`` m, and the arcs' angles (rad).

    ``arc`` is ``(p, c_in, s_in, gamma)`` per piece; ``[u0, u1]`` its vertical travel cut.
    Returns the counts and the angles of the ray at its start, at ``u0`` and the turn
    from ``u0`` to ``u1``.
    """
    p, c_in, s_in, gamma = arc
    _, s_a, _ = piece_offset(p, c_in, s_in, gamma, u0)
    _, s_b, _ = piece_offset(p, c_in, s_in, gamma, u1)
    theta_in = np.arctan2(s_in, p * c_in)
    theta_a = np.arctan2(s_a, p * (c_in + gamma * u0))
    turn = theta_a - np.arctan2(s_b, p * (c_in + gamma * u1))
    curvature = np.abs(p * gamma)
    with np.errstate(divide='ignore', invalid='ignore'):
        delta = np.sqrt(8.0 * sagitta * curvature)  # chord angle of sagitta R delta^2 / 8
        count = np.where(curvature > 0.0, np.ceil(np.abs(turn) / delta), 1.0)
    count = np.maximum(np.nan_to_num(count, nan=1.0), 1.0)
    total = float(count.sum())
    if total > MAX_CHORDS:
        msg = f'refraction: {total:.0f} chords exceed {MAX_CHORDS}; raise the sagitta'
        raise ValueError(msg)
    return count, theta_in, theta_a, turn


def _chords(
    traced: Pieces,
    sagitta: float,
    depth0: F,
    candidate: NDArray[np.bool_],
    depth_range: tuple[float, float] | None,
) -> _Cut:
    """The candidate arc pieces within the scene's depths cut into chords.

    Each chord is at most ``sagitta`` m from its arc; its vertices are on the arc at equal
    steps of the ray's angle.
    """
    u0, u1, candidate = _travel_within(traced, candidate, depth_range)
    ray, step = (v.astype(np.intp) for v in np.nonzero(candidate))
    arc = (traced.p[ray], traced.c_in[ray, step], traced.s_in[ray, step], traced.gamma[ray, step])
    ua, ub = u0[ray, step], u1[ray, step]
    count, theta_in, theta_a, turn = _chord_counts(sagitta, arc, ua, ub)
    per = count.astype(np.intp)
    chord_ray, chord_step = np.repeat(ray, per), np.repeat(step, per)
    starts = np.cumsum(per) - per
    q = (np.arange(int(per.sum())) - np.repeat(starts, per)).astype(np.float64)
    chords_of_piece = np.repeat(per, per).astype(np.float64)
    th_in, th_a, th_turn = (np.repeat(v, per) for v in (theta_in, theta_a, turn))
    p, c1, s1, gamma = (np.repeat(v, per) for v in arc)
    uar, ubr = np.repeat(ua, per), np.repeat(ub, per)
    x_start = traced.x_in[chord_ray, chord_step]
    w_start = (traced.z_in[chord_ray, chord_step] - depth0[chord_ray]) * traced.down[chord_ray]

    def vertex(qq: F) -> tuple[F, F]:
        """Vertex ``qq`` of each piece's chords: ``(x, w)`` from the ray's origin, m."""
        frac = qq / chords_of_piece
        theta = th_a - frac * th_turn
        with np.errstate(divide='ignore', invalid='ignore'):
            arc_u = (
                2.0 * np.sin((th_in + theta) / 2.0) * np.sin((th_in - theta) / 2.0) / (p * gamma)
            )
        u = np.where((p * gamma != 0.0) & (chords_of_piece > 1.0), arc_u, uar + frac * (ubr - uar))
        u = np.where(qq >= chords_of_piece, ubr, np.where(qq <= 0.0, uar, np.clip(u, uar, ubr)))
        _, _, dx = piece_offset(p, c1, s1, gamma, u)
        return x_start + dx, w_start + u

    x0, w0 = vertex(q)
    x1, w1 = vertex(q + 1.0)
    lengths = np.hypot(x1 - x0, w1 - w0)
    keep = lengths > 0.0
    return _Cut(
        chord_ray[keep], chord_step[keep], x0[keep], w0[keep], x1[keep], w1[keep], lengths[keep]
    )


def _open_ends(
    traced: Pieces,
    depth0: F,
    wet: NDArray[np.bool_],
    has_open: NDArray[np.bool_],
    depth_range: tuple[float, float] | None,
) -> _OpenEnds:
    """The rays' open straight ends: below the last row, level rays, or dry (unbent) rays.

    ``has_open`` (n, L): valid pieces of infinite extent, not in a straight start.
    """
    if depth_range is not None:  # an open end starting beyond the scene's depths misses it
        with np.errstate(invalid='ignore'):
            has_open = has_open & np.where(
                traced.down[:, None] > 0.0,
                traced.z_in <= depth_range[1],
                traced.z_in >= depth_range[0],
            )
    rows = np.flatnonzero(
        np.any(has_open, axis=1) | (traced.open_end & wet & ~traced.valid.any(axis=1)) | ~wet
    )
    bent = np.any(has_open, axis=1)[rows]
    piece = np.where(bent, np.argmax(has_open, axis=1)[rows], 0)
    x = np.where(bent, traced.x_in[rows, piece], 0.0)
    w = np.where(bent, (traced.z_in[rows, piece] - depth0[rows]) * traced.down[rows], 0.0)
    horizontal = traced.p[rows] * traced.c_in[rows, piece]
    vertical = traced.s_in[rows, piece]
    norm = np.hypot(horizontal, vertical)
    # an open end from the source itself (or an unbent ray) is the ray: exactly its cast
    as_ray = ~bent | (traced.t_in[rows, piece] == 0.0)
    with np.errstate(divide='ignore', invalid='ignore'):
        ux = np.where(as_ray, 0.0, horizontal / norm)
        uw = np.where(as_ray, 0.0, vertical / norm)
    step = np.where(bent, piece, -1).astype(np.intp)
    return _OpenEnds(rows.astype(np.intp), step, x, w, ux, uw, as_ray)


def _onto_plane(
    arc: tuple[F, F, F, F],
    dz_piece: F,
    plane: tuple[F, F, F, F],
    along: F,
    at: tuple[F, F, F, F, F],
) -> tuple[F, F, F, F]:
    """Speed, sine, time and length where the arc meets a plane, from their values ``at`` along.

    ``arc`` is the piece's ``(p, c1, s1, gamma)``; ``plane`` is ``(a, b, x_hit, w_hit)``, the
    plane ``a x + b w = a x_hit + b w_hit`` in piece coordinates (``a``, ``b`` the normal's
    horizontal and vertical terms); ``at`` is :func:`piece_step`'s ``(c, s, dx, dt, ds)`` at
    the vertical travel ``along``, the chord's hit, within a sagitta of the arc. On the arc
    ``x' = p c / s``, ``x'' = p g / s^3``, ``t' = 1 / (c s)``, ``t'' = -g (s^2 - p^2 c^2) /
    (c^2 s^3)``, ``S' = 1 / s``, ``S'' = p^2 c g / s^3`` (``d/dw``): the root of the plane's
    equation to second order, and time and length moved to it to second order, leave errors of
    third order in the step, ``|e|^3 K`` with ``K`` the square of the terms' scale; where that
    exceeds NEWTON_TOLERANCE (a near-grazing ray) Newton steps on the exact forms go on.
    """
    p, c1, s1, g = arc
    a, b, x_hit, w_hit = plane
    c, s, dx, dt, ds = at
    with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
        inv_s = 1.0 / s
        x2 = p * g * inv_s * inv_s * inv_s  # x''
        slope = a * p * c * inv_s + b  # f'
        newton = (a * (dx - x_hit) + b * (along - w_hit)) / slope
        # the root of f + f' e + f'' e^2 / 2, f'' = a x''
        step = -newton - (0.5 * a * x2 / slope) * (newton * newton)
        moved = np.minimum(np.maximum(along + step, 0.0), dz_piece)
        step = moved - along
        t2 = -g * (s * s - (p * c) ** 2) * inv_s * inv_s * inv_s / (c * c)
        s_2 = p * c * x2
        scale = np.abs(x2) * (1.0 + np.abs(a / slope)) + np.abs(s_2) + np.abs(g / c)
        err = np.abs(step) ** 3 * scale * scale * (1.0 + inv_s)
        dt = dt + step * (inv_s / c + 0.5 * step * t2)
        ds = ds + step * (inv_s + 0.5 * step * s_2)
        c_new = c + g * step
        s = np.sqrt(np.maximum(s * s - p * p * g * step * (c + c_new), 0.0))
    if not err.max() <= NEWTON_TOLERANCE:  # (nan: not done; err is not empty)
        # Newton steps on the exact forms from the chord's hit, the closed forms at the root
        slow = np.flatnonzero(~(err <= NEWTON_TOLERANCE))
        arc_slow = (p[slow], c1[slow], s1[slow], g[slow])
        w = _newton_onto_plane(
            arc_slow, dz_piece[slow], a[slow], b[slow], x_hit[slow], w_hit[slow], along[slow]
        )
        c_new[slow], s[slow], _, dt[slow], ds[slow] = piece_step(*arc_slow, w)
    return c_new, s, dt, ds


def _newton_onto_plane(
    arc: tuple[F, F, F, F], dz_piece: F, a: F, b: F, x_hit: F, w_hit: F, along: F
) -> F:
    """Newton steps on the vertical travel ``along`` to where the arc meets a plane.

    ``arc`` is the piece's ``(p, c1, s1, gamma)``; the plane is ``a x + b w = a x_hit + b
    w_hit`` in piece coordinates (``a``, ``b`` the normal's horizontal and vertical terms).
    The chord's hit is within a sagitta of the arc: one step usually leaves an error below
    NEWTON_TOLERANCE.
    """
    p, c1, s1, g = arc
    ap = a * p
    half_apg = 0.5 * np.abs(ap * g)
    active = np.ones(along.size, dtype=bool)
    for _ in range(4):
        c_w, s_w, x_w = piece_offset(p, c1, s1, g, along)
        f = a * (x_w - x_hit) + b * (along - w_hit)
        with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
            slope = ap * c_w / s_w + b
            ok = active & np.isfinite(slope) & (slope != 0.0)
            newton = np.divide(f, slope, out=np.zeros(along.size), where=ok)
            along = np.minimum(np.maximum(along - newton, 0.0), dz_piece)
            # Newton's error after a step e is about |f'' / (2 f')| e^2, with x'' = p g / s^3
            # on the arc: done when that is below the tolerance (nan: not done)
            left = half_apg * (newton * newton) / np.abs(s_w * s_w * s_w * slope)
        active &= ~(left <= NEWTON_TOLERANCE) & (np.abs(newton) > NEWTON_TOLERANCE)
        if not active.any():
            break
    return along
