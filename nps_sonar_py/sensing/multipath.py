"""Multipath: ghost echoes by specular bounces off the sea surface and the scene (off by default).

The model (``docs/multipath.md``): a path leaves the sensor along a cast ray, is mirrored
(specular) at up to ``max_bounces`` points, each the sea surface (a horizontal plane at world
``z = sea_surface_z``, pressure-release: ``|R|**2 = 1`` less ``surface_loss_db``) or a scene
surface (``|R|**2 = RayHits.mirror_gain``: its Lambert coefficient ``mu``, as
``Scattering.SPECULAR`` reads it, or a seabed's Rayleigh reflection), is
scattered (Lambert) at the scene point ``B`` it then meets, and returns to the sensor either
straight, if ``B`` sees the sensor, or by one more mirror off the sea surface (the image of
the sensor in the plane), if both legs are clear and a bounce is left. The echo arrives at
half the path's length, heard with the receive pattern of the direction it arrives from,
in the beam that direction belongs to, with Lambert's bistatic ``mu cos(theta_s)`` at ``B``
and ``1 / L_back**2`` spreading (``L_back`` the return leg): ``gain = prod |R|**2 * (R_eq /
L_back)**2 * ratio`` of :class:`echo.ExtraReturns`, where the echo model applies its law at
``R_eq``. For the symmetric path (out and back by the same mirrors) ``L_back = R_eq`` and the
ratio is 1: the image-source echo. A path whose reverse is not traced (its reverse returns
via a scene surface) counts its reverse too: same length and, by reciprocity, same level.

With multipath on, the sea surface also ends the direct rays: a ray that meets it before the
scene has no direct echo (:func:`multipath_returns` returns the direct ranges so cut).

Casts: one of the reflected rays per bounce (only rays whose event is inside the window and
can reflect) and one combined visibility cast for every return leg; the sea surface is a
plane, intersected analytically.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo import EchoConfig, ExtraReturns, Scattering, beam_intensity
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.sensing.caster import RayHits, SurfaceCaster

__all__ = [
    'MAX_BOUNCES',
    'THROUGH_A_PROFILE',
    'Hearing',
    'MultipathConfig',
    'cone_hearing',
    'multipath_problem',
    'multipath_returns',
]

#: Most specular bounces of a path.
MAX_BOUNCES = 2
#: Why multipath and a sound-speed profile are not combined (``docs/multipath.md``).
THROUGH_A_PROFILE = (
    'max_bounces > 0 cannot be combined with a sound-speed profile (sound_speed_profile_file '
    'or sound_speed_profile): ghosts along bent rays are not modelled; set max_bounces to 0 '
    'or give no profile'
)

#: How a sonar hears a return: given the flat index of the ray whose energy it carries and the
#: (m, 3) world unit direction it arrives from (from the sensor towards the last point of the
#: path), the beam it is heard in and the one-way receive pattern ``B`` there, 0 outside the
#: beam's cast (``docs/multipath.md``).
Hearing = Callable[
    [NDArray[np.intp], NDArray[np.float64]], tuple[NDArray[np.intp], NDArray[np.float64]]
]

_UP = 2  # the z column
#: Paths mirrored at a time: the slice's temporaries stay in the core's cache (L2).
_SLICE = 8192
_T = TypeVar('_T', bound=np.generic)
#: ``|cos|`` between a mirrored ray and the surface it meets below which it is grazing (3 deg).
_GRAZING = math.sin(math.radians(3.0))


@dataclass(frozen=True)
class MultipathConfig:
    """Multipath settings, validated on creation (``ConfigurationError``, one line).

    Attributes:
        max_bounces: specular bounces of a path, 0 (off), 1 or 2.
        sea_surface_z: world z of the sea surface, m, finite.
        surface_loss_db: intensity loss per sea-surface bounce (roughness), dB, >= 0.
    """

    max_bounces: int = 0
    sea_surface_z: float = 0.0
    surface_loss_db: float = 0.0

    def __post_init__(self) -> None:
        bounces = self.max_bounces
        if not (isinstance(bounces, int) and not isinstance(bounces, bool)) or not (
            0 <= bounces <= MAX_BOUNCES
        ):
            msg = f'max_bounces must be 0, 1 or {MAX_BOUNCES}, got {bounces!r}'
            raise ConfigurationError(msg)
        if not math.isfinite(self.sea_surface_z):
            msg = f'sea_surface_z must be a finite height in metres, got {self.sea_surface_z!r}'
            raise ConfigurationError(msg)
        loss = self.surface_loss_db
        if not (math.isfinite(loss) and loss >= 0.0):
            msg = f'surface_loss_db must be a finite loss >= 0 dB, got {loss!r}'
            raise ConfigurationError(msg)

    @property
    def enabled(self) -> bool:
        """Whether any path bounces."""
        return self.max_bounces > 0

    @property
    def surface_gain(self) -> float:
        """``|R|**2`` of one sea-surface bounce: 1 less the roughness loss."""
        return float(10.0 ** (-self.surface_loss_db / 10.0))


def multipath_problem(echo: EchoConfig, multipath: MultipathConfig) -> str | None:
    """Why this echo model cannot have these multipath settings, or ``None``."""
    if multipath.enabled and echo.scattering is not Scattering.LAMBERT:
        return 'max_bounces > 0 needs scattering lambert (the ghosts scatter diffusely)'
    return None


@dataclass(frozen=True, eq=False)
class _Paths:
    """Paths under way: the ray each carries, where it is, where it goes, length, gain."""

    ray: NDArray[np.intp]
    point: NDArray[np.float64]
    direction: NDArray[np.float64]
    length: NDArray[np.float64]
    gain: NDArray[np.float64]
    scene: NDArray[np.bool_]  # whether a scene surface mirrored it
    block: NDArray[np.float32] | None = None  # point and direction as a ray block, once made


@dataclass(frozen=True, eq=False)
class _Scatter:
    """Paths at their scatterer ``B``: the incoming direction, normal, mu, entity there."""

    paths: _Paths
    normal: NDArray[np.floating]
    mu: NDArray[np.float64]
    entity: NDArray[np.int64]


def multipath_returns(
    caster: SurfaceCaster,
    origins: NDArray[np.float64],
    directions: NDArray[np.float64],
    hits: RayHits,
    config: MultipathConfig,
    *,
    hear: Hearing,
    ray_pattern: NDArray[np.float64],
    rays_per_beam: int,
    n_way: int,
    max_range: float,
    ghost_rays: int | None = None,
) -> tuple[NDArray[np.floating], ExtraReturns]:
    """The direct ranges cut at the sea surface and the multipath returns of one cast.

    Args:
        caster: the scene.
        origins: (3,) sensor origin shared by every ray, or (n, 3) one per ray.
        directions: (n, 3) world unit directions of the cast rays.
        hits: their first hits (with ``normals`` and ``entity``, as ``scene.RayHits``).
        config: the multipath settings (enabled).
        hear: how the sonar hears a return (:data:`Hearing`).
        ray_pattern: (n,) one-way pattern ``B`` of each ray's own direction in its own beam.
        rays_per_beam: rays of one beam: ray ``i`` is pattern ray ``i % rays_per_beam``.
        n_way: the echo model's ``n_way``: the receive pattern is ``B**(n_way - 1)``.
        max_range: far end of the window, m: paths longer than twice it are not followed.
        ghost_rays: only the first ``ghost_rays`` rays (the beams' own) start paths; the rest
            (an echosounder's axis rays) are only cut at the sea surface. ``None``: all.

    Returns:
        ``(ranges, extra)``: (n,) direct ranges, ``inf`` where the ray meets the sea surface
        first, in the hits' dtype; the returns for ``EchoModel.echoes(extra=)``.

    Raises:
        ConfigurationError: bent hits (``hits.bending``): :data:`THROUGH_A_PROFILE`.
    """
    if hits.bending is not None:
        raise ConfigurationError(THROUGH_A_PROFILE)
    unit_directions = np.asarray(directions, dtype=np.float64)
    origin_rows = np.asarray(origins, dtype=np.float64).reshape(-1, 3)
    ray_origins = np.broadcast_to(
        origin_rows, unit_directions.shape
    )  # a shared origin: one row, read as such (_mirror)
    ranges, up, t_up = _cut_at_the_surface(
        ray_origins, origin_rows, unit_directions, np.asarray(hits.ranges), config
    )
    sources = unit_directions.shape[0] if ghost_rays is None else ghost_rays
    paths = _first_mirrors(
        ray_origins, unit_directions, hits, ranges, (up, t_up), config, max_range, sources
    )
    scatters: list[tuple[_Scatter, int]] = []
    for bounce in range(1, config.max_bounces + 1):
        scatter, mirrored = _advance(
            caster, paths, config, max_range, again=bounce < config.max_bounces
        )
        scatters.append((scatter, bounce))
        if mirrored is None:
            break
        paths = mirrored
    return ranges, _returns(
        caster, ray_origins, scatters, config, hear, ray_pattern, rays_per_beam, n_way
    )


def _cut_at_the_surface(
    ray_origins: NDArray[np.float64],
    origin_rows: NDArray[np.float64],
    unit_directions: NDArray[np.float64],
    raw: NDArray[np.floating],
    config: MultipathConfig,
) -> tuple[NDArray[np.floating], NDArray[np.intp], NDArray[np.float64]]:
    """The direct ranges ``raw`` (n,) with ``inf`` where the sea surface comes first.

    ``ray_origins`` (n, 3) the origins (a broadcast row if shared, ``origin_rows`` that row),
    ``unit_directions`` (n, 3) the unit directions. Returns the ranges (a copy only if any
    is cut), the rays that meet the surface first and their distances to it, m.
    """
    surface_z = config.sea_surface_z
    # Only rays going up can meet the sea surface: the plane for those alone.
    up = np.flatnonzero(
        (unit_directions[:, _UP] > 0.0) & (origin_rows[:, _UP] < surface_z)
    )  # one test of a shared origin
    t_up = (surface_z - ray_origins[up, _UP]) / unit_directions[up, _UP]
    first = t_up < raw[up]
    up, t_up = up[first], t_up[first]
    ranges = raw
    if up.size:  # the sea surface ends them: no direct echo
        ranges = raw.copy()
        ranges[up] = np.inf
    return ranges, up, t_up


def _first_mirrors(
    ray_origins: NDArray[np.float64],
    unit_directions: NDArray[np.float64],
    hits: RayHits,
    ranges: NDArray[np.floating],
    surface_first: tuple[NDArray[np.intp], NDArray[np.float64]],
    config: MultipathConfig,
    max_range: float,
    sources: int,
) -> _Paths:
    """The paths mirrored once: at the scene where it reflects, or at the sea surface.

    Only within the window (``max_range`` m) and only from the first ``sources`` rays;
    ``surface_first`` is the rays that meet the sea surface first and their distances, m.
    """
    up, t_up = surface_first
    mirror = hits.mirror_gain  # |R|**2: the reflectivity, a seabed's Rayleigh reflection
    with np.errstate(invalid='ignore'):
        scene = (ranges <= max_range) & (mirror > 0.0)
    if sources < unit_directions.shape[0]:
        scene[sources:] = False
    on_scene = np.flatnonzero(scene)
    near = (t_up <= max_range) & (up < sources)
    up, t_up = up[near], t_up[near]
    live = np.concatenate((on_scene, up))
    k, m = on_scene.size, live.size
    surface = np.zeros(m, dtype=bool)
    surface[k:] = True
    # Built in place, no concatenated copies: the first mirrors' distance and gain.
    distance = np.empty(m)
    distance[:k] = ranges[on_scene]
    distance[k:] = t_up
    gain = np.empty(m)
    gain[:k] = mirror[on_scene]
    gain[k:] = config.surface_gain
    start, reflected, block = _mirror(
        ray_origins, unit_directions, live, distance, surface, np.asarray(hits.normals)
    )
    return _Paths(live, start.T, reflected.T, distance, gain, ~surface, block)


def _rows(a: NDArray[_T], index: NDArray[np.intp]) -> NDArray[_T]:
    """Rows ``index`` of ``a``, a new array: ``np.take``, 4 times as fast as ``a[index]``.

    An (m, 3) view of (3, m) columns (``_mirror``'s) is gathered column by column, and
    stays one: 3 times as fast as ``np.take`` of its rows. A broadcast row (a shared origin)
    is repeated: ``np.take`` would first copy the whole broadcast array.
    """
    if a.ndim and a.strides[0] == 0:
        repeated: NDArray[_T] = np.repeat(a[:1], index.size, axis=0)
        return repeated
    if a.ndim == 2 and a.flags.f_contiguous and not a.flags.c_contiguous:
        columns: NDArray[_T] = np.take(a.T, index, axis=1)
        return columns.T
    rows: NDArray[_T] = np.take(a, index, axis=0)
    return rows


def _plane_distance(
    z: NDArray[np.float64], up: NDArray[np.float64], surface_z: float
) -> NDArray[np.float64]:
    """Distance along rays from height ``z`` with up component ``up`` to the sea surface.

    From below only; ``inf`` for a ray that never meets it.
    """
    with np.errstate(divide='ignore', invalid='ignore'):
        distance = (surface_z - z) / up
    return np.where((up > 0.0) & (z < surface_z), distance, np.inf)


def _mirror(
    point: NDArray[np.float64],
    direction: NDArray[np.float64],
    index: NDArray[np.intp],
    distance: NDArray[np.float64],
    surface: NDArray[np.bool_],
    normals: NDArray[np.floating],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float32]]:
    """Paths ``index`` (of ``point`` and ``direction``, (n, 3)) at their mirror ``distance`` ahead.

    The mirror is the sea surface where ``surface`` (+z), else the scene surface of
    ``normals`` (rows ``index`` of those, as the points). Returns the (3, m) columns of the
    mirror points (m, world frame) and the reflected unit directions, and the rays to cast
    next as the raycaster's float32 block: each starts a little off its mirror point, on
    the side the path came from, so that it cannot meet its own mirror again; the ranges
    of that cast are from those starts (:func:`_advance` measures the legs from the mirror
    points).
    For ``m`` (``count``) paths, worked on as (3, m) columns: numpy broadcasts a per-row
    scale over (m, 3) rows 3 elements a loop, and over (3, m) columns in long loops (about
    1.4 times as fast here, the transposing copies included); and ``_SLICE`` paths at a
    time, gathered there, so that the temporaries stay in the cache.
    """
    count = index.shape[0]
    # A shared origin (a broadcast row) is read as its one row.
    shared = point.strides[0] == 0
    # Off the surface on the side the path came from, so that the reflected ray misses it.
    # A bound of |point| (origin plus distance), not a pass over the points.
    far = np.abs(point[:1]).max() if shared else np.abs(point).max(axis=1)[index].max(initial=0.0)
    scale = float(far) + float(distance.max(initial=0.0))
    offset = -(1e-4 + 1e-6 * scale)
    start, reflected = np.empty((3, count)), np.empty((3, count))
    block = np.empty((count, 6), dtype=np.float32)
    for at in range(0, count, _SLICE):
        rows = slice(at, at + _SLICE)
        paths_at = index[rows]
        direction_columns = np.ascontiguousarray(_rows(direction, paths_at).T)
        normal_columns = np.empty(direction_columns.shape)
        normal_columns[...] = _rows(normals, paths_at).T
        normal_columns[:, np.flatnonzero(surface[rows])] = (
            (0.0,),
            (0.0,),
            (1.0,),
        )  # few: by index
        dot_normal = direction_columns[0] * normal_columns[0]
        dot_normal += direction_columns[1] * normal_columns[1]
        dot_normal += direction_columns[2] * normal_columns[2]
        mirror_points = np.multiply(direction_columns, distance[rows], out=start[:, rows])
        mirror_points += (point[:1] if shared else _rows(point, paths_at)).T  # the mirror point
        # d - 2 (d . n) n, a unit vector for unit d and n (Open3D's normals are unit to 1e-7).
        reflected_columns = np.multiply(normal_columns, -2.0 * dot_normal, out=reflected[:, rows])
        reflected_columns += direction_columns
        np.sign(dot_normal, out=dot_normal)
        dot_normal *= offset
        normal_columns *= dot_normal
        normal_columns += mirror_points  # the start of the cast, off the mirror point
        # Written once as the block, a column at a time: numpy copies (3, m) columns into
        # (m, 3) float32 rows in 3-element loops.
        for k in range(3):
            block[rows, k] = normal_columns[k]
            block[rows, 3 + k] = reflected_columns[k]
    return start, reflected, block


def _advance(
    caster: SurfaceCaster,
    paths: _Paths,
    config: MultipathConfig,
    max_range: float,
    *,
    again: bool,
) -> tuple[_Scatter, _Paths | None]:
    """Cast the mirrored paths once: the scatterers they meet, and the paths mirrored again.

    A path that meets the scene first scatters there; with ``again``, every event within
    ``2 max_range`` of path length is mirrored again (for a further bounce).
    """
    if paths.ray.size == 0:
        empty = np.zeros((0, 3))
        return _Scatter(paths, empty, np.zeros(0), np.zeros(0, dtype=np.int64)), paths
    block = paths.block
    if block is None:
        block = np.empty((paths.ray.size, 6), dtype=np.float32)
        block[:, :3] = paths.point
        block[:, 3:] = paths.direction
    hits = caster.cast_block(block)
    ranges = np.asarray(hits.ranges)
    normals = np.asarray(hits.normals)
    mu = np.asarray(hits.reflectivity)
    surface_z, longest = config.sea_surface_z, 2.0 * max_range
    # The scatterers, looked for among the rays that hit only: the scene met before the sea
    # surface, within the window, where it scatters. mu and entity converted on those only.
    hit = np.flatnonzero(ranges < np.inf)
    t = ranges[hit].astype(np.float64)
    mu_hit = np.asarray(mu[hit], dtype=np.float64)
    before = ~(_plane_distance(paths.point[hit, _UP], paths.direction[hit, _UP], surface_z) < t)
    keep = np.flatnonzero(before & (paths.length[hit] + t <= longest) & (mu_hit > 0.0))
    at, t = hit[keep], t[keep]
    point, leg = _met(block, paths, at, t, _rows(normals, at))
    reached = _Paths(
        paths.ray[at],
        point,
        _rows(paths.direction, at),
        paths.length[at] + leg,
        paths.gain[at],
        paths.scene[at],
    )
    at_entity = np.asarray(hits.entity[at], dtype=np.int64)
    scatter = _Scatter(reached, _rows(normals, at), mu_hit[keep], at_entity)
    if not again:
        return scatter, None
    mirror = np.asarray(hits.mirror_gain, dtype=np.float64)
    # Every event within the window is mirrored again: the sea surface or the scene.
    t_all = ranges.astype(np.float64)
    t_plane = _plane_distance(paths.point[:, _UP], paths.direction[:, _UP], surface_z)
    surface = t_plane < t_all
    event = np.minimum(t_all, t_plane)
    go = np.flatnonzero(paths.length + event <= longest)
    go = go[surface[go] | np.isin(go, at, assume_unique=True)]
    on_surface = surface[go]
    # The sea surface is met exactly from the mirror points, the scene from the cast's starts
    # (:func:`_met`): ``base`` holds each path's next mirror point less ``distance`` along it.
    scene_go = go[~on_surface]
    base = paths.point.copy()
    base[scene_go], leg = _met(block, paths, scene_go, t_all[scene_go], normals[scene_go])
    distance = np.where(on_surface, event[go], 0.0)
    length = paths.length[go] + distance
    length[~on_surface] += leg
    start, reflected, block = _mirror(base, paths.direction, go, distance, on_surface, normals)
    mirrored = _Paths(
        paths.ray[go],
        start.T,
        reflected.T,
        length,
        paths.gain[go] * np.where(on_surface, config.surface_gain, mirror[go]),
        paths.scene[go] | ~on_surface,
        block,
    )
    return scatter, mirrored


def _met(
    block: NDArray[np.float32],
    paths: _Paths,
    at: NDArray[np.intp],
    t: NDArray[np.float64],
    normal: NDArray[np.floating],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Where the paths ``at`` meet the surface their cast rays met ``t`` metres out.

    Each ray of ``block`` was cast from a start ``S`` a little off its path's mirror point
    ``P`` (:func:`_mirror`), so its hit ``X = S + t r`` is not on the path. The path from
    ``P`` along ``r`` meets the plane of the surface hit (through ``X``, unit ``normal``
    ``n``) after ``u = (X - P) . n / (r . n)``: exact for the triangle met, wherever the
    scene sits. A ray within 3 degrees of grazing its surface, where that step would leave
    the triangle, takes ``u = (X - P) . r`` instead. Returns the points ``P + u r`` (m, 3),
    world frame, m, and ``u`` (m,), the legs' lengths, m.
    """
    start = np.asarray(block[at, :3], dtype=np.float64)  # as cast (float32 values)
    direction = _rows(paths.direction, at)
    mirror = _rows(paths.point, at)
    offset = start - mirror  # from P to the start S
    n = np.asarray(normal, dtype=np.float64)
    along_normal = np.einsum('ij,ij->i', direction, n)
    facing = np.abs(along_normal) >= _GRAZING
    with np.errstate(divide='ignore', invalid='ignore'):
        across = np.einsum('ij,ij->i', offset, n) / along_normal
    leg = t + np.where(facing, across, np.einsum('ij,ij->i', offset, direction))
    point = mirror
    for k in range(3):  # a column at a time: numpy broadcasts a length 3 elements a loop
        point[:, k] += leg * direction[:, k]
    return point, leg


def _returns(
    caster: SurfaceCaster,
    ray_origins: NDArray[np.float64],
    scatters: list[tuple[_Scatter, int]],
    config: MultipathConfig,
    hear: Hearing,
    ray_pattern: NDArray[np.float64],
    rays_per_beam: int,
    n_way: int,
) -> ExtraReturns:
    """The return legs of every scatterer, checked in one visibility cast, as returns."""
    surface_z = config.sea_surface_z
    legs: list[_Leg] = []
    for scatter, bounces in scatters:
        paths = scatter.paths
        if paths.ray.size == 0:
            continue
        sensor = _rows(ray_origins, paths.ray)
        legs.append(_Leg(scatter, np.arange(paths.ray.size), sensor, sensor, direct=True))
        if bounces < config.max_bounces:  # one more mirror: back off the sea surface
            below = sensor[:, _UP] < surface_z
            keep = np.flatnonzero(below & (paths.point[:, _UP] < surface_z))
            image = _rows(sensor, keep)
            image[:, _UP] = 2.0 * surface_z - image[:, _UP]
            scatter_points = _rows(paths.point, keep)
            fraction = (
                (surface_z - scatter_points[:, _UP]) / (image[:, _UP] - scatter_points[:, _UP])
            )[:, None]
            glint = scatter_points + fraction * (image - scatter_points)
            legs.append(_Leg(scatter, keep, _rows(sensor, keep), glint, direct=False))
    if not legs:
        return _no_returns()
    # One cast: for each leg, from the sensor to its glint (surface legs) and from the leg's
    # start (the sensor or the glint) towards B; a leg is clear when nothing is met first.
    starts, ends = [], []
    for leg in legs:
        starts.append(leg.start)
        ends.append(_rows(leg.scatter.paths.point, leg.index))
        if not leg.direct:
            starts.append(leg.sensor)
            ends.append(leg.start)
    start = np.concatenate(starts)
    vector = np.concatenate(ends) - start
    length = np.sqrt(np.einsum('ij,ij->i', vector, vector))
    block = np.empty((start.shape[0], 6), dtype=np.float32)
    block[:, :3] = start
    np.divide(vector, np.maximum(length, 1e-12)[:, None], out=block[:, 3:])
    seen = np.asarray(caster.cast_block(block).ranges, dtype=np.float64)
    clear = seen >= length * (1.0 - 1e-4) - 1e-3
    parts: list[ExtraReturns] = []
    at = 0
    for leg in legs:
        m = leg.index.size
        ok = clear[at : at + m].copy()
        at += m
        if not leg.direct:
            ok &= clear[at : at + m] | (length[at : at + m] <= 1e-6)
            at += m
        parts.extend(_leg_returns(leg, ok, config, hear, ray_pattern, rays_per_beam, n_way))
    if not parts:
        return _no_returns()
    return ExtraReturns(
        ray=np.concatenate([q.ray for q in parts]),
        beam=np.concatenate([q.beam for q in parts]),
        range=np.concatenate([q.range for q in parts]),
        gain=np.concatenate([q.gain for q in parts]),
        reflectivity=np.concatenate([q.reflectivity for q in parts]),
        cos_incidence=np.concatenate([q.cos_incidence for q in parts]),
        entity=np.concatenate([q.entity for q in parts if q.entity is not None]),
    )


@dataclass(frozen=True, eq=False)
class _Leg:
    """The return legs of some scatterers: straight to the sensor, or by a glint on the surface.

    ``index`` picks the scatterers; ``start`` is where the leg to ``B`` starts: the sensor
    (direct) or the glint point on the sea surface.
    """

    scatter: _Scatter
    index: NDArray[np.intp]
    sensor: NDArray[np.float64]
    start: NDArray[np.float64]
    direct: bool


def _leg_returns(
    leg: _Leg,
    clear: NDArray[np.bool_],
    config: MultipathConfig,
    hear: Hearing,
    ray_pattern: NDArray[np.float64],
    rays_per_beam: int,
    n_way: int,
) -> list[ExtraReturns]:
    """The returns (and the reverse paths that are not traced) of the clear legs."""
    paths = leg.scatter.paths
    leg_rows = leg.index
    scatter_points = _rows(paths.point, leg_rows)
    incoming = _rows(paths.direction, leg_rows)
    normal = _rows(leg.scatter.normal, leg_rows)
    towards = leg.start - scatter_points  # from B along the return leg
    back = np.sqrt(np.einsum('ij,ij->i', towards, towards))
    # Lambert at B: the return leaves on the side the path arrived from.
    n_towards = np.einsum('ij,ij->i', normal, towards)
    same_side = np.einsum('ij,ij->i', normal, incoming) * n_towards
    cos_s = np.abs(n_towards) / np.maximum(back, 1e-12)
    # From the sensor towards the last point of the path: B, or the glint.
    arrival = (scatter_points if leg.direct else leg.start) - leg.sensor
    l_back = back
    if not leg.direct:
        l_back = back + np.sqrt(np.einsum('ij,ij->i', arrival, arrival))
    returning = np.flatnonzero(clear & (same_side < 0.0) & (back > 1e-6))
    if returning.size == 0:
        return []
    ray = paths.ray[leg_rows][returning]
    arrival_directions = _rows(arrival, returning)
    arrival_length = np.sqrt(np.einsum('ij,ij->i', arrival_directions, arrival_directions))
    arrival_directions /= arrival_length[:, None]
    beam, heard = hear(ray, arrival_directions)
    own = ray_pattern[ray]
    r_eq = 0.5 * (paths.length[leg_rows][returning] + l_back[returning])
    gain = paths.gain[leg_rows][returning] * (r_eq / l_back[returning]) ** 2
    if not leg.direct:
        gain = gain * config.surface_gain
    with np.errstate(divide='ignore', invalid='ignore'):
        ratio = np.where(own > 0.0, heard / own, 0.0)
    pattern_ray = ray % rays_per_beam
    mu = leg.scatter.mu[leg_rows][returning]
    cos = cos_s[returning]
    entity = leg.scatter.entity[leg_rows][returning]
    forward = ExtraReturns(
        pattern_ray, beam, r_eq, gain * ratio ** (n_way - 1) * (heard > 0.0), mu, cos, entity
    )
    # The reverse path (out straight to B, back along this path's mirrors) is traced only when
    # it comes back by the sea surface alone: a path back by the surface whose mirrors are all
    # the surface. Otherwise it is added here: same length, heard from the ray's own direction
    # in the ray's beam, sent towards ``arrival_directions`` (``docs/multipath.md#reciprocity``).
    reverse = (
        np.ones(returning.size, dtype=bool) if leg.direct else paths.scene[leg_rows][returning]
    )
    if not reverse.any():
        return [forward]
    reverse_rows = np.flatnonzero(reverse)
    own_beam = ray[reverse_rows] // rays_per_beam
    backward = ExtraReturns(
        pattern_ray[reverse_rows],
        own_beam,
        r_eq[reverse_rows],
        gain[reverse_rows] * ratio[reverse_rows],
        mu[reverse_rows],
        cos[reverse_rows],
        entity[reverse_rows],
    )
    return [forward, backward]


def cone_hearing(echo: EchoConfig, axes: NDArray[np.float64], rays_per_beam: int) -> Hearing:
    """How cones hear (single-beam elements, a scanning head): each in its own beam only.

    ``axes`` (k, 3) are the world acoustic axes of the k beams; ray ``i`` is beam
    ``i // rays_per_beam``'s. The receive pattern is ``echo.pattern`` at the angle from the
    beam's axis, 0 outside its cast cone (as the direct echoes: no cross-talk).
    """
    axis = np.asarray(axes, dtype=np.float64).reshape(-1, 3)

    def hear(
        ray: NDArray[np.intp], u: NDArray[np.float64]
    ) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        beam = ray // rays_per_beam
        cos = np.clip(np.einsum('ij,ij->i', u, axis[beam]), -1.0, 1.0)
        psi = np.arccos(cos)
        inside = psi <= echo.cast_half_angle
        pattern = beam_intensity(echo.pattern, np.where(inside, psi, 0.0), echo.beam_width, 1)
        return beam, np.where(inside, pattern, 0.0)

    return hear


def _no_returns() -> ExtraReturns:
    empty = np.zeros(0)
    index = np.zeros(0, dtype=np.intp)
    return ExtraReturns(index, index, empty, empty, empty, empty, np.zeros(0, dtype=np.int64))
