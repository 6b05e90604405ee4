"""What every reader of a world shares: its options, checked once, and the reach of a shape.

The scene-file reader (:mod:`nps_sonar_py.scene.scene_file`) and the SDF reader
(:mod:`nps_sonar_py.scene.sdf`) take the same options (which shapes make a surface, how finely
curved shapes are tessellated, the reflectivity of surfaces that give none, where meshes are
found); :func:`read_options` checks them and makes the :class:`ReadOptions` both pass around.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeGuard

from nps_sonar_py.echo.reflectivity import DEFAULT_LAMBERT
from nps_sonar_py.scene.meshes import MeshLoader, PackageResolver
from nps_sonar_py.scene.tessellation import DEFAULT_CYLINDER_SEGMENTS, DEFAULT_SPHERE_SUBDIVISIONS

__all__ = [
    'GEOMETRY_KINDS',
    'LARGEST_COORDINATE',
    'MAX_SPHERE_SUBDIVISIONS',
    'MIN_CYLINDER_SEGMENTS',
    'Geometry',
    'ReadOptions',
    'is_geometry',
    'read_options',
]

#: Which of a link's shapes make its surface: ``collision`` (the default, as Gazebo's CPU
#: rays) or ``visual``.
GEOMETRY_KINDS = ('collision', 'visual')

Geometry = Literal['collision', 'visual']

#: Largest coordinate, in metres, that a shape's triangle may have once placed in its model:
#: float32's range, with room to spare (Open3D works in float32). Also false for nan.
LARGEST_COORDINATE = 1e30

#: Fewest segments of a tessellated cylinder.
MIN_CYLINDER_SEGMENTS = 3

#: Most icosphere subdivisions of a tessellated sphere (20 * 4**7 = 327680 triangles).
MAX_SPHERE_SUBDIVISIONS = 7


def is_geometry(kind: str) -> TypeGuard[Geometry]:
    """Whether ``kind`` is one of :data:`GEOMETRY_KINDS`."""
    return kind in GEOMETRY_KINDS


@dataclass(frozen=True)
class ReadOptions:
    """The checked options of one read of a world (see :func:`read_options`)."""

    geometry: Geometry = 'collision'
    cylinder_segments: int = DEFAULT_CYLINDER_SEGMENTS
    sphere_subdivisions: int = DEFAULT_SPHERE_SUBDIVISIONS
    default_lambert: float = DEFAULT_LAMBERT
    meshes: MeshLoader = field(default_factory=MeshLoader)


def read_options(
    geometry: str,
    cylinder_segments: int,
    sphere_subdivisions: int,
    default_lambert: float,
    package_resolver: PackageResolver | None,
) -> ReadOptions:
    """The :class:`ReadOptions` of a reader's arguments; ValueError for one out of range."""
    if not is_geometry(geometry):
        msg = f'geometry must be one of {GEOMETRY_KINDS}, got {geometry!r}'
        raise ValueError(msg)
    if not 0.0 <= default_lambert <= 1.0:
        msg = f'default_lambert must be in [0, 1], got {default_lambert!r}'
        raise ValueError(msg)
    if (
        int(cylinder_segments) < MIN_CYLINDER_SEGMENTS
        or not 0 <= int(sphere_subdivisions) <= MAX_SPHERE_SUBDIVISIONS
    ):
        msg = f'need cylinder_segments >= {MIN_CYLINDER_SEGMENTS} and sphere_subdivisions in'
        msg += f' 0..{MAX_SPHERE_SUBDIVISIONS}, got {cylinder_segments} and {sphere_subdivisions}'
        raise ValueError(msg)
    return ReadOptions(
        geometry,
        int(cylinder_segments),
        int(sphere_subdivisions),
        float(default_lambert),
        MeshLoader(package_resolver),
    )
