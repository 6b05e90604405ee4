"""The ranger node: a ray sensor (scanner) or an array of sonars, as one Ranger device.

Run: ``ros2 run nps_sonar ranger_node --ros-args --params-file config/ranger.yaml``.

The device is chosen by the ``sensors`` parameter (``docs/ranger.md``):

* one ``<sensor type="ray">``: a scanner; one row publishes ``<device>/scan``
  (``sensor_msgs/LaserScan``), several rows ``<device>/points`` (``sensor_msgs/PointCloud2``:
  x, y, z, intensity, ring);
* ``<sensor type="sonar">`` elements (several names or a glob such as ``ring_*``), or one
  sonar with ``element_poses``: an array; each element publishes ``<element>/range``
  (``sensor_msgs/Range``, in the element's frame) and its beam on ``<element>/markers``.

Every device also publishes ``<device>/ranger`` (``nps_sonar/RangerData``) and serves the
Ranger services. The echo parameters describe a sonar array's elements; here they are
read-only: ``SetConfig`` is the run-time interface. Motion, sim time and the rest are
``ros/device_node.py``'s.
"""

from __future__ import annotations

import sys
from typing import Any

from nps_sonar_py.devices import Family
from nps_sonar_py.ros.device_node import DeviceNode
from nps_sonar_py.ros.startup import run_node

__all__ = ['RangerNode', 'main']


class RangerNode(DeviceNode):
    """Reads a ray sensor or a sonar array on a timer and publishes it (module docstring)."""

    FAMILY = Family.RANGER
    DEFAULT_ROBOT = 'config/robots/ranger_scanner.urdf'

    def __init__(self, *, node_name: str = 'ranger', **kwargs: Any) -> None:
        super().__init__(node_name, **kwargs)


def main(args: list[str] | None = None) -> int:
    """Entry point of ``ros2 run nps_sonar ranger_node``."""
    return run_node(RangerNode, args=args)


if __name__ == '__main__':
    sys.exit(main())
