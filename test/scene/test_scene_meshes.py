"""Mesh files: path resolution (relative, file://, package://) and reading STL, OBJ and DAE."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import trimesh

from nps_sonar_py.errors import SceneError
from nps_sonar_py.scene.meshes import MeshLoader, read_mesh, resolve_mesh_path, resolve_package

WORLDS = Path(__file__).resolve().parents[2] / 'config' / 'worlds'


def _box_file(path: Path, extents=(1.0, 2.0, 3.0)) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    trimesh.creation.box(extents).export(path)
    return path


def _ament_prefix(root: Path, package: str) -> Path:
    marker = root / 'share' / 'ament_index' / 'resource_index' / 'packages' / package
    marker.parent.mkdir(parents=True)
    marker.write_text('')
    return root / 'share' / package


def test_relative_absolute_and_file_uris(tmp_path):
    assert resolve_mesh_path('meshes/a.stl', tmp_path) == tmp_path / 'meshes' / 'a.stl'
    assert resolve_mesh_path('/abs/a.stl', tmp_path) == Path('/abs/a.stl')
    assert resolve_mesh_path('file:///abs/my%20mesh.stl', tmp_path) == Path('/abs/my mesh.stl')
    assert resolve_mesh_path('file://rel/a.stl', tmp_path) == tmp_path / 'rel' / 'a.stl'


def test_package_uri_through_the_ament_index(tmp_path, monkeypatch):
    share = _ament_prefix(tmp_path / 'overlay', 'my_pkg')
    _ament_prefix(tmp_path / 'underlay', 'my_pkg')
    monkeypatch.setenv(
        'AMENT_PREFIX_PATH',
        f'{tmp_path / "missing"}:{tmp_path / "overlay"}:{tmp_path / "underlay"}',
    )
    assert resolve_package('my_pkg') == share
    assert resolve_mesh_path('package://my_pkg/meshes/a.dae', None) == share / 'meshes' / 'a.dae'
    with pytest.raises(LookupError, match="package 'other_pkg'"):
        resolve_mesh_path('package://other_pkg/a.stl', None)


def test_package_resolver_comes_first_and_may_decline(tmp_path, monkeypatch):
    monkeypatch.setenv('AMENT_PREFIX_PATH', '')
    known = {'pkg': tmp_path / 'share' / 'pkg'}

    def resolver(name: str) -> Path:
        return known[name]  # KeyError, like ament_index_python's PackageNotFoundError

    assert (
        resolve_mesh_path('package://pkg/m.stl', None, package_resolver=resolver)
        == known['pkg'] / 'm.stl'
    )
    assert resolve_package('nope', package_resolver=resolver) is None
    assert resolve_package('nope', package_resolver=lambda name: None) is None


@pytest.mark.parametrize(
    ('uri', 'match'),
    [
        ('model://tank/mesh.dae', "unsupported URI scheme 'model'"),
        ('http://x/a.stl', "scheme 'http'"),
        ('package://pkg', 'must be package://'),
        ('', 'empty mesh path'),
    ],
)
def test_bad_uris(uri, match, tmp_path):
    with pytest.raises((ValueError, LookupError), match=match):
        resolve_mesh_path(uri, tmp_path)


@pytest.mark.parametrize('suffix', ['.stl', '.obj', '.STL'])
def test_read_stl_and_obj(tmp_path, suffix):
    mesh = read_mesh(_box_file(tmp_path / f'box{suffix}'))
    assert len(mesh) == 12
    np.testing.assert_allclose(mesh.vertices.min(axis=0), [-0.5, -1.0, -1.5], atol=1e-6)
    np.testing.assert_allclose(mesh.vertices.max(axis=0), [0.5, 1.0, 1.5], atol=1e-6)


def test_read_dae_applies_its_unit(tmp_path):
    path = _box_file(tmp_path / 'box.dae')
    text = path.read_text()
    assert '<unit' not in text
    path.write_text(text.replace('<asset>', '<asset><unit meter="0.01" name="centimeter"/>', 1))
    mesh = read_mesh(path)
    assert len(mesh) == 12
    np.testing.assert_allclose(mesh.vertices.max(axis=0), [0.005, 0.01, 0.015], atol=1e-9)


def test_shipped_ring_buoy():
    mesh = read_mesh(WORLDS / 'meshes' / 'ring_buoy.obj')
    assert len(mesh) == 384
    np.testing.assert_allclose(mesh.vertices.max(axis=0), [0.5, 0.5, 0.1], atol=1e-6)


def test_mesh_errors_name_the_referring_file_and_line(tmp_path):
    where = {'file': 'robot.urdf', 'line': 7}
    with pytest.raises(
        SceneError, match=r'^robot\.urdf:7: <mesh filename="gone\.stl">: mesh file not found: '
    ):
        read_mesh(tmp_path / 'gone.stl', **where)
    (tmp_path / 'a.ply').write_text('ply')
    with pytest.raises(SceneError, match=r"robot\.urdf:7: .*unsupported mesh format '\.ply'"):
        read_mesh(tmp_path / 'a.ply', **where)
    (tmp_path / 'noise.stl').write_bytes(b'solid x\nfacet normal nonsense\n' * 3)
    with pytest.raises(
        SceneError, match=r'robot\.urdf:7: .*(cannot read mesh|holds no triangles)'
    ):
        read_mesh(tmp_path / 'noise.stl', **where)
    (tmp_path / 'broken.dae').write_text('<COLLADA><asset>')
    with pytest.raises(SceneError, match=r'cannot read mesh .*broken\.dae'):
        read_mesh(tmp_path / 'broken.dae', **where)
    (tmp_path / 'empty.obj').write_text('# nothing\n')
    with pytest.raises(SceneError, match=r'(holds no triangles|cannot read mesh)'):
        read_mesh(tmp_path / 'empty.obj', **where)
    (tmp_path / 'locked.stl').mkdir()  # a directory is not a readable file
    with pytest.raises(SceneError, match=r'locked\.stl is not a regular file \(directory\)'):
        read_mesh(tmp_path / 'locked.stl', **where)


def test_loader_reads_each_file_once_and_wraps_resolution_errors(tmp_path):
    _box_file(tmp_path / 'box.stl')
    loader = MeshLoader()
    first = loader.load('box.stl', tmp_path, file='r.urdf', line=3)
    assert loader.load(f'file://{tmp_path}/box.stl', None) is first
    with pytest.raises(
        SceneError, match=r'^r\.urdf:4: <mesh filename="model://x/y\.dae">: unsupported URI scheme'
    ):
        loader.load('model://x/y.dae', tmp_path, file='r.urdf', line=4)
