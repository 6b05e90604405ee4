"""Reading XML input so that every problem is one line naming file, line, element and problem.

The robot description and the scene both read their XML here; each passes the exception
class of its layer (:class:`~nps_sonar_py.errors.DescriptionError`,
:class:`~nps_sonar_py.errors.SceneError`) as ``error``. Documents are parsed without DTDs,
entities or network access, and carry their source name as lxml's document URL, so an
element alone locates a problem.

Numbers must be plain decimal numbers and finite: ``nan``, ``inf``, ``1_000`` and
hexadecimal are refused.

Files are read only when they are regular files (a FIFO would block, ``/dev/zero`` never
ends, a directory cannot be read) and at most :data:`MAX_XML_BYTES` long (64 MiB); both are
checked with ``os.stat`` before the file is opened, and the read itself stops at the limit.
"""

from __future__ import annotations

import math
import os
import re
import stat
from typing import BinaryIO, Literal, NoReturn, TypeAlias

from lxml import etree

from nps_sonar_py.errors import InputError

__all__ = [
    'MAX_XML_BYTES',
    'Element',
    'NumberError',
    'check_regular_file',
    'children',
    'file_problem',
    'label',
    'local_name',
    'parse_document',
    'parse_integer',
    'parse_number',
    'parse_numbers',
    'raise_at',
    'read_document',
    'read_file',
    'regular_file_problem',
    'required_attribute',
    'source_of',
    'xml_parser',
]

Element: TypeAlias = etree._Element

#: Largest XML file read (robot, xacro, scene, ``<scene_state>``), bytes: 64 MiB. A URDF or
#: a scene is rarely above 1 MB (a robot of 5000 links is 0.6 MB); lxml's tree takes several
#: times the text's size in memory, so the limit keeps a mistaken file within a few GB.
MAX_XML_BYTES = 64 * 2**20

_MIB = 2**20

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


def _file_kind(mode: int) -> str:
    """What a file that is not regular is: ``'directory'``, ``'FIFO'``, ..."""
    kinds = (
        (stat.S_ISDIR, 'directory'),
        (stat.S_ISFIFO, 'FIFO'),
        (stat.S_ISCHR, 'character device'),
        (stat.S_ISBLK, 'block device'),
        (stat.S_ISSOCK, 'socket'),
    )
    return next((name for test, name in kinds if test(mode)), 'special file')


def _size(n: int) -> str:
    """``n`` bytes in words: ``'70000000 bytes (66.8 MiB)'``."""
    return f'{n} bytes ({n / _MIB:.3g} MiB)' if n >= _MIB else f'{n} bytes'


def _too_large(size: int | None, limit: int) -> str:
    what = _size(size) if size is not None else f'more than {_size(limit)}'
    return f'is too large: {what}; the limit is {_size(limit)}'


def regular_file_problem(st: os.stat_result, limit: int) -> str | None:
    """Say why a file with status ``st`` is not read (not regular, over ``limit`` bytes)."""
    if not stat.S_ISREG(st.st_mode):
        return f'is not a regular file ({_file_kind(st.st_mode)})'
    if st.st_size > limit:
        return _too_large(st.st_size, limit)
    return None


def read_file(
    path: str | os.PathLike[str],
    error: type[InputError],
    *,
    limit: int | None = None,
    file: str | None = None,
    line: int | None = None,
    element: str | None = None,
    what: str = '',
) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` (:data:`MAX_XML_BYTES`).

    ``os.stat`` refuses what is not a regular file before it is opened (a FIFO, a device, a
    directory), and the read stops after ``limit`` bytes (a file that grows, or a special
    file in ``/proc`` whose size reads 0). The error is at ``file:line: element`` when given
    (the element naming the file), else at ``path``; ``what`` names the file in the problem
    (``'mesh file /x.stl '``: ``mesh file /x.stl is not a regular file (FIFO)``,
    ``cannot read mesh file /x.stl: Permission denied``).

    Raises:
        error: missing or unreadable, not a regular file, or larger than ``limit``.

    """
    name = os.fspath(path)
    limit = MAX_XML_BYTES if limit is None else limit

    def refuse(problem: str) -> NoReturn:
        raise error(
            problem,
            file=file if file is not None else name,
            line=line,
            element=element,
        )

    try:
        problem = regular_file_problem(os.stat(name), limit)
        if problem is not None:
            refuse(what + problem)
        # O_NONBLOCK: should the file have become a FIFO since os.stat, opening it still
        # returns at once, and fstat below refuses it.
        fd = os.open(name, os.O_RDONLY | getattr(os, 'O_NONBLOCK', 0) | os.O_CLOEXEC)
        with os.fdopen(fd, 'rb') as stream:
            st = os.fstat(stream.fileno())
            problem = regular_file_problem(st, limit)
            if problem is not None:
                refuse(what + problem)
            data = _read_at_most(stream, limit + 1, st.st_size)
    except OSError as err:
        refuse(f'cannot read{" " + what.strip() if what else ""}: {err.strerror or err}')
    if len(data) > limit:
        refuse(what + _too_large(None, limit))
    return data


def _read_at_most(stream: BinaryIO, count: int, size_hint: int) -> bytes:
    """Up to ``count`` bytes of ``stream``, without reserving ``count`` bytes up front.

    The first read asks for the file's size (plus one, to see growth); a file whose size
    reads 0 (``/proc``) or that grows is read on in 1 MiB chunks.
    """
    chunks = [stream.read(min(count, size_hint + 1))]
    total = len(chunks[0])
    while chunks[-1] and total < count:
        chunks.append(stream.read(min(count - total, 1 << 20)))
        total += len(chunks[-1])
    return b''.join(chunks)


def file_problem(path: str | os.PathLike[str], *, limit: int | None = None) -> str | None:
    """Say, without opening it, why ``path`` is not read; None when it may be.

    It may be when it is a regular file of at most ``limit`` bytes (:data:`MAX_XML_BYTES`).
    """
    try:
        st = os.stat(os.fspath(path))
    except OSError as err:
        return f'cannot read: {err.strerror or err}'
    return regular_file_problem(st, MAX_XML_BYTES if limit is None else limit)


def check_regular_file(
    path: str | os.PathLike[str], error: type[InputError], *, limit: int | None = None
) -> None:
    """Check, without opening it, that ``path`` is a regular file of at most ``limit`` bytes.

    For files another library opens (xacro's top file); ``limit`` defaults to
    :data:`MAX_XML_BYTES`; ``error`` at ``path`` otherwise.
    """
    problem = file_problem(path, limit=limit)
    if problem is not None:
        raise error(problem, file=os.fspath(path))


def read_document(
    path: str | os.PathLike[str], error: type[InputError], *, limit: int | None = None
) -> bytes:
    """The bytes of the XML file ``path``, for :func:`parse_document`; ``error`` if unreadable.

    At most ``limit`` bytes (default :data:`MAX_XML_BYTES`); only a regular file, never
    blocking (see :func:`read_file`).
    """
    return read_file(path, error, limit=limit)


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
