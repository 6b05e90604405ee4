"""Limits of the robot description: sizes checked before anything is allocated, files read
only when regular and not too large, xacro failures on one line; each bad input is one
located DescriptionError.

The expected messages follow the rules in ``docs/description.md``: at most
``MAX_SCAN_SAMPLES`` (4000000) samples per axis, a resolution in (0, 1000], at most
``MAX_SCAN_RAYS`` (4000000) rays and readings per scan (``round(samples * resolution)`` rays
per axis), ranges and radii at most ``MAX_RANGE`` (10000 m), XML files of at most
``MAX_XML_BYTES``.
"""

from __future__ import annotations

import math
import os
import re
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from blocking_reads import in_thread
from one_line import check_one_line
from urdf_snippets import ray, robot, sonar

from nps_sonar_py import xml_input
from nps_sonar_py.description import (
    MAX_RANGE,
    MAX_SCAN_RAYS,
    MAX_SCAN_RESOLUTION,
    MAX_SCAN_SAMPLES,
    DescriptionError,
    ScanAxis,
    load_robot,
    parse_robot,
)
from nps_sonar_py.description import urdf as urdf_module
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.sensing.scan import MAX_RAYS, AxisSampling, ScanConfig


def gazebo_ray(inner: str) -> str:
    """A Gazebo-form lidar: <sensor> on line 4, <lidar> on line 5, ``inner`` from line 6."""
    return robot(
        f'<gazebo reference="base">\n<sensor name="g" type="gpu_lidar">\n<lidar>\n{inner}'
        '</lidar>\n</sensor>\n</gazebo>'
    )


S = '<sensor name="l"><ray>'
G = '<sensor name="g"><lidar>'
SONAR = '<sensor name="s"><sonar>'

# (case id, URDF text, expected str(error)); the text is read as 'robot.urdf'.
TEXT_CASES = [
    (
        'samples 1e9',
        ray('<horizontal samples="1000000000"/>\n'),
        f'robot.urdf:6: {S}<horizontal>: samples: must be <= 4000000, got 1000000000',
    ),
    (
        'samples one above the limit',
        ray('<horizontal>\n<samples>4000001</samples></horizontal>\n'),
        f'robot.urdf:7: {S}<horizontal><samples>: samples: must be <= 4000000, got 4000001',
    ),
    (
        'samples 0',
        ray('<horizontal samples="0"/>\n'),
        f'robot.urdf:6: {S}<horizontal>: samples: must be >= 1, got 0',
    ),
    (
        'samples negative',
        ray('<vertical samples="-5"/>\n'),
        f'robot.urdf:6: {S}<vertical>: samples: must be >= 1, got -5',
    ),
    (
        'samples nan',
        ray('<horizontal samples="nan"/>\n'),
        f'robot.urdf:6: {S}<horizontal>: samples="nan": \'nan\' is not an integer',
    ),
    (
        'samples in exponent form',
        ray('<horizontal samples="1e9"/>\n'),
        f'robot.urdf:6: {S}<horizontal>: samples="1e9": \'1e9\' is not an integer',
    ),
    (
        'samples of 19 digits',
        ray('<horizontal samples="1000000000000000000"/>\n'),
        f'robot.urdf:6: {S}<horizontal>: samples="1000000000000000000": '
        "'1000000000000000000' is not an integer",
    ),
    (
        'resolution 1e12',
        ray('<horizontal samples="10" resolution="1e12"/>\n'),
        f'robot.urdf:6: {S}<horizontal>: resolution: must be <= 1000, got 1000000000000.0',
    ),
    (
        'resolution 1e308',
        ray('<scan>\n<horizontal>\n<resolution>1e308</resolution></horizontal></scan>\n'),
        f'robot.urdf:8: {S}<scan><horizontal><resolution>: '
        'resolution: must be <= 1000, got 1e+308',
    ),
    (
        'resolution inf',
        ray('<horizontal resolution="1e999"/>\n'),
        f'robot.urdf:6: {S}<horizontal>: resolution="1e999": \'1e999\' is not a finite number',
    ),
    (
        'resolution nan',
        ray('<horizontal resolution="NaN"/>\n'),
        f'robot.urdf:6: {S}<horizontal>: resolution="NaN": \'NaN\' is not a number',
    ),
    (
        'resolution 0',
        ray('<horizontal resolution="0"/>\n'),
        f'robot.urdf:6: {S}<horizontal>: resolution: must be > 0, got 0.0',
    ),
    (
        'resolution negative',
        ray('<horizontal resolution="-2"/>\n'),
        f'robot.urdf:6: {S}<horizontal>: resolution: must be > 0, got -2.0',
    ),
    (
        'rays of one axis',  # 100000 x 100 = 1e7 rays, each number within its own bound
        ray('<vertical samples="100000" resolution="100"/>\n'),
        f'robot.urdf:6: {S}<vertical>: vertical: samples x resolution = 100000 x 100.0 gives '
        '10000000 rays, more than the 4000000 allowed per scan',
    ),
    (
        'rays of both axes',  # 2000 x 2 = 4000 rays each way: 1.6e7 rays
        ray(
            '<horizontal samples="2000" resolution="2"/>\n'
            '<vertical samples="2000" resolution="2"/>\n'
        ),
        f'robot.urdf:5: {S}: rays: 4000 horizontal x 4000 vertical = 16000000 per scan, '
        'more than the 4000000 allowed',
    ),
    (
        'readings of both axes',  # few rays (interpolated), but 3000 x 3000 readings
        ray(
            '<horizontal samples="3000" resolution="0.01"/>\n'
            '<vertical samples="3000" resolution="0.01"/>\n'
        ),
        f'robot.urdf:5: {S}: readings: 3000 horizontal x 3000 vertical = 9000000 per scan, '
        'more than the 4000000 allowed',
    ),
    (
        'gazebo samples 1e9',
        gazebo_ray('<scan><horizontal><samples>1000000000</samples></horizontal></scan>\n'),
        f'robot.urdf:6: {G}<scan><horizontal><samples>: samples: must be <= 4000000, '
        'got 1000000000',
    ),
    (
        'gazebo resolution 1e308',
        gazebo_ray('<scan><vertical><resolution>1e308</resolution></vertical></scan>\n'),
        f'robot.urdf:6: {G}<scan><vertical><resolution>: resolution: must be <= 1000, got 1e+308',
    ),
    (
        'gazebo rays of both axes',
        gazebo_ray(
            '<scan><horizontal><samples>4000</samples></horizontal>'
            '<vertical><samples>1001</samples></vertical></scan>\n'
        ),
        f'robot.urdf:5: {G}: rays: 4000 horizontal x 1001 vertical = 4004000 per scan, '
        'more than the 4000000 allowed',
    ),
    (
        'ray range max 1e308',
        ray('<range max="1e308"/>\n'),
        f'robot.urdf:6: {S}<range>: max: must be <= 10000, got 1e+308',
    ),
    (
        'ray range min 1e308',
        ray('<range>\n<min>1e308</min></range>\n'),
        f'robot.urdf:7: {S}<range><min>: min: must be <= 10000, got 1e+308',
    ),
    (
        'ray range resolution 1e308',
        ray('<range resolution="1e308"/>\n'),
        f'robot.urdf:6: {S}<range>: resolution: must be <= 10000, got 1e+308',
    ),
    (
        'ray range min above max',
        ray('<range min="20" max="5"/>\n'),
        f'robot.urdf:6: {S}<range>: max: must be > min (20.0), got 5.0',
    ),
    (
        'gazebo ray range max 1e308',
        gazebo_ray('<range><max>1e308</max></range>\n'),
        f'robot.urdf:6: {G}<range><max>: max: must be <= 10000, got 1e+308',
    ),
    (
        'sonar max 1e308',
        robot(sonar('<max>1e308</max>')),
        f'robot.urdf:5: {SONAR}<max>: max: must be <= 10000, got 1e+308',
    ),
    (
        'sonar max just above the limit',
        robot(sonar('<max>10000.5</max>')),
        f'robot.urdf:5: {SONAR}<max>: max: must be <= 10000, got 10000.5',
    ),
    (
        'sonar min 1e308',
        robot(sonar('<min>1e308</min><max>2</max>')),
        f'robot.urdf:5: {SONAR}<min>: min: must be <= 10000, got 1e+308',
    ),
    (
        'sonar radius 1e308',
        robot(sonar('<radius>1e308</radius>')),
        f'robot.urdf:5: {SONAR}<radius>: radius: must be <= 10000, got 1e+308',
    ),
    (
        'sonar min above max',
        robot(sonar('<min>3</min><max>2</max>')),
        f'robot.urdf:5: {SONAR}<max>: max: must be > min (3.0), got 2.0',
    ),
    (
        'gazebo sonar max 1e308',
        robot(
            '<gazebo reference="base">\n<sensor name="g" type="sonar">\n'
            '<sonar><max>1e308</max></sonar></sensor></gazebo>'
        ),
        'robot.urdf:5: <sensor name="g"><sonar><max>: max: must be <= 10000, got 1e+308',
    ),
]


@pytest.mark.parametrize(
    ('text', 'expected'), [c[1:] for c in TEXT_CASES], ids=[c[0] for c in TEXT_CASES]
)
def test_bad_value_is_one_located_line(text: str, expected: str) -> None:
    with pytest.raises(DescriptionError) as info:
        parse_robot(text, source='robot.urdf')
    assert check_one_line(info.value, 'robot.urdf', expected.rpartition(': ')[2]) == expected


def test_the_documented_limits() -> None:
    assert len(SMALL.encode()) == 46
    assert MAX_SCAN_RAYS == 4_000_000
    assert MAX_SCAN_SAMPLES == MAX_SCAN_RAYS
    assert MAX_SCAN_RESOLUTION == 1000.0
    assert MAX_RANGE == 1e4
    assert xml_input.MAX_XML_BYTES == 64 * 2**20


def test_values_at_the_limits_load() -> None:
    text = ray(
        '<horizontal samples="4000000" resolution="1"/>\n'
        '<range min="9999" max="10000" resolution="10000"/>\n'
    )
    spec = parse_robot(text).sensor('l').ray
    assert (spec.horizontal.rays, spec.vertical.rays, spec.range.max) == (4_000_000, 1, 1e4)
    assert (
        parse_robot(robot(sonar('<max>10000</max><radius>10000</radius>'))).sensor('s').sonar.max
        == 1e4
    )
    # 2000 x 2000 readings at 1000 rays each way: exactly the limits
    both = ray(
        '<horizontal samples="2000" resolution="0.5"/>\n'
        '<vertical samples="2000" resolution="0.5"/>\n'
    )
    assert parse_robot(both).sensor('l').ray.vertical.rays == 1000


# --- files -----------------------------------------------------------------------------------


CHAIN_LINKS = 5000


def chain(n: int, *, step: float = 0.01) -> str:
    links = ''.join(f'<link name="l{i}"/>\n' for i in range(n))
    joints = ''.join(
        f'<joint name="j{i}" type="fixed"><parent link="l{i - 1}"/><child link="l{i}"/>'
        f'<origin xyz="{step} 0 0"/></joint>\n'
        for i in range(1, n)
    )
    return f'<robot name="chain">\n{links}{joints}</robot>\n'


def fifo(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    os.mkfifo(path)
    return path


SMALL = robot('')  # 46 bytes


def big(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A robot of 46 bytes, over a limit lowered to 40 bytes."""
    path = tmp_path / name
    path.write_text(SMALL)
    monkeypatch.setattr(xml_input, 'MAX_XML_BYTES', 40)
    return path


def xacro_file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


XACRO = '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">\n'

# (case id, make(tmp_path, monkeypatch) -> (path, xacro_args), expected message with {dir})
FILE_CASES: list[
    tuple[str, Callable[[Path, pytest.MonkeyPatch], tuple[Path, dict[str, str]]], str]
] = [
    (
        'fifo',
        lambda d, m: (fifo(d, 'pipe.urdf'), {}),
        '{dir}/pipe.urdf: is not a regular file (FIFO)',
    ),
    (
        'fifo xacro',
        lambda d, m: (fifo(d, 'pipe.urdf.xacro'), {}),
        '{dir}/pipe.urdf.xacro: is not a regular file (FIFO)',
    ),
    (
        'dev zero',
        lambda d, m: (Path('/dev/zero'), {}),
        '/dev/zero: is not a regular file (character device)',
    ),
    (
        'directory',
        lambda d, m: ((d / 'robot.urdf').mkdir() or d / 'robot.urdf', {}),
        '{dir}/robot.urdf: is not a regular file (directory)',
    ),
    (
        'directory xacro',
        lambda d, m: ((d / 'robot.xacro').mkdir() or d / 'robot.xacro', {}),
        '{dir}/robot.xacro: is not a regular file (directory)',
    ),
    (
        'over the size limit',
        lambda d, m: (big(d, 'big.urdf', m), {}),
        '{dir}/big.urdf: is too large: 46 bytes; the limit is 40 bytes',
    ),
    (
        'xacro over the size limit',
        lambda d, m: (big(d, 'big.urdf.xacro', m), {}),
        '{dir}/big.urdf.xacro: is too large: 46 bytes; the limit is 40 bytes',
    ),
    (
        'missing',
        lambda d, m: (d / 'none.urdf', {}),
        '{dir}/none.urdf: cannot read: No such file or directory',
    ),
    (
        'xacro undefined argument',
        lambda d, m: (
            xacro_file(d, 'a.urdf.xacro', XACRO + '<link name="$(arg nope)"/>\n</robot>'),
            {},
        ),
        '{dir}/a.urdf.xacro: xacro failed: Undefined substitution argument nope',
    ),
    (
        'xacro malformed',
        lambda d, m: (xacro_file(d, 'b.urdf.xacro', XACRO + '<link name="a">\n</robot>\n'), {}),
        '{dir}/b.urdf.xacro:3: xacro failed: malformed XML: mismatched tag',
    ),
    (
        'xacro expression on several lines',
        lambda d, m: (
            xacro_file(
                d,
                'c.urdf.xacro',
                XACRO + '<xacro:property name="p" value="${1/0}"/>\n<link name="${p}"/>\n</robot>',
            ),
            {},
        ),
        "{dir}/c.urdf.xacro: xacro failed: division by zero; when evaluating expression '1/0'; "
        "when evaluating expression 'p'",
    ),
    (
        'xacro missing include',
        lambda d, m: (
            xacro_file(
                d, 'd.urdf.xacro', XACRO + '<xacro:include filename="gone.xacro"/>\n</robot>'
            ),
            {},
        ),
        '{dir}/d.urdf.xacro: xacro failed: cannot read {dir}/gone.xacro: '
        'No such file or directory',
    ),
    (
        'xacro macro parameter',
        lambda d, m: (
            xacro_file(
                d,
                'e.urdf.xacro',
                XACRO + '<xacro:macro name="part" params="x"><link name="${x}"/></xacro:macro>\n'
                '<xacro:part/>\n</robot>',
            ),
            {},
        ),
        "{dir}/e.urdf.xacro: xacro failed: Undefined parameters [x] (in macro 'part')",
    ),
    (
        'xacro error in an included file',
        lambda d, m: (
            xacro_file(d, 'inc.xacro', XACRO + '\n<link name="a">\n</robot>\n')
            and xacro_file(
                d, 'f.urdf.xacro', XACRO + '<xacro:include filename="inc.xacro"/>\n</robot>'
            ),
            {},
        ),
        '{dir}/inc.xacro:4: xacro failed: malformed XML: mismatched tag '
        '(included from {dir}/f.urdf.xacro)',
    ),
    (
        'xacro output',  # the error is in xacro's output, whose lines are not the file's
        lambda d, m: (
            xacro_file(
                d,
                'g.urdf.xacro',
                XACRO + '<xacro:arg name="m" default="1"/>\n<link name="a"/>\n'
                '<sensor name="s" type="sonar"><parent link="a"/>'
                '<sonar max="$(arg m)"/></sensor>\n'
                '</robot>',
            ),
            {'m': '1e308'},
        ),
        # then a line of the output, the element and the problem
        '{dir}/g.urdf.xacro (xacro output):',
    ),
]


@pytest.mark.parametrize(
    ('make', 'expected'), [c[1:] for c in FILE_CASES], ids=[c[0] for c in FILE_CASES]
)
def test_bad_file_is_one_line_at_once(
    make: Callable[[Path, pytest.MonkeyPatch], tuple[Path, dict[str, str]]],
    expected: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path, args = make(tmp_path, monkeypatch)
    expected = expected.format(dir=tmp_path)
    with pytest.raises(DescriptionError) as info:
        in_thread(
            lambda: load_robot(path, xacro_args=args or None),
            fifos=[path] if path.is_fifo() else [],
        )
    message = check_one_line(info.value, str(path), expected.partition(': ')[2])
    if expected.endswith(':'):  # located in xacro's output: marked, with a line
        assert message.startswith(expected), message
        assert info.value.file == f'{path} (xacro output)'
        assert info.value.line is not None
        assert message.endswith('<sensor name="s"><sonar>: max: must be <= 10000, got 1e+308')
    else:
        assert message == expected


def test_every_error_located_in_xacro_output_says_so(tmp_path: Path) -> None:
    """Errors at a line of xacro's output name the file ``FILE (xacro output)``."""
    path = xacro_file(
        tmp_path,
        'h.urdf.xacro',
        XACRO + '<link name="a">\n<collision><geometry><mesh filename="gone.stl"/></geometry>'
        '</collision></link>\n<link name="b"/>\n'
        '<joint name="float" type="floating"><parent link="a"/><child link="b"/></joint>\n'
        '<sensor name="s" type="sonar"><parent link="b"/></sensor>\n</robot>',
    )
    r = load_robot(path)
    marked = f'{path} (xacro output)'
    assert r.source == str(path)  # the robot is its file; located parts are in the output
    assert {r.links['a'].source, r.joints['float'].source, r.sensors[0].source} == {marked}
    assert r.links['a'].collisions[0].source == marked
    with pytest.raises(DescriptionError) as info:
        r.sensor_transform('s')
    assert str(info.value).startswith(f'{marked}:{r.joints["float"].line}: <joint name="float">: ')


# --- a long chain ---------------------------------------------------------------------------


def test_a_chain_of_5000_links_loads_and_places_its_deepest_link() -> None:
    r = parse_robot(chain(CHAIN_LINKS))
    assert r.root_link == 'l0'
    deepest = f'l{CHAIN_LINKS - 1}'
    assert len(r.chain(deepest)) == CHAIN_LINKS - 1
    expected = np.eye(4)
    expected[0, 3] = 0.01 * (CHAIN_LINKS - 1)  # 4999 steps of 1 cm along x
    np.testing.assert_allclose(r.link_transform(deepest), expected, atol=1e-9)


class CountingJoint:
    """A joint whose ``parent`` reads are counted (the tree check's step up the tree)."""

    reads = 0

    def __init__(self, joint: Any) -> None:
        self._joint = joint

    def __getattr__(self, name: str) -> Any:
        if name == 'parent':
            CountingJoint.reads += 1
        return getattr(self._joint, name)


def test_the_tree_check_steps_up_each_joint_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked = urdf_module._check_tree
    counts: list[int] = []

    def counting(robot_el: Any, link_els: Any, joint_els: Any, joints: Any) -> str:
        CountingJoint.reads = 0
        root = checked(
            robot_el, link_els, joint_els, {k: CountingJoint(j) for k, j in joints.items()}
        )
        counts.append(CountingJoint.reads)
        return root

    monkeypatch.setattr(urdf_module, '_check_tree', counting)
    parse_robot(chain(CHAIN_LINKS))
    # Linear: each joint is stepped over once (a quadratic check steps ~n^2 / 2 = 12.5e6 times).
    assert counts == [CHAIN_LINKS - 1]


def test_a_loop_at_the_end_of_a_long_chain() -> None:
    n = 3000
    text = chain(n).replace(
        '</robot>',
        f'<joint name="back" type="fixed"><parent link="l{n - 1}"/><child link="l0"/>'
        '</joint>\n</robot>',
    )
    with pytest.raises(DescriptionError) as info:
        parse_robot(text, source='loop.urdf')
    message = check_one_line(info.value, 'loop.urdf', 'kinematic loop: l0 -> ')
    assert message.endswith('l1 -> l0')
    assert f'-> l{n - 1} -> ' in message


def test_two_roots_in_a_long_chain() -> None:
    n = 3000
    text = (
        chain(n)
        .replace(
            f'<parent link="l{n // 2 - 1}"/><child link="l{n // 2}"/>',
            '<parent link="l0"/><child link="extra"/>',
        )
        .replace('<link name="l0"/>', '<link name="l0"/><link name="extra"/>')
    )
    with pytest.raises(DescriptionError) as info:
        parse_robot(text, source='roots.urdf')
    check_one_line(
        info.value, 'roots.urdf', f'2 root links (l0, l{n // 2}); a robot is a tree with one root'
    )


def test_a_long_mimic_chain_resolves_without_recursion() -> None:
    """Joint i mimics joint i - 1 plus 1 mm: prismatic joint i is at 0.001 (i - 1) m."""
    n = 3000
    links = ''.join(f'<link name="l{i}"/>' for i in range(n))
    joints = ''.join(
        f'<joint name="j{i}" type="prismatic"><parent link="l{i - 1}"/><child link="l{i}"/>'
        '<origin xyz="0.01 0 0"/><limit lower="-100" upper="100"/>'
        + ('' if i == 1 else f'<mimic joint="j{i - 1}" offset="0.001"/>')
        + '</joint>'
        for i in range(1, n)
    )
    r = parse_robot(f'<robot name="m">{links}{joints}</robot>')
    x = r.link_transform(f'l{n - 1}')[0, 3]
    steps = n - 1
    assert x == pytest.approx(0.01 * steps + 0.001 * (steps - 1) * steps / 2, rel=1e-12)


# --- the scanner checks the same sizes for axes built in code ---------------------------------


def unchecked_axis(**values: Any) -> ScanAxis:
    """A ScanAxis holding ``values`` without its own checks, as a careless caller could make."""
    axis = ScanAxis()
    for name, value in values.items():
        object.__setattr__(axis, name, value)
    return axis


SCANNER_CASES = [
    ('samples 1e9', {'samples': 10**9}, 'samples must be an integer in [1, 4000000]'),
    ('samples 0', {'samples': 0}, 'samples must be an integer in [1, 4000000], got 0'),
    ('samples not an integer', {'samples': 2.5}, 'samples must be an integer'),
    ('resolution 1e12', {'samples': 10, 'resolution': 1e12}, 'is more than the 4000000 rays'),
    ('resolution 1e308', {'samples': 10, 'resolution': 1e308}, 'is more than the 4000000 rays'),
    ('resolution nan', {'resolution': math.nan}, 'resolution must be a finite number > 0'),
    ('resolution 0', {'resolution': 0.0}, 'resolution must be a finite number > 0, got 0.0'),
]


@pytest.mark.parametrize(
    ('values', 'problem'), [c[1:] for c in SCANNER_CASES], ids=[c[0] for c in SCANNER_CASES]
)
def test_the_scanner_refuses_sizes_before_allocating(values: dict[str, Any], problem: str) -> None:
    axis = unchecked_axis(**values)
    tracemalloc.start()
    try:
        with pytest.raises(ConfigurationError, match=re.escape(problem)):
            AxisSampling(axis)
        with pytest.raises(ConfigurationError, match=re.escape(problem)):
            ScanConfig(horizontal=axis)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20  # nothing of the size asked for was allocated


def test_the_scanner_refuses_too_many_rays_or_readings_in_all() -> None:
    wide = ScanAxis(samples=2001)
    interpolated = ScanAxis(samples=3000, resolution=0.01)
    with pytest.raises(ConfigurationError, match=r'^4004001 rays per scan is more than'):
        ScanConfig(horizontal=wide, vertical=wide)
    with pytest.raises(ConfigurationError, match=r'^9000000 readings per scan is more than'):
        ScanConfig(horizontal=interpolated, vertical=interpolated)
    assert MAX_RAYS == MAX_SCAN_RAYS


def test_link_transforms_place_every_link_as_link_transform_does() -> None:
    text = robot(
        '<link name="a"/><link name="b"/><link name="c"/>'
        '<joint name="ja" type="revolute"><parent link="base"/><child link="a"/>'
        '<origin xyz="1 0 0"/><axis xyz="0 0 1"/><limit lower="-3" upper="3"/></joint>'
        '<joint name="jb" type="prismatic"><parent link="a"/><child link="b"/>'
        '<origin xyz="0 1 0"/><limit lower="-3" upper="3"/><mimic joint="ja" multiplier="2"/>'
        '</joint>'
        '<joint name="jc" type="fixed"><parent link="base"/><child link="c"/>'
        '<origin xyz="0 0 1"/></joint>'
    )
    r = parse_robot(text)
    poses = dict(r.link_transforms({'ja': 0.5}))
    assert list(poses) == ['base', 'a', 'b', 'c']
    for link, pose in poses.items():
        np.testing.assert_array_equal(pose, r.link_transform(link, {'ja': 0.5}))
    # b: 1 m along x, turned 0.5 rad about z, then 1 m along the turned y, then 2 * 0.5 m along
    # the turned x (the prismatic axis defaults to x)
    c, s = math.cos(0.5), math.sin(0.5)
    np.testing.assert_allclose(poses['b'][:3, 3], [1 - s + c, c + s, 0.0], atol=1e-12)
