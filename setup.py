"""pip-installable core: ``pip install .`` gives the module ``nps_sonar_py`` (settings in setup.cfg).

colcon does not use this file: the ROS package is built by CMakeLists.txt, whose
``ament_python_install_package`` reads the same setup.cfg.
"""

from setuptools import setup

setup()
