"""The layers of docs/architecture.md, and no import circle anywhere in the package.

Read from the source with ``ast`` (no import is executed), so a new import that crosses a
layer, or closes a circle, fails here with the modules and the lines. Every import counts:
at module level, inside functions and under ``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / 'nps_sonar_py'
#: In order: a layer may import itself and the layers before it.
LAYERS = (
    'description',
    'echo',
    'scene',
    'sensing',
    'devices',
    'dataset',
    'formats',
    'realism',
    'ros',
)
#: Modules of the package root that any layer may use.
SHARED = {
    'records',
    'ament',
    'background',
    'errors',
    'input_files',
    'limits',
    'noise_type',
    'plots',
    'transforms',
    'xml_input',
}


def _module(path: Path) -> str:
    """The dotted name of the module at ``path`` (a package is its ``__init__.py``)."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix('').parts)
    if parts[-1] == '__init__':
        parts.pop()
    return '.'.join(parts)


#: Every module of the package, by dotted name.
MODULES = {_module(path): path for path in sorted(PACKAGE.rglob('*.py'))}


def _imports_in(source: str, package: list[str]) -> list[tuple[int, str]]:
    """``(line, module)`` of each import of a package module in ``source``, wherever it is.

    ``package``: the dotted parts of the package the source is in, for relative imports.
    ``from a.b import c`` imports the module ``a.b.c`` if there is one, else ``a.b`` (the
    name ``c`` is then defined in ``a.b``).
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                parent = package[: len(package) - node.level + 1]
                base = '.'.join([*parent, *([node.module] if node.module else [])])
            for alias in node.names:
                sub = f'{base}.{alias.name}'
                found.append((node.lineno, sub if sub in MODULES else base))
    return sorted((line, name) for line, name in found if name.split('.')[0] == PACKAGE.name)


def _imports(path: Path) -> list[tuple[int, str]]:
    """The imports of package modules in the module at ``path`` (:func:`_imports_in`)."""
    here = _module(path).split('.')
    return _imports_in(path.read_text(), here if path.name == '__init__.py' else here[:-1])


def test_every_form_of_import_is_read() -> None:
    source = """from typing import TYPE_CHECKING
from nps_sonar_py import plots, errors
from nps_sonar_py.devices import Rig
import nps_sonar_py.limits
from . import context
from ..devices import settings
import numpy
if TYPE_CHECKING:
    from nps_sonar_py.scene.world import World
def f():
    from nps_sonar_py.echo import EchoConfig
"""
    assert _imports_in(source, ['nps_sonar_py', 'ros']) == [
        (2, 'nps_sonar_py.errors'),
        (2, 'nps_sonar_py.plots'),
        (3, 'nps_sonar_py.devices'),
        (4, 'nps_sonar_py.limits'),
        (5, 'nps_sonar_py.ros.context'),
        (6, 'nps_sonar_py.devices.settings'),
        (9, 'nps_sonar_py.scene.world'),
        (11, 'nps_sonar_py.echo'),
    ]


def test_each_layer_imports_only_the_layers_before_it() -> None:
    crossings = []
    for position, layer in enumerate(LAYERS):
        allowed = set(LAYERS[: position + 1]) | SHARED
        for path in sorted((PACKAGE / layer).rglob('*.py')):
            for line, name in _imports(path):
                target = name.split('.')[1] if '.' in name else '(the package root)'
                if target not in allowed:
                    crossings.append(f'{path.relative_to(PACKAGE.parent)}:{line}: imports {name}')
    assert not crossings, '\n'.join(crossings)


def test_the_shared_modules_import_no_layer() -> None:
    for module in SHARED:
        path = PACKAGE / f'{module}.py'
        targets = {name.split('.')[1] for _, name in _imports(path)}
        assert targets <= SHARED, (module, targets)


def _graph() -> dict[str, dict[str, int]]:
    """Module -> {module it imports: the line of its first such import}."""
    graph: dict[str, dict[str, int]] = {}
    for module, path in MODULES.items():
        edges = graph.setdefault(module, {})
        for line, name in _imports(path):
            if name in MODULES and name != module:
                edges.setdefault(name, line)
    return graph


def _cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One circle through each strongly connected group of modules (Tarjan), as a path."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in graph[module]:
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(group)

    for module in sorted(graph):
        if module not in index:
            visit(module)
    circles = []
    for group in groups:  # the shortest circle from the group's first module back to it
        start = min(group)
        paths = {start: [start]}
        frontier = [start]
        circle: list[str] | None = None
        while circle is None:
            following = []
            for module in frontier:
                for other in sorted(graph[module]):
                    if other == start:
                        circle = [*paths[module], start]
                        break
                    if other in group and other not in paths:
                        paths[other] = [*paths[module], other]
                        following.append(other)
                if circle is not None:
                    break
            frontier = following
        circles.append(circle)
    return sorted(circles)


def test_the_circle_finder_names_a_circle() -> None:
    graph = {'a': {'b': 3}, 'b': {'c': 5}, 'c': {'a': 7, 'd': 1}, 'd': {}}
    assert _cycles(graph) == [['a', 'b', 'c', 'a']]
    assert _cycles({'a': {'b': 1}, 'b': {}}) == []


def test_no_module_imports_itself_through_others() -> None:
    graph = _graph()
    described = []
    for circle in _cycles(graph):
        steps = [
            f'{MODULES[a].relative_to(PACKAGE.parent)}:{graph[a][b]} imports {b}'
            for a, b in itertools.pairwise(circle)
        ]
        described.append(' -> '.join(circle) + '\n    ' + '\n    '.join(steps))
    assert not described, 'import circles:\n' + '\n'.join(described)
