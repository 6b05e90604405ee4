"""The scanning sonar node: a mechanically scanned sonar (sweep) or a multibeam fan.

Run: ``ros2 run nps_sonar scanning_sonar_node --ros-args --params-file config/scanning_sonar.yaml``.

The sonar is a ``<sensor type="sonar">`` of the robot (``sensor``; empty: the first); its
cone gives the beam width unless ``beam_width`` is set, and the acoustic parameters the
echo model (``echo.EchoConfig``). Topics, relative to the node's namespace, in the
sensor's x-forward frame (named after the sensor):

* ``mode: sweep``: one ``<sensor>/sonar_point`` (``nps_sonar/SonarPoint``, ``azimuth`` = head angle)
  per step, and per sweep one ``<sensor>/scan`` (``sensor_msgs/LaserScan``: one range and total
  intensity per step, ``time_increment`` = the step period, ``scan_time`` = the sweep period,
  stamped when its first step was transmitted) and one ``<sensor>/ranger`` (``RangerData``).
* ``mode: multibeam``: per ping one ``<sensor>/scan`` (one range per beam; the beams are
  simultaneous, so ``time_increment`` is 0), one ``<sensor>/multibeam``
  (``nps_sonar/MultibeamPing``, every beam's profile) and one ``<sensor>/ranger``.

Steps are scheduled at ``t0 + k * step_period`` on the node's clock, whatever the timer's
jitter: a tick runs every step that is due and stamps each with its own time. If the node
falls more than a sweep behind, the schedule slips (a warning says so). The Ranger services
(``<sensor>/get_config`` ...) are those of the ranger node; a new configuration restarts
the sweep at its first angle (an unfinished sweep is dropped).

The robot and the world move as for the sonar node (``ros/motion.py``): each step sees them
at its own stamp (the robot as last reported). With ``use_sim_time`` the schedule runs on
``/clock`` and nothing is published before ``/clock`` arrives.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
from builtin_interfaces.msg import Time
from numpy.typing import NDArray
from rclpy.node import Node
from rclpy.time import Time as ClockTime
from sensor_msgs.msg import LaserScan

from nps_sonar import msg as nps_msg
from nps_sonar_py.description import Robot, SensorType
from nps_sonar_py.errors import ConfigurationError, DescriptionError
from nps_sonar_py.rig import choose_sensor, reference_world_file
from nps_sonar_py.ros.conversions import sonar_point_message
from nps_sonar_py.ros.motion import Motion, SceneStart
from nps_sonar_py.ros.params import ParameterSpec, declare_all
from nps_sonar_py.ros.qos import publisher_qos
from nps_sonar_py.ros.ranger_conversions import laser_scan, multibeam_message, ranger_data_message
from nps_sonar_py.ros.ranger_node import (
    COMMON_PARAMETERS,
    DEFAULT_RATE_HZ,
    SONAR_MODEL_PARAMETERS,
    RangerServer,
    RobotMount,
    device_echo_config,
    load_robot_from,
    read_parameters,
    world_from_root,
)
from nps_sonar_py.ros.startup import run_node
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.multibeam import FanConfig, MultibeamSonar
from nps_sonar_py.sensing.ranger import FanRanger, SweepRanger
from nps_sonar_py.sensing.sweep import ScanningSonar, SweepConfig

__all__ = ['SCANNING_SONAR_PARAMETERS', 'ScanningSonarNode', 'main']

#: Shortest timer period; steps due in between run together (each with its own stamp), s.
MIN_TICK = 0.01
P = ParameterSpec

SCANNING_SONAR_PARAMETERS: tuple[ParameterSpec, ...] = (
    *COMMON_PARAMETERS,
    P('sensor', '', 'name of the <sensor type="sonar">; empty: the first one', read_only=True),
    P('mode', 'sweep', 'sweep (one beam stepped through a sector) or multibeam (a fan of beams per ping)',
      read_only=True),
    P('min_angle', -math.pi, 'sweep: first head angle; multibeam: first beam axis [rad]', read_only=True),
    P('max_angle', math.pi, 'sweep: last head angle (2 pi span: a full turn); multibeam: last axis [rad]',
      read_only=True),
    P('step', 2.0 * math.pi / 400, 'sweep: head step [rad] (Ping360: 2 pi / 400)', 1e-6, 2.0 * math.pi,
      read_only=True),
    P('step_period', 0.0, 'sweep: seconds per step, >= 2 max_range / c; 0: exactly that', 0.0, 3600.0,
      read_only=True),
    P('bounce', False, 'sweep: a sector goes back and forth instead of restarting at min_angle',
      read_only=True),
    P('beams', 64, 'multibeam: number of beams', 1, 100_000, read_only=True),
    P('vertical_beam_width', math.radians(20.0), 'multibeam: vertical extent of a beam [rad]', 1e-6, math.pi,
      read_only=True),
    P('rays_horizontal', 3, 'multibeam: ray columns across a beam', 1, 10_000, read_only=True),
    P('rays_vertical', 24, 'multibeam: ray rows across a beam', 1, 10_000, read_only=True),
    *SONAR_MODEL_PARAMETERS,
)


def _time(nanoseconds: int) -> Time:
    return Time(sec=int(nanoseconds // 1_000_000_000), nanosec=int(nanoseconds % 1_000_000_000))


class ScanningSonarNode(Node):
    """Steps a scanning sonar through its sweep, or pings a multibeam fan (module docstring).

    ``robot``, ``raycaster`` and ``scene_start`` are shared by the sensors of one process;
    by default the node reads its own files. ``kwargs`` go to ``rclpy.node.Node``.
    """

    def __init__(
        self, *, node_name: str = 'scanning_sonar', robot: Robot | None = None,
        raycaster: Raycaster | None = None, scene_start: SceneStart | None = None, **kwargs: Any,
    ) -> None:
        super().__init__(node_name, **kwargs)
        declare_all(self, SCANNING_SONAR_PARAMETERS)
        values = read_parameters(self, SCANNING_SONAR_PARAMETERS)
        robot = load_robot_from(values) if robot is None else robot
        sensor = choose_sensor(robot, values['sensor'] or None, SensorType.SONAR)
        if raycaster is None:
            raycaster = Raycaster(load_world(values['scene_file'] or reference_world_file()))
        self.raycaster = raycaster
        name = sensor.name
        self.frame_id = name
        self.mount = RobotMount(robot, (sensor,), name, (name,), values['element_size'], np.eye(4)[None])
        geometry = self.mount.geometry({})
        world_from_body = world_from_root(values) @ geometry.pose
        self.mode = values['mode']
        try:
            echo = device_echo_config(values, sensor)
            limits = (echo.min_range, echo.max_range)
            if self.mode == 'sweep':
                sweep = SweepConfig(values['min_angle'], values['max_angle'], values['step'],
                                    values['step_period'], values['bounce'])
                sonar = ScanningSonar(echo, sweep, world_from_body, n_rays=values['rays'])
                self.device: SweepRanger | FanRanger = SweepRanger(sonar, geometry, limits=limits)
            elif self.mode == 'multibeam':
                fan = FanConfig(values['beams'], values['min_angle'], values['max_angle'],
                                values['vertical_beam_width'], values['rays_horizontal'],
                                values['rays_vertical'])
                rate = float(values['update_rate'] or sensor.update_rate or DEFAULT_RATE_HZ)
                self.device = FanRanger(MultibeamSonar(echo, fan, world_from_body), geometry, frequency=rate,
                                        limits=limits)
            else:
                raise ConfigurationError(f'mode must be sweep or multibeam, got {self.mode!r}')
        except ConfigurationError as error:
            raise DescriptionError(str(error), file=robot.source, line=sensor.line,
                                   element=f'<sensor name="{name}">') from None
        self.server = RangerServer(self, name, intensities=values['intensities'])
        qos = publisher_qos(values['qos_reliability'], values['qos_depth'])
        self.scan_publisher = self.create_publisher(LaserScan, f'{name}/scan', qos)
        self.data_publisher = self.create_publisher(nps_msg.RangerData, f'{name}/ranger', qos)
        if self.mode == 'sweep':
            self.ping_publisher = self.create_publisher(nps_msg.SonarPoint, f'{name}/sonar_point', qos)
        else:
            self.fan_publisher = self.create_publisher(nps_msg.MultibeamPing, f'{name}/multibeam', qos)
        self.motion = Motion(self, values, world_from_root=world_from_root(values), start=scene_start)
        self.timer: Any = None
        self.server.serve(self.device, self._restart)
        self._restart()
        config = self.device.ranger_config()
        self.get_logger().info(
            f'{self.mode} sonar "{name}": {config.min_angle:.4f}..{config.max_angle:.4f} rad every '
            f'{config.angular_resolution:.6f} rad, {config.min_range:g}..{config.max_range:g} m, '
            f'{config.frequency:g} pings/s',
        )

    def _restart(self) -> None:
        """(Re)start the schedule: after start-up, a SetConfig or a power switch."""
        self._t0: int | None = None
        self._next = 0
        self._sweep_ranges: np.ndarray | None = None
        period = 1.0 / self.device.ranger_config().frequency
        tick = max(period, MIN_TICK) if self.mode == 'sweep' else period
        if self.timer is not None:
            self.destroy_timer(self.timer)
        self.timer = self.create_timer(tick, self.tick)

    def tick(self) -> None:
        """Run every step (or ping) that is due by now."""
        if not self.server.powered:
            self._t0 = None
            return
        now = self.get_clock().now().nanoseconds
        if now == 0:  # sim time without /clock yet: time is not initialised
            return
        if self.mode == 'multibeam':
            self._move(now)
            self._multibeam(now)
            return
        sonar: ScanningSonar = self.device.sonar
        period_ns = sonar.step_period * 1e9
        if self._t0 is None:
            self._t0, self._next = now, 0
        due = int((now - self._t0) // period_ns) + 1
        if due - self._next > sonar.steps_per_sweep:
            self.get_logger().warning('slower than real time: the sweep schedule slips',
                                      throttle_duration_sec=5.0)
            self._t0 = now - round(self._next * period_ns)
            due = self._next + 1
        while self._next < due:
            # Integer nanoseconds: a float stamp near 1.8e18 ns would be off by hundreds of ns.
            self._step(sonar, self._next, self._t0 + round(self._next * period_ns))
            self._next += 1

    def _move(self, stamp_ns: int) -> None:
        """Bring the world and the robot to the node time ``stamp_ns``."""
        now = ClockTime(nanoseconds=stamp_ns, clock_type=self.get_clock().clock_type)
        self.motion.apply(now, self.raycaster, self._set_robot_state)

    def _set_robot_state(self, world_from_root: NDArray[np.float64], joints: dict[str, float]) -> None:
        if self.mount.move(self.device, world_from_root, joints):
            self.server.refresh()

    def _step(self, sonar: ScanningSonar, index: int, stamp_ns: int) -> None:
        self._move(stamp_ns)
        step = sonar.step(index)
        ping = sonar.ping(self.raycaster, step.angle)
        stamp = _time(stamp_ns)
        intensities = self.server.intensities
        self.ping_publisher.publish(sonar_point_message(
            ping, sonar.echo, stamp=stamp, frame_id=self.frame_id, rays=len(sonar.pattern),
            azimuth=step.angle, intensities=intensities,
        ))
        if step.position == 0:
            n = sonar.steps_per_sweep
            self._sweep_ranges = np.full(n, np.nan)
            self._sweep_intensities = np.zeros(n)
            self._sweep_stamp = stamp
            self._sweep_filled = 0
        if self._sweep_ranges is None:  # joined mid-sweep: wait for the next one
            return
        self._sweep_ranges[step.position] = ping.range
        self._sweep_intensities[step.position] = ping.total
        self._sweep_filled += 1
        if step.last and self._sweep_filled == sonar.steps_per_sweep:
            angle_min, _, increment = sonar.sweep_angles(step.sweep)
            config = self.device.ranger_config()
            values = self._sweep_intensities if intensities else None
            self.scan_publisher.publish(laser_scan(
                self._sweep_ranges, values, angle_min=angle_min, angle_increment=increment,
                time_increment=sonar.step_period, scan_time=sonar.sweep_period, range_min=config.min_range,
                range_max=config.max_range, stamp=self._sweep_stamp, frame_id=self.frame_id,
            ))
            self.data_publisher.publish(ranger_data_message(
                self._sweep_ranges, values, geometry=self.server.geometry_message,
                config=self.server.config_message, stamp=self._sweep_stamp, frame_id=self.frame_id,
            ))
            self._sweep_ranges = None

    def _multibeam(self, now: int) -> None:
        sonar: MultibeamSonar = self.device.sonar
        ping = sonar.ping(self.raycaster)
        stamp = _time(now)
        config = self.device.ranger_config()
        intensities = self.server.intensities
        totals = ping.totals if intensities else None
        self.scan_publisher.publish(laser_scan(
            ping.ranges, totals, angle_min=float(ping.azimuths[0]), angle_increment=sonar.fan.spacing,
            time_increment=0.0, scan_time=1.0 / config.frequency, range_min=config.min_range,
            range_max=config.max_range, stamp=stamp, frame_id=self.frame_id,
        ))
        self.fan_publisher.publish(multibeam_message(
            ping, sonar.echo, vertical_beam_width=sonar.fan.vertical_width, stamp=stamp,
            frame_id=self.frame_id, intensities=intensities,
        ))
        self.data_publisher.publish(ranger_data_message(
            ping.ranges, totals, geometry=self.server.geometry_message, config=self.server.config_message,
            stamp=stamp, frame_id=self.frame_id,
        ))


def main(args: list[str] | None = None) -> int:
    """Entry point of ``ros2 run nps_sonar scanning_sonar_node``."""
    return run_node(ScanningSonarNode, args=args)


if __name__ == '__main__':
    sys.exit(main())
