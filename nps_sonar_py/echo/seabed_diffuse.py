"""The diffuse one-bounce paths of objects' scatterers by a rough seabed: the glistening lobe.

What a rough seabed takes from an object's coherent image (``seabed_images``) it scatters
around the specular direction. In the facet (geometric-optics) limit of the Kirchhoff
approximation, with Gaussian slopes of variance ``s**2`` along each axis, a patch ``dA`` at
``B`` scatters from the sensor towards the scatterer ``P`` (and back) with the bistatic
cross section

    sigma_b = |R(chi)|**2 / (8 pi s**2 cos(beta)**4) exp(-tan(beta)**2 / (2 s**2))

per unit area and steradian, ``beta`` the tilt of the facet that mirrors the one direction
into the other (its normal the bisector of ``B -> sensor`` and ``B -> P``) and ``chi`` the
grazing angle on that facet. ``s**2`` is half of ``int K**2 W(K) d2K`` between the bounce's
Fresnel-zone wavenumber and :func:`~nps_sonar_py.echo.sediment.facet_wavenumber`; the lobe
takes what the coherent image leaves, ``1 - exp(-4 k**2 sigma**2 sin**2 theta)`` of it.

Each mirrored scatterer (those ``seabed_images`` hears by their image, with its gates) gets
``GRID`` patch points on the seabed's plane around its specular bounce point: the nodes of a
quadrature over the facets' slopes (Gauss-Legendre along the plane of incidence, cut where
the bounce would pass under the scatterer, equal cells across), each placed where a facet
of its slope mirrors the sensor into ``P`` (Newton's method), weighted by its probability
and the area ``|dA / dzeta|`` its slopes cover there. Each has a random phase keyed by the
scatterer's place in the world and the node's index (stable from ping to ping), is heard at
``(|B| + |P - B| + |P|) / 2`` with the amplitude, relative to the direct one, ``sqrt(sigma_b
dA) sqrt(cos(t_in) / cos(t_d)) r_d / (|B| |P - B|)``, the absorption of the extra length and
the pattern split over the legs as the image paths', the one at ``B`` averaged over ``SUB``
points across the node's cell (``seabed_images``): a beam narrower than the lobe hears its
share of it. ``docs/multipath.md``, "The diffuse part".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.special import ndtr

from nps_sonar_py.echo.fixed_scatterers import keyed_phasors
from nps_sonar_py.echo.sediment import (
    Sediment,
    facet_wavenumber,
    reflection_coefficient,
    roughness_variance,
    slope_variance,
)

__all__ = [
    'ACROSS',
    'ALONG',
    'GRID',
    'NEWTON',
    'NONE',
    'SPAN',
    'SUB',
    'Bounces',
    'Diffuse',
    'diffuse_paths',
    'fresnel_lowest',
]

#: Patch points of each scatterer's lobe along the plane of incidence and across it.
ALONG, ACROSS = 12, 5
GRID = ALONG * ACROSS
#: An intensity loss of x dB is a factor exp(-x ln(10) / 10).
_DB_TO_NEPER = math.log(10.0) / 10.0
#: Points across each node's cell over which the sensor's pattern is averaged.
SUB = 16
#: Newton steps placing the patch points.
NEWTON = 8
#: The slopes' quadrature along the plane of incidence spans this many rms slopes each way.
SPAN = 4.0
#: Positions are keyed to this, m (the phases' key: the scatterer's place in the world).
_KEY_STEP = 1e-4


@dataclass(frozen=True, eq=False)
class Bounces:
    """The mirrored scatterers' geometry (sensor frame), from ``seabed_images``.

    Attributes:
        body: (m, 3) the scatterers; ``facing``: (m, 3) their faces' normals to the sensor.
        world: (m, 3) the scatterers in the world (their phases' key).
        up: (m, 3) the seabed's unit normal under each; ``height``: (m,) the sensor's over
            its plane.
        bounce: (m, 3) the specular bounce points; ``sin``: (m,) their grazing angles' sines.
        kinds: the sediments; ``sediment``: (m,) each row's index in ``kinds``.
    """

    body: NDArray[np.float64]
    facing: NDArray[np.float64]
    world: NDArray[np.float64]
    up: NDArray[np.float64]
    height: NDArray[np.float64]
    bounce: NDArray[np.float64]
    sin: NDArray[np.float64]
    kinds: tuple[Sediment, ...]
    sediment: NDArray[np.intp]


@dataclass(frozen=True, eq=False)
class Diffuse:
    """The lobe's paths, ``GRID`` a scatterer, without the sensor's pattern.

    ``rows``: each path's scatterer (a row of ``Bounces``); the range heard at; the
    amplitude; ``points``: (k, 3) the patch point it bounces at (sensor frame); ``spread``:
    (k, SUB, 3) points across its cell and ``shares``: (k, SUB) their shares of its energy,
    over which the sensor's pattern is to be averaged (a beam narrower than the lobe).
    """

    rows: NDArray[np.intp]
    ranges: NDArray[np.float64]
    amplitudes: NDArray[np.complex128]
    points: NDArray[np.float64]
    spread: NDArray[np.float64]
    shares: NDArray[np.float64]


#: No diffuse paths.
NONE = Diffuse(
    np.zeros(0, np.intp),
    np.zeros(0),
    np.zeros(0, np.complex128),
    np.zeros((0, 3)),
    np.zeros((0, SUB, 3)),
    np.zeros((0, SUB)),
)


def _norm(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """The norms of the last axis."""
    norm: NDArray[np.float64] = np.sqrt(np.einsum('...i,...i->...', a, a))
    return norm


def fresnel_lowest(
    d1: NDArray[np.float64], d2: NDArray[np.float64], sin: NDArray[np.float64], wavelength: float
) -> NDArray[np.float64]:
    """``pi / a``: the lowest wavenumber a bounce's first Fresnel zone resolves, rad/m.

    Legs ``d1``, ``d2``; ``a`` the radius of the zone's area (``docs/multipath.md``, "A rough
    seabed's mirror").
    """
    zone = wavelength * d1 * d2 / np.maximum(d1 + d2, 1e-300) / np.maximum(sin, 1e-12)
    lowest: NDArray[np.float64] = math.pi / np.sqrt(np.maximum(zone, 1e-300))
    return lowest


def _lobe(
    b: Bounces, wavelength: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Each row's slope variance, its lobe's share and its legs ``L = d1 d2 / (d1 + d2)``.

    ``s**2`` along an axis; the share of the mirror's energy ``1 - exp(-q_z**2 sigma**2)``,
    what the coherent image leaves.
    """
    d1, d2 = _norm(b.bounce), _norm(b.body - b.bounce)
    k = 2.0 * math.pi / wavelength
    lowest = fresnel_lowest(d1, d2, b.sin, wavelength)
    s2, share = np.zeros(d1.size), np.zeros(d1.size)
    for index, kind in enumerate(b.kinds):
        mine = b.sediment == index
        if kind.spectral_strength <= 0.0:
            continue
        qz = 2.0 * k * b.sin[mine]
        s2[mine] = slope_variance(kind, lowest[mine], facet_wavenumber(kind, qz))
        share[mine] = -np.expm1(-(qz**2) * roughness_variance(kind, lowest[mine]))
    return s2, share, d1 * d2 / np.maximum(d1 + d2, 1e-300)


def _frame(b: Bounces) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(m, 3) unit vectors on each seabed plane: along the plane of incidence, and across."""
    foot = b.bounce + b.height[:, None] * b.up  # along the plane from under the sensor
    along = foot - b.up * np.einsum('ij,ij->i', foot, b.up)[:, None]
    size = _norm(along)
    spare = np.cross(b.up, np.array([1.0, 0.0, 0.0]))
    spare = np.where(_norm(spare)[:, None] > 0.1, spare, np.cross(b.up, [0.0, 1.0, 0.0]))
    along = np.where((size > 1e-9)[:, None], along, spare)
    along /= _norm(along)[:, None]
    return along, np.cross(b.up, along)


#: Points on each seabed plane: (m, 1) coordinates along, across and up from the bounce.
Local = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]


def _local(b: Bounces, frame: tuple[NDArray[np.float64], ...], at: NDArray[np.float64]) -> Local:
    """``at`` (m, 3, sensor frame) in each plane's coordinates from its bounce point."""
    rel = at - b.bounce
    axes = (*frame, b.up)
    u, v, w = (np.einsum('ij,ij->i', rel, e)[:, None] for e in axes)
    return u, v, w


def _tilt(
    sensor: Local, body: Local, u: NDArray[np.float64], v: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], tuple[NDArray[np.float64], ...]]:
    """The slopes of the facet at (u, v) that mirrors the sensor into ``P``, and their Jacobian.

    Along and across, (m, g) each, and ``d zeta_u / du, d zeta_u / dv, d zeta_v / du,
    d zeta_v / dv``.
    Its normal ``n`` is the sum of the unit vectors to the sensor and to ``P``; the slopes
    ``-n_u / n_w`` and ``-n_v / n_w``; a unit vector ``a`` along ``A`` whose foot moves by
    ``du`` turns by ``d a / du = (a a_u - e_u) / |A|``.
    """
    xa, ya, xb, yb = sensor[0] - u, sensor[1] - v, body[0] - u, body[1] - v
    ia = 1.0 / np.sqrt(xa * xa + ya * ya + sensor[2] ** 2)  # 1 / |A|
    ib = 1.0 / np.sqrt(xb * xb + yb * yb + body[2] ** 2)
    au, av, aw = xa * ia, ya * ia, sensor[2] * ia
    bu, bv, bw = xb * ib, yb * ib, body[2] * ib
    inw = 1.0 / (aw + bw)
    zu, zv = -(au + bu) * inw, -(av + bv) * inw
    # The normal's components' derivatives: d n_u / du, d n_u / dv = d n_v / du, d n_v / dv,
    # d n_w / du, d n_w / dv; d(-n_u / n_w) = -(d n_u + zeta_u d n_w) / n_w.
    uu = (au * au - 1.0) * ia + (bu * bu - 1.0) * ib
    uv = au * av * ia + bu * bv * ib
    vv = (av * av - 1.0) * ia + (bv * bv - 1.0) * ib
    wu, wv = au * aw * ia + bu * bw * ib, av * aw * ia + bv * bw * ib
    jac = (
        -(uu + zu * wu) * inw,
        -(uv + zu * wv) * inw,
        -(uv + zv * wu) * inw,
        -(vv + zv * wv) * inw,
    )
    return zu, zv, jac


def _nodes(
    s: NDArray[np.float64], edge: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """The quadrature over the facet slopes' Gaussian: slopes along and across, weights.

    (m, GRID) each. Along the plane of incidence Gauss-Legendre over ``SPAN`` rms slopes
    each way, cut at ``edge`` (m,), the slope where the bounce reaches the foot of the
    scatterer (steeper facets would bounce behind it), the Gaussian in the weights; across
    it ``ACROSS`` equal cells over ``SPAN`` rms slopes each way, each node at its cell's
    centre with the cell's probability (the pattern is averaged over the cell:
    :func:`diffuse_paths`). Each node's weight is its share of the slopes' probability.
    """
    low = np.where(edge < 0.0, np.maximum(-SPAN * s, edge), -SPAN * s)[:, None]
    high = np.where(edge > 0.0, np.minimum(SPAN * s, edge), SPAN * s)[:, None]
    x, wx = np.polynomial.legendre.leggauss(ALONG)
    along = 0.5 * (high + low) + 0.5 * (high - low) * x[None, :]
    density = np.exp(-0.5 * (along / s[:, None]) ** 2) / (math.sqrt(2.0 * math.pi) * s[:, None])
    w_along = 0.5 * (high - low) * wx[None, :] * density
    edges = np.linspace(-SPAN, SPAN, ACROSS + 1)
    across = s[:, None] * (0.5 * (edges[1:] + edges[:-1]))[None, :]
    weight = w_along[:, :, None] * np.diff(ndtr(edges))[None, None, :]
    m = s.size
    return (
        np.repeat(along, ACROSS, axis=1),
        np.tile(across, (1, ALONG)).reshape(m, -1),
        weight.reshape(m, -1),
    )


def _patch(
    b: Bounces, s: NDArray[np.float64], legs: NDArray[np.float64]
) -> tuple[
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    tuple[NDArray[np.float64], NDArray[np.float64]],
]:
    """The lobe's (m, GRID, 3) patch points, their facets' ``tan(beta)**2``, ``dA`` weighed.

    The third: ``sigma_b dA`` over the facet law (``_cross_section``), the node's weight
    times ``|dA / dzeta|``; the last ``d zeta_v / dv`` there (m, GRID) and the (m, 3) axes
    across the planes of incidence.
    Each node's point is where a facet of its slopes mirrors the sensor into ``P``: Newton's
    method on the plane from the first-order guess (along the plane of incidence a tilt moves
    the bounce ``2 L zeta / sin``, across it ``2 L zeta sin``, ``L = d1 d2 / (d1 + d2)``),
    kept short of the scatterer's foot. A node with no such point (a residual left) gets 0.
    """
    frame = _frame(b)
    sensor = _local(b, frame, np.zeros_like(b.body))
    body = _local(b, frame, b.body)
    edge = _tilt(sensor, body, body[0], body[1])[0][:, 0]
    along, across, weight = _nodes(s, edge)
    sin = np.maximum(b.sin, 1e-6)[:, None]
    u, v = 2.0 * legs[:, None] / sin * along, 2.0 * legs[:, None] * sin * across
    low, high = np.where(body[0] < 0.0, body[0], -np.inf), np.where(body[0] > 0.0, body[0], np.inf)
    scale = 4.0 * legs[:, None] / sin
    for _ in range(NEWTON):
        zu, zv, (ju, jv, ku, kv) = _tilt(sensor, body, u, v)
        det = ju * kv - jv * ku
        ru, rv = along - zu, across - zv
        u = np.clip(u + np.clip((kv * ru - jv * rv) / det, -scale, scale), low, high)
        v = v + np.clip((ju * rv - ku * ru) / det, -scale, scale)
    zu, zv, (ju, jv, ku, kv) = _tilt(sensor, body, u, v)
    residual = np.maximum(np.abs(zu - along), np.abs(zv - across))
    miss = ~(residual <= 1e-6 + 1e-4 * np.maximum(np.abs(along), np.abs(across)))  # NaN too
    u, v = np.where(miss, 0.0, u), np.where(miss, 0.0, v)
    points = (
        b.bounce[:, None, :] + u[..., None] * frame[0][:, None] + v[..., None] * frame[1][:, None]
    )
    area = np.where(miss, 0.0, weight / np.maximum(np.abs(ju * kv - jv * ku), 1e-300))
    return points, zu**2 + zv**2, area, (kv, frame[1])


def _cross_section(
    b: Bounces, points: NDArray[np.float64], tan2: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The facet law over the slopes' Gaussian, ``|R(chi)|**2 / (4 cos(beta)**4)``, (m, g).

    ``sigma_b dA`` is this times ``|dA / dzeta|`` and the node's probability (``_nodes``):
    ``sigma_b`` is it times the slopes' density ``exp(-tan**2 beta / (2 s**2)) / (2 pi s**2)``.
    """
    to_sensor = -points / _norm(points)[..., None]
    to_body = b.body[:, None, :] - points
    half = to_sensor + to_body / _norm(to_body)[..., None]
    half /= np.maximum(_norm(half), 1e-300)[..., None]
    chi = np.arcsin(np.clip(np.einsum('mgi,mgi->mg', to_sensor, half), 0.0, 1.0))
    r2 = np.zeros(chi.shape)
    for index, kind in enumerate(b.kinds):
        mine = b.sediment == index
        r2[mine] = np.abs(reflection_coefficient(kind, chi[mine])) ** 2
    law: NDArray[np.float64] = 0.25 * r2 * (1.0 + tan2) ** 2  # over cos(beta)**4
    return law


def diffuse_paths(
    b: Bounces, direct: NDArray[np.complex128], medium: tuple[float, float]
) -> Diffuse:
    """The lobe's paths of the mirrored scatterers (module docstring).

    ``direct``: (m,) their direct amplitudes without the pattern; ``medium``: the one-way
    absorption, dB/m, and the wavelength, m. Only the rows with a lobe (rough sediment) and
    the points placed that reach the face on its lit side are kept.
    """
    absorption_db_per_m, wavelength = medium
    s2, share, legs = _lobe(b, wavelength)
    live = np.flatnonzero((s2 > 0.0) & (share > 0.0))
    if not live.size:
        return NONE
    b = _rows(b, live)
    s2, share, legs = s2[live], share[live], legs[live]
    points, tan2, area, (slope, across) = _patch(b, np.sqrt(s2), legs)
    sigma = _cross_section(b, points, tan2) * area * share[:, None]
    d1 = _norm(points)
    leg = b.body[:, None, :] - points
    d2 = _norm(leg)
    rd = _norm(b.body)
    cos_in = np.einsum('mgi,mi->mg', -leg, b.facing) / d2
    cos_d = np.abs(np.einsum('mi,mi->m', b.body, b.facing)) / rd
    lit = (cos_in > 0.0) & (cos_d[:, None] > 0.0)
    ratio = np.sqrt(np.where(lit, sigma * cos_in / cos_d[:, None], 0.0)) * rd[:, None] / (d1 * d2)
    if absorption_db_per_m > 0.0:
        ratio *= np.exp(-0.5 * absorption_db_per_m * _DB_TO_NEPER * (d1 + d2 - rd[:, None]))
    key = np.round(b.world / _KEY_STEP).astype(np.int64)
    phases = keyed_phasors(key, GRID)
    amplitude = (direct[live][:, None] * ratio * phases).ravel()
    heard = np.flatnonzero(ratio.ravel() > 0.0)  # lit, placed
    at = points.reshape(-1, 3)[heard]
    spread, shares = _cells(np.sqrt(s2), across, (heard, at, slope.ravel()[heard]))
    ranges = 0.5 * (d1 + d2 + rd[:, None])
    return Diffuse(
        live[heard // GRID], ranges.ravel()[heard], amplitude[heard], at, spread, shares
    )


def _shares() -> NDArray[np.float64]:
    """(ACROSS, SUB): the ``SUB`` points' shares of each cell's probability across.

    In rms slopes the cells and their points are the same for every scatterer.
    """
    step = (np.arange(SUB) + 0.5) / SUB - 0.5
    zeta = (np.arange(ACROSS) - 0.5 * (ACROSS - 1))[:, None] + step[None, :]
    shares = np.exp(-0.5 * (2.0 * SPAN / ACROSS * zeta) ** 2)
    table: NDArray[np.float64] = shares / shares.sum(axis=-1, keepdims=True)
    return table


def _cells(
    s: NDArray[np.float64],
    across: NDArray[np.float64],
    nodes: tuple[NDArray[np.intp], NDArray[np.float64], NDArray[np.float64]],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``SUB`` points across the nodes' cells and their shares of its probability.

    ``s``, ``across``: each row's rms slope and (m, 3) axis across; ``nodes``: the heard
    nodes' flat indices (row ``GRID`` + node), (k, 3) points and ``d zeta_v / dv``.
    The cell spans ``2 SPAN s / ACROSS`` of slope across; a slope ``d zeta_v`` moves the
    bounce ``d zeta_v / (d zeta_v / dv)`` across (to first order about the node).
    """
    flat, points, slope = nodes
    row = flat // GRID
    width = 2.0 * SPAN * s[row] / ACROSS
    cell = (width / np.where(np.abs(slope) > 1e-300, slope, 1e-300))[:, None] * across[row]
    step = (np.arange(SUB) + 0.5) / SUB - 0.5
    spread = np.multiply(step[None, :, None], cell[:, None, :])
    spread += points[:, None, :]
    return spread, _shares()[flat % ACROSS]


def _rows(b: Bounces, rows: NDArray[np.intp]) -> Bounces:
    """Those rows of ``b``."""
    return Bounces(
        b.body[rows],
        b.facing[rows],
        b.world[rows],
        b.up[rows],
        b.height[rows],
        b.bounce[rows],
        b.sin[rows],
        b.kinds,
        b.sediment[rows],
    )
