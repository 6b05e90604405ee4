"""URDF primitives as triangles: box, cylinder and sphere, in the frame of the shape.

Every mesh here is closed and wound counter-clockwise seen from outside, so the right-hand
normal ``(b - a) x (c - a)`` of each triangle points outward. Lengths are in metres.

Faceting: the triangles are inscribed in the curved surfaces, so a ray can travel a little
further than to the true surface, never less.

* Cylinder, ``n`` segments: vertices sit at angles ``2 pi k / n`` about the axis (z),
  starting at 0 on +x. The flat sides lie inside the circle by at most
  ``R (1 - cos(pi / n))`` (:func:`cylinder_faceting_error`): 1.2e-3 R for the default
  ``n = 64``, i.e. 0.30 mm on the reference target (R = 0.25 m). When ``n % 4 == 0`` there
  are vertices exactly on +x, +y, -x and -y, so rays along those directions through the axis
  meet the true radius.
* Sphere: an icosphere, the icosahedron's 20 faces split ``subdivisions`` times into four
  (``20 * 4**s`` triangles) with new vertices pushed out to the sphere. Its faces lie inside
  the sphere by at most ``R * SPHERE_FACETING_ERROR[s]``: s = 3 gives 1280 triangles and
  4.5e-3 R, the default s = 4 gives 5120 triangles and 1.1e-3 R (close to the default
  cylinder's).
* Capsule (SDF), ``n`` segments: a cylinder of ``n`` segments between two hemispheres of
  ``n // 4`` latitude steps (a latitude-longitude grid with steps of about ``2 pi / n`` both
  ways); its faces lie inside by at most :func:`capsule_faceting_error`,
  ``R (1 - cos(sqrt(2) pi / n))`` when ``n % 4 == 0``: 2.4e-3 R at the default ``n = 64``.
* Ellipsoid (SDF): the icosphere scaled by its three radii; inside the true ellipsoid by at
  most ``max(radii) * SPHERE_FACETING_ERROR[s]`` (a linear map moves no point further than
  its largest scale).
* Finite plane (SDF): a rectangle of two triangles, not closed, wound so that its normal is
  the plane's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.transforms import axis_angle_matrix, rotate_rows

__all__ = [
    'DEFAULT_CYLINDER_SEGMENTS',
    'DEFAULT_SPHERE_SUBDIVISIONS',
    'SPHERE_FACETING_ERROR',
    'Triangles',
    'box_triangles',
    'capsule_faceting_error',
    'capsule_triangles',
    'cylinder_faceting_error',
    'cylinder_triangles',
    'ellipsoid_triangles',
    'plane_triangles',
    'rotate_rows',
    'sphere_triangles',
]

#: Segments of a tessellated cylinder: 4 * 64 = 256 triangles, faceting error 1.2e-3 R.
DEFAULT_CYLINDER_SEGMENTS = 64

#: Subdivisions of a tessellated sphere: 5120 triangles, faceting error 1.1e-3 R.
DEFAULT_SPHERE_SUBDIVISIONS = 4

#: Largest depth of an icosphere's faces below the unit sphere, by subdivision count
#: (1 - the smallest distance of a face plane from the centre; computed, see the tests).
SPHERE_FACETING_ERROR: tuple[float, ...] = (
    0.2053,
    0.06583,
    0.01775,
    0.004528,
    0.001138,
    0.0002848,
)


@dataclass(frozen=True, eq=False)  # arrays: compare fields with numpy
class Triangles:
    """A triangle mesh as plain arrays.

    Attributes:
        vertices: (m, 3) float64 vertex positions, in metres, in the mesh's own frame.
        triangles: (k, 3) int64 vertex indices, counter-clockwise seen from outside.
        uvs: (m, 2) float32 texture coordinates of the vertices (u right, v up, as OpenGL),
            or None: a mesh file's, or a heightmap's normalised x and y; they place a
            reflectivity map (:mod:`nps_sonar_py.scene.reflectivity_map`).
        vertex_normals: (m, 3) float64 unit normals of the vertices of a sampled smooth
            surface (a heightmap's), zero rows for flat-shaded vertices, or None (all flat):
            the raycaster interpolates them over a hit's triangle (smooth shading).

    """

    vertices: NDArray[np.float64]
    triangles: NDArray[np.int64]
    uvs: NDArray[np.float32] | None = None
    vertex_normals: NDArray[np.float64] | None = None

    def __len__(self) -> int:
        return int(self.triangles.shape[0])

    def transformed(self, b_from_a: ArrayLike) -> Triangles:
        """Express the mesh in frame B, given ``b_from_a`` (4, 4): A's coordinates to B's.

        A transform that mirrors (negative determinant, as a negative mesh scale) reverses
        the winding, so it is flipped back to keep the normals outward.
        """
        m = np.asarray(b_from_a, dtype=np.float64)
        vertices = rotate_rows(self.vertices, m[:3, :3]) + m[:3, 3]
        triangles = self.triangles if np.linalg.det(m[:3, :3]) >= 0.0 else self.triangles[:, ::-1]
        normals = None
        if self.vertex_normals is not None and np.array_equal(m[:3, :3], np.eye(3)):
            normals = self.vertex_normals  # a translation: shared, not copied (a big seabed's)
        elif self.vertex_normals is not None:  # by the inverse transpose, kept unit
            normals = _unit_rows(self.vertex_normals @ np.linalg.inv(m[:3, :3]))
        return Triangles(vertices, np.ascontiguousarray(triangles), self.uvs, normals)

    def scaled(self, scale: ArrayLike) -> Triangles:
        """Scale each axis by ``scale`` (3,), as URDF's ``<mesh scale>``."""
        transform = np.diag([*np.asarray(scale, dtype=np.float64).reshape(3), 1.0])
        return self.transformed(transform)

    def normals(self) -> NDArray[np.float64]:
        """(k, 3) unit right-hand normals (outward for a closed mesh); zero if degenerate."""
        a, b, c = (self.vertices[self.triangles[:, i]] for i in range(3))
        n = np.cross(b - a, c - a)
        length = np.linalg.norm(n, axis=1, keepdims=True)
        return n / np.where(length > 0.0, length, 1.0)

    @staticmethod
    def concatenate(meshes: Iterable[Triangles]) -> Triangles:
        """One mesh holding all of ``meshes``, in their order (texture coordinates too, if any)."""
        parts = list(meshes)
        if not parts:
            return Triangles(np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64))
        offsets = np.cumsum([0] + [p.vertices.shape[0] for p in parts[:-1]])
        uvs = None
        if any(p.uvs is not None for p in parts):  # a part without any gets zeros
            uvs = np.concatenate(
                [
                    np.zeros((p.vertices.shape[0], 2), np.float32) if p.uvs is None else p.uvs
                    for p in parts
                ]
            )
        normals = None
        if any(p.vertex_normals is not None for p in parts):  # flat parts get zero rows
            normals = np.concatenate(
                [
                    np.zeros_like(p.vertices) if p.vertex_normals is None else p.vertex_normals
                    for p in parts
                ]
            )
        return Triangles(
            np.concatenate([p.vertices for p in parts]),
            np.concatenate([p.triangles + o for p, o in zip(parts, offsets, strict=True)]),
            uvs,
            normals,
        )


def _unit_rows(vectors: NDArray[np.float64]) -> NDArray[np.float64]:
    """Rows scaled to unit length; zero rows stay zero."""
    length = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit: NDArray[np.float64] = vectors / np.where(length > 0.0, length, 1.0)
    return unit


def _size(name: str, value: float) -> float:
    """Check a length: finite and not negative (zero gives degenerate triangles, never hit)."""
    value = float(value)
    if not (math.isfinite(value) and value >= 0.0):
        msg = f'{name} must be a finite number of metres >= 0, got {value!r}'
        raise ValueError(msg)
    return value


# The unit cube's corners, vertex i at bit 0 -> x, bit 1 -> y, bit 2 -> z.
_CUBE_VERTICES = (
    np.array([[(i >> 0) & 1, (i >> 1) & 1, (i >> 2) & 1] for i in range(8)], dtype=np.float64)
    - 0.5
)
_CUBE_TRIANGLES = np.array(
    [
        [0, 2, 3], [0, 3, 1],  # z = -1/2, normal -z
        [4, 5, 7], [4, 7, 6],  # z = +1/2, normal +z
        [0, 1, 5], [0, 5, 4],  # y = -1/2, normal -y
        [2, 6, 7], [2, 7, 3],  # y = +1/2, normal +y
        [0, 4, 6], [0, 6, 2],  # x = -1/2, normal -x
        [1, 3, 7], [1, 7, 5],  # x = +1/2, normal +x
    ],
    dtype=np.int64,
)  # fmt: skip


def box_triangles(size: ArrayLike) -> Triangles:
    """Tessellate a box of edge lengths ``size`` (x, y, z) in metres, centred: 12 triangles."""
    sx, sy, sz = (_size('box size', s) for s in np.asarray(size, dtype=np.float64).reshape(3))
    return Triangles(_CUBE_VERTICES * np.array([sx, sy, sz]), _CUBE_TRIANGLES.copy())


def cylinder_faceting_error(radius: float, segments: int = DEFAULT_CYLINDER_SEGMENTS) -> float:
    """Largest gap, m, between a ``segments``-gon cylinder and the true one: R (1 - cos(pi/n))."""
    return float(radius) * (1.0 - math.cos(math.pi / segments))


def cylinder_triangles(
    radius: float, length: float, segments: int = DEFAULT_CYLINDER_SEGMENTS
) -> Triangles:
    """Tessellate a capped cylinder about z, centred on the origin: ``4 * segments`` triangles.

    Vertex ``k`` of each rim is at angle ``2 pi k / segments`` from +x; angles that are
    multiples of pi/2 give exact zeros and ones, so no rounding moves those vertices.
    """
    radius = _size('cylinder radius', radius)
    half = _size('cylinder length', length) / 2.0
    n = int(segments)
    if n < 3:
        msg = f'a cylinder needs at least 3 segments, got {segments!r}'
        raise ValueError(msg)
    angle = 2.0 * math.pi * np.arange(n) / n
    c, s = np.cos(angle), np.sin(angle)
    c[np.abs(c) < 1e-12] = 0.0
    s[np.abs(s) < 1e-12] = 0.0
    ring = np.column_stack((radius * c, radius * s))
    vertices = np.concatenate(
        (
            np.column_stack((ring, np.full(n, -half))),  # bottom rim: 0 .. n-1
            np.column_stack((ring, np.full(n, half))),  # top rim: n .. 2n-1
            [[0.0, 0.0, -half], [0.0, 0.0, half]],  # cap centres: 2n, 2n+1
        ),
    )
    k = np.arange(n)
    k1 = (k + 1) % n
    bottom, top = np.full(n, 2 * n), np.full(n, 2 * n + 1)
    triangles = np.concatenate(
        (
            np.column_stack((k, k1, n + k1)),  # side, lower triangle of quad k
            np.column_stack((k, n + k1, n + k)),  # side, upper triangle
            np.column_stack((top, n + k, n + k1)),  # top cap, normal +z
            np.column_stack((bottom, k1, k)),  # bottom cap, normal -z
        ),
    )
    return Triangles(vertices, triangles.astype(np.int64))


def _icosahedron() -> Triangles:
    g = (1.0 + math.sqrt(5.0)) / 2.0
    v = np.array(
        [[-1, g, 0], [1, g, 0], [-1, -g, 0], [1, -g, 0], [0, -1, g], [0, 1, g],
         [0, -1, -g], [0, 1, -g], [g, 0, -1], [g, 0, 1], [-g, 0, -1], [-g, 0, 1]],
        dtype=np.float64,
    )  # fmt: skip
    f = np.array(
        [[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4],
         [11, 10, 2], [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8],
         [3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]],
        dtype=np.int64,
    )  # fmt: skip
    return Triangles(v / np.linalg.norm(v, axis=1, keepdims=True), f)


def _subdivide(mesh: Triangles) -> Triangles:
    """Split each triangle into four at its edge midpoints, pushed out to the unit sphere."""
    faces = mesh.triangles
    edges = np.sort(faces[:, [[0, 1], [1, 2], [2, 0]]].reshape(-1, 2), axis=1)
    unique, inverse = np.unique(edges, axis=0, return_inverse=True)
    mid = mesh.vertices[unique].mean(axis=1)
    vertices = np.concatenate((mesh.vertices, mid / np.linalg.norm(mid, axis=1, keepdims=True)))
    # midpoints of ab, bc, ca
    m = (inverse.reshape(-1, 3) + mesh.vertices.shape[0]).astype(np.int64)
    a, b, c = faces.T
    ab, bc, ca = m.T
    triangles = np.concatenate(
        (
            np.column_stack((a, ab, ca)),
            np.column_stack((b, bc, ab)),
            np.column_stack((c, ca, bc)),
            np.column_stack((ab, bc, ca)),
        ),
    )
    return Triangles(vertices, triangles)


def sphere_triangles(radius: float, subdivisions: int = DEFAULT_SPHERE_SUBDIVISIONS) -> Triangles:
    """Tessellate a sphere as an icosphere about the origin: ``20 * 4**subdivisions`` triangles."""
    radius = _size('sphere radius', radius)
    if not 0 <= int(subdivisions) <= 7:
        msg = f'sphere subdivisions must be in 0..7, got {subdivisions!r}'
        raise ValueError(msg)
    mesh = _icosahedron()
    for _ in range(int(subdivisions)):  # a few levels, each one vectorised
        mesh = _subdivide(mesh)
    return Triangles(mesh.vertices * radius, mesh.triangles)


def ellipsoid_triangles(
    radii: ArrayLike, subdivisions: int = DEFAULT_SPHERE_SUBDIVISIONS
) -> Triangles:
    """Tessellate an ellipsoid of semi-axes ``radii`` (x, y, z): the icosphere, scaled."""
    scale = [_size('ellipsoid radius', r) for r in np.asarray(radii, dtype=np.float64).reshape(3)]
    unit = sphere_triangles(1.0, subdivisions)
    return Triangles(unit.vertices * np.array(scale), unit.triangles)


def capsule_faceting_error(radius: float, segments: int = DEFAULT_CYLINDER_SEGMENTS) -> float:
    """Bound, m, on the gap between a tessellated capsule and the true one.

    A face of the hemispheres' latitude-longitude grid spans ``a = 2 pi / n`` in longitude
    and ``b = pi / (2 m)`` in latitude (``m = max(1, n // 4)``); its circumcircle's angular
    radius is at most ``sqrt(a**2 + b**2) / 2``, and a face lies ``R (1 - cos(that))`` inside
    at most: ``R (1 - cos(sqrt(2) pi / n))``, 2.4e-3 R, when ``n % 4 == 0``. The cylinder's
    flat sides are closer (``R (1 - cos(pi / n))``).
    """
    n = int(segments)
    m = max(1, n // 4)
    half_diagonal = math.hypot(2.0 * math.pi / n, math.pi / (2.0 * m)) / 2.0
    return float(radius) * (1.0 - math.cos(half_diagonal))


def _ring_angles(n: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Cosines and sines of ``2 pi k / n``, with exact zeros at the quadrants."""
    angle = 2.0 * math.pi * np.arange(n) / n
    c, s = np.cos(angle), np.sin(angle)
    c[np.abs(c) < 1e-12] = 0.0
    s[np.abs(s) < 1e-12] = 0.0
    return c, s


def capsule_triangles(
    radius: float, length: float, segments: int = DEFAULT_CYLINDER_SEGMENTS
) -> Triangles:
    """Tessellate a capsule about z, centred: a cylinder of ``length`` capped by hemispheres.

    As SDF's ``<capsule>``: ``length`` is that of the cylinder between the hemispheres'
    centres. ``segments`` (n) about the axis, ``m = max(1, n // 4)`` latitude steps per
    hemisphere: ``4 n m`` triangles (4096 for n = 64). The vertices lie on the true surface;
    rings sit at angles ``2 pi k / n`` from +x as the cylinder's.
    """
    radius = _size('capsule radius', radius)
    half = _size('capsule length', length) / 2.0
    n = int(segments)
    if n < 3:
        msg = f'a capsule needs at least 3 segments, got {segments!r}'
        raise ValueError(msg)
    m = max(1, n // 4)
    # Rings from the bottom to the top (poles apart): latitude phi from -pi/2 to pi/2.
    phi = np.pi / 2.0 * np.arange(1, m) / m  # 0 < phi < pi/2, rings between equator and pole
    lower = -half - radius * np.sin(phi[::-1])
    upper = half + radius * np.sin(phi)
    ring_z = np.concatenate((lower, [-half, half], upper))
    ring_r = np.concatenate((radius * np.cos(phi[::-1]), [radius, radius], radius * np.cos(phi)))
    c, s = _ring_angles(n)
    rings = len(ring_z)
    vertices = np.concatenate(
        (
            np.column_stack(
                (np.outer(ring_r, c).ravel(), np.outer(ring_r, s).ravel(), np.repeat(ring_z, n))
            ),
            [[0.0, 0.0, -half - radius], [0.0, 0.0, half + radius]],  # poles
        )
    )
    k = np.arange(n)
    k1 = (k + 1) % n
    base = (np.arange(rings - 1) * n)[:, None]  # each ring below the top one
    lo, lo1, up, up1 = base + k, base + k1, base + n + k, base + n + k1
    bottom, top, last = rings * n, rings * n + 1, (rings - 1) * n
    triangles = np.concatenate(
        (
            np.stack((lo, lo1, up1), axis=-1).reshape(-1, 3),
            np.stack((lo, up1, up), axis=-1).reshape(-1, 3),
            np.column_stack((np.full(n, top), last + k, last + k1)),
            np.column_stack((np.full(n, bottom), k1, k)),
        )
    )
    return Triangles(vertices, triangles.astype(np.int64))


def plane_triangles(size: ArrayLike, normal: ArrayLike = (0.0, 0.0, 1.0)) -> Triangles:
    """A finite plane through the origin: a ``size`` (x, y) rectangle facing ``normal``.

    The rectangle is laid out in the xy plane and turned by the shortest rotation that takes
    +z to the unit ``normal`` (by pi about x when the normal is -z), so that with the default
    normal its sides lie along x and y. Two triangles, wound counter-clockwise seen from
    the side the normal points to.
    """
    sx, sy = (_size('plane size', s) for s in np.asarray(size, dtype=np.float64).reshape(2))
    n = np.asarray(normal, dtype=np.float64).reshape(3)
    length = float(np.linalg.norm(n))
    if not (math.isfinite(length) and length > 0.0):
        msg = f'plane normal must be a finite non-zero vector, got {n.tolist()}'
        raise ValueError(msg)
    n = n / length
    axis = np.cross([0.0, 0.0, 1.0], n)
    sine = float(np.linalg.norm(axis))
    if sine > 1e-12:
        rotation = axis_angle_matrix(axis / sine, math.atan2(sine, float(n[2])))
    elif n[2] > 0.0:
        rotation = np.eye(3)
    else:
        rotation = np.diag([1.0, -1.0, -1.0])
    corners = np.array([[-sx, -sy, 0.0], [sx, -sy, 0.0], [sx, sy, 0.0], [-sx, sy, 0.0]]) / 2.0
    return Triangles(
        rotate_rows(corners, rotation), np.array([[0, 1, 2], [0, 2, 3]], dtype=np.int64)
    )
