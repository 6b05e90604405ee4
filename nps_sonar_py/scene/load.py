"""Reading a world from a file: a scene file or a Gazebo SDF world, by what the file is.

A file ending in ``.sdf``, or whose root element is ``<sdf>`` (a Gazebo ``.world``), goes to
:func:`~nps_sonar_py.scene.sdf.parse_sdf_world`; any other is a scene file
(:func:`~nps_sonar_py.scene.scene_file.parse_world`). Both formats are in ``docs/scene.md``.
"""

from __future__ import annotations

import os
from pathlib import Path

from nps_sonar_py.echo.reflectivity import DEFAULT_LAMBERT
from nps_sonar_py.errors import SceneError
from nps_sonar_py.scene.meshes import PackageResolver
from nps_sonar_py.scene.options import Geometry
from nps_sonar_py.scene.scene_file import parse_world
from nps_sonar_py.scene.sdf import is_sdf, parse_sdf_world
from nps_sonar_py.scene.tessellation import DEFAULT_CYLINDER_SEGMENTS, DEFAULT_SPHERE_SUBDIVISIONS
from nps_sonar_py.scene.world import World
from nps_sonar_py.xml_input import read_document

__all__ = ['load_world']


def load_world(
    path: str | os.PathLike[str],
    *,
    geometry: Geometry = 'collision',
    cylinder_segments: int = DEFAULT_CYLINDER_SEGMENTS,
    sphere_subdivisions: int = DEFAULT_SPHERE_SUBDIVISIONS,
    default_lambert: float = DEFAULT_LAMBERT,
    package_resolver: PackageResolver | None = None,
) -> World:
    """Read a scene file or a Gazebo SDF world into a :class:`World`.

    See :func:`~nps_sonar_py.scene.scene_file.parse_world` for the options.

    Raises:
        SceneError: the file cannot be read, or anything wrong in it (one located line).
        DescriptionError: a model's URDF that cannot be used.

    """
    data = read_document(path, SceneError)
    if Path(path).suffix.lower() == '.sdf' or is_sdf(data):
        return parse_sdf_world(
            data,
            source=str(path),
            geometry=geometry,
            cylinder_segments=cylinder_segments,
            sphere_subdivisions=sphere_subdivisions,
            default_lambert=default_lambert,
            package_resolver=package_resolver,
        )
    return parse_world(
        data,
        source=str(path),
        base_dir=Path(path).parent,
        geometry=geometry,
        cylinder_segments=cylinder_segments,
        sphere_subdivisions=sphere_subdivisions,
        default_lambert=default_lambert,
        package_resolver=package_resolver,
    )
