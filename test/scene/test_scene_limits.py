"""Limits of scene input: bounded poses, twists and time stamps, and files read only when they
are regular and not too large; each bad input is one located line.

The expected messages follow the rules in ``docs/scene.md``: each component of ``xyz`` within
1e6 m, of ``rpy`` within 1e3 rad, of a twist's ``linear`` within 1e4 m/s and ``angular`` within
1e3 rad/s, a ``time_stamp`` within 1e10 s; scene and model files at most ``MAX_XML_BYTES``,
mesh files at most ``MAX_MESH_BYTES``; a FIFO, a device or a directory is refused at once.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
import trimesh
from blocking_reads import in_thread
from one_line import check_one_line

from nps_sonar_py import xml_input
from nps_sonar_py.errors import DescriptionError, InputError, SceneError
from nps_sonar_py.scene import load_scene_state, load_world, parse_scene_state, parse_world
from nps_sonar_py.scene import meshes as meshes_module
from nps_sonar_py.scene.scene_state import (
    MAX_ANGLE,
    MAX_ANGULAR,
    MAX_LINEAR,
    MAX_POSITION,
    MAX_TIME_STAMP,
)


def scene(entity_body: str, *, stamp: str = '0') -> str:
    """A world whose <scene_state> is on line 3 and whose entity's ``entity_body`` is on 5."""
    return (
        '<world name="w">\n'
        '<model name="a"><robot name="a"><link name="l"/></robot></model>\n'
        f'<scene_state scene="w" time_stamp="{stamp}">\n'
        '<entity_state model="a"><parent frame="world"/>\n'
        f'{entity_body}\n'
        '</entity_state>\n</scene_state>\n</world>\n'
    )


# (case id, scene text, expected str(error)); the text is read as 'scene.world'.
TEXT_CASES = [
    (
        'linear 1e308',
        scene('<twist linear="1e308 0 0"/>'),
        "scene.world:5: <twist>: linear='1e308 0 0' must have each number in [-10000, 10000] m/s",
    ),
    (
        'linear -1e308',
        scene('<twist linear="0 -1e308 0"/>'),
        "scene.world:5: <twist>: linear='0 -1e308 0' must have each number in [-10000, 10000] m/s",
    ),
    (
        'linear just above the limit',
        scene('<twist linear="0 0 10000.001"/>'),
        "scene.world:5: <twist>: linear='0 0 10000.001' must have each number in "
        '[-10000, 10000] m/s',
    ),
    (
        'linear nan',
        scene('<twist linear="nan 0 0"/>'),
        "scene.world:5: <twist>: linear='nan 0 0' must be finite (no nan or inf)",
    ),
    (
        'linear overflowing',
        scene('<twist linear="1e999 0 0"/>'),
        "scene.world:5: <twist>: linear='1e999 0 0' must be finite (no nan or inf)",
    ),
    (
        'angular 1e308',
        scene('<twist angular="0 0 1e308"/>'),
        "scene.world:5: <twist>: angular='0 0 1e308' must have each number in [-1000, 1000] rad/s",
    ),
    (
        'angular just above the limit',
        scene('<twist angular="-1000.5 0 0"/>'),
        "scene.world:5: <twist>: angular='-1000.5 0 0' must have each number in "
        '[-1000, 1000] rad/s',
    ),
    (
        'angular inf',
        scene('<twist angular="0 inf 0"/>'),
        "scene.world:5: <twist>: angular='0 inf 0' must be finite (no nan or inf)",
    ),
    (
        'xyz 1e308',
        scene('<origin xyz="1e308 0 0"/>'),
        "scene.world:5: <origin>: xyz='1e308 0 0' must have each number in [-1000000, 1000000] m",
    ),
    (
        'xyz just above the limit',
        scene('<origin xyz="0 0 -1000000.5"/>'),
        "scene.world:5: <origin>: xyz='0 0 -1000000.5' must have each number in "
        '[-1000000, 1000000] m',
    ),
    (
        'xyz nan',
        scene('<origin xyz="0 nan 0"/>'),
        "scene.world:5: <origin>: xyz='0 nan 0' must be finite (no nan or inf)",
    ),
    (
        'rpy 1e308',
        scene('<origin rpy="0 0 1e308"/>'),
        "scene.world:5: <origin>: rpy='0 0 1e308' must have each number in [-1000, 1000] rad",
    ),
    (
        'rpy nan',
        scene('<origin rpy="NaN 0 0"/>'),
        "scene.world:5: <origin>: rpy='NaN 0 0' must be finite (no nan or inf)",
    ),
    (
        'time_stamp 1e308',
        scene('', stamp='1e308'),
        'scene.world:3: <scene_state scene="w">: time_stamp=\'1e308\' must be '
        'in [-10000000000, 10000000000] s',
    ),
    (
        'time_stamp -2e10',
        scene('', stamp='-2e10'),
        'scene.world:3: <scene_state scene="w">: time_stamp=\'-2e10\' must be '
        'in [-10000000000, 10000000000] s',
    ),
    (
        'time_stamp inf',
        scene('', stamp='inf'),
        'scene.world:3: <scene_state scene="w">: time_stamp=\'inf\' is not a finite number '
        'of seconds',
    ),
]


@pytest.mark.parametrize(
    ('text', 'expected'), [c[1:] for c in TEXT_CASES], ids=[c[0] for c in TEXT_CASES]
)
def test_bad_state_is_one_located_line(text: str, expected: str) -> None:
    with pytest.raises(SceneError) as info:
        parse_world(text, source='scene.world')
    assert check_one_line(info.value, 'scene.world', expected.split(': ', 2)[2]) == expected


def test_a_scene_state_alone_is_bounded_too() -> None:
    text = (
        '<scene_state scene="w" time_stamp="0">\n<entity_state model="a">'
        '<parent frame="world"/><twist linear="1e308 0 0"/></entity_state>\n</scene_state>'
    )
    with pytest.raises(SceneError) as info:
        parse_scene_state(text, source='state.xml')
    assert str(info.value) == (
        "state.xml:2: <twist>: linear='1e308 0 0' must have each number in [-10000, 10000] m/s"
    )


def test_the_documented_limits() -> None:
    assert (len(SMALL_WORLD), len(PADDED_ROBOT)) == (18, 200)
    assert (MAX_POSITION, MAX_ANGLE, MAX_LINEAR, MAX_ANGULAR) == (1e6, 1e3, 1e4, 1e3)
    assert MAX_TIME_STAMP == 1e10
    assert xml_input.MAX_XML_BYTES == 64 * 2**20
    assert meshes_module.MAX_MESH_BYTES == 256 * 2**20


def test_values_at_the_limits_load() -> None:
    text = scene(
        '<origin xyz="1000000 -1000000 0" rpy="1000 -1000 0"/>'
        '<twist linear="10000 0 -10000" angular="0 1000 -1000"/>',
        stamp='10000000000',
    )
    w = parse_world(text, source='scene.world')
    assert w.states[0].linear.tolist() == [1e4, 0.0, -1e4]
    assert w.time_stamp == 1e10


# --- files ---------------------------------------------------------------------------------


def model_world(d: Path, model_file: str) -> Path:
    """``d/scene.world`` whose model (line 2) is the file ``model_file``."""
    path = d / 'scene.world'
    path.write_text(f'<world name="w">\n<model name="a" file="{model_file}"/>\n</world>\n')
    return path


def mesh_world(d: Path, mesh: str) -> Path:
    """``d/scene.world`` whose inline model has a mesh ``mesh`` on line 4."""
    path = d / 'scene.world'
    path.write_text(
        '<world name="w">\n<model name="a"><robot name="a">\n<link name="l">\n'
        f'<collision><geometry><mesh filename="{mesh}"/></geometry></collision>\n'
        '</link></robot></model>\n</world>\n'
    )
    return path


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


SMALL_WORLD = '<world name="w"/>\n'  # 18 bytes


def small(
    path: Path, monkeypatch: pytest.MonkeyPatch, text: str = SMALL_WORLD, *, limit: int = 10
) -> Path:
    """``text`` in ``path``, with the XML limit lowered to ``limit`` bytes."""
    path.write_text(text)
    monkeypatch.setattr(xml_input, 'MAX_XML_BYTES', limit)
    return path


#: A robot padded to 200 bytes: over a limit of 100, which its scene file (60 bytes) is not.
PADDED_ROBOT = '<robot name="r"><link name="l"/></robot>' + ' ' * 160


def stl(path: Path) -> Path:
    trimesh.creation.box((1.0, 1.0, 1.0)).export(path)  # binary STL: 84 + 12 * 50 bytes
    return path


Make = Callable[[Path, pytest.MonkeyPatch], Callable[[], object]]

# (case id, make(dir, monkeypatch) -> the reading, error type, file named, expected message)
FILE_CASES: list[tuple[str, Make, type[InputError], str, str]] = [
    (
        'world fifo',
        lambda d, m: lambda: load_world(fifo(d / 'pipe.world')),
        SceneError,
        '{dir}/pipe.world',
        '{dir}/pipe.world: is not a regular file (FIFO)',
    ),
    (
        'world dev zero',
        lambda d, m: lambda: load_world('/dev/zero'),
        SceneError,
        '/dev/zero',
        '/dev/zero: is not a regular file (character device)',
    ),
    (
        'world directory',
        lambda d, m: lambda: load_world(d),
        SceneError,
        '{dir}',
        '{dir}: is not a regular file (directory)',
    ),
    (
        'world over the size limit',
        lambda d, m: lambda: load_world(small(d / 'big.world', m)),
        SceneError,
        '{dir}/big.world',
        '{dir}/big.world: is too large: 18 bytes; the limit is 10 bytes',
    ),
    (
        'world missing',
        lambda d, m: lambda: load_world(d / 'none.world'),
        SceneError,
        '{dir}/none.world',
        '{dir}/none.world: cannot read: No such file or directory',
    ),
    (
        'scene state fifo',
        lambda d, m: lambda: load_scene_state(fifo(d / 'state.xml')),
        SceneError,
        '{dir}/state.xml',
        '{dir}/state.xml: is not a regular file (FIFO)',
    ),
    (
        'scene state over the size limit',
        lambda d, m: (
            lambda: load_scene_state(
                small(d / 'state.xml', m, '<scene_state scene="w" time_stamp="0"/>')
            )
        ),
        SceneError,
        '{dir}/state.xml',
        '{dir}/state.xml: is too large: 39 bytes; the limit is 10 bytes',
    ),
    (
        'model file fifo',
        lambda d, m: lambda: load_world(model_world(d, fifo(d / 'pipe.urdf').name)),
        SceneError,
        '{dir}/scene.world',
        '{dir}/scene.world:2: <model name="a">: model file {dir}/pipe.urdf is not a regular '
        'file (FIFO)',
    ),
    (
        'model file dev zero',
        lambda d, m: lambda: load_world(model_world(d, '/dev/zero')),
        SceneError,
        '{dir}/scene.world',
        '{dir}/scene.world:2: <model name="a">: model file /dev/zero is not a regular file '
        '(character device)',
    ),
    (
        'model file directory',
        lambda d, m: lambda: load_world(model_world(d, '.')),
        SceneError,
        '{dir}/scene.world',
        '{dir}/scene.world:2: <model name="a">: model file {dir} is not a regular file '
        '(directory)',
    ),
    (
        'model file over the size limit',
        lambda d, m: (
            lambda: load_world(
                model_world(d, small(d / 'big.urdf', m, PADDED_ROBOT, limit=100).name)
            )
        ),
        SceneError,
        '{dir}/scene.world',
        '{dir}/scene.world:2: <model name="a">: model file {dir}/big.urdf is too large: '
        '200 bytes; the limit is 100 bytes',
    ),
    (
        'mesh fifo',
        lambda d, m: lambda: load_world(mesh_world(d, fifo(d / 'pipe.stl').name)),
        SceneError,
        '{dir}/scene.world',
        '{dir}/scene.world:4: <mesh filename="pipe.stl">: mesh file {dir}/pipe.stl is not a '
        'regular file (FIFO)',
    ),
    (
        'mesh dev zero',
        lambda d, m: (
            lambda: load_world(
                mesh_world(d, (d / 'zero.stl').symlink_to('/dev/zero') or 'zero.stl')
            )
        ),
        SceneError,
        '{dir}/scene.world',
        '{dir}/scene.world:4: <mesh filename="zero.stl">: mesh file {dir}/zero.stl is not a '
        'regular file (character device)',
    ),
    (
        'mesh directory',
        lambda d, m: lambda: load_world(mesh_world(d, (d / 'dir.stl').mkdir() or 'dir.stl')),
        SceneError,
        '{dir}/scene.world',
        '{dir}/scene.world:4: <mesh filename="dir.stl">: mesh file {dir}/dir.stl is not a '
        'regular file (directory)',
    ),
    (
        'mesh over the size limit',
        lambda d, m: (
            m.setattr(meshes_module, 'MAX_MESH_BYTES', 100),
            lambda: load_world(mesh_world(d, stl(d / 'box.stl').name)),
        )[1],
        SceneError,
        '{dir}/scene.world',
        '{dir}/scene.world:4: <mesh filename="box.stl">: mesh file {dir}/box.stl is too large: '
        '684 bytes; the limit is 100 bytes',
    ),
    (
        'inline robot with a sonar beyond 10 km',
        lambda d, m: (
            lambda: load_world(
                (d / 'scene.world').write_text(
                    '<world name="w">\n<model name="a"><robot name="a">\n<link name="l"/>\n'
                    '<sensor name="s" type="sonar"><parent link="l"/><sonar max="1e308"/>'
                    '</sensor>\n'
                    '</robot></model>\n</world>\n'
                )
                and d / 'scene.world'
            )
        ),
        DescriptionError,
        '{dir}/scene.world',
        '{dir}/scene.world:4: <sensor name="s"><sonar>: max: must be <= 10000, got 1e+308',
    ),
]


@pytest.mark.parametrize(
    ('make', 'error', 'file', 'expected'),
    [c[1:] for c in FILE_CASES],
    ids=[c[0] for c in FILE_CASES],
)
def test_bad_file_is_one_line_at_once(
    make: Make,
    error: type[InputError],
    file: str,
    expected: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read = make(tmp_path, monkeypatch)
    with pytest.raises(error) as info:
        in_thread(read, fifos=[p for p in tmp_path.iterdir() if p.is_fifo()])
    expected = expected.format(dir=tmp_path)
    problem = expected.rpartition(': ')[2]
    assert check_one_line(info.value, file.format(dir=tmp_path), problem) == expected


def test_a_model_of_5000_links_in_a_chain_loads_with_its_deepest_link_placed() -> None:
    """Each link is placed once (a link's transform is its parent's times its joint's)."""
    n = 5000
    links = ''.join(f'<link name="l{i}"/>' for i in range(n))
    joints = ''.join(
        f'<joint name="j{i}" type="fixed"><parent link="l{i - 1}"/><child link="l{i}"/>'
        '<origin xyz="0.01 0 0"/></joint>'
        for i in range(1, n)
    )
    text = (
        f'<world name="w"><model name="c"><robot name="c">{links}{joints}</robot></model></world>'
    )
    w = parse_world(text, source='chain.world')
    assert len(w.entities[0].links) == n
    assert w.entities[0].links[f'l{n - 1}'][:3, 3].tolist() == pytest.approx(
        [0.01 * (n - 1), 0, 0]
    )
