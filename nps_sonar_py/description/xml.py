"""The description's reading of values on :mod:`nps_sonar_py.xml_input`, raising DescriptionError.

An error names the element by its path from the nearest anchor element:
``file:line: <sensor name="sonar"><sonar><max>: must be > min (0.1), got 0.05``.

Values may be given as an attribute (``<sonar max="7"/>``) or as a child element's text
(``<sonar><max>7</max></sonar>``, as SDF writes them); :func:`find_value` accepts either and
rejects both at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NoReturn

from nps_sonar_py.description.values import Bound
from nps_sonar_py.errors import DescriptionError
from nps_sonar_py.xml_input import (
    Element,
    NumberError,
    children,
    label,
    local_name,
    parse_integer,
    parse_number,
    parse_numbers,
    raise_at,
)

__all__ = [
    'Located',
    'check_bound',
    'describe',
    'fail',
    'find_value',
    'only_child',
    'parse_float',
    'parse_int',
    'parse_vector',
    'required_child',
    'to_text',
    'vector_attribute',
]

#: Elements a description starts from: the path in an error message begins at the nearest one.
_ANCHORS = frozenset({'robot', 'link', 'joint', 'sensor', 'gazebo', 'material'})


def describe(el: Element) -> str:
    """Name the element by its path from the nearest anchor: ``<sensor name="s"><sonar><max>``."""
    parts = [label(el)]
    node = el
    while local_name(node) not in _ANCHORS:
        parent = node.getparent()
        if parent is None:
            break
        node = parent
        parts.append(label(node))
    return ''.join(reversed(parts))


def fail(el: Element, problem: str) -> NoReturn:
    """Raise a :class:`DescriptionError` at ``el`` (file, line and description), on one line."""
    raise_at(DescriptionError, el, problem, element=describe(el))


def only_child(el: Element, tag: str, *, required: bool = False) -> Element | None:
    """Return the one child named ``tag``; ``None`` if absent and not required.

    Raises:
        DescriptionError: absent but required, or given more than once.

    """
    found = children(el, tag)
    if len(found) > 1:
        fail(found[1], f'<{tag}> given more than once (first on line {found[0].sourceline})')
    if not found:
        if required:
            fail(el, f'missing <{tag}>')
        return None
    return found[0]


def required_child(el: Element, tag: str) -> Element:
    """Return the one child named ``tag``, which must be there."""
    found = only_child(el, tag, required=True)
    if found is None:  # pragma: no cover (only_child has failed already)
        fail(el, f'missing <{tag}>')
    return found


def to_text(el: Element) -> str:
    """Text of a value element such as ``<max>7</max>``; it may hold no elements."""
    if len(el):
        fail(el, f'<{local_name(el)}> must hold a value, not elements')
    return el.text or ''


@dataclass(frozen=True)
class Located:
    """A value's text and where it was written.

    Attributes:
        text: the text as written.
        element: the element holding it (the child for the element form).
        label: how problems name it: ``'max="7"'`` for an attribute, ``''`` for element text.

    """

    text: str
    element: Element
    label: str

    def fail(self, problem: str) -> NoReturn:
        """Raise at this value's element, prefixing the attribute when there is one."""
        fail(self.element, f'{self.label}: {problem}' if self.label else problem)


def find_value(el: Element, name: str) -> Located | None:
    """Find the value ``name`` of ``el``, attribute ``name`` or child ``<name>``; None if absent.

    Raises:
        DescriptionError: given both ways, or the child given twice.

    """
    text = el.get(name)
    child = only_child(el, name)
    if text is not None and child is not None:
        fail(child, f'{name} given both as attribute and as element')
    if text is not None:
        return Located(text, el, f'{name}="{text}"')
    if child is not None:
        return Located(to_text(child), child, '')
    return None


def parse_float(value: Located) -> float:
    """Parse a finite float in plain decimal notation."""
    try:
        return parse_number(value.text)
    except NumberError as err:
        value.fail(str(err))


def parse_int(value: Located) -> int:
    """Parse an integer in plain decimal notation (no fraction, no exponent)."""
    try:
        return parse_integer(value.text)
    except NumberError as err:
        value.fail(str(err))


def parse_vector(value: Located, n: int, bound: Bound | None = None) -> tuple[float, ...]:
    """``n`` finite floats separated by white space, as URDF writes ``xyz="0 0 1"``.

    With ``bound``, each must lie in it (:func:`check_bound`).
    """
    try:
        numbers = parse_numbers(value.text, n)
    except NumberError as err:
        value.fail(str(err))
    if bound is not None:
        check_bound(value, numbers, bound)
    return numbers


def check_bound(value: Located, numbers: Iterable[float], bound: Bound, what: str = '') -> None:
    """Fail at ``value`` (``what: problem``) at the first of ``numbers`` outside ``bound``."""
    for number in numbers:
        problem = bound.problem(number)
        if problem is not None:
            value.fail(f'{what}: {problem}' if what else problem)


def vector_attribute(
    el: Element, name: str, n: int, default: Sequence[float], bound: Bound | None = None
) -> tuple[float, ...]:
    """Attribute ``name`` of ``el`` as ``n`` floats, each in ``bound``; ``default`` if absent."""
    text = el.get(name)
    if text is None:
        return tuple(float(v) for v in default)
    return parse_vector(Located(text, el, f'{name}="{text}"'), n, bound)
