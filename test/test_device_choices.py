"""Every ``device:=`` choice is named wherever the choices are listed, from one source.

The source is ``DEVICES`` of ``launch/ranger.launch.py`` (its ``choices``), read without
importing ``launch``. Checked: every ``device:=a|b|...`` list and every ``device:=a  # or b,
c`` comment in the README and ``docs/``; the launch file's docstring (a line per device) and
its argument description (made from ``DEVICES``); and the README's table of ``scripts/run``
lines, one per launch configuration, each the same executable, node name, parameter file,
robot, scene and extra parameters as the launch file passes (``test/ros/test_readme_commands.py``
starts them).
"""

from __future__ import annotations

import ast
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
LAUNCH = REPOSITORY / 'launch' / 'ranger.launch.py'
#: A README row: | `<launch configuration>` | `scripts/run ...` |
ROW = re.compile(
    r'^\| `((?:ranger\.launch\.py device:=\w+)|\w+\.launch\.py)` \| `(scripts/run [^`]+)` \|$'
)
#: The launch files other than ranger.launch.py that have a line, and what it starts.
OTHERS = {
    'sonar.launch.py': ('sonar_node', 'sonar', 'sonar.yaml'),
    'demo_robot.launch.py': ('robot_sensors_node', None, 'demo_robot.yaml'),
}


def _assigned(name: str) -> Any:
    """The literal assigned to ``name`` in launch/ranger.launch.py."""
    for node in ast.walk(ast.parse(LAUNCH.read_text())):
        if isinstance(node, ast.Assign) and any(
            getattr(t, 'id', '') == name for t in node.targets
        ):
            return ast.literal_eval(node.value)
    pytest.fail(f'launch/ranger.launch.py assigns no {name}')


def devices() -> dict[str, tuple[Any, ...]]:
    """``DEVICES``: device -> (executable, node name, robot file, parameter file, extra)."""
    table: dict[str, tuple[Any, ...]] = _assigned('DEVICES')
    return table


def readme_rows() -> dict[str, str]:
    """Launch configuration (``ranger.launch.py device:=X`` or a file) -> its README line."""
    rows = {}
    for line in (REPOSITORY / 'README.md').read_text().splitlines():
        match = ROW.match(line)
        if match:
            rows[match.group(1)] = match.group(2)
    return rows


def _documents() -> list[Path]:
    return [REPOSITORY / 'README.md', *sorted((REPOSITORY / 'docs').glob('*.md'))]


def test_every_list_of_devices_names_every_choice() -> None:
    choices = set(devices())
    lists = 0
    for path in _documents():
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for match in re.finditer(r'device:=(\w+(?:\|\w+)+)', line):
                lists += 1
                assert set(match.group(1).split('|')) == choices, f'{path.name}:{number}: {line}'
            comment = re.search(r'device:=(\w+)\s+# or ([\w, ]+)', line)
            if comment:
                lists += 1
                named = {comment.group(1), *re.split(r',\s*', comment.group(2).strip())}
                assert named == choices, f'{path.name}:{number}: {line}'
    assert lists >= 3  # the README's two lists and docs/ranger.md's comment at least


def test_a_list_missing_a_choice_is_caught() -> None:
    """Negative control: the README's old list (without sidescan) is not every choice."""
    old = 'scanner|ring|sweep|multibeam|echosounder'
    assert set(old.split('|')) != set(devices())


def test_the_launch_file_names_every_choice() -> None:
    tree = ast.parse(LAUNCH.read_text())
    docstring = ast.get_docstring(tree) or ''
    listed = {line.split()[0] for line in docstring.splitlines() if line.startswith('    ')}
    assert set(devices()) <= listed, docstring
    [argument] = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, 'id', '') == 'DeclareLaunchArgument'
        and isinstance(node.args[0], ast.Constant)
        and node.args[0].value == 'device'
    ]
    keywords = {k.arg: k.value for k in argument.keywords}
    for keyword in ('choices', 'description'):  # both made from DEVICES, not written out
        names = {n.id for n in ast.walk(keywords[keyword]) if isinstance(n, ast.Name)}
        assert 'DEVICES' in names, keyword


def _options(command: str) -> tuple[str, list[str], dict[str, str]]:
    """The executable, the ``-r`` remaps, and the other options as ``--params-file``/``-p``."""
    words = shlex.split(command)
    assert words[:1] == ['scripts/run'], command
    assert words[2:3] == ['--ros-args'], command
    remaps, options = [], {}
    pairs = iter(words[3:])
    for flag in pairs:
        value = next(pairs)
        if flag == '-r':
            remaps.append(value)
        elif flag == '-p':
            name, _, text = value.partition(':=')
            options[name] = text
        else:
            options[flag] = value
    return words[1], remaps, options


def test_the_readme_gives_every_launch_configuration_as_a_scripts_run_line() -> None:
    rows = readme_rows()
    scenes = _assigned('SCENES')
    for device, (executable, name, robot, params, extra) in devices().items():
        command = rows.pop(f'ranger.launch.py device:={device}', None)
        assert command is not None, f'no README line for device:={device}'
        found, remaps, options = _options(command)
        assert found == executable, command
        assert remaps == [f'__node:={name}'], command
        expected = {
            '--params-file': f'config/{params}',
            'robot_description_file': f'config/robots/{robot}',
            **({'scene_file': f'config/worlds/{scenes[device]}'} if device in scenes else {}),
        }
        assert {k: options.pop(k, None) for k in expected} == expected, command
        assert set(options) == set(extra), command
        for key, value in extra.items():
            assert yaml_value(options[key]) == value, command
    for launch_file, (executable, name, params) in OTHERS.items():
        found, remaps, options = _options(rows.pop(launch_file))
        assert (found, options) == (executable, {'--params-file': f'config/{params}'})
        assert remaps == ([f'__node:={name}'] if name else [])
        assert (REPOSITORY / 'launch' / launch_file).exists()
    assert not rows, f'README lines of no launch configuration: {rows}'
    for command in readme_rows().values():  # every file named exists
        for word in shlex.split(command):
            path = word.partition(':=')[2] or word
            if path.startswith('config/'):
                assert (REPOSITORY / path).is_file(), path


def yaml_value(text: str) -> Any:
    """A ``-p`` value as ROS reads it (YAML)."""
    import yaml

    return yaml.safe_load(text)
