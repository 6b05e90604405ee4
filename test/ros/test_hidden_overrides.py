"""A ``-p`` of the wrong type over a ``--params-file`` is refused as it is without the file.

rcl keeps a value per type for each name and rclpy takes the first typed slot, so a wrong-
typed ``-p`` used to vanish behind the file's value (``ros/overrides.py``). Each case runs
the real executable twice, with and without the file: both must exit with the same line.
The typing of ``-p`` values is checked against rcl itself, through a real node's overrides.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import pytest
from ros_helpers import NODE_START_TIMEOUT, Probe, executable, exit_lines, running

from nps_sonar_py.ros.overrides import command_line_parameters, rcl_value

pytestmark = pytest.mark.ros

CONFIG = Path(__file__).resolve().parents[2] / 'config'

CASES = {
    # id: (executable, parameter file, -p rule, the value rcl makes of it and its type, the
    # declared type)
    'rays-along-double': (
        'scanning_sonar_node',
        'sidescan_sonar.yaml',
        'sidescan_rays_along:=1.5',
        '1.5',
        'DOUBLE',
        'INTEGER',
    ),
    'ground-range-string': (
        'scanning_sonar_node',
        'sidescan_sonar.yaml',
        'ground_range:=maybe',
        'maybe',
        'STRING',
        'BOOL',
    ),
    'line-spacing-subnormal': (
        'scanning_sonar_node',
        'sidescan_sonar.yaml',
        'waterfall_line_spacing:=5e-324',  # strtod: ERANGE, so rcl keeps it as text
        '5e-324',
        'STRING',
        'DOUBLE',
    ),
    'publish-labels-string': (
        'scanning_sonar_node',
        'scanning_sonar.yaml',
        "publish_labels:='yes'",  # quoted: a string
        'yes',
        'STRING',
        'BOOL',
    ),
    'rays-bool': ('sonar_node', 'sonar.yaml', 'rays:=yes', 'True', 'BOOL', 'INTEGER'),
}


@pytest.mark.parametrize(
    ('name', 'file', 'rule', 'shown', 'given', 'declared'), CASES.values(), ids=CASES.keys()
)
def test_a_wrong_type_is_refused_with_the_file_as_without_it(
    name: str, file: str, rule: str, shown: str, given: str, declared: str
) -> None:
    with_file = [executable(name), '--ros-args', '--params-file', str(CONFIG / file), '-p', rule]
    file_after = [executable(name), '--ros-args', '-p', rule, '--params-file', str(CONFIG / file)]
    alone, first, after = exit_lines(
        [[executable(name), '--ros-args', '-p', rule], with_file, file_after]
    )
    parameter = rule.partition(':=')[0]
    assert alone.startswith(
        f"nps_sonar: Trying to set parameter '{parameter}' to '{shown}' of type '{given}', "
        f"expecting type '{declared}'"
    ), alone
    assert first == alone
    assert after == alone  # the order of the two does not matter to rcl either


def _parameter(
    probe: Probe, node_name: str, name: str, timeout: float = NODE_START_TIMEOUT
) -> Any:
    from rclpy.parameter_client import AsyncParameterClient

    client = AsyncParameterClient(probe.node, node_name)
    assert client.wait_for_services(timeout_sec=timeout), f'no parameter services on {node_name}'
    future = client.get_parameters([name])
    end = time.monotonic() + timeout
    while not future.done() and time.monotonic() < end:
        time.sleep(0.01)
    assert future.done(), f'get_parameters on {node_name} got no answer in {timeout} s'
    return future.result().values[0].integer_value


def test_a_right_type_over_the_file_runs() -> None:
    """The negative control: a -p of the declared type is taken over the file's value."""
    probe = Probe()
    try:
        extra = ['--params-file', str(CONFIG / 'sonar.yaml')]
        with running('sonar_node', {'rays': 7}, extra=extra) as node:
            assert _parameter(probe, '/sonar', 'rays') == 7
            assert node.poll() is None
    finally:
        probe.close()


def test_only_the_ros_arguments_for_this_node_count() -> None:
    args = [
        'prog',
        '-p',
        'a:=1',  # not a ROS argument
        '--ros-args',
        '-r',
        '-p:=x',  # a remap's argument, not an option
        '--params-file',
        'f.yaml',
        '-p',
        'b:=2',
        '--param',
        'other:c:=3',
        '-p',
        'sonar:d:=4',
        '-p',
        'b:=5',
        '--',
        '-p',
        'e:=6',
        '--ros-args',
        '-p',
        'f:=[1, 2]',
    ]
    assert command_line_parameters(args, 'sonar') == {'b': '5', 'd': '4', 'f': '[1, 2]'}


#: -p texts and what rcl makes of them; the expected types come from rcl's rules
#: (rcl_yaml_param_parser get_value: YAML bool words, then strtol base 0, then strtod).
TEXTS = {
    '7': int,
    '-7': int,
    '+5': int,
    '0x10': int,
    '010': int,  # octal: 8
    '9223372036854775808': float,  # past int64: strtol's ERANGE, then a double
    '1.5': float,
    '5.': float,
    '1e-300': float,
    '5e-324': str,  # subnormal: strtod's ERANGE
    '1e400': str,  # overflow: ERANGE
    '0x1p3': float,  # a C hexadecimal float
    'inf': float,
    '.inf': float,
    '-.Inf': float,
    '.nan': float,
    'nan': float,
    'yes': bool,
    'Off': bool,
    'maybe': str,
    '1_000': str,
    "'3'": str,
    '"true"': str,
    '[1, 2]': list,
    '[0.5, 1.5]': list,
    '[a, b]': list,
    '[true, no]': list,
}


def test_values_are_typed_as_rcl_types_them() -> None:
    """Each text through a real rcl context and node, beside :func:`rcl_value` of it."""
    import rclpy
    from rclpy.node import Node

    texts = list(TEXTS)
    args = ['--ros-args']
    for index, text in enumerate(texts):
        args += ['-p', f'p{index}:={text}']
    context = rclpy.context.Context()
    rclpy.init(args=args, context=context)
    try:
        node = Node(
            'typing', context=context, automatically_declare_parameters_from_overrides=True
        )
        try:
            for index, text in enumerate(texts):
                by_rcl = node.get_parameter(f'p{index}').value
                if TEXTS[text] is list:
                    by_rcl = list(by_rcl)  # rclpy may hand an array.array
                ours = rcl_value(text)
                assert type(ours) is TEXTS[text], text
                if isinstance(by_rcl, float) and math.isnan(by_rcl):
                    assert math.isnan(ours), text
                else:
                    assert type(ours) is type(by_rcl), (text, by_rcl, ours)
                    assert ours == by_rcl, (text, by_rcl, ours)
        finally:
            node.destroy_node()
    finally:
        rclpy.shutdown(context=context)
    assert rcl_value('010') == 8  # the octal reading, as C's strtol has it
    assert rcl_value('[1, 2.5]') is None  # rcl refuses a mixed list: nothing to compare
