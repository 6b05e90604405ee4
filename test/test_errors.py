"""The one-line text of error messages (nps_sonar_py/errors.py): escaping, joining, exceptions."""

from __future__ import annotations

import pytest

from nps_sonar_py.errors import error_line, joined_lines, one_line

# (case id, text, limit, expected one_line(text, limit))
ONE_LINE_CASES = [
    ('plain text unchanged', 'a b', None, 'a b'),
    ('line feed', 'a\nb', None, 'a\\nb'),
    ('carriage return and tab', 'a\r\tb', None, 'a\\r\\tb'),
    ('bell', 'a\x07b', None, 'a\\x07b'),
    ('next line U+0085', 'a\x85b', None, 'a\\x85b'),
    ('line separator U+2028', 'a\u2028b', None, 'a\\u2028b'),
    ('cut at the limit', 'abcdef', 3, 'abc...'),
    ('at the limit: not cut', 'abc', 3, 'abc'),
    ('cut before escaping', 'ab\ncd', 3, 'ab\\n...'),
]


@pytest.mark.parametrize(
    ('text', 'limit', 'expected'),
    [c[1:] for c in ONE_LINE_CASES],
    ids=[c[0] for c in ONE_LINE_CASES],
)
def test_one_line_escapes_what_breaks_a_line(text: str, limit: int | None, expected: str) -> None:
    assert one_line(text, limit) == expected
    assert len(one_line(text, limit).splitlines()) == 1


# (case id, text, separator, expected)
JOINED_CASES = [
    ('lines joined', 'a\nb', '; ', 'a; b'),
    ('blank lines left out', 'a\n\n   \nb\n', '; ', 'a; b'),
    ('white space collapsed per line', '  a   b \n\tc', ' ', 'a b c'),
    ('a control character left is escaped', 'a\x00b', ' ', 'a\\x00b'),
    ('nothing but white space', ' \n \n', '; ', ''),
]


@pytest.mark.parametrize(
    ('text', 'separator', 'expected'),
    [c[1:] for c in JOINED_CASES],
    ids=[c[0] for c in JOINED_CASES],
)
def test_joined_lines(text: str, separator: str, expected: str) -> None:
    assert joined_lines(text, separator) == expected


# (case id, message of the exception, expected error_line)
ERROR_CASES = [
    ('one line kept', 'no sensor "x"', 'no sensor "x"'),
    (
        "rclpy's caret line left out",
        "Invalid topic name: must not contain ' ':\n  'a b/range'\n    ^\n",
        "Invalid topic name: must not contain ' ': 'a b/range'",
    ),
    (
        "rcl's source location left out",
        'node name must not be empty, at ./src/rcl/node.c:126',
        'node name must not be empty',
    ),
    ('a C++ location too', 'bad remap rule at /x/remap.cpp:9', 'bad remap rule'),
    ('a control character escaped', 'bad\x1b[31m', 'bad\\x1b[31m'),
]


@pytest.mark.parametrize(
    ('message', 'expected'), [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES]
)
def test_error_line_is_the_users_one_line(message: str, expected: str) -> None:
    assert error_line(RuntimeError(message)) == expected
