"""The sonar node: one ``<sensor type="sonar">`` of a robot pinging a world.

Run: ``ros2 run nps_sonar sonar_node --ros-args --params-file config/sonar.yaml``.
Per ping it publishes, each switchable (topics relative, so namespaces and remapping apply):

* ``<sensor>/range``: ``sensor_msgs/Range`` (ULTRASOUND, the cast cone's full angle, REP 117);
* ``<sensor>/scan``: a one-element ``sensor_msgs/LaserScan``, ``ranges = [range]`` and
  ``intensities = [intensity]``, as the NPS single-beam plugin did;
* ``<sensor>/sonar_point``: ``nps_sonar/SonarPoint``, range, intensity and the profile;

and ``<sensor>/markers`` (the beam and its hits) at ``marker_rate``, all in the sensor's
x-forward frame, named after the sensor unless ``frame_id`` is set. The echo model, the ray
count, the rate and the output switches change at run time: a change is validated as a
whole (refused with the reason if the configuration would be invalid) and applied between
pings. What every device node does (motion, sim time, Ranger services, markers) is
``ros/device_node.py``'s; what a single-beam sonar publishes, and the line it logs on
start and after a change, ``ros/outputs.py``'s (``SingleBeamOutput``).
"""

from __future__ import annotations

import sys
from typing import Any

from nps_sonar_py.devices import Family
from nps_sonar_py.ros.device_node import DeviceNode
from nps_sonar_py.ros.startup import run_node

__all__ = ['SonarNode', 'main']


class SonarNode(DeviceNode):
    """Pings one simulated sonar on a timer and publishes Range, LaserScan and SonarPoint."""

    FAMILY = Family.SONAR
    RECONFIGURABLE = True

    def __init__(self, *, node_name: str = 'sonar', **kwargs: Any) -> None:
        super().__init__(node_name, **kwargs)


def main(args: list[str] | None = None) -> int:
    """Entry point of ``ros2 run nps_sonar sonar_node``."""
    return run_node(SonarNode, args=args)


if __name__ == '__main__':
    sys.exit(main())
