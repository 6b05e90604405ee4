"""Heightmaps: planes and steps hit where the documented grid puts them, PNG scaling, errors.

The convention under test (docs/scene.md, ``nps_sonar_py.scene.heightmap``): a grid of R rows
and C columns spans ``size`` centred on ``pos``; sample (i, j) is at
``x = pos_x - size_x/2 + j size_x/(C-1)``, ``y = pos_y + size_y/2 - i size_y/(R-1)``, so row 0
is the +y edge; ``z = pos_z + h``, with ``h`` in metres for ``.npy`` and
``size_z * p / p_max`` for a PNG.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from one_line import check_one_line
from PIL import Image

from nps_sonar_py.errors import SceneError
from nps_sonar_py.scene import Raycaster, heightmap_triangles, load_world
from nps_sonar_py.scene.heightmap import MAX_HEIGHTMAP_BYTES, MAX_HEIGHTMAP_SAMPLES

EPS32 = float(np.finfo(np.float32).eps)
DOWN = np.array([0.0, 0.0, -1.0])
NOT_PNG = 'not a PNG image Pillow can read'


def scene(tmp_path: Path, heightmap: str, *, model: str = '', state: str = '') -> Path:
    """A scene file holding one heightmap model 'seabed' (the <heightmap> on line 3)."""
    scene_state = (
        f'<scene_state scene="w" time_stamp="0">\n{state}\n</scene_state>\n' if state else ''
    )
    text = (
        f'<world name="w">\n<model name="seabed" {model}>\n{heightmap}\n</model>\n'
        f'{scene_state}</world>\n'
    )
    path = tmp_path / 'sea.world'
    path.write_text(text)
    return path


def grid_xy(rows: int, cols: int, size: tuple[float, float], pos: tuple[float, float, float]):
    """x of each column and y of each row, by the documented convention."""
    x = pos[0] - size[0] / 2 + np.arange(cols) * size[0] / (cols - 1)
    y = pos[1] + size[1] / 2 - np.arange(rows) * size[1] / (rows - 1)
    return x, y


def cast_down(world_path: Path, xy: np.ndarray, z0: float):
    caster = Raycaster(load_world(world_path))
    origins = np.column_stack((xy, np.full(len(xy), z0)))
    return caster.cast(origins, np.tile(DOWN, (len(xy), 1)))


# --- geometry -----------------------------------------------------------------------------


def test_tilted_plane_is_hit_at_the_plane_height(tmp_path):
    # z = a x + b y + c sampled on a non-square grid: the triangles are that plane exactly,
    # so a downward ray at any (x, y) inside meets it at z0 - (a x + b y + c).
    a, b, c = 0.1, -0.05, -12.0
    rows, cols, size, pos = 33, 17, (40.0, 20.0), (1.5, -2.0, -10.0)
    x, y = grid_xy(rows, cols, size, pos)
    heights = a * x[np.newaxis, :] + b * y[:, np.newaxis] + c - pos[2]
    np.save(tmp_path / 'plane.npy', heights)
    world = scene(tmp_path, '<heightmap file="plane.npy" size="40 20" pos="1.5 -2 -10"/>')
    rng = np.random.default_rng(7)
    xy = np.column_stack(
        (
            rng.uniform(pos[0] - 0.49 * size[0], pos[0] + 0.49 * size[0], 500),
            rng.uniform(pos[1] - 0.49 * size[1], pos[1] + 0.49 * size[1], 500),
        )
    )
    z0 = 5.0
    hits = cast_down(world, xy, z0)
    expected = z0 - (a * xy[:, 0] + b * xy[:, 1] + c)
    # float32 inside Open3D: a few ulp of the largest coordinate involved (about 25 m)
    np.testing.assert_allclose(hits.ranges, expected, rtol=0, atol=16 * EPS32 * 25.0)
    normal = np.array([-a, -b, 1.0]) / np.sqrt(a * a + b * b + 1.0)  # up, wound CCW from above
    np.testing.assert_allclose(hits.normals, np.tile(normal, (500, 1)), atol=1e-5)
    assert np.all(hits.entity == 0)
    w = load_world(world)
    assert len(w.entities[0].surface) == 2 * (rows - 1) * (cols - 1)


def step_grid(rows: int, cols: int) -> np.ndarray:
    """3 m on rows 0-1 (+y edge), plus 5 m on the last two columns (+x edge), 0 elsewhere."""
    h = np.zeros((rows, cols))
    h[:2, :] += 3.0
    h[:, -2:] += 5.0
    return h


def corner_cells(rows, cols, size, pos):
    """Centres of the corner cells (first/last row and column) in world x, y."""
    dx, dy = size[0] / (cols - 1), size[1] / (rows - 1)
    x_first, x_last = pos[0] - size[0] / 2 + dx / 2, pos[0] + size[0] / 2 - dx / 2
    y_first, y_last = pos[1] + size[1] / 2 - dy / 2, pos[1] - size[1] / 2 + dy / 2
    # (row 0, col 0), (row 0, last col), (last row, col 0), (last row, last col)
    return np.array([[x_first, y_first], [x_last, y_first], [x_first, y_last], [x_last, y_last]])


@pytest.mark.parametrize(
    'encode',
    [
        pytest.param(lambda h: h, id='float64'),
        pytest.param(lambda h: np.asfortranarray(h), id='fortran-order'),
        pytest.param(lambda h: h.astype('>f4'), id='big-endian-float32'),
        pytest.param(lambda h: h.astype(np.int16), id='int16'),
    ],
)
def test_step_heightmap_row_zero_is_the_plus_y_edge(tmp_path, encode):
    rows, cols, size, pos = 6, 7, (12.0, 10.0), (2.0, 1.0, -4.0)
    np.save(tmp_path / 'step.npy', encode(step_grid(rows, cols)))
    world = scene(tmp_path, '<heightmap file="step.npy" size="12 10" pos="2 1 -4"/>')
    hits = cast_down(world, corner_cells(rows, cols, size, pos), 20.0)
    # +y -x: 3 m; +y +x: 3 + 5 m; -y -x: 0; -y +x: 5 m; all above pos_z
    expected_z = pos[2] + np.array([3.0, 8.0, 0.0, 5.0])
    np.testing.assert_allclose(hits.ranges, 20.0 - expected_z, atol=1e-5)


def test_png_16bit_maps_0_to_pos_z_and_65535_to_pos_z_plus_size_z(tmp_path):
    # rows 0-1 at 65535, row 2 at 20000, rows 3-4 at 0: flat top, a slope, flat bottom
    pixels = np.zeros((5, 4), dtype=np.uint16)
    pixels[:2] = 65535
    pixels[2] = 20000
    Image.fromarray(pixels).save(tmp_path / 'bed.png')
    assert Image.open(tmp_path / 'bed.png').mode.startswith('I')  # 16-bit grayscale
    size, pos = (30.0, 8.0, 6.0), (0.0, 0.0, -20.0)
    world = scene(tmp_path, '<heightmap file="bed.png" size="30 8 6" pos="0 0 -20"/>')
    dy = size[1] / 4
    # y of the middle of each band of cells: between rows 0-1, 1-2, 2-3 and 3-4
    ys = size[1] / 2 - dy * np.array([0.5, 1.5, 2.5, 3.5])
    xy = np.column_stack((np.full(4, 3.3), ys))
    hits = cast_down(world, xy, 0.0)
    top, mid = pos[2] + size[2], pos[2] + size[2] * 20000 / 65535
    expected_z = np.array([top, (top + mid) / 2, (mid + pos[2]) / 2, pos[2]])
    np.testing.assert_allclose(hits.ranges, -expected_z, atol=16 * EPS32 * 20.0)


@pytest.mark.parametrize(
    ('pixels', 'brightest'),
    [
        pytest.param(np.array([[0, 255], [128, 255]], dtype=np.uint8), 255, id='8-bit'),
        # Gazebo scales by the brightest pixel (size_z / MaxColor): 40000 is the top here
        pytest.param(np.array([[0, 40000], [10000, 40000]], dtype=np.uint16), 40000, id='16-bit'),
    ],
)
def test_png_heights_are_size_z_times_pixel_over_brightest(tmp_path, pixels, brightest):
    Image.fromarray(pixels).save(tmp_path / 'p.png')
    world = scene(tmp_path, '<heightmap file="p.png" size="2 2 4" pos="0 0 1"/>')
    # sample (i, j) at x = -1 + 2 j, y = 1 - 2 i; rays just inside each corner
    corners = np.array([[-0.999, 0.999], [0.999, 0.999], [-0.999, -0.999], [0.999, -0.999]])
    hits = cast_down(world, corners, 10.0)
    z = 1.0 + 4.0 * pixels.astype(float).ravel() / brightest
    # 1 mm from a corner in x and y, on slopes of at most size_z / cell = 4 / 2 per axis
    np.testing.assert_allclose(hits.ranges, 10.0 - z, atol=2 * (4.0 / 2.0) * 1e-3 + 1e-5)


def test_all_black_png_is_flat_at_pos_z(tmp_path):
    Image.fromarray(np.zeros((3, 3), dtype=np.uint16)).save(tmp_path / 'flat.png')
    world = scene(tmp_path, '<heightmap file="flat.png" size="2 2 4" pos="0 0 -3"/>')
    hits = cast_down(world, np.array([[0.3, -0.2]]), 0.0)
    np.testing.assert_allclose(hits.ranges, [3.0], atol=1e-6)


def test_model_reflectivity_retro_and_state_apply(tmp_path):
    np.save(tmp_path / 'flat.npy', np.zeros((2, 2)))
    hm = '<heightmap file="flat.npy" size="4 4"/>'
    origin = '<entity_state model="seabed"><parent frame="world"/><origin xyz="0 0 -7"/>'
    origin += '</entity_state>'
    path = scene(tmp_path, hm, model='retro="51"', state=origin)
    hits = cast_down(path, np.array([[0.5, 0.5]]), 0.0)
    assert hits.ranges[0] == pytest.approx(7.0, abs=1e-6)  # placed by its state
    assert hits.reflectivity[0] == pytest.approx(51 / 255)
    w = load_world(scene(tmp_path, hm, model='reflectivity="0.3"'))
    assert np.all(w.entities[0].reflectivity == 0.3)
    assert w.entities[0].source == str(tmp_path / 'flat.npy')
    w = load_world(scene(tmp_path, hm), default_lambert=0.25)
    assert np.all(w.entities[0].reflectivity == 0.25)


def test_heightmap_triangles_counts_and_winding():
    mesh = heightmap_triangles(np.zeros((4, 9)), (8.0, 3.0))
    assert len(mesh) == 2 * 3 * 8
    np.testing.assert_array_equal(mesh.normals(), np.tile([0.0, 0.0, 1.0], (len(mesh), 1)))
    np.testing.assert_array_equal(mesh.vertices.min(axis=0), [-4.0, -1.5, 0.0])
    np.testing.assert_array_equal(mesh.vertices.max(axis=0), [4.0, 1.5, 0.0])
    with pytest.raises(ValueError, match='2-D grid'):
        heightmap_triangles(np.zeros(5), (1.0, 1.0))
    with pytest.raises(ValueError, match=r'height nan at row 1, column 0'):
        heightmap_triangles(np.array([[0.0, 1.0], [np.nan, 0.0]]), (1.0, 1.0))


# --- errors -------------------------------------------------------------------------------


def _npy_header_only(path: Path, shape: tuple[int, ...]) -> None:
    """A .npy header announcing ``shape`` of bytes, with no data after it."""
    with path.open('wb') as f:
        np.lib.format.write_array_header_1_0(
            f, {'descr': '|u1', 'fortran_order': False, 'shape': shape}
        )


def _write(tmp_path: Path, name: str, kind: str) -> None:
    target = tmp_path / name
    if kind == 'nan':
        np.save(target, np.array([[0.0, 1.0, 2.0], [3.0, 4.0, np.nan]]))
    elif kind == 'inf':
        np.save(target, np.array([[0.0, np.inf], [1.0, 2.0]]))
    elif kind == 'huge':
        np.save(target, np.array([[0.0, 2e6], [1.0, 2.0]]))
    elif kind == '3d':
        np.save(target, np.zeros((3, 4, 5)))
    elif kind == '1d':
        np.save(target, np.zeros(5))
    elif kind == 'thin':
        np.save(target, np.zeros((1, 5)))
    elif kind == 'bool':
        np.save(target, np.zeros((3, 3), dtype=bool))
    elif kind == 'garbage':
        target.write_bytes(b'this is not numpy')
    elif kind == 'unclosed':  # numpy's tokenizer raises TokenError, not ValueError
        header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2)".ljust(117) + b'\n'
        target.write_bytes(b'\x93NUMPY\x01\x00' + len(header).to_bytes(2, 'little') + header)
    elif kind == 'big-header':  # numpy's message on this spans three lines
        header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2)}".ljust(20083) + b'\n'
        data = b'\x93NUMPY\x02\x00' + len(header).to_bytes(4, 'little') + header
        target.write_bytes(data + bytes(32))
    elif kind == 'too-many':
        _npy_header_only(target, (4098, 4097))
    elif kind == 'truncated':
        _npy_header_only(target, (30, 30))
    elif kind == 'rgb':
        Image.fromarray(np.zeros((3, 3, 3), dtype=np.uint8)).save(target)
    elif kind == 'png-too-many':
        Image.fromarray(np.zeros((4098, 4097), dtype=np.uint8)).save(target)
    elif kind == 'not-png':
        target.write_bytes(b'\x89PNG but not really')
    elif kind == 'ok':
        np.save(target, np.zeros((3, 3)))
    elif kind == 'fifo':
        os.mkfifo(target)
    elif kind == 'sparse-huge':
        with target.open('wb') as f:
            f.truncate(MAX_HEIGHTMAP_BYTES + 1)  # sparse: no disk used, never read


@pytest.mark.parametrize(
    ('heightmap', 'name', 'kind', 'problem'),
    [
        ('file="g.npy" size="4 4"', 'g.npy', 'nan', 'height nan at row 1, column 2'),
        ('file="g.npy" size="4 4"', 'g.npy', 'inf', 'height inf at row 0, column 1'),
        ('file="g.npy" size="4 4"', 'g.npy', 'huge', 'heights must be finite, within 1e+06 m'),
        ('file="g.npy" size="4 4"', 'g.npy', '3d', 'must be a 2-D grid (rows, columns), got'
                                                   ' shape (3, 4, 5)'),
        ('file="g.npy" size="4 4"', 'g.npy', '1d', 'must be a 2-D grid'),
        ('file="g.npy" size="4 4"', 'g.npy', 'thin', 'needs at least 2 x 2 samples, got 1 x 5'),
        ('file="g.npy" size="4 4"', 'g.npy', 'bool', 'floats or integers, got dtype bool'),
        ('file="g.npy" size="4 4"', 'g.npy', 'garbage', 'not a readable .npy file'),
        ('file="g.npy" size="4 4"', 'g.npy', 'unclosed',
         "g.npy: not a readable .npy file (('EOF in multi-line statement', (2, 0)))"),
        ('file="g.npy" size="4 4"', 'g.npy', 'big-header',
         'g.npy: not a readable .npy file (Header info length (20084) is large and may not be'
         ' safe to load securely.)'),
        ('file="g.npy" size="4 4"', 'g.npy', 'too-many',
         f'4098 x 4097 = {4098 * 4097} samples is more than the limit of {MAX_HEIGHTMAP_SAMPLES}'),
        ('file="g.npy" size="4 4"', 'g.npy', 'truncated', 'the file is truncated'),
        ('file="g.npy" size="4 4"', 'g.npy', 'fifo', 'is not a regular file (FIFO)'),
        ('file="g.npy" size="4 4"', 'g.npy', 'sparse-huge', 'is too large'),
        ('file="missing.npy" size="4 4"', 'x.npy', 'ok', 'heightmap file not found'),
        ('file="g.png" size="4 4 1"', 'g.png', 'rgb', "image mode 'RGB' is not grayscale"),
        ('file="g.png" size="4 4 1"', 'g.png', 'png-too-many', '4098 x 4097'),
        ('file="g.png" size="4 4 1"', 'g.png', 'not-png', f'g.png: {NOT_PNG}'),
        ('file="g.png" size="4 4 1"', 'g.png', 'garbage', f'g.png: {NOT_PNG}'),
        ('file="g.tif" size="4 4 1"', 'g.tif', 'ok', "unsupported heightmap format '.tif'"),
        ('file="g.npy" size="4 4 1"', 'g.npy', 'ok',
         "size='4 4 1' must be 2 numbers for a .npy heightmap"),
        ('file="g.png" size="4 4"', 'g.png', 'rgb',
         "size='4 4' must be 3 numbers for a .png heightmap"),
        ('file="g.npy" size="0 4"', 'g.npy', 'ok', 'must have x and y > 0'),
        ('file="g.npy" size="-1 4"', 'g.npy', 'ok', "size='-1 4' must have each number in [0,"),
        ('file="g.npy" size="4 4" pos="0 nan 0"', 'g.npy', 'ok', 'must be finite'),
        ('file="g.npy" size="4 4" pos="0 0 1e7"', 'g.npy', 'ok', 'must have each number in'),
        ('file="g.npy"', 'g.npy', 'ok', "missing required attribute 'size'"),
        ('size="4 4"', 'g.npy', 'ok', "missing required attribute 'file'"),
        ('file="g.npy" size="4 4" uri="g.npy"', 'g.npy', 'ok', "unknown attribute 'uri'"),
    ],
)  # fmt: skip
def test_heightmap_errors_are_located_one_line(tmp_path, heightmap, name, kind, problem):
    _write(tmp_path, name, kind)
    path = scene(tmp_path, f'<heightmap {heightmap}/>')
    with pytest.raises(SceneError) as info:
        load_world(path)
    message = check_one_line(info.value, f'{path}:3: <heightmap', problem)
    assert message.startswith(f'{path}:3: <heightmap'), message
    assert len(message.splitlines()) == 1, message
    assert 'BytesIO' not in message, message


@pytest.mark.parametrize(
    ('body', 'model', 'problem'),
    [
        ('<heightmap file="g.npy" size="4 4"/>', 'file="m.urdf"', 'needs either a file'),
        ('<heightmap file="g.npy" size="4 4"/><heightmap file="g.npy" size="4 4"/>', '',
         'needs either a file'),
        ('<heightmap file="g.npy" size="4 4"><uri/></heightmap>', '',
         'unknown element <uri> in <heightmap>'),
    ],
)  # fmt: skip
def test_heightmap_model_errors(tmp_path, body, model, problem):
    _write(tmp_path, 'g.npy', 'ok')
    path = scene(tmp_path, body, model=model)
    with pytest.raises(SceneError) as info:
        load_world(path)
    check_one_line(info.value, str(path), problem)


def test_shipped_seabed_world():
    worlds = Path(__file__).resolve().parents[2] / 'config' / 'worlds'
    pixels = np.asarray(Image.open(worlds / 'models' / 'seabed.png')).astype(float)
    assert pixels.shape == (65, 65)
    w = load_world(worlds / 'seabed.world')
    assert w.entity_names == ('seabed', 'target')
    assert len(w.entities[0].surface) == 2 * 64 * 64
    # the centre sample (32, 32) is at x = y = 0: z = pos_z + size_z p / p_max
    hits = Raycaster(w).cast([0.0, 0.0, 0.0], [DOWN])
    expected = 12.0 - 3.0 * pixels[32, 32] / pixels.max()
    assert hits.ranges[0] == pytest.approx(expected, abs=1e-5)
    assert hits.reflectivity[0] == pytest.approx(40 / 255)
