"""Parameters of the nodes: one table of names, defaults, descriptions, bounds and flags.

The table drives ``declare_parameter`` with a ``ParameterDescriptor`` each, so that
``config/*.yaml``, the launch files, the tests and ``ros2 param describe`` agree. Read-only
parameters need a restart (they choose files, sensors and topics); the others may change
at run time, validated as a whole before they are accepted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor
from rclpy.node import Node

from nps_sonar_py.echo import Environment, RangeNoise

__all__ = [
    'ECHO_PARAMETERS',
    'MOTION_PARAMETERS',
    'OUTPUT_PARAMETERS',
    'SONAR_PARAMETERS',
    'ParameterSpec',
    'declare_all',
    'echo_overrides',
    'read_all',
]


@dataclass(frozen=True)
class ParameterSpec:
    """One parameter: name, default (which fixes its type), description, bounds, read-only flag."""

    name: str
    default: Any
    description: str
    low: float | None = None
    high: float | None = None
    read_only: bool = False

    def descriptor(self) -> ParameterDescriptor:
        """The rcl descriptor: description, range (enforced by rclpy), read-only flag."""
        descriptor = ParameterDescriptor(description=self.description, read_only=self.read_only)
        if self.low is None or self.high is None or isinstance(self.default, bool):
            return descriptor
        if isinstance(self.default, int):
            descriptor.integer_range = [
                IntegerRange(from_value=int(self.low), to_value=int(self.high), step=1),
            ]
        elif isinstance(self.default, float):
            descriptor.floating_point_range = [
                FloatingPointRange(from_value=float(self.low), to_value=float(self.high), step=0.0),
            ]
        return descriptor


P = ParameterSpec

#: What the sonar simulates and where: fixed for the node's life.
SONAR_PARAMETERS: tuple[ParameterSpec, ...] = (
    P('robot_description_file', '',
      'URDF or xacro file of the robot carrying the sensor; empty: the reference robot', read_only=True),
    P('robot_description', '',
      'URDF of the robot as a string (as robot_state_publisher takes it); wins over robot_description_file',
      read_only=True),
    P('scene_file', '', 'scene file of the world (models and scene_state); empty: the reference tank',
      read_only=True),
    P('sensor', '', 'name of the <sensor type="sonar"> to simulate; empty: the first one', read_only=True),
    P('robot_pose', [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      'pose of the robot root link in the world: x y z [m] roll pitch yaw [rad]', read_only=True),
    P('frame_id', '', 'frame_id of the messages; empty: the sensor name', read_only=True),
    P('range_topic', '', 'sensor_msgs/Range topic; empty: <sensor>/range', read_only=True),
    P('scan_topic', '', 'one-element sensor_msgs/LaserScan topic; empty: <sensor>/scan', read_only=True),
    P('sonar_point_topic', '', 'nps_sonar/SonarPoint topic; empty: <sensor>/sonar_point', read_only=True),
    P('publish_range', True, 'publish sensor_msgs/Range'),
    P('publish_scan', True, 'publish the one-element sensor_msgs/LaserScan (range and intensity)'),
    P('publish_sonar_point', True, 'publish nps_sonar/SonarPoint (range, intensity, profile)'),
    P('rays', 500, 'rays cast per ping, filling the cast cone at equal solid angle', 1, 2_000_000),
    P('update_rate', 0.0, 'pings per second; 0: the <sensor update_rate>, or 10 Hz if it has none',
      0.0, 1000.0),
)

#: How messages go out: QoS and markers (fixed for the node's life).
OUTPUT_PARAMETERS: tuple[ParameterSpec, ...] = (
    P('qos_reliability', 'reliable', 'reliability of the publishers: reliable (REP 2003) or best_effort',
      read_only=True),
    P('qos_depth', 10, 'history depth of the publishers', 1, 10_000, read_only=True),
    P('marker_rate', 2.0,
      'visualization_msgs/Marker of the beam and its hits per second on <sensor>/markers; 0: off',
      0.0, 100.0, read_only=True),
)

#: How the robot and the world move (``nps_sonar_py/ros/motion.py``).
MOTION_PARAMETERS: tuple[ParameterSpec, ...] = (
    P('pose_source', 'fixed', 'robot root pose: fixed (robot_pose), odometry (nav_msgs/Odometry) or pose '
      '(geometry_msgs/PoseStamped) on pose_topic', read_only=True),
    P('pose_topic', '', 'topic of the robot pose; empty: odom for odometry, pose for pose',
      read_only=True),
    P('joint_states_topic', 'joint_states', 'sensor_msgs/JointState topic of the robot joints',
      read_only=True),
    P('scene_state_topic', 'scene_state', 'nps_sonar/SceneState topic moving entities of the world',
      read_only=True),
    P('scene_time', 'start',
      "scene time: start (the scene state's time_stamp at the node's first ping) or clock "
      "(the node's clock in seconds, sim time with use_sim_time)", read_only=True),
)

#: The echo model (``nps_sonar_py.echo.EchoConfig``); may change at run time.
ECHO_PARAMETERS: tuple[ParameterSpec, ...] = (
    P('beam_width', 0.0, 'one-way -3 dB full beam width [rad]; 0: the URDF cone, 2 atan(radius / max)',
      0.0, 3.14),
    P('beam_pattern', 'piston', 'one-way beam pattern: piston, gaussian, sinc, sinc_dave or uniform'),
    P('n_way', 2, 'pattern applied once (1) or on transmit and receive (2)', 1, 2),
    P('cast_limit', 'half_power', 'cone of rays cast: half_power (the -3 dB beam) or first_null'),
    P('cast_half_angle', 0.0, 'half angle of the cast cone [rad]; > 0 overrides cast_limit',
      0.0, 1.5707963267948966),
    P('range_bins', 200, 'bins of the intensity profile from min to max range', 1, 100_000),
    P('frequency', 115e3, 'carrier frequency [Hz]', 1.0, 1e8),
    P('medium', 'water', 'water or air: sound speed and automatic absorption'),
    P('temperature', 10.0, 'temperature of the medium [deg C]', -10.0, 60.0),
    P('salinity', 35.0, 'salinity of water [psu]; 0 is fresh water', 0.0, 50.0),
    P('depth', 0.0, 'depth of the sensor in water [m]', 0.0, 12000.0),
    P('ph', 8.0, 'pH of water', 6.0, 9.0),
    P('relative_humidity', 50.0, 'relative humidity of air [%]', 0.0, 100.0),
    P('pressure', 101.325, 'pressure of air [kPa]', 10.0, 200.0),
    P('sound_speed', 0.0, 'speed of sound [m/s]; 0: from the medium', 0.0, 10000.0),
    P('absorption', 'auto',
      'auto (Francois-Garrison in water, ISO 9613-1 in air), none, fixed, francois_garrison, '
      'thorp or iso_9613_1'),
    P('absorption_db_per_m', 0.0, 'one-way absorption for absorption: fixed [dB/m]', 0.0, 1000.0),
    P('scattering', 'lambert', 'surfaces scatter diffusely (lambert) or mirror-like (specular)'),
    P('specular_cutoff', False, 'no echo from rays whose incidence exceeds critical_angle (in-air rangers)'),
    P('critical_angle', 0.39269908169872414, 'incidence cut-off [rad], Webots: pi/8',
      0.0, 1.5707963267948966),
    P('source_level', 0.0, 'source level added to the dB outputs [dB re 1 uPa at 1 m]', -1000.0, 1000.0),
    P('range_estimator', 'nearest', 'nearest, mean_in_beam, intensity_weighted or first_above_threshold'),
    P('threshold_db', -1000.0, 'level for range_estimator first_above_threshold [dB]', -1000.0, 1000.0),
    P('range_noise_type', 'none', 'SDF noise on the range: none, gaussian or gaussian_quantized'),
    P('range_noise_mean', 0.0, 'mean of the range noise [m]', -100.0, 100.0),
    P('range_noise_stddev', 0.0, 'standard deviation of the range noise [m]', 0.0, 100.0),
    P('range_noise_bias_mean', 0.0, 'mean of the range bias drawn once [m]', -100.0, 100.0),
    P('range_noise_bias_stddev', 0.0, 'standard deviation of the range bias [m]', 0.0, 100.0),
    P('range_noise_precision', 0.0, 'quantum of gaussian_quantized range noise [m]', 0.0, 100.0),
    P('speckle', False, 'Rayleigh speckle on the profile (coherent sum per bin)'),
    P('gain_stddev', 0.0, 'standard deviation of a multiplicative gain N(1, s) per ping', 0.0, 10.0),
    P('seed', -1, 'seed of the noise generator; -1: fresh entropy', -1, 2**31 - 1),
)


def declare_all(node: Node, specs: Iterable[ParameterSpec]) -> None:
    """Declare every parameter of ``specs`` on ``node`` with its descriptor."""
    for spec in specs:
        node.declare_parameter(spec.name, spec.default, spec.descriptor())


def read_all(node: Node, specs: Iterable[ParameterSpec]) -> dict[str, Any]:
    """Current values of ``specs`` as a plain dict (arrays as lists)."""
    values: dict[str, Any] = {}
    for spec in specs:
        value = node.get_parameter(spec.name).value
        values[spec.name] = list(value) if isinstance(spec.default, list) else value
    return values


def echo_overrides(values: Mapping[str, Any]) -> dict[str, Any]:
    """``EchoConfig`` fields from parameter values (names of ``ECHO_PARAMETERS``)."""
    v = values
    return {
        'beam_width': v['beam_width'] or None,
        'pattern': v['beam_pattern'],
        'n_way': v['n_way'],
        'cast_limit': v['cast_half_angle'] if v['cast_half_angle'] > 0.0 else v['cast_limit'],
        'n_bins': v['range_bins'],
        'frequency': v['frequency'],
        'environment': Environment(
            medium=v['medium'], temperature=v['temperature'], salinity=v['salinity'], depth=v['depth'],
            ph=v['ph'], relative_humidity=v['relative_humidity'], pressure=v['pressure'],
        ),
        'sound_speed': v['sound_speed'] or None,
        'absorption': v['absorption'],
        'fixed_absorption': v['absorption_db_per_m'],
        'scattering': v['scattering'],
        'specular_cutoff': v['specular_cutoff'],
        'critical_angle': v['critical_angle'],
        'source_level': v['source_level'],
        'estimator': v['range_estimator'],
        'threshold_db': v['threshold_db'],
        'range_noise': RangeNoise(
            type=v['range_noise_type'], mean=v['range_noise_mean'], stddev=v['range_noise_stddev'],
            bias_mean=v['range_noise_bias_mean'], bias_stddev=v['range_noise_bias_stddev'],
            precision=v['range_noise_precision'],
        ),
        'speckle': v['speckle'],
        'gain_stddev': v['gain_stddev'],
        'seed': None if v['seed'] < 0 else v['seed'],
    }
