"""The spec's YAML read with bounded work: its nesting, its values and its aliases limited.

PyYAML composes nested collections by recursion (a 20,000-deep list is a ``RecursionError``)
and shares an aliased node instead of copying it, so a few lines of anchors and aliases (an
"alias bomb") make a tree of billions of values that anything walking or printing it
expands. Here the composer stops at :data:`MAX_DEPTH` levels, and the composed node graph's
expanded size (each alias counted as often as it is used, computed once per distinct node)
must stay within :data:`MAX_VALUES` before any Python object is built. Each is one line.
"""

from __future__ import annotations

from typing import Any

import yaml

from nps_sonar_py.errors import InputError

__all__ = ['MAX_DEPTH', 'MAX_VALUES', 'load_tree']

#: Deepest nesting of collections a spec may have (a real one has four or five levels).
MAX_DEPTH = 64
#: Most scalars and collections a spec may expand to, its aliases expanded.
MAX_VALUES = 100_000


class _DepthError(Exception):
    def __init__(self, line: int) -> None:
        self.line = line


class _BoundedLoader(yaml.SafeLoader):  # type: ignore[misc]
    """A safe loader whose composer refuses nesting deeper than :data:`MAX_DEPTH`."""

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise _DepthError(mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _expanded_size(root: yaml.Node) -> int:
    """The number of nodes of ``root`` with every alias expanded, without expanding them."""
    sizes: dict[int, int] = {}
    order: list[yaml.Node] = []
    stack: list[yaml.Node] = [root]
    seen: set[int] = set()
    while stack:  # every distinct node once, parents before children
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        stack.extend(_children(node))
    for node in reversed(order):  # children before parents (a YAML graph has no cycles)
        total = 1 + sum(sizes.get(id(child), 1) for child in _children(node))
        sizes[id(node)] = min(total, MAX_VALUES + 1)
    return sizes[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _invalid(problem: yaml.YAMLError, source: str, error: type[InputError]) -> InputError:
    mark = getattr(problem, 'problem_mark', None)
    line = mark.line + 1 if mark is not None else None
    what = getattr(problem, 'problem', None) or 'not valid YAML'
    return error(f'not valid YAML: {what}', file=source, line=line)


def load_tree(text: str, source: str, error: type[InputError]) -> Any:
    """The YAML ``text`` as Python values; ``error`` (one line) if invalid or too large."""
    loader = _BoundedLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None and _expanded_size(node) > MAX_VALUES:
            raise error(
                f'more than {MAX_VALUES} values with its aliases expanded (an alias bomb?)',
                file=source,
            )
        return None if node is None else loader.construct_document(node)
    except _DepthError as deep:
        raise error(
            f'nested deeper than {MAX_DEPTH} levels', file=source, line=deep.line
        ) from None
    except yaml.YAMLError as problem:
        raise _invalid(problem, source, error) from None
    finally:
        loader.dispose()
