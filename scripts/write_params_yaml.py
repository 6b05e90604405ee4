"""Write config/sonar.yaml from the sonar node's settings records (names, defaults, descriptions).

Run after changing a settings record of the sonar node (nps_sonar_py/devices/settings.py,
devices/kinds/single_beam.py):
``scripts/run python scripts/write_params_yaml.py``.
test/ros/test_parameter_files.py fails while the two disagree.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nps_sonar_py.records import specs
from nps_sonar_py.ros.sonar_node import SonarNode


def yaml_value(value: object) -> str:
    """A parameter default written so that YAML reads back the declared type."""
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, (list, tuple)):
        return '[' + ', '.join(repr(float(v)) for v in value) + ']'
    return repr(value)


def main() -> int:
    """Write config/sonar.yaml, one commented block per settings record."""
    lines = [
        '# Parameters of the sonar node, with their defaults. Its settings records',
        '# (nps_sonar_py/devices/settings.py, devices/kinds/single_beam.py) are the table (types,',
        '# bounds, run-time flags); `ros2 param describe /sonar <name>`',
        "# shows each. Keyed '/**' so that they apply whatever the node's name and namespace.",
        (
            '# Read-only ones need a restart; the others may change at run time,'
            ' validated as a whole.'
        ),
        '# Written by scripts/write_params_yaml.py.',
        '/**:',
        '  ros__parameters:',
    ]
    for record in SonarNode.records():
        title = (record.__doc__ or record.__name__).strip().splitlines()[0].rstrip('.')
        lines.append(f'    # --- {title} ({record.__name__}) ---')
        for spec in specs(record):
            runtime = SonarNode.RECONFIGURABLE and spec.runtime
            lines.append(f'    # {spec.description}' + ('' if runtime else ' (read-only)'))
            lines.append(f'    {spec.name}: {yaml_value(spec.plain_default)}')
    path = Path(__file__).resolve().parents[1] / 'config' / 'sonar.yaml'
    path.write_text('\n'.join(lines) + '\n')
    print(f'wrote {path}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
