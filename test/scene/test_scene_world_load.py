"""Scene files: the shipped worlds, geometry and reflectivity rules, meshes, and every error."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import trimesh

from nps_sonar_py.description import DescriptionError
from nps_sonar_py.echo.reflectivity import DEFAULT_LAMBERT
from nps_sonar_py.errors import SceneError
from nps_sonar_py.scene import Raycaster, load_world, parse_world
from nps_sonar_py.transforms import transform_from_xyz_rpy

WORLDS = Path(__file__).resolve().parents[2] / 'config' / 'worlds'
F32 = 2.0 * float(np.finfo(np.float32).eps)
SONAR = np.array([2.1, 1.0, 1.0])


def inline(name: str, link_body: str, *, extra: str = '', model_attributes: str = '') -> str:
    """A <model> holding an inline one-link robot."""
    return (
        f'<model name="{name}" {model_attributes}><robot name="{name}">'
        f'<link name="{name}_link">{link_body}</link>'
        f'{extra}</robot></model>'
    )


def box(size: str = '1 1 1', *, inner: str = '', tag: str = 'collision', origin: str = '') -> str:
    return f'<{tag}>{origin}<geometry><box size="{size}"/></geometry>{inner}</{tag}>'


def world(*models: str, state: str = '', name: str = 'w') -> str:
    body = '\n'.join(models)
    scene_state = (
        f'<scene_state scene="{name}" time_stamp="0">\n{state}\n</scene_state>' if state else ''
    )
    return f'<world name="{name}">\n{body}\n{scene_state}\n</world>\n'


def entity(model: str, frame: str = 'world', xyz: str = '0 0 0', twist: str = '') -> str:
    return (
        f'<entity_state model="{model}"><parent frame="{frame}"/><origin xyz="{xyz}"/>'
        f'{twist}</entity_state>'
    )


# --- the shipped worlds -------------------------------------------------------------------


def test_reference_tank_loads_as_specified():
    w = load_world(WORLDS / 'reference_tank.world')
    assert w.entity_names == ('tank', 'target')
    assert [len(e.surface) for e in w.entities] == [5 * 12, 4 * 64]
    assert set(w.entities[0].reflectivity) == {50 / 255}
    assert set(w.entities[1].reflectivity) == {1.0}
    assert set(w.entities[0].links) == {'floor', 'walls'}
    tank = w.entities[0].surface.vertices
    # inner faces are planes of the box vertices; the outside is 0.1 m beyond them
    for axis, values in (
        (0, {-0.1, 0.0, 4.27, 4.37}),
        (1, {-0.1, 0.0, 6.54, 6.64}),
        (2, {-0.09, 0.0, 0.01, 2.24}),
    ):
        assert values <= {round(v, 9) for v in tank[:, axis]}
    assert not w.moving().any()


def test_reference_tank_boresight_walls_floor_and_open_top():
    caster = Raycaster(load_world(WORLDS / 'reference_tank.world'))
    directions = [[0, 1, 0], [0, -1, 0], [1, 0, 0], [-1, 0, 0], [0, 0, -1], [0, 0, 1]]
    hits = caster.cast(SONAR, directions)
    # the cylinder at 1.750 m on the boresight
    assert hits.ranges[0] == pytest.approx(1.75, rel=F32)
    assert hits.entity[0] == 1
    assert hits.reflectivity[0] == 1.0
    # south, east and west inner faces, the floor top at z = 0.01, nothing above
    assert hits.ranges[1:5] == pytest.approx([1.0, 4.27 - 2.1, 2.1, 0.99], rel=1e-6)
    assert hits.entity[1:5].tolist() == [0, 0, 0, 0]
    assert hits.reflectivity[1:5] == pytest.approx([50 / 255] * 4)
    assert np.isinf(hits.ranges[5])
    # the far (north) wall behind the target, seen past its side
    past = caster.cast(SONAR, [[math.sin(0.2), math.cos(0.2), 0.0]])
    assert past.ranges[0] == pytest.approx(5.54 / math.cos(0.2), rel=1e-6)


def test_demo_world_primitives_mesh_twist_and_a_child_of_a_link():
    w = load_world(WORLDS / 'demo.world')
    assert w.entity_names == ('seabed', 'boulder', 'buoy', 'auv', 'beacon')
    assert [len(e.surface) for e in w.entities] == [12, 5120, 384, 256 + 12, 5120]
    assert w.moving().tolist() == [False, False, False, True, True]
    caster = Raycaster(w)
    for t in (0.0, 4.0):
        caster.set_time(t)
        auv = transform_from_xyz_rpy([-4 + 0.5 * t, 0, 1.0], [0, 0, 0.1 * t])
        np.testing.assert_allclose(caster.entity_pose('auv'), auv, atol=1e-12)
        beacon = auv @ transform_from_xyz_rpy([0, 0, 0.3], [0, 0, 0])
        np.testing.assert_allclose(caster.entity_pose('beacon'), beacon, atol=1e-12)
        hits = caster.cast(beacon[:3, 3] + [0, 0, 2.0], [0, 0, -1.0])
        assert hits.entity[0] == 4
        assert hits.ranges[0] == pytest.approx(1.95, abs=1e-3)  # within the icosphere's faceting
    hits = caster.cast([5.0, -1.0, 3.0], [0, 0, -1.0])  # through the buoy's hole to the seabed
    assert hits.entity.tolist() == [0]
    assert hits.ranges[0] == pytest.approx(3.0, rel=F32)
    hits = caster.cast([5.4, -1.0, 3.0], [0, 0, -1.0])  # onto its ring
    assert hits.entity.tolist() == [2]
    assert hits.reflectivity[0] == pytest.approx(200 / 255)


# --- geometry and reflectivity rules -------------------------------------------------------


def test_collision_by_default_visual_on_request():
    model = inline(
        'm',
        box('1 1 1', tag='collision') + box('2 2 2', tag='visual') + box('3 3 3', tag='visual'),
    )
    text = world(
        model,
        inline('n', box('1 1 1', tag='collision')).replace(
            '<model name="n"', '<model name="n" geometry="visual"'
        ),
    )
    collision = parse_world(text)
    assert [len(e.surface) for e in collision.entities] == [12, 0]
    visual = parse_world(text, geometry='visual')
    assert [len(e.surface) for e in visual.entities] == [24, 0]
    assert np.abs(visual.entities[0].surface.vertices).max() == 1.5
    # a per-model switch wins over the loader's
    per_model = parse_world(
        world(model.replace('<model name="m"', '<model name="m" geometry="visual"'))
    )
    assert len(per_model.entities[0].surface) == 24


def test_cylinder_and_sphere_resolution_are_parameters():
    text = world(
        inline(
            'c',
            '<collision><geometry><cylinder radius="1" length="1"/></geometry></collision>'
            '<collision><geometry><sphere radius="1"/></geometry></collision>',
        )
    )
    w = parse_world(text, cylinder_segments=8, sphere_subdivisions=1)
    assert len(w.entities[0].surface) == 4 * 8 + 80


def test_reflectivity_precedence():
    own_mu = '<nps_sonar><reflectivity>0.11</reflectivity></nps_sonar>'
    own_retro = '<laser_retro>51</laser_retro>'
    gazebo = '<gazebo reference="{0}_link"><laser_retro>102</laser_retro>{1}</gazebo>'
    models = [
        inline(
            'a',
            box(inner=own_mu + own_retro),
            extra=gazebo.format('a', own_mu.replace('0.11', '0.22')),
        ),
        inline(
            'b', box(inner=own_retro), extra=gazebo.format('b', own_mu.replace('0.11', '0.22'))
        ),
        inline(
            'c',
            box(inner=own_retro),
            extra=gazebo.format('c', ''),
            model_attributes='reflectivity="0.33"',
        ),
        inline('d', box(), extra=gazebo.format('d', ''), model_attributes='reflectivity="0.33"'),
        inline('e', box(), model_attributes='reflectivity="0.33" retro="153"'),
        inline('f', box(), model_attributes='retro="153"'),
        inline('g', box()),
    ]
    w = parse_world(world(*models))
    mu = [float(e.reflectivity[0]) for e in w.entities]
    assert mu == pytest.approx([0.11, 0.22, 0.2, 0.4, 0.33, 0.6, DEFAULT_LAMBERT])
    assert parse_world(world(models[-1]), default_lambert=0.05).entities[0].reflectivity[0] == 0.05


def test_links_and_joints_place_shapes_in_the_root_frame():
    robot = (
        '<model name="r"><robot name="r">'
        '<link name="base">' + box('1 1 1') + '</link>'
        '<link name="arm">' + box('0.2 0.2 0.2', origin='<origin xyz="0.5 0 0"/>') + '</link>'
        '<joint name="j" type="revolute"><parent link="base"/><child link="arm"/>'
        '<origin xyz="0 2 0" rpy="0 0 1.5707963267948966"/>'
        '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
        '</robot></model>'
    )
    w = parse_world(
        world(robot, inline('tag', box('0.1 0.1 0.1')), state=entity('tag', 'r::arm', '1 0 0'))
    )
    arm_box = w.entities[0].surface.vertices[8:]
    np.testing.assert_allclose(arm_box.mean(axis=0), [0.0, 2.5, 0.0], atol=1e-12)
    np.testing.assert_allclose(w.poses()[1][:3, 3], [0.0, 3.0, 0.0], atol=1e-12)


def test_meshes_by_package_uri_file_uri_and_relative_path(tmp_path, monkeypatch):
    share = tmp_path / 'prefix' / 'share' / 'my_models'
    marker = (
        tmp_path / 'prefix' / 'share' / 'ament_index' / 'resource_index' / 'packages' / 'my_models'
    )
    marker.parent.mkdir(parents=True)
    marker.write_text('')
    (share / 'meshes').mkdir(parents=True)
    trimesh.creation.box((1.0, 1.0, 1.0)).export(share / 'meshes' / 'cube.stl')
    dae = trimesh.exchange.dae.export_collada(trimesh.creation.box((1.0, 1.0, 1.0)))
    dae = dae.decode() if isinstance(dae, bytes) else dae
    (tmp_path / 'models').mkdir()
    (tmp_path / 'models' / 'cube.dae').write_text(
        dae.replace('<asset>', '<asset><unit meter="0.1"/>', 1)
    )
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(tmp_path / 'prefix'))

    def mesh(filename: str, scale: str = '1 1 1') -> str:
        return (
            f'<collision><geometry><mesh filename="{filename}" scale="{scale}"/></geometry>'
            '</collision>'
        )

    (tmp_path / 'models' / 'thing.urdf').write_text(
        '<robot name="thing"><link name="l">' + mesh('cube.dae', '2 2 2') + '</link></robot>',
    )
    text = world(
        inline('pkg', mesh('package://my_models/meshes/cube.stl', '1 2 3')),
        inline('abs', mesh(f'file://{share}/meshes/cube.stl')),
        '<model name="rel" file="models/thing.urdf"/>',
    )
    (tmp_path / 'scene.world').write_text(text)
    w = load_world(tmp_path / 'scene.world')
    extents = [np.ptp(e.surface.vertices, axis=0) for e in w.entities]
    np.testing.assert_allclose(extents, [[1, 2, 3], [1, 1, 1], [0.2, 0.2, 0.2]], atol=1e-6)
    # a resolver callable (such as ament_index_python's) is asked first
    monkeypatch.setenv('AMENT_PREFIX_PATH', '')
    w = load_world(tmp_path / 'scene.world', package_resolver={'my_models': share}.__getitem__)
    assert len(w.entities[0].surface) == 12


# --- errors ------------------------------------------------------------------------------------


def _raises(
    text: str, error: type[Exception], match: str, tmp_path: Path, **files: str
) -> Exception:
    for name, content in files.items():
        target = tmp_path / name.replace('__', '/')
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    path = tmp_path / 'bad.world'
    path.write_text(text)
    with pytest.raises(error, match=match) as info:
        load_world(path)
    assert '\n' not in str(info.value)
    assert str(info.value).startswith(str(path) if error is SceneError else '')
    return info.value


OK = inline('a', box())


@pytest.mark.parametrize(
    ('text', 'match'),
    [
        ('<world name="w">\n<model name="a">\n</world>', r':3: malformed XML'),
        ('<world>\n</world>', r":1: <world>: missing required attribute 'name'"),
        (world('<model file="x.urdf"/>'), r":2: <model>: missing required attribute 'name'"),
        (
            world('<model name="a"/>'),
            r':2: <model name="a">: needs either a file attribute or one inline <robot>',
        ),
        (
            world('<model name="a" file="nowhere.urdf"/>'),
            r':2: <model name="a">: model file not found: .*nowhere\.urdf',
        ),
        (world(OK, OK), r":3: <model name=\"a\">: two models named 'a'"),
        (world(inline('world', box())), r"model name 'world' is reserved"),
        (world(inline('a::b', box())), r"model name 'a::b' is reserved or contains '::'"),
        (
            world(OK.replace('<model name="a"', '<model name="a" retro="-5"')),
            r"retro='-5' must be a number in \[0\.0, inf\]",
        ),
        (
            world(OK.replace('<model name="a"', '<model name="a" reflectivity="nan"')),
            r"reflectivity='nan' must be a number",
        ),
        (
            world(OK.replace('<model name="a"', '<model name="a" geometry="both"')),
            r"geometry='both' must be one of",
        ),
        (world(OK, '<light/>'), r':3: <world name=\"w\">: unknown element <light> in <world>'),
        (
            world(OK, state=entity('ghost')),
            r":4: <entity_state model=\"ghost\">: no model named 'ghost' \(models: a\)",
        ),
        (
            world(OK, state=entity('a', 'nowhere')),
            r':4: <entity_state model=\"a\">: '
            r"unknown parent frame 'nowhere': no model named 'nowhere'",
        ),
        (world(OK, state=entity('a', 'a')), r'parent frames form a cycle: a -> a'),
        (
            world(
                OK, inline('b', box()), state=entity('a', 'b') + '\n' + entity('b', 'a::a_link')
            ),
            r':5: <entity_state model="a">: parent frames form a cycle: a -> b -> a',
        ),
        (
            world(OK, inline('b', box()), state=entity('b', 'a::arm')),
            r"unknown parent frame 'a::arm': model 'a' has no link 'arm' \(a_link\)",
        ),
        (
            world(OK, state=entity('a', xyz='1 nan 2')),
            r":4: <origin>: xyz='1 nan 2' must be finite",
        ),
        (world(OK, state=entity('a', xyz='1 x 2')), r"xyz='1 x 2' is not 3 numbers"),
        (
            world(OK, state=entity('a').replace('<parent frame="world"/>', '')),
            r'missing required element <parent',
        ),
        (
            world(OK, state=entity('a')).replace('scene="w"', 'scene="other"'),
            r":3: <scene_state>: scene='other' is not",
        ),
        (
            world(
                OK,
                '<scene_state scene="w" time_stamp="0"/>',
                '<scene_state scene="w" time_stamp="1"/>',
            ),
            r'more than one <scene_state>',
        ),
    ],
)
def test_scene_file_errors(text, match, tmp_path):
    _raises(text, SceneError, match, tmp_path)


@pytest.mark.parametrize(
    ('mesh', 'match'),
    [
        ('missing.stl', r'bad\.world:3: <mesh filename="missing\.stl">: mesh file not found'),
        (
            'bad.stl',
            r'bad\.world:3: <mesh filename="bad\.stl">: (cannot read mesh|mesh .* holds no '
            r'triangles)',
        ),
        ('model.ply', r"unsupported mesh format '\.ply'"),
        ('model://x/m.dae', r"unsupported URI scheme 'model'"),
        ('package://no_such_pkg/m.stl', r"package 'no_such_pkg'"),
    ],
)
def test_mesh_errors_point_at_the_shape(mesh, match, tmp_path, monkeypatch):
    monkeypatch.setenv('AMENT_PREFIX_PATH', '')
    text = world(
        inline('a', f'<collision>\n<geometry><mesh filename="{mesh}"/></geometry></collision>')
    )
    _raises(
        text.replace('<collision>\n', '\n<collision>'),
        SceneError,
        match,
        tmp_path,
        **{'bad.stl': 'solid nonsense\n' * 4, 'model.ply': 'ply\n'},
    )


def test_urdf_errors_are_description_errors_at_the_scene_file_line(tmp_path):
    text = world(OK, inline('b', '\n' + box('1 -2 1')))
    error = _raises(
        text,
        DescriptionError,
        r'bad\.world:4: <link name="b_link"><collision><geometry><box>: size: must be >= 0',
        tmp_path,
    )
    assert isinstance(error, DescriptionError)
    bad_file = world('<model name="m" file="m.urdf"/>')
    _raises(
        bad_file,
        DescriptionError,
        r'm\.urdf:2: ',
        tmp_path,
        **{'m.urdf': '<robot name="m">\n<link/></robot>'},
    )


def test_loader_options_are_checked():
    with pytest.raises(ValueError, match='geometry'):
        parse_world(world(OK), geometry='both')  # type: ignore[arg-type]
    with pytest.raises(ValueError, match='default_lambert'):
        parse_world(world(OK), default_lambert=2.0)


def test_shapes_beyond_float32_range_are_refused(tmp_path):
    text = world(inline('a', '\n' + box('1e31 1 1')))
    _raises(text, SceneError, r':3: <link name="a_link">: shape reaches beyond 1e\+30 m', tmp_path)


def test_loading_a_world_does_not_import_open3d():
    code = (
        'import sys\n'
        'from nps_sonar_py.scene import load_world\n'
        f'load_world({str(WORLDS / "demo.world")!r})\n'
        "assert 'open3d' not in sys.modules, 'open3d imported'\n"
        'from nps_sonar_py.scene import Raycaster\n'
        "assert 'open3d' in sys.modules\n"
    )
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, '-c', code], check=True, cwd=root, timeout=120)
