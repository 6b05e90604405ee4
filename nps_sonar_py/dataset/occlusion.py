"""How much of each object the sensor cannot see: the occluded fraction, by straight rays.

Points are spread evenly over each object's surface (the centroids of each triangle cut into
``L x L`` equal parts). A point the object itself shows to the eye (the first hit of the ray
from the eye to the point, in a scene of the object alone, is the point) counts with its
projected area, ``area |cos|`` (the cosine between the surface's normal and the ray); it is
occluded when, in the whole scene, something else meets that ray first (the seabed over a
buried part or a crest, another object). The occluded fraction is the occluded projected
area over the projected area the object shows: 0 in plain view, 1 hidden. Its own far side
does not count (that is no occlusion). The rays are straight (refraction aside) and come
from one eye per object: the fan's origin, or the side-scan's ping abeam of the object.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.dataset.sensor import sensor_pose
from nps_sonar_py.scene import SceneState, World
from nps_sonar_py.scene.raycaster import Raycaster
from nps_sonar_py.scene.tessellation import Triangles

__all__ = ['MAX_POINTS', 'occluded_fractions', 'sensor_eyes', 'surface_points']

#: Most points spread over one object.
MAX_POINTS = 8192
#: Most parts each edge of a triangle is cut into.
MAX_LEVEL = 16


def _barycentric(level: int) -> NDArray[np.float64]:
    """(level**2, 3) barycentric centroids of a triangle cut into ``level x level`` equal parts."""
    i, j = np.meshgrid(np.arange(level), np.arange(level), indexing='ij')
    up = (i + j) <= level - 1
    down = (i + j) <= level - 2
    u = np.concatenate([(i[up] + 1 / 3) / level, (i[down] + 2 / 3) / level])
    v = np.concatenate([(j[up] + 1 / 3) / level, (j[down] + 2 / 3) / level])
    return np.stack([1.0 - u - v, u, v], axis=-1)


def surface_points(
    surface: Triangles, pose: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Points over ``surface`` placed by ``pose``: (n, 3) points, (n, 3) unit normals, (n,) areas.

    At most :data:`MAX_POINTS`: a surface of more triangles takes every k-th one.
    """
    vertices = surface.vertices @ pose[:3, :3].T + pose[:3, 3]
    triangles = surface.triangles
    stride = max(1, -(-len(triangles) // MAX_POINTS))
    triangles = triangles[::stride]
    level = int(np.clip(np.sqrt(MAX_POINTS / max(len(triangles), 1)), 1, MAX_LEVEL))
    corners = vertices[triangles]  # (k, 3, 3)
    cross = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    area = 0.5 * np.linalg.norm(cross, axis=-1)
    normals = cross / np.maximum(2.0 * area, 1e-300)[:, None]
    weights = _barycentric(level)
    points = np.einsum('pc,kcd->kpd', weights, corners).reshape(-1, 3)
    parts = len(weights)
    return (
        points,
        np.repeat(normals, parts, axis=0),
        np.repeat(area * stride / parts, parts),
    )


def _seen(
    caster: Raycaster, eye: NDArray[np.float64], points: NDArray[np.float64]
) -> NDArray[np.bool_]:
    """Whether the first hit of the ray from ``eye`` to each point is the point itself."""
    offset = points - eye
    distance = np.linalg.norm(offset, axis=-1)
    directions = offset / np.maximum(distance, 1e-12)[:, None]
    hits = caster.cast(np.broadcast_to(eye, points.shape).copy(), directions)
    return np.asarray(hits.ranges >= distance - (1e-3 + 1e-4 * distance))


def occluded_fractions(
    scene: World, caster: Raycaster, eyes: NDArray[np.float64]
) -> NDArray[np.float64]:
    """(objects,) occluded fraction of entities ``1..`` of ``scene`` (module docstring).

    ``caster`` casts into ``scene``; ``eyes`` (objects, 3) is each object's eye, world frame.
    """
    fractions = np.zeros(len(scene.entities) - 1)
    for k, (entity, state) in enumerate(zip(scene.entities[1:], scene.states[1:], strict=True)):
        points, normals, areas = surface_points(entity.surface, state.origin)
        eye = np.asarray(eyes[k], dtype=np.float64)
        alone = World(entity.name, (entity,), SceneState(entity.name, 0.0, (state,)))
        shown = _seen(Raycaster(alone), eye, points)
        offset = points - eye
        cos = np.abs(np.sum(normals * offset, axis=-1)) / np.maximum(
            np.linalg.norm(offset, axis=-1), 1e-12
        )
        weight = areas * cos * shown
        total = float(weight.sum())
        if total > 0.0:
            hidden = ~_seen(caster, eye, points[shown])
            fractions[k] = float(weight[shown][hidden].sum()) / total
    return fractions


def sensor_eyes(
    row: dict[str, Any], scene: World, lines: NDArray[np.float64] | None
) -> NDArray[np.float64]:
    """(objects, 3) each object's eye: the fan's origin, or the side-scan's ping abeam of it.

    ``lines``: the side-scan's ping positions along its track (None for a fan); an object's
    ping is the one at its place along the track from the block's middle, within the block.
    """
    objects = len(scene.entities) - 1
    if lines is None:
        return np.tile(sensor_pose(row, 0.0, pitched=True)[:3, 3], (objects, 1))
    middle = sensor_pose(row, 0.0, pitched=False)
    places = np.array([state.origin[:3, 3] for state in scene.states[1:]]).reshape(-1, 3)
    along = (places - middle[:3, 3]) @ middle[:3, 0]  # the track is the sensor's x
    xs = np.clip(along, lines[0], lines[-1])
    return np.array(
        [sensor_pose(row, 0.0, x=float(x), pitched=False)[:3, 3] for x in xs], dtype=np.float64
    ).reshape(-1, 3)
