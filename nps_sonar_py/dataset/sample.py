"""One sample from its manifest row: the world, the ping(s), the intensity and the three masks.

* The world: the seabed (entity 0) and the drawn objects, in their order; a label (instance)
  is ``1 + entity index``: 0 none, 1 the seabed, 2.. the objects (``echo.labels``).
* Semantic mask: each instance's class, 0 none, 1 seabed, ``2 + k`` the spec's class ``k``.
* Shadow mask: a seabed cell that an object hides: the noise-free echo of the seabed alone
  in the cell, ``B``, and the part of it whose rays meet an object first, ``O`` (the same
  rays cast at the seabed alone, silent where the full scene's ray meets the seabed
  itself); a cell is shadow when ``O > B / 2`` and no object's echo dominates it. Occlusion
  comes from the cast, as the labels' does (``docs/labels.md``).
* A fan: polar ``(bins, beams)`` and Cartesian images (the node's layouts, README "Sonar
  images"); a side-scan: a waterfall block of ``waterfall_lines`` pings along +x, newest on
  top (``sensing/waterfall.py``), and the pings' slant-range profiles.

Intensities are float32, linear, times the sample's gain; masks are uint16 (instance) and
uint8 (semantic, shadow); the display is 8-bit dB over the ``image_db_min..image_db_max``
window.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.dataset.draw import object_list
from nps_sonar_py.dataset.objects import object_triangles
from nps_sonar_py.dataset.occlusion import occluded_fractions, sensor_eyes
from nps_sonar_py.dataset.seabed import make_seabed, scoured
from nps_sonar_py.dataset.sensor import (
    SensorSettings,
    block_length,
    make_sonar,
    sample_beam,
    sample_settings,
    sensor_pose,
)
from nps_sonar_py.dataset.sequence import sequence_places
from nps_sonar_py.dataset.spec import Spec
from nps_sonar_py.devices.rig import medium_caster
from nps_sonar_py.devices.settings import EchoModelChoice
from nps_sonar_py.scene import Entity, EntityState, SceneState, World
from nps_sonar_py.scene.raycaster import Raycaster
from nps_sonar_py.sensing.caster import RayHits, SurfaceCaster
from nps_sonar_py.sensing.images import CartesianImager, DbWindow, db_pixels, polar_image
from nps_sonar_py.sensing.label_images import LabelImager, polar_labels
from nps_sonar_py.sensing.multibeam import MultibeamSonar
from nps_sonar_py.sensing.sidescan import SidescanPing, SidescanSonar
from nps_sonar_py.sensing.waterfall import Waterfall
from nps_sonar_py.transforms import transform_from_xyz_rpy

__all__ = ['SHADOW_FRACTION', 'Rendered', 'line_positions', 'render_sample', 'sample_worlds']

#: A seabed cell is shadow when objects hide more than this part of its echo.
SHADOW_FRACTION = 0.5


@dataclass(frozen=True, eq=False)
class Rendered:
    """A sample's arrays: ``arrays`` by file name, and the display grid's image and masks."""

    arrays: dict[str, NDArray[Any]]
    display: NDArray[np.uint8]
    instance: NDArray[np.uint16]
    semantic: NDArray[np.uint8]
    shadow: NDArray[np.uint8]
    #: The kind and class of each object instance (instance ``2 + k`` is object ``k``).
    objects: list[dict[str, Any]]
    #: (objects, 4, 4): each object's pose (its base's centre) in the sensor's frame: the
    #: fan's, or the side-scan's at the block's middle (x = 0, level).
    object_poses: NDArray[np.float64]
    #: (objects,): the part of each object hidden from the sensor (``dataset/occlusion.py``).
    occluded: NDArray[np.float64]


class _OccludedSeabed:
    """The seabed alone, but silent (mu 0) on every ray whose first hit in the scene is not it."""

    def __init__(self, scene: SurfaceCaster, seabed: SurfaceCaster) -> None:
        self._scene, self._seabed = scene, seabed

    def cast(self, origins: NDArray[np.float64], directions: NDArray[np.float64]) -> RayHits:
        """The seabed's hits, silent where the scene's first hit is an object."""
        first = self._scene.cast(origins, directions)
        alone = self._seabed.cast(origins, directions)
        hidden = first.entity > 0  # an object, entity 1.. of the scene
        return replace(alone, reflectivity=np.where(hidden, np.asarray(alone.reflectivity), 0.0))

    def cast_block(self, block: NDArray[np.float32]) -> RayHits:
        """:meth:`cast` of a (n, 6) float32 block of origins and unit directions."""
        return self.cast(block[:, :3].astype(np.float64), block[:, 3:].astype(np.float64))


def _footprint(settings: SensorSettings, row: dict[str, Any]) -> tuple[float, float, float, float]:
    """The box (x0, x1, y0, y1), m, around what one ping (a side-scan: a block) sees."""
    far = float(row['range']) + 2.0
    if settings.fls:
        s = settings.scanning
        half = 0.5 * (s.max_angle - s.min_angle) + 0.5 * settings.beam.beam_width
        side = far * math.sin(min(half, math.pi / 2)) + 2.0
        centre = 0.5 * (s.max_angle + s.min_angle)
        low = min(-2.0, far * math.cos(min(half, math.pi)) - 2.0)
        return (low, far, -side + far * math.sin(centre), side + far * math.sin(centre))
    track = float(np.max(line_positions(settings))) + 3.0
    return (-track, track, -far, far)


def _extent(
    spec: Spec, settings: SensorSettings, row: dict[str, Any]
) -> tuple[float, float, float, float]:
    """The seabed's extent (x0, x1, y0, y1), m: the footprints of every ping of the sequence.

    The same for every ping of a sequence (its seabed is then the same).
    """
    x0, x1, y0, y1 = _footprint(settings, row)
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    places = sequence_places(spec, block_length(settings), object_list(row))
    yaw = np.radians(places[:, 2])[:, None]
    xs = places[:, :1] + corners[:, 0] * np.cos(yaw) - corners[:, 1] * np.sin(yaw)
    ys = places[:, 1:2] + corners[:, 0] * np.sin(yaw) + corners[:, 1] * np.cos(yaw)
    return (float(xs.min()), float(xs.max()), float(ys.min()), float(ys.max()))


def line_positions(settings: SensorSettings) -> NDArray[np.float64]:
    """(lines,) x of the side-scan's pings, m, first (oldest) to last: centred on 0 along +x.

    One every ``waterfall_line_spacing`` m (0: 0.25 m).
    """
    s = settings.sidescan
    spacing = s.waterfall_line_spacing or 0.25
    centred = np.arange(s.waterfall_lines, dtype=np.float64) - (s.waterfall_lines - 1) / 2
    positions: NDArray[np.float64] = centred * spacing
    return positions


def sample_worlds(
    spec: Spec, settings: SensorSettings, row: dict[str, Any]
) -> tuple[World, World, NDArray[np.uint8]]:
    """The scene, the seabed alone, and the semantic class of each label (0 none, 1 seabed).

    An object's base rests on the seabed at its centre (scoured, if it has a scour), sunk by
    ``burial`` of its height, raised by ``elevation``.
    """
    objects = object_list(row)
    surfaces = [object_triangles(item) for item in objects]
    seabed = scoured(
        make_seabed(row, _extent(spec, settings, row), spec.seabed.cell),
        [_scour(item, surface) for item, surface in zip(objects, surfaces, strict=True)
         if item.get('scour_depth', 0.0) > 0.0],
    )  # fmt: skip
    ground = seabed.entity()
    entities, states = [ground], [EntityState(ground.name)]
    classes = [0, 1]
    for k, (item, surface) in enumerate(zip(objects, surfaces, strict=True)):
        height = float(surface.vertices[:, 2].max())
        z = seabed.height_at(item['x'], item['y']) - item['burial'] * height
        z += item.get('elevation', 0.0)
        name = f'object_{k}'
        entities.append(Entity(name, surface, item['reflectivity']))
        pose = transform_from_xyz_rpy([item['x'], item['y'], z], [0, 0, math.radians(item['yaw'])])
        states.append(EntityState(name, origin=pose))
        classes.append(2 + spec.classes.index(item['class']))
    scene = World('sample', tuple(entities), SceneState('sample', 0.0, tuple(states)))
    alone = World('seabed', (ground,), SceneState('seabed', 0.0, (EntityState(ground.name),)))
    return scene, alone, np.array(classes, dtype=np.uint8)


def _scour(item: dict[str, Any], surface: Any) -> tuple[float, ...]:
    """The scour pit of ``item`` for ``seabed.scoured``: its place, yaw, footprint and sizes."""
    half = 0.5 * (surface.vertices.max(axis=0) - surface.vertices.min(axis=0))
    yaw = math.radians(item['yaw'])
    return (item['x'], item['y'], yaw, half[0], half[1], item['scour_depth'], item['scour_width'])


def _shadow(
    alone: NDArray[np.floating], hidden: NDArray[np.floating], labels: NDArray[np.integer]
) -> NDArray[np.uint16]:
    """Shadow cells (module docstring): 1 where objects hide the seabed's echo, else 0."""
    with np.errstate(invalid='ignore'):
        shadow = (hidden > SHADOW_FRACTION * alone) & (alone > 0.0) & (labels <= 1)
    return shadow.astype(np.uint16)


def render_sample(spec: Spec, settings: SensorSettings, row: dict[str, Any]) -> Rendered:
    """The sample of ``row`` (``ConfigurationError``/``SceneError`` if it cannot be made)."""
    settings = sample_settings(settings, row)
    objects = object_list(row)
    scene, alone, classes = sample_worlds(spec, settings, row)
    beam = sample_beam(settings, row)
    raycaster = Raycaster(scene)
    casters = (
        medium_caster(raycaster, beam),
        medium_caster(Raycaster(alone), beam),
    )
    window = DbWindow(settings.image.image_db_min, settings.image.image_db_max, 8)
    if settings.fls:
        arrays, instance, shadow, intensity = _fan(spec, settings, row, scene, casters, classes)
    else:
        arrays, instance, shadow, intensity = _sidescan(spec, settings, row, scene, casters)
    semantic = classes[instance]
    arrays = {
        **arrays,
        'intensity': intensity,
        'instance': instance,
        'semantic': semantic,
        'shadow': shadow.astype(np.uint8),
    }
    display = np.asarray(db_pixels(np.nan_to_num(intensity, nan=0.0), window), dtype=np.uint8)
    sensor = sensor_pose(row, 0.0, pitched=settings.fls)  # the side-scan's middle ping: x = 0
    inverse = np.linalg.inv(sensor)
    poses = np.array([inverse @ state.origin for state in scene.states[1:]]).reshape(-1, 4, 4)
    lines = None if settings.fls else line_positions(settings)
    occluded = occluded_fractions(scene, raycaster, sensor_eyes(row, scene, lines))
    return Rendered(
        arrays, display, instance, semantic, shadow.astype(np.uint8), objects, poses, occluded
    )


def _truth(
    settings: SensorSettings,
    row: dict[str, Any],
    pose: NDArray[np.float64],
    minimum: float,
    entities: int,
) -> MultibeamSonar | SidescanSonar:
    """The noise-free incoherent sonar of the masks; labelled when the echo model is coherent."""
    labelled = entities if settings.echo.echo_model is not EchoModelChoice.INCOHERENT else None
    return make_sonar(settings, row, pose, min_range=minimum, entities=labelled, truth=True)


def _labels(
    settings: SensorSettings,
    labels: NDArray[np.uint16] | None,
    truth: MultibeamSonar | SidescanSonar,
    full: SurfaceCaster,
) -> NDArray[np.uint16]:
    """The labels of the noise-free incoherent echo, whatever the echo model.

    The incoherent sonar's own (its labels are of its echo before noise); for the coherent
    model, whose labels follow its scatterers' phases, those of a ping of the truth sonar.
    """
    if settings.echo.echo_model is not EchoModelChoice.INCOHERENT:
        labels = truth.ping(full).labels
    assert labels is not None
    return labels


Casters = tuple[SurfaceCaster, SurfaceCaster]
Parts = tuple[dict[str, NDArray[Any]], NDArray[np.uint16], NDArray[np.uint16], NDArray[np.float32]]


def _fan(
    spec: Spec,
    settings: SensorSettings,
    row: dict[str, Any],
    scene: World,
    casters: Casters,
    classes: NDArray[np.uint8],
) -> Parts:
    """A fan's polar and Cartesian images and masks."""
    pose = sensor_pose(row, 0.0, pitched=True)
    minimum = spec.sensor.min_range
    sonar = make_sonar(settings, row, pose, min_range=minimum, entities=len(scene.entities))
    truth = _truth(settings, row, pose, minimum, len(scene.entities))
    assert isinstance(sonar, MultibeamSonar)
    full, alone = casters
    ping = sonar.ping(full)
    labels = _labels(settings, ping.labels, truth, full)
    profiles = ping.profiles * 10.0 ** (row['gain_db'] / 10.0)
    if len(scene.entities) > 1:
        hidden = truth.ping(_OccludedSeabed(full, alone)).profiles
        shadow = _shadow(truth.ping(alone).profiles, hidden, labels)
    else:
        shadow = np.zeros(labels.shape, dtype=np.uint16)
    image = settings.image
    resolution = image.image_resolution or sonar.echo.max_range / 400.0
    imager = CartesianImager(
        sonar.image_geometry(),
        resolution,
        image.image_interpolation.value,
        max_pixels=image.image_max_pixels,
    )
    labeller = LabelImager.like(imager, max_pixels=image.image_max_pixels)
    instance_polar = polar_labels(labels)
    arrays: dict[str, NDArray[Any]] = {
        'intensity_polar': polar_image(profiles),
        'instance_polar': instance_polar,
        'semantic_polar': classes[instance_polar],
        'shadow_polar': polar_labels(shadow).astype(np.uint8),
    }
    return arrays, labeller.image(labels), labeller.image(shadow), imager.image(profiles)


def _sidescan(
    spec: Spec, settings: SensorSettings, row: dict[str, Any], scene: World, casters: Casters
) -> Parts:
    """A side-scan's waterfall block and masks: one ping per line along +x."""
    s = settings.sidescan
    minimum = spec.sensor.min_range
    xs = line_positions(settings)
    start = sensor_pose(row, 0.0, x=float(xs[0]), pitched=False)
    sonar = make_sonar(settings, row, start, min_range=minimum, entities=len(scene.entities))
    truth = _truth(settings, row, start, minimum, len(scene.entities))
    assert isinstance(sonar, SidescanSonar)
    assert isinstance(truth, SidescanSonar)
    per_ping = dataclasses.replace(s.waterfall_config(), line_spacing=0.0)  # moved here
    falls = [Waterfall(per_ping) for _ in range(3)]
    full, alone = casters
    gain = 10.0 ** (row['gain_db'] / 10.0)
    profiles = np.empty((s.waterfall_lines, 2, sonar.echo.n_bins), dtype=np.float32)
    for line in range(s.waterfall_lines):
        pose = sensor_pose(row, 0.0, x=float(xs[line]), pitched=False)
        sonar.set_pose(pose)
        truth.set_pose(pose)
        ping = sonar.ping(full)
        labels = _labels(settings, ping.labels, truth, full)
        if len(scene.entities) > 1:
            hidden = truth.ping(_OccludedSeabed(full, alone)).profiles
            shadow = _shadow(truth.ping(alone).profiles, hidden, labels)
        else:
            shadow = np.zeros(labels.shape, dtype=np.uint16)
        profiles[line] = ping.profiles * gain
        for fall, values in zip(falls, (profiles[line], labels, shadow), strict=True):
            fall.add(
                SidescanPing(np.asarray(values, np.float64), ping.bin_edges, ping.altitude),
                pose[:3, 3],
            )
    intensity, instance, shadow_image = (fall.image() for fall in falls)
    return (
        {'profiles': profiles},
        instance.astype(np.uint16),
        shadow_image.astype(np.uint16),
        intensity,
    )
