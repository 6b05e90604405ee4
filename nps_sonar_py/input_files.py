"""Reading an input file (XML, mesh, heightmap, map, profile) so that it never blocks or floods.

Every reader of the package reads its files here. A file is read only when it is a regular
file (a FIFO would block, ``/dev/zero`` never ends, a directory cannot be read) and at most a
limit long, the limit of its kind; both are checked with ``os.stat`` before the file is
opened, and the read itself stops at the limit. Every problem is one line, raised as the
caller's exception class (its layer's :class:`~nps_sonar_py.errors.InputError`) at the place
that names the file.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO, NoReturn

from nps_sonar_py.errors import InputError

__all__ = [
    'check_regular_file',
    'file_problem',
    'read_file',
    'read_input_file',
    'regular_file_problem',
]

_MIB = 2**20


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


def read_input_file(
    path: str | os.PathLike[str],
    error: type[InputError],
    *,
    what: str,
    limit: int,
    file: str | None = None,
    line: int | None = None,
    element: str | None = None,
) -> bytes:
    """The bytes of the input file ``path`` of kind ``what``, at most ``limit`` of them.

    What every reader of a named file does first: a missing file is ``<what> not found``,
    then :func:`read_file`. ``what`` names the kind (``'mesh file'``, ``'sound-speed
    profile'``); the problem names the path too when the error is located elsewhere (at
    ``file:line: element``, the element naming the file), and not otherwise (the error is
    then at ``path`` itself).

    Raises:
        error: missing or unreadable, not a regular file, or larger than ``limit``.

    """
    shown = os.fspath(path)
    named = what if file is None else f'{what} {shown}'
    if not os.path.lexists(shown):  # False, never an error, for a NUL or a too long name
        problem = f'{what} not found' + ('' if file is None else f': {shown}')
        raise error(problem, file=shown if file is None else file, line=line, element=element)
    return read_file(
        shown, error, limit=limit, file=file, line=line, element=element, what=f'{named} '
    )


def read_file(
    path: str | os.PathLike[str],
    error: type[InputError],
    *,
    limit: int,
    file: str | None = None,
    line: int | None = None,
    element: str | None = None,
    what: str = '',
) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit``.

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
    except ValueError as err:  # a NUL in the name
        refuse(f'cannot read{" " + what.strip() if what else ""}: {err}')
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


def file_problem(path: str | os.PathLike[str], *, limit: int) -> str | None:
    """Say, without opening it, why ``path`` is not read; None when it may be.

    It may be when it is a regular file of at most ``limit`` bytes.
    """
    try:
        st = os.stat(os.fspath(path))
    except (OSError, ValueError) as err:
        return f'cannot read: {getattr(err, "strerror", None) or err}'
    return regular_file_problem(st, limit)


def check_regular_file(
    path: str | os.PathLike[str], error: type[InputError], *, limit: int
) -> None:
    """Check, without opening it, that ``path`` is a regular file of at most ``limit`` bytes.

    For files another library opens (xacro's top file); ``error`` at ``path`` otherwise.
    """
    problem = file_problem(path, limit=limit)
    if problem is not None:
        raise error(problem, file=os.fspath(path))
