"""nps_sonar_py: range and sonar sensors simulated by raycasting.

Layers, each a subpackage:

- ``description``: robots and their ``<sensor>`` elements, read from URDF.
- ``scene``: the world (``<scene_state>`` and its models) as one raycasting scene.
- ``sensing``: ray patterns of the devices (cones, scans, sweeps, arrays).
- ``echo``: range estimation and the acoustic intensity model (numpy only).
- ``ros``: the thin ROS 2 layer (nodes, parameters, message conversion).

Everything but ``ros`` imports neither rclpy nor any generated message.
"""

__version__ = '0.1.0'
