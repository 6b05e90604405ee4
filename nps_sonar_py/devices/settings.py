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
from dataclasses import dataclass
from enum import StrEnum

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
from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.profile_effects import ImagingConfig, Tvg
from nps_sonar_py.echo.pulse import PulseKind, PulseWindow
from nps_sonar_py.echo.sound_speed import MAX_DEPTH, SoundSpeedProfile, read_profile_file
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.limits import MAX_POSITION
from nps_sonar_py.records import Record, same_as, setting
from nps_sonar_py.sensing.cone import cone_half_angle
from nps_sonar_py.sensing.multipath import MAX_BOUNCES, MultipathConfig
from nps_sonar_py.sensing.scan import IntensityMode

__all__ = [
    'IMAGE_OUTPUTS',
    'LINE_ARRAY',
    'RENAMED',
    'BeamSettings',
    'CoherentSettings',
    'EchoModelChoice',
    'GeometrySettings',
    'ImageEncoding',
    'ImageInterpolation',
    'ImageSettings',
    'MotionSettings',
    'OutputSettings',
    'PoseSource',
    'ProjectedImageDtype',
    'QosReliability',
    'RangerSettings',
    'RobotSettings',
    'ScanningSettings',
    'SceneTime',
    'SelectionSettings',
    'SensorSettings',
    'SweepImageUpdate',
    'renamed_problem',
]

#: A right angle, rad.
HALF_PI = math.pi / 2
#: Largest value of the flat sound-speed profile list (depths up to MAX_DEPTH m, speeds m/s).
MAX_PROFILE_VALUE = MAX_DEPTH


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
    robot_description_wait: float = setting(
        1.0,
        'with neither robot_description_file nor robot_description: how long, s, a publisher of '
        'the robot_description topic (robot_state_publisher) may take to be discovered; one '
        'found, the node waits for its description; none: the default robot',
        0.0,
        3600.0,
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
    """What the scanning node's kinds share: the sector of a sweep or a fan, the image shaping.

    The sweep's stepping and the fan's beams are their kinds' records (``devices/kinds``);
    :meth:`imaging_config` builds the core's image options (multibeam, side-scan).
    """

    min_angle: float = setting(
        -math.pi, 'sweep: first head angle; multibeam: first beam axis [rad]'
    )
    max_angle: float = setting(
        math.pi, 'sweep: last head angle (2 pi span: a full turn); multibeam: last axis [rad]'
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
    beam_width: float = same_as(
        EchoConfig,
        'beam_width',
        'one-way -3 dB full beam width [rad]; 0: the URDF cone, 2 atan(radius / max)',
        runtime=True,
        default=0.0,
        zero=True,
    )
    beam_pattern: BeamPattern = same_as(
        EchoConfig,
        'pattern',
        'one-way beam pattern: piston, gaussian, sinc, sinc_dave or uniform',
        runtime=True,
    )
    n_way: int = same_as(
        EchoConfig,
        'n_way',
        'pattern applied once (1) or on transmit and receive (2)',
        runtime=True,
    )
    cast_limit: CastLimit = setting(
        CastLimit.HALF_POWER,
        'cone of rays cast: half_power (the -3 dB beam) or first_null',
        runtime=True,
    )
    cast_half_angle: float = same_as(
        EchoConfig,
        'cast_limit',
        'half angle of the cast cone [rad]; > 0 overrides cast_limit',
        runtime=True,
        default=0.0,
        zero=True,
    )
    range_bins: int = setting(
        200, 'bins of the intensity profile from min to max range', 1, 100_000, runtime=True
    )
    frequency: float = same_as(EchoConfig, 'frequency', 'carrier frequency [Hz]', runtime=True)
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
    sound_speed: float = same_as(
        EchoConfig,
        'sound_speed',
        'speed of sound [m/s]; 0: from the medium',
        runtime=True,
        default=0.0,
        zero=True,
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
    absorption: Absorption = same_as(
        EchoConfig,
        'absorption',
        'auto (Francois-Garrison in water, ISO 9613-1 in air), none, fixed, francois_garrison, '
        'thorp or iso_9613_1',
        runtime=True,
    )
    absorption_db_per_m: float = same_as(
        EchoConfig,
        'fixed_absorption',
        'one-way absorption for absorption: fixed [dB/m]',
        runtime=True,
    )
    scattering: Scattering = same_as(
        EchoConfig,
        'scattering',
        'surfaces scatter diffusely (lambert) or mirror-like (specular)',
        runtime=True,
    )
    specular_cutoff: bool = same_as(
        EchoConfig,
        'specular_cutoff',
        'no echo from rays whose incidence exceeds critical_angle (in-air rangers)',
        runtime=True,
    )
    critical_angle: float = same_as(
        EchoConfig, 'critical_angle', 'incidence cut-off [rad], Webots: pi/8', runtime=True
    )
    source_level: float = same_as(
        EchoConfig,
        'source_level',
        'source level added to the dB outputs [dB re 1 uPa at 1 m]',
        runtime=True,
    )
    range_estimator: RangeEstimator = same_as(
        EchoConfig,
        'estimator',
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
    speckle: bool = same_as(
        EchoConfig,
        'speckle',
        'Rayleigh speckle on the profile (coherent sum per bin)',
        runtime=True,
    )
    gain_stddev: float = same_as(
        EchoConfig,
        'gain_stddev',
        'standard deviation of a multiplicative gain N(1, s) per ping',
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


#: The image switches of ``ImageSettings`` only the kinds that image a sector use (fan, sweep):
#: the others refuse them (``Kind.unused``).
IMAGE_OUTPUTS = (
    'publish_image',
    'publish_image_polar',
    'publish_image_polar_db',
    'publish_labels',
)


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


class EchoModelChoice(StrEnum):
    """Which echo model makes an imaging sonar's profiles (``docs/coherent.md``)."""

    INCOHERENT = 'incoherent'
    COHERENT = 'coherent'


#: Settings renamed: old name -> new. A node or dataset spec given an old name refuses it with
#: its new one (``renamed_problem``), so that an old parameter file is not ignored in silence.
RENAMED = {'pulse_length': 'pulse_duration'}


def renamed_problem(name: str) -> str | None:
    """Why the setting ``name`` is refused if it is an old name (``RENAMED``), else ``None``."""
    if name not in RENAMED:
        return None
    return f'{name} is now called {RENAMED[name]}: give it under that name'


#: The receive line array's settings of ``CoherentSettings``: a kind without beams across a
#: fan (one beam, two side-scan channels) refuses them (``Kind.unused``).
LINE_ARRAY = ('array_elements', 'array_spacing', 'array_window', 'leak_cells')


@dataclass(frozen=True)
class CoherentSettings(Record):
    """The echo model of the sonars (every imaging kind, the single beam) and its settings.

    :meth:`coherent_config` builds the core's ``CoherentConfig``; the bounds are its own
    (``same_as``). ``pulse_duration`` is the transmitted pulse's length whatever the model:
    the echosounder's incoherent profile window reads it too (``SwathConfig``). Names:
    ``receiver_noise`` -> ``noise`` (``range_noise_*`` are the scalar range's).
    """

    echo_model: EchoModelChoice = setting(
        EchoModelChoice.INCOHERENT,
        'echo model of the profiles: incoherent (sums of intensities) or coherent (phase, '
        'pulse, line array, noise: docs/coherent.md)',
    )
    pulse: PulseKind = same_as(CoherentConfig, 'pulse', 'coherent: the pulse, chirp or cw')
    pulse_duration: float = same_as(
        CoherentConfig,
        'pulse_duration',
        "the transmitted pulse's length [s]: the coherent pulse; mode echosounder's incoherent "
        'profile window c tau / 2',
    )
    bandwidth: float = same_as(
        CoherentConfig, 'bandwidth', 'coherent: swept bandwidth of a chirp [Hz]'
    )
    pulse_window: PulseWindow = same_as(
        CoherentConfig,
        'pulse_window',
        'coherent: matched-filter window, none, hann, hamming or tukey',
    )
    sample_rate: float = same_as(
        CoherentConfig,
        'sample_rate',
        'coherent: complex baseband sample rate [Hz]; 0: the pulse bandwidth or more, a whole '
        'number of samples per range bin',
    )
    speckle_cell: float = same_as(
        CoherentConfig,
        'speckle_cell',
        'coherent: edge of the cells a hit point keeps its scatterer in [wavelengths]',
    )
    scatterer_seed: int = same_as(
        CoherentConfig, 'scatterer_seed', 'coherent: realisation of the scene scatterers'
    )
    scatterer_density: float = same_as(
        CoherentConfig,
        'scatterer_density',
        'coherent: fixed scatterers per m2 on the surfaces a fan sees; 0: 4 in a resolution '
        'cell at a quarter of the range window',
    )
    array_elements: int = same_as(
        CoherentConfig,
        'array_elements',
        'coherent: elements of the receive line array of a fan or swath; 0: none (no side-lobe '
        'leakage across beams)',
    )
    array_spacing: float = same_as(
        CoherentConfig, 'array_spacing', 'coherent: line array element spacing [wavelengths]'
    )
    array_window: PulseWindow = same_as(
        CoherentConfig,
        'array_window',
        'coherent: line array weighting, none, hann, hamming or tukey',
    )
    leak_cells: int = same_as(
        CoherentConfig,
        'leak_cells',
        'coherent: strongest cells of a ping that leak across beams through the side lobes',
    )
    receiver_noise: bool = same_as(
        CoherentConfig,
        'noise',
        'coherent: add the noise floor of the sonar equation (source_level, '
        'noise_spectrum_level, directivity_index)',
    )
    noise_spectrum_level: float = same_as(
        CoherentConfig,
        'noise_spectrum_level',
        'coherent: ambient noise spectrum level [dB re 1 uPa^2/Hz]',
    )
    directivity_index: float = same_as(
        CoherentConfig, 'directivity_index', 'coherent: receive directivity index [dB]'
    )
    seabed_images: bool = same_as(
        CoherentConfig,
        'seabed_images',
        "coherent: hear objects' images in the seabed, by one and two bounces off it "
        '(side-scan, sweep, single beam, formed fan: docs/multipath.md)',
    )
    publish_baseband: bool = setting(
        False,
        "coherent: publish each ping's complex baseband per beam on <device>/baseband "
        '(RawSonarImage, float32 pairs, docs/coherent.md)',
    )

    @property
    def is_coherent(self) -> bool:
        """Whether the coherent model makes the profiles."""
        return self.echo_model is not EchoModelChoice.INCOHERENT

    def coherent_config(self) -> CoherentConfig | None:
        """The core's ``CoherentConfig``, or ``None`` for the incoherent model."""
        if self.echo_model is EchoModelChoice.INCOHERENT:
            return None
        return CoherentConfig(
            pulse=self.pulse,
            pulse_duration=self.pulse_duration,
            bandwidth=self.bandwidth,
            pulse_window=self.pulse_window,
            sample_rate=self.sample_rate,
            speckle_cell=self.speckle_cell,
            scatterer_seed=self.scatterer_seed,
            scatterer_density=self.scatterer_density,
            array_elements=self.array_elements,
            array_spacing=self.array_spacing,
            array_window=self.array_window,
            noise=self.receiver_noise,
            noise_spectrum_level=self.noise_spectrum_level,
            directivity_index=self.directivity_index,
            leak_cells=self.leak_cells,
            seabed_images=self.seabed_images,
        )
