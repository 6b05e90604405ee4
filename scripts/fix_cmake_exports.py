"""Point the ROS wheels' exported CMake files at this machine's Python and numpy headers.

The message wheels on PyPI export CMake targets whose include directories are those of
the machine they were built on (``/opt/python/cp311-cp311/include/python3.11`` and that
Python's numpy headers). CMake refuses a target whose include directory does not exist,
so building any package with its own messages against the wheels fails until the paths
are rewritten. Usage: ``python fix_cmake_exports.py <venv>`` (idempotent).
"""

from __future__ import annotations

import re
import sys
import sysconfig
from pathlib import Path

import numpy as np

BUILD_PYTHON = re.compile(r'/opt/python/cp3\d+-cp3\d+/include/python3\.\d+')
BUILD_NUMPY = re.compile(
    r'/opt/python/cp3\d+-cp3\d+/lib/python3\.\d+/site-packages/numpy/(_core|core)/include',
)


def main(venv: Path) -> int:
    """Rewrite the build machine's include paths in ``venv``'s CMake files; 1 without Python.h."""
    python_include = sysconfig.get_paths()['include']
    if not Path(python_include, 'Python.h').is_file():
        print(
            f'fix_cmake_exports: no Python.h in {python_include}; install the Python headers',
            file=sys.stderr,
        )
        return 1
    numpy_include = np.get_include()
    fixed = 0
    for path in (venv / 'share').glob('*/cmake/*.cmake'):
        text = path.read_text(encoding='utf-8', errors='surrogateescape')
        new = BUILD_NUMPY.sub(numpy_include, BUILD_PYTHON.sub(python_include, text))
        if new != text:
            path.write_text(new, encoding='utf-8', errors='surrogateescape')
            fixed += 1
    print(f'fix_cmake_exports: {fixed} CMake files now use {python_include} and {numpy_include}')
    return 0


if __name__ == '__main__':
    sys.exit(main(Path(sys.argv[1])))
