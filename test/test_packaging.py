"""Packaging: one version source (package.xml) and the one Python that CI tests.

package.xml is what ROS reads; setup.py hands its version to pip and ament_cmake's
``ament_python_install_package`` hands it to colcon's build. Any other place that wrote a
version down could drift from it, so none may. ``python_requires`` must name exactly the Python
that scripts/env.sh insists on and mypy checks against.
"""

from __future__ import annotations

import ast
import configparser
import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from xml.etree import ElementTree

import pytest
from packaging.specifiers import SpecifierSet

REPO = Path(__file__).resolve().parent.parent


def package_xml_version() -> str:
    version = ElementTree.parse(REPO / 'package.xml').findtext('version')
    assert version is not None
    return version.strip()


def setup_cfg() -> configparser.ConfigParser:
    config = configparser.ConfigParser()
    config.read(REPO / 'setup.cfg')
    return config


def test_package_xml_version_is_three_integers() -> None:
    # package.xml format 3 (REP 149): MAJOR.MINOR.PATCH, each a non-negative integer.
    assert re.fullmatch(r'(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)', package_xml_version())


def test_setup_cfg_states_no_version() -> None:
    assert not setup_cfg().has_option('metadata', 'version')


def test_cmake_states_no_version() -> None:
    text = (REPO / 'CMakeLists.txt').read_text()
    code = '\n'.join(line.split('#', 1)[0] for line in text.splitlines())
    project = re.search(r'project\(([^)]*)\)', code)
    assert project is not None
    assert 'VERSION' not in project.group(1)
    install = re.search(r'ament_python_install_package\(([^)]*)\)', code)
    assert install is not None
    assert 'VERSION' not in install.group(1)


def test_no_module_states_a_version() -> None:
    found = []
    for path in sorted((REPO / 'nps_sonar_py').rglob('*.py')):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign):
                targets = [node.target]
            else:
                continue
            if any(isinstance(t, ast.Name) and t.id == '__version__' for t in targets):
                found.append(f'{path.relative_to(REPO)}:{node.lineno}')
    assert found == []


def test_setup_py_gives_pip_the_package_xml_version() -> None:
    result = subprocess.run(
        [sys.executable, 'setup.py', '--version'],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert result.stdout.strip().splitlines()[-1] == package_xml_version()


@pytest.mark.ros
def test_colcon_installed_metadata_has_the_package_xml_version() -> None:
    assert importlib.metadata.version('nps_sonar_py') == package_xml_version()


def python_under_test() -> tuple[int, int]:
    """The Python scripts/env.sh requires (the wheels, and so CI, use it)."""
    text = (REPO / 'scripts' / 'env.sh').read_text()
    match = re.search(r'sys\.version_info\[:2\] != \((\d+), (\d+)\)', text)
    assert match is not None, 'scripts/env.sh no longer checks the Python version'
    return int(match.group(1)), int(match.group(2))


def test_python_requires_is_the_tested_python() -> None:
    major, minor = python_under_test()
    with (REPO / 'pyproject.toml').open('rb') as file:
        mypy_version = tomllib.load(file)['tool']['mypy']['python_version']
    assert mypy_version == f'{major}.{minor}'
    requires = SpecifierSet(setup_cfg().get('options', 'python_requires'))
    assert f'{major}.{minor}.0' in requires
    assert f'{major}.{minor}.20' in requires
    assert f'{major}.{minor - 1}.20' not in requires
    assert f'{major}.{minor + 1}.0' not in requires
