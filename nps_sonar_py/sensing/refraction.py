"""Casting along bent rays: a :class:`SurfaceCaster` that refracts through a sound-speed profile.

:class:`RefractingCaster` wraps any caster (the scene's raycaster). Each ray is traced through
the profile (``echo.ray_trace``: circular arcs in layers of constant gradient); each arc is cut
into chords whose sagitta is at most ``sagitta`` metres, and all chords of all rays go to the
inner caster in one cast. A chord's hit counts if it lies within the chord; each ray takes its
first. The hit is then put back on the arc: its travel time and path length are the arc's
closed forms at the hit's depth, so a horizontal surface is met exactly, whatever the chords.

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

from nps_sonar_py.echo.ray_trace import Pieces, piece_step, pieces
from nps_sonar_py.echo.sound_speed import SoundSpeedProfile
from nps_sonar_py.sensing.caster import SurfaceCaster

__all__ = ['DEFAULT_SAGITTA', 'PlacedScene', 'RefractedHits', 'RefractingCaster', 'scene_bounds']

F = NDArray[np.float64]

#: Largest distance (m) between an arc and the chord cast for it.
DEFAULT_SAGITTA = 1e-3
#: Most chords one cast may hold (a bound on memory; more is refused).
MAX_CHORDS = 20_000_000


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
    entity's current pose (moving entities included), a box that holds the entity.
    """
    corners = []
    for entity in scene.world.entities:
        v = np.asarray(entity.surface.vertices, dtype=np.float64)
        lo, hi = (v.min(axis=0), v.max(axis=0)) if v.size else (np.zeros(3), np.zeros(3))
        corners.append(
            np.array(
                [[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
            )
        )
    names = tuple(scene.entity_names)

    def bounds() -> tuple[F, F]:
        if not names:
            return np.full(3, np.inf), np.full(3, -np.inf)
        placed = np.concatenate(
            [
                c @ pose[:3, :3].T + pose[:3, 3]
                for c, pose in zip(corners, (scene.entity_pose(n) for n in names), strict=True)
            ]
        )
        return placed.min(axis=0), placed.max(axis=0)

    return bounds


@dataclass(frozen=True, eq=False)
class RefractedHits:
    """The first surface each bent ray meets (a ``SurfaceHits``), with its travel time.

    Attributes:
        ranges: (n,) equivalent range ``c_ref * travel_time``, m; inf on a miss.
        cos_incidence: (n,) ``|cos|`` between the arriving ray and the surface normal (the
            arc's tangent where the inner hits give normals, else the chord's); 0 on a miss.
        reflectivity, retro, entity: (n,) as the inner caster reports them (nan, nan, -1 on a
            miss; ``entity`` only if the inner hits have it).
        travel_time: (n,) one-way time along the path, s; inf on a miss.
        path_length: (n,) length of the bent path, m; inf on a miss.
        reference_speed: (n,) ``c_ref``, the sound speed at each ray's origin, m/s.

    """

    ranges: F
    cos_incidence: F
    reflectivity: F
    retro: F
    entity: NDArray[np.int64]
    travel_time: F
    path_length: F
    reference_speed: F

    def __len__(self) -> int:
        return int(self.ranges.shape[0])

    @property
    def hit(self) -> NDArray[np.bool_]:
        """(n,) whether each ray met a surface."""
        return np.isfinite(self.ranges)


@dataclass(frozen=True, eq=False)
class _Chords:
    """The chords of one cast: world start points, unit directions, lengths, and what they cut."""

    origins: F
    directions: F
    lengths: F
    ray: NDArray[np.intp]
    step: NDArray[np.intp]  # piece (layer in travel order) of the chord; -1: straight, unbent


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

    def cast(self, origins: ArrayLike, directions: ArrayLike) -> RefractedHits:
        """Cast bent rays from world ``origins`` ((n, 3) or (3,)) along unit ``directions``."""
        d = np.asarray(directions, dtype=np.float64).reshape(-1, 3)
        o = np.broadcast_to(np.asarray(origins, dtype=np.float64).reshape(-1, 3), d.shape)
        n = d.shape[0]
        depth0 = self.surface_z - o[:, 2]
        wet = depth0 >= 0.0
        c_ref = self.profile.speed_at(np.maximum(depth0, 0.0))
        chords, pcs, horizontal = self._chords(o, d, depth0, wet, c_ref)
        self.last_chord_count = int(chords.lengths.size)
        inner = self.caster.cast(chords.origins, chords.directions)
        t = np.asarray(inner.ranges, dtype=np.float64)
        accepted = np.flatnonzero((t <= chords.lengths) & np.isfinite(t))
        rays, first = np.unique(chords.ray[accepted], return_index=True)
        k = accepted[first]  # the first accepted chord of each ray that hit
        ranges = np.full(n, np.inf)
        time = np.full(n, np.inf)
        length = np.full(n, np.inf)
        cos = np.zeros(n)
        step = chords.step[k]
        tk = t[k]
        straight = step < 0
        # straight, unbent rays (above the surface, level in constant speed): the inner hit
        rs = rays[straight]
        ranges[rs] = tk[straight]
        time[rs] = tk[straight] / c_ref[rs]
        length[rs] = tk[straight]
        cos[rs] = np.asarray(inner.cos_incidence, dtype=np.float64)[k[straight]]
        # bent rays: back on the arc at the hit's depth
        bent = ~straight
        rb, jb, kb = rays[bent], step[bent], k[bent]
        if rb.size:
            hit_point = chords.origins[kb] + chords.directions[kb] * tk[bent, None]
            z_hit = self.surface_z - hit_point[:, 2]
            p = pcs.p[rb]
            c1, s1, g = pcs.c_in[rb, jb], pcs.s_in[rb, jb], pcs.gamma[rb, jb]
            dz_piece = pcs.dz[rb, jb]
            down = pcs.down[rb]
            w_hit = (z_hit - pcs.z_in[rb, jb]) * down  # vertical travel from the piece's start
            # The hit moved onto the arc: where the arc meets the surface's plane at the hit
            # (the inner hits' normal), by Newton steps on the depth from the chord's hit; exact
            # for any plane, a horizontal seabed in no step. Piece coordinates: start (0, 0),
            # offset x along the ray's horizontal, w down along its travel.
            along = np.clip(w_hit, 0.0, dz_piece)
            normals = getattr(inner, 'normals', None)
            if normals is not None:
                nrm = np.asarray(normals, dtype=np.float64)[kb]
                a = np.einsum('ij,ij->i', nrm[:, :2], horizontal[rb])
                b = -down * nrm[:, 2]
                offset = np.einsum('ij,ij->i', hit_point[:, :2] - o[rb, :2], horizontal[rb])
                x_hit = offset - pcs.x_in[rb, jb]
                bend = (g != 0.0) & (a != 0.0)
                for _ in range(4):
                    c_w, s_w, x_w, _, _ = piece_step(p, c1, s1, g, along)
                    f = a * (x_w - x_hit) + b * (along - w_hit)
                    with np.errstate(divide='ignore', invalid='ignore'):
                        slope = a * p * c_w / s_w + b
                        step = np.where(bend & np.isfinite(slope) & (slope != 0.0), f / slope, 0.0)
                    along = np.clip(along - np.nan_to_num(step), 0.0, dz_piece)
            flat = g == 0.0
            c2, s2, _, dt, ds = piece_step(p, c1, s1, g, np.where(flat, 0.0, along))
            # a straight piece is one chord from its start: the distance along it is the hit's
            dist = tk[bent]
            dt = np.where(flat, dist / c1, dt)
            ds = np.where(flat, dist, ds)
            s2 = np.where(flat, s1, s2)
            c2 = np.where(flat, c1, c2)
            t_in = pcs.t_in[rb, jb]
            time[rb] = t_in + dt
            length[rb] = pcs.s_path_in[rb, jb] + ds
            # equivalent range: the first straight piece from the source keeps the cast's range
            ranges[rb] = np.where(
                flat & (t_in == 0.0),
                (c_ref[rb] / c1) * dist,
                c_ref[rb] * (t_in + dt),
            )
            if normals is not None:
                tangent = np.empty((rb.size, 3))
                tangent[:, :2] = horizontal[rb] * (p * c2)[:, None]
                tangent[:, 2] = -pcs.down[rb] * s2
                cos[rb] = np.abs(np.einsum('ij,ij->i', tangent, nrm))
            else:
                cos[rb] = np.asarray(inner.cos_incidence, dtype=np.float64)[kb]
        reflectivity = np.full(n, np.nan)
        retro = np.full(n, np.nan)
        entity = np.full(n, -1, dtype=np.int64)
        reflectivity[rays] = np.asarray(inner.reflectivity, dtype=np.float64)[k]
        retro[rays] = np.asarray(inner.retro, dtype=np.float64)[k]
        inner_entity = getattr(inner, 'entity', None)
        if inner_entity is not None:
            entity[rays] = np.asarray(inner_entity, dtype=np.int64)[k]
        return RefractedHits(ranges, cos, reflectivity, retro, entity, time, length, c_ref)

    def _chords(
        self, o: F, d: F, depth0: F, wet: NDArray[np.bool_], c_ref: F
    ) -> tuple[_Chords, Pieces, F]:
        """The chords of every ray, in path order per ray, and the rays' pieces."""
        hnorm = np.hypot(d[:, 0], d[:, 1])
        horizontal = np.where(
            (hnorm > 0.0)[:, None],
            d[:, :2] / np.where(hnorm > 0.0, hnorm, 1.0)[:, None],
            [1.0, 0.0],
        )
        sine = np.clip(-d[:, 2], -1.0, 1.0)
        pcs = pieces(self.profile, np.maximum(depth0, 0.0), sine)
        valid = pcs.valid & wet[:, None]
        finite = valid & np.isfinite(pcs.dz)
        # Pieces straight on at the source's speed from the origin are one line: cast as the
        # ray itself (exactly the straight cast), one chord, however many rows they cross.
        collinear = ~valid | ((pcs.gamma == 0.0) & (pcs.c_in == c_ref[:, None]))
        prefix = np.cumprod(collinear, axis=1).astype(bool) & valid
        merged_rows = np.flatnonzero(np.any(prefix, axis=1))
        merged_len = np.sum(np.where(prefix, pcs.ds, 0.0), axis=1)[merged_rows]
        candidate = finite & ~prefix
        if self.bounds is not None:
            # An arc piece is monotone in depth and in offset: the box of its two ends holds
            # it. Pieces whose box misses the scene's get no chords.
            low, high = self.bounds()
            w_in = (pcs.z_in - depth0[:, None]) * pcs.down[:, None]
            z_a = o[:, 2, None] - pcs.down[:, None] * w_in
            z_b = z_a - pcs.down[:, None] * np.where(finite, pcs.dz, 0.0)
            x_b = pcs.x_in + np.where(finite, pcs.dx, 0.0)
            candidate &= (np.minimum(z_a, z_b) <= high[2]) & (np.maximum(z_a, z_b) >= low[2])
            for axis in (0, 1):
                a = o[:, axis, None] + horizontal[:, axis, None] * pcs.x_in
                b = o[:, axis, None] + horizontal[:, axis, None] * x_b
                candidate &= (np.minimum(a, b) <= high[axis]) & (np.maximum(a, b) >= low[axis])
        ray, step = np.nonzero(candidate)
        ray, step = ray.astype(np.intp), step.astype(np.intp)
        pr = pcs.p[ray]
        theta_in = np.arctan2(pcs.s_in[ray, step], pr * pcs.c_in[ray, step])
        theta_out = np.arctan2(pcs.s_out[ray, step], pr * pcs.c_out[ray, step])
        turn = theta_in - theta_out
        pg = np.abs(pr * pcs.gamma[ray, step])
        with np.errstate(divide='ignore', invalid='ignore'):
            delta = np.sqrt(8.0 * self.sagitta * pg)  # chord angle of sagitta R delta^2 / 8
            count = np.where(pg > 0.0, np.ceil(np.abs(turn) / delta), 1.0)
        count = np.maximum(np.nan_to_num(count, nan=1.0), 1.0)
        total = float(count.sum())
        if total > MAX_CHORDS:
            msg = f'refraction: {total:.0f} chords exceed {MAX_CHORDS}; raise the sagitta'
            raise ValueError(msg)
        per = count.astype(np.intp)
        ray_c = np.repeat(ray, per)
        step_c = np.repeat(step, per)
        starts = np.cumsum(per) - per
        q = np.arange(int(per.sum())) - np.repeat(starts, per)
        mc = np.repeat(per, per).astype(np.float64)
        th_in, th_turn = np.repeat(theta_in, per), np.repeat(turn, per)
        rc, sc = ray_c, step_c
        pc_, c1, s1, g = pcs.p[rc], pcs.c_in[rc, sc], pcs.s_in[rc, sc], pcs.gamma[rc, sc]
        dzp = pcs.dz[rc, sc]

        def vertex(qq: F) -> tuple[F, F]:
            frac = qq / mc
            theta = th_in - frac * th_turn
            with np.errstate(divide='ignore', invalid='ignore'):
                arc = (
                    2.0 * np.sin((th_in + theta) / 2.0) * np.sin((th_in - theta) / 2.0) / (pc_ * g)
                )
            dz = np.where((pc_ * g != 0.0) & (mc > 1.0), arc, frac * dzp)
            dz = np.where(qq >= mc, dzp, np.clip(dz, 0.0, dzp))
            _, _, dx, _, _ = piece_step(pc_, c1, s1, g, dz)
            return pcs.x_in[rc, sc] + dx, (pcs.z_in[rc, sc] - depth0[rc]) * pcs.down[rc] + dz

        qf = q.astype(np.float64)
        x0, w0 = vertex(qf)
        x1, w1 = vertex(qf + 1.0)

        start = world_rows(o[rc], horizontal[rc], pcs.down[rc], x0, w0)
        end = world_rows(o[rc], horizontal[rc], pcs.down[rc], x1, w1)
        span = end - start
        lengths = np.sqrt(np.einsum('ij,ij->i', span, span))
        keep = lengths > 0.0
        if self.bounds is not None:  # only chords whose box meets the scene's can hit
            keep &= np.all(np.minimum(start, end) <= high, axis=1)
            keep &= np.all(np.maximum(start, end) >= low, axis=1)
        dirs = span[keep] / lengths[keep, None]
        start, lengths, rc, sc = start[keep], lengths[keep], rc[keep], sc[keep]
        # open ends: straight on below the last row (or level rays, or dry rays: unbent)
        has_open = valid & ~np.isfinite(pcs.dz) & ~prefix
        open_rows = np.flatnonzero(
            np.any(has_open, axis=1) | (pcs.open_end & wet & ~pcs.valid.any(axis=1)) | ~wet
        )
        j_open = np.argmax(has_open, axis=1)[open_rows]
        bent_open = np.any(has_open, axis=1)[open_rows]
        o_open = np.array(o[open_rows])
        d_open = np.array(d[open_rows])
        step_open = np.where(bent_open, j_open, -1).astype(np.intp)
        rb = open_rows[bent_open]
        jb = j_open[bent_open]
        not_first = pcs.t_in[rb, jb] > 0.0
        if np.any(not_first):
            rr, jj = rb[not_first], jb[not_first]
            w = (pcs.z_in[rr, jj] - depth0[rr]) * pcs.down[rr]
            sub = np.flatnonzero(bent_open)[not_first]
            o_open[sub] = world_rows(o[rr], horizontal[rr], pcs.down[rr], pcs.x_in[rr, jj], w)
            s = pcs.s_in[rr, jj]
            cth = pcs.p[rr] * pcs.c_in[rr, jj]
            d_open[sub, :2] = horizontal[rr] * cth[:, None]
            d_open[sub, 2] = -pcs.down[rr] * s
            d_open[sub] /= np.linalg.norm(d_open[sub], axis=1)[:, None]
        unbent = np.full(merged_rows.size, -1, dtype=np.intp)
        all_o = np.concatenate((o[merged_rows], start, o_open))
        all_d = np.concatenate((d[merged_rows], dirs, d_open))
        all_len = np.concatenate((merged_len, lengths, np.full(open_rows.size, np.inf)))
        all_ray = np.concatenate((merged_rows, rc, open_rows)).astype(np.intp)
        all_step = np.concatenate((unbent, sc, step_open)).astype(np.intp)
        # path order per ray: pieces by travel step, chords in order, the open end last
        order = np.argsort(all_ray, kind='stable')
        return (
            _Chords(all_o[order], all_d[order], all_len[order], all_ray[order], all_step[order]),
            pcs,
            horizontal,
        )


def world_rows(o: F, horizontal: F, down: F, x: F, w: F) -> F:
    """World points at offset ``x`` and vertical travel ``w`` from origins ``o``."""
    point = np.empty((x.size, 3))
    point[:, :2] = o[:, :2] + horizontal * x[:, None]
    point[:, 2] = o[:, 2] - down * w
    return point
