"""The files training tools read, read back by readers written here: Ultralytics' detect and
OBB layouts (labels found from the image paths as Ultralytics finds them), COCO ids from 1,
three-channel PNGs; each object's occluded fraction against an independent integral; and a
sample's files written by whoever makes it.
"""

from __future__ import annotations

import io
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from dataset_runs import FLS_SPEC
from PIL import Image

from nps_sonar_py.dataset import draw_row, load_spec, make_sample, parse_spec, read_manifest
from nps_sonar_py.dataset.distributed import check_seen
from nps_sonar_py.dataset.files import record_path
from nps_sonar_py.dataset.occlusion import occluded_fractions
from nps_sonar_py.dataset.run import _check_written
from nps_sonar_py.dataset.sample import sample_worlds
from nps_sonar_py.dataset.sensor import make_sonar, sensor_pose, sensor_settings
from nps_sonar_py.dataset.spec import SpecError
from nps_sonar_py.dataset.work import Outcome, RunError, write_sample
from nps_sonar_py.scene import Entity, EntityState, SceneState, World
from nps_sonar_py.scene.raycaster import Raycaster
from nps_sonar_py.scene.tessellation import Triangles, box_triangles
from nps_sonar_py.sensing.images import CartesianImager
from nps_sonar_py.transforms import transform_from_xyz_rpy

# --- an Ultralytics reader --------------------------------------------------------------------


def _ultralytics_pairs(yaml_path: Path, split: str) -> list[tuple[Path, Path]]:
    """(image, label) of a split as Ultralytics finds them (its documented dataset rules).

    The root is the YAML's ``path``, or without one the YAML's folder; a split names a list
    file under the root; a ``./`` line is relative to the list's folder; an image's label is
    its path with the last ``/images/`` made ``/labels/`` and the suffix ``.txt``.
    """
    data = yaml.safe_load(yaml_path.read_text())
    root = Path(data['path']) if data.get('path') else yaml_path.parent
    listing = (root / data[split]).resolve()
    pairs = []
    for line in listing.read_text().splitlines():
        image = str(listing.parent) + os.sep + line[2:] if line.startswith('./') else line
        head, _, tail = image.rpartition(f'{os.sep}images{os.sep}')
        label = f'{head}{os.sep}labels{os.sep}{tail}'.rsplit('.', 1)[0] + '.txt'
        pairs.append((Path(image), Path(label)))
    return pairs


def _record(out: Path, stem: str) -> dict[str, Any]:
    import json

    return dict(json.loads((out / record_path(stem)).read_text()))


def _pixel_corners(instance: np.ndarray, value: int) -> np.ndarray:
    rows, cols = np.nonzero(instance == value)
    return np.concatenate([np.stack([cols + dx, rows + dy], -1) for dx in (0, 1) for dy in (0, 1)])


def _is_rectangle(points: np.ndarray) -> bool:
    sides = np.roll(points, -1, axis=0) - points
    lengths = np.linalg.norm(sides, axis=1)
    right = [abs(float(np.dot(sides[i], sides[(i + 1) % 4]))) for i in range(4)]
    return bool(
        max(right) < 1e-2 * max(lengths.max(), 1.0)
        and np.allclose(lengths[:2], lengths[2:], atol=1e-3)
    )


def _holds(points: np.ndarray, polygon: np.ndarray, slack: float = 2e-3) -> bool:
    """Whether the convex ``polygon`` (4, 2), either winding, holds every point."""
    sides = np.roll(polygon, -1, axis=0) - polygon
    cross = sides[:, 0, None] * (points[None, :, 1] - polygon[:, 1, None]) - sides[:, 1, None] * (
        points[None, :, 0] - polygon[:, 0, None]
    )
    scale = np.linalg.norm(sides, axis=1)[:, None]
    signed = cross / np.maximum(scale, 1e-12)
    return bool(np.all(signed >= -slack) or np.all(signed <= slack))


def test_ultralytics_finds_the_detect_and_oriented_labels_of_every_listed_image(
    fls_reference: Path,
) -> None:
    out = fls_reference
    spec = load_spec(out / 'spec.yaml')
    swapped_rejected = checked = 0
    for name, fields in (('yolo.yaml', 5), ('yolo_obb.yaml', 9)):
        data = yaml.safe_load((out / name).read_text())
        assert data['names'] == dict(enumerate(spec.classes))
        assert 'path' not in data  # the YAML's folder is the root, wherever OUT is
        listed = [
            p for split in ('train', 'val', 'test') for p in _ultralytics_pairs(out / name, split)
        ]
        assert len(listed) == 6
        for image, label in listed:
            stem = image.stem
            assert image.read_bytes() == (out / 'images' / f'{stem}.png').read_bytes()
            picture = np.asarray(Image.open(image))
            height, width = picture.shape[:2]
            record = _record(out, stem)
            instance = np.load(out / 'arrays' / f'{stem}.npz')['instance']
            lines = label.read_text().splitlines()
            assert len(lines) == len(record['annotations'])
            for line, a in zip(lines, record['annotations'], strict=True):
                values = line.split()
                assert len(values) == fields, line
                assert int(values[0]) == spec.classes.index(a['class'])
                numbers = np.array([float(v) for v in values[1:]])
                assert np.all((numbers >= 0.0) & (numbers <= 1.0))
                corners = _pixel_corners(instance, a['instance'])
                if fields == 5:  # centre and size, normalised: the pixels' tight box
                    cx, cy, w, h = numbers * [width, height, width, height]
                    np.testing.assert_allclose(
                        [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2],
                        [
                            corners[:, 0].min(),
                            corners[:, 1].min(),
                            corners[:, 0].max(),
                            corners[:, 1].max(),
                        ],
                        atol=1e-3 * max(width, height),
                    )
                    continue
                polygon = numbers.reshape(4, 2) * [width, height]
                assert _is_rectangle(polygon)
                assert _holds(corners.astype(float), polygon, slack=5e-3 * max(width, height))
                box = np.ptp(corners, axis=0)
                sides = np.linalg.norm(np.roll(polygon, -1, axis=0) - polygon, axis=1)
                assert sides[0] * sides[1] <= box[0] * box[1] * (1 + 1e-3) + 1e-2
                # Negative control: read with width and height swapped, the box misses pixels.
                wrong = numbers.reshape(4, 2) * [height, width]
                swapped_rejected += not _holds(corners.astype(float), wrong, slack=0.5)
                checked += 1
    assert checked > 0
    assert swapped_rejected > 0
    assert os.readlink(out / 'obb' / 'images') == '../images'
    # Negative control: the detect labels where the OBB task looks would be 5 numbers a line.
    assert not (out / 'obb' / 'labels').samefile(out / 'labels')


def test_coco_category_ids_run_from_one_and_name_the_semantic_value(fls_reference: Path) -> None:
    import json

    coco = json.loads((fls_reference / 'coco.json').read_text())
    spec = load_spec(fls_reference / 'spec.yaml')
    ids = [c['id'] for c in coco['categories']]
    assert ids == list(range(1, len(spec.classes) + 1))
    semantic_of = {c['id']: c['semantic_id'] for c in coco['categories']}
    seen = 0
    for a in coco['annotations']:
        image = next(i for i in coco['images'] if i['id'] == a['image_id'])
        arrays = np.load(fls_reference / 'arrays' / f'{Path(image["file_name"]).stem}.npz')
        values = np.unique(arrays['semantic'][arrays['instance'] == a['instance']])
        assert values.tolist() == [semantic_of[a['category_id']]]
        assert values[0] != a['category_id']  # control: the COCO id is not the mask's value
        view = _record(fls_reference, Path(image['file_name']).stem)['object_views'][
            a['instance'] - 2
        ]
        assert {k: a[k] for k in ('occluded', 'range', 'bearing', 'pose')} == {
            k: view[k] for k in ('occluded', 'range', 'bearing', 'pose')
        }
        seen += 1
    assert seen > 0


def test_three_channel_images_are_the_gray_image_in_each_channel() -> None:
    gray = parse_spec(FLS_SPEC)
    rgb = parse_spec(FLS_SPEC + 'output: {channels: 3}\n')
    row = draw_row(gray, 1)
    one, three = make_sample(gray, row), make_sample(rgb, row)
    key = f'images/{row["id"]}.png'
    plain = Image.open(io.BytesIO(one.files[key]))
    coloured = Image.open(io.BytesIO(three.files[key]))
    assert (plain.mode, coloured.mode) == ('L', 'RGB')
    pixels = np.asarray(coloured)
    for channel in range(3):
        np.testing.assert_array_equal(pixels[..., channel], np.asarray(plain))
    others = {k: v for k, v in three.files.items() if k != key}
    assert others == {k: v for k, v in one.files.items() if k != key}
    with pytest.raises(SpecError, match=r'output.channels: must be 1 or 3, got 2'):
        parse_spec(FLS_SPEC + 'output: {channels: 2}\n')


# --- occlusion ----------------------------------------------------------------------------------


def _plane(size: float) -> Triangles:
    v = np.array([[-size, -size, 0.0], [size, -size, 0.0], [size, size, 0.0], [-size, size, 0.0]])
    return Triangles(v, np.array([[0, 1, 2], [0, 2, 3]], dtype=np.int64))


def _world(boxes: list[tuple[tuple[float, float, float], tuple[float, float, float]]]) -> World:
    """A flat seabed (z = 0) and boxes of ``size`` with their centre at ``centre``."""
    entities = [Entity('seabed', _plane(100.0), 0.3)]
    states = [EntityState('seabed')]
    for k, (size, centre) in enumerate(boxes):
        name = f'box_{k}'
        entities.append(Entity(name, box_triangles(size), 0.5))
        states.append(EntityState(name, origin=transform_from_xyz_rpy(centre, [0, 0, 0])))
    return World('w', tuple(entities), SceneState('w', 0.0, tuple(states)))


def _expected_hidden(
    size: tuple[float, float, float], centre: tuple[float, float, float], eye: np.ndarray
) -> float:
    """The projected area of a box below z = 0 over all it shows the eye: a fine grid here."""
    shown = hidden = 0.0
    half = np.asarray(size) / 2
    n = 400
    grid = (np.arange(n) + 0.5) / n * 2 - 1
    a, b = np.meshgrid(grid, grid, indexing='ij')
    for axis in range(3):
        for sign in (-1.0, 1.0):
            normal = np.zeros(3)
            normal[axis] = sign
            u, v = [i for i in range(3) if i != axis]
            points = np.zeros((n * n, 3))
            points[:, axis] = sign * half[axis]
            points[:, u] = a.ravel() * half[u]
            points[:, v] = b.ravel() * half[v]
            points += centre
            to_eye = eye - points
            facing = to_eye @ normal  # > 0: this face shows the eye this point
            cos = facing / np.linalg.norm(to_eye, axis=1)
            weight = np.where(facing > 0, cos, 0.0) * (4 * half[u] * half[v] / n**2)
            shown += weight.sum()
            hidden += weight[points[:, 2] < 0.0].sum()
    return hidden / shown


@pytest.mark.parametrize('burial', [0.0, 0.3, 0.6])
def test_a_buried_box_is_occluded_by_its_hidden_projected_area(burial: float) -> None:
    size = (2.0, 1.0, 1.0)
    centre = (8.0, 3.0, 0.5 - burial)
    eye = np.array([0.0, 0.0, 3.0])
    world = _world([(size, centre)])
    (got,) = occluded_fractions(world, Raycaster(world), eye[None, :])
    expected = _expected_hidden(size, centre, eye)
    assert got == pytest.approx(expected, abs=0.01)
    if burial > 0:
        assert expected > 0.05
        assert abs(got - 0.0) > 0.04  # negative control: the buried part counted as seen


def test_a_box_behind_another_is_occluded_and_the_front_one_is_not() -> None:
    eye = np.array([0.0, 0.0, 1.0])
    world = _world([((1.0, 4.0, 2.0), (5.0, 0.0, 1.0)), ((1.0, 1.0, 1.0), (9.0, 0.0, 0.5))])
    front, behind = occluded_fractions(world, Raycaster(world), np.tile(eye, (2, 1)))
    assert front == pytest.approx(0.0, abs=1e-3)
    assert behind > 0.99  # the wall (4 m wide, 2 m tall, 1 m above the eye) hides it
    alone = _world([((1.0, 1.0, 1.0), (9.0, 0.0, 0.5))])  # control: without the wall
    (seen,) = occluded_fractions(alone, Raycaster(alone), eye[None, :])
    assert seen == pytest.approx(0.0, abs=1e-3)


# --- who writes -----------------------------------------------------------------------------


def test_a_worker_writes_its_sample_and_returns_only_the_outcome(tmp_path: Path) -> None:
    spec = parse_spec(FLS_SPEC)
    row = draw_row(spec, 2)
    expected = make_sample(spec, row).files
    outcome = write_sample(spec, row, str(tmp_path))
    assert (outcome.files, outcome.error, outcome.unwritten) == ({}, None, '')
    for relative, data in expected.items():
        assert (tmp_path / relative).read_bytes() == data
    assert outcome.record == expected[record_path(row['id'])]  # reported to the driver
    check_seen(tmp_path, outcome)  # the driver sees the record
    # A folder the worker cannot write in: why, not the sample's failure.
    blocked = tmp_path / 'a_file'
    blocked.write_text('')
    failed = write_sample(spec, row, str(blocked / 'out'))
    assert failed.error is None
    assert 'Not a directory' in failed.unwritten
    with pytest.raises(RunError, match=r'cannot write .*a_file/out'):
        _check_written(failed)
    # A worker that wrote where the driver does not see it (a cluster's unshared disk).
    elsewhere = Outcome(7, {})
    with pytest.raises(
        RunError, match='sample 000007 was written where this driver does not see it'
    ):
        check_seen(tmp_path, elsewhere)


def test_the_occluded_fraction_is_in_each_objects_view(fls_reference: Path) -> None:
    views = [
        view
        for path in sorted((fls_reference / 'records').glob('*.json'))
        for view in _record(fls_reference, path.stem)['object_views']
    ]
    assert views
    assert all(0.0 <= view['occluded'] <= 1.0 for view in views)
    assert not math.isnan(sum(view['occluded'] for view in views))


def _holds_centre(centre: np.ndarray, pixels: tuple[np.ndarray, np.ndarray], slack: float) -> bool:
    """Whether ``centre`` (x, y) is within the pixels' (u, v) extent, widened by ``slack``."""
    u, v = pixels
    return bool(
        u.min() - slack <= centre[0] <= u.max() + slack
        and v.min() - slack <= centre[1] <= v.max() + slack
    )


def _object_in_sensor(scene: World, instance: int, pose: np.ndarray) -> np.ndarray:
    """(n, 3) the vertices of the object of ``instance``, in the sensor's frame."""
    entity, state = scene.entities[instance - 1], scene.states[instance - 1]
    world = entity.surface.vertices @ state.origin[:3, :3].T + state.origin[:3, 3]
    return np.asarray((world - pose[:3, 3]) @ pose[:3, :3])


def test_each_oriented_box_sits_where_its_object_projects_into_the_fan(
    fls_reference: Path,
) -> None:
    """The fan's image puts a point at its slant range ``r`` and azimuth ``b`` (sensor frame,
    to port positive): ``(r cos b, r sin b)`` m ahead and to port of the sensor's pixel. The
    object's vertices within the fan's 20 degree height and range, so projected, must hold the
    oriented box's centre (within a beam's arc and a bin); mirrored port for starboard, not.
    """
    spec = load_spec(fls_reference / 'spec.yaml')
    settings = sensor_settings(spec)
    rows = {r['id']: r for r in read_manifest(fls_reference / 'manifest.parquet')}
    m = settings.image.image_resolution
    checked = mirrored_rejected = 0
    for sample, row in rows.items():
        scene, _, _ = sample_worlds(spec, settings, row)
        pose = sensor_pose(row, 0.0, pitched=True)
        sonar = make_sonar(settings, row, pose, min_range=spec.sensor.min_range, entities=None)
        imager = CartesianImager(sonar.image_geometry(), m, 'nearest', max_pixels=10**7)
        lines = (fls_reference / 'obb' / 'labels' / f'{sample}.txt').read_text().splitlines()
        for line, a in zip(lines, _record(fls_reference, sample)['annotations'], strict=True):
            corners = np.array([float(v) for v in line.split()[1:]]).reshape(4, 2)
            centre = corners.mean(axis=0) * [imager.width, imager.height]
            local = _object_in_sensor(scene, a['instance'], pose)
            r = np.linalg.norm(local, axis=1)
            b = np.arctan2(local[:, 1], local[:, 0])
            elevation = np.arctan2(local[:, 2], np.hypot(local[:, 0], local[:, 1]))
            seen = (np.abs(elevation) <= math.radians(10.0)) & (r <= float(row['range']))
            if not seen.any():
                continue
            r, b = r[seen], b[seen]
            g = sonar.image_geometry()
            bin_width = (g.max_range - g.min_range) / g.n_bins
            slack = (float(r.max()) * abs(g.spacing) + bin_width) / m + 1.0
            v = imager.origin_row - r * np.cos(b) / m + 0.5
            port = imager.origin_col - r * np.sin(b) / m + 0.5
            starboard = imager.origin_col + r * np.sin(b) / m + 0.5
            assert _holds_centre(centre, (port, v), slack), (sample, a['instance'], centre)
            mirrored_rejected += not _holds_centre(centre, (starboard, v), slack)
            checked += 1
    assert checked > 0
    assert mirrored_rejected > 0  # the negative control: port and starboard swapped
