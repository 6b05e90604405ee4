"""Reflectivity maps: mu read from a grayscale PNG at each hit, on heightmaps and meshes.

The conventions under test (docs/scene.md, "Seabed reflectivity maps"): ``mu = p / p_full``
(255 or 65535); on a heightmap of extent ``size`` centred on ``pos``, pixel ``(i, j)`` of an
H x W map sits at ``x = pos_x - size_x / 2 + j size_x / (W - 1)``,
``y = pos_y + size_y / 2 - i size_y / (H - 1)`` (row 0 at +y), bilinear in between; on a
mesh, OpenGL's convention: texel centres at ``((j + 0.5) / W, 1 - (i + 0.5) / H)``, v up,
repeating. Expected values are worked out by hand from these formulas.
"""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from one_line import check_one_line
from PIL import Image

from nps_sonar_py.errors import SceneError
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.scene.reflectivity_map import MAX_REFLECTIVITY_MAP_PIXELS

DOWN = np.array([0.0, 0.0, -1.0])
# float32 barycentric coordinates inside Open3D: texture coordinates to ~1e-7 of the extent
ATOL = 2e-5


def png(path: Path, codes: np.ndarray) -> Path:
    """Write ``codes`` (uint8 or uint16, row 0 the image's top row) as a grayscale PNG."""
    Image.fromarray(codes).save(path)
    return path


def sdf(tmp_path: Path, geometry: str, *, extra: str = '', retro: float | None = None) -> Path:
    """An SDF world with one model 'm' whose collision holds ``geometry`` (line 5)."""
    laser = f'<laser_retro>{retro}</laser_retro>' if retro is not None else ''
    text = (
        '<sdf version="1.9" xmlns:nps="urn:nps_sonar">\n'
        '<world name="w">\n'
        '<model name="m"><static>true</static>\n'
        '<link name="l"><collision name="c">\n'
        f'<geometry>{geometry}</geometry>{laser}\n'
        f'</collision>{extra}</link></model>\n'
        '</world></sdf>\n'
    )
    path = tmp_path / 'w.sdf'
    path.write_text(text)
    return path


def scene_file(tmp_path: Path, heightmap: str) -> Path:
    """A scene file with one heightmap model 'm' (the <heightmap> on line 3)."""
    text = f'<world name="w">\n<model name="m" retro="40">\n{heightmap}\n</model>\n</world>\n'
    path = tmp_path / 'w.world'
    path.write_text(text)
    return path


def cast_down(caster: Raycaster, xy: np.ndarray, z0: float = 5.0):
    origins = np.column_stack((xy, np.full(len(xy), z0)))
    return caster.cast(origins, np.tile(DOWN, (len(xy), 1)))


# --- heightmaps ---------------------------------------------------------------------------

# A flat seabed 30 m x 10 m at z = -10 and a 4 x 2 map: columns 0, 1 at g = 51/255 = 0.2,
# columns 2, 3 at 204/255 = 0.8. Pixel centres at x = -15, -5, 5, 15 (spacing 30 / 3), so
# mu = 0.2 for x <= -5, 0.8 for x >= 5, and 0.2 + 0.6 (x + 5) / 10 in between.
HALVES = np.array([[51, 51, 204, 204], [51, 51, 204, 204]], dtype=np.uint8)


def halves_closed_form(x: np.ndarray) -> np.ndarray:
    return np.interp(x, [-5.0, 5.0], [0.2, 0.8])


def _halves_world(tmp_path: Path, form: str) -> Path:
    png(tmp_path / 'mu.png', HALVES)
    if form == 'scene-npy':
        # (C - 1) / (R - 1) = 3 = (W - 1) / (H - 1)
        np.save(tmp_path / 'bed.npy', np.zeros((3, 7)))
        return scene_file(
            tmp_path,
            '<heightmap file="bed.npy" size="30 10" pos="0 0 -10" reflectivity_map="mu.png"/>',
        )
    png(tmp_path / 'bed.png', np.zeros((4, 10), dtype=np.uint16))  # flat; 9 / 3 = 3
    return sdf(
        tmp_path,
        '<heightmap><uri>bed.png</uri><size>30 10 2</size><pos>0 0 -10</pos>'
        '<nps:reflectivity_map>mu.png</nps:reflectivity_map></heightmap>',
        retro=40,
    )


@pytest.mark.parametrize('form', ['sdf-png', 'scene-npy'])
def test_two_halves_step_where_the_pixels_sit(tmp_path, form):
    caster = Raycaster(load_world(_halves_world(tmp_path, form)))
    rng = np.random.default_rng(3)
    x = np.linspace(-14.9, 14.9, 597)
    xy = np.column_stack((x, rng.uniform(-4.9, 4.9, x.size)))
    hits = cast_down(caster, xy)
    assert np.all(hits.hit)
    np.testing.assert_allclose(hits.ranges, 15.0, rtol=1e-6)
    left, right = x < -5.001, x > 5.001  # off the texel centres, which float32 may cross
    # exact on each side: the four texels around a hit there are equal
    np.testing.assert_allclose(hits.reflectivity[left], 0.2, rtol=0, atol=1e-12)
    np.testing.assert_allclose(hits.reflectivity[right], 0.8, rtol=0, atol=1e-12)
    # the blend across the one pixel boundary, linear in x, the same at every y
    np.testing.assert_allclose(hits.reflectivity, halves_closed_form(x), rtol=0, atol=ATOL)
    assert np.count_nonzero(~left & ~right) > 100  # the blend was sampled
    # laser_retro stays as read (40, or the scene file's retro 40), not the map's grey
    np.testing.assert_array_equal(hits.retro, 40.0)


def test_two_halves_on_a_moving_seabed(tmp_path):
    world = load_world(_halves_world(tmp_path, 'sdf-png'))
    caster = Raycaster(world, dynamic=['m'])
    assert caster.moving_entities == ('m',)
    shift = np.eye(4)
    shift[:3, 3] = (2.0, 0.0, 0.0)  # the step moves with the seabed to x in [-3, 7]
    caster.set_entity_pose('m', shift)
    x = np.linspace(-12.9, 16.9, 300)
    hits = cast_down(caster, np.column_stack((x, np.zeros_like(x))))
    np.testing.assert_allclose(hits.reflectivity, halves_closed_form(x - 2.0), rtol=0, atol=ATOL)


def test_a_map_pixel_sits_over_its_height_pixel(tmp_path):
    # 5 x 5 heights and a 5 x 5 16-bit map, both bright at row 1, column 3 only: that sample
    # is at x = -10 + 3 * 5 = 5, y = 10 - 1 * 5 = 5 (size 20 x 20, pos at the origin), raised
    # by size_z = 2 m, and reads mu = 65535 / 65535 = 1; every other sample reads 0.
    bright = np.zeros((5, 5), dtype=np.uint16)
    bright[1, 3] = 65535
    png(tmp_path / 'bed.png', bright)
    png(tmp_path / 'mu.png', bright)
    world = sdf(
        tmp_path,
        '<heightmap><uri>bed.png</uri><size>20 20 2</size><pos>0 0 0</pos>'
        '<nps:reflectivity_map>mu.png</nps:reflectivity_map></heightmap>',
    )
    caster = Raycaster(load_world(world))
    i, j = np.meshgrid(np.arange(1, 4), np.arange(1, 4), indexing='ij')
    xy = np.column_stack(((-10.0 + 5.0 * j).ravel(), (10.0 - 5.0 * i).ravel()))
    hits = cast_down(caster, xy, z0=10.0)
    at = (i.ravel() == 1) & (j.ravel() == 3)
    np.testing.assert_allclose(hits.ranges, np.where(at, 8.0, 10.0), rtol=1e-6)
    np.testing.assert_allclose(hits.reflectivity, np.where(at, 1.0, 0.0), rtol=0, atol=ATOL)


def test_top_left_pixel_is_over_the_minus_x_plus_y_corner(tmp_path):
    # A 3 x 3 8-bit map bright (255) at row 0, column 0 only, on a flat 8 m x 4 m heightmap
    # of 3 x 3 samples: pixel spacing 4 m in x and 2 m in y; near (-4, +2) mu is
    # (1 - a)(1 - b), a = (x + 4) / 4, b = (2 - y) / 2; the other corners read 0.
    codes = np.zeros((3, 3), dtype=np.uint8)
    codes[0, 0] = 255
    np.save(tmp_path / 'bed.npy', np.zeros((3, 3)))
    png(tmp_path / 'mu.png', codes)
    world = scene_file(
        tmp_path, '<heightmap file="bed.npy" size="8 4" reflectivity_map="mu.png"/>'
    )
    caster = Raycaster(load_world(world))
    xy = np.array([[-3.9, 1.9], [-3.0, 1.5], [3.9, 1.9], [-3.9, -1.9], [3.9, -1.9]])
    hits = cast_down(caster, xy)
    a, b = (xy[:2, 0] + 4.0) / 4.0, (2.0 - xy[:2, 1]) / 2.0
    expected = np.concatenate(((1.0 - a) * (1.0 - b), [0.0, 0.0, 0.0]))
    np.testing.assert_allclose(hits.reflectivity, expected, rtol=0, atol=ATOL)
    assert hits.reflectivity[0] > 0.9


# --- meshes -------------------------------------------------------------------------------

# A quad 2 m x 1 m in the plane z = 0: u runs with x / 2, v with y (vt as OpenGL's, v up).
QUAD_OBJ = """v 0 0 0
v 2 0 0
v 2 1 0
v 0 1 0
vt 0 0
vt {u} 0
vt {u} 1
vt 0 1
f 1/1 2/2 3/3
f 1/1 3/3 4/4
"""
# A 4 x 2 map: row 0 (the image's top, v near 1) 10 20 30 40, row 1 (bottom) 50 60 70 80.
QUAD_MAP = np.array([[10, 20, 30, 40], [50, 60, 70, 80]], dtype=np.uint8)


def _quad_world(tmp_path: Path, *, u_max: float = 1.0) -> Path:
    (tmp_path / 'quad.obj').write_text(QUAD_OBJ.format(u=u_max))
    png(tmp_path / 'quad_mu.png', QUAD_MAP)
    box = (
        '<collision name="box"><pose>10 0 -0.5 0 0 0</pose>'
        '<geometry><box><size>1 1 1</size></box></geometry><laser_retro>51</laser_retro>'
        '</collision>'
    )
    return sdf(
        tmp_path,
        '<mesh><uri>quad.obj</uri><nps:reflectivity_map>quad_mu.png</nps:reflectivity_map></mesh>',
        extra=box,
        retro=7,
    )


# (u, v) -> code, by hand: s = 4 u - 0.5 (column), r = 2 (1 - v) - 0.5 (row from the top)
QUAD_CASES = [
    ((0.125, 0.75), 10.0),  # s = 0, r = 0: row 0 (top), column 0
    ((0.125, 0.25), 50.0),  # r = 1: v = 0.25 is the bottom row, v up
    ((0.875, 0.75), 40.0),  # s = 3: column 3
    ((0.25, 0.75), 15.0),  # s = 0.5: halfway between 10 and 20
    ((0.5, 0.5), 45.0),  # s = 1.5, r = 0.5: the mean of 20, 30, 60, 70
    # s = 0.75, r = 0.25: 3/4 of the way to column 1, 1/4 of the way to row 1
    ((0.3125, 0.625), 0.75 * (0.25 * 10 + 0.75 * 20) + 0.25 * (0.25 * 50 + 0.75 * 60)),
]


@pytest.mark.parametrize('dynamic', [False, True])
def test_obj_quad_reads_the_map_at_its_texture_coordinates(tmp_path, dynamic):
    world = load_world(_quad_world(tmp_path))
    caster = Raycaster(world, dynamic=['m'] if dynamic else [])
    uv = np.array([c[0] for c in QUAD_CASES])
    hits = cast_down(caster, np.column_stack((2.0 * uv[:, 0], uv[:, 1])))
    expected = np.array([c[1] for c in QUAD_CASES]) / 255.0
    np.testing.assert_allclose(hits.reflectivity, expected, rtol=0, atol=ATOL)
    np.testing.assert_array_equal(hits.retro, 7.0)
    # the box of the same model has no map: its laser_retro gives mu = 51 / 255
    box = caster.cast([10.0, 0.0, 5.0], [DOWN])
    assert box.reflectivity[0] == pytest.approx(0.2, abs=1e-12)


def test_texture_coordinates_repeat_outside_0_1(tmp_path):
    # vt u from 0 to 2 across the quad: x = 2 u / 2 = u, and u = 1.125 reads as 0.125 does.
    caster = Raycaster(load_world(_quad_world(tmp_path, u_max=2.0)))
    hits = cast_down(caster, np.array([[0.125, 0.75], [1.125, 0.75], [1.5, 0.5]]))
    np.testing.assert_allclose(hits.reflectivity, [10 / 255, 10 / 255, 45 / 255], atol=ATOL)


# --- no map: nothing changes --------------------------------------------------------------


def test_without_a_map_mu_is_the_shapes_and_nothing_is_added(tmp_path):
    (tmp_path / 'quad.obj').write_text(QUAD_OBJ.format(u=1.0))
    world = load_world(sdf(tmp_path, '<mesh><uri>quad.obj</uri></mesh>', retro=51))
    assert world.entities[0].maps is None
    hits = cast_down(Raycaster(world), np.array([[0.25, 0.75], [1.0, 0.5]]))
    np.testing.assert_array_equal(hits.reflectivity, 0.2)  # 51 / 255, the laser_retro's
    np.save(tmp_path / 'bed.npy', np.zeros((3, 7)))
    seabed = load_world(scene_file(tmp_path, '<heightmap file="bed.npy" size="30 10"/>'))
    assert seabed.entities[0].maps is None
    assert seabed.entities[0].surface.uvs is None  # no texture coordinates are made
    hits = cast_down(Raycaster(seabed), np.array([[-10.0, 0.0], [3.0, 2.0]]))
    np.testing.assert_array_equal(hits.reflectivity, 40.0 / 255.0)


# --- bad input ----------------------------------------------------------------------------


def _png_header(path: Path, width: int, height: int) -> None:
    """A PNG that announces width x height 8-bit grey pixels and holds none (never decoded)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', crc)

    ihdr = struct.pack('>IIBBBBB', width, height, 8, 0, 0, 0, 0)
    path.write_bytes(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) + chunk(b'IEND', b''))


def _write_map(path: Path, kind: str) -> None:
    if kind == 'ok':
        png(path, HALVES)
    elif kind == 'garbage':
        path.write_bytes(b'this is not an image')
    elif kind == 'rgb':
        png(path, np.zeros((2, 4, 3), dtype=np.uint8))
    elif kind == 'thin':
        png(path, np.zeros((1, 4), dtype=np.uint8))
    elif kind == 'aspect':
        png(path, np.zeros((3, 4), dtype=np.uint8))  # (4 - 1) / (3 - 1) = 1.5, not 3
    elif kind == 'too-many':
        _png_header(path, 8193, 8192)
    elif kind == 'fifo':
        os.mkfifo(path)


SDF_HEIGHTMAP = (
    '<heightmap><uri>bed.png</uri><size>30 10 2</size>'
    '<nps:reflectivity_map>{name}</nps:reflectivity_map></heightmap>'
)


@pytest.mark.parametrize(
    ('name', 'kind', 'problem'),
    [
        ('mu.png', 'garbage', 'mu.png: not a PNG image Pillow can read'),
        ('mu.png', 'rgb', "mu.png: image mode 'RGB' is not grayscale"),
        ('mu.png', 'thin', 'a reflectivity map needs at least 2 x 2 pixels, got 4 x 1'),
        ('mu.png', 'aspect', 'a 4 x 3 map (W x H) does not fit a heightmap of 10 x 4 samples'),
        ('mu.png', 'too-many', f'{8193 * 8192} pixels is more than the limit of'
                               f' {MAX_REFLECTIVITY_MAP_PIXELS}'),
        ('mu.png', 'fifo', 'is not a regular file (FIFO)'),
        ('nowhere.png', 'ok', 'reflectivity map not found'),
        ('', 'ok', 'empty reflectivity map URI'),
        ('http://host/mu.png', 'ok', "unsupported URI scheme 'http'"),
    ],
)  # fmt: skip
def test_bad_heightmap_maps_are_one_line(tmp_path, name, kind, problem):
    png(tmp_path / 'bed.png', np.zeros((4, 10), dtype=np.uint16))
    _write_map(tmp_path / 'mu.png', kind)
    path = sdf(tmp_path, SDF_HEIGHTMAP.format(name=name))
    with pytest.raises(SceneError) as info:
        load_world(path)
    message = check_one_line(info.value, f'{path}:5: <nps:reflectivity_map>', problem)
    assert 'BytesIO' not in message, message


@pytest.mark.parametrize(
    ('heightmap', 'kind', 'problem'),
    [
        ('reflectivity_map="mu.png"', 'aspect', 'does not fit a heightmap of 7 x 3 samples'),
        ('reflectivity_map="mu.png"', 'garbage', 'mu.png: not a PNG image Pillow can read'),
        ('reflectivity_map="mu.png"', 'thin', 'needs at least 2 x 2 pixels'),
        ('reflectivity_map=""', 'ok', 'reflectivity_map="" names no file'),
        ('reflectivity_map="no.png"', 'ok', 'reflectivity map not found'),
    ],
)
def test_bad_scene_file_maps_are_one_line(tmp_path, heightmap, kind, problem):
    np.save(tmp_path / 'bed.npy', np.zeros((3, 7)))
    _write_map(tmp_path / 'mu.png', kind)
    path = scene_file(tmp_path, f'<heightmap file="bed.npy" size="30 10" {heightmap}/>')
    with pytest.raises(SceneError) as info:
        load_world(path)
    check_one_line(info.value, f'{path}:3: <heightmap', problem)


def test_mesh_without_texture_coordinates_is_one_line(tmp_path):
    import trimesh

    trimesh.creation.box((1.0, 1.0, 1.0)).export(tmp_path / 'rock.stl')
    png(tmp_path / 'rock_mu.png', HALVES)
    path = sdf(
        tmp_path,
        '<mesh><uri>rock.stl</uri><nps:reflectivity_map>rock_mu.png</nps:reflectivity_map></mesh>',
    )
    with pytest.raises(SceneError) as info:
        load_world(path)
    check_one_line(
        info.value,
        f'{path}:5: <nps:reflectivity_map>',
        "mesh 'rock.stl' has no texture coordinates (OBJ vt, DAE TEXCOORD) for its"
        f' reflectivity map {tmp_path / "rock_mu.png"}',
    )


@pytest.mark.parametrize(
    ('geometry', 'problem'),
    [
        ('<mesh><uri>quad.obj</uri><reflectivity_map>mu.png</reflectivity_map></mesh>',
         "<reflectivity_map> must be in the namespace 'urn:nps_sonar'"),
        ('<mesh><uri>quad.obj</uri><x:reflectivity_map xmlns:x="urn:nps-sonar">mu.png'
         '</x:reflectivity_map></mesh>', "must be in the namespace 'urn:nps_sonar'"),
        ('<box><size>1 1 1</size><nps:reflectivity_map>mu.png</nps:reflectivity_map></box>',
         'only a <heightmap> or a <mesh> carries a reflectivity map, not <box>'),
        ('<mesh><uri>quad.obj</uri><nps:reflectivity_map>mu.png</nps:reflectivity_map>'
         '<nps:reflectivity_map>mu.png</nps:reflectivity_map></mesh>',
         'more than one <nps:reflectivity_map>'),
    ],
)  # fmt: skip
def test_misplaced_map_elements_are_one_line(tmp_path, geometry, problem):
    (tmp_path / 'quad.obj').write_text(QUAD_OBJ.format(u=1.0))
    png(tmp_path / 'mu.png', HALVES)
    path = sdf(tmp_path, geometry)
    with pytest.raises(SceneError) as info:
        load_world(path)
    check_one_line(info.value, f'{path}:5:', problem)
