"""Open3D's raw cast: the baseline the ping benchmarks print their ratios against.

Built here once for all of them: the same triangles and rays, handed to Open3D directly.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import open3d as o3d

from nps_sonar_py.scene import Triangles, World

__all__ = ['open3d_rays', 'open3d_scene', 'world_scene']


def open3d_scene(parts: Iterable[Triangles]) -> o3d.t.geometry.RaycastingScene:
    """One Open3D scene of ``parts`` as they stand (its BVH is built by the first cast)."""
    scene = o3d.t.geometry.RaycastingScene()
    for part in parts:
        scene.add_triangles(
            o3d.core.Tensor(part.vertices.astype(np.float32)),
            o3d.core.Tensor(part.triangles.astype(np.uint32)),
        )
    return scene


def world_scene(world: World) -> o3d.t.geometry.RaycastingScene:
    """The world's triangles, posed, in one Open3D scene."""
    posed = zip(world.entities, world.poses(), strict=True)
    return open3d_scene(entity.surface.transformed(pose) for entity, pose in posed)


def open3d_rays(origins: np.ndarray, directions: np.ndarray) -> o3d.core.Tensor:
    """Open3D's (N, 6) float32 rays from ``origins`` ((3,) or (N, 3)) along ``directions``."""
    starts = np.broadcast_to(origins, directions.shape)
    return o3d.core.Tensor(np.hstack((starts, directions)).astype(np.float32))
