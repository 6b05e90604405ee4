"""Randomly corrupted scene, model and mesh files load or raise SceneError/DescriptionError."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nps_sonar_py.errors import DescriptionError, SceneError
from nps_sonar_py.scene import World, load_world

WORLDS = Path(__file__).resolve().parents[2] / 'config' / 'worlds'

SCENE = """\
<world name="c">
  <model name="tank" file="models/tank.urdf" retro="10"/>
  <model name="ring" reflectivity="0.5">
    <robot name="ring"><link name="ring">
      <collision><origin xyz="0 0 1" rpy="0 0.1 0"/>
        <geometry><mesh filename="meshes/ring_buoy.obj" scale="1 1 2"/></geometry></collision>
      <collision><geometry><cylinder radius="0.2" length="0.5"/></geometry>
        <laser_retro>9</laser_retro></collision>
    </link></robot>
  </model>
  <model name="ball"><robot name="ball"><link name="b">
    <visual><geometry><sphere radius="0.3"/></geometry></visual>
    <collision><geometry><sphere radius="0.3"/></geometry></collision></link></robot></model>
  <scene_state scene="c" time_stamp="1.5">
    <entity_state model="ring"><parent frame="tank::walls"/><origin xyz="1 2 0.5" rpy="0 0 1"/>
      <twist linear="0.1 0 0" angular="0 0 0.2"/></entity_state>
    <entity_state model="ball"><parent frame="ring"/><origin xyz="0 0 1"/></entity_state>
  </scene_state>
</world>
"""

#: Fragments that make plausible mistakes: XML syntax, numbers, names, frames.
FRAGMENTS = st.sampled_from(
    [
        '<',
        '>',
        '/>',
        '"',
        "'",
        '=',
        ' ',
        '\n',
        '&',
        '&amp;',
        '<!--',
        '-->',
        '-1',
        '0',
        'nan',
        'inf',
        '1e400',
        '1e308',
        '9e29',
        '::',
        'world',
        'tank',
        'ring',
        'ball',
        'walls',
        'x',
        '.stl',
        '.ply',
        '../',
        'package://',
        '<model name="z"/>',
        '<entity_state model="tank"><parent frame="ball"/></entity_state>',
        '</robot>',
        '<link name="q"/>',
    ],
)


@st.composite
def corrupted(draw: st.DrawFn, text: str) -> str:
    for _ in range(draw(st.integers(1, 3))):
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 20)))
        action = draw(st.sampled_from(['delete', 'insert', 'replace', 'duplicate']))
        if action == 'delete':
            text = text[:start] + text[end:]
        elif action == 'duplicate':
            text = text[:end] + text[start:end] + text[end:]
        else:
            piece = draw(st.one_of(FRAGMENTS, st.text(min_size=1, max_size=4)))
            text = text[:start] + piece + (text[end:] if action == 'replace' else text[start:])
    return text


@pytest.fixture(scope='module')
def scene_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp('corrupt')
    shutil.copytree(WORLDS / 'models', root / 'models')
    shutil.copytree(WORLDS / 'meshes', root / 'meshes')
    (root / 'scene.world').write_text(SCENE)
    return root


def _load_or_input_error(path: Path) -> None:
    try:
        world = load_world(path, sphere_subdivisions=1)
    except (SceneError, DescriptionError) as err:
        message = str(err)
    else:
        message = None
    if message is not None:
        assert '\n' not in message
        return
    # nothing half-loads: whatever loads is whole and consistent
    assert isinstance(world, World)
    for entity in world.entities:
        assert np.all(np.isfinite(entity.surface.vertices))
        assert entity.reflectivity.shape == (len(entity.surface),)
        assert np.all((entity.reflectivity >= 0.0) & (entity.reflectivity <= 1.0))
        if len(entity.surface):
            assert entity.surface.triangles.max() < entity.surface.vertices.shape[0]
    assert np.all(np.isfinite(world.poses(world.time_stamp)))


def test_the_uncorrupted_scene_loads(scene_dir):
    world = load_world(scene_dir / 'scene.world')
    assert world.entity_names == ('tank', 'ring', 'ball')
    assert world.moving().tolist() == [False, True, True]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_corrupted_scene_files(scene_dir, data):
    path = scene_dir / 'scene.world'
    path.write_text(data.draw(corrupted(SCENE)))
    try:
        _load_or_input_error(path)
    finally:
        path.write_text(SCENE)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_corrupted_model_files(scene_dir, data):
    path = scene_dir / 'models' / 'tank.urdf'
    original = (WORLDS / 'models' / 'tank.urdf').read_text()
    path.write_text(data.draw(corrupted(original)))
    try:
        _load_or_input_error(scene_dir / 'scene.world')
    finally:
        path.write_text(original)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_corrupted_mesh_files(scene_dir, data):
    path = scene_dir / 'meshes' / 'ring_buoy.obj'
    original = (WORLDS / 'meshes' / 'ring_buoy.obj').read_bytes()
    start = data.draw(st.integers(0, len(original)))
    end = data.draw(st.integers(start, min(len(original), start + 200)))
    junk = data.draw(st.binary(max_size=16))
    path.write_bytes(original[:start] + junk + original[end:])
    try:
        _load_or_input_error(scene_dir / 'scene.world')
    finally:
        path.write_bytes(original)
