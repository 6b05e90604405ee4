"""The interface packages the nodes import: one line naming a missing one and the fix.

The nodes import the messages of other ROS packages (``tf2_msgs`` for ``/tf``,
``marine_acoustic_msgs`` for ``ProjectedSonarImage`` ...). Where one is not on the Python path
(a workspace built against the PyPI wheels, which lack ``tf2_msgs`` and
``marine_acoustic_msgs``, without the stand-ins; or an install not sourced), the import deep in
a node module would end the node with a traceback. :func:`missing_interface`, called by the
executables before they import a node module, says instead which package is missing and how to
get it (``ros/startup.py`` prints it and exits with status 2). It only looks the packages up
(no import, no rclpy): a few milliseconds.
"""

from __future__ import annotations

import importlib.util

__all__ = ['INTERFACE_PACKAGES', 'STANDINS', 'missing_interface']

#: The message packages of package.xml's ``<depend>`` and ``<exec_depend>``, this package's
#: own ``nps_sonar`` first (the Python package of its messages).
INTERFACE_PACKAGES = (
    'nps_sonar',
    'std_msgs',
    'geometry_msgs',
    'sensor_msgs',
    'rosgraph_msgs',
    'nav_msgs',
    'visualization_msgs',
    'diagnostic_msgs',
    'tf2_msgs',
    'marine_acoustic_msgs',
)
#: The packages the PyPI wheels lack, for which ``scripts/interfaces/`` holds a stand-in.
STANDINS = ('tf2_msgs', 'marine_acoustic_msgs')


def missing_interface() -> str | None:
    """The first missing interface package as one line (what and the fix), or ``None``."""
    for name in INTERFACE_PACKAGES:
        if importlib.util.find_spec(name) is None:
            return f'interface package {name} not found (no Python module {name!r}): {_fix(name)}'
    return None


def _fix(name: str) -> str:
    if name == 'nps_sonar':
        return "source the workspace's install/setup.bash"
    ros = 'with ROS installed, rosdep install --from-paths src --ignore-src'
    if name in STANDINS:
        return (
            f'{ros}; with the PyPI wheels, run scripts/workspace <workspace> of nps_sonar, '
            'colcon build and source install/setup.bash'
        )
    return f'{ros}; with the PyPI wheels, use the venv of requirements/<distro>.txt'
