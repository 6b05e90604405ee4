"""Command-line ``-p`` values that a ``--params-file`` would hide: refused, as without the file.

rcl merges a node's parameter files and its ``-p name:=value`` rules into one variant per
name with a slot per type (``rcl_yaml_param_parser``: a later value overwrites only the slot
of its own type), and rclpy reads the first slot set, in the order bool, integer, double,
string, arrays. So ``-p sidescan_rays_along:=1.5`` over a file holding ``3`` leaves both, and
the file's integer runs without a word, where the same ``-p`` alone is refused. Here each
``-p`` of the command line is typed as rcl types it (YAML style, then ``strtol`` and
``strtod`` of the C library, as ``get_value`` in rcl's ``parse.c`` does) and refused with
rclpy's own exception when its type is not the declared one.

The command line is ``sys.argv``, which ``rclpy.init`` reads when given no arguments, as
every executable of the package does. Values given to a node's constructor
(``parameter_overrides``) are not ``-p`` rules and are not read here.
"""

from __future__ import annotations

import ctypes
import math
import sys
from collections.abc import Sequence
from typing import Any

import yaml
from rclpy.exceptions import InvalidParameterTypeException
from rclpy.node import Node
from rclpy.parameter import Parameter

__all__ = [
    'command_line_parameters',
    'rcl_value',
    'refuse_hidden_override',
]

#: ``--ros-args`` options followed by one argument (besides ``-p``/``--param``).
_WITH_ARGUMENT = frozenset(
    {
        '-r',
        '--remap',
        '--params-file',
        '-e',
        '--enclave',
        '--log-level',
        '--log-config-file',
        '--log-file-name',
    }
)
_TRUE = frozenset(['Y', 'y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'])
_FALSE = frozenset(['N', 'n', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'])
_INFINITE = {f'{sign}.{word}' for sign in ('', '+', '-') for word in ('inf', 'Inf', 'INF')}
_NAN = {'.nan', '.NaN', '.NAN'}


def command_line_parameters(args: Sequence[str], node_name: str) -> dict[str, str]:
    """The ``-p [node:]name:=value`` rules of ``args`` that apply to ``node_name``: name -> text.

    Only the ``--ros-args`` sections count (each up to ``--``); a rule with a node prefix
    applies to that node only; the last rule of a name wins, as in rcl.
    """
    found: dict[str, str] = {}
    inside, index = False, 0
    while index < len(args):
        word = args[index]
        index += 1
        if word == '--ros-args':
            inside = True
        elif word == '--':
            inside = False
        elif inside and word in ('-p', '--param') and index < len(args):
            rule = args[index]
            index += 1
            target, separator, text = rule.partition(':=')
            node, colon, name = target.rpartition(':')
            if separator and (not colon or node == node_name):
                found[name] = text
        elif inside and word in _WITH_ARGUMENT:
            index += 1
    return found


def _c_number(text: str, parse: Any) -> Any:
    """``parse`` (``strtol`` base 0 or ``strtod``) of ``text`` if it takes all of it, no ERANGE."""
    data = text.encode()
    if not data or b'\0' in data:
        return None
    buffer = ctypes.create_string_buffer(data)
    end = ctypes.c_char_p()
    ctypes.set_errno(0)
    value = parse(buffer, ctypes.byref(end))
    consumed = ctypes.cast(end, ctypes.c_void_p).value or 0
    whole = consumed - ctypes.addressof(buffer) == len(data)
    return value if whole and ctypes.get_errno() == 0 else None


def _libc() -> tuple[Any, Any]:
    """The C library's ``strtol`` (base 0) and ``strtod``, which rcl types numbers with."""
    libc = ctypes.CDLL(None, use_errno=True)
    strtol, strtod = libc.strtol, libc.strtod
    strtol.restype = ctypes.c_long
    strtol.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int]
    strtod.restype = ctypes.c_double
    strtod.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    return (lambda text, end: strtol(text, end, 0)), strtod


_STRTOL, _STRTOD = _libc()


def _scalar(text: str, quoted: bool) -> bool | int | float | str:
    """A YAML scalar's value as rcl types it (``get_value`` in ``rcl_yaml_param_parser``)."""
    if quoted:
        return text
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    integer = _c_number(text, _STRTOL)
    if integer is not None:
        return int(integer)
    if text in _INFINITE:
        return -math.inf if text.startswith('-') else math.inf
    if text in _NAN:
        return math.nan
    number = _c_number(text, _STRTOD)
    return text if number is None else float(number)


def rcl_value(text: str) -> Any:
    """The value rcl makes of ``-p name:=text``; None where rcl would refuse it or be unclear.

    A scalar (bool, int, float or str) or a list of one type (a flow sequence, ``[1, 2]``).
    """
    try:
        events = list(yaml.parse(text, Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader)))
    except yaml.YAMLError:
        return None
    kinds = [type(e).__name__ for e in events[2:-2]]  # inside stream and document
    values = [
        _scalar(e.value, e.style in ("'", '"')) for e in events if isinstance(e, yaml.ScalarEvent)
    ]
    if kinds == ['ScalarEvent']:
        return values[0]
    sequence = ['SequenceStartEvent', *['ScalarEvent'] * len(values), 'SequenceEndEvent']
    if kinds == sequence and values and len({type(v) for v in values}) == 1:
        return values  # a list of one type (rcl refuses a mixed one)
    return None


def refuse_hidden_override(node: Node, name: str) -> None:
    """Refuse a ``-p`` of the declared parameter ``name`` whose type is not the declared one.

    Raises:
        InvalidParameterTypeException: rclpy's own, as for the same ``-p`` without a file.

    """
    text = command_line_parameters(sys.argv, node.get_name()).get(name)
    value = None if text is None else rcl_value(text)
    if value is None:
        return
    declared = Parameter.Type(node.describe_parameter(name).type)
    parameter = Parameter(name, value=value)
    if parameter.type_ != declared:
        expected: Any = declared.name  # as rclpy passes it (Jazzy's hint says Parameter.Type)
        raise InvalidParameterTypeException(parameter, expected)
