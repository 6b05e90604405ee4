"""Reading XML input so that every problem is one line naming file, line, element and problem.

The robot description and the scene both read their XML here; each passes the exception
class of its layer (:class:`~nps_sonar_py.errors.DescriptionError`,
:class:`~nps_sonar_py.errors.SceneError`) as ``error``. Documents are parsed without DTDs,
entities or network access, and carry their source name as lxml's document URL, so an
element alone locates a problem.

Numbers must be plain decimal numbers and finite: ``nan``, ``inf``, ``1_000`` and
hexadecimal are refused.

Files are read by ``input_files.read_file``: only regular files, and at most
:data:`MAX_XML_BYTES` long (64 MiB).
"""

from __future__ import annotations

import math
import os
import re
from typing import Literal, NoReturn, TypeAlias

from lxml import etree

from nps_sonar_py.errors import InputError
from nps_sonar_py.input_files import check_regular_file, file_problem, read_file

__all__ = [
    'MAX_XML_BYTES',
    'Element',
    'NumberError',
    'check_xml_file',
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
    'xml_file_problem',
    'xml_parser',
]

Element: TypeAlias = etree._Element

#: Largest XML file read (robot, xacro, scene, ``<scene_state>``), bytes: 64 MiB. A URDF or
#: a scene is rarely above 1 MB (a robot of 5000 links is 0.6 MB); lxml's tree takes several
#: times the text's size in memory, so the limit keeps a mistaken file within a few GB.
MAX_XML_BYTES = 64 * 2**20

#: Attributes that name an element in messages (``<model name="tank">``), in order of preference.
_LABELS = ('name', 'reference', 'model', 'frame', 'scene')

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


def read_document(
    path: str | os.PathLike[str],
    error: type[InputError],
    *,
    limit: int | None = None,
    file: str | None = None,
    line: int | None = None,
    element: str | None = None,
    what: str = '',
) -> bytes:
    """The bytes of the XML file ``path``, for :func:`parse_document`; ``error`` if unreadable.

    At most ``limit`` bytes (default :data:`MAX_XML_BYTES`); only a regular file, never
    blocking; located at ``file:line: element`` when given (``input_files.read_file``).
    """
    limit = MAX_XML_BYTES if limit is None else limit
    return read_file(path, error, limit=limit, file=file, line=line, element=element, what=what)


def xml_file_problem(path: str | os.PathLike[str]) -> str | None:
    """Say, without opening it, why the XML file ``path`` is not read; None when it may be."""
    return file_problem(path, limit=MAX_XML_BYTES)


def check_xml_file(path: str | os.PathLike[str], error: type[InputError]) -> None:
    """Check, without opening it, the XML file ``path`` that another library opens (xacro)."""
    check_regular_file(path, error, limit=MAX_XML_BYTES)


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
    """Raise ``error`` at ``el``'s line, in ``file`` (default its document's source).

    ``element`` names the place (default :func:`label` of ``el``).
    """
    raise error(
        problem,
        file=file or el.getroottree().docinfo.URL,
        line=el.sourceline,
        element=label(el) if element is None else element,
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

    def reason(self, text: str, count: int) -> str:
        """What is wrong with ``text``, read as ``count`` numbers, for a located error."""
        if self.kind == 'count':
            return f'must be {count} numbers, got {len(text.split())}'
        if self.kind == 'infinite':
            return 'must be finite (no nan or inf)'
        return f'is not {count} number{"s" if count > 1 else ""}'


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
