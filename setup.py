"""pip-installable core: ``pip install .`` gives the module ``nps_sonar_py`` (settings: setup.cfg).

The version has one source, ``package.xml``, which is what ROS reads (rosdep, bloom, ``ros2
pkg xml``). This file reads it for pip. colcon does not use this file: CMakeLists.txt's
``ament_python_install_package`` writes its own setup.py with package.xml's version and reads
the same setup.cfg, which therefore states no version of its own (a ``setup()`` argument
overrides setup.cfg, so a second number there would only ever reach pip).
"""

from pathlib import Path
from xml.etree import ElementTree

from setuptools import setup


def package_xml_version() -> str:
    """The ``<version>`` of package.xml beside this file."""
    version = ElementTree.parse(Path(__file__).with_name('package.xml')).findtext('version')
    if not version:
        msg = 'package.xml: <version> is missing or empty'
        raise SystemExit(msg)
    return version.strip()


setup(version=package_xml_version())
