"""The images of objects' fixed scatterers in the seabed: the paths by one and two bounces.

A scatterer ``P`` at height ``z`` over a locally flat seabed (unit normal ``n`` up, the sensor
``h`` over its plane) is heard, besides by its direct path at ``r_d = |P|``, by the paths
that bounce off the seabed on the way out, on the way back, or both (the image method: the
bounce unfolds into the straight line to the image ``P' = P - 2 z n``, at ``r_i = |P'|``):

* sensor -> seabed -> ``P`` -> sensor and its reverse, each of length ``r_i + r_d``: heard at
  ``(r_d + r_i) / 2``, weighted by the seabed's plane-wave reflection coefficient ``R``;
* sensor -> seabed -> ``P`` -> seabed -> sensor, of length ``2 r_i``: heard at ``r_i``,
  weighted ``R**2``.

Both bounces are at ``B = P' h / (h + z)``, where the line to the image crosses the seabed,
at the grazing angle ``theta = asin((h + z) / r_i)``. ``R`` is the seabed's coherent
reflection there: its sediment's Rayleigh coefficient, complex
(``sediment.reflection_coefficient``), its phase in the sum, times the roughness' coherent
part ``exp(-2 k**2 sigma**2 sin**2 theta)`` (Kirchhoff, Eckart 1953), ``sigma`` the rms
height of the sediment's roughness spectrum over the wavenumbers the bounce's first Fresnel
zone resolves (``sediment.roughness_variance``; 0 for a sediment without roughness: the
flat mirror).

Relative to the direct amplitude ``a = xi sqrt(mu A) cos(t_d) / r_d**2 exp(-a r_d)``
(``surface_echoes``), a path whose legs are ``r_in`` and ``r_out`` long, arriving on the
scatterer's face at ``t_in`` and leaving it at ``t_out``, has ``sqrt(mu A cos(t_in)
cos(t_out)) / (r_in r_out)`` (Lambert's bistatic law for the scatterer's area), the
absorption of its length, and the pattern of the directions it leaves and returns by:
the two-way pattern ``w`` split evenly over the legs, ``(w(P) w(P'))**(1/4)`` for one bounce,
``sqrt(w(P'))`` for two (a receive array hears each path from the direction of its last
leg, the scatterer's or its image's: :attr:`Images.arrivals`). The scatterer keeps its
``xi`` on every path (a point scatterer's phase does not depend on the directions); the
carrier phase is that of the path's length.

Which are heard: scatterers of entities without a seabed, heard directly (in front of the
rays' depth map and inside a channel's pattern), over a seabed (straight down from the
scatterer, the first surface met is a seabed's: ``Below``), above it, with the sensor above
its plane; the way to the bounce point open: the cast ray in the image's direction ends on
a seabed or on nothing, not on an object (``Open``: over relief the seabed there, not the
plane under the scatterer, is where the path bounces); arriving on the side of the
scatterer's face the sensor sees; and the leg from the bounce point up to the scatterer
clear (``Clear``: one cast of those legs, from the scatterer towards the bounce point).
``docs/multipath.md``, "The seabed images of the fixed scatterers".

A rough seabed scatters what it takes from the coherent image around it: each mirrored
scatterer is also heard by the diffuse one-bounce paths of ``seabed_diffuse`` (the rows after
:attr:`Images.coherent`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo.entity_scatterers import EntityMesh
from nps_sonar_py.echo.seabed_diffuse import Bounces, Diffuse, diffuse_paths, fresnel_lowest
from nps_sonar_py.echo.sediment import (
    Sediment,
    coherent_roughness_factor,
    reflection_coefficient,
    roughness_variance,
)

__all__ = [
    'Below',
    'Clear',
    'Ground',
    'Images',
    'Looks',
    'Meshes',
    'Open',
    'ground',
    'open_to_seabed',
    'seabed_images',
    'seabed_rows',
]

#: An intensity loss of x dB is a factor exp(-x ln(10) / 10).
_DB_TO_NEPER = math.log(10.0) / 10.0
#: The look straight down starts this far off the scatterer's face, on its lit side, m.
OFFSET = 1e-4


@dataclass(frozen=True, eq=False)
class Ground:
    """What lies straight down from some points.

    Attributes:
        distance: (m,) down to the first surface, m (inf: nothing).
        normals: (m, 3) that surface's unit normal there (world frame, either orientation).
        sediments: the rows whose surface is a seabed's, with that seabed's sediment.
    """

    distance: NDArray[np.float64]
    normals: NDArray[np.float64]
    sediments: tuple[tuple[NDArray[np.intp], Sediment], ...]


#: The ground straight down from (m, 3) points in the world.
Below = Callable[[NDArray[np.float64]], Ground]


#: Whether the cast ray in each direction (m, 3 in the sensor's frame; ranges (m,)) ends on a
#: seabed or on nothing: no object stands between the sensor and the seabed there.
Open = Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.bool_]]

#: Whether the straight legs from (m, 3) world points to (m, 3) world points meet nothing
#: but a seabed (or nothing at all) on their way.
Clear = Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.bool_]]

#: What the images need to look at: the ground below, the open way to it, the clear leg up.
Looks = tuple[Below, Open, Clear]

#: The meshes of the entities that own some triangle ids (``scene.hits.HitTriangles``).
Meshes = Callable[[NDArray[np.int64]], tuple[EntityMesh, ...]]


def seabed_rows(
    ids: NDArray[np.int64], meshes: Meshes
) -> tuple[tuple[NDArray[np.intp], Sediment], ...]:
    """The rows of triangle ids ``ids`` (-1: none) on each seabed, with its sediment."""
    hit = ids[ids >= 0]
    sediments = []
    for mesh in meshes(hit) if hit.size else ():
        if mesh.seabed is not None:
            end = mesh.first + mesh.triangles.shape[0]
            rows = np.flatnonzero((ids >= mesh.first) & (ids < end))
            sediments.append((rows, mesh.seabed.sediment))
    return tuple(sediments)


def ground(
    distance: NDArray[np.floating],
    normals: NDArray[np.floating],
    ids: NDArray[np.int64],
    meshes: Meshes,
) -> Ground:
    """The ground of a cast straight down: its ranges, normals, triangle ids (-1 none), meshes."""
    d = np.where(ids >= 0, np.asarray(distance, dtype=np.float64), np.inf)
    return Ground(d, np.asarray(normals, dtype=np.float64), seabed_rows(ids, meshes))


def open_to_seabed(ids: NDArray[np.int64], meshes: Meshes) -> NDArray[np.bool_]:
    """Which of the triangle ids ``ids`` (-1: none) are a seabed's or none."""
    seen = ids < 0
    for rows, _ in seabed_rows(ids, meshes):
        seen[rows] = True
    return seen


@dataclass(frozen=True, eq=False)
class Images:
    """The image paths' echoes: channel, range heard at (m), amplitude with its pattern.

    ``arrivals``: (k, 3) the point (sensor frame) whose direction each path returns from,
    the scatterer, its image or a patch point of the seabed: a receive array steers to it
    (``formed_engine``). The first ``coherent`` rows are the coherent image paths, the rest
    the rough seabed's diffuse one-bounce paths (``seabed_diffuse``).
    """

    channels: NDArray[np.intp]
    ranges: NDArray[np.float64]
    amplitudes: NDArray[np.complex128]
    arrivals: NDArray[np.float64]
    coherent: int = 0


def _dot(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """Row by row dot products."""
    dot: NDArray[np.float64] = np.einsum('ij,ij->i', a, b)
    return dot


def _mirror(
    world_from_sensor: NDArray[np.float64],
    seabed: Looks,
    body: NDArray[np.float64],
    normals: NDArray[np.float64],
) -> tuple[NDArray[np.intp], NDArray[np.float64], Bounces]:
    """Which scatterers (sensor frame) have a seabed image: rows, images and their bounces.

    ``normals``: their faces' unit normals. Module docstring: above a seabed, the sensor
    above its plane, the way to the image open to the seabed, on the lit side of the face,
    the leg from the bounce point up to the scatterer clear.
    """
    below, open_to, clear = seabed
    rotation, origin = world_from_sensor[:3, :3], world_from_sensor[:3, 3]
    facing = normals * np.where(_dot(body, normals) < 0.0, 1.0, -1.0)[:, None]  # to the sensor
    start = body + OFFSET * facing
    under = below(start @ rotation.T + origin)
    up = under.normals * np.where(under.normals[:, 2] < 0.0, -1.0, 1.0)[:, None]
    up = up @ rotation  # into the sensor's frame
    foot = start - np.nan_to_num(under.distance, posinf=0.0)[:, None] * rotation[2]
    z = _dot(body - foot, up)
    h = -_dot(foot, up)
    sediment = np.full(body.shape[0], -1, dtype=np.intp)
    for k, (rows, _) in enumerate(under.sediments):
        sediment[rows] = k
    ok = (sediment >= 0) & np.isfinite(under.distance) & (z > 0.0) & (h > 0.0)
    rows = np.flatnonzero(ok)
    z, h, up = z[rows], h[rows], up[rows]
    image = body[rows] - 2.0 * z[:, None] * up
    bounce = image * (h / (h + z))[:, None]
    seen = open_to(image, np.sqrt(_dot(image, image)))
    seen &= _dot(bounce - body[rows], facing[rows]) > 0.0
    keep = np.flatnonzero(seen)
    ends = (start[rows[keep]], bounce[keep])
    keep = keep[clear(ends[0] @ rotation.T + origin, ends[1] @ rotation.T + origin)]
    rows, image = rows[keep], image[keep]
    sin = np.minimum((h + z)[keep] / np.sqrt(_dot(image, image)), 1.0)
    kinds = tuple(kind for _, kind in under.sediments)
    found = Bounces(
        body[rows], facing[rows], body[rows] @ rotation.T + origin, up[keep], h[keep],
        bounce[keep], sin, kinds, sediment[rows],
    )  # fmt: skip
    return rows, image, found


def _reflection(b: Bounces, wavelength: float) -> NDArray[np.complex128]:
    """The coherent reflection of the paths' bounces: Rayleigh's ``R`` times the roughness'.

    The roughness counts over the first Fresnel zone of the bounce (legs ``d1 = |B|`` and
    ``d2 = |P - B|``): heights of wavenumbers above ``pi / a``, ``a`` the radius of the zone's
    area (``docs/multipath.md``, "A rough seabed's mirror").
    """
    d1 = np.sqrt(_dot(b.bounce, b.bounce))
    leg = b.body - b.bounce
    lowest = fresnel_lowest(d1, np.sqrt(_dot(leg, leg)), b.sin, wavelength)
    r = np.zeros(b.body.shape[0], dtype=np.complex128)
    k = 2.0 * math.pi / wavelength
    for index, kind in enumerate(b.kinds):
        mine = b.sediment == index
        grazing = np.arcsin(b.sin[mine])
        rough = coherent_roughness_factor(k, roughness_variance(kind, lowest[mine]), grazing)
        r[mine] = reflection_coefficient(kind, grazing) * rough
    return r


def _across(
    lobe: Diffuse,
    channels: NDArray[np.intp],
    pattern: Callable[[NDArray[np.float64]], tuple[NDArray[np.intp], NDArray[np.float64]]],
) -> NDArray[np.float64]:
    """Each lobe path's one-way pattern at its patch, ``sqrt(w)``, averaged over its cell.

    Zero where the cell lies in another channel than ``channels`` (its scatterer's): a
    channel of one beam hears a path only both ways through itself.
    """
    if not lobe.rows.size:
        return np.zeros(0)
    channel, w = pattern(lobe.spread.reshape(-1, 3))
    sub = lobe.shares.shape[1]
    heard = np.flatnonzero(w > 0.0)
    heard = heard[channel[heard] == channels[heard // sub]]
    share = np.sqrt(w[heard]) * lobe.shares.ravel()[heard]
    mean = np.bincount(heard // sub, share, minlength=channels.size)
    return mean.astype(np.float64, copy=False)


def seabed_images(
    world_from_sensor: NDArray[np.float64],
    seabed: Looks,
    scatterers: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.complex128]],
    pattern: Callable[[NDArray[np.float64]], tuple[NDArray[np.intp], NDArray[np.float64]]],
    medium: tuple[float, float],
) -> Images:
    """The echoes of the scatterers' images in the seabed (module docstring).

    Args:
        world_from_sensor: (4, 4) the sensor's pose.
        seabed: the ground straight down from points in the world, whether the cast ray
            towards a direction ends on a seabed or nothing, and whether legs are clear.
        scatterers: (q, 3) positions in the sensor's frame, their faces' (q, 3) unit
            normals and their (q,) direct amplitudes without the pattern.
        pattern: each point's channel and that channel's two-way pattern there.
        medium: the one-way absorption, dB/m, and the wavelength, m.
    """
    body, normals, direct = scatterers
    if not body.shape[0]:
        none = np.zeros(0)
        return Images(none.astype(np.intp), none, none.astype(np.complex128), np.zeros((0, 3)))
    absorption_db_per_m, wavelength = medium
    rows, image, bounces = _mirror(world_from_sensor, seabed, body, normals)
    r = _reflection(bounces, wavelength)
    p, n = body[rows], normals[rows]
    rd = np.sqrt(_dot(p, p))
    ri = np.sqrt(_dot(image, image))
    leg = bounces.bounce - p
    cos_in = np.abs(_dot(leg, n)) / np.sqrt(_dot(leg, leg))
    cos_out = np.abs(_dot(p, n)) / rd
    channel, w_d = pattern(p)
    image_channel, w_i = pattern(image)
    ok = (cos_out > 0.0) & (w_d > 0.0) & (w_i > 0.0)
    ratio = np.sqrt(np.where(ok, cos_in / np.where(ok, cos_out, 1.0), 0.0)) * (rd / ri)
    if absorption_db_per_m > 0.0:
        ratio *= np.exp(-0.5 * absorption_db_per_m * _DB_TO_NEPER * (ri - rd))
    one = direct[rows] * r * ratio * np.sqrt(np.sqrt(w_d * w_i))
    one = np.where(channel == image_channel, one, 0.0)
    two = direct[rows] * r * r * ratio * ratio * np.sqrt(w_i)
    mean = 0.5 * (rd + ri)
    lobe = diffuse_paths(bounces, direct[rows], medium)
    at = lobe.rows
    diffuse = lobe.amplitudes * np.sqrt(np.sqrt(w_d[at]) * _across(lobe, channel[at], pattern))
    return Images(
        np.concatenate([channel, image_channel, image_channel, channel[at], channel[at]]),
        np.concatenate([mean, mean, ri, lobe.ranges, lobe.ranges]),
        np.concatenate([one, one, two, diffuse, diffuse]),
        np.concatenate([p, image, image, p[at], lobe.points]),
        3 * rows.size,
    )
