"""The configuration of the simulated devices: one table, as frozen typed records.

Every setting is a field of one record below, with its default (which fixes its type), a
description, bounds and whether it may change at run time. The ROS layer declares a ROS
parameter per field (``ros/params.py``), reads the values back into these records, and the
builder (``devices/build.py``) makes devices from them; ``config/*.yaml``, the launch files,
the tests and ``ros2 param describe`` therefore agree. Each node takes the records it needs
(:data:`nps_sonar_py.ros` node modules list them). Nothing here imports ROS.

Array-valued settings are tuples here and lists (``double_array``) as ROS parameters.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from nps_sonar_py.ament import share_file
from nps_sonar_py.echo import Environment, Medium, NoiseType, RangeNoise
from nps_sonar_py.echo._validate import member
from nps_sonar_py.errors import ConfigurationError

__all__ = [
    'BeamSettings',
    'GeometrySettings',
    'ImageSettings',
    'MotionSettings',
    'OutputSettings',
    'RangerSettings',
    'RobotSettings',
    'ScanningSettings',
    'SelectionSettings',
    'SensorSettings',
    'SettingSpec',
    'SonarTopicSettings',
    'plain',
    'setting',
    'specs',
]

HALF_PI = math.pi / 2


@dataclass(frozen=True)
class SettingSpec:
    """One setting: name, default, description, bounds, whether it may change at run time.

    ``runtime`` settings may change while a node runs when that node takes run-time changes
    (the sonar node); the others need a restart.
    """

    name: str
    default: Any
    description: str
    low: float | None = None
    high: float | None = None
    runtime: bool = False

    @property
    def plain_default(self) -> Any:
        """The default as YAML files and ROS parameters hold it (arrays as lists)."""
        return plain(self.default)


def plain(value: Any) -> Any:
    """``value`` as YAML files and ROS parameters hold it: a tuple as a list."""
    return list(value) if isinstance(value, tuple) else value


def setting(
    default: Any,
    description: str,
    low: float | None = None,
    high: float | None = None,
    *,
    runtime: bool = False,
) -> Any:
    """A record field carrying its :class:`SettingSpec` (name filled in by :func:`specs`)."""
    meta = {'description': description, 'low': low, 'high': high, 'runtime': runtime}
    return dataclasses.field(default=default, metadata=meta)


def specs(record: type[Any]) -> Iterator[SettingSpec]:
    """The :class:`SettingSpec` of every field of a settings record class, in order."""
    for f in dataclasses.fields(record):
        yield SettingSpec(f.name, f.default, **f.metadata)


ZERO_POSE = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class RobotSettings:
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
class SensorSettings:
    """The one sensor a sonar or scanning-sonar node simulates."""

    sensor: str = setting(
        '', 'name of the <sensor type="sonar"> to simulate; empty: the first one'
    )
    frame_id: str = setting('', 'frame_id of the messages; empty: the sensor name')


@dataclass(frozen=True)
class SelectionSettings:
    """The sensors a ranger node makes one device of, or a robot_sensors_node simulates."""

    sensors: str = setting(
        '',
        'comma-separated <sensor> names or globs (ring_*); empty: ranger_node takes the first ray '
        'sensor, else every sonar; robot_sensors_node every sonar and ray sensor',
    )


@dataclass(frozen=True)
class OutputSettings:
    """How often and how readings go out."""

    update_rate: float = setting(
        0.0,
        'readings (pings, scans) per second; 0: the <sensor update_rate>, or 10 Hz if it has none',
        0.0,
        1000.0,
        runtime=True,
    )
    intensities: bool = setting(
        True, 'publish intensities from the start (the enable_intensities service switches them)'
    )
    qos_reliability: str = setting(
        'reliable', 'reliability of the publishers: reliable (REP 2003) or best_effort'
    )
    qos_depth: int = setting(10, 'history depth of the publishers', 1, 10_000)
    marker_rate: float = setting(
        2.0,
        'visualization_msgs/Marker of each sonar beam and its hits per second on '
        '<frame>/markers; 0: off',
        0.0,
        100.0,
    )
    diagnostics_rate: float = setting(
        1.0,
        'diagnostic_msgs/DiagnosticArray of the achieved rate per second on /diagnostics; 0: off',
        0.0,
        100.0,
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
class SonarTopicSettings:
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
class MotionSettings:
    """How the robot and the world move (``ros/motion.py``)."""

    pose_source: str = setting(
        'fixed',
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
    scene_time: str = setting(
        'start',
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
class GeometrySettings:
    """The size of a device's elements, for ``RangerGeometry``."""

    element_size: tuple[float, ...] = setting(
        (0.0, 0.0, 0.0), 'size of a sensing element (x y z, m) for RangerGeometry'
    )

    def __post_init__(self) -> None:
        size = self.element_size
        if len(size) != 3 or not all(math.isfinite(v) and v >= 0.0 for v in size):
            raise ConfigurationError(
                f'element_size must be three finite sizes >= 0 m (x y z), got {list(size)!r}'
            )


@dataclass(frozen=True)
class RangerSettings:
    """What makes a ranger node's device of its sensors (``docs/ranger.md``)."""

    element_poses: tuple[float, ...] = setting(
        (),
        "one sonar as an array: x y z roll pitch yaw per element, in the sonar's x-forward frame",
    )
    device_name: str = setting(
        '',
        'topic prefix and frame of the device; empty: the sensor name, or ranger for several',
    )
    intensity: str = setting(
        'retro', 'ray sensors: retro (Gazebo laser_retro of the surface hit) or echo'
    )
    range_resolution: float = setting(
        0.0, 'sonar arrays: ranges rounded to multiples of it [m]; 0: none', 0.0, 1000.0
    )


@dataclass(frozen=True)
class ScanningSettings:
    """A scanning sonar's sweep or a multibeam's fan."""

    mode: str = setting(
        'sweep',
        'sweep (one beam stepped through a sector) or multibeam (a fan of beams per ping)',
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
    beams: int = setting(64, 'multibeam: number of beams', 1, 100_000)
    vertical_beam_width: float = setting(
        math.radians(20.0), 'multibeam: vertical extent of a beam [rad]', 1e-6, math.pi
    )
    rays_horizontal: int = setting(3, 'multibeam: ray columns across a beam', 1, 10_000)
    rays_vertical: int = setting(24, 'multibeam: ray rows across a beam', 1, 10_000)
    vertical_pattern: str = setting(
        'uniform',
        'multibeam: one-way pattern across the elevation, its -3 dB width vertical_beam_width: '
        'uniform (flat), piston, gaussian, sinc or sinc_dave',
    )
    tvg: str = setting(
        'none',
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


@dataclass(frozen=True)
class BeamSettings:
    """Rays per sonar beam and the echo model (``nps_sonar_py.echo.EchoConfig``)."""

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
        0.0,
        3.14,
        runtime=True,
    )
    beam_pattern: str = setting(
        'piston',
        'one-way beam pattern: piston, gaussian, sinc, sinc_dave or uniform',
        runtime=True,
    )
    n_way: int = setting(
        2, 'pattern applied once (1) or on transmit and receive (2)', 1, 2, runtime=True
    )
    cast_limit: str = setting(
        'half_power',
        'cone of rays cast: half_power (the -3 dB beam) or first_null',
        runtime=True,
    )
    cast_half_angle: float = setting(
        0.0,
        'half angle of the cast cone [rad]; > 0 overrides cast_limit',
        0.0,
        HALF_PI,
        runtime=True,
    )
    range_bins: int = setting(
        200, 'bins of the intensity profile from min to max range', 1, 100_000, runtime=True
    )
    frequency: float = setting(115e3, 'carrier frequency [Hz]', 1.0, 1e8, runtime=True)
    medium: str = setting(
        'water', 'water or air: sound speed and automatic absorption', runtime=True
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
        0.0, 'speed of sound [m/s]; 0: from the medium', 0.0, 10000.0, runtime=True
    )
    absorption: str = setting(
        'auto',
        'auto (Francois-Garrison in water, ISO 9613-1 in air), none, fixed, francois_garrison, '
        'thorp or iso_9613_1',
        runtime=True,
    )
    absorption_db_per_m: float = setting(
        0.0, 'one-way absorption for absorption: fixed [dB/m]', 0.0, 1000.0, runtime=True
    )
    scattering: str = setting(
        'lambert',
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
    range_estimator: str = setting(
        'nearest',
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
    range_noise_type: str = setting(
        'none', 'SDF noise on the range: none, gaussian or gaussian_quantized', runtime=True
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

    @property
    def noise_seed(self) -> int | None:
        """The seed, or ``None`` for fresh entropy."""
        return None if self.seed < 0 else self.seed

    def echo_overrides(self) -> dict[str, Any]:
        """``EchoConfig`` fields of these settings (``beam_width`` ``None``: the URDF cone's)."""
        return {
            'beam_width': self.beam_width or None,
            'pattern': self.beam_pattern,
            'n_way': self.n_way,
            'cast_limit': self.cast_half_angle if self.cast_half_angle > 0.0 else self.cast_limit,
            'n_bins': self.range_bins,
            'frequency': self.frequency,
            'environment': Environment(
                medium=member(Medium, self.medium, 'environment.medium'),
                temperature=self.temperature,
                salinity=self.salinity,
                depth=self.depth,
                ph=self.ph,
                relative_humidity=self.relative_humidity,
                pressure=self.pressure,
            ),
            'sound_speed': self.sound_speed or None,
            'absorption': self.absorption,
            'fixed_absorption': self.absorption_db_per_m,
            'scattering': self.scattering,
            'specular_cutoff': self.specular_cutoff,
            'critical_angle': self.critical_angle,
            'source_level': self.source_level,
            'estimator': self.range_estimator,
            'threshold_db': self.threshold_db,
            'range_noise': RangeNoise(
                type=member(NoiseType, self.range_noise_type, 'range_noise.type'),
                mean=self.range_noise_mean,
                stddev=self.range_noise_stddev,
                bias_mean=self.range_noise_bias_mean,
                bias_stddev=self.range_noise_bias_stddev,
                precision=self.range_noise_precision,
            ),
            'speckle': self.speckle,
            'gain_stddev': self.gain_stddev,
            'seed': self.noise_seed,
        }


@dataclass(frozen=True)
class ImageSettings:
    """The scanning sonar's sensor_msgs/Image outputs (pixel conventions: sensing/images.py)."""

    publish_image_polar: bool = setting(
        False, 'publish <device>/image_polar: range bins x beams, 32FC1 linear intensity'
    )
    publish_image_polar_db: bool = setting(
        False, 'publish <device>/image_polar_db: the polar image in dB, mono8 or mono16'
    )
    publish_image: bool = setting(
        False, 'publish <device>/image: the Cartesian fan (sweep: disc), image_encoding'
    )
    image_encoding: str = setting(
        'db', 'Cartesian image: db (mono8/mono16, 0 outside) or 32FC1 (linear, NaN outside)'
    )
    image_db_min: float = setting(
        -100.0, 'dB image: level (SL + 10 log10 I) shown as 0 [dB]', -1000.0, 1000.0
    )
    image_db_max: float = setting(
        -20.0, 'dB image: level shown as the brightest pixel [dB]', -1000.0, 1000.0
    )
    image_db_bits: int = setting(8, 'dB image: bits per pixel, 8 (mono8) or 16 (mono16)', 8, 16)
    image_resolution: float = setting(
        0.0, 'Cartesian image: metres per pixel; 0: max_range / 400', 0.0, 1000.0
    )
    image_interpolation: str = setting(
        'linear',
        'Cartesian image: linear (in azimuth between beams, in range between bin centres) or '
        'nearest',
    )
    sweep_image_update: str = setting(
        'sweep', 'sweep mode: publish the images once per sweep or after every step'
    )
    image_max_pixels: int = setting(
        4_000_000, 'largest image allowed [pixels]; larger ones are refused', 1, 2**31 - 1
    )

    def __post_init__(self) -> None:
        for name, allowed in (
            ('image_encoding', ('db', '32FC1')),
            ('image_interpolation', ('linear', 'nearest')),
            ('sweep_image_update', ('sweep', 'step')),
        ):
            value = getattr(self, name)
            if value not in allowed:
                choices = ' or '.join(allowed)
                raise ConfigurationError(f'{name} must be {choices}, got {value!r}')
        if self.image_db_bits not in (8, 16):
            raise ConfigurationError(f'image_db_bits must be 8 or 16, got {self.image_db_bits}')
        if not self.image_db_min < self.image_db_max:
            raise ConfigurationError(
                f'image_db_min ({self.image_db_min:g}) must be below image_db_max '
                f'({self.image_db_max:g})'
            )

    @property
    def any(self) -> bool:
        """Whether any image is published."""
        return self.publish_image_polar or self.publish_image_polar_db or self.publish_image
