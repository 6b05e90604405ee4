"""The exceptions of nps_sonar_py: one base class and one subclass per kind of input.

And the one-line text of their messages: :func:`one_line` escapes what would break a line,
:func:`joined_lines` joins the lines of another tool's message, :func:`error_line` is an
exception as the one line a user reads.
"""

from __future__ import annotations

import re

__all__ = [
    'ConfigurationError',
    'DescriptionError',
    'InputError',
    'NpsSonarError',
    'SceneError',
    'error_line',
    'joined_lines',
    'one_line',
]

#: Control characters and the other line breaks of ``str.splitlines`` (U+0085, U+2028,
#: U+2029, ...) written as escapes, so that a message stays on one line.
_ESCAPES = {
    **{c: f'\\x{c:02x}' for c in (*range(0x20), *range(0x7F, 0xA0))},
    **{ord('\n'): '\\n', ord('\r'): '\\r', ord('\t'): '\\t'},
    0x2028: '\\u2028',
    0x2029: '\\u2029',
}


def one_line(text: str, limit: int | None = None) -> str:
    """``text`` with line breaks and control characters escaped, for an error message.

    With ``limit``, at most ``limit`` characters of it, then ``...`` if it was longer.
    """
    if limit is not None and len(text) > limit:
        return text[:limit].translate(_ESCAPES) + '...'
    return text.translate(_ESCAPES)


def joined_lines(text: str, separator: str = ' ') -> str:
    """The lines of a message written on several (xacro's, rclpy's) as one :func:`one_line`.

    White space in each line is collapsed, blank lines are left out, and the rest joined by
    ``separator``.
    """
    lines = (' '.join(part.split()) for part in text.splitlines())
    return one_line(separator.join(line for line in lines if line))


#: rcl's C source location in its messages: ``, at ./src/rcl/node.c:120``.
_RCL_LOCATION = re.compile(r',? at \S+\.(?:c|cc|cpp|h|hpp):\d+')


def error_line(error: BaseException) -> str:
    """``error`` as the one line a user reads: :func:`joined_lines` of its message.

    rclpy's caret line (``^`` under a bad character) and rcl's source locations are left out.
    """
    lines = [line for line in str(error).splitlines() if line.strip(' ^')]
    return _RCL_LOCATION.sub('', joined_lines('\n'.join(lines)))


class NpsSonarError(Exception):
    """Base class of every error this package raises on purpose."""


class InputError(NpsSonarError):
    """A file or string that cannot be used, with where and what is wrong.

    ``str(error)`` is one line, ``"<file>:<line>: <element>: <problem>"``, leaving out
    the parts that are not known, so that a node can print it as its only output: line
    breaks and control characters in the parts are escaped (:func:`one_line`).
    """

    def __init__(
        self,
        problem: str,
        *,
        file: str | None = None,
        line: int | None = None,
        element: str | None = None,
    ) -> None:
        self.problem = problem
        self.file = file
        self.line = line
        self.element = element
        super().__init__(self._format())

    def _format(self) -> str:
        where = one_line(self.file or '<string>')
        if self.line is not None:
            where = f'{where}:{self.line}'
        parts = [where]
        if self.element:
            parts.append(one_line(self.element))
        parts.append(one_line(self.problem))
        return ': '.join(parts)


class DescriptionError(InputError):
    """A robot description (URDF, xacro, ``<sensor>``) that cannot be used."""


class SceneError(InputError):
    """A world description (scene file, ``<scene_state>``, model, mesh) that cannot be used."""


class ConfigurationError(NpsSonarError):
    """A sensor configuration (parameters, YAML) that is inconsistent or out of range."""
