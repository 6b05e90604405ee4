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
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.echo.ray_trace import Pieces, piece_offset, piece_step, pieces
from nps_sonar_py.echo.sound_speed import SoundSpeedProfile
from nps_sonar_py.sensing.caster import Bending, RayHits, SurfaceCaster

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
        """Cast bent rays from world ``origins`` ((n, 3) or (3,)) along unit ``directions``."""
        d = np.asarray(directions, dtype=np.float64).reshape(-1, 3)
        o = np.asarray(origins, dtype=np.float64).reshape(-1, 3)
        n = d.shape[0]
        depth0: F | float
        if o.shape[0] == 1:  # one origin for all: kept (1, 3), its depth a number
            depth0 = float(self.surface_z - o[0, 2])
        else:
            o = np.broadcast_to(o, d.shape)  # (refuses a count that is not n)
            depth0 = self.surface_z - o[:, 2]
        box = None if self.bounds is None else self.bounds()
        depth_range = None if box is None else self._depth_range(box)
        place = self._placement
        if not (
            place is not None
            and place.frame is self._frame
            and place.frame.profile is self.profile
            and place.frame.sagitta == self.sagitta
            and place.frame.depth_range == depth_range
            and np.array_equal(place.depth0, depth0)
            and np.array_equal(place.d, d)
        ):  # the directions or the source depths changed: placed anew (the chords kept if can)
            sine = np.minimum(np.maximum(-d[:, 2], -1.0), 1.0)
            place = self.frame(depth0, sine, depth_range).turned(d, depth0)
            self._placement = place
        frame, horizontal = place.frame, place.horizontal
        chords = place.placed(o, box)
        self.last_chord_count = int(chords.lengths.size)
        c_ref = frame.c_ref
        inner = self.caster.cast(chords.origins, chords.directions)
        t = np.asarray(inner.ranges, dtype=np.float64)
        accepted = np.flatnonzero((t <= chords.lengths) & np.isfinite(t))
        hit_rays = chords.ray[accepted]
        new_ray = np.ones(hit_rays.size, dtype=bool)  # entries are in ray order
        np.not_equal(hit_rays[1:], hit_rays[:-1], out=new_ray[1:])
        first = np.flatnonzero(new_ray)
        rays = hit_rays[first]
        k = accepted[first]  # the first accepted chord of each ray that hit (path order)
        ranges = np.full(n, np.inf)
        time = np.full(n, np.inf)
        length = np.full(n, np.inf)
        cos = np.zeros(n)
        step = chords.step[k]
        tk = t[k]
        straight = step < 0
        rb, kb, tb = rays, k, tk
        if straight.any():
            # straight, unbent rays (above the surface, level in constant speed): the inner hit
            rs = rays[straight]
            ranges[rs] = tk[straight]
            time[rs] = tk[straight] / c_ref[rs]
            length[rs] = tk[straight]
            cos[rs] = np.asarray(inner.cos_incidence)[k[straight]]
            bent = ~straight
            rb, kb, tb = rays[bent], k[bent], tk[bent]
        # bent rays: back on the arc at the hit's depth
        if rb.size:
            ek = kb if chords.entry is None else chords.entry[kb]
            x_rel, w_rel, ux, uw, p, down, c1, s1, g, dz_piece, t_in, s_path_in = np.take(
                frame.entries, ek, axis=0
            ).T  # one gather: the chord's start and direction in its piece's plane, the piece
            w_hit = w_rel + uw * tb  # vertical travel of the hit from the piece's start
            # The hit moved onto the arc: where the arc meets the surface's plane at the hit
            # (the inner hits' normal). The closed forms are taken once at the chord's hit depth,
            # then moved to the plane by a second-order step (:func:`_onto_plane`); exact for any
            # plane, a horizontal seabed in no step. Piece coordinates: start (0, 0), offset x
            # along the ray's horizontal, w down along its travel.
            along = np.minimum(np.maximum(w_hit, 0.0), dz_piece)
            flat = g == 0.0
            any_flat = bool(flat.any())
            c2, s2, dx, dt, ds = piece_step(
                p, c1, s1, g, np.where(flat, 0.0, along) if any_flat else along
            )
            nrm = np.asarray(inner.normals)[kb].astype(np.float64)
            h_hit = horizontal[rb]
            a = nrm[:, 0] * h_hit[:, 0] + nrm[:, 1] * h_hit[:, 1]
            b = -down * nrm[:, 2]
            needs = (g != 0.0) & (a != 0.0)  # bent pieces, planes not level
            e: slice | NDArray[np.intp] = slice(None) if needs.all() else np.flatnonzero(needs)
            if needs.any():
                x_hit = x_rel[e] + ux[e] * tb[e]
                c2[e], s2[e], dt[e], ds[e] = _onto_plane(
                    (p[e], c1[e], s1[e], g[e]),
                    dz_piece[e],
                    (a[e], b[e], x_hit, w_hit[e]),
                    along[e],
                    (c2[e], s2[e], dx[e], dt[e], ds[e]),
                )
            ranges[rb] = c_ref[rb] * (t_in + dt)
            if any_flat:
                # a straight piece is one chord from its start: the distance along it is the hit's
                dt = np.where(flat, tb / c1, dt)
                ds = np.where(flat, tb, ds)
                s2 = np.where(flat, s1, s2)
                c2 = np.where(flat, c1, c2)
                # equivalent range: the first straight piece from the source keeps the cast's
                ranges[rb] = np.where(
                    flat & (t_in == 0.0), (c_ref[rb] / c1) * tb, c_ref[rb] * (t_in + dt)
                )
            time[rb] = t_in + dt
            length[rb] = s_path_in + ds
            # the arc's tangent (horizontal p c2, vertical -down s2) against the normal
            cos[rb] = np.abs(a * (p * c2) + b * s2)
        reflectivity = np.full(n, np.nan)
        reflectivity[rays] = np.asarray(inner.reflectivity)[k]
        normals = np.zeros((n, 3))
        normals[rays] = np.asarray(inner.normals)[k]
        bending = Bending(self.profile, self.surface_z, time, length, c_ref)
        return RayHits(ranges, normals, cos, reflectivity, _look_up(inner, n, rays, k), bending)

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
class _Chords:
    """The chords of one cast: world start points, unit directions, lengths, and what they cut."""

    origins: F
    directions: F
    lengths: F
    ray: NDArray[np.intp]
    step: NDArray[np.intp]  # piece (layer in travel order) of the chord; -1: straight, unbent
    entry: NDArray[np.intp] | None = None  # the frame's entries cast (None: all, in order)


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
    pcs: Pieces
    c_ref: F
    #: (m, 12) per entry: its start from its piece's ``(x, w)``, its ``(ux, uw)``, and its
    #: piece's p, down, c_in, s_in, gamma, dz, t_in, s_path_in (the hits' one gather)
    entries: F
    reach: float  # the largest horizontal offset of a chord's end from its ray's origin, m
    ray: NDArray[np.intp]
    step: NDArray[np.intp]  # piece (layer in travel order); -1: straight, unbent
    as_ray: NDArray[np.intp]  # entries cast from the ray's origin along its direction
    chord: NDArray[np.bool_]  # entries that are arc chords (culled by the scene's box)
    x0: F
    z0: F  # world z of the start from the origin's
    x1: F
    ux: F
    uz: F  # world z of the unit direction
    length: F

    def turned(self, d: F, depth0: F | float) -> _Placement:
        """The entries turned to the rays' unit directions ``d`` (their origins at 0).

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
        he = horizontal[self.ray]
        start = np.empty((self.ray.size, 3))
        start[:, :2] = he * self.x0[:, None]
        start[:, 2] = self.z0
        directions = np.empty_like(start)
        directions[:, :2] = he * self.ux[:, None]
        directions[:, 2] = self.uz
        if self.as_ray.size:
            start[self.as_ray] = 0.0
            directions[self.as_ray] = d[self.ray[self.as_ray]]
        return _Placement(
            self,
            np.array(d),
            np.array(depth0),
            horizontal,
            start,
            directions,
        )


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
    directions: F  # (m, 3) unit

    def placed(self, o: F, box: tuple[F, F] | None) -> _Chords:
        """The entries in the world for rays from ``o`` ((1, 3) shared or (n, 3))."""
        f = self.frame
        shared = o.shape[0] == 1
        oe = o if shared else o[f.ray]
        origins = oe + self.start
        if box is None:
            return _Chords(origins, self.directions, f.length, f.ray, f.step)
        low, high = box
        lo, hi = (o[0], o[0]) if shared else (o.min(axis=0), o.max(axis=0))
        if (
            lo[0] - f.reach >= low[0]
            and lo[1] - f.reach >= low[1]
            and hi[0] + f.reach <= high[0]
            and hi[1] + f.reach <= high[1]
        ):  # the scene's box holds every chord: none to cull
            return _Chords(origins, self.directions, f.length, f.ray, f.step)
        # only chords whose box meets the scene's can hit (their depths already do)
        end = oe[:, :2] + self.horizontal[f.ray] * f.x1[:, None]
        start = origins[:, :2]
        meets = np.all(np.minimum(start, end) <= high[:2], axis=1)
        meets &= np.all(np.maximum(start, end) >= low[:2], axis=1)
        keep = np.flatnonzero(meets | ~f.chord)
        return _Chords(
            origins[keep], self.directions[keep], f.length[keep], f.ray[keep], f.step[keep], keep
        )


def _make_frame(
    profile: SoundSpeedProfile,
    sagitta: float,
    depth0: F,
    sine: F,
    depth_range: tuple[float, float] | None,
) -> _Frame:
    """Trace the rays and cut their arcs within ``depth_range`` (m, top, bottom) into chords."""
    wet = depth0 >= 0.0
    c_ref = profile.speed_at(np.maximum(depth0, 0.0))
    pcs = pieces(profile, np.maximum(depth0, 0.0), sine)
    valid = pcs.valid & wet[:, None]
    finite = valid & np.isfinite(pcs.dz)
    # Pieces straight on at the source's speed from the origin are one line: cast as the
    # ray itself (exactly the straight cast), one chord, however many rows they cross.
    collinear = ~valid | ((pcs.gamma == 0.0) & (pcs.c_in == c_ref[:, None]))
    prefix = np.cumprod(collinear, axis=1).astype(bool) & valid
    merged_rows = np.flatnonzero(np.any(prefix, axis=1))
    merged_len = np.sum(np.where(prefix, pcs.ds, 0.0), axis=1)[merged_rows]
    candidate = finite & ~prefix
    down2 = pcs.down[:, None]
    # each piece's vertical travel [u0, u1] within the scene's depths: an arc piece is
    # monotone in depth, so only that part of it can hit
    u0 = np.zeros_like(pcs.dz)
    u1 = np.where(finite, pcs.dz, 0.0)
    if depth_range is not None:
        top, bottom = depth_range
        with np.errstate(invalid='ignore'):
            u0 = np.maximum(u0, np.where(down2 > 0.0, top - pcs.z_in, pcs.z_in - bottom))
            u1 = np.minimum(u1, np.where(down2 > 0.0, bottom - pcs.z_in, pcs.z_in - top))
            candidate &= u0 <= u1
    ray, step = np.nonzero(candidate)
    ray, step = ray.astype(np.intp), step.astype(np.intp)
    pr = pcs.p[ray]
    c_in, s_in, gam = pcs.c_in[ray, step], pcs.s_in[ray, step], pcs.gamma[ray, step]
    ua, ub = u0[ray, step], u1[ray, step]
    _, s_a, _ = piece_offset(pr, c_in, s_in, gam, ua)
    _, s_b, _ = piece_offset(pr, c_in, s_in, gam, ub)
    theta_in = np.arctan2(s_in, pr * c_in)
    theta_a = np.arctan2(s_a, pr * (c_in + gam * ua))
    turn = theta_a - np.arctan2(s_b, pr * (c_in + gam * ub))
    pg = np.abs(pr * gam)
    with np.errstate(divide='ignore', invalid='ignore'):
        delta = np.sqrt(8.0 * sagitta * pg)  # chord angle of sagitta R delta^2 / 8
        count = np.where(pg > 0.0, np.ceil(np.abs(turn) / delta), 1.0)
    count = np.maximum(np.nan_to_num(count, nan=1.0), 1.0)
    total = float(count.sum())
    if total > MAX_CHORDS:
        msg = f'refraction: {total:.0f} chords exceed {MAX_CHORDS}; raise the sagitta'
        raise ValueError(msg)
    per = count.astype(np.intp)
    rc = np.repeat(ray, per)
    sc = np.repeat(step, per)
    starts = np.cumsum(per) - per
    q = (np.arange(int(per.sum())) - np.repeat(starts, per)).astype(np.float64)
    mc = np.repeat(per, per).astype(np.float64)
    th_in, th_a, th_turn = (np.repeat(v, per) for v in (theta_in, theta_a, turn))
    pc_, c1, s1, g = (np.repeat(v, per) for v in (pr, c_in, s_in, gam))
    uar, ubr = np.repeat(ua, per), np.repeat(ub, per)
    x_start = pcs.x_in[rc, sc]
    w_start = (pcs.z_in[rc, sc] - depth0[rc]) * pcs.down[rc]

    def vertex(qq: F) -> tuple[F, F]:
        frac = qq / mc
        theta = th_a - frac * th_turn
        with np.errstate(divide='ignore', invalid='ignore'):
            arc = 2.0 * np.sin((th_in + theta) / 2.0) * np.sin((th_in - theta) / 2.0) / (pc_ * g)
        u = np.where((pc_ * g != 0.0) & (mc > 1.0), arc, uar + frac * (ubr - uar))
        u = np.where(qq >= mc, ubr, np.where(qq <= 0.0, uar, np.clip(u, uar, ubr)))
        _, _, dx = piece_offset(pc_, c1, s1, g, u)
        return x_start + dx, w_start + u

    x0, w0 = vertex(q)
    x1, w1 = vertex(q + 1.0)
    lengths = np.hypot(x1 - x0, w1 - w0)
    keep = lengths > 0.0
    x0, w0, x1, w1, lengths = (v[keep] for v in (x0, w0, x1, w1, lengths))
    rc, sc = rc[keep], sc[keep]
    ux, uw = (x1 - x0) / lengths, (w1 - w0) / lengths
    # open ends: straight on below the last row (or level rays, or dry rays: unbent)
    has_open = valid & ~np.isfinite(pcs.dz) & ~prefix
    if depth_range is not None:  # an open end starting beyond the scene's depths misses it
        with np.errstate(invalid='ignore'):
            has_open &= np.where(
                down2 > 0.0, pcs.z_in <= depth_range[1], pcs.z_in >= depth_range[0]
            )
    open_rows = np.flatnonzero(
        np.any(has_open, axis=1) | (pcs.open_end & wet & ~pcs.valid.any(axis=1)) | ~wet
    )
    j_open = np.argmax(has_open, axis=1)[open_rows]
    bent_open = np.any(has_open, axis=1)[open_rows]
    jo = np.where(bent_open, j_open, 0)
    x_open = np.where(bent_open, pcs.x_in[open_rows, jo], 0.0)
    w_open = np.where(
        bent_open, (pcs.z_in[open_rows, jo] - depth0[open_rows]) * pcs.down[open_rows], 0.0
    )
    cth = pcs.p[open_rows] * pcs.c_in[open_rows, jo]
    s_open = pcs.s_in[open_rows, jo]
    norm = np.hypot(cth, s_open)
    # an open end from the source itself (or an unbent ray) is the ray: exactly its cast
    open_as_ray = ~bent_open | (pcs.t_in[open_rows, jo] == 0.0)
    with np.errstate(divide='ignore', invalid='ignore'):
        ux_open = np.where(open_as_ray, 0.0, cth / norm)
        uw_open = np.where(open_as_ray, 0.0, s_open / norm)
    m_merged, m_chord, m_open = merged_rows.size, rc.size, open_rows.size
    zeros_m = np.zeros(m_merged)
    all_ray = np.concatenate((merged_rows, rc, open_rows)).astype(np.intp)
    order = np.argsort(all_ray, kind='stable')  # path order per ray: start, chords, open end

    def cat(merged: NDArray[Any], chord: NDArray[Any], open_end: NDArray[Any]) -> NDArray[Any]:
        return np.concatenate((merged, chord, open_end))[order]

    as_ray = cat(np.ones(m_merged, bool), np.zeros(m_chord, bool), open_as_ray)
    ray_e = all_ray[order]
    step_e = cat(np.full(m_merged, -1), sc, np.where(bent_open, j_open, -1)).astype(np.intp)
    x0_e, w0_e = cat(zeros_m, x0, x_open), cat(zeros_m, w0, w_open)
    ux_e, uw_e = cat(zeros_m, ux, ux_open), cat(zeros_m, uw, uw_open)
    # each entry's piece (a straight start's: any, unused), its start in plane coordinates
    re, je = ray_e, np.maximum(step_e, 0)
    z_in = pcs.z_in[re, je]
    entries = np.stack(
        [
            x0_e - pcs.x_in[re, je],
            w0_e - (z_in - depth0[re]) * pcs.down[re],
            ux_e,
            uw_e,
            pcs.p[re],
            pcs.down[re],
            pcs.c_in[re, je],
            pcs.s_in[re, je],
            pcs.gamma[re, je],
            pcs.dz[re, je],
            pcs.t_in[re, je],
            pcs.s_path_in[re, je],
        ],
        axis=1,
    )
    return _Frame(
        profile=profile,
        sagitta=sagitta,
        depth0=np.array(depth0),
        sine=np.array(sine),
        depth_range=depth_range,
        pcs=pcs,
        c_ref=c_ref,
        entries=entries,
        reach=float(np.max(np.abs(np.concatenate((x0, x1))), initial=0.0)),
        ray=ray_e,
        step=step_e,
        as_ray=np.flatnonzero(as_ray),
        chord=cat(np.zeros(m_merged, bool), np.ones(m_chord, bool), np.zeros(m_open, bool)),
        x0=x0_e,
        z0=-pcs.down[ray_e] * w0_e,
        x1=cat(zeros_m, x1, x_open),
        ux=ux_e,
        uz=-pcs.down[ray_e] * uw_e,
        length=cat(merged_len, lengths, np.full(m_open, np.inf)),
    )


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
