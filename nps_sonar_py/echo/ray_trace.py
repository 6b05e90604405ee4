"""Rays through a sound-speed profile: circular arcs in layers of constant gradient, travel time.

The ray of depression angle ``theta`` (below the horizontal; negative up) keeps Snell's
invariant ``p = cos(theta) / c`` along its path. In a layer where the speed is linear in depth,
``c = c1 + g (z - z1)``, the path is an arc of a circle of radius ``1 / |p g|``; where ``g = 0``
it is straight. Per layer the offsets, times and lengths have closed forms (``docs/refraction.md``,
from Medwin and Clay 1998 and MB-System's ``mb_rt``), written here in forms that stay exact as
``g`` goes to 0 and for vertical rays.

Conventions: depth ``z`` m positive down from the sea surface; the profile's first speed holds
above its first row, its last speed below its last row. A ray travels down (``theta > 0``) or
up (``theta < 0``); a horizontal ray goes where the speed decreases (straight on if it is
constant there). It ends when it reaches the surface (it leaves the water) or turns back
(total internal refraction: its speed reaches ``1 / p``), and goes on straight below the last
row. Vectorised over rays and layers: arrays of (rays, layers), no loop over rays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.echo.sound_speed import SoundSpeedProfile

__all__ = [
    'Pieces',
    'RayPaths',
    'piece_offset',
    'piece_step',
    'pieces',
    'sounding',
    'time_step',
    'trace',
]

F = NDArray[np.float64]

#: Sines of the depression below this are taken as 0: the ray is horizontal (and goes where
#: the speed falls), not a hair up or down and turning back at once.
LEVEL_SINE = 1e-12


def _log1p_ratio(x: F) -> F:
    """``log(1 + x) / x``, 1 at 0: ``log1p`` is exact to rounding near 0, only 0 / 0 is not."""
    zero = x == 0.0
    if not zero.any():
        return np.log1p(x) / x
    safe = np.where(zero, 1.0, x)
    return np.where(zero, 1.0, np.log1p(safe) / safe)


def _asin_ratio(y: F) -> F:
    """``asin(y) / y``, 1 at 0 (``arcsin`` is exact to rounding near 0), ``y`` within [-1, 1]."""
    y = np.minimum(np.maximum(y, -1.0), 1.0)
    zero = y == 0.0
    if not zero.any():
        return np.arcsin(y) / y
    safe = np.where(zero, 1.0, y)
    return np.where(zero, 1.0, np.arcsin(safe) / safe)


def _piece_ratio(p: F, c1: F, s1: F, gamma: F, dz: F) -> tuple[F, F, F]:
    """Speed and sine at ``dz`` along the piece, and ``(s1 - s2) / (p gamma dz)`` (0 if flat)."""
    gdz = gamma * dz
    c2 = c1 + gdz
    csum = c1 + c2
    s2 = np.sqrt(np.maximum(s1 * s1 - p * p * gdz * csum, 0.0))
    total = s1 + s2
    ratio = np.divide(p * csum, total, out=np.zeros(np.shape(total)), where=total > 0.0)
    return c2, s2, ratio


def piece_offset(p: F, c1: F, s1: F, gamma: F, dz: F) -> tuple[F, F, F]:
    """``(c2, s2, dx)`` of :func:`piece_step` alone: the cheap part, for iterations on depth."""
    c2, s2, ratio = _piece_ratio(p, c1, s1, gamma, dz)
    return c2, s2, ratio * dz


def piece_step(p: F, c1: F, s1: F, gamma: F, dz: F) -> tuple[F, F, F, F, F]:
    """One arc piece of vertical extent ``dz >= 0`` in the ray's direction of travel.

    In "travel" coordinates the depth counts along the ray's vertical direction and the
    gradient ``gamma`` is ``dc/dz`` along it (``g`` going down, ``-g`` going up); ``s1 >= 0``
    is the sine of the ray's angle from the horizontal at the start, speed ``c1``.

    Returns ``(c2, s2, dx, dt, ds)``: the speed and sine at the end, the horizontal offset,
    the travel time and the path length. The closed forms (``docs/refraction.md``)
    ``dx = (s1 - s2) / (p gamma)``, ``dt = ln[c2 (1 + s1) / (c1 (1 + s2))] / gamma`` and
    ``ds = (theta1 - theta2) / (p gamma)`` are rewritten without the cancellation of a small
    ``gamma``: ``s1 - s2 = p^2 gamma dz (c1 + c2) / (s1 + s2)``.
    """
    c2, s2, ratio = _piece_ratio(p, c1, s1, gamma, dz)
    dx = ratio * dz
    with np.errstate(divide='ignore', invalid='ignore'):
        gdz = gamma * dz
        pr = p * ratio
        bend = pr * dz / (1.0 + s2)  # (s1 - s2) / (gamma (1 + s2))
        dt = dz / c1 * _log1p_ratio(gdz / c1) + bend * _log1p_ratio(bend * gamma)
        k = c1 * pr + s1  # sin(theta1 - theta2) = p gamma dz k
        ds = dz * k * _asin_ratio(p * gdz * k)
    dz0 = dz == 0.0
    if not dz0.any():
        return c2, s2, dx, dt, ds
    return c2, s2, np.where(dz0, 0.0, dx), np.where(dz0, 0.0, dt), np.where(dz0, 0.0, ds)


def time_step(p: F, c1: F, s1: F, gamma: F, dt: F, dz_max: F) -> F:
    """The vertical extent ``dz`` (travel coordinates) a ray covers in ``dt`` from ``(c1, s1)``.

    The closed form inverts ``dt``: ``c / (1 + s) = c1 / (1 + s1) exp(gamma dt)``, so
    ``c = 2 A / (1 + p^2 A^2)`` with ``A`` that right-hand side; two Newton steps on the
    forward form (:func:`piece_step`, ``d t / d z = 1 / (c s)``) then make it exact to rounding.
    Capped at ``dz_max``.
    """
    with np.errstate(over='ignore', invalid='ignore', divide='ignore'):
        a = c1 / (1.0 + s1) * np.exp(gamma * dt)
        c = 2.0 * a / (1.0 + p * p * a * a)
        arc = (c - c1) / np.where(gamma == 0.0, 1.0, gamma)
        dz = np.where(np.abs(gamma * dt) < 1e-9, c1 * s1 * dt, arc)
    dz = np.clip(np.nan_to_num(dz, nan=0.0, posinf=0.0), 0.0, dz_max)
    for _ in range(3):
        c2, s2, _, t, _ = piece_step(p, c1, s1, gamma, dz)
        dz = np.clip(dz - (t - dt) * c2 * s2, 0.0, dz_max)
    return np.asarray(dz, dtype=np.float64)


@dataclass(frozen=True, eq=False)
class Pieces:
    """Each ray's path as pieces, one per layer in the order the ray crosses them.

    Arrays ``(n, L)`` (rays, layers in travel order) unless said; a piece that is not on the
    ray's path has ``valid`` false and zero extent.

    Attributes:
        p: (n,) Snell's invariant ``cos(theta) / c``, s/m.
        down: (n,) +1 for a ray travelling down, -1 up.
        z_in: depth where the piece starts, m.
        c_in, s_in: speed and ``|sin theta|`` there.
        c_out, s_out: speed and ``|sin theta|`` at the piece's end (finite pieces).
        gamma: ``dc/dz`` along the ray's vertical direction of travel, 1/s.
        dz: vertical extent (inf for the open straight end below the last row).
        dx, dt, ds: horizontal offset, one-way time, path length of the piece.
        x_in, t_in, s_path_in: offset, time and length at the piece's start.
        valid: the piece is on the path.
        turned: (n,) the ray turned back (its last valid piece ends at the turning depth).
        surfaced: (n,) the ray reached the sea surface (its last piece ends there).
        open_end: (n,) the ray's last piece is straight and unbounded.

    """

    p: F
    down: F
    z_in: F
    c_in: F
    s_in: F
    c_out: F
    s_out: F
    gamma: F
    dz: F
    dx: F
    dt: F
    ds: F
    x_in: F
    t_in: F
    s_path_in: F
    valid: NDArray[np.bool_]
    turned: NDArray[np.bool_]
    surfaced: NDArray[np.bool_]
    open_end: NDArray[np.bool_]


def _before(values: F) -> F:
    """(n, L) sums of the pieces before each piece (exact: no inf - inf of the open end)."""
    out = np.zeros_like(values)
    np.cumsum(values[:, :-1], axis=1, out=out[:, 1:])
    return out


_LAYERS: dict[int, tuple[SoundSpeedProfile, tuple[F, F, F, F]]] = {}


def _layers(profile: SoundSpeedProfile) -> tuple[F, F, F, F]:
    """:func:`_layer_table` of ``profile``, made once per profile (kept while it lives)."""
    known = _LAYERS.get(id(profile))
    if known is not None and known[0] is profile:
        return known[1]
    table = _layer_table(profile)
    if len(_LAYERS) > 64:
        _LAYERS.clear()
    _LAYERS[id(profile)] = (profile, table)
    return table


def _layer_table(profile: SoundSpeedProfile) -> tuple[F, F, F, F]:
    """Tops, bottoms, speeds at the tops and gradients of the k + 1 layers of a k-row profile.

    Layer 0 runs from the surface to the first row (the first speed, zero thickness if the
    table starts at 0), the last from the last row down without end (the last speed).
    """
    d, c = profile.depths, profile.speeds
    tops = np.concatenate(([0.0], d))
    bottoms = np.concatenate((d, [np.inf]))
    speeds = np.concatenate((c[:1], c))
    gradients = np.concatenate(([0.0], np.diff(c) / np.diff(d), [0.0]))
    return tops, bottoms, speeds, gradients


def pieces(profile: SoundSpeedProfile, source_depth: ArrayLike, sine: ArrayLike) -> Pieces:
    """The pieces of rays from ``source_depth`` (n,) m >= 0 at ``sine`` (n,) = sin(depression)."""
    z0 = np.asarray(source_depth, dtype=np.float64).reshape(-1)
    s0 = np.asarray(sine, dtype=np.float64).reshape(-1)
    # a direction within rounding of the horizontal (a rotation's 6e-17) is horizontal
    s0 = np.where(np.abs(s0) < LEVEL_SINE, 0.0, s0)
    z0 = np.broadcast_to(z0, s0.shape)
    tops, bottoms, speeds, gradients = _layers(profile)
    n_layers = tops.size
    c0 = profile.speed_at(z0)
    p = np.sqrt(np.maximum(1.0 - s0 * s0, 0.0)) / c0
    source_layer = np.searchsorted(profile.depths, z0, side='right')
    g0 = gradients[source_layer]
    down_ray = (s0 > 0.0) | ((s0 == 0.0) & (g0 <= 0.0))
    level = (s0 == 0.0) & (g0 == 0.0)  # horizontal where the speed is constant: straight on
    down = np.where(down_ray, 1.0, -1.0)
    steps = np.arange(n_layers)
    layer = np.where(down_ray[:, None], steps, n_layers - 1 - steps)
    top, bottom, c_top, g = tops[layer], bottoms[layer], speeds[layer], gradients[layer]
    zc = z0[:, None]
    z_in = np.where(down_ray[:, None], np.maximum(top, zc), np.minimum(bottom, zc))
    z_out = np.where(down_ray[:, None], bottom, top)
    valid = np.where(down_ray[:, None], bottom > zc, top < zc) & ~level[:, None]
    gamma = g * down[:, None]
    c_in = c_top + g * np.where(np.isfinite(z_in), z_in - top, 0.0)
    c0c = c0[:, None]
    pc = p[:, None]
    s_in = np.sqrt(np.maximum(s0[:, None] ** 2 - pc * pc * (c_in - c0c) * (c_in + c0c), 0.0))
    dz = np.abs(z_out - z_in)
    finite = np.isfinite(dz)
    dz_f = np.where(finite & valid, dz, 0.0)
    # Turning: the speed reaches 1 / p within the piece (only where it grows along the ray).
    s_out_sq = s_in * s_in - pc * pc * gamma * dz_f * (2.0 * c_in + gamma * dz_f)
    turn = valid & finite & (gamma > 0.0) & (s_out_sq <= 0.0) & (pc > 0.0)
    earlier = (np.cumsum(turn, axis=1) - turn) > 0
    valid &= ~earlier
    turn &= valid
    with np.errstate(divide='ignore', invalid='ignore'):
        dz_turn = s_in * s_in / (pc * (1.0 + pc * c_in) * gamma)
    dz = np.where(turn, np.minimum(dz_turn, dz_f), np.where(valid, dz, 0.0))
    dz_f = np.where(np.isfinite(dz), dz, 0.0)
    pb = np.broadcast_to(pc, dz.shape)
    c_out, s_out, dx, dt, ds = piece_step(pb, c_in, s_in, gamma, dz_f)
    dx, dt, ds = (np.where(valid, v, 0.0) for v in (dx, dt, ds))
    open_last = valid & ~np.isfinite(dz)
    # the open straight end below the last row: unbounded time, length and (unless vertical) offset
    dt = np.where(open_last, np.inf, dt)
    ds = np.where(open_last, np.inf, ds)
    dx = np.where(open_last & (pb > 0.0), np.inf, dx)
    turned = np.any(turn, axis=1)
    return Pieces(
        p=p,
        down=down,
        z_in=np.where(valid, z_in, np.nan),
        c_in=c_in,
        s_in=s_in,
        c_out=c_out,
        s_out=s_out,
        gamma=gamma,
        dz=dz,
        dx=dx,
        dt=dt,
        ds=ds,
        x_in=_before(dx),
        t_in=_before(dt),
        s_path_in=_before(ds),
        valid=valid,
        turned=turned,
        surfaced=~down_ray & ~turned & ~level,
        open_end=np.any(open_last, axis=1) | level,
    )


@dataclass(frozen=True, eq=False)
class RayPaths:
    """Where each ray is at the end of its trace (``trace``), and how it got there.

    Attributes:
        depth, offset: (n,) m below the surface and horizontally from the source; nan for a
            ray that ended (turned or surfaced) before the requested depth or time.
        time: (n,) one-way travel time, s; path_length: (n,) m.
        sine: (n,) sine of the depression angle there (negative going up).
        reached: (n,) whether the ray reached the requested depth or time.
        turned, surfaced: (n,) how a ray ended.
        pieces: the per-layer pieces of every ray's whole path.

    """

    depth: F
    offset: F
    time: F
    path_length: F
    sine: F
    reached: NDArray[np.bool_]
    turned: NDArray[np.bool_]
    surfaced: NDArray[np.bool_]
    pieces: Pieces


def _rows(values: ArrayLike, n: int, name: str) -> F:
    a = np.asarray(values, dtype=np.float64).reshape(-1)
    if a.size == 1:
        a = np.full(n, a[0])
    if a.size != n:
        msg = f'{name}: expected {n} values, got {a.size}'
        raise ValueError(msg)
    return a


def trace(
    profile: SoundSpeedProfile,
    source_depth: ArrayLike,
    depression: ArrayLike,
    *,
    until_depth: ArrayLike | None = None,
    until_time: ArrayLike | None = None,
) -> RayPaths:
    """Trace rays from ``source_depth`` (m) at ``depression`` (n,) rad below the horizontal.

    Exactly one of ``until_depth`` (m, the depth where each ray's trace stops: below the
    source for a down-going ray) or ``until_time`` (one-way s) says where the trace ends.
    """
    theta = np.asarray(depression, dtype=np.float64).reshape(-1)
    n = theta.size
    z0 = _rows(source_depth, n, 'source_depth')
    if (until_depth is None) == (until_time is None):
        msg = 'trace: give exactly one of until_depth and until_time'
        raise ValueError(msg)
    if np.any(~np.isfinite(z0)) or np.any(z0 < 0.0) or np.any(~np.isfinite(theta)):
        msg = 'trace: source depths must be finite and >= 0, depressions finite'
        raise ValueError(msg)
    pcs = pieces(profile, z0, np.sin(theta))
    with np.errstate(invalid='ignore', over='ignore'):  # non-finite targets: not reached, nan
        return _traced(profile, pcs, z0, until_depth, until_time)


def _traced(
    profile: SoundSpeedProfile,
    pcs: Pieces,
    z0: F,
    until_depth: ArrayLike | None,
    until_time: ArrayLike | None,
) -> RayPaths:
    """The end of each ray's trace in ``pcs`` at ``until_depth`` or ``until_time``."""
    n = z0.size
    rows = np.arange(n)
    if until_time is not None:
        target = _rows(until_time, n, 'until_time')
        end_t = pcs.t_in + pcs.dt
        inside = pcs.valid & (pcs.t_in <= target[:, None]) & (target[:, None] <= end_t)
    else:
        assert until_depth is not None
        target = _rows(until_depth, n, 'until_depth')
        along = (target[:, None] - pcs.z_in) * pcs.down[:, None]
        inside = pcs.valid & (along >= 0.0) & (along <= pcs.dz)
    reached = np.any(inside, axis=1)
    j = np.argmax(inside, axis=1)
    p, c1, s1, g = pcs.p, pcs.c_in[rows, j], pcs.s_in[rows, j], pcs.gamma[rows, j]
    dz_piece = pcs.dz[rows, j]
    if until_time is not None:
        dz = time_step(p, c1, s1, g, target - pcs.t_in[rows, j], dz_piece)
    else:
        dz = np.minimum((target - pcs.z_in[rows, j]) * pcs.down, dz_piece)
        dz = np.where(reached, dz, 0.0)
    _, s2, dx, dt, ds = piece_step(p, c1, s1, g, np.where(reached, dz, 0.0))
    level = pcs.open_end & ~np.any(pcs.valid, axis=1)
    if np.any(level):  # horizontal rays in constant speed: straight on at the source depth
        c = profile.speed_at(z0)
        if until_time is not None:
            tt = np.where(level, target, 0.0)
            dx = np.where(level, c * tt, dx)
            dt = np.where(level, tt, dt)
            ds = np.where(level, c * tt, ds)
            reached = reached | level
    z_start = np.where(np.any(pcs.valid, axis=1), pcs.z_in[rows, j], z0)
    nan = np.where(reached, 0.0, np.nan)
    return RayPaths(
        depth=z_start + pcs.down * dz + nan,
        offset=pcs.x_in[rows, j] + dx + nan,
        time=pcs.t_in[rows, j] + dt + nan,
        path_length=pcs.s_path_in[rows, j] + ds + nan,
        sine=s2 * pcs.down + nan,
        reached=reached,
        turned=pcs.turned,
        surfaced=pcs.surfaced,
        pieces=pcs,
    )


def sounding(
    profile: SoundSpeedProfile,
    source_depth: ArrayLike,
    depression: ArrayLike,
    two_way_time: ArrayLike,
) -> tuple[F, F]:
    """The processing inverse: depth (m) and horizontal offset (m) of each echo.

    From the transducer's depth, each beam's depression angle (rad below the horizontal) and
    its two-way travel time (s): the point on the ray where the one-way time is half of it.
    nan where the ray ends (turns back or leaves the water) before.
    """
    t = np.asarray(two_way_time, dtype=np.float64).reshape(-1) / 2.0
    paths = trace(profile, source_depth, depression, until_time=t)
    return paths.depth, paths.offset
