"""The ranger node: a ray sensor (scanner) or an array of sonars, as one Ranger device.

Run: ``ros2 run nps_sonar ranger_node --ros-args --params-file config/ranger.yaml``.

The device is chosen by the ``sensors`` parameter (``docs/ranger.md``):

* one ``<sensor type="ray">``: a scanner; one row publishes ``<device>/scan``
  (``sensor_msgs/LaserScan``), several rows ``<device>/points`` (``sensor_msgs/PointCloud2``:
  x, y, z, intensity, ring);
* ``<sensor type="sonar">`` elements (several names or a glob such as ``ring_*``), or one
  sonar with ``element_poses``: an array; each element publishes ``<element>/range``
  (``sensor_msgs/Range``, in the element's frame).

Every device also publishes ``<device>/ranger`` (``nps_sonar/RangerData``: ranges,
intensities, geometry, configuration) and serves ``<device>/get_geometry``,
``<device>/get_config``, ``<device>/set_config``, ``<device>/power`` and
``<device>/enable_intensities``. Names are relative, so namespaces and remapping apply.
Publishers are reliable, depth 10 (REP 2003) unless ``qos_reliability``/``qos_depth`` say
otherwise. The echo parameters of the sonar node (``ros/params.py``) describe a sonar
array's elements; here they are read-only: ``SetConfig`` is the run-time interface.

The robot and the world move as for the sonar node (``ros/motion.py``, the same
parameters): the device follows the robot's pose and joints between readings (its cached
rays are turned, not rebuilt), and ``RangerGeometry`` follows the joints. With
``use_sim_time`` the node reads on ``/clock``, stamps in simulated time and publishes
nothing before ``/clock`` arrives.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from rclpy.node import Node
from rclpy.parameter import Parameter
from sensor_msgs.msg import LaserScan, PointCloud2, Range
from visualization_msgs.msg import Marker

from nps_sonar import msg as nps_msg
from nps_sonar import srv as nps_srv
from nps_sonar_py.description import Robot, Sensor, SensorFrame, SensorType, load_robot, parse_robot
from nps_sonar_py.echo import EchoConfig
from nps_sonar_py.errors import ConfigurationError, DescriptionError
from nps_sonar_py.rig import reference_robot_file, reference_world_file
from nps_sonar_py.ros.conversions import range_message
from nps_sonar_py.ros.markers import beam_marker, hits_marker
from nps_sonar_py.ros.motion import Motion, SceneStart
from nps_sonar_py.ros.params import (
    ECHO_PARAMETERS,
    MOTION_PARAMETERS,
    OUTPUT_PARAMETERS,
    ParameterSpec,
    declare_all,
    echo_overrides,
)
from nps_sonar_py.ros.qos import publisher_qos
from nps_sonar_py.ros.ranger_conversions import (
    laser_scan,
    point_cloud,
    ranger_config_from_message,
    ranger_config_message,
    ranger_data_message,
    ranger_geometry_message,
)
from nps_sonar_py.ros.startup import run_node
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.ranger import (
    FanRanger,
    RangerDevice,
    RangerGeometry,
    ScannerRanger,
    SonarArray,
    SweepRanger,
    element_poses_from_flat,
    select_sensors,
)
from nps_sonar_py.sensing.scan import ScanConfig
from nps_sonar_py.sensing.sonar import sonar_echo_config
from nps_sonar_py.transforms import invert_transform, transform_from_xyz_rpy

__all__ = [
    'COMMON_PARAMETERS',
    'RANGER_PARAMETERS',
    'SONAR_MODEL_PARAMETERS',
    'RangerNode',
    'RangerServer',
    'RobotMount',
    'device_echo_config',
    'load_robot_from',
    'main',
    'read_parameters',
    'world_from_root',
]

DEFAULT_RATE_HZ = 10.0
P = ParameterSpec


def fixed(specs: Iterable[ParameterSpec]) -> tuple[ParameterSpec, ...]:
    """``specs`` made read-only: these nodes change configuration through SetConfig only."""
    return tuple(dataclasses.replace(spec, read_only=True) for spec in specs)


#: Parameters shared with the scanning sonar node.
COMMON_PARAMETERS: tuple[ParameterSpec, ...] = (
    P('robot_description_file', '', 'URDF or xacro file of the robot; empty: the reference robot',
      read_only=True),
    P('robot_description', '', 'URDF of the robot as a string; wins over robot_description_file',
      read_only=True),
    P('scene_file', '', 'scene file of the world; empty: the reference tank', read_only=True),
    P('robot_pose', [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      'pose of the robot root link in the world: x y z [m] roll pitch yaw [rad]', read_only=True),
    P('update_rate', 0.0, 'readings (scans, pings) per second; 0: the <sensor update_rate>, else 10 Hz',
      0.0, 1000.0, read_only=True),
    P('intensities', True, 'publish intensities from the start (EnableRangerIntensities switches them)',
      read_only=True),
    P('element_size', [0.0, 0.0, 0.0], 'size of a sensing element (x y z, m) for RangerGeometry',
      read_only=True),
    *fixed(s for s in OUTPUT_PARAMETERS if s.name.startswith('qos_')),
    *MOTION_PARAMETERS,
)

#: The beam of a sonar element: rays per cone and the echo model (the sonar node's parameters).
SONAR_MODEL_PARAMETERS: tuple[ParameterSpec, ...] = (
    P('rays', 200, 'rays per sonar beam, filling the cast cone at equal solid angle', 1, 2_000_000,
      read_only=True),
    *fixed(ECHO_PARAMETERS),
)

RANGER_PARAMETERS: tuple[ParameterSpec, ...] = (
    *COMMON_PARAMETERS,
    P('sensors', '', 'comma-separated <sensor> names or globs (ring_*); empty: the first ray sensor, '
      'else every sonar', read_only=True),
    P('element_poses', Parameter.Type.DOUBLE_ARRAY,
      "one sonar as an array: x y z roll pitch yaw per element, in the sonar's x-forward frame",
      read_only=True),
    P('device_name', '', 'topic prefix and frame of the device; empty: the sensor name, or ranger for '
      'several', read_only=True),
    P('intensity', 'retro', 'ray sensors: retro (Gazebo laser_retro of the surface hit) or echo',
      read_only=True),
    P('range_resolution', 0.0, 'sonar arrays: ranges rounded to multiples of it [m]; 0: none', 0.0, 1000.0,
      read_only=True),
    *fixed(s for s in OUTPUT_PARAMETERS if s.name == 'marker_rate'),
    *SONAR_MODEL_PARAMETERS,
)


def read_parameters(node: Node, specs: Iterable[ParameterSpec]) -> dict[str, Any]:
    """Current values of ``specs`` (arrays as lists); a typed parameter without a value reads ``None``."""
    values: dict[str, Any] = {}
    for spec in specs:
        try:
            value = node.get_parameter(spec.name).value
        except Exception as error:  # rclpy's ParameterUninitializedException, named so on every distro
            if type(error).__name__ != 'ParameterUninitializedException':
                raise
            value = None
        array = hasattr(value, 'tolist') or isinstance(value, (list, tuple))
        values[spec.name] = list(value) if array and not isinstance(value, str) else value
    return values


def load_robot_from(values: dict[str, Any]) -> Robot:
    """The robot of the ``robot_description`` or ``robot_description_file`` parameter."""
    if values['robot_description']:
        return parse_robot(values['robot_description'], source='<robot_description>')
    return load_robot(values['robot_description_file'] or reference_robot_file())


def world_from_root(values: dict[str, Any]) -> NDArray[np.float64]:
    """(4, 4) world <- robot root link of the ``robot_pose`` parameter."""
    pose = values['robot_pose']
    if len(pose) != 6:
        raise ConfigurationError(f'robot_pose must be [x, y, z, roll, pitch, yaw], got {pose!r}')
    return transform_from_xyz_rpy(pose[:3], pose[3:])


def device_echo_config(values: dict[str, Any], sensor: Sensor) -> EchoConfig:
    """The echo model of a ``<sonar>`` with the echo parameters (``beam_width`` 0: the URDF cone)."""
    return sonar_echo_config(sensor.sonar, **echo_overrides(values))


def _same_beam(a: Sensor, b: Sensor) -> bool:
    first, second = a.sonar, b.sonar
    return bool(np.allclose([first.min, first.max, first.radius], [second.min, second.max, second.radius],
                            rtol=1e-12, atol=0.0))


class RobotMount:
    """Where a device sits on its robot, whose joints may move it: its frame and its elements' poses.

    The device frame is either the first sensor's body frame, with ``element_poses`` fixed in
    it (a scanner, a scanning sonar, one sonar with element poses), or, when ``element_poses``
    is ``None``, a frame fixed to the root link at the sensors' centroid (at zero joints) with
    an element at each sensor's body frame (an array of ``<sensor>``). Frames are x forward.
    """

    def __init__(
        self, robot: Robot, sensors: Sequence[Sensor], device_frame: str, element_frames: Sequence[str],
        element_size: Sequence[float], element_poses: NDArray[np.float64] | None = None,
    ) -> None:
        self.robot = robot
        self.sensors = tuple(sensors)
        self.device_frame = device_frame
        self.element_frames = tuple(element_frames)
        self.element_size = tuple(element_size)
        self.element_poses = element_poses
        self._root_from_device: NDArray[np.float64] | None = None
        if element_poses is None:
            bodies = self._bodies({})
            self._root_from_device = transform_from_xyz_rpy(bodies[:, :3, 3].mean(axis=0), (0.0, 0.0, 0.0))
        self._joints: dict[str, float] | None = None
        self._geometry: RangerGeometry | None = None
        self._geometry = self.geometry({})

    def _bodies(self, joints: Mapping[str, float]) -> NDArray[np.float64]:
        body = SensorFrame.BODY
        return np.array([self.robot.sensor_transform(s.name, joints, frame=body) for s in self.sensors])

    def geometry(self, joint_positions: Mapping[str, float]) -> RangerGeometry:
        """The device's geometry with joints at ``joint_positions`` (others at 0; unknown ones ignored)."""
        joints = {name: float(v) for name, v in joint_positions.items() if name in self.robot.joints}
        previous = self._geometry
        if previous is not None and joints == self._joints:
            return previous
        self._joints = joints
        bodies = self._bodies(joints)
        if self._root_from_device is None:
            root_from_device, poses = bodies[0], self.element_poses
        else:
            root_from_device = self._root_from_device
            poses = np.einsum('ij,kjl->kil', invert_transform(root_from_device), bodies)
        if previous is not None and np.array_equal(previous.pose, root_from_device) and np.array_equal(
                previous.element_poses, poses):
            return previous  # joints that do not carry this device (wheels...)
        self._geometry = RangerGeometry.of_elements(self.robot.root_link, self.device_frame, root_from_device,
                                                    self.element_frames, poses, self.element_size)
        return self._geometry

    def move(
        self, device: RangerDevice, world_from_root: NDArray[np.float64], joints: Mapping[str, float],
    ) -> bool:
        """Place ``device`` where the robot puts it; whether its ``RangerGeometry`` changed."""
        geometry = self.geometry(joints)
        changed = geometry is not device.geometry
        device.geometry = geometry  # first: a sonar array places its elements by it
        world_from_device = world_from_root @ geometry.pose
        if isinstance(device, SonarArray):
            device.set_pose(world_from_device)
        elif isinstance(device, ScannerRanger):
            device.scanner.set_pose(world_from_device)
        elif isinstance(device, (SweepRanger, FanRanger)):
            device.sonar.set_pose(world_from_device)
        return changed


class RangerServer:
    """The Ranger services and switches of a node, around a device that can be reconfigured.

    The services run in the node's single-threaded executor, so a ``SetConfig`` never runs
    during a reading: an accepted configuration applies from the next one. ``on_change``
    is called after a configuration was applied or the power switched.
    """

    def __init__(self, node: Node, device_name: str, *, intensities: bool) -> None:
        self.node = node
        self.device_name = device_name
        self.powered = True
        self.intensities = intensities
        self.device: RangerDevice | None = None
        self.geometry_message = nps_msg.RangerGeometry()
        self.config_message = nps_msg.RangerConfig()
        self._on_change: Callable[[], None] = lambda: None

    def serve(self, device: RangerDevice, on_change: Callable[[], None]) -> None:
        """Create the five services ``<device>/...`` for ``device``."""
        self.device = device
        self._on_change = on_change
        self.refresh()
        prefix, node = self.device_name, self.node
        node.create_service(nps_srv.GetRangerGeometry, f'{prefix}/get_geometry', self._get_geometry)
        node.create_service(nps_srv.GetRangerConfig, f'{prefix}/get_config', self._get_config)
        node.create_service(nps_srv.SetRangerConfig, f'{prefix}/set_config', self._set_config)
        node.create_service(nps_srv.SetRangerPower, f'{prefix}/power', self._power)
        node.create_service(nps_srv.EnableRangerIntensities, f'{prefix}/enable_intensities', self._enable)

    def refresh(self) -> None:
        """Rebuild the geometry and configuration messages (once per change, not per reading)."""
        assert self.device is not None
        self.geometry_message = ranger_geometry_message(self.device.geometry)
        self.config_message = ranger_config_message(self.device.ranger_config())

    def _get_geometry(self, _request: Any, response: Any) -> Any:
        response.geometry = self.geometry_message
        return response

    def _get_config(self, _request: Any, response: Any) -> Any:
        response.config = self.config_message
        return response

    def _set_config(self, request: Any, response: Any) -> Any:
        assert self.device is not None
        reason = self.device.reconfigure(ranger_config_from_message(request.config))
        if reason:
            self.node.get_logger().warning(f'SetConfig refused: {reason}')
        else:
            self.refresh()
            self._on_change()
            self.node.get_logger().info(f'SetConfig applied: {self.device.ranger_config()}')
        response.success = reason is None
        response.reason = reason or ''
        response.config = self.config_message
        return response

    def _power(self, request: Any, response: Any) -> Any:
        self.powered = bool(request.power)
        self._on_change()
        self.node.get_logger().info(f'power {"on" if self.powered else "off"}')
        response.success = True
        return response

    def _enable(self, request: Any, response: Any) -> Any:
        self.intensities = bool(request.enable)
        response.success = True
        return response


class RangerNode(Node):
    """Reads a ray sensor or a sonar array on a timer and publishes it (see the module docstring).

    ``robot``, ``raycaster`` and ``scene_start`` are shared by the sensors of one process
    (``robot_sensors_node``); by default the node reads its own files. ``kwargs`` go to
    ``rclpy.node.Node`` (``context``, ``parameter_overrides``, ...).
    """

    def __init__(
        self, *, node_name: str = 'ranger', robot: Robot | None = None, raycaster: Raycaster | None = None,
        scene_start: SceneStart | None = None, **kwargs: Any,
    ) -> None:
        super().__init__(node_name, **kwargs)
        declare_all(self, RANGER_PARAMETERS)
        values = read_parameters(self, RANGER_PARAMETERS)
        self.qos = publisher_qos(values['qos_reliability'], values['qos_depth'])
        self.robot = load_robot_from(values) if robot is None else robot
        sensors = select_sensors(self.robot, values['sensors'])
        self.world_from_root = world_from_root(values)
        if raycaster is None:
            raycaster = Raycaster(load_world(values['scene_file'] or reference_world_file()))
        self.raycaster = raycaster
        kinds = {s.type for s in sensors}
        poses = values['element_poses'] or []
        self.scan_publisher: Any = None
        self.cloud_publisher: Any = None
        self.range_publishers: list[Any] = []
        self.marker_publishers: list[Any] = []  # sonar arrays: each element's beam and hits
        self.marker_period = math.inf
        self._next_marker = -math.inf
        if kinds == {SensorType.RAY}:
            if len(sensors) > 1:
                raise self._error(sensors[1], 'an array of ray sensors is not supported; name one ray sensor')
            if poses:
                raise ConfigurationError('element_poses applies to a sonar, not to a ray sensor')
            self.device: ScannerRanger | SonarArray = self._build_scanner(values, sensors[0])
        elif kinds == {SensorType.SONAR}:
            self.device = self._build_array(values, sensors, poses)
        else:
            listed = ', '.join(f'{s.name} ({s.type.value})' for s in sensors)
            raise DescriptionError(f'a device is one ray sensor or sonars, not {listed}',
                                   file=self.robot.source, element='<robot>')
        name = self.device.geometry.device_frame
        self.server = RangerServer(self, name, intensities=values['intensities'])
        self.data_publisher = self.create_publisher(nps_msg.RangerData, f'{name}/ranger', self.qos)
        self.motion = Motion(self, values, world_from_root=self.world_from_root, start=scene_start)
        self.timer: Any = None
        self.server.serve(self.device, self._on_change)
        self._on_change()
        config = self.device.ranger_config()
        kind = 'scanner' if isinstance(self.device, ScannerRanger) else 'sonar array'
        self.get_logger().info(
            f'ranger "{name}": {kind} of {len(self.device.geometry.element_frames)} element(s) at '
            f'{config.frequency:g} Hz, {config.min_range:g}..{config.max_range:g} m',
        )

    def _error(self, sensor: Sensor, problem: str) -> DescriptionError:
        return DescriptionError(problem, file=self.robot.source, line=sensor.line,
                                element=f'<sensor name="{sensor.name}">')

    @staticmethod
    def _rate(values: dict[str, Any], sensor: Sensor) -> float:
        return float(values['update_rate'] or sensor.update_rate or DEFAULT_RATE_HZ)

    def _build_scanner(self, values: dict[str, Any], sensor: Sensor) -> ScannerRanger:
        try:
            limits = ScanConfig.from_ray_spec(
                sensor.ray, update_rate=self._rate(values, sensor), intensity=values['intensity'],
                seed=values['seed'] if values['seed'] >= 0 else None,
            )
        except ConfigurationError as error:
            raise self._error(sensor, str(error)) from None
        name = values['device_name'] or sensor.name
        self.mount = RobotMount(self.robot, (sensor,), name, (name,), values['element_size'], np.eye(4)[None])
        geometry = self.mount.geometry({})
        if limits.rows == 1:
            self.scan_publisher = self.create_publisher(LaserScan, f'{name}/scan', self.qos)
        else:
            self.cloud_publisher = self.create_publisher(PointCloud2, f'{name}/points', self.qos)
        return ScannerRanger(limits, self.world_from_root @ geometry.pose, geometry)

    def _build_array(
        self, values: dict[str, Any], sensors: list[Sensor], flat_poses: list[float],
    ) -> SonarArray:
        for other in sensors[1:]:
            if not _same_beam(other, sensors[0]):
                raise self._error(other, f'the elements of an array need the <sonar> (min, max, radius) of '
                                         f'"{sensors[0].name}"')
        if flat_poses:
            if len(sensors) > 1:
                raise ConfigurationError('element_poses applies to one sonar; several <sensor> were named')
            name = values['device_name'] or sensors[0].name
            element_poses = element_poses_from_flat(flat_poses)
            frames = tuple(f'{name}_{k}' for k in range(len(element_poses)))
            self.mount = RobotMount(self.robot, sensors[:1], name, frames, values['element_size'],
                                    element_poses)
        else:  # the device frame: at the centroid of the elements, parallel to the root link
            name = values['device_name'] or (sensors[0].name if len(sensors) == 1 else 'ranger')
            frames = tuple(s.name for s in sensors)
            self.mount = RobotMount(self.robot, sensors, name, frames, values['element_size'])
        geometry = self.mount.geometry({})
        try:
            device = SonarArray(
                device_echo_config(values, sensors[0]), self.world_from_root @ geometry.pose, geometry,
                n_rays=values['rays'], range_resolution=values['range_resolution'],
                frequency=self._rate(values, sensors[0]),
            )
        except ConfigurationError as error:
            raise self._error(sensors[0], str(error)) from None
        self.range_publishers = [self.create_publisher(Range, f'{frame}/range', self.qos) for frame in frames]
        if values['marker_rate'] > 0.0:
            self.marker_publishers = [
                self.create_publisher(Marker, f'{frame}/markers', self.qos) for frame in frames
            ]
            self.marker_period = 1.0 / values['marker_rate']
        return device

    def _on_change(self) -> None:
        """Set the timer to the configured frequency (after a SetConfig or a power switch)."""
        period = 1.0 / self.device.ranger_config().frequency
        if self.timer is not None and abs(self.timer.timer_period_ns - period * 1e9) < 1.0:
            return
        if self.timer is not None:
            self.destroy_timer(self.timer)
        self.timer = self.create_timer(period, self.read)

    def _set_robot_state(self, world_from_root: NDArray[np.float64], joints: dict[str, float]) -> None:
        if self.mount.move(self.device, world_from_root, joints):
            self.server.refresh()

    def _publish_markers(self, seconds: float, stamp: Any, elements: Sequence[str]) -> None:
        """Each array element's beam and last hits at ``marker_rate``, in the element's frame."""
        if not self.marker_publishers or seconds < self._next_marker:
            return
        self._next_marker = seconds + self.marker_period
        device = self.device
        half, length = device.echo.cast_half_angle, device.echo.max_range
        rows = zip(self.marker_publishers, elements, device.last_ranges, strict=True)
        for publisher, element, ranges in rows:
            publisher.publish(beam_marker(half, length, stamp=stamp, frame_id=element))
            publisher.publish(hits_marker(device.pattern.directions, ranges, stamp=stamp, frame_id=element))

    def read(self) -> None:
        """One reading of the device where the robot is now, published; nothing while the power is off."""
        if not self.server.powered:
            return
        now = self.get_clock().now()
        if now.nanoseconds == 0:  # sim time without /clock yet: time is not initialised
            return
        self.motion.apply(now, self.raycaster, self._set_robot_state)
        stamp = now.to_msg()
        config = self.device.ranger_config()
        frame = self.server.device_name
        with_intensities = self.server.intensities
        if isinstance(self.device, ScannerRanger):
            scanner = self.device.scanner
            reading = scanner.scan(self.raycaster)
            ranges = reading.ranges
            intensities = reading.intensities if with_intensities else None
            if self.scan_publisher is not None:
                axis = scanner.horizontal
                self.scan_publisher.publish(laser_scan(
                    ranges[0], None if intensities is None else intensities[0],
                    angle_min=axis.reading_angles[0], angle_increment=axis.increment, time_increment=0.0,
                    scan_time=1.0 / config.frequency, range_min=config.min_range, range_max=config.max_range,
                    stamp=stamp, frame_id=frame,
                ))
            else:
                cloud = point_cloud(reading.points(), intensities, stamp=stamp, frame_id=frame)
                self.cloud_publisher.publish(cloud)
        else:
            array_reading = self.device.ping(self.raycaster)
            ranges = array_reading.ranges
            intensities = array_reading.intensities if with_intensities else None
            fov = 2.0 * self.device.echo.cast_half_angle
            elements = self.device.geometry.element_frames
            for publisher, element, value in zip(self.range_publishers, elements, ranges, strict=True):
                publisher.publish(range_message(
                    float(value), field_of_view=fov, min_range=config.min_range, max_range=config.max_range,
                    stamp=stamp, frame_id=element,
                ))
            self._publish_markers(now.nanoseconds * 1e-9, stamp, elements)
        self.data_publisher.publish(ranger_data_message(
            ranges, intensities, geometry=self.server.geometry_message, config=self.server.config_message,
            stamp=stamp, frame_id=frame,
        ))


def main(args: list[str] | None = None) -> int:
    """Entry point of ``ros2 run nps_sonar ranger_node``."""
    return run_node(RangerNode, args=args)


if __name__ == '__main__':
    sys.exit(main())
