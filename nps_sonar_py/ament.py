"""The ament index as a file layout: installed files on ``AMENT_PREFIX_PATH``, without ROS.

Every lookup of an installed file (this package's share files and executables, another
package's share directory or message definitions) goes through here, in the order of the
prefixes, as ``ament_index_python`` searches them.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ['PACKAGE', 'executable', 'find_installed', 'package_share', 'prefixes', 'share_file']

#: This ROS package's name.
PACKAGE = 'nps_sonar'
_SOURCE = Path(__file__).resolve().parents[1]


def prefixes() -> list[Path]:
    """The prefixes of ``AMENT_PREFIX_PATH``, in order."""
    return [Path(p) for p in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep) if p]


def find_installed(relative: str) -> Path | None:
    """``<prefix>/<relative>`` of the first prefix that has it (file or folder), or ``None``."""
    for prefix in prefixes():
        candidate = prefix / relative
        if candidate.exists():
            return candidate
    return None


def package_share(package: str) -> Path | None:
    """``<prefix>/share/<package>`` of the first prefix whose ament index lists ``package``."""
    for prefix in prefixes():
        if (prefix / 'share/ament_index/resource_index/packages' / package).is_file():
            return prefix / 'share' / package
    return None


def share_file(relative: str) -> str:
    """A file of this package's ``share/nps_sonar`` (installed), else of the source tree."""
    found = find_installed(f'share/{PACKAGE}/{relative}')
    return str(found if found is not None and found.is_file() else _SOURCE / relative)


def executable(name: str) -> Path | None:
    """The executable ``lib/nps_sonar/<name>`` of this package, or ``None`` if not installed."""
    return find_installed(f'lib/{PACKAGE}/{name}')
