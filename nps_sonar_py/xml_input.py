"""Reading XML input so that every problem is one line naming file, line, element and problem.

The robot description and the scene both read their XML here; each passes the exception
class of its layer (:class:`~nps_sonar_py.errors.DescriptionError`,
:class:`~nps_sonar_py.errors.SceneError`) as ``error``. Documents are parsed without DTDs,
entities or network access, and carry their source name as lxml's document URL, so an
element alone locates a problem.

Numbers must be plain decimal numbers and finite: ``nan``, ``inf``, ``1_000`` and
hexadecimal are refused.
"""

from __future__ import annotations

import math
import os
import re
from typing import Literal, NoReturn, TypeAlias

from lxml import etree

from nps_sonar_py.errors import InputError

__all__ = [
    'Element',
    'NumberError',
    'children',
    'label',
    'local_name',
    'parse_document',
    'parse_integer',
    'parse_number',
    'parse_numbers',
    'raise_at',
    'read_document',
    'required_attribute',
    'source_of',
    'xml_parser',
]

Element: TypeAlias = etree._Element

#: Attributes that name an element in messages (``<model name="tank">``), in order of preference.
_LABELS = ('name', 'reference', 'model', 'frame', 'scene')

#: Line breaks and tabs written as escapes, so that an error stays on one line.
_CONTROL = str.maketrans({'\n': '\\n', '\r': '\\r', '\t': '\\t'})

_FLOAT = re.compile(r'[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?')
_INT = re.compile(r'[+-]?\d+')


def xml_parser(encoding: str | None = None) -> etree.XMLParser:
    """A parser for plain data: no DTD, entities or network; comments and PIs dropped."""
    return etree.XMLParser(
        remove_comments=True,
        remove_pis=True,
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        encoding=encoding,
    )


def parse_document(data: str | bytes, source: str | None, error: type[InputError]) -> Element:
    """Root element of an XML document; ``source`` names it in errors (see :func:`source_of`).

    A ``str`` is read as Unicode whatever its XML declaration says; ``bytes`` follow the
    declaration (UTF-8 without one).

    Raises:
        error: not well-formed XML, with the parser's line and message.

    """
    if isinstance(data, str):
        try:
            data = data.encode('utf-8')
        except UnicodeEncodeError as err:
            raise error(f'not valid Unicode text: {err.reason}', file=source) from None
        parser = xml_parser('utf-8')
    else:
        parser = xml_parser()
    try:
        return etree.fromstring(data, parser, base_url=source)
    except etree.XMLSyntaxError as err:
        message = ' '.join(re.sub(r', line \d+, column \d+$', '', str(err.msg)).split())
        raise error(f'malformed XML: {message}', file=source, line=err.lineno or None) from None


def read_document(path: str | os.PathLike[str], error: type[InputError]) -> bytes:
    """The bytes of the file ``path``, for :func:`parse_document`; ``error`` if unreadable."""
    try:
        with open(path, 'rb') as stream:
            return stream.read()
    except OSError as err:
        raise error(f'cannot read: {err.strerror or err}', file=os.fspath(path)) from None


def source_of(el: Element) -> str:
    """Return the source name the element's document was parsed with (``'<string>'`` if none)."""
    url = el.getroottree().docinfo.URL
    return url if url else '<string>'


def local_name(el: Element) -> str:
    """Tag without namespace; ``''`` for comments, entities and other non-elements."""
    tag = el.tag
    if not isinstance(tag, str):
        return ''
    return tag.rpartition('}')[2]


def label(el: Element) -> str:
    """``<tag name="...">``, with the first attribute that identifies the element, or ``<tag>``."""
    name = f'{el.prefix}:{local_name(el)}' if el.prefix else local_name(el)
    for key in _LABELS:
        value = el.get(key)
        if value is not None:
            return f'<{name} {key}="{value}">'
    return f'<{name}>'


def children(el: Element, tag: str | None = None) -> list[Element]:
    """Element children (comments and entities skipped), optionally only those named ``tag``."""
    return [c for c in el if isinstance(c.tag, str) and (tag is None or c.tag == tag)]


def raise_at(
    error: type[InputError],
    el: Element,
    problem: str,
    *,
    element: str | None = None,
    file: str | None = None,
) -> NoReturn:
    """Raise ``error`` at ``el``'s line, in ``file`` (default its document's source), on one line.

    ``element`` names the place (default :func:`label` of ``el``).
    """
    raise error(
        problem.translate(_CONTROL),
        file=file or el.getroottree().docinfo.URL,
        line=el.sourceline,
        element=(label(el) if element is None else element).translate(_CONTROL),
    )


def required_attribute(
    el: Element,
    name: str,
    error: type[InputError],
    *,
    strip: bool = False,
    problem: str = 'missing attribute {name}',
    element: str | None = None,
    file: str | None = None,
) -> str:
    """Return the attribute ``name`` of ``el``, which must be there (else ``error`` at ``el``).

    Args:
        el: the element.
        name: the attribute.
        error: the exception class of the caller's layer.
        strip: return the value without white space around it, and take a value that is
            only white space as missing; without ``strip`` the value is returned as written,
            even empty.
        problem: the message when it is missing, ``{name}`` replaced by ``name`` (so
            ``'{name!r}'`` quotes it).
        element: how the error names the place (default :func:`label` of ``el``).
        file: the file the error names (default ``el``'s document's source).

    """
    value: str | None = el.get(name)
    if value is not None and strip:
        value = value.strip() or None
    if value is None:
        raise_at(error, el, problem.format(name=name), element=element, file=file)
    return value


class NumberError(ValueError):
    """Text that is not the finite decimal number(s) asked for; ``str(err)`` says what is wrong.

    Attributes:
        kind: ``'count'`` (wrong number of words), ``'infinite'`` (``nan``, ``inf``, or too
            large for a float) or ``'syntax'`` (anything else that is not a number).

    """

    def __init__(self, problem: str, kind: Literal['count', 'infinite', 'syntax']) -> None:
        super().__init__(problem)
        self.kind = kind


def parse_number(text: str) -> float:
    """Parse a finite float in plain decimal notation (white space around it allowed).

    Raises:
        NumberError: not a number, or not finite.

    """
    word = text.strip()
    if not _FLOAT.fullmatch(word):
        try:
            infinite = not math.isfinite(float(word))  # nan, inf, infinity in any case
        except ValueError:
            infinite = False
        raise NumberError(f'{word!r} is not a number', 'infinite' if infinite else 'syntax')
    number = float(word)
    if not math.isfinite(number):
        raise NumberError(f'{word!r} is not a finite number', 'infinite')
    return number


def parse_numbers(text: str, count: int) -> tuple[float, ...]:
    """``count`` finite floats separated by white space, as URDF writes ``xyz="0 0 1"``.

    Raises:
        NumberError: not ``count`` words, or one of them not a finite number.

    """
    words = text.split()
    if len(words) != count:
        raise NumberError(f'expected {count} numbers, got {len(words)}', 'count')
    return tuple(parse_number(w) for w in words)


def parse_integer(text: str) -> int:
    """Parse an integer in plain decimal notation (no fraction, no exponent, at most 18 digits).

    Raises:
        NumberError: not such an integer.

    """
    word = text.strip()
    if not _INT.fullmatch(word) or len(word) > 18:
        raise NumberError(f'{word!r} is not an integer', 'syntax')
    return int(word)
