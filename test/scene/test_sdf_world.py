"""Gazebo SDF worlds: the shipped underwater world against its scene-file twin, placement by
hand, includes through model paths, the SDF-only shapes, skipped elements, located errors.

Expected ranges are worked out from the poses written in each world (the comments give the
arithmetic); faceting bounds come from ``docs/scene.md``.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest
import trimesh
from one_line import check_one_line

from nps_sonar_py.errors import SceneError
from nps_sonar_py.scene import (
    Raycaster,
    capsule_faceting_error,
    capsule_triangles,
    ellipsoid_triangles,
    load_world,
    parse_sdf_world,
    plane_triangles,
)
from nps_sonar_py.scene import sdf as sdf_module
from nps_sonar_py.scene.tessellation import SPHERE_FACETING_ERROR, cylinder_faceting_error

WORLDS = Path(__file__).resolve().parents[2] / 'config' / 'worlds'
F32 = 2.0 * float(np.finfo(np.float32).eps)
MODEL_VARIABLES = ('GZ_SIM_RESOURCE_PATH', 'GAZEBO_MODEL_PATH', 'SDF_PATH')


@pytest.fixture
def model_path(monkeypatch):
    """Clear the three model path variables; returns a setter for them."""
    for key in MODEL_VARIABLES:
        monkeypatch.delenv(key, raising=False)

    def set_path(key: str, *directories: Path) -> None:
        monkeypatch.setenv(key, ':'.join(str(d) for d in directories))

    return set_path


def sdf(body: str, version: str = '1.11') -> str:
    """An SDF world whose ``body`` starts on line 3."""
    return f'<sdf version="{version}">\n<world name="w">\n{body}\n</world>\n</sdf>\n'


def box_model(name: str, size: str, pose: str = '', extra: str = '') -> str:
    return (
        f'<model name="{name}">{pose}<link name="l"><collision name="c">'
        f'<geometry><box><size>{size}</size></box></geometry></collision></link>{extra}</model>'
    )


def write(tmp_path: Path, text: str, name: str = 'w.sdf') -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def cast(world, origins, directions):
    """Cast rays along ``directions`` (normalised here) from ``origins``."""
    d = np.asarray(directions, dtype=float)
    d = d / np.linalg.norm(d, axis=-1, keepdims=True)
    return Raycaster(world).cast(np.asarray(origins, dtype=float), d)


# --- the shipped underwater world against the same scene in the scene format -----------------


def fan(origin: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rays every 0.5 deg in azimuth and 2 deg in elevation (-40 to 28 deg) from ``origin``."""
    azimuth = np.radians(np.arange(-180.0, 180.0, 0.5))
    elevation = np.radians(np.arange(-40.0, 30.0, 2.0))
    a, e = (g.ravel() for g in np.meshgrid(azimuth, elevation))
    directions = np.column_stack((np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)))
    return np.broadcast_to(origin, directions.shape), directions


def near_segment(points: np.ndarray, a: np.ndarray, b: np.ndarray, radius: float) -> np.ndarray:
    """Whether each point lies within ``radius`` of the segment ``ab``."""
    ab = b - a
    t = np.clip(((points - a) @ ab) / (ab @ ab), 0.0, 1.0)
    return np.linalg.norm(points - (a + t[:, None] * ab), axis=1) <= radius


def test_underwater_sdf_gives_the_ranges_of_the_same_scene_file(model_path):
    model_path('GZ_SIM_RESOURCE_PATH', WORLDS / 'models')
    gazebo = load_world(WORLDS / 'underwater.sdf')
    scene = load_world(WORLDS / 'underwater.world')
    assert gazebo.entity_names == scene.entity_names
    assert gazebo.entity_names == (
        'seabed', 'pier', 'buoy', 'ring_buoy', 'pipe', 'mooring_block_1'
    )  # fmt: skip
    assert not gazebo.moving().any()
    origins, directions = fan(np.array([0.0, 0.0, 2.0]))
    a, b = cast(gazebo, origins, directions), cast(scene, origins, directions)

    # Capsules (SDF) and cylinder-plus-spheres (scene file) differ by their faceting only:
    # both lie at most e inside the true surface, so a ray meeting it at incidence cos c
    # travels at most about e / c further in one than in the other. The pipe's axis runs
    # from (2, -3, 0.25) to (4, -3, 0.25) (x-axis after the 90 deg pitch), the fender's from
    # (6, 0.45, 2.5) to (6, 0.45, 3.5) (pier frame (0.45, 2, 3) turned 90 deg about z, plus
    # (8, 0, 0)).
    capsules = ((np.array([2.0, -3, 0.25]), np.array([4.0, -3, 0.25]), 0.25),
                (np.array([6.0, 0.45, 2.5]), np.array([6.0, 0.45, 3.5]), 0.15))  # fmt: skip
    near = np.zeros(len(directions), dtype=bool)
    for hits in (a, b):
        points = (
            origins + np.where(np.isfinite(hits.ranges), hits.ranges, 0.0)[:, None] * directions
        )
        for start, end, radius in capsules:
            near |= np.isfinite(hits.ranges) & near_segment(points, start, end, radius + 0.01)
    e = max(
        max(capsule_faceting_error(r), r * SPHERE_FACETING_ERROR[4], cylinder_faceting_error(r))
        for r in (0.25, 0.15)
    )
    steep = np.minimum(a.cos_incidence, b.cos_incidence) >= 0.3
    compared_capsule = near & steep
    assert compared_capsule.sum() > 100  # both capsules are seen, from many rays
    assert (near & ~steep).sum() < 0.01 * len(directions)  # only the grazing ones are skipped
    assert np.array_equal(a.entity[compared_capsule], b.entity[compared_capsule])
    # the pipe (entity 4) and the fender (part of the pier, 1) both
    assert set(a.entity[compared_capsule].tolist()) == {1, 4}
    c = compared_capsule
    np.testing.assert_array_less(
        np.abs(a.ranges[c] - b.ranges[c]),
        e / np.minimum(a.cos_incidence[c], b.cos_incidence[c]) + 1e-5,
    )
    # Everything else is the same triangles: the same entity, range within float32.
    rest = ~near
    assert np.array_equal(a.entity[rest], b.entity[rest])
    hit = rest & (a.entity >= 0)
    assert set(a.entity[hit].tolist()) == {0, 1, 2, 3, 5}  # all but the pipe, a capsule
    np.testing.assert_allclose(a.ranges[hit], b.ranges[hit], rtol=F32, atol=1e-6)
    np.testing.assert_array_equal(a.reflectivity[hit], b.reflectivity[hit])

    # By hand: pillar_b stands at quay (0, 2) -> world (8 - 2, 0) = (6, 0), radius 0.3, with
    # a vertex facing -x (n = 64): 5.7 m along +x from the origin; the seabed 2 m below.
    hits = cast(gazebo, [[0.0, 0.0, 2.0]] * 2, [[1.0, 0, 0], [0, 0, -1.0]])
    assert hits.ranges == pytest.approx([5.7, 2.0], rel=F32)
    assert hits.entity.tolist() == [1, 0]
    assert hits.reflectivity == pytest.approx([120 / 255, 30 / 255])


# --- placement ------------------------------------------------------------------------------


PLACEMENT = sdf("""
<frame name="f"><pose degrees="true">1 2 0 0 0 90</pose></frame>
{a}
<model name="b">
  <pose relative_to="a">0 0 2 0 0 0</pose>
  <frame name="g" attached_to="l1"><pose relative_to="l1">1 0 0 0 0 0</pose></frame>
  <link name="l1"><pose>0 1 0 0 0 0</pose></link>
  <link name="l2">
    <pose relative_to="g">0 0 0 0 0 0</pose>
    <collision name="c">
      <pose relative_to="l1">0 0 0.5 0 0 0</pose>
      <geometry><box><size>0.2 0.2 0.2</size></box></geometry>
    </collision>
  </link>
</model>
{c}
{d}
<model name="e" placement_frame="corner">
  <pose>10 0 1 0 0 0</pose>
  <frame name="corner"><pose>0.5 0 0 0 0 0</pose></frame>
  <link name="l"><collision name="c">
    <geometry><box><size>1 1 1</size></box></geometry>
  </collision></link>
</model>
""").format(
    a=box_model('a', '2 1 0.4', '<pose relative_to="f">3 0 1 0 0 0</pose>'),
    c=box_model('c', '0.2 0.2 0.2', '<pose relative_to="b::l2">0 0 0 0 0 0</pose>'),
    d=box_model(
        'd',
        '2 1 0.4',
        '<pose rotation_format="quat_xyzw">5 0 1 0 0 0.7071067811865476 0.7071067811865476</pose>',
    ),
)


def test_poses_relative_to_frames_models_links_and_nested_names(tmp_path):
    world = load_world(write(tmp_path, PLACEMENT))
    assert world.entity_names == ('a', 'b', 'c', 'd', 'e')
    # f: (1, 2, 0) turned 90 deg; a: f + Rz(90)(3, 0, 1) = (1, 5, 1), turned 90 deg, so its
    # 2 x 1 x 0.4 box spans x 1 +- 0.5, y 5 +- 1, z 1 +- 0.2.
    # b: a + Rz(90)(0, 0, 2) = (1, 5, 3); l1 at b (0, 1, 0); g = l1 + (1, 0, 0); l2 at g, so
    # b (1, 1, 0); the shape at l1 + (0, 0, 0.5) = b (0, 1, 0.5) -> world (1 - 1, 5, 3.5).
    # c: at b::l2 = (1, 5, 3) + Rz(90)(1, 1, 0) = (0, 6, 3).
    # d: quaternion of 90 deg about z at (5, 0, 1): spans x 5 +- 0.5, y +- 1.
    # e: its frame 'corner', 0.5 m along x, is placed at (10, 0, 1): the box spans x 9..10.
    origins = [[1, 0, 1], [3, 5, 1], [0, 5, 10], [0, 6, 10], [5, -5, 1], [12, 0, 1]]
    directions = [[0, 1, 0], [-1, 0, 0], [0, 0, -1], [0, 0, -1], [0, 1, 0], [-1, 0, 0]]
    hits = cast(world, origins, directions)
    expected = [5 - 1 - 0, 3 - 1.5, 10 - 3.6, 10 - 3.1, 5 - 1, 12 - 10]
    assert hits.ranges == pytest.approx(expected, rel=F32)
    assert hits.entity.tolist() == [0, 0, 1, 2, 3, 4]
    np.testing.assert_allclose(world.entities[1].links['l2'][:3, 3], [1, 1, 0], atol=1e-12)
    np.testing.assert_allclose(world.poses()[2][:3, 3], [0, 6, 3], atol=1e-12)


@pytest.mark.parametrize('version', ['1.6', '1.11'])
def test_sdf_1_6_and_1_11_are_read(tmp_path, version):
    # a box 1 m high whose top face is at z = 2 + 0.5
    text = sdf(box_model('m', '1 1 1', '<pose>0 0 2 0 0 0</pose>'), version)
    hits = cast(load_world(write(tmp_path, text)), [0, 0, 10], [[0, 0, -1]])
    assert hits.ranges[0] == pytest.approx(7.5, rel=F32)


def test_a_dot_world_with_an_sdf_root_is_read_as_sdf_and_a_scene_file_as_before(tmp_path):
    gazebo = write(tmp_path, sdf(box_model('m', '2 2 2')), 'gazebo.world')
    assert load_world(gazebo).entity_names == ('m',)
    assert load_world(WORLDS / 'demo.world').entity_names[0] == 'seabed'


# --- includes and model paths ---------------------------------------------------------------


def model_dir(root: Path, name: str, model_sdf: str, config: str | None) -> Path:
    directory = root / name
    (directory / 'meshes').mkdir(parents=True)
    trimesh.creation.box(extents=(1.0, 1.0, 1.0)).export(directory / 'meshes' / 'cube.stl')
    (directory / 'model.sdf').write_text(model_sdf)
    if config is not None:
        (directory / 'model.config').write_text(config)
    return directory


def cube_model(scale: float, version: str = '1.8') -> str:
    return (
        f'<sdf version="{version}"><model name="block"><pose>3 0 0 0 0 0</pose>'
        '<link name="l"><collision name="c"><geometry><mesh>'
        f'<uri>model://block/meshes/cube.stl</uri><scale>{scale} {scale} {scale}</scale>'
        '</mesh></geometry><laser_retro>51</laser_retro></collision></link></model></sdf>'
    )


INCLUDES = sdf("""
<include><uri>model://block</uri><name>blk</name><pose>0 0 5 0 0 0</pose><static>true</static>
</include>
<include><uri>model://block</uri></include>
<include><uri>b/block</uri><name>rel</name><pose>0 5 0 0 0 0</pose></include>
""")


def test_includes_through_model_paths_model_config_and_relative_uris(tmp_path, model_path):
    config = (
        '<model><name>block</name><sdf version="1.5">old.sdf</sdf>'
        '<sdf version="1.8">model.sdf</sdf></model>'
    )  # the newest version read is chosen: old.sdf does not exist
    model_dir(tmp_path / 'b', 'block', cube_model(2.0), config)
    (tmp_path / 'a').mkdir()
    model_path('GAZEBO_MODEL_PATH', tmp_path / 'a', tmp_path / 'b')
    path = write(tmp_path, INCLUDES)
    world = load_world(path)
    assert world.entity_names == ('blk', 'block', 'rel')
    # the cube of 1 m scaled by 2: top faces at 5 + 1 (blk), 0 + 1 (block, at the model's own
    # pose x = 3), 0 + 1 (rel, at y = 5)
    down = [[0, 0, -1]] * 3
    hits = cast(world, [[0, 0, 10], [3, 0, 10], [0, 5, 10]], down)
    assert hits.ranges == pytest.approx([4.0, 9.0, 9.0], rel=F32)
    assert hits.entity.tolist() == [0, 1, 2]
    assert hits.reflectivity == pytest.approx([0.2] * 3)
    # GZ_SIM_RESOURCE_PATH comes first; a model directory without model.config: model.sdf
    model_dir(tmp_path / 'c', 'block', cube_model(4.0, '1.6'), None)
    model_path('GZ_SIM_RESOURCE_PATH', tmp_path / 'c')
    hits = cast(load_world(path), [[0, 0, 10]], down[:1])
    assert hits.ranges[0] == pytest.approx(10 - 5 - 2, rel=F32)


def test_an_include_cycle_is_an_error(tmp_path, model_path):
    loop = (
        '<sdf version="1.9"><model name="loop">\n'
        '<include><uri>model://loop</uri><name>inner</name></include>\n</model></sdf>'
    )
    directory = model_dir(tmp_path, 'loop', loop, None)
    model_path('SDF_PATH', tmp_path)
    path = write(tmp_path, sdf('<include><uri>model://loop</uri></include>'))
    with pytest.raises(SceneError) as err:
        load_world(path)
    inner = directory / 'model.sdf'
    check_one_line(err.value, f'{inner}:2:', f'include cycle: {inner} -> {inner}')


def test_includes_nested_deeper_than_the_limit_are_an_error(tmp_path, model_path, monkeypatch):
    monkeypatch.setattr(sdf_module, 'MAX_INCLUDE_DEPTH', 1)
    outer = '<sdf version="1.9"><model name="a">\n<include><uri>model://b</uri></include>\n'
    directory = model_dir(tmp_path, 'a', outer + '</model></sdf>', None)
    model_dir(tmp_path, 'b', cube_model(1.0), None)
    model_path('SDF_PATH', tmp_path)
    path = write(tmp_path, sdf('<include><uri>model://a</uri></include>'))
    with pytest.raises(SceneError) as err:
        load_world(path)
    inner = directory / 'model.sdf'
    check_one_line(err.value, f'{inner}:2:', 'includes nested deeper than 1 (MAX_INCLUDE_DEPTH)')


def test_a_long_chain_of_frames_is_resolved_without_recursion(tmp_path):
    # 2000 frames each 1 m along x of the one before, and 1000 models each placed at the
    # link of the one before, 1 m further along y: both far beyond Python's recursion limit
    frames = '<frame name="f0"><pose>1 0 0 0 0 0</pose></frame>\n' + ''.join(
        f'<frame name="f{i}"><pose relative_to="f{i - 1}">1 0 0 0 0 0</pose></frame>\n'
        for i in range(1, 2000)
    )
    models = box_model('m0', '1 1 1', '<pose relative_to="f1999"/>') + ''.join(
        f'<model name="m{i}"><pose relative_to="m{i - 1}::l">0 1 0 0 0 0</pose>'
        '<link name="l"/></model>'
        for i in range(1, 1000)
    )
    world = load_world(write(tmp_path, sdf(frames + models)))
    np.testing.assert_allclose(world.poses()[0][:3, 3], [2000, 0, 0])
    np.testing.assert_allclose(world.poses()[999][:3, 3], [2000, 999, 0])


def test_a_long_cycle_of_frames_is_one_short_line(tmp_path):
    frames = '<frame name="f0"><pose relative_to="f1999"/></frame>\n' + ''.join(
        f'<frame name="f{i}"><pose relative_to="f{i - 1}"/></frame>\n' for i in range(1, 2000)
    )
    path = write(tmp_path, sdf(frames + box_model('m', '1 1 1', '<pose relative_to="f0"/>')))
    with pytest.raises(SceneError) as err:
        load_world(path)
    message = check_one_line(
        err.value, f'{path}:3: <frame name="f0">', 'poses form a cycle: f0 -> f1999 -> f1998'
    )
    assert message.endswith('...'), message
    assert len(message) < len(str(path)) + 300, message


def nested_models(name: str, count: int, inner: str) -> str:
    """An SDF file of model ``name`` holding ``count`` nested models (n0 on line 2, ...)."""
    opened = ''.join(f'<model name="n{k}">\n' for k in range(count))
    return (
        f'<sdf version="1.9"><model name="{name}">\n{opened}{inner}'
        + '</model>' * count
        + '</model></sdf>\n'
    )


def test_models_nested_deeper_than_the_limit_across_includes_are_an_error(tmp_path):
    # a (depth 1) holds n0..n39 (2..41) and includes b (42), whose n0..n39 are 43..82 and
    # which includes c (83): c's n16 is at depth 100, its n17 (line 19) one too deep
    write(tmp_path, nested_models('a', 40, '<include><uri>b.sdf</uri></include>'), 'a.sdf')
    write(tmp_path, nested_models('c', 200, ''), 'c.sdf')
    write(tmp_path, nested_models('b', 40, '<include><uri>c.sdf</uri></include>'), 'b.sdf')
    path = write(tmp_path, sdf('<include><uri>a.sdf</uri></include>'))
    with pytest.raises(SceneError) as err:
        load_world(path)
    check_one_line(
        err.value,
        f'{tmp_path / "c.sdf"}:19: <model name="n17">',
        f'models nested deeper than {sdf_module.MAX_MODEL_DEPTH} (MAX_MODEL_DEPTH)',
    )


def fan_out(tmp_path: Path, files: int, fan: int) -> Path:
    """Files f0 .. f{files-1}, each including the next ``fan`` times (on line 2)."""
    for k in range(files - 1):
        includes = ''.join(
            f'<include><uri>f{k + 1}.sdf</uri><name>c{i}</name></include>' for i in range(fan)
        )
        text = f'<sdf version="1.9"><model name="f{k}">\n{includes}\n</model></sdf>'
        write(tmp_path, text, f'f{k}.sdf')
    leaf = f'<sdf version="1.9"><model name="f{files - 1}"><link name="l"/></model></sdf>'
    write(tmp_path, leaf, f'f{files - 1}.sdf')
    return write(tmp_path, sdf('<include><uri>f0.sdf</uri></include>'))


def test_the_model_limit_stops_an_include_fan_out_as_it_is_read(tmp_path, monkeypatch):
    # 1 + 10 + 100 models would be read; counted depth first, the 51st is an include of f1
    monkeypatch.setattr(sdf_module, 'MAX_SDF_MODELS', 50)
    path = fan_out(tmp_path, 3, 10)
    with pytest.raises(SceneError) as err:
        load_world(path)
    check_one_line(
        err.value,
        f'{tmp_path / "f1.sdf"}:2: <include>',
        'the world has more than 50 models, counting nested and included ones'
        ' (the limit MAX_SDF_MODELS)',
    )
    monkeypatch.setattr(sdf_module, 'MAX_SDF_MODELS', 111)
    assert load_world(path).entity_names == ('f0',)


def test_the_included_element_limit_stops_a_fan_out_of_large_models(tmp_path, monkeypatch):
    monkeypatch.setattr(sdf_module, 'MAX_INCLUDED_ELEMENTS', 100)
    path = fan_out(tmp_path, 3, 10)  # f1 has 32 elements: the fourth copy is one too many
    with pytest.raises(SceneError) as err:
        load_world(path)
    check_one_line(
        err.value,
        f'{tmp_path / "f0.sdf"}:2: <include>',
        'the world includes more than 100 elements, each copy counted'
        ' (the limit MAX_INCLUDED_ELEMENTS)',
    )


def test_an_included_file_that_cannot_be_read_is_an_error_at_the_include(tmp_path, model_path):
    model_dir(
        tmp_path, 'block', cube_model(1.0), '<model><sdf version="1.9">gone.sdf</sdf></model>'
    )
    os.mkfifo(tmp_path / 'pipe.sdf')
    model_path('SDF_PATH', tmp_path)
    for uri, problem in [
        ('model://block', f'cannot read included file {tmp_path}/block/gone.sdf: No such file'),
        ('pipe.sdf', f'included file {tmp_path}/pipe.sdf is not a regular file (FIFO)'),
    ]:
        path = write(tmp_path, sdf(f'<include>\n<uri>{uri}</uri></include>'))
        with pytest.raises(SceneError) as err:
            load_world(path)
        check_one_line(err.value, f'{path}:3: <include>: ', problem)


# --- SDF-only shapes ------------------------------------------------------------------------


@pytest.mark.parametrize('segments', [3, 8, 64, 65])
def test_capsule_is_closed_outward_and_within_its_faceting_bound(segments):
    r, length = 0.7, 1.3
    mesh = capsule_triangles(r, length, segments)
    m = max(1, segments // 4)
    assert len(mesh) == 4 * segments * m
    directed = mesh.triangles[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2)
    as_set = {tuple(e) for e in directed.tolist()}
    assert len(as_set) == len(directed)
    assert {(b, a) for a, b in as_set} == as_set  # closed, consistently wound
    # every vertex on the true surface: distance r from the axis segment z in +-length/2
    v = mesh.vertices
    axis = np.column_stack((0 * v[:, 2], 0 * v[:, 2], np.clip(v[:, 2], -length / 2, length / 2)))
    np.testing.assert_allclose(np.linalg.norm(v - axis, axis=1), r, rtol=1e-12)
    # each face's plane lies outside the capsule of radius r - e (e the documented bound),
    # seen from the nearest axis point of its centroid, and its normal points away from it
    centroid = v[mesh.triangles].mean(axis=1)
    foot = np.column_stack((0 * centroid[:, 2], 0 * centroid[:, 2],
                            np.clip(centroid[:, 2], -length / 2, length / 2)))  # fmt: skip
    normals = mesh.normals()
    depth = r - np.einsum('ij,ij->i', normals, v[mesh.triangles[:, 0]] - foot)
    assert np.all(np.einsum('ij,ij->i', normals, centroid - foot) > 0.0)
    assert depth.max() <= capsule_faceting_error(r, segments) * (1 + 1e-9)
    if segments % 4 == 0:
        bound = r * (1 - math.cos(math.sqrt(2) * math.pi / segments))
        assert capsule_faceting_error(r, segments) == pytest.approx(bound, rel=1e-12)


def test_ellipsoid_vertices_lie_on_it():
    radii = np.array([0.8, 0.5, 0.3])
    mesh = ellipsoid_triangles(radii, 3)
    assert len(mesh) == 20 * 4**3
    np.testing.assert_allclose(np.sum((mesh.vertices / radii) ** 2, axis=1), 1.0, rtol=1e-12)


@pytest.mark.parametrize('normal', [[0, 0, 1], [0, 0, -2], [1, 0, 0], [1, 1, 1]])
def test_plane_faces_its_normal_and_spans_its_size(normal):
    mesh = plane_triangles([2.0, 4.0], normal)
    n = np.asarray(normal, float) / np.linalg.norm(normal)
    np.testing.assert_allclose(mesh.normals(), [n, n], atol=1e-12)
    np.testing.assert_allclose(mesh.vertices @ n, 0.0, atol=1e-12)
    edges = np.linalg.norm(np.diff(mesh.vertices[[0, 1, 2, 3, 0]], axis=0), axis=1)
    np.testing.assert_allclose(edges, [2, 4, 2, 4], rtol=1e-12)


SHAPES = sdf("""
<model name="capsule"><link name="l"><collision name="c"><geometry>
  <capsule><radius>0.5</radius><length>2</length></capsule></geometry></collision></link></model>
<model name="ellipsoid"><pose>10 0 0 0 0 0</pose><link name="l"><collision name="c"><geometry>
  <ellipsoid><radii>0.8 0.5 0.3</radii></ellipsoid></geometry></collision></link></model>
<model name="plane"><pose>0 10 0 0 0 0</pose><link name="l"><collision name="c"><geometry>
  <plane><normal>1 0 0</normal><size>4 2</size></plane></geometry></collision></link></model>
<model name="nothing"><link name="l"><collision name="c"><geometry><empty/></geometry>
  </collision></link></model>
""")


def test_capsule_ellipsoid_and_plane_in_a_world(tmp_path):
    world = load_world(write(tmp_path, SHAPES))
    assert [len(e.surface) for e in world.entities] == [4 * 64 * 16, 5120, 2, 0]
    hits = cast(
        world,
        [[0, 0, 5], [0, 3, 0], [10, 0, 5], [13, 0, 0], [-3, 10, 0], [-3, 10, 0], [-3, 10, 0]],
        [[0, 0, -1], [0, -1, 0], [0, 0, -1], [-1, 0, 0], [1, 0, 0], [1, 0.9 / 3, 0],
         [1, 0, 1.1 / 3]],
    )  # fmt: skip
    # the capsule's pole at z = 1 + 0.5 is a vertex: exact; its side at y = 0.5 along the
    # +y vertex column: exact. Ellipsoid: within its faceting, max radius 0.8.
    assert hits.ranges[:2] == pytest.approx([5 - 1.5, 3 - 0.5], rel=F32)
    e = 0.8 * SPHERE_FACETING_ERROR[4]
    assert (5 - 0.3) * (1 - F32) <= hits.ranges[2] <= 5 - 0.3 + e
    assert (3 - 0.8) * (1 - F32) <= hits.ranges[3] <= 3 - 0.8 + e
    # The plane through (0, 10, 0) facing +x: the shortest turn taking +z to +x is 90 deg
    # about y, so its x (size 4) goes to -z and its y (size 2) stays: it spans y 10 +- 1 and
    # z +- 2. From (-3, 10, 0) it is 3 m away; rays reaching y = 10.9 or z = 1.1 hit it,
    # rays reaching y = 11.1 or z = 2.1 pass by.
    assert hits.ranges[4] == pytest.approx(3.0, rel=F32)
    assert hits.ranges[5] == pytest.approx(math.hypot(3, 0.9), rel=F32)
    assert hits.ranges[6] == pytest.approx(math.hypot(3, 1.1), rel=F32)
    outside = cast(world, [[-3, 10, 0], [-3, 10, 0]], [[1, 1.1 / 3, 0], [1, 0, 2.1 / 3]])
    assert np.isinf(outside.ranges).all()


def test_a_heightmap_grid_in_metres(tmp_path):
    # Rows 0 (the +y edge) at height 0 and 1 (the -y edge) at 1, over 4 m x 4 m, lowered by
    # 2 m: the surface is the plane z = -2 + (2 - y) / 4, so -1.5 m under y = 0.
    np.save(tmp_path / 'bed.npy', np.array([[0.0, 0.0], [1.0, 1.0]]))
    text = sdf(
        '<model name="bed"><link name="l"><collision name="c"><geometry><heightmap>'
        '<uri>bed.npy</uri><size>4 4 0</size><pos>0 0 -2</pos></heightmap></geometry>'
        '<laser_retro>102</laser_retro></collision></link></model>'
    )
    world = load_world(write(tmp_path, text))
    assert len(world.entities[0].surface) == 2
    hits = cast(world, [[0.3, 0.0, 5.0], [0.3, 1.0, 5.0]], [[0, 0, -1]] * 2)
    assert hits.ranges == pytest.approx([5 + 1.5, 5 + 2 - 0.25], rel=F32)
    assert hits.reflectivity == pytest.approx([0.4, 0.4])


def test_elements_that_do_not_shape_a_hit_are_skipped_and_visual_on_request(tmp_path):
    text = sdf("""
<physics name="p" type="ode"><max_step_size>0.001</max_step_size></physics>
<light type="point" name="lamp"/><gui/><scene><ambient>1 1 1 1</ambient></scene>
<plugin filename="x" name="y"/><spherical_coordinates/><atmosphere type="adiabatic"/>
<actor name="diver"><skin><filename>diver.dae</filename></skin></actor>
<custom:thing xmlns:custom="http://example.com"/>
<model name="m">
  <plugin filename="a" name="b"/><enable_wind>false</enable_wind>
  <link name="l">
    <inertial><mass>1</mass></inertial><sensor name="s" type="gpu_lidar"/>
    <light name="led" type="spot"/>
    <collision name="c"><geometry><box><size>1 1 1</size></box></geometry>
      <surface><friction/></surface></collision>
    <visual name="v"><geometry><sphere><radius>1</radius></sphere></geometry>
      <material><ambient>1 0 0 1</ambient></material></visual>
  </link>
</model>
""")
    path = write(tmp_path, text)
    assert [len(e.surface) for e in load_world(path).entities] == [12]
    assert [len(e.surface) for e in load_world(path, geometry='visual').entities] == [5120]


def test_the_triangle_limit_is_checked_before_tessellating(tmp_path, monkeypatch):
    monkeypatch.setattr(sdf_module, 'MAX_SDF_TRIANGLES', 100)
    text = sdf(
        box_model('a', '1 1 1')
        + '\n<model name="b"><link name="l"><collision name="c"><geometry>\n'
        + '<sphere><radius>1</radius></sphere></geometry></collision></link></model>'
    )
    with pytest.raises(SceneError) as err:
        load_world(write(tmp_path, text))
    check_one_line(
        err.value, 'w.sdf:5:', '<sphere>: the world has more than 100 triangles (the limit'
    )


def test_parse_sdf_world_without_a_file_uses_the_given_model_path(tmp_path):
    model_dir(tmp_path, 'block', cube_model(1.0), None)
    text = sdf('<include><uri>model://block</uri><pose>0 0 0 0 0 0</pose></include>')
    world = parse_sdf_world(text, model_path=[tmp_path])
    assert world.entity_names == ('block',)
    with pytest.raises(SceneError) as err:
        parse_sdf_world(text, model_path=[])
    check_one_line(err.value, '<string>:3: <uri>:', 'SDF_PATH (searched nothing: all are unset)')


# --- located errors -------------------------------------------------------------------------


def shape(geometry: str, after: str = '') -> str:
    """A model whose ``geometry`` is on line 4 (line 3 opens its <geometry>, line 5 closes)."""
    return (
        '<model name="m"><link name="l"><collision name="c"><geometry>\n'
        f'{geometry}\n</geometry>{after}</collision></link></model>'
    )


LENGTH = 'must be a length in [0, 1000000] m'
#: A file name longer than any file system allows (255 bytes), and how messages show it.
LONG_NAME = 'a' * 256
LONG_SHOWN = f"'{'a' * 80}'... (256 characters)"

# (id, body of the world from line 3, line, 'element: problem'); {models} and {dir} are the
# model search directory and the world's directory.
ERRORS = [
    ('negative box', shape('<box><size>-1 1 1</size></box>'), 4,
     "<size>: '-1 1 1' must be 3 lengths in [0, 1000000] m"),
    ('negative radius', shape('<sphere><radius>-0.5</radius></sphere>'), 4,
     f"<radius>: '-0.5' {LENGTH}"),
    ('no radius', shape('<sphere/>'), 4, '<sphere>: missing required <radius>'),
    ('no length', shape('<cylinder><radius>1</radius></cylinder>'), 4,
     '<cylinder>: missing required <length>'),
    ('huge capsule', shape('<capsule><radius>1</radius><length>1e7</length></capsule>'), 4,
     f"<length>: '1e7' {LENGTH}"),
    ('two radii', shape('<ellipsoid><radii>1 2</radii></ellipsoid>'), 4,
     "<radii>: '1 2' must be 3 numbers, got 2"),
    ('nan radius', shape('<sphere><radius>nan</radius></sphere>'), 4,
     "<radius>: 'nan' must be finite (no nan or inf)"),
    ('zero normal', shape('<plane><normal>0 0 0</normal><size>1 1</size></plane>'), 4,
     "<normal>: '0 0 0' must be a non-zero vector"),
    ('no plane size', shape('<plane><normal>0 0 1</normal></plane>'), 4,
     '<plane>: missing required <size>'),
    ('unknown kind', shape('<cone><radius>1</radius></cone>'), 4,
     '<cone>: unknown geometry <cone> (expected one of box, capsule, cylinder, ellipsoid, '
     'heightmap, mesh, plane, sphere, empty)'),
    ('heightmap size', shape('<heightmap><uri>h.png</uri></heightmap>'), 4,
     '<heightmap>: missing required <size>'),
    ('heightmap file', shape('<heightmap><uri>h.npy</uri><size>1 1 1</size></heightmap>'), 4,
     '<heightmap>: heightmap file not found: {dir}/h.npy'),
    ('polyline', shape('<polyline><height>1</height></polyline>'), 4,
     '<polyline>: <polyline> geometry is not supported here'),
    ('two shapes', shape('<box><size>1 1 1</size></box><sphere><radius>1</radius></sphere>'),
     3, '<geometry>: needs exactly one shape'),
    ('no geometry', '<model name="m"><link name="l"><collision name="c"/></link></model>', 3,
     '<collision name="c">: missing required <geometry>'),
    ('model:// mesh', shape('<mesh><uri>model://nowhere/m.stl</uri></mesh>'), 4,
     "<mesh filename=\"model://nowhere/m.stl\">: model 'nowhere' of 'model://nowhere/m.stl' "
     'is in none of GZ_SIM_RESOURCE_PATH, GAZEBO_MODEL_PATH, SDF_PATH (searched {models})'),
    ('missing mesh', shape('<mesh><uri>missing.stl</uri></mesh>'), 4,
     '<mesh filename="missing.stl">: mesh file not found: {dir}/missing.stl'),
    ('fuel mesh', shape('<mesh><uri>https://fuel.gazebosim.org/m.dae</uri></mesh>'), 4,
     "<mesh filename=\"https://fuel.gazebosim.org/m.dae\">: unsupported URI scheme 'https'"),
    ('zero mesh scale', shape('<mesh><uri>m.stl</uri><scale>1 0 1</scale></mesh>'), 4,
     "<scale>: '1 0 1' must be three non-zero numbers within 1e6"),
    ('submesh', shape('<mesh><uri>m.stl</uri><submesh><name>a</name></submesh></mesh>'), 4,
     '<mesh>: <submesh> is not supported'),
    ('negative retro', shape('<box><size>1 1 1</size></box>', '<laser_retro>-3</laser_retro>'),
     5, "<laser_retro>: '-3' must be >= 0"),
    ('pose count', '<model name="m"><pose>1 2 3</pose></model>', 3,
     "<pose>: '1 2 3' must be 6 numbers, got 3"),
    ('degrees', '<model name="m"><pose degrees="yes">0 0 0 0 0 0</pose></model>', 3,
     "<pose>: degrees='yes' must be true, false, 1 or 0"),
    ('far pose', '<model name="m"><pose>2e6 0 0 0 0 0</pose></model>', 3,
     '<pose>: position (2000000.0, 0.0, 0.0) must be within 1000000 m'),
    ('zero quaternion', '<model name="m"><pose rotation_format="quat_xyzw">0 0 0 0 0 0 0</pose>'
     '</model>', 3, '<pose>: quaternion (0.0, 0.0, 0.0, 0.0) must have a norm in [1e-6, 1e6]'),
    ('unknown frame', '<model name="m"><pose relative_to="ghost"/></model>', 3,
     "<model name=\"m\">: unknown frame 'ghost' (known: world, m)"),
    ('unknown nested', '<model name="m"><pose relative_to="x::y"/></model>', 3,
     "<model name=\"m\">: unknown frame 'x::y': no nested model named 'x'"),
    ('cycle', '<model name="a"><pose relative_to="b"/></model>\n'
     '<model name="b"><pose relative_to="a"/></model>', 3,
     '<model name="a">: poses form a cycle: a -> b -> a'),
    ('two models', '<model name="a"/>\n<model name="a"/>', 4,
     "<model name=\"a\">: two frames named 'a' (models, links, joints, frames)"),
    ('no link name', '<model name="m"><link/></model>', 3,
     "<link>: missing required attribute 'name'"),
    ('reserved name', '<model name="world"/>', 3,
     "<model name=\"world\">: name 'world' is reserved or contains '::'"),
    ('static', '<model name="m"><static>maybe</static></model>', 3,
     "<static>: 'maybe' must be true, false, 1 or 0"),
    ('population', '<population name="p"/>', 3,
     '<population name="p">: <population> is not supported: write its models out'),
    ('include nowhere', '<include><uri>model://nowhere</uri></include>', 3,
     "<uri>: model 'nowhere' of 'model://nowhere' is in none of GZ_SIM_RESOURCE_PATH, "
     'GAZEBO_MODEL_PATH, SDF_PATH (searched {models})'),
    ('include no uri', '<include><name>x</name></include>', 3,
     '<include>: missing required <uri>'),
    ('include fuel', '<include><uri>https://fuel.gazebosim.org/1.0/o/models/Rock</uri>'
     '</include>', 3, "<uri>: unsupported URI scheme 'https'"),
    ('include path', '<include><uri>gone</uri></include>', 3,
     "<uri>: model 'gone' not found: {dir}/gone"),
    # malformed and impossible names: located errors, never OSError or ValueError
    ('include bad URI', '<include><uri>http://[</uri></include>', 3,
     "<uri>: 'http://[' is not a valid URI: Invalid IPv6 URL"),
    ('include long name', f'<include><uri>{LONG_NAME}</uri></include>', 3,
     f"<uri>: model {LONG_SHOWN} not found: {{dir}}/{LONG_NAME}"),
    ('include long model', f'<include><uri>model://{LONG_NAME}</uri></include>', 3,
     f'<uri>: model {LONG_SHOWN} of '),
    ('include NUL', '<include><uri>file:///x%00.sdf</uri></include>', 3,
     "<uri>: 'file:///x%00.sdf' holds a NUL character"),
    ('include /dev/zero', '<include><uri>/dev/zero</uri></include>', 3,
     '<include>: included file /dev/zero is not a regular file (character device)'),
    ('mesh long name', shape(f'<mesh><uri>{LONG_NAME}.stl</uri></mesh>'), 4,
     f'<mesh filename="{LONG_NAME[:80]}...">: mesh file not found: {{dir}}/{LONG_NAME}.stl'),
    ('mesh long model', shape(f'<mesh><uri>model://{LONG_NAME}/m.stl</uri></mesh>'), 4,
     f'<mesh filename="model://{LONG_NAME[:72]}...">: model {LONG_SHOWN} of '),
    ('mesh NUL', shape('<mesh><uri>file:///x%00.stl</uri></mesh>'), 4,
     "<mesh filename=\"file:///x%00.stl\">: 'file:///x%00.stl' holds a NUL character"),
    ('mesh bad URI', shape('<mesh><uri>http://[/m.stl</uri></mesh>'), 4,
     '<mesh filename="http://[/m.stl">: Invalid IPv6 URL'),
    ('heightmap long name',
     shape(f'<heightmap><uri>{LONG_NAME}.npy</uri><size>1 1 1</size></heightmap>'), 4,
     f'<heightmap>: heightmap file not found: {{dir}}/{LONG_NAME}.npy'),
    ('heightmap NUL',
     shape('<heightmap><uri>file:///x%00.npy</uri><size>1 1 1</size></heightmap>'), 4,
     "<uri>: 'file:///x%00.npy' holds a NUL character"),
    # long values are cut, names with line breaks escaped
    ('huge pose', '<model name="m"><pose>' + '1 ' * 100_000 + '</pose></model>', 3,
     "<pose>: '" + '1 ' * 40 + "'... (199999 characters) must be 6 numbers, got 100000"),
    ('long name', f'<model name="{LONG_NAME}::x"/>', 3,
     f"<model name=\"{'a' * 87}...: name {LONG_SHOWN[:-16]}(259 characters) is reserved or"),
    ('U+2028 name', '<model name="a\u2028b"><pose relative_to="ghost"/></model>', 3,
     "<model name=\"a\\u2028b\">: unknown frame 'ghost' (known: world, a\\u2028b)"),
    ('NEL name', '<model name="a\x85b"><pose relative_to="ghost"/></model>', 3,
     "<model name=\"a\\x85b\">: unknown frame 'ghost' (known: world, a\\x85b)"),
    ('newline name', '<model name="a&#10;b&#13;c"><pose relative_to="ghost"/></model>', 3,
     "<model name=\"a\\nb\\rc\">: unknown frame 'ghost' (known: world, a\\nb\\rc)"),
]  # fmt: skip

HEADERS = [
    ('1.5', '<sdf version="1.5"><world name="w"/></sdf>', 1,
     "<sdf>: version='1.5' is not supported (SDFormat 1.6, 1.7, 1.8, 1.9, 1.10, 1.11)"),
    ('2.0', '<sdf version="2.0"><world name="w"/></sdf>', 1, "<sdf>: version='2.0'"),
    ('no version', '<sdf><world name="w"/></sdf>', 1, "<sdf>: version='' is not supported"),
    ('no world', '<sdf version="1.9">\n<model name="m"/></sdf>', 1,
     '<sdf>: expected one <world> in <sdf>, got 0'),
    ('world root', '<world name="w">\n</world>', 1,
     '<world name="w">: expected <sdf>, got <world>'),
    ('malformed', '<sdf version="1.9">\n<world name="w">\n</sdf>', 3, 'malformed XML: '),
    ('no world name', '<sdf version="1.9">\n<world/></sdf>', 2,
     "<world>: missing required attribute 'name'"),
]  # fmt: skip


@pytest.mark.parametrize(
    ('text', 'line', 'expected'),
    [(sdf(body), line, expected) for _, body, line, expected in ERRORS]
    + [(text, line, expected) for _, text, line, expected in HEADERS],
    ids=[case[0] for case in ERRORS + HEADERS],
)
def test_located_errors(tmp_path, model_path, text, line, expected):
    (tmp_path / 'models').mkdir()
    model_path('GZ_SIM_RESOURCE_PATH', tmp_path / 'models')
    trimesh.creation.box().export(tmp_path / 'm.stl')
    path = write(tmp_path, text)
    with pytest.raises(SceneError) as err:
        load_world(path)
    expected = expected.format(models=tmp_path / 'models', dir=tmp_path)
    message = check_one_line(err.value, f'{path}:{line}: ', f'{path}:{line}: {expected}')
    assert len(message.splitlines()) == 1, message  # no U+2028, U+0085, ... either
    assert len(message) < 1500, message
