"""The sonar node: one ``<sensor type="sonar">`` of a robot, pinging a world, publishing ``Range``.

Run: ``ros2 run nps_sonar sonar_node --ros-args --params-file config/sonar.yaml``.
Topics (relative, so that namespaces and remapping apply): ``<sensor>/range``
(``sensor_msgs/Range``). The frame is the sensor's x-forward frame, named after the
sensor unless ``frame_id`` is set.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from rclpy.node import Node
from sensor_msgs.msg import Range

from nps_sonar_py.ros.conversions import range_message
from nps_sonar_py.ros.params import SONAR_PARAMETERS, declare_all, read_all
from nps_sonar_py.ros.startup import run_node
from nps_sonar_py.rig import SonarRig, build_sonar_rig, reference_robot_file, reference_world_file

__all__ = ['SonarNode', 'main']

DEFAULT_RATE_HZ = 10.0


class SonarNode(Node):
    """Pings one simulated sonar on a timer and publishes each reading as ``sensor_msgs/Range``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__('sonar', **kwargs)
        declare_all(self, SONAR_PARAMETERS)
        self.rig = self._build_rig(read_all(self, SONAR_PARAMETERS))
        sonar = self.rig.sensor
        self.frame_id = self.get_parameter('frame_id').value or sonar.name
        rate = self.get_parameter('update_rate').value or sonar.update_rate or DEFAULT_RATE_HZ
        self.range_publisher = self.create_publisher(Range, f'{sonar.name}/range', 10)
        self.timer = self.create_timer(1.0 / rate, self.ping)
        self.get_logger().info(
            f'sonar "{sonar.name}" at {rate:g} Hz, {len(self.rig.device.pattern)} rays, '
            f'cone half angle {math.degrees(self.rig.device.config.half_angle):.3f} deg, '
            f'publishing {self.range_publisher.topic_name} in frame "{self.frame_id}"',
        )

    @staticmethod
    def _build_rig(values: dict[str, Any]) -> SonarRig:
        return build_sonar_rig(
            robot_file=values['robot_description_file'] or reference_robot_file(),
            robot_xml=values['robot_description'] or None,
            world_file=values['scene_file'] or reference_world_file(),
            sensor_name=values['sensor'] or None,
            robot_pose=values['robot_pose'],
            n_rays=values['rays'],
        )

    def ping(self) -> None:
        """Cast the cone once and publish the nearest echo."""
        reading = self.rig.ping()
        stamp = self.get_clock().now().to_msg()
        config = self.rig.device.config
        self.range_publisher.publish(
            range_message(
                reading, field_of_view=config.field_of_view, min_range=config.min_range,
                max_range=config.max_range, stamp=stamp, frame_id=self.frame_id,
            ),
        )


def main(args: list[str] | None = None) -> int:
    """Entry point of ``ros2 run nps_sonar sonar_node``."""
    return run_node(SonarNode, args=args)


if __name__ == '__main__':
    sys.exit(main())
