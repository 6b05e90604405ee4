"""nps_sonar_py: range and sonar sensors simulated by raycasting.

Layers, each a subpackage:

- ``description``: robots and their ``<sensor>`` elements, read from URDF.
- ``scene``: the world (``<scene_state>`` and its models) as one raycasting scene.
- ``echo``: range estimation and the acoustic intensity model (numpy only).
- ``sensing``: ray patterns and the sensors made of them (cones, scans, sweeps, fans).
- ``devices``: the Ranger interface every device implements, its settings and its builder.
- ``ros``: the thin ROS 2 layer (one node base, outputs, parameters, conversions).

``docs/architecture.md`` shows the data flow.

Everything but ``ros`` imports neither rclpy nor any generated message.

The version is package.xml's, read from the installed metadata:
``importlib.metadata.version('nps_sonar_py')``.
"""
