"""Every device built in one place: from a robot and typed settings to a device on its mount.

A node (or a script) reads a robot (:func:`load_robot_from`), chooses a setup (the records
of ``devices/settings.py`` that describe its device) and calls :func:`build_device`, which
picks the sensors, checks them and returns the device with its :class:`RobotMount`. Which
device a setup makes:

* :class:`SonarSetup`: one ``<sensor type="sonar">``: a :class:`SingleBeamSonar`;
* :class:`RangerSetup`: one ``<sensor type="ray">``: a :class:`ScannerRanger`; sonars (several
  names or a glob, or one with ``element_poses``): a :class:`SonarArray`;
* :class:`ScanningSetup`: ``mode: sweep``: a :class:`SweepRanger`; ``multibeam``: a
  :class:`FanRanger`; ``sidescan``: a :class:`SidescanRanger`.

A configuration the device refuses is a ``DescriptionError`` located at the sensor's element.
No rclpy here.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import math
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.ament import share_file
from nps_sonar_py.description import Robot, Sensor, SensorType, load_robot, parse_robot
from nps_sonar_py.devices.echosounder import EchosounderRanger
from nps_sonar_py.devices.interface import Device, RangerGeometry, frequency_problem
from nps_sonar_py.devices.mount import ArrayMount, RobotMount, SensorMount
from nps_sonar_py.devices.scanner import ScannerRanger
from nps_sonar_py.devices.scanning import FanRanger, SweepRanger
from nps_sonar_py.devices.settings import (
    BeamSettings,
    EchosounderSettings,
    GeometrySettings,
    ImageSettings,
    Mode,
    OutputSettings,
    RangerSettings,
    RobotSettings,
    ScanningSettings,
    SelectionSettings,
    SensorSettings,
    SidescanSettings,
)
from nps_sonar_py.devices.sidescan import SidescanRanger
from nps_sonar_py.devices.sonar import SingleBeamSonar, SonarArray
from nps_sonar_py.echo import EchoConfig
from nps_sonar_py.errors import ConfigurationError, DescriptionError
from nps_sonar_py.limits import MAX_ANGLE, MAX_POSITION
from nps_sonar_py.sensing.echosounder import Echosounder
from nps_sonar_py.sensing.multibeam import MultibeamSonar
from nps_sonar_py.sensing.scan import ScanConfig
from nps_sonar_py.sensing.sidescan import SidescanSonar
from nps_sonar_py.sensing.sweep import ScanningSonar
from nps_sonar_py.transforms import transform_from_xyz_rpy

__all__ = [
    'DEFAULT_RATE_HZ',
    'DeviceSetup',
    'RangerSetup',
    'ScanningSetup',
    'SonarSetup',
    'build_device',
    'choose_sensor',
    'element_poses_from_flat',
    'load_robot_from',
    'make_setup',
    'reference_robot_file',
    'reference_world_file',
    'ring_poses',
    'robot_root_pose',
    'select_sensors',
    'sensor_error',
    'setup_records',
]

#: Readings per second when neither the settings nor the ``<sensor update_rate>`` give one.
DEFAULT_RATE_HZ = 10.0

# --- files -------------------------------------------------------------------------------------


def reference_robot_file() -> str:
    """The robot of the reference scenario: a sonar at (2.1, 1.0, 1.0) looking along +y."""
    return share_file('config/robots/reference_sonar.urdf')


def reference_world_file() -> str:
    """The reference scenario's world (NPS ``blueview_basement_cylinder``): tank and cylinder."""
    return share_file('config/worlds/reference_tank.world')


def load_robot_from(settings: RobotSettings) -> Robot:
    """The robot of ``robot_description``, else ``robot_description_file`` (or the reference)."""
    if settings.robot_description:
        return parse_robot(settings.robot_description, source='<robot_description>')
    return load_robot(settings.robot_description_file or reference_robot_file())


def _pose_problem(values: Sequence[float]) -> str | None:
    """Why ``[x, y, z, roll, pitch, yaw]`` is not a pose within ``nps_sonar_py.limits``."""
    if not all(math.isfinite(v) for v in values):
        return 'must be finite (no nan or inf)'
    if any(abs(v) > MAX_POSITION for v in values[:3]):
        return f'positions must be within {MAX_POSITION:g} m'
    if any(abs(v) > MAX_ANGLE for v in values[3:]):
        return f'angles must be within {MAX_ANGLE:g} rad'
    return None


def robot_root_pose(pose: Sequence[float]) -> NDArray[np.float64]:
    """(4, 4) world <- robot root link of ``[x, y, z, roll, pitch, yaw]``.

    Every value must be finite and within the bounds of ``nps_sonar_py.limits`` (as a pose on
    ``/odom``): a nan, an inf or 1e308 here would reach the raycaster at the first reading
    (every range inf, or the node stopped there), so it is refused at start instead.
    """
    if len(pose) != 6:
        raise ConfigurationError(
            f'robot_pose must be [x, y, z, roll, pitch, yaw], got {list(pose)!r}'
        )
    problem = _pose_problem(pose)
    if problem:
        raise ConfigurationError(f'robot_pose {problem}, got {[float(v) for v in pose]!r}')
    return transform_from_xyz_rpy(pose[:3], pose[3:])


# --- choosing sensors ---------------------------------------------------------------------------


def _listing(robot: Robot) -> str:
    return ', '.join(f'{s.name} ({s.type.value})' for s in robot.sensors) or 'none'


def choose_sensor(robot: Robot, name: str | None, kind: SensorType) -> Sensor:
    """The sensor called ``name``, or the first of type ``kind``; an error says what there is."""
    if name:
        sensor = robot.sensor(name)
        if sensor.type is not kind:
            raise sensor_error(sensor, f'is of type "{sensor.type.value}", not "{kind.value}"')
        return sensor
    for sensor in robot.sensors:
        if sensor.type is kind:
            return sensor
    raise DescriptionError(
        f'has no <sensor type="{kind.value}">; sensors: {_listing(robot)}',
        file=robot.source,
        element='<robot>',
    )


def select_sensors(robot: Robot, patterns: str) -> list[Sensor]:
    """The sensors named by ``patterns``: comma-separated names or shell globs, in URDF order.

    Empty: the first ``ray`` sensor, else every ``sonar`` sensor. A name that matches nothing
    is an error listing the robot's sensors.
    """
    names = [p.strip() for p in patterns.split(',') if p.strip()]
    chosen: list[Sensor] = []
    if not names:
        rays = robot.sensors_of_type(SensorType.RAY)
        chosen += list(rays[:1]) or list(robot.sensors_of_type(SensorType.SONAR))
        if not chosen:
            raise DescriptionError(
                f'has no ray or sonar <sensor>; sensors: {_listing(robot)}',
                file=robot.source,
                element='<robot>',
            )
        return chosen
    for pattern in names:
        matched = [s for s in robot.sensors if fnmatch.fnmatchcase(s.name, pattern)]
        if not matched:
            raise DescriptionError(
                f'no <sensor> matches "{pattern}"; sensors: {_listing(robot)}',
                file=robot.source,
                element='<robot>',
            )
        chosen += [s for s in matched if s not in chosen]
    return chosen


def element_poses_from_flat(values: Sequence[float]) -> NDArray[np.float64]:
    """(k, 4, 4) poses from ``[x, y, z, roll, pitch, yaw] * k`` (URDF conventions, m and rad)."""
    flat = [float(v) for v in values]
    if len(flat) % 6 or not flat:
        raise ConfigurationError(
            f'element_poses needs 6 numbers (x y z roll pitch yaw) per element, got {len(flat)}'
        )
    rows = np.array(flat).reshape(-1, 6)
    for k, row in enumerate(rows.tolist()):
        problem = _pose_problem(row)
        if problem:
            raise ConfigurationError(f'element_poses: element {k} {problem}, got {row!r}')
    return np.array([transform_from_xyz_rpy(row[:3], row[3:]) for row in rows])


def ring_poses(count: int, radius: float, *, start: float = 0.0) -> NDArray[np.float64]:
    """(count, 4, 4) elements on a circle about +z looking outwards, the first at ``start`` rad."""
    yaw = start + 2.0 * math.pi * np.arange(count) / count
    poses = np.tile(np.eye(4), (count, 1, 1))
    c, s = np.cos(yaw), np.sin(yaw)
    poses[:, 0, 0], poses[:, 0, 1], poses[:, 1, 0], poses[:, 1, 1] = c, -s, s, c
    poses[:, 0, 3], poses[:, 1, 3] = radius * c, radius * s
    return poses


def sensor_error(sensor: Sensor, problem: str) -> DescriptionError:
    """An error at ``sensor``'s element: in its file, or in xacro's output, marked so."""
    return DescriptionError(
        problem, file=sensor.source, line=sensor.line, element=f'<sensor name="{sensor.name}">'
    )


def _rate(output: OutputSettings, sensor: Sensor) -> float:
    """Readings per second: the setting, else the sensor's, within the devices' bounds."""
    rate = float(output.update_rate or sensor.update_rate or DEFAULT_RATE_HZ)
    problem = frequency_problem(rate)
    if problem:
        raise ConfigurationError(f'update_rate: {problem}')
    return rate


# --- setups -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SonarSetup:
    """One single-beam sonar (``sonar_node``)."""

    sensor: SensorSettings
    output: OutputSettings
    beam: BeamSettings


@dataclass(frozen=True)
class RangerSetup:
    """A scanner or a sonar array (``ranger_node``)."""

    selection: SelectionSettings
    ranger: RangerSettings
    geometry: GeometrySettings
    output: OutputSettings
    beam: BeamSettings


@dataclass(frozen=True)
class ScanningSetup:
    """A scanning sonar, a multibeam or a side-scan (``scanning_sonar_node``)."""

    sensor: SensorSettings
    scanning: ScanningSettings
    geometry: GeometrySettings
    output: OutputSettings
    beam: BeamSettings
    #: The images; the builder reads ``publish_labels`` (a labelling sensor), the output the rest.
    images: ImageSettings = dataclasses.field(default_factory=ImageSettings)
    #: The side-scan's fans and waterfall (``mode: sidescan``; the output reads the waterfall's).
    sidescan: SidescanSettings = dataclasses.field(default_factory=SidescanSettings)
    #: ``mode: echosounder``: the swath, its detector and processing profile.
    echosounder: EchosounderSettings = dataclasses.field(default_factory=EchosounderSettings)


DeviceSetup = SonarSetup | RangerSetup | ScanningSetup
Built = tuple[RobotMount, Device[Any]]


def setup_records(setup: type[DeviceSetup]) -> tuple[type[Any], ...]:
    """The settings record classes a setup is made of, in field order."""
    hints = typing.get_type_hints(setup)
    return tuple(hints[f.name] for f in dataclasses.fields(setup))


def make_setup(setup: type[DeviceSetup], record: Callable[[type[Any]], Any]) -> DeviceSetup:
    """A ``setup`` of the records ``record(RecordClass)`` gives."""
    return setup(*(record(kind) for kind in setup_records(setup)))


def build_device(robot: Robot, setup: DeviceSetup, *, entities: int = 0) -> Built:
    """The device ``setup`` describes on ``robot``, with its mount, at the robot's zero pose.

    ``entities``: the number of the world's entities, the length of the label table of a
    sensor that labels its cells (``publish_labels``, ``echo.labels``).

    Raises ``DescriptionError`` (a sensor that does not fit, located in the robot's file) or
    ``ConfigurationError`` (settings that contradict each other).
    """
    if isinstance(setup, ScanningSetup):
        return _build_scanning(robot, setup, entities)
    builders: dict[type[Any], Callable[[Robot, Any], Built]] = {
        SonarSetup: _build_sonar,
        RangerSetup: _build_ranger,
    }
    return builders[type(setup)](robot, setup)


_Device = TypeVar('_Device')


def _checked(sensor: Sensor, make: Callable[[], _Device]) -> _Device:
    """``make()``, with a ``ConfigurationError`` turned into an error located at ``sensor``."""
    try:
        return make()
    except ConfigurationError as error:
        raise sensor_error(sensor, str(error)) from None


def _build_sonar(robot: Robot, setup: SonarSetup) -> Built:
    sensor = choose_sensor(robot, setup.sensor.sensor or None, SensorType.SONAR)
    frame = setup.sensor.frame_id or sensor.name
    mount = SensorMount(
        robot, sensor, sensor.name, frame, (frame,), (0.0, 0.0, 0.0), np.eye(4)[None]
    )
    geometry = mount.geometry({})
    device = _checked(
        sensor,
        lambda: SingleBeamSonar(
            setup.beam.echo_config(sensor.sonar),
            geometry.pose,
            geometry,
            n_rays=setup.beam.rays,
            frequency=_rate(setup.output, sensor),
            multipath=setup.beam.multipath_config(),
        ),
    )
    return mount, device


def _same_beam(a: Sensor, b: Sensor) -> bool:
    first, second = a.sonar, b.sonar
    return bool(
        np.allclose(
            [first.min, first.max, first.radius],
            [second.min, second.max, second.radius],
            rtol=1e-12,
            atol=0.0,
        )
    )


def _build_ranger(robot: Robot, setup: RangerSetup) -> Built:
    sensors = select_sensors(robot, setup.selection.sensors)
    kinds = {s.type for s in sensors}
    if kinds == {SensorType.RAY}:
        return _build_scanner(robot, setup, sensors)
    if kinds == {SensorType.SONAR}:
        return _build_array(robot, setup, sensors)
    listed = ', '.join(f'{s.name} ({s.type.value})' for s in sensors)
    raise DescriptionError(
        f'a device is one ray sensor or sonars, not {listed}', file=robot.source, element='<robot>'
    )


def _build_scanner(robot: Robot, setup: RangerSetup, sensors: list[Sensor]) -> Built:
    sensor = sensors[0]
    if len(sensors) > 1:
        raise sensor_error(
            sensors[1], 'an array of ray sensors is not supported; name one ray sensor'
        )
    if setup.ranger.element_poses:
        raise ConfigurationError('element_poses applies to a sonar, not to a ray sensor')
    limits = _checked(
        sensor,
        lambda: ScanConfig.from_ray_spec(
            sensor.ray,
            update_rate=_rate(setup.output, sensor),
            intensity=setup.ranger.intensity,
            seed=setup.beam.noise_seed,
        ),
    )
    name = setup.ranger.device_name or sensor.name
    mount = SensorMount(
        robot, sensor, name, name, (name,), setup.geometry.element_size, np.eye(4)[None]
    )
    geometry = mount.geometry({})
    return mount, ScannerRanger(limits, geometry.pose, geometry)


def _build_array(robot: Robot, setup: RangerSetup, sensors: list[Sensor]) -> Built:
    first = sensors[0]
    for other in sensors[1:]:
        if not _same_beam(other, first):
            raise sensor_error(
                other,
                f'the elements of an array need the <sonar> (min, max, radius) of "{first.name}"',
            )
    size = setup.geometry.element_size
    if setup.ranger.element_poses:
        if len(sensors) > 1:
            raise ConfigurationError(
                'element_poses applies to one sonar; several <sensor> were named'
            )
        name = setup.ranger.device_name or first.name
        element_poses = element_poses_from_flat(setup.ranger.element_poses)
        frames = tuple(f'{name}_{k}' for k in range(len(element_poses)))
        mount: RobotMount = SensorMount(robot, first, name, name, frames, size, element_poses)
    else:  # the device frame: at the centroid of the elements, parallel to the root link
        name = setup.ranger.device_name or (first.name if len(sensors) == 1 else 'ranger')
        frames = tuple(s.name for s in sensors)
        mount = ArrayMount(robot, sensors, name, name, frames, size)
    geometry = mount.geometry({})
    device = _checked(
        first,
        lambda: SonarArray(
            setup.beam.echo_config(first.sonar),
            geometry.pose,
            geometry,
            n_rays=setup.beam.rays,
            range_resolution=setup.ranger.range_resolution,
            frequency=_rate(setup.output, first),
            multipath=setup.beam.multipath_config(),
        ),
    )
    return mount, device


def _images_problem(mode: Mode, images: ImageSettings) -> str | None:
    """Why ``mode`` cannot publish the fan's and sweep's images ``images`` asks for, or None.

    The side-scan publishes its raw image and waterfall, the echosounder its soundings: a
    polar or Cartesian image, or labels, would be silently missing, so they are refused.
    """
    if mode not in (Mode.SIDESCAN, Mode.ECHOSOUNDER):
        return None
    asked = [
        name
        for name in (
            'publish_image',
            'publish_image_polar',
            'publish_image_polar_db',
            'publish_labels',
        )
        if getattr(images, name)
    ]
    if not asked:
        return None
    own = 'raw_image and waterfall' if mode is Mode.SIDESCAN else 'soundings and detections'
    return (
        f'mode {mode.value} publishes its {own}, not the images of mode multibeam and sweep: '
        f'set {", ".join(asked)} false'
    )


def _build_scanning(robot: Robot, setup: ScanningSetup, entities: int) -> Built:
    sensor = choose_sensor(robot, setup.sensor.sensor or None, SensorType.SONAR)
    frame = setup.sensor.frame_id or sensor.name
    mount = SensorMount(
        robot,
        sensor,
        sensor.name,
        frame,
        (frame,),
        setup.geometry.element_size,
        np.eye(4)[None],
    )
    geometry = mount.geometry({})
    s = setup.scanning
    labels = entities if setup.images.publish_labels else None

    def make() -> Device[Any]:
        problem = _images_problem(s.mode, setup.images)
        if s.mode is Mode.ECHOSOUNDER and s.imaging_config().enabled:
            problem = (
                'mode echosounder detects the bottom in the plain echo: set tvg none, '
                'cell_speckle false and side_lobe_db 0 (they shape the images of mode '
                'multibeam and sidescan)'
            )
        if problem:
            raise ConfigurationError(problem)
        echo = setup.beam.echo_config(sensor.sonar)
        multipath = setup.beam.multipath_config()
        limits = (echo.min_range, echo.max_range)
        if s.mode is Mode.ECHOSOUNDER:
            return _echosounder(setup, echo, geometry, _rate(setup.output, sensor))
        if s.mode is Mode.SWEEP:
            sweep = s.sweep_config()
            rays = setup.beam.rays
            sonar = ScanningSonar(
                echo,
                sweep,
                geometry.pose,
                n_rays=rays,
                label_entities=labels,
                multipath=multipath,
            )
            return SweepRanger(sonar, geometry, limits=limits)
        if s.mode is Mode.SIDESCAN:
            sidescan = SidescanSonar(
                echo,
                setup.sidescan.sidescan_config(),
                geometry.pose,
                imaging=s.imaging_config(),
                label_entities=labels,
                multipath=multipath,
            )
            rate = _rate(setup.output, sensor)
            return SidescanRanger(sidescan, geometry, frequency=rate, limits=limits)
        multibeam = MultibeamSonar(
            echo,
            s.fan_config(),
            geometry.pose,
            imaging=s.imaging_config(),
            label_entities=labels,
            multipath=multipath,
        )
        return FanRanger(multibeam, geometry, frequency=_rate(setup.output, sensor), limits=limits)

    return mount, _checked(sensor, make)


def _echosounder(
    setup: ScanningSetup, echo: EchoConfig, geometry: RangerGeometry, rate: float
) -> EchosounderRanger:
    """``mode: echosounder``: its swath and processing profile (``InputError`` for a bad file)."""
    e = setup.echosounder
    sonar = Echosounder(
        echo,
        e.swath_config(),
        geometry.pose,
        processing=e.processing_profile(),
        surface_z=setup.beam.sea_surface_z,
        multipath=setup.beam.multipath_config(),
    )
    return EchosounderRanger(
        sonar, geometry, frequency=rate, limits=(echo.min_range, echo.max_range)
    )
