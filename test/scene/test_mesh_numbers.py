"""A mesh vertex that is not a finite number is refused in one located line, without warnings.

Each format is tried with ``nan``, ``inf``, ``-inf`` and an overflow (``1e999``) as the first
vertex's x: STL and OBJ as trimesh reads them (then checked here), COLLADA (``.dae``) before
trimesh reads it, since trimesh's COLLADA reader turns a ``nan`` into 0 (a vertex at the
origin) and drops a triangle with an ``inf``. The scene file's ``<collision>`` naming the mesh
is on line 3.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from nps_sonar_py.errors import SceneError
from nps_sonar_py.scene import load_world

STL = """solid t
facet normal 0 0 1
outer loop
vertex {x} 0 0
vertex 1 0 0
vertex 0 1 0
endloop
endfacet
endsolid t
"""
OBJ = 'v {x} 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n'
DAE = """<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit meter="1"/></asset>
  <library_geometries><geometry id="g"><mesh>
    <source id="p">
      <float_array id="pa" count="9">{x} 0 0 1 0 0 0 1 0</float_array>
      <technique_common><accessor source="#pa" count="3" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common>
    </source>
    <vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
    <triangles count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>0 1 2</p></triangles>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="s"><node id="n"><instance_geometry url="#g"/></node>
  </visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>
"""
SCENE = """<world name="w">
  <model name="m"><robot name="m"><link name="l">
    <collision><geometry><mesh filename="{name}"/></geometry></collision>
  </link></robot></model>
</world>
"""
#: What follows ``mesh <path>`` in the error: trimesh's readers keep the value (checked after).
AFTER_READING = ' has invalid vertices or faces'

# (case id, file name, its text, the problem after "mesh <path>")
CASES = [
    *[
        (f'stl-{x}', 'bad.stl', STL.format(x=x), AFTER_READING)
        for x in ('nan', 'inf', '-inf', '1e999')
    ],
    *[
        (f'obj-{x}', 'bad.obj', OBJ.format(x=x), AFTER_READING)
        for x in ('nan', 'inf', '-inf', '1e999')
    ],
    *[
        (
            f'dae-{x}',
            'bad.dae',
            DAE.format(x=x),
            f""": <float_array id="pa"> (line 6) holds '{x}': vertex positions must be finite"""
            ' numbers',
        )
        for x in ('nan', 'inf', '-inf', '1e999', 'NaN')
    ],
]


@pytest.mark.parametrize(
    ('name', 'text', 'problem'), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_vertex_that_is_not_finite_is_one_line_and_no_warning(
    tmp_path: Path, name: str, text: str, problem: str
) -> None:
    mesh = tmp_path / name
    mesh.write_text(text)
    scene = tmp_path / 'w.world'
    scene.write_text(SCENE.format(name=name))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        with pytest.raises(SceneError) as info:
            load_world(scene)
    assert [str(w.message) for w in caught] == []
    expected = f'{scene}:3: <mesh filename="{name}">: mesh {mesh}{problem}'
    assert str(info.value) == expected


@pytest.mark.parametrize('name', ['good.stl', 'good.obj', 'good.dae'])
def test_the_same_files_with_finite_vertices_load(tmp_path: Path, name: str) -> None:
    text = {'.stl': STL, '.obj': OBJ, '.dae': DAE}[Path(name).suffix].format(x='0.5')
    (tmp_path / name).write_text(text)
    scene = tmp_path / 'w.world'
    scene.write_text(SCENE.format(name=name))
    vertices = load_world(scene).entities[0].surface.vertices
    assert sorted(map(tuple, vertices.tolist())) == [
        (0.0, 1.0, 0.0),
        (0.5, 0.0, 0.0),
        (1.0, 0.0, 0.0),
    ]
