"""The layers of docs/architecture.md: each package imports only the layers before it.

Read from the source with ``ast`` (no import is executed), so a new import that crosses a
layer fails here with the module and the line.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / 'nps_sonar_py'
#: In order: a layer may import itself and the layers before it.
LAYERS = ('description', 'echo', 'scene', 'sensing', 'devices', 'ros')
#: Modules of the package root that any layer may use.
SHARED = {'ament', 'background', 'errors', 'limits', 'transforms', 'xml_input', 'noise_type'}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return [(line, name) for line, name in found if name.startswith('nps_sonar_py.')]


def test_each_layer_imports_only_the_layers_before_it() -> None:
    crossings = []
    for position, layer in enumerate(LAYERS):
        allowed = set(LAYERS[: position + 1]) | SHARED
        for path in sorted((PACKAGE / layer).rglob('*.py')):
            for line, name in _imports(path):
                target = name.split('.')[1]
                if target not in allowed:
                    crossings.append(f'{path.relative_to(PACKAGE.parent)}:{line}: imports {name}')
    assert not crossings, '\n'.join(crossings)


def test_the_shared_modules_import_no_layer() -> None:
    for module in SHARED:
        path = PACKAGE / f'{module}.py'
        targets = {name.split('.')[1] for _, name in _imports(path)}
        assert targets <= SHARED, (module, targets)
