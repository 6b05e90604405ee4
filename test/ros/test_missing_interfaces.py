"""A node whose interface package is missing ends with one line naming it and the fix.

Each stand-in (``tf2_msgs``, ``marine_acoustic_msgs``: ``scripts/env.sh`` builds them into
prefixes of their own) is hidden from the executable by taking its prefix out of
``AMENT_PREFIX_PATH``, ``PYTHONPATH``, ``LD_LIBRARY_PATH`` and ``CMAKE_PREFIX_PATH``, as in a
workspace built against the PyPI wheels without the stand-ins. Before the check the executable
died with a ``ModuleNotFoundError`` traceback from deep in ``ros/motion.py``.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree
from ros_helpers import executable

from nps_sonar_py.ros.interfaces import INTERFACE_PACKAGES, STANDINS, missing_interface

REPO = Path(__file__).resolve().parents[2]
PATH_VARIABLES = ('AMENT_PREFIX_PATH', 'PYTHONPATH', 'LD_LIBRARY_PATH', 'CMAKE_PREFIX_PATH')
CASES = [
    ('tf2_msgs', 'sonar_node'),
    ('tf2_msgs', 'ranger_node'),
    ('tf2_msgs', 'scanning_sonar_node'),
    ('tf2_msgs', 'robot_sensors_node'),
    ('tf2_msgs', 'sonar_record'),
    ('tf2_msgs', 'sonar_monitor'),
    ('marine_acoustic_msgs', 'sonar_node'),
    ('marine_acoustic_msgs', 'scanning_sonar_node'),
]


def test_the_checked_packages_are_the_message_packages_of_package_xml() -> None:
    root = etree.parse(str(REPO / 'package.xml')).getroot()
    depends = {e.text for e in root if e.tag in {'depend', 'exec_depend'}}
    messages = {name for name in depends if name and name.endswith('_msgs')}
    assert set(INTERFACE_PACKAGES) == messages | {'nps_sonar'}
    assert set(STANDINS) == set(os.listdir(REPO / 'scripts' / 'interfaces')) - {
        'COLCON_IGNORE',
        'README.md',
    }


@pytest.mark.ros
def test_nothing_is_missing_where_the_package_was_built() -> None:
    assert missing_interface() is None


def without(name: str) -> dict[str, str]:
    """This process's environment with the install prefix of the package ``name`` left out."""
    spec = importlib.util.find_spec(name)
    assert spec is not None, name
    assert spec.submodule_search_locations, name
    package_dir = Path(next(iter(spec.submodule_search_locations))).resolve()
    site = package_dir.parent  # <prefix>/lib/python3.X/site-packages
    prefix = site.parents[2]
    env = dict(os.environ)
    for variable in PATH_VARIABLES:
        parts = env.get(variable, '').split(os.pathsep)
        kept = [p for p in parts if p and not Path(p).resolve().is_relative_to(prefix)]
        env[variable] = os.pathsep.join(kept)
    probe = [sys.executable, '-c', f'import importlib.util as u; assert u.find_spec({name!r})']
    if subprocess.run(probe, env=env, capture_output=True, check=False).returncode == 0:
        pytest.skip(f'{name} shares its prefix {prefix} with other packages (a ROS install)')
    return env


@pytest.mark.ros
@pytest.mark.parametrize(('name', 'node'), CASES, ids=[f'{n}-{e}' for n, e in CASES])
def test_a_missing_stand_in_ends_a_node_with_one_line(name: str, node: str) -> None:
    command = [executable(node), '--ros-args', '-p', 'rays:=10']
    result = subprocess.run(
        command, env=without(name), capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith(f'nps_sonar: interface package {name} not found'), line
    assert 'scripts/workspace <workspace>' in line, line  # the fix with the PyPI wheels
    assert 'rosdep install' in line, line  # the fix with a ROS install
    assert 'Traceback' not in result.stderr
