"""The scanning sonar node: a mechanically scanned sonar (sweep), a multibeam fan or a side-scan.

Run: ``ros2 run nps_sonar scanning_sonar_node --ros-args --params-file
config/scanning_sonar.yaml`` (mode sweep; ``config/multibeam_sonar.yaml``, mode multibeam; each
mode's file sets only its mode's parameters).

The sonar is a ``<sensor type="sonar">`` of the robot (``sensor``; empty: the first); its
cone gives the beam width unless ``beam_width`` is set, and the acoustic parameters the
echo model (``echo.EchoConfig``). Topics, relative to the node's namespace, in the
sensor's x-forward frame (named after the sensor):

* ``mode: sweep``: one ``<sensor>/sonar_point`` (``nps_sonar/SonarPoint``, ``azimuth`` = head
  angle)
  per step, and per sweep one ``<sensor>/scan`` (``sensor_msgs/LaserScan``: one range and total
  intensity per step, ``time_increment`` = the step period, ``scan_time`` = the sweep period,
  stamped when its first step was transmitted) and one ``<sensor>/ranger`` (``RangerData``).
* ``mode: multibeam``: per ping one ``<sensor>/scan`` (one range per beam; the beams are
  simultaneous, so ``time_increment`` is 0), one ``<sensor>/multibeam``
  (``nps_sonar/MultibeamPing``, every beam's profile) and one ``<sensor>/ranger``.
* ``mode: sidescan`` (``SidescanSettings``; ``config/sidescan_sonar.yaml``): per ping one
  ``<sensor>/ranger``, one ``<sensor>/raw_image`` (``marine_acoustic_msgs/RawSonarImage``: beam
  0 port, beam 1 starboard, slant-range samples; docs/marine.md) in the frame
  ``<frame>_frd`` (x forward, y starboard, z down), and ``<sensor>/waterfall``
  (``sensor_msgs/Image``, ``waterfall_lines`` x 2 ``waterfall_samples``, port left reversed,
  newest line on top; ``sensing/waterfall.py``) whenever a line is added: per ping, or per
  ``waterfall_line_spacing`` m travelled.
* sweep or multibeam, each switched on by its parameter (``ImageSettings``),
  ``sensor_msgs/Image``s:
  ``<sensor>/image_polar`` (range bins x beams, 32FC1 linear intensity),
  ``<sensor>/image_polar_db`` (the same in a dB window, mono8 or mono16) and ``<sensor>/image``
  (Cartesian: the fan, or the sweep's disc); a sweep's images are those of its latest sweep,
  published per sweep or per step. ``sensing/images.py`` and the README give the pixel
  conventions. An image over ``image_max_pixels`` or the memory available stops the node at start.
* with ``publish_labels``, beside the intensity images and with their stamps, the label images
  ``<sensor>/labels_polar`` and ``<sensor>/labels`` (``mono16``: 1 + the index of the entity
  whose echo dominates the cell, 0 none) and, once and latched, the label table on
  ``<sensor>/label_names`` (``std_msgs/String``, JSON; ``docs/labels.md``).

Steps are scheduled at ``t0 + k * step_period`` on the node's clock, whatever the timer's
jitter, and each sees the robot and the world at its own stamp (``ros/device_node.py``). A
new configuration (``<sensor>/set_config``) restarts the sweep at its first angle (an
unfinished sweep is dropped).
"""

from __future__ import annotations

import sys
from typing import Any

from std_msgs.msg import String

from nps_sonar_py.devices import Family
from nps_sonar_py.devices.settings import ImageSettings
from nps_sonar_py.echo.labels import LabelTable
from nps_sonar_py.ros.device_node import DeviceNode
from nps_sonar_py.ros.qos import LATCHED_QOS
from nps_sonar_py.ros.startup import run_node

__all__ = ['ScanningSonarNode', 'main']


class ScanningSonarNode(DeviceNode):
    """Steps a sweep, or pings a multibeam fan or a side-scan (module docstring)."""

    FAMILY = Family.SCANNING  # its records include ImageSettings: the builder reads publish_labels

    def __init__(self, *, node_name: str = 'scanning_sonar', **kwargs: Any) -> None:
        super().__init__(node_name, **kwargs)
        if self.settings[ImageSettings].publish_labels:  # not a run-time setting: once
            table = LabelTable(self.raycaster.entity_names)
            topic = f'{self.rig.mount.name}/label_names'
            self.label_names = self.create_publisher(String, topic, LATCHED_QOS)
            self.label_names.publish(String(data=table.to_json()))


def main(args: list[str] | None = None) -> int:
    """Entry point of ``ros2 run nps_sonar scanning_sonar_node``."""
    return run_node(ScanningSonarNode, args=args)


if __name__ == '__main__':
    sys.exit(main())
