"""The world: scene files, ``<scene_state>``, models as triangles, and one raycaster that moves.

``load_world`` (``load.py``) reads a scene file (``scene_file.py``) or a Gazebo SDF world
(``sdf.py``), both in ``docs/scene.md``, into a :class:`World` (``world.py``) of entities
(triangles per model; a Lambert coefficient and a ``laser_retro`` per triangle) and their
states;
:class:`Raycaster` casts rays into it with Open3D and moves the entities with a twist.
Only :mod:`nps_sonar_py.scene.raycaster` imports open3d; import it from there, or from here
(which imports it on first use of ``Raycaster``); the hits every caster returns are
:class:`RayHits` (``hits.py``, no Open3D).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nps_sonar_py.scene.heightmap import (
    HEIGHTMAP_FORMATS,
    MAX_HEIGHTMAP_SAMPLES,
    heightmap_triangles,
    read_heights,
)
from nps_sonar_py.scene.hits import RayHits
from nps_sonar_py.scene.load import load_world
from nps_sonar_py.scene.meshes import (
    MESH_FORMATS,
    PackageResolver,
    model_search_path,
    read_mesh,
    resolve_mesh_path,
)
from nps_sonar_py.scene.options import GEOMETRY_KINDS
from nps_sonar_py.scene.scene_file import entity_from_robot, parse_world
from nps_sonar_py.scene.scene_state import (
    WORLD_FRAME,
    EntityState,
    SceneState,
    integrate_twist,
    load_scene_state,
    parse_scene_state,
)
from nps_sonar_py.scene.sdf import SDF_VERSIONS, parse_sdf_world
from nps_sonar_py.scene.tessellation import (
    DEFAULT_CYLINDER_SEGMENTS,
    DEFAULT_SPHERE_SUBDIVISIONS,
    Triangles,
    box_triangles,
    capsule_faceting_error,
    capsule_triangles,
    cylinder_faceting_error,
    cylinder_triangles,
    ellipsoid_triangles,
    plane_triangles,
    sphere_triangles,
)
from nps_sonar_py.scene.world import Entity, World

if TYPE_CHECKING:
    from nps_sonar_py.scene.raycaster import Raycaster

__all__ = [
    'DEFAULT_CYLINDER_SEGMENTS',
    'DEFAULT_SPHERE_SUBDIVISIONS',
    'GEOMETRY_KINDS',
    'HEIGHTMAP_FORMATS',
    'MAX_HEIGHTMAP_SAMPLES',
    'MESH_FORMATS',
    'SDF_VERSIONS',
    'WORLD_FRAME',
    'Entity',
    'EntityState',
    'PackageResolver',
    'RayHits',
    'Raycaster',
    'SceneState',
    'Triangles',
    'World',
    'box_triangles',
    'capsule_faceting_error',
    'capsule_triangles',
    'cylinder_faceting_error',
    'cylinder_triangles',
    'ellipsoid_triangles',
    'entity_from_robot',
    'heightmap_triangles',
    'integrate_twist',
    'load_scene_state',
    'load_world',
    'model_search_path',
    'parse_scene_state',
    'parse_sdf_world',
    'parse_world',
    'plane_triangles',
    'read_heights',
    'read_mesh',
    'resolve_mesh_path',
    'sphere_triangles',
]


def __getattr__(name: str) -> Any:
    """Import the Open3D back end only when it is asked for (open3d is slow to import)."""
    if name == 'Raycaster':
        from nps_sonar_py.scene.raycaster import Raycaster

        return Raycaster
    msg = f'module {__name__!r} has no attribute {name!r}'
    raise AttributeError(msg)
