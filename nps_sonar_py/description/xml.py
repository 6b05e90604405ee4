"""XML helpers that know where each element is, so every error names file, line and element.

Parsed documents carry their source name as lxml's document URL, so an element alone is
enough to build a :class:`~nps_sonar_py.errors.DescriptionError`:
``file:line: <sensor name="sonar"><sonar><max>: must be > min (0.1), got 0.05``.

Values may be given as an attribute (``<sonar max="7"/>``) or as a child element's text
(``<sonar><max>7</max></sonar>``, as SDF writes them); :func:`find_value` accepts either and
rejects both at once. Numbers must be plain decimal numbers and finite: ``nan``, ``inf``,
``1_000`` and hexadecimal are refused.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn, TypeAlias

from lxml import etree

from nps_sonar_py.errors import DescriptionError

__all__ = [
    'Element',
    'Located',
    'children',
    'describe',
    'fail',
    'find_value',
    'local_name',
    'only_child',
    'parse_document',
    'parse_float',
    'parse_int',
    'parse_vector',
    'required_attribute',
    'required_child',
    'source_of',
    'to_text',
    'vector_attribute',
]

Element: TypeAlias = etree._Element

#: Elements a description starts from: the path in an error message begins at the nearest one.
_ANCHORS = frozenset({'robot', 'link', 'joint', 'sensor', 'gazebo', 'material'})
#: Attributes shown in an element's description, in order of preference.
_LABELS = ('name', 'reference')

#: Line breaks and tabs written as escapes, so that an error stays on one line.
_CONTROL = str.maketrans({'\n': '\\n', '\r': '\\r', '\t': '\\t'})

_FLOAT = re.compile(r'[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?')
_INT = re.compile(r'[+-]?\d+')

_PARSER = etree.XMLParser(
    remove_comments=True,
    remove_pis=True,
    resolve_entities=False,
    no_network=True,
    load_dtd=False,
)


def parse_document(data: str | bytes, source: str) -> Element:
    """Root element of an XML document; ``source`` names it in later errors.

    A ``str`` is read as Unicode whatever its XML declaration says; ``bytes`` follow the
    declaration (UTF-8 without one).

    Raises:
        DescriptionError: not well-formed XML, with lxml's line and message.

    """
    if isinstance(data, str):
        try:
            data = data.encode('utf-8')
        except UnicodeEncodeError as err:
            raise DescriptionError(f'not valid Unicode text: {err.reason}', file=source) from None
        parser = etree.XMLParser(
            remove_comments=True,
            remove_pis=True,
            resolve_entities=False,
            no_network=True,
            load_dtd=False,
            encoding='utf-8',
        )
    else:
        parser = _PARSER
    try:
        return etree.fromstring(data, parser, base_url=source)
    except etree.XMLSyntaxError as err:
        message = ' '.join(re.sub(r', line \d+, column \d+$', '', str(err.msg)).split())
        line = err.lineno if err.lineno else None
        raise DescriptionError(f'malformed XML: {message}', file=source, line=line) from None


def source_of(el: Element) -> str:
    """Return the source name the element's document was parsed with."""
    url = el.getroottree().docinfo.URL
    return url if url else '<string>'


def local_name(el: Element) -> str:
    """Tag without namespace; ``''`` for comments, entities and other non-elements."""
    tag = el.tag
    if not isinstance(tag, str):
        return ''
    return tag.rpartition('}')[2]


def _label(el: Element) -> str:
    name = f'{el.prefix}:{local_name(el)}' if el.prefix else local_name(el)
    for key in _LABELS:
        value = el.get(key)
        if value is not None:
            return f'<{name} {key}="{value}">'
    return f'<{name}>'


def describe(el: Element) -> str:
    """Name the element by its path from the nearest anchor, e.g. ``<sensor name="s"><sonar><max>``."""
    parts = [_label(el)]
    node = el
    while local_name(node) not in _ANCHORS:
        parent = node.getparent()
        if parent is None:
            break
        node = parent
        parts.append(_label(node))
    return ''.join(reversed(parts))


def _one_line(text: str) -> str:
    return text.translate(_CONTROL)


def fail(el: Element, problem: str) -> NoReturn:
    """Raise a :class:`DescriptionError` at ``el`` (its file, line and description), on one line."""
    raise DescriptionError(
        _one_line(problem),
        file=source_of(el),
        line=el.sourceline,
        element=_one_line(describe(el)),
    )


def children(el: Element, tag: str | None = None) -> list[Element]:
    """Element children (comments and entities skipped), optionally only those named ``tag``."""
    return [c for c in el if isinstance(c.tag, str) and (tag is None or c.tag == tag)]


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


def required_attribute(el: Element, name: str) -> str:
    """Return the attribute ``name``, which must be there."""
    value = el.get(name)
    if value is None:
        fail(el, f'missing attribute {name}')
    return value


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
    """Find the value ``name`` of ``el``: attribute ``name`` or child ``<name>``; ``None`` if absent.

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
    text = value.text.strip()
    if not _FLOAT.fullmatch(text):
        value.fail(f'{text!r} is not a number')
    number = float(text)
    if not math.isfinite(number):
        value.fail(f'{text!r} is not a finite number')
    return number


def parse_int(value: Located) -> int:
    """Parse an integer in plain decimal notation (no fraction, no exponent)."""
    text = value.text.strip()
    if not _INT.fullmatch(text) or len(text) > 18:
        value.fail(f'{text!r} is not an integer')
    return int(text)


def parse_vector(value: Located, n: int) -> tuple[float, ...]:
    """``n`` finite floats separated by white space, as URDF writes ``xyz="0 0 1"``."""
    words = value.text.split()
    if len(words) != n:
        value.fail(f'expected {n} numbers, got {len(words)}')
    return tuple(parse_float(Located(w, value.element, value.label)) for w in words)


def vector_attribute(el: Element, name: str, n: int, default: Sequence[float]) -> tuple[float, ...]:
    """Attribute ``name`` of ``el`` as ``n`` floats, or ``default`` when absent."""
    text = el.get(name)
    if text is None:
        return tuple(float(v) for v in default)
    return parse_vector(Located(text, el, f'{name}="{text}"'), n)
