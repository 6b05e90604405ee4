"""Write config/sonar.yaml from the sonar node's parameter table (names, defaults, descriptions).

Run after changing nps_sonar_py/ros/params.py: ``scripts/run python scripts/write_params_yaml.py``.
test/ros/test_parameter_files.py fails while the two disagree.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nps_sonar_py.ros.params import ECHO_PARAMETERS, MOTION_PARAMETERS, OUTPUT_PARAMETERS, SONAR_PARAMETERS


def yaml_value(value: object) -> str:
    """A parameter default written so that YAML reads back the declared type."""
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, list):
        return '[' + ', '.join(repr(float(v)) for v in value) + ']'
    return repr(value)


def main() -> int:
    """Write config/sonar.yaml from the parameter tables, one commented block per table."""
    lines = [
        '# Parameters of the sonar node, with their defaults. nps_sonar_py/ros/params.py holds the',
        '# table (types, bounds, read-only flags); `ros2 param describe /sonar <name>` shows each.',
        "# Keyed '/**' so that they apply whatever the node's name and namespace. Read-only ones",
        '# need a restart; the echo model (last block) may change at run time, validated as a whole.',
        '# Written by scripts/write_params_yaml.py.',
        '/**:',
        '  ros__parameters:',
    ]
    blocks = (
        ('What is simulated, where, and what is published', SONAR_PARAMETERS),
        ('QoS and markers', OUTPUT_PARAMETERS),
        ('How the robot and the world move', MOTION_PARAMETERS),
        ('The echo model (nps_sonar_py.echo.EchoConfig)', ECHO_PARAMETERS),
    )
    for title, table in blocks:
        lines.append(f'    # --- {title} ---')
        for p in table:
            lines.append(f'    # {p.description}' + (' (read-only)' if p.read_only else ''))
            lines.append(f'    {p.name}: {yaml_value(p.default)}')
    path = Path(__file__).resolve().parents[1] / 'config' / 'sonar.yaml'
    path.write_text('\n'.join(lines) + '\n')
    print(f'wrote {path}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
