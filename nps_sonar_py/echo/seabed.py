"""A surface's seabed: its sediment's backscatter law, texture and ripples (``docs/seabed.md``).

The echo model's incoherent law is ``I = B dOmega mu cos(alpha) / r**2`` (``model.py``) with
``mu`` the hit surface's Lambert coefficient. A surface with a :class:`Seabed` gives instead,
ray by ray, the *equivalent* Lambert coefficient :func:`seabed_reflectivity`

    mu = sigma(theta') T / (cos**2(alpha) (n . n'))

so that the same law returns ``B dOmega sigma(theta') T dA' / r**4``: ``sigma`` the
sediment's backscatter cross section (:mod:`nps_sonar_py.echo.sediment`, or Lambert's
``mu_L sin**2``) at the grazing angle ``theta'`` on the local facet of normal ``n'`` (the
mesh's ``n`` tilted by the ripples, :func:`rippled_normals`), ``dA' = r**2 dOmega /
(cos(alpha) (n . n'))`` the facet's area, and ``T`` the texture (:func:`texture_factor`,
mean 1). That is the one hook: the sensors' casters hand this ``mu`` in the hits'
``reflectivity`` (``sensing.seabed_caster``), and every law that reads ``mu`` (the
incoherent profile, the coherent ``ray_intensities``) follows. Without ripples and texture,
a Lambert seabed gives ``mu_L`` back.

The texture is K-distribution clutter's scatterer density: a gamma variate of shape ``nu``
and mean 1 fixed to the surface (a smooth Gaussian field of the point, seeded, mapped
through the gamma quantile), which times the speckle of the echo models gives K-distributed
intensity of scintillation index ``1 + 2 / nu``; no shape is Rayleigh.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from enum import Enum

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import gammaincinv, ndtr

from nps_sonar_py.echo.scatterers import scatterer_draws
from nps_sonar_py.echo.sediment import (
    SEDIMENTS,
    BackscatterTable,
    Sediment,
    backscatter_table,
    reflection_coefficient,
)
from nps_sonar_py.records import Record, refuse, setting

__all__ = [
    'BackscatterModel',
    'Seabed',
    'gamma_texture',
    'gaussian_field',
    'model_frequency',
    'named_seabed',
    'rippled_normals',
    'scatterer_texture',
    'seabed_mirror',
    'seabed_reflectivities',
    'seabed_reflectivity',
    'seabed_table',
    'texture_factor',
    'texture_shape',
]

F = NDArray[np.float64]

#: Shapes above this are Rayleigh (the texture's standard deviation under 1 %).
RAYLEIGH_SHAPE = 1e4
#: The smallest shape the texture table holds.
SMALLEST_SHAPE = 0.05
#: The frequencies the APL-UW model is stated for, Hz (APL-UW TR 9407).
APL_UW_LOWEST, APL_UW_HIGHEST = 10e3, 100e3
#: The incidence cosine under which a ray is taken as grazing the mesh (no division by 0).
_SMALLEST_COS = 1e-6


class BackscatterModel(Enum):
    """Which law gives the seabed's backscatter cross section against grazing angle."""

    APL_UW = 'apl_uw'
    LAMBERT = 'lambert'


@dataclass(frozen=True)
class Seabed(Record):
    """A surface's seabed, checked on creation (``records``); ``docs/seabed.md``.

    Attributes:
        sediment: the sediment's parameters (the APL-UW model's).
        model: ``apl_uw`` (the sediment's composite roughness and volume law) or ``lambert``.
        lambert_db: Lambert's ``10 log10 mu``, dB, for ``model`` lambert.
        texture_shape: the K-distribution shape ``nu`` against grazing angle, as pairs
            ``(grazing in degrees, nu)`` with increasing angles, linear between them and
            held beyond; empty: no texture (Rayleigh).
        texture_patch: correlation length of the texture, m.
        texture_seed: selects another realisation of the texture.
        ripple_wavelength: wavelength of the ripples, m; 0: none.
        ripple_height: crest-to-trough height of the ripples, m.
        ripple_direction: direction of the ripples' wave vector (across the crests) in the
            surface entity's frame, rad from its x axis toward y.
        extrapolate: evaluate the APL-UW model at the sonar's frequency even outside the
            10-100 kHz it is stated for; by default it is evaluated at the nearest end of that
            range (:func:`model_frequency`, ``docs/seabed.md``).
    """

    members_only = True
    prefix = 'seabed.'

    sediment: Sediment = setting(SEDIMENTS['sand'], 'the sediment parameters')
    model: BackscatterModel = setting(BackscatterModel.APL_UW, 'apl_uw or lambert')
    lambert_db: float = setting(-27.0, 'Lambert coefficient [dB]', -100.0, 0.0)
    texture_shape: tuple[float, ...] = setting(
        (), 'pairs of grazing angle [deg] and K shape nu', 0.0, RAYLEIGH_SHAPE
    )
    texture_patch: float = setting(0.5, 'texture correlation length [m]', 1e-3, 1e3)
    texture_seed: int = setting(0, 'texture realisation', 0, 2**31 - 1)
    ripple_wavelength: float = setting(0.0, 'ripple wavelength [m]', 1e-3, 1e3, zero=True)
    ripple_height: float = setting(0.0, 'ripple crest-to-trough height [m]', 0.0, 10.0)
    ripple_direction: float = setting(
        0.0, 'ripple wave vector direction [rad]', -2.0 * math.pi, 2.0 * math.pi
    )
    extrapolate: bool = setting(False, 'APL-UW model at any frequency, not held to 10-100 kHz')

    def __post_init__(self) -> None:
        super().__post_init__()
        pairs = self.texture_shape
        if len(pairs) % 2:
            refuse('seabed.texture_shape', 'must be pairs of grazing angle and shape', pairs)
        angles, shapes = pairs[0::2], pairs[1::2]
        if any(a > 90.0 for a in angles) or any(b <= a for a, b in itertools.pairwise(angles)):
            refuse('seabed.texture_shape', 'must have increasing angles in [0, 90] deg', pairs)
        if any(s < SMALLEST_SHAPE for s in shapes):
            refuse('seabed.texture_shape', f'must have shapes >= {SMALLEST_SHAPE}', pairs)


#: The texture of the named sediments: (grazing deg, nu) pairs (``docs/seabed.md``).
_TEXTURES = {
    'fine': (10.0, 20.0, 60.0, 50.0),
    'sand': (10.0, 5.0, 60.0, 20.0),
    'coarse': (10.0, 1.5, 60.0, 4.0),
    'rock': (10.0, 0.7, 60.0, 2.0),
}
_TEXTURE_OF = {
    'silt': 'fine',
    'mud': 'fine',
    'sand': 'sand',
    'medium_sand': 'sand',
    'fine_sand': 'sand',
    'coarse_sand': 'sand',
    'gravel': 'coarse',
    'cobble': 'coarse',
    'rock': 'rock',
}


def named_seabed(name: str) -> Seabed:
    """The seabed of a named sediment (``SEDIMENTS``) with its default texture.

    Raises ``ConfigurationError`` naming the choices for an unknown name.
    """
    if name not in SEDIMENTS:
        refuse('sediment', f'must be one of {", ".join(sorted(SEDIMENTS))}', name)
    return Seabed(SEDIMENTS[name], texture_shape=_TEXTURES[_TEXTURE_OF[name]])


def texture_shape(seabed: Seabed, grazing: ArrayLike) -> F:
    """(m,) the K shape ``nu`` at each grazing angle (rad); inf without a texture."""
    theta = np.degrees(np.asarray(grazing, dtype=np.float64))
    pairs = seabed.texture_shape
    if not pairs:
        return np.full(theta.shape, np.inf)
    shape: F = np.interp(theta, np.asarray(pairs[0::2]), np.asarray(pairs[1::2]))
    return shape


def gaussian_field(points: NDArray[np.float64], patch: float, seed: int) -> F:
    """(m,) a smooth standard normal field at ``points`` (3, m), fixed to the surface.

    Independent standard normals on the nodes of a square lattice of edge ``patch`` over the
    surface entity's x-y plane (a seabed's; each node's value a hash of the node and the
    seed, ``scatterer_draws``, by Box and Muller) are blended bilinearly, normalised by the
    root sum of the squared weights: every point's value is exactly standard normal, points
    a patch or more apart independent. ``z`` plays no part (one value through the depth).
    """
    scaled = np.asarray(points, dtype=np.float64)[:2] * (1.0 / patch)
    base = np.floor(scaled)
    high = scaled - base  # the weights of each axis' far node
    low = 1.0 - high
    base += 0.5  # a node's cell, by its centre (scatterer_draws floors it)
    middle = np.full(scaled.shape[1], 0.5)
    total = np.zeros(scaled.shape[1])
    for corner in range(4):
        bits = [(corner >> axis) & 1 for axis in range(2)]
        node = [base[0] + bits[0], base[1] + bits[1], middle]
        power, turns = scatterer_draws(node, 1.0, seed)
        turns *= np.float32(2.0 * math.pi)
        normal = np.sqrt(power + power) * np.cos(turns)
        normal *= (high if bits[0] else low)[0]
        normal *= (high if bits[1] else low)[1]
        total += normal
    total /= np.sqrt((low[0] ** 2 + high[0] ** 2) * (low[1] ** 2 + high[1] ** 2))
    return total


@functools.lru_cache(maxsize=1)
def _quantile_table() -> tuple[F, F, F]:
    """Log shapes, z grid and the gamma quantiles of mean 1 there, ``(S, Z)``."""
    log_shapes = np.linspace(math.log(SMALLEST_SHAPE), math.log(RAYLEIGH_SHAPE), 161)
    z = np.linspace(-6.0, 6.0, 961)
    shapes = np.exp(log_shapes)[:, None]
    table = gammaincinv(shapes, ndtr(z)[None, :]) / shapes
    return log_shapes, z, np.asarray(table)


def gamma_texture(shape: ArrayLike, z: ArrayLike) -> F:
    """The gamma variate of mean 1 and shape ``nu`` whose normal score is ``z``.

    ``Q_nu(Phi(z)) / nu``, bilinear in a table over ``log nu`` and ``z`` (``z`` held to
    [-6, 6]); ``nu`` at or above ``RAYLEIGH_SHAPE`` (inf too) gives 1.
    """
    log_shapes, grid, table = _quantile_table()
    nu = np.broadcast_to(np.asarray(shape, dtype=np.float64), np.shape(z))
    zz = np.clip(np.asarray(z, dtype=np.float64), grid[0], grid[-1])
    s = (np.log(np.clip(nu, SMALLEST_SHAPE, RAYLEIGH_SHAPE)) - log_shapes[0]) / (
        log_shapes[1] - log_shapes[0]
    )
    t = (zz - grid[0]) / (grid[1] - grid[0])
    i = np.minimum(np.floor(s).astype(np.intp), log_shapes.size - 2)
    j = np.minimum(np.floor(t).astype(np.intp), grid.size - 2)
    ds, dt = s - i, t - j
    value = (
        table[i, j] * (1 - ds) * (1 - dt)
        + table[i + 1, j] * ds * (1 - dt)
        + table[i, j + 1] * (1 - ds) * dt
        + table[i + 1, j + 1] * ds * dt
    )
    out: F = np.where(nu >= RAYLEIGH_SHAPE, 1.0, value)
    return out


def texture_factor(
    points: NDArray[np.float64], shape: ArrayLike, patch: float, seed: int = 0
) -> F:
    """(m,) the scatterer density at ``points`` (3, m), m: gamma of shape ``nu``, mean 1.

    Fixed to the surface (a point gives the same value in every ping), deterministic from
    ``seed``; multiply a scatterer's power by it (its amplitude by the square root) for
    K-distributed echoes. ``shape`` inf: 1 (Rayleigh).
    """
    return gamma_texture(shape, gaussian_field(points, patch, seed))


def scatterer_texture(seabed: Seabed, sin_grazing: ArrayLike, scores: ArrayLike) -> F:
    """(m,) the texture ``T`` of fixed scatterers: the gamma variate of their normal scores.

    ``scores`` (m,) each scatterer's value of :func:`gaussian_field` at its place (fixed to
    the surface), ``sin_grazing`` (m,) the sine of its grazing angle on the mesh now (the
    shape ``nu`` follows it, :func:`texture_shape`): the same ``T`` the rays' law gives a hit
    at that place, mean 1 whatever ``nu``; 1 without a texture.
    """
    grazing = np.arcsin(np.minimum(np.asarray(sin_grazing, dtype=np.float64), 1.0))
    return gamma_texture(texture_shape(seabed, grazing), scores)


def rippled_normals(
    normals: NDArray[np.float64], points: NDArray[np.float64], seabed: Seabed
) -> tuple[F, F]:
    """(m, 3) the facet normals ``n'`` of the ripples at ``points`` (3, m), and ``n . n'``.

    The surface height ``h = H/2 sin(2 pi (p . e) / L)`` along the ripples' direction ``e``
    (taken in the plane of each facet) tilts the unit normal ``n`` to ``n - h' e``,
    normalised, ``h' = (pi H / L) cos(2 pi (p . e) / L)``. No ripples: ``n`` and 1.
    """
    n = np.asarray(normals, dtype=np.float64)
    if seabed.ripple_wavelength == 0.0 or seabed.ripple_height == 0.0:
        return n, np.ones(n.shape[0])
    heading = seabed.ripple_direction
    e = np.array([math.cos(heading), math.sin(heading), 0.0])
    along = e[None, :] - (n @ e)[:, None] * n
    length = np.linalg.norm(along, axis=1)
    along /= np.where(length > 0.0, length, 1.0)[:, None]
    phase = (2.0 * math.pi / seabed.ripple_wavelength) * (e @ np.asarray(points))
    slope = (math.pi * seabed.ripple_height / seabed.ripple_wavelength) * np.cos(phase)
    slope = np.where(length > 1e-9, slope, 0.0)
    tilted = n - slope[:, None] * along
    norm = np.sqrt(1.0 + slope * slope)  # |n - h' e_t| with e_t a unit vector normal to n
    return tilted / norm[:, None], 1.0 / norm


def seabed_mirror(
    seabed: Seabed, directions: NDArray[np.float64], normals: NDArray[np.float64]
) -> F:
    """(m,) ``|R|**2`` of the seabed as a mirror: its sediment's Rayleigh reflection.

    At the grazing angle of each ray on the mesh (``asin |d . n|``), the plane the multipath
    mirrors in: below the critical angle a lossless fluid sediment reflects everything and
    the loss parameter takes a little; at normal incidence ``((a_rho a_c - 1) / (a_rho a_c +
    1))**2`` (``docs/seabed.md``). The backscatter law, the texture and the ripples are the
    diffuse part and do not enter.

    Args:
        seabed: the surface's seabed.
        directions: (m, 3) unit ray directions, in the frame of ``normals``.
        normals: (m, 3) unit normals of the mesh at the hits, either orientation.
    """
    sin = np.abs(np.einsum('ij,ij->i', np.asarray(directions), np.asarray(normals)))
    grazing = np.arcsin(np.minimum(sin, 1.0))
    r = reflection_coefficient(seabed.sediment, grazing)
    return np.asarray((r * r.conj()).real)


def seabed_reflectivity(
    seabed: Seabed,
    table: BackscatterTable | None,
    directions: NDArray[np.float64],
    normals: NDArray[np.float64],
    points: NDArray[np.float64],
) -> F:
    """(m,) the equivalent Lambert coefficient of each hit on the seabed (module docstring).

    :func:`seabed_reflectivities`' first.
    """
    return seabed_reflectivities(seabed, table, directions, normals, points)[0]


def seabed_reflectivities(
    seabed: Seabed,
    table: BackscatterTable | None,
    directions: NDArray[np.float64],
    normals: NDArray[np.float64],
    points: NDArray[np.float64],
) -> tuple[F, F | None]:
    """(m,) the equivalent Lambert coefficient of each hit, and (m,) it without the texture.

    The second is what the fixed scatterers take, which carry the texture at their own
    places (:func:`scatterer_texture`); ``None`` for a seabed without texture (the first).

    Args:
        seabed: the surface's seabed.
        table: its sediment's backscatter table at the sonar's frequency
            (``sediment.backscatter_table``); ``None`` for ``model`` lambert.
        directions: (m, 3) unit ray directions, in the frame of ``normals`` and ``points``.
        normals: (m, 3) unit normals of the mesh at the hits, either orientation.
        points: (3, m) the hit points, m, in the surface entity's frame (ripples and texture
            are fixed to it).

    A facet the ripples turn away from the ray (in their shadow) returns nothing.
    """
    d = np.asarray(directions, dtype=np.float64)
    n = np.asarray(normals, dtype=np.float64)
    mesh = np.einsum('ij,ij->i', d, n)
    cos_mesh = np.maximum(np.abs(mesh), _SMALLEST_COS)
    tilted, tilt = rippled_normals(n, points, seabed)
    local = np.einsum('ij,ij->i', d, tilted)
    lit = local * mesh > 0.0  # the facet faces the ray as the mesh does
    sin_local = np.minimum(np.abs(local), 1.0)
    grazing = np.arcsin(sin_local)
    if table is None:
        sigma = 10.0 ** (seabed.lambert_db / 10.0) * sin_local * sin_local
    else:
        sigma = table.cross_section(grazing)
    scale = cos_mesh * cos_mesh * tilt
    untextured = None
    if seabed.texture_shape:
        untextured = np.asarray(np.where(lit, sigma / scale, 0.0))
        scores = gaussian_field(points, seabed.texture_patch, seabed.texture_seed)
        sigma = sigma * scatterer_texture(seabed, sin_local, scores)
    mu = sigma / scale
    return np.asarray(np.where(lit, mu, 0.0)), untextured


def model_frequency(seabed: Seabed, frequency: float) -> float:
    """The frequency the APL-UW model is evaluated at for a sonar of ``frequency`` Hz.

    The sonar's, held to the model's stated 10-100 kHz unless ``seabed.extrapolate``.

    >>> model_frequency(Seabed(), 600e3), model_frequency(Seabed(extrapolate=True), 600e3)
    (100000.0, 600000.0)
    """
    if seabed.extrapolate:
        return float(frequency)
    return float(min(max(frequency, APL_UW_LOWEST), APL_UW_HIGHEST))


def seabed_table(seabed: Seabed, frequency: float, sound_speed: float) -> BackscatterTable | None:
    """The backscatter table :func:`seabed_reflectivity` needs (None for Lambert), cached.

    At :func:`model_frequency` of the sonar's ``frequency`` (Hz); ``sound_speed`` in m/s.
    """
    if seabed.model is BackscatterModel.LAMBERT:
        return None
    return backscatter_table(seabed.sediment, model_frequency(seabed, frequency), sound_speed)
