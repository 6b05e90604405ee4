"""The shape every bad-input error must have: one line, naming its file, saying the problem."""

from __future__ import annotations


def check_one_line(err: Exception, file: str, problem: str) -> str:
    """The message of ``err``: one line, naming ``file``, containing ``problem``."""
    message = str(err)
    assert '\n' not in message, message
    assert '\r' not in message, message
    assert file in message, message
    assert problem in message, message
    return message
