"""The object library: the package's shapes and mesh files, each on its base.

Boxes, pipes and mines (cylinders), a tyre, a wreck, mesh files, and the kinds of
``dataset/shapes.py`` (drums, chains, cages, crab traps, propellers, an effigy, debris).

Each object is built in its own frame: x along its length, z up, the base at z = 0 and the
footprint centred on the origin, so that burial sinks it by a fraction of its height and yaw
turns it about its centre. The wreck is a small hull the package builds: U-shaped sections
tapering to a pointed bow, a transom stern, a deck and a deckhouse. Sizes are in metres.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nps_sonar_py.dataset.shapes import SHAPES, grid_triangles, torus_triangles
from nps_sonar_py.scene import Triangles, box_triangles, cylinder_triangles, read_mesh
from nps_sonar_py.transforms import transform_from_xyz_rpy

__all__ = ['ELONGATED', 'object_triangles', 'torus_triangles', 'wreck_triangles']

#: Kinds whose boxes are oriented (long and thin: a box around them at 45 degrees is mostly
#: empty).
ELONGATED = frozenset({'pipe', 'mine', 'wreck', 'chain'})


def wreck_triangles(length: float, beam: float, height: float) -> Triangles:
    """A small wreck: hull of ``length`` x ``beam``, deck at 0.6 ``height``, a deckhouse."""
    stations = 24
    x = np.linspace(-0.5 * length, 0.5 * length, stations)
    t = (x + 0.5 * length) / length  # 0 stern, 1 bow
    half = 0.5 * beam * np.where(t < 0.6, 1.0, np.sqrt(np.clip((1.0 - t) / 0.4, 0.0, 1.0)))
    half = np.maximum(half, 0.02 * beam)
    deck = 0.6 * height
    angles = np.linspace(0.0, math.pi, 13)  # port deck edge, down round the keel, starboard
    section_y = np.cos(angles)  # 1 .. -1
    section_z = deck * (1.0 - np.sin(angles) ** 0.6)  # 0 at the keel, deck at the edges
    vertices = np.stack(
        [
            np.repeat(x, angles.size),
            (half[:, None] * section_y[None, :]).ravel(),
            np.broadcast_to(section_z, (stations, angles.size)).ravel(),
        ],
        axis=-1,
    )
    hull = Triangles(vertices, grid_triangles(stations, angles.size, closed_cols=False))
    # Deck: a strip between the port and starboard deck edges; transom: a fan at the stern.
    port, starboard = vertices[:: angles.size], vertices[angles.size - 1 :: angles.size]
    deck_vertices = np.concatenate([port, starboard])
    n = stations
    k = np.arange(n - 1)
    deck_faces = np.concatenate(
        [np.stack([k, k + 1, n + k + 1], -1), np.stack([k, n + k + 1, n + k], -1)]
    )
    transom = Triangles(
        np.concatenate([vertices[: angles.size], [[x[0], 0.0, deck]]]),
        np.stack(
            [
                np.arange(angles.size - 1),
                np.arange(1, angles.size),
                np.full(angles.size - 1, angles.size),
            ],
            -1,
        ),
    )
    house = box_triangles([0.25 * length, 0.6 * beam, 0.4 * height]).transformed(
        transform_from_xyz_rpy([-0.15 * length, 0.0, deck + 0.2 * height], [0.0, 0.0, 0.0])
    )
    return Triangles.concatenate(
        [hull, Triangles(deck_vertices, deck_faces.astype(np.int64)), transom, house]
    )


def _lying_cylinder(radius: float, length: float) -> Triangles:
    """A cylinder along x resting on z = 0."""
    cylinder = cylinder_triangles(radius, length)  # about z, centred
    return cylinder.transformed(
        transform_from_xyz_rpy([0.0, 0.0, radius], [0.0, math.pi / 2, 0.0])
    )


def _on_base(mesh: Triangles) -> Triangles:
    """``mesh`` moved so that its footprint is centred on the origin and its base at z = 0."""
    low, high = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    shift = [-(low[0] + high[0]) / 2.0, -(low[1] + high[1]) / 2.0, -low[2]]
    return mesh.transformed(transform_from_xyz_rpy(shift, [0.0, 0.0, 0.0]))


def object_triangles(item: dict[str, Any]) -> Triangles:
    """The surface of a drawn object (``dataset/draw.py``) in its own frame, base at z = 0."""
    kind = item['kind']
    if kind == 'box':
        mesh = box_triangles([item['length'], item['width'], item['height']])
    elif kind in ('pipe', 'mine'):
        mesh = _lying_cylinder(item['radius'], item['length'])
    elif kind == 'tyre':
        mesh = torus_triangles(item['radius'], item['tube'])
    elif kind == 'wreck':
        mesh = wreck_triangles(item['length'], item['beam'], item['height'])
    elif kind in SHAPES:
        mesh = SHAPES[kind](item)
    else:  # mesh: a file, checked when the spec was read; SceneError if it cannot be read
        mesh = read_mesh(item['file']).scaled([item['scale']] * 3)
    return _on_base(mesh)
