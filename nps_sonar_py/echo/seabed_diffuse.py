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
the bounce would pass under the scatterer, Gauss-Hermite across), each placed where a facet
of its slope mirrors the sensor into ``P`` (Newton's method), weighted by its probability
and the area ``|dA / dzeta|`` its slopes cover there. Each has a random phase keyed by the
scatterer's place in the world and the node's index (stable from ping to ping), is heard at
``(|B| + |P - B| + |P|) / 2`` with the amplitude, relative to the direct one, ``sqrt(sigma_b
dA) sqrt(cos(t_in) / cos(t_d)) r_d / (|B| |P - B|)``, the absorption of the extra length and
the pattern split over the legs as the image paths'.
``docs/multipath.md``, "The diffuse part".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

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
    'SPAN',
    'Bounces',
    'Diffuse',
    'diffuse_paths',
    'fresnel_lowest',
]

#: Patch points of each scatterer's lobe along the plane of incidence and across it.
ALONG, ACROSS = 12, 4
GRID = ALONG * ACROSS
#: An intensity loss of x dB is a factor exp(-x ln(10) / 10).
_DB_TO_NEPER = math.log(10.0) / 10.0
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
    amplitude; ``points``: (k, 3) the patch point it bounces at (sensor frame).
    """

    rows: NDArray[np.intp]
    ranges: NDArray[np.float64]
    amplitudes: NDArray[np.complex128]
    points: NDArray[np.float64]


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


def _tilt(
    b: Bounces, points: NDArray[np.float64], frame: tuple[NDArray[np.float64], ...]
) -> NDArray[np.float64]:
    """(m, g, 2) the slope of the facet at each point that mirrors the sensor into ``P``.

    Its normal is the bisector of the unit vectors to the sensor and to ``P``; the slope
    ``-(n . e) / (n . up)`` along ``frame``'s two axes.
    """
    to_body = b.body[:, None, :] - points
    half = to_body / _norm(to_body)[..., None] - points / _norm(points)[..., None]
    up = np.einsum('mgi,mi->mg', half, b.up)
    return np.stack([-np.einsum('mgi,mi->mg', half, e) / up for e in frame], axis=-1)


def _nodes(
    b: Bounces, s: NDArray[np.float64], frame: tuple[NDArray[np.float64], ...]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The quadrature over the facet slopes' Gaussian: (m, GRID, 2) slopes and weights.

    Across the plane of incidence Gauss-Hermite (``zeta = sqrt(2) s t``); along it
    Gauss-Legendre over ``SPAN`` rms slopes each way, cut where the bounce reaches the foot of
    the scatterer (steeper facets would bounce behind it), the Gaussian in the weights: each
    node's weight is its share of the slopes' probability.
    """
    foot = b.body - np.einsum('ij,ij->i', b.body - b.bounce, b.up)[:, None] * b.up
    edge = _tilt(b, foot[:, None, :], frame)[:, 0, 0]
    low = np.where(edge < 0.0, np.maximum(-SPAN * s, edge), -SPAN * s)
    high = np.where(edge > 0.0, np.minimum(SPAN * s, edge), SPAN * s)
    x, wx = np.polynomial.legendre.leggauss(ALONG)
    t, wt = np.polynomial.hermite.hermgauss(ACROSS)
    along = 0.5 * (high + low)[:, None] + 0.5 * (high - low)[:, None] * x[None, :]
    density = np.exp(-0.5 * (along / s[:, None]) ** 2) / (math.sqrt(2.0 * math.pi) * s[:, None])
    w_along = 0.5 * (high - low)[:, None] * wx[None, :] * density
    across = math.sqrt(2.0) * s[:, None] * t[None, :]
    target = np.stack(np.broadcast_arrays(along[:, :, None], across[:, None, :]), axis=-1)
    weight = w_along[:, :, None] * (wt / math.sqrt(math.pi))[None, None, :]
    return target.reshape(s.size, -1, 2), weight.reshape(s.size, -1)


def _patch(
    b: Bounces,
    frame: tuple[NDArray[np.float64], NDArray[np.float64]],
    target: NDArray[np.float64],
    legs: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """The (m, g, 3) patch points whose facets have the slopes ``target``, and ``dA / dzeta``.

    Also the slopes as found (m, g, 2). Newton's method on the seabed's plane from the first-
    order guess (along the plane of incidence a tilt moves the bounce ``2 L zeta / sin``,
    across it ``2 L zeta sin``, ``L = d1 d2 / (d1 + d2)``), the Jacobian by differences. A node
    with no such point (a residual left) gets area 0.
    """
    foot = np.einsum('ij,ij->i', b.body - b.bounce, frame[0])[:, None]  # none behind it
    low = np.where(foot < 0.0, foot, -np.inf)
    high = np.where(foot > 0.0, foot, np.inf)
    sin = np.maximum(b.sin, 1e-6)[:, None]
    uv = np.stack([2.0 * legs[:, None] / sin, 2.0 * legs[:, None] * sin], axis=-1) * target
    step = 1e-6 * (legs + 1e-3)[:, None, None]
    scale = 4.0 * legs[:, None, None] / sin[..., None]

    def place(uv: NDArray[np.float64]) -> NDArray[np.float64]:
        ends = uv[..., :1] * frame[0][:, None] + uv[..., 1:] * frame[1][:, None]
        at: NDArray[np.float64] = b.bounce[:, None, :] + ends
        return at

    def jacobian(uv: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        zeta = _tilt(b, place(uv), frame)
        du = (_tilt(b, place(uv + step * [1.0, 0.0]), frame) - zeta) / step
        dv = (_tilt(b, place(uv + step * [0.0, 1.0]), frame) - zeta) / step
        return zeta, np.stack([du, dv], axis=-1)

    for _ in range(NEWTON):
        zeta, jac = jacobian(uv)
        move = np.linalg.solve(jac, (target - zeta)[..., None])[..., 0]
        uv = uv + np.clip(move, -scale, scale)
        uv[..., 0] = np.clip(uv[..., 0], low, high)
    zeta, jac = jacobian(uv)
    area = 1.0 / np.maximum(np.abs(np.linalg.det(jac)), 1e-300)
    miss = np.abs(zeta - target).max(axis=-1) > 1e-6 + 1e-4 * np.abs(target).max(axis=-1)
    return place(uv), zeta, np.where(miss, 0.0, area)


def _cross_section(
    b: Bounces, points: NDArray[np.float64], zeta: NDArray[np.float64]
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
    cos4 = 1.0 / (1.0 + np.einsum('mgi,mgi->mg', zeta, zeta)) ** 2
    law: NDArray[np.float64] = r2 / (4.0 * cos4)
    return law


def diffuse_paths(
    b: Bounces, direct: NDArray[np.complex128], medium: tuple[float, float]
) -> Diffuse:
    """The lobe's paths of the mirrored scatterers (module docstring).

    ``direct``: (m,) their direct amplitudes without the pattern; ``medium``: the one-way
    absorption, dB/m, and the wavelength, m. Only the rows with a lobe (rough sediment) and
    the points that reach the face on its lit side are kept.
    """
    absorption_db_per_m, wavelength = medium
    s2, share, legs = _lobe(b, wavelength)
    live = np.flatnonzero((s2 > 0.0) & (share > 0.0))
    if not live.size:
        return Diffuse(
            np.zeros(0, np.intp), np.zeros(0), np.zeros(0, np.complex128), np.zeros((0, 3))
        )
    b = _rows(b, live)
    s2, share, legs = s2[live], share[live], legs[live]
    frame = _frame(b)
    target, weight = _nodes(b, np.sqrt(s2), frame)
    points, zeta, area = _patch(b, frame, target, legs)
    sigma = _cross_section(b, points, zeta) * area * weight * share[:, None]
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
    amplitude = direct[live][:, None] * ratio * phases
    rows = np.repeat(live, GRID)
    return Diffuse(
        rows, (0.5 * (d1 + d2 + rd[:, None])).ravel(), amplitude.ravel(), points.reshape(-1, 3)
    )


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
