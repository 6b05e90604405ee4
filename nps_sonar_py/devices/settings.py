"""The configuration of the simulated devices: one table, as frozen typed records.

Every setting is a field of one record below, with its default, its type (``bool``, ``int``,
``float``, ``str``, a tuple of floats or an enum of choices), a description, bounds and
whether it may change at run time. Each record is checked as it is made, by one mechanism
(:class:`Record`, :func:`check_record`): types, bounds and choices read from each field's
type and metadata, in one message format, ``<name> must be ..., got <value>``. An enum
field also takes its value's string (as a ROS parameter holds it) and keeps the member.

Each record builds the core configuration it describes itself, typed
(:meth:`BeamSettings.echo_config`, :meth:`ScanningSettings.fan_config`, ...): the one place
where a setting's name differs from the core field's is that method's docstring, which says
why (the ROS parameter names are user-facing: README, ``config/*.yaml``, launch files).

The ROS layer declares a ROS parameter per field (``ros/params.py``, choices as strings),
reads the values back into these records, and the builder (``devices/build.py``) makes
devices from them; ``config/*.yaml``, the launch files, the tests and ``ros2 param
describe`` therefore agree. Each node takes the records it needs (:data:`nps_sonar_py.ros`
node modules list them). Nothing here imports ROS.

Array-valued settings are tuples here and lists (``double_array``) as ROS parameters.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Any

from nps_sonar_py.ament import share_file
from nps_sonar_py.description import SonarSpec
from nps_sonar_py.devices.interface import MAX_FREQUENCY, MIN_FREQUENCY, MIN_RESOLUTION
from nps_sonar_py.echo import (
    Absorption,
    BeamPattern,
    CastLimit,
    EchoConfig,
    Environment,
    Medium,
    NoiseType,
    RangeEstimator,
    RangeNoise,
    Scattering,
)
from nps_sonar_py.echo.profile_effects import ImagingConfig, Tvg
from nps_sonar_py.echo.sound_speed import MAX_DEPTH, SoundSpeedProfile, read_profile_file
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.limits import MAX_POSITION
from nps_sonar_py.sensing.cone import cone_half_angle
from nps_sonar_py.sensing.echosounder import Detection, SwathConfig
from nps_sonar_py.sensing.multibeam import MAX_BEAMS, FanConfig
from nps_sonar_py.sensing.multipath import MAX_BOUNCES, MultipathConfig
from nps_sonar_py.sensing.scan import IntensityMode
from nps_sonar_py.sensing.sidescan import SidescanConfig
from nps_sonar_py.sensing.sweep import SweepConfig
from nps_sonar_py.sensing.waterfall import MAX_WATERFALL_LINES, MAX_WATERFALL_SAMPLES

__all__ = [
    'BeamSettings',
    'EchosounderSettings',
    'GeometrySettings',
    'ImageEncoding',
    'ImageInterpolation',
    'ImageSettings',
    'Mode',
    'MotionSettings',
    'OutputSettings',
    'PoseSource',
    'ProjectedImageDtype',
    'QosReliability',
    'RangerSettings',
    'Record',
    'RobotSettings',
    'ScanningSettings',
    'SceneTime',
    'SelectionSettings',
    'SensorSettings',
    'SettingSpec',
    'SidescanSettings',
    'SonarTopicSettings',
    'SweepImageUpdate',
    'check_record',
    'choice_text',
    'plain',
    'setting',
    'specs',
]

HALF_PI = math.pi / 2
#: Largest value of the flat sound-speed profile list (depths up to MAX_DEPTH m, speeds m/s).
MAX_PROFILE_VALUE = MAX_DEPTH


class Mode(StrEnum):
    """What a scanning-sonar node simulates: a sweep, a multibeam fan, a side-scan or a swath."""

    SWEEP = 'sweep'
    MULTIBEAM = 'multibeam'
    SIDESCAN = 'sidescan'
    ECHOSOUNDER = 'echosounder'  # a bathymetric swath (EchosounderSettings)


class PoseSource(StrEnum):
    """Where the robot's root pose comes from (``ros/motion.py``)."""

    FIXED = 'fixed'
    ODOMETRY = 'odometry'
    POSE = 'pose'
    TF = 'tf'


class SceneTime(StrEnum):
    """How scene time runs: from the scene state's time_stamp at the first ping, or the clock."""

    START = 'start'
    CLOCK = 'clock'


class QosReliability(StrEnum):
    """Reliability of the publishers (``ros/qos.py``)."""

    RELIABLE = 'reliable'
    BEST_EFFORT = 'best_effort'


class ImageEncoding(StrEnum):
    """The Cartesian image: dB levels (mono8/mono16) or linear intensity (32FC1)."""

    DB = 'db'
    FLOAT = '32FC1'


class ImageInterpolation(StrEnum):
    """How the Cartesian image samples the polar one (``sensing/images.py``)."""

    LINEAR = 'linear'
    NEAREST = 'nearest'


class ProjectedImageDtype(StrEnum):
    """The pixels of the multibeam's ``ProjectedSonarImage`` (``ros/marine.py``, docs/marine.md).

    The integer ones are dB pixels over ``image_db_min``..``image_db_max``; ``float32`` holds
    the linear intensities.
    """

    UINT8 = 'uint8'
    UINT16 = 'uint16'
    UINT32 = 'uint32'
    FLOAT32 = 'float32'


class SweepImageUpdate(StrEnum):
    """When a sweep's images are published: once per sweep or after every step."""

    SWEEP = 'sweep'
    STEP = 'step'


@dataclass(frozen=True)
class SettingSpec:
    """One setting: name, default, description, bounds, choices, whether it may change at run time.

    ``runtime`` settings may change while a node runs when that node takes run-time changes
    (the sonar node); the others need a restart. ``choices``: the allowed values as strings
    (an enum field's values, or a field's own list), empty when any value of the type will do.
    ``zero``: 0 is a value of its own (off, or "take the default"), outside ``low``..``high``.
    """

    name: str
    default: Any
    description: str
    low: float | None = None
    high: float | None = None
    runtime: bool = False
    choices: tuple[str, ...] = ()
    zero: bool = False

    @property
    def plain_default(self) -> Any:
        """The default as YAML files and ROS parameters hold it (arrays as lists)."""
        return plain(self.default)


def plain(value: Any) -> Any:
    """``value`` as YAML files and ROS parameters hold it: a tuple as a list, a choice as str."""
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Enum):
        return value.value
    return value


def setting(
    default: Any,
    description: str,
    low: float | None = None,
    high: float | None = None,
    *,
    runtime: bool = False,
    choices: tuple[Any, ...] = (),
    zero: bool = False,
) -> Any:
    """A record field carrying its :class:`SettingSpec` (name filled in by :func:`specs`).

    The field's annotation is its type; ``low`` and ``high`` bound a number (each element of
    a tuple); ``choices`` lists the allowed values of a field that is not an enum; ``zero``
    allows 0 besides ``low``..``high`` (a positive number too small to mean anything, such as a
    beam width of 5e-324 rad, is refused rather than taken for "the URDF's").
    """
    meta = {
        'description': description,
        'low': low,
        'high': high,
        'runtime': runtime,
        'choices': choices,
        'zero': zero,
    }
    return dataclasses.field(default=default, metadata=meta)


_TYPES: dict[type[Any], dict[str, Any]] = {}


def _types(record: type[Any]) -> dict[str, Any]:
    """The field types of ``record`` (annotations resolved once per class)."""
    if record not in _TYPES:
        _TYPES[record] = typing.get_type_hints(record)
    return _TYPES[record]


def specs(record: type[Any]) -> Iterator[SettingSpec]:
    """The :class:`SettingSpec` of every field of a settings record class, in order."""
    types = _types(record)
    for f in dataclasses.fields(record):
        meta = dict(f.metadata)
        kind = types[f.name]
        allowed = meta.pop('choices', ())
        if isinstance(kind, type) and issubclass(kind, Enum):
            allowed = tuple(m.value for m in kind)
        choices = tuple(str(c) for c in allowed)
        yield SettingSpec(f.name, f.default, **meta, choices=choices)


def choice_text(choices: tuple[str, ...]) -> str:
    """``a or b``, ``a, b or c``: the choices as an error message lists them."""
    return (
        ' or '.join(choices) if len(choices) < 3 else f'{", ".join(choices[:-1])} or {choices[-1]}'
    )


def _bounds_text(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f' in [{low:g}, {high:g}]'
    if low is not None:
        return f' >= {low:g}'
    if high is not None:
        return f' <= {high:g}'
    return ''


def _number(
    name: str, kind: type, value: Any, low: float | None, high: float | None, zero: bool = False
) -> Any:
    """``value`` as a ``kind`` (int or float) within the bounds, else ConfigurationError."""
    what = 'an integer' if kind is int else 'a finite number'
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    ok = number and (isinstance(value, int) if kind is int else math.isfinite(value))
    ok = ok and (low is None or value >= low) and (high is None or value <= high)
    if not ok:
        what = f'0 or {what}' if zero else what
        raise ConfigurationError(f'{name} must be {what}{_bounds_text(low, high)}, got {value!r}')
    return kind(value)


def _checked(name: str, kind: Any, value: Any, meta: typing.Mapping[str, Any]) -> Any:
    """``value`` checked against the field's type and metadata, as the record keeps it."""
    low, high, choices = meta.get('low'), meta.get('high'), meta.get('choices', ())
    if meta.get('zero') and value == 0 and not isinstance(value, bool):
        return kind(value)
    if isinstance(kind, type) and issubclass(kind, Enum):
        if isinstance(value, kind):
            return value
        values = tuple(str(m.value) for m in kind)
        if isinstance(value, str) and value in values:
            return kind(value)
        raise ConfigurationError(f'{name} must be {choice_text(values)}, got {value!r}')
    if kind is bool:
        if not isinstance(value, bool):
            raise ConfigurationError(f'{name} must be true or false, got {value!r}')
        return value
    if kind is str:
        if not isinstance(value, str):
            raise ConfigurationError(f'{name} must be a string, got {value!r}')
        return value
    if kind in (int, float):
        checked = _number(name, kind, value, low, high, bool(meta.get('zero')))
        if choices and checked not in choices:
            allowed = tuple(str(c) for c in choices)
            raise ConfigurationError(f'{name} must be {choice_text(allowed)}, got {value!r}')
        return checked
    if typing.get_origin(kind) is tuple:
        if not isinstance(value, (tuple, list)):
            raise ConfigurationError(f'{name} must be a list of numbers, got {value!r}')
        try:
            return tuple(_number(name, float, v, low, high) for v in value)
        except ConfigurationError:
            shown = [float(v) if isinstance(v, (int, float)) else v for v in value]
            what = f'finite numbers{_bounds_text(low, high)}'
            raise ConfigurationError(f'{name} must be {what}, got {shown!r}') from None
    raise TypeError(f'setting {name}: no check for the type {kind!r}')  # a record's own bug


def check_record(record: Any) -> None:
    """Check every field of ``record`` by its type and metadata; keep enum members and floats.

    The one check of every setting (types, bounds, choices): :class:`Record` calls it on
    creation. Raises ``ConfigurationError`` naming the field.
    """
    types = _types(type(record))
    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        checked = _checked(f.name, types[f.name], value, f.metadata)
        if checked is not value:
            object.__setattr__(record, f.name, checked)


class Record:
    """Base of the settings records: each is checked on creation by :func:`check_record`."""

    def __post_init__(self) -> None:
        check_record(self)


ZERO_POSE = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class RobotSettings(Record):
    """Which robot, in which world, where."""

    robot_description_file: str = setting(
        '',
        "URDF or xacro file of the robot; empty: the node's default robot (the reference sonar; "
        'ranger_node: the reference scanner; robot_sensors_node: the demo robot)',
    )
    robot_description: str = setting(
        '',
        'URDF of the robot as a string (as robot_state_publisher takes it); wins over '
        'robot_description_file',
    )
    scene_file: str = setting(
        '',
        "scene file of the world (models and scene_state); empty: the node's default world (the "
        'reference tank; robot_sensors_node: the box room)',
    )
    robot_pose: tuple[float, ...] = setting(
        ZERO_POSE, 'pose of the robot root link in the world: x y z [m] roll pitch yaw [rad]'
    )

    def with_defaults(self, robot_file: str, scene_file: str) -> RobotSettings:
        """These settings with an empty robot file and scene file set to this package's files.

        ``robot_file`` and ``scene_file`` are relative to the package's share directory (or
        the source tree); a ``robot_description`` string wins over any robot file.
        """
        robot = self.robot_description_file
        if not (robot or self.robot_description):
            robot = share_file(robot_file)
        return dataclasses.replace(
            self,
            robot_description_file=robot,
            scene_file=self.scene_file or share_file(scene_file),
        )


@dataclass(frozen=True)
class SensorSettings(Record):
    """The one sensor a sonar or scanning-sonar node simulates."""

    sensor: str = setting(
        '', 'name of the <sensor type="sonar"> to simulate; empty: the first one'
    )
    frame_id: str = setting('', 'frame_id of the messages; empty: the sensor name')


@dataclass(frozen=True)
class SelectionSettings(Record):
    """The sensors a ranger node makes one device of, or a robot_sensors_node simulates."""

    sensors: str = setting(
        '',
        'comma-separated <sensor> names or globs (ring_*); empty: ranger_node takes the first ray '
        'sensor, else every sonar; robot_sensors_node every sonar and ray sensor',
    )


@dataclass(frozen=True)
class OutputSettings(Record):
    """How often and how readings go out."""

    update_rate: float = setting(
        0.0,
        'readings (pings, scans) per second; 0: the <sensor update_rate>, or 10 Hz if it has none',
        MIN_FREQUENCY,
        MAX_FREQUENCY,
        runtime=True,
        zero=True,
    )
    intensities: bool = setting(
        True, 'publish intensities from the start (the enable_intensities service switches them)'
    )
    qos_reliability: QosReliability = setting(
        QosReliability.RELIABLE,
        'reliability of the publishers: reliable (REP 2003) or best_effort',
    )
    qos_depth: int = setting(10, 'history depth of the publishers', 1, 10_000)
    marker_rate: float = setting(
        2.0,
        'visualization_msgs/Marker of each sonar beam and its hits per second on '
        '<frame>/markers; 0: off',
        MIN_FREQUENCY,
        100.0,
        zero=True,
    )
    diagnostics_rate: float = setting(
        1.0,
        'diagnostic_msgs/DiagnosticArray of the achieved rate per second on /diagnostics; 0: off',
        MIN_FREQUENCY,
        100.0,
        zero=True,
    )
    publish_tf_static: bool = setting(
        True, 'publish the sensor frames, from the links carrying them, once on /tf_static'
    )
    publish_tf: bool = setting(
        True,
        'publish world_frame -> root link on /tf at each reading while pose_source is odometry '
        'or pose (off when the odometry source publishes it itself)',
    )


@dataclass(frozen=True)
class SonarTopicSettings(Record):
    """The single-beam sonar's topics and output switches."""

    range_topic: str = setting('', 'sensor_msgs/Range topic; empty: <sensor>/range')
    scan_topic: str = setting('', 'one-element sensor_msgs/LaserScan topic; empty: <sensor>/scan')
    sonar_point_topic: str = setting('', 'nps_sonar/SonarPoint topic; empty: <sensor>/sonar_point')
    publish_range: bool = setting(True, 'publish sensor_msgs/Range', runtime=True)
    publish_scan: bool = setting(
        True,
        'publish the one-element sensor_msgs/LaserScan (range and intensity)',
        runtime=True,
    )
    publish_sonar_point: bool = setting(
        True, 'publish nps_sonar/SonarPoint (range, intensity, profile)', runtime=True
    )


@dataclass(frozen=True)
class MotionSettings(Record):
    """How the robot and the world move (``ros/motion.py``)."""

    pose_source: PoseSource = setting(
        PoseSource.FIXED,
        'robot root pose: fixed (robot_pose), odometry (nav_msgs/Odometry) or pose '
        '(geometry_msgs/PoseStamped) on pose_topic, or tf (the root link in world_frame '
        'on /tf and /tf_static)',
    )
    world_frame: str = setting(
        'odom',
        'TF frame of the world: parent of the root link on /tf (publish_tf), and where '
        'pose_source tf looks the root link up',
    )
    tf_timeout: float = setting(
        0.5,
        'pose_source tf: warn when the newest transform of the chain is older than this at a '
        'reading [s] (the newest is still used)',
        0.0,
        3600.0,
    )
    pose_topic: str = setting(
        '', 'topic of the robot pose; empty: odom for odometry, pose for pose'
    )
    joint_states_topic: str = setting(
        'joint_states', 'sensor_msgs/JointState topic of the robot joints'
    )
    scene_state_topic: str = setting(
        'scene_state', 'nps_sonar/SceneState topic moving entities of the world'
    )
    scene_time: SceneTime = setting(
        SceneTime.START,
        "scene time: start (the scene state's time_stamp at the node's first ping) or clock "
        "(the node's clock in seconds, sim time with use_sim_time)",
    )
    entity_frames: str = setting(
        '',
        'world entities that follow /tf: comma-separated model or model=frame (frame: the '
        "model's name, as Gazebo's PosePublisher and ros_gz_bridge name it); empty: none",
    )
    entity_world_frame: str = setting(
        '',
        "TF frame entity_frames are looked up in; empty: the scene's world name (Gazebo's "
        'world frame)',
    )


@dataclass(frozen=True)
class GeometrySettings(Record):
    """The size of a device's elements, for ``RangerGeometry``."""

    element_size: tuple[float, ...] = setting(
        (0.0, 0.0, 0.0), 'size of a sensing element (x y z, m) for RangerGeometry', 0.0, 1e6
    )

    def __post_init__(self) -> None:
        size = self.element_size
        if not (isinstance(size, (tuple, list)) and len(size) == 3):
            raise ConfigurationError(
                f'element_size must be three finite sizes >= 0 m (x y z), got {size!r}'
            )
        try:
            super().__post_init__()
        except ConfigurationError:
            raise ConfigurationError(
                f'element_size must be three finite sizes >= 0 m (x y z), got {list(size)!r}'
            ) from None


@dataclass(frozen=True)
class RangerSettings(Record):
    """What makes a ranger node's device of its sensors (``docs/ranger.md``)."""

    element_poses: tuple[float, ...] = setting(
        (),
        "one sonar as an array: x y z roll pitch yaw per element, in the sonar's x-forward frame",
    )
    device_name: str = setting(
        '',
        'topic prefix and frame of the device; empty: the sensor name, or ranger for several',
    )
    intensity: IntensityMode = setting(
        IntensityMode.RETRO, 'ray sensors: retro (Gazebo laser_retro of the surface hit) or echo'
    )
    range_resolution: float = setting(
        0.0,
        'sonar arrays: ranges rounded to multiples of it [m]; 0: none',
        MIN_RESOLUTION,
        1000.0,
        zero=True,
    )


@dataclass(frozen=True)
class ScanningSettings(Record):
    """A scanning sonar's sweep or a multibeam's fan.

    :meth:`sweep_config`, :meth:`fan_config` and :meth:`imaging_config` build the core's
    configurations; ``fan_config`` maps the one name that differs (``vertical_beam_width``).
    """

    mode: Mode = setting(
        Mode.SWEEP,
        'sweep (one beam stepped through a sector), multibeam (a fan of beams per ping), '
        'sidescan (port and starboard fans and a waterfall: SidescanSettings) or '
        'echosounder (a bathymetric swath: EchosounderSettings)',
    )
    min_angle: float = setting(
        -math.pi, 'sweep: first head angle; multibeam: first beam axis [rad]'
    )
    max_angle: float = setting(
        math.pi, 'sweep: last head angle (2 pi span: a full turn); multibeam: last axis [rad]'
    )
    step: float = setting(
        2.0 * math.pi / 400, 'sweep: head step [rad] (Ping360: 2 pi / 400)', 1e-6, 2.0 * math.pi
    )
    step_period: float = setting(
        0.0, 'sweep: seconds per step, >= 2 max_range / c; 0: exactly that', 0.0, 3600.0
    )
    bounce: bool = setting(
        False, 'sweep: a sector goes back and forth instead of restarting at min_angle'
    )
    beams: int = setting(64, 'multibeam: number of beams', 1, MAX_BEAMS)
    vertical_beam_width: float = setting(
        math.radians(20.0), 'multibeam: vertical extent of a beam [rad]', 1e-6, math.pi
    )
    rays_horizontal: int = setting(3, 'multibeam: ray columns across a beam', 1, 10_000)
    rays_vertical: int = setting(24, 'multibeam: ray rows across a beam', 1, 10_000)
    vertical_pattern: BeamPattern = setting(
        BeamPattern.UNIFORM,
        'multibeam: one-way pattern across the elevation, its -3 dB width vertical_beam_width: '
        'uniform (flat), piston, gaussian, sinc or sinc_dave',
    )
    tvg: Tvg = setting(
        Tvg.NONE,
        'multibeam image: time-varied gain on the profiles at each bin centre R: none, 20log '
        '(20 log R + 2 alpha R dB) or 40log (40 log R + 2 alpha R dB), alpha the absorption '
        '[dB/m]',
    )
    cell_speckle: bool = setting(
        False,
        'multibeam image: multiply each beam and bin by a unit-mean exponential number '
        '(Rayleigh speckle, seeded by seed)',
    )
    side_lobe_db: float = setting(
        0.0,
        'multibeam image: each beam hears every other beam at this level [dB re main lobe], '
        'e.g. -30; 0: off',
        -200.0,
        0.0,
    )

    def sweep_config(self) -> SweepConfig:
        """The head's stepping (``mode: sweep``); every name is the core field's."""
        return SweepConfig(
            self.min_angle, self.max_angle, self.step, self.step_period, self.bounce
        )

    def fan_config(self) -> FanConfig:
        """The fan (``mode: multibeam``); ``ConfigurationError`` if impossible.

        Names: ``vertical_beam_width`` -> ``vertical_width``: the parameter says it is the
        beam's (a node has a ``beam_width`` too); ``FanConfig`` holds only beams. The others
        are the core field's names.
        """
        return FanConfig(
            beams=self.beams,
            min_angle=self.min_angle,
            max_angle=self.max_angle,
            vertical_width=self.vertical_beam_width,
            rays_horizontal=self.rays_horizontal,
            rays_vertical=self.rays_vertical,
            vertical_pattern=self.vertical_pattern,
        )

    def imaging_config(self) -> ImagingConfig:
        """The image options of a multibeam's profiles; ``side_lobe_db`` 0 is off (``None``)."""
        return ImagingConfig(
            tvg=self.tvg, cell_speckle=self.cell_speckle, side_lobe_db=self.side_lobe_db or None
        )


@dataclass(frozen=True)
class BeamSettings(Record):
    """Rays per sonar beam and the echo model (``nps_sonar_py.echo.EchoConfig``).

    :meth:`echo_config` builds the ``EchoConfig``; its docstring is the one place that maps the
    few names that differ (the parameters keep their user-facing names).
    """

    rays: int = setting(
        500,
        'rays cast per sonar beam, filling the cast cone at equal solid angle',
        1,
        2_000_000,
        runtime=True,
    )
    beam_width: float = setting(
        0.0,
        'one-way -3 dB full beam width [rad]; 0: the URDF cone, 2 atan(radius / max)',
        1e-6,
        3.14,
        runtime=True,
        zero=True,
    )
    beam_pattern: BeamPattern = setting(
        BeamPattern.PISTON,
        'one-way beam pattern: piston, gaussian, sinc, sinc_dave or uniform',
        runtime=True,
    )
    n_way: int = setting(
        2, 'pattern applied once (1) or on transmit and receive (2)', 1, 2, runtime=True
    )
    cast_limit: CastLimit = setting(
        CastLimit.HALF_POWER,
        'cone of rays cast: half_power (the -3 dB beam) or first_null',
        runtime=True,
    )
    cast_half_angle: float = setting(
        0.0,
        'half angle of the cast cone [rad]; > 0 overrides cast_limit',
        1e-6,
        HALF_PI,
        runtime=True,
        zero=True,
    )
    range_bins: int = setting(
        200, 'bins of the intensity profile from min to max range', 1, 100_000, runtime=True
    )
    frequency: float = setting(115e3, 'carrier frequency [Hz]', 1.0, 1e8, runtime=True)
    medium: Medium = setting(
        Medium.WATER, 'water or air: sound speed and automatic absorption', runtime=True
    )
    temperature: float = setting(
        10.0, 'temperature of the medium [deg C]', -10.0, 60.0, runtime=True
    )
    salinity: float = setting(
        35.0, 'salinity of water [psu]; 0 is fresh water', 0.0, 50.0, runtime=True
    )
    depth: float = setting(0.0, 'depth of the sensor in water [m]', 0.0, 12000.0, runtime=True)
    ph: float = setting(8.0, 'pH of water', 6.0, 9.0, runtime=True)
    relative_humidity: float = setting(
        50.0, 'relative humidity of air [%]', 0.0, 100.0, runtime=True
    )
    pressure: float = setting(101.325, 'pressure of air [kPa]', 10.0, 200.0, runtime=True)
    sound_speed: float = setting(
        0.0, 'speed of sound [m/s]; 0: from the medium', 1.0, 10000.0, runtime=True, zero=True
    )
    sound_speed_profile_file: str = setting(
        '',
        'sound-speed profile of the water: a text file of depth,speed [m, m/s] or '
        "depth,temperature,salinity rows (docs/refraction.md); '': none (straight rays)",
        runtime=True,
    )
    sound_speed_profile: tuple[float, ...] = setting(
        (),
        'sound-speed profile as flat depth [m], speed [m/s] pairs: 0, 1500, 100, 1490, ...; '
        'empty: none (straight rays)',
        0.0,
        MAX_PROFILE_VALUE,
        runtime=True,
    )
    sea_surface_z: float = setting(
        0.0,
        'world z of the sea surface [m] (refraction, multipath); depth is sea_surface_z - z',
        -MAX_POSITION,
        MAX_POSITION,
        runtime=True,
    )
    absorption: Absorption = setting(
        Absorption.AUTO,
        'auto (Francois-Garrison in water, ISO 9613-1 in air), none, fixed, francois_garrison, '
        'thorp or iso_9613_1',
        runtime=True,
    )
    absorption_db_per_m: float = setting(
        0.0, 'one-way absorption for absorption: fixed [dB/m]', 0.0, 1000.0, runtime=True
    )
    scattering: Scattering = setting(
        Scattering.LAMBERT,
        'surfaces scatter diffusely (lambert) or mirror-like (specular)',
        runtime=True,
    )
    specular_cutoff: bool = setting(
        False,
        'no echo from rays whose incidence exceeds critical_angle (in-air rangers)',
        runtime=True,
    )
    critical_angle: float = setting(
        math.pi / 8, 'incidence cut-off [rad], Webots: pi/8', 0.0, HALF_PI, runtime=True
    )
    source_level: float = setting(
        0.0,
        'source level added to the dB outputs [dB re 1 uPa at 1 m]',
        -1000.0,
        1000.0,
        runtime=True,
    )
    range_estimator: RangeEstimator = setting(
        RangeEstimator.NEAREST,
        'nearest, mean_in_beam, intensity_weighted or first_above_threshold',
        runtime=True,
    )
    threshold_db: float = setting(
        -1000.0,
        'level for range_estimator first_above_threshold [dB]',
        -1000.0,
        1000.0,
        runtime=True,
    )
    range_noise_type: NoiseType = setting(
        NoiseType.NONE,
        'SDF noise on the range: none, gaussian or gaussian_quantized',
        runtime=True,
    )
    range_noise_mean: float = setting(
        0.0, 'mean of the range noise [m]', -100.0, 100.0, runtime=True
    )
    range_noise_stddev: float = setting(
        0.0, 'standard deviation of the range noise [m]', 0.0, 100.0, runtime=True
    )
    range_noise_bias_mean: float = setting(
        0.0, 'mean of the range bias drawn once [m]', -100.0, 100.0, runtime=True
    )
    range_noise_bias_stddev: float = setting(
        0.0, 'standard deviation of the range bias [m]', 0.0, 100.0, runtime=True
    )
    range_noise_precision: float = setting(
        0.0, 'quantum of gaussian_quantized range noise [m]', 0.0, 100.0, runtime=True
    )
    speckle: bool = setting(
        False, 'Rayleigh speckle on the profile (coherent sum per bin)', runtime=True
    )
    gain_stddev: float = setting(
        0.0,
        'standard deviation of a multiplicative gain N(1, s) per ping',
        0.0,
        10.0,
        runtime=True,
    )
    seed: int = setting(
        -1, 'seed of the noise generators; -1: fresh entropy', -1, 2**31 - 1, runtime=True
    )
    max_bounces: int = setting(
        0,
        'multipath: specular bounces off the sea surface and the scene, 0 (off) to 2',
        0,
        MAX_BOUNCES,
        runtime=True,
    )
    surface_loss_db: float = setting(
        0.0, 'multipath: roughness loss per sea-surface bounce [dB]', 0.0, 100.0, runtime=True
    )

    @property
    def noise_seed(self) -> int | None:
        """The seed, or ``None`` for fresh entropy."""
        return None if self.seed < 0 else self.seed

    def environment(self) -> Environment:
        """The medium and its state, for the sound speed and the absorption."""
        return Environment(
            medium=self.medium,
            temperature=self.temperature,
            salinity=self.salinity,
            depth=self.depth,
            ph=self.ph,
            relative_humidity=self.relative_humidity,
            pressure=self.pressure,
        )

    def water_profile(self) -> SoundSpeedProfile | None:
        """The sound-speed profile the rays bend through, or ``None`` (straight rays).

        ``sound_speed_profile_file`` or ``sound_speed_profile`` (not both); ``InputError``
        naming the file (or the parameter) and the row of a profile that cannot be used.
        """
        if self.sound_speed_profile_file and self.sound_speed_profile:
            raise ConfigurationError(
                'give sound_speed_profile_file or sound_speed_profile, not both'
            )
        if self.sound_speed_profile_file:
            return read_profile_file(self.sound_speed_profile_file)
        if self.sound_speed_profile:
            return SoundSpeedProfile.from_flat(
                self.sound_speed_profile, source='sound_speed_profile'
            )
        return None

    def range_noise(self) -> RangeNoise:
        """The SDF-style noise on the scalar range."""
        return RangeNoise(
            type=self.range_noise_type,
            mean=self.range_noise_mean,
            stddev=self.range_noise_stddev,
            bias_mean=self.range_noise_bias_mean,
            bias_stddev=self.range_noise_bias_stddev,
            precision=self.range_noise_precision,
        )

    def multipath_config(self) -> MultipathConfig:
        """The sonars' multipath settings (``sensing.multipath``); the names are the core's."""
        return MultipathConfig(
            max_bounces=self.max_bounces,
            sea_surface_z=self.sea_surface_z,
            surface_loss_db=self.surface_loss_db,
        )

    def echo_config(self, spec: SonarSpec) -> EchoConfig:
        """The echo model of a URDF ``<sonar>`` with these settings; ``ConfigurationError``.

        The range window is the ``<sonar>``'s. The one place of the "0 means the URDF cone"
        rule: ``beam_width`` 0 reads the cone as the -3 dB beam, ``2 atan(radius / max)``;
        ``sound_speed`` 0 takes the medium's; ``cast_half_angle`` > 0 wins over ``cast_limit``.

        Names: the parameters keep their user-facing names (README, ``config/*.yaml``, launch
        files), which say which of several ``pattern``, bin counts or estimators of a node
        they set; the core's are shorter because ``EchoConfig`` holds one beam:
        ``beam_pattern`` -> ``pattern``, ``range_bins`` -> ``n_bins``, ``range_estimator`` ->
        ``estimator``, ``absorption_db_per_m`` (the dB/m of ``absorption: fixed``) ->
        ``fixed_absorption`` (``EchoConfig.effective_absorption`` is the model's dB/m in
        force), ``seed`` -1 -> ``None``. Every other name is the core field's.
        """
        width = self.beam_width or 2.0 * cone_half_angle(spec.radius, spec.max)
        cast: CastLimit | float = (
            self.cast_half_angle if self.cast_half_angle > 0.0 else self.cast_limit
        )
        return EchoConfig(
            beam_width=width,
            pattern=self.beam_pattern,
            n_way=self.n_way,
            cast_limit=cast,
            min_range=spec.min,
            max_range=spec.max,
            n_bins=self.range_bins,
            frequency=self.frequency,
            environment=self.environment(),
            sound_speed=self.sound_speed or None,
            absorption=self.absorption,
            fixed_absorption=self.absorption_db_per_m,
            scattering=self.scattering,
            specular_cutoff=self.specular_cutoff,
            critical_angle=self.critical_angle,
            source_level=self.source_level,
            estimator=self.range_estimator,
            threshold_db=self.threshold_db,
            range_noise=self.range_noise(),
            speckle=self.speckle,
            gain_stddev=self.gain_stddev,
            seed=self.noise_seed,
        )


@dataclass(frozen=True)
class EchosounderSettings(Record):
    """``mode: echosounder``: the swath, the bottom detector and the processing profile.

    :meth:`swath_config` builds the core's ``SwathConfig``; :meth:`processing_profile` the
    profile soundings are computed with (``None``: the water's own). docs/echosounder.md.
    """

    swath_beams: int = setting(256, 'echosounder: number of beams', 1, 1024)
    swath_min_angle: float = setting(
        math.radians(-60.0),
        'echosounder: first beam from nadir [rad], positive to port',
        -1.5,
        1.5,
    )
    swath_max_angle: float = setting(
        math.radians(60.0), 'echosounder: last beam from nadir [rad]', -1.5, 1.5
    )
    across_track_width: float = setting(
        math.radians(1.0), 'echosounder: beam width across track, -3 dB one-way [rad]', 1e-4, 0.53
    )
    along_track_width: float = setting(
        math.radians(1.0), 'echosounder: beam width along track, -3 dB one-way [rad]', 1e-4, 0.53
    )
    rays_across_track: int = setting(5, 'echosounder: ray columns across a beam', 1, 1000)
    rays_along_track: int = setting(5, 'echosounder: ray rows along a beam', 1, 1000)
    pulse_length: float = setting(
        100e-6, 'echosounder: pulse length [s]: the profile window c tau / 2', 0.0, 0.1
    )
    detection_threshold_db: float = setting(
        -10.0,
        'echosounder: detection keeps the first run of bins within this of the peak [dB], < 0',
        -200.0,
        -1e-3,
    )
    detection_min_bins: int = setting(
        3, 'echosounder: fewer bins in a detection make its quality low (1)', 1, 100_000
    )
    detection_time: str = setting(
        'amplitude',
        'echosounder: amplitude (weighted centre of the first strong return) or axis (its hit)',
        choices=('amplitude', 'axis'),
    )
    processing_sound_speed: float = setting(
        0.0,
        'echosounder: constant speed the soundings are computed with [m/s]; 0: the true profile',
        1300.0,
        1800.0,
        zero=True,
    )
    processing_profile_file: str = setting(
        '', "echosounder: sound-speed profile file the soundings are computed with; '': the true"
    )
    publish_soundings: bool = setting(True, 'echosounder: <device>/soundings, PointCloud2')
    publish_detections: bool = setting(
        True, 'echosounder: <device>/detections, marine_acoustic_msgs/SonarDetections'
    )

    def swath_config(self) -> SwathConfig:
        """The core's swath; ``ConfigurationError`` if impossible."""
        return SwathConfig(
            beams=self.swath_beams,
            min_angle=self.swath_min_angle,
            max_angle=self.swath_max_angle,
            across_width=self.across_track_width,
            along_width=self.along_track_width,
            rays_across=self.rays_across_track,
            rays_along=self.rays_along_track,
            threshold_db=self.detection_threshold_db,
            min_bins=self.detection_min_bins,
            detection=Detection(self.detection_time),
            pulse_length=self.pulse_length,
        )

    def processing_profile(self) -> SoundSpeedProfile | None:
        """The processing profile: a file, a constant speed, or ``None`` (the true one)."""
        if self.processing_profile_file and self.processing_sound_speed:
            raise ConfigurationError(
                'give processing_profile_file or processing_sound_speed, not both'
            )
        if self.processing_profile_file:
            return read_profile_file(self.processing_profile_file)
        if self.processing_sound_speed:
            return SoundSpeedProfile.constant(self.processing_sound_speed)
        return None


@dataclass(frozen=True)
class ImageSettings(Record):
    """The scanning sonar's images: sensor_msgs/Image and the multibeam's ProjectedSonarImage.

    Pixel conventions: ``sensing/images.py`` and, for ``ProjectedSonarImage``, docs/marine.md.
    """

    publish_image_polar: bool = setting(
        False, 'publish <device>/image_polar: range bins x beams, 32FC1 linear intensity'
    )
    publish_image_polar_db: bool = setting(
        False, 'publish <device>/image_polar_db: the polar image in dB, mono8 or mono16'
    )
    publish_image: bool = setting(
        False, 'publish <device>/image: the Cartesian fan (sweep: disc), image_encoding'
    )
    image_encoding: ImageEncoding = setting(
        ImageEncoding.DB,
        'Cartesian image: db (mono8/mono16, 0 outside) or 32FC1 (linear, NaN outside)',
    )
    image_db_min: float = setting(
        -100.0, 'dB image: level (SL + 10 log10 I) shown as 0 [dB]', -1000.0, 1000.0
    )
    image_db_max: float = setting(
        -20.0, 'dB image: level shown as the brightest pixel [dB]', -1000.0, 1000.0
    )
    image_db_bits: int = setting(
        8, 'dB image: bits per pixel, 8 (mono8) or 16 (mono16)', 8, 16, choices=(8, 16)
    )
    image_resolution: float = setting(
        0.0, 'Cartesian image: metres per pixel; 0: max_range / 400', 0.0, 1000.0
    )
    image_interpolation: ImageInterpolation = setting(
        ImageInterpolation.LINEAR,
        'Cartesian image: linear (in azimuth between beams, in range between bin centres) or '
        'nearest',
    )
    sweep_image_update: SweepImageUpdate = setting(
        SweepImageUpdate.SWEEP, 'sweep mode: publish the images once per sweep or after every step'
    )
    image_max_pixels: int = setting(
        4_000_000, 'largest image allowed [pixels]; larger ones are refused', 1, 2**31 - 1
    )
    publish_projected_image: bool = setting(
        False,
        'multibeam: publish <device>/projected_image, marine_acoustic_msgs/ProjectedSonarImage, '
        'in the frame <frame>_acoustic (on /tf_static)',
    )
    projected_image_dtype: ProjectedImageDtype = setting(
        ProjectedImageDtype.UINT8,
        'projected image pixels: uint8, uint16 or uint32 (dB over image_db_min..image_db_max) '
        'or float32 (linear intensity)',
    )
    publish_labels: bool = setting(
        False,
        'publish label images beside the intensity images (<device>/labels_polar, '
        '<device>/labels: mono16, 1 + the entity index, 0 none) and the label table on '
        '<device>/label_names; needs an intensity image on',
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.image_db_min < self.image_db_max:
            raise ConfigurationError(
                f'image_db_min ({self.image_db_min:g}) must be below image_db_max '
                f'({self.image_db_max:g})'
            )
        if self.publish_labels and not self.any_image:
            raise ConfigurationError(
                'publish_labels needs an intensity image to pair with: set publish_image, '
                'publish_image_polar or publish_image_polar_db'
            )

    @property
    def any_image(self) -> bool:
        """Whether any image is published."""
        return self.publish_image_polar or self.publish_image_polar_db or self.publish_image


@dataclass(frozen=True)
class SidescanSettings(Record):
    """The side-scan sonar (``mode: sidescan``): its port and starboard fans and the waterfall.

    Body frame x forward, y left (port), z up. Each side is a fan narrow along track
    (``sidescan_horizontal_beam_width``) and wide across it (``sidescan_vertical_beam_width``),
    its axis depressed by ``sidescan_tilt`` below the horizontal. :meth:`sidescan_config`
    builds the core's ``SidescanConfig``; its docstring maps the names.
    """

    sidescan_horizontal_beam_width: float = setting(
        math.radians(1.0),
        "sidescan: along-track -3 dB width of each side's fan [rad]",
        1e-4,
        math.radians(30.0),
    )
    sidescan_vertical_beam_width: float = setting(
        math.radians(50.0),
        "sidescan: across-track -3 dB width of each side's fan [rad]",
        math.radians(1.0),
        math.radians(170.0),
    )
    sidescan_tilt: float = setting(
        math.radians(20.0),
        "sidescan: depression of each fan's axis below the horizontal [rad]",
        1e-3,
        HALF_PI - 1e-3,
    )
    sidescan_rays_along: int = setting(
        3, 'sidescan: ray columns along track across the horizontal beam width', 1, 1000
    )
    sidescan_rays_per_bin: int = setting(
        1,
        'sidescan: ray cells per slant-range bin at least, on a flat seabed at any altitude in '
        'sidescan_min_altitude..sidescan_max_altitude',
        1,
        1000,
    )
    sidescan_min_altitude: float = setting(
        2.0,
        'sidescan: lowest altitude the ray placement serves [m] (also the shallowest ray, '
        'asin(min_altitude / max_range))',
        0.01,
        10000.0,
    )
    sidescan_max_altitude: float = setting(
        30.0, 'sidescan: highest altitude the ray placement serves [m]', 0.01, 10000.0
    )
    sidescan_vertical_pattern: BeamPattern = setting(
        BeamPattern.SINC,
        'sidescan: one-way pattern across track, its -3 dB width sidescan_vertical_beam_width: '
        'uniform, piston, gaussian, sinc or sinc_dave',
    )
    waterfall_lines: int = setting(
        400, 'sidescan: rows of the waterfall image (newest at the top)', 1, MAX_WATERFALL_LINES
    )
    waterfall_samples: int = setting(
        500,
        'sidescan: waterfall pixels per side (image width 2 x this, nadir in the middle)',
        1,
        MAX_WATERFALL_SAMPLES,
    )
    waterfall_line_spacing: float = setting(
        0.0,
        'sidescan: metres travelled along track per waterfall line; 0: a line per ping',
        1e-3,
        1000.0,
        zero=True,
    )
    ground_range: bool = setting(
        False,
        'sidescan: waterfall in ground range (flat bottom, altitude from the first return) '
        'instead of slant range; raw_image stays slant',
    )
    publish_raw_image: bool = setting(
        True,
        'sidescan: publish <device>/raw_image, marine_acoustic_msgs/RawSonarImage per ping '
        '(beam 0 port, 1 starboard; docs/marine.md), in the frame <frame>_frd',
    )
    raw_image_dtype: ProjectedImageDtype = setting(
        ProjectedImageDtype.FLOAT32,
        'sidescan raw_image samples: float32 (linear intensity) or uint8, uint16, uint32 (dB '
        'over image_db_min..image_db_max)',
    )
    publish_waterfall: bool = setting(
        True,
        'sidescan: publish <device>/waterfall, sensor_msgs/Image per new line (image_encoding, '
        'image_db_min..image_db_max)',
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.sidescan_max_altitude < self.sidescan_min_altitude:
            raise ConfigurationError(
                f'sidescan_max_altitude ({self.sidescan_max_altitude:g}) must be >= '
                f'sidescan_min_altitude ({self.sidescan_min_altitude:g})'
            )

    def sidescan_config(self) -> SidescanConfig:
        """The two fans (``sensing.sidescan.SidescanConfig``); ``ConfigurationError``.

        Names: the parameters carry ``sidescan_`` (a node has a ``beam_width``, a
        ``vertical_beam_width`` and a ``vertical_pattern`` of its multibeam too) and say
        ``beam_width``; the core's fields drop both: ``sidescan_horizontal_beam_width`` ->
        ``horizontal_width``, ``sidescan_vertical_beam_width`` -> ``vertical_width``, the others
        ``sidescan_<field>`` -> ``<field>``.
        """
        return SidescanConfig(
            horizontal_width=self.sidescan_horizontal_beam_width,
            vertical_width=self.sidescan_vertical_beam_width,
            tilt=self.sidescan_tilt,
            rays_along=self.sidescan_rays_along,
            rays_per_bin=self.sidescan_rays_per_bin,
            min_altitude=self.sidescan_min_altitude,
            max_altitude=self.sidescan_max_altitude,
            vertical_pattern=self.sidescan_vertical_pattern,
        )
