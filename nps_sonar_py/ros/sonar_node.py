"""The sonar node: one ``<sensor type="sonar">`` of a robot pinging a world.

Run: ``ros2 run nps_sonar sonar_node --ros-args --params-file config/sonar.yaml``.
Per ping it publishes, each switchable (topics relative, so namespaces and remapping apply):

* ``<sensor>/range``: ``sensor_msgs/Range`` (ULTRASOUND, the cast cone's full angle, REP 117);
* ``<sensor>/scan``: a one-element ``sensor_msgs/LaserScan``, ``ranges = [range]`` and
  ``intensities = [intensity]``, as the NPS single-beam plugin did;
* ``<sensor>/sonar_point``: ``nps_sonar/SonarPoint``, range, intensity and the profile.

and ``<sensor>/markers`` (``visualization_msgs/Marker``: the beam and its hits) at
``marker_rate``. All in the sensor's x-forward frame, named after the sensor unless
``frame_id`` is set. Echo-model parameters change at run time: a change is validated as a
whole (refused with the reason if the configuration would be invalid) and applied between
pings. The robot and the world move as ``nps_sonar_py/ros/motion.py`` says; with
``use_sim_time`` the node pings on ``/clock`` and stamps in simulated time.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter
from sensor_msgs.msg import LaserScan, Range
from visualization_msgs.msg import Marker

from nps_sonar import msg as nps_msg
from nps_sonar_py.description import Robot
from nps_sonar_py.echo import EchoConfig
from nps_sonar_py.errors import NpsSonarError
from nps_sonar_py.rig import SonarRig, build_sonar_rig, reference_robot_file, reference_world_file
from nps_sonar_py.ros.conversions import range_message, single_beam_scan, sonar_point_message
from nps_sonar_py.ros.markers import beam_marker, hits_marker
from nps_sonar_py.ros.motion import Motion, SceneStart
from nps_sonar_py.ros.params import (
    ECHO_PARAMETERS,
    MOTION_PARAMETERS,
    OUTPUT_PARAMETERS,
    SONAR_PARAMETERS,
    declare_all,
    echo_overrides,
    read_all,
)
from nps_sonar_py.ros.qos import publisher_qos
from nps_sonar_py.ros.startup import run_node
from nps_sonar_py.scene import Raycaster

__all__ = ['SonarNode', 'main']

DEFAULT_RATE_HZ = 10.0
PARAMETERS = SONAR_PARAMETERS + OUTPUT_PARAMETERS + MOTION_PARAMETERS + ECHO_PARAMETERS


@dataclass(frozen=True)
class _Settings:
    """What may change at run time, validated together."""

    echo: EchoConfig
    rays: int
    rate: float
    publish_range: bool
    publish_scan: bool
    publish_sonar_point: bool


class SonarNode(Node):
    """Pings one simulated sonar on a timer and publishes Range, LaserScan and SonarPoint.

    ``robot``, ``raycaster`` and ``scene_start`` are shared by the sensors of one process
    (``robot_sensors_node``); by default the node reads its own files. ``kwargs`` go to
    ``rclpy.node.Node`` (``context``, ``parameter_overrides``, ...).
    """

    def __init__(
        self, *, node_name: str = 'sonar', robot: Robot | None = None, raycaster: Raycaster | None = None,
        scene_start: SceneStart | None = None, **kwargs: Any,
    ) -> None:
        super().__init__(node_name, **kwargs)
        declare_all(self, PARAMETERS)
        values = read_all(self, PARAMETERS)
        self.rig = self._build_rig(values, robot, raycaster)
        self.settings = self._settings(values)
        self.rig.reconfigure(self.settings.echo, self.settings.rays)
        self._pending: _Settings | None = None
        self.motion = Motion(self, values, world_from_root=self.rig.world_from_root, start=scene_start)
        name = self.rig.sensor.name
        self.frame_id = values['frame_id'] or name
        qos = publisher_qos(values['qos_reliability'], values['qos_depth'])
        self.range_publisher = self.create_publisher(Range, values['range_topic'] or f'{name}/range', qos)
        self.scan_publisher = self.create_publisher(LaserScan, values['scan_topic'] or f'{name}/scan', qos)
        self.sonar_point_publisher = self.create_publisher(
            nps_msg.SonarPoint, values['sonar_point_topic'] or f'{name}/sonar_point', qos,
        )
        self.marker_publisher = self.create_publisher(Marker, f'{name}/markers', qos)
        self.marker_period = 1.0 / values['marker_rate'] if values['marker_rate'] > 0.0 else None
        self._next_marker: float | None = None
        self.timer = self.create_timer(1.0 / self.settings.rate, self.ping)
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self._log_configuration()

    @staticmethod
    def _build_rig(values: dict[str, Any], robot: Robot | None, raycaster: Raycaster | None) -> SonarRig:
        return build_sonar_rig(
            robot_file=values['robot_description_file'] or reference_robot_file(),
            robot_xml=values['robot_description'] or None,
            world_file=values['scene_file'] or reference_world_file(),
            sensor_name=values['sensor'] or None,
            robot_pose=values['robot_pose'],
            n_rays=1,  # the configured pattern is built once, by reconfigure
            robot=robot,
            raycaster=raycaster,
        )

    def _settings(self, values: dict[str, Any]) -> _Settings:
        """Validated settings from parameter values; raises ConfigurationError with the reason."""
        return _Settings(
            echo=self.rig.echo_config(**echo_overrides(values)),
            rays=values['rays'],
            rate=values['update_rate'] or self.rig.sensor.update_rate or DEFAULT_RATE_HZ,
            publish_range=values['publish_range'],
            publish_scan=values['publish_scan'],
            publish_sonar_point=values['publish_sonar_point'],
        )

    def _on_set_parameters(self, parameters: list[Parameter]) -> SetParametersResult:
        values = read_all(self, PARAMETERS)
        values.update({p.name: p.value for p in parameters if p.name in values})
        try:
            self._pending = self._settings(values)
        except NpsSonarError as error:
            return SetParametersResult(successful=False, reason=str(error))
        return SetParametersResult(successful=True)

    def _apply_pending(self) -> None:
        pending, self._pending = self._pending, None
        if pending is None or pending == self.settings:
            return
        old, self.settings = self.settings, pending
        if (pending.echo, pending.rays) != (old.echo, old.rays):
            self.rig.reconfigure(pending.echo, pending.rays)
        if pending.rate != old.rate:
            self.destroy_timer(self.timer)
            self.timer = self.create_timer(1.0 / pending.rate, self.ping)
        self._log_configuration()

    def _log_configuration(self) -> None:
        device, s = self.rig.device, self.settings
        self.get_logger().info(
            f'sonar "{self.rig.sensor.name}": {s.rate:g} Hz, {device.n_rays} rays, '
            f'beam {s.echo.beam_width:.4f} rad ({s.echo.pattern.value}, {s.echo.n_way}-way), '
            f'range {s.echo.min_range:g}..{s.echo.max_range:g} m, '
            f'{s.echo.estimator.value} range, frame "{self.frame_id}"',
        )
        if s.rate * device.ping_interval > 1.0:
            self.get_logger().warning(
                f'{s.rate:g} Hz is faster than a real sonar can ping to {s.echo.max_range:g} m '
                f'(two-way travel {device.ping_interval * 1e3:.1f} ms)',
            )

    def ping(self) -> None:
        """Move the world and the robot to now, cast the cone once, publish what is switched on."""
        now = self.get_clock().now()
        if now.nanoseconds == 0:  # sim time without /clock yet: time is not initialised
            return
        self._apply_pending()
        self.motion.apply(now, self.rig.raycaster, self.rig.set_robot_state)
        echo = self.rig.ping()
        s = self.settings
        stamp = now.to_msg()
        if s.publish_range:
            self.range_publisher.publish(range_message(
                echo.range, field_of_view=self.rig.device.field_of_view, min_range=s.echo.min_range,
                max_range=s.echo.max_range, stamp=stamp, frame_id=self.frame_id,
            ))
        if s.publish_scan:
            self.scan_publisher.publish(
                single_beam_scan(echo, s.echo, stamp=stamp, frame_id=self.frame_id, scan_time=1.0 / s.rate),
            )
        if s.publish_sonar_point:
            self.sonar_point_publisher.publish(sonar_point_message(
                echo, s.echo, stamp=stamp, frame_id=self.frame_id, rays=self.rig.device.n_rays,
            ))
        seconds = now.nanoseconds * 1e-9
        if self.marker_period is not None and (self._next_marker is None or seconds >= self._next_marker):
            self._next_marker = seconds + self.marker_period
            device = self.rig.device
            self.marker_publisher.publish(
                beam_marker(
                    device.echo.cast_half_angle, device.echo.max_range, stamp=stamp, frame_id=self.frame_id,
                ),
            )
            self.marker_publisher.publish(
                hits_marker(
                    device.pattern.directions, device.last_ranges, stamp=stamp, frame_id=self.frame_id,
                ),
            )


def main(args: list[str] | None = None) -> int:
    """Entry point of ``ros2 run nps_sonar sonar_node``."""
    return run_node(SonarNode, args=args)


if __name__ == '__main__':
    sys.exit(main())
