"""What a dataset holds: masks that are the label images of the ping, boxes around them, COCO
that pycocotools reads, samples remade byte for byte from their manifest row, and a shadow as
long as the geometry makes it.
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from dataset_runs import FLS_SPEC, REPO
from pycocotools import mask as mask_utils
from pycocotools.coco import COCO

from nps_sonar_py.dataset import draw_row, load_spec, make_sample, parse_spec, read_manifest
from nps_sonar_py.dataset.assemble import dataset_files
from nps_sonar_py.dataset.draw import object_list
from nps_sonar_py.dataset.sample import line_positions, sample_worlds
from nps_sonar_py.dataset.sensor import (
    make_sonar,
    sample_beam,
    sensor_pose,
    sensor_settings,
)
from nps_sonar_py.devices.rig import medium_caster
from nps_sonar_py.scene.raycaster import Raycaster
from nps_sonar_py.sensing.images import CartesianImager
from nps_sonar_py.sensing.label_images import LabelImager, polar_labels
from nps_sonar_py.sensing.multibeam import MultibeamSonar
from nps_sonar_py.sensing.sidescan import SidescanPing
from nps_sonar_py.sensing.waterfall import Waterfall


def _ok_rows(out: Path) -> list[dict[str, Any]]:
    rows = [row for row in read_manifest(out / 'manifest.parquet') if row['status'] == 'ok']
    assert rows
    return rows


def _array(out: Path, sample: str, name: str) -> np.ndarray:
    with np.load(out / 'arrays' / f'{sample}.npz') as arrays:
        return np.asarray(arrays[name])


def _record(out: Path, sample: str) -> dict[str, Any]:
    return json.loads((out / 'records' / f'{sample}.json').read_text())


def test_every_sample_of_the_reference_run_was_made(fls_reference: Path) -> None:
    rows = read_manifest(fls_reference / 'manifest.parquet')
    assert [row['status'] for row in rows] == ['ok'] * 6
    assert {row['seabed_family'] for row in rows} > {'flat'}  # the families are drawn


def test_masks_are_the_label_images_of_the_same_ping(fls_reference: Path) -> None:
    spec = load_spec(fls_reference / 'spec.yaml')
    settings = sensor_settings(spec)
    boxes = 0
    for row in _ok_rows(fls_reference):
        sample = row['id']
        # The ping again, from the row, straight through the sensing layer.
        scene, _, classes = sample_worlds(spec, settings, row)
        sonar = make_sonar(
            settings,
            row,
            sensor_pose(row, 0.0, pitched=True),
            min_range=spec.sensor.min_range,
            entities=len(scene.entities),
        )
        assert isinstance(sonar, MultibeamSonar)
        labels = sonar.ping(medium_caster(Raycaster(scene), sample_beam(settings, row))).labels
        assert labels is not None
        resolution = settings.image.image_resolution
        imager = CartesianImager(sonar.image_geometry(), resolution, 'nearest', max_pixels=10**7)
        instance = _array(fls_reference, sample, 'instance')
        np.testing.assert_array_equal(
            _array(fls_reference, sample, 'instance_polar'), polar_labels(labels)
        )
        np.testing.assert_array_equal(instance, LabelImager(imager).image(labels))
        # Semantic: the class of each instance; 0 none, 1 seabed, 2.. the spec's classes.
        semantic = _array(fls_reference, sample, 'semantic')
        np.testing.assert_array_equal(semantic, classes[instance])
        for k, item in enumerate(object_list(row), start=2):
            assert np.all(semantic[instance == k] == 2 + spec.classes.index(item['class']))
        # Shadow: seabed or nothing there, never an object's echo; at least one somewhere.
        shadow = _array(fls_reference, sample, 'shadow')
        assert set(np.unique(shadow)) <= {0, 1}
        assert np.all(instance[shadow == 1] <= 1)
        assert np.all(
            _array(fls_reference, sample, 'instance_polar')[
                _array(fls_reference, sample, 'shadow_polar') == 1
            ]
            <= 1
        )
        boxes += len(_record(fls_reference, sample)['annotations'])
    assert boxes > 0


def test_side_scan_masks_are_the_label_images_of_the_same_pings(sidescan_reference: Path) -> None:
    spec = load_spec(sidescan_reference / 'spec.yaml')
    settings = sensor_settings(spec)
    row = _ok_rows(sidescan_reference)[0]
    scene, _, classes = sample_worlds(spec, settings, row)
    caster = medium_caster(Raycaster(scene), sample_beam(settings, row))
    waterfall = Waterfall(settings.sidescan.waterfall_config())
    for x in line_positions(settings):  # the block's pings, straight through sensing
        pose = sensor_pose(row, 0.0, x=float(x), pitched=False)
        sonar = make_sonar(
            settings, row, pose, min_range=spec.sensor.min_range, entities=len(scene.entities)
        )
        ping = sonar.ping(caster)
        assert ping.labels is not None
        labels = SidescanPing(ping.labels.astype(np.float64), ping.bin_edges, ping.altitude)
        waterfall.add(labels, pose[:3, 3])
    instance = _array(sidescan_reference, row['id'], 'instance')
    np.testing.assert_array_equal(instance, waterfall.image().astype(np.uint16))
    np.testing.assert_array_equal(
        _array(sidescan_reference, row['id'], 'semantic'), classes[instance]
    )
    assert (instance == 2).any()  # the box is in it


def _inside(points: np.ndarray, obb: list[float], slack: float) -> bool:
    cx, cy, w, h, angle = obb
    a = math.radians(angle)
    d = points - [cx, cy]
    u = d[:, 0] * math.cos(a) + d[:, 1] * math.sin(a)
    v = -d[:, 0] * math.sin(a) + d[:, 1] * math.cos(a)
    return bool(np.all(np.abs(u) <= w / 2 + slack) and np.all(np.abs(v) <= h / 2 + slack))


def test_every_box_encloses_its_mask(fls_reference: Path, sidescan_reference: Path) -> None:
    checked = 0
    for out in (fls_reference, sidescan_reference):
        for row in _ok_rows(out):
            instance = _array(out, row['id'], 'instance')
            for a in _record(out, row['id'])['annotations']:
                rows, cols = np.nonzero(instance == a['instance'])
                x, y, w, h = a['bbox']
                # tight and enclosing
                assert (cols.min(), cols.max() + 1) == (x, x + w)
                assert (rows.min(), rows.max() + 1) == (y, y + h)
                assert a['area'] == rows.size
                corners = np.concatenate(
                    [np.stack([cols + dx, rows + dy], -1) for dx in (0, 1) for dy in (0, 1)]
                )
                assert _inside(corners, a['obb'], 1e-3)
                # and no larger than the axis-aligned box
                assert a['obb'][2] * a['obb'][3] <= w * h + 1e-3
                checked += 1
            text = (out / 'obb' / 'labels' / f'{row["id"]}.txt').read_text()
            values = [float(v) for line in text.splitlines() for v in line.split()[1:]]
            assert all(0.0 <= v <= 1.0 for v in values), text  # no corner off the image
    assert checked > 0


def test_the_coco_file_loads_with_pycocotools_and_its_masks_are_the_instances(
    fls_reference: Path,
) -> None:
    coco = COCO(str(fls_reference / 'coco.json'))
    spec = load_spec(fls_reference / 'spec.yaml')
    assert [c['name'] for c in coco.loadCats(coco.getCatIds())] == list(spec.classes)
    annotations = coco.loadAnns(coco.getAnnIds())
    assert annotations
    for a in annotations:
        image = coco.loadImgs(a['image_id'])[0]
        sample = Path(image['file_name']).stem
        instance = _array(fls_reference, sample, 'instance')
        assert (image['height'], image['width']) == instance.shape
        np.testing.assert_array_equal(
            coco.annToMask(a), (instance == a['instance']).astype(np.uint8)
        )
        assert mask_utils.area(coco.annToRLE(a)) == a['area']
        assert (fls_reference / image['file_name']).is_file()
    lines = (fls_reference / 'labels' / f'{sample}.txt').read_text().splitlines()
    assert all(len(line.split()) == 5 for line in lines)


def test_a_sample_remade_from_its_manifest_row_is_the_same_bytes(fls_reference: Path) -> None:
    spec = load_spec(fls_reference / 'spec.yaml')
    row = read_manifest(fls_reference / 'manifest.parquet')[3]
    del row['status'], row['error']
    outcome = make_sample(spec, row)
    assert outcome.error is None
    assert len(outcome.files) == 5  # image, two label files, arrays, record
    for relative, data in outcome.files.items():
        assert (fls_reference / relative).read_bytes() == data, relative


def test_the_side_scan_shadow_of_a_box_is_as_long_as_the_geometry_makes_it(
    sidescan_reference: Path,
) -> None:
    # A box 1 m high from 14.5 to 15.5 m to starboard, the sonar 10 m above a flat seabed,
    # the waterfall in ground range g = sqrt(r^2 - 10^2) of the slant range r. The box's
    # echo runs from its near top edge (slant sqrt(14.5^2 + 9^2)) to its far top edge (slant
    # sqrt(15.5^2 + 9^2)); the ray over that edge meets the seabed at 15.5 * 10 / 9: the
    # shadow runs from the box's last echo to there.
    def ground(g: float, height: float) -> float:
        return math.sqrt(g * g + (10.0 - height) ** 2 - 100.0)

    first_echo, near, far = ground(14.5, 1.0), ground(15.5, 1.0), 15.5 * 10.0 / 9.0
    samples, max_range, lines, spacing = 300, 30.0, 24, 0.25
    metres = max_range / samples
    # A sample takes the slant bin (0.1 m) at its centre: a boundary moves to the edge of the
    # bin holding it, and an echo spreads over up to one more bin (the footprint,
    # sensing/sidescan.py); a slant bin is about 0.12 m of ground range here.
    tolerance = metres / 2 + 2 * (max_range / samples) * 18.0 / 15.0
    shadow = _array(sidescan_reference, '000000', 'shadow')
    instance = _array(sidescan_reference, '000000', 'instance')
    assert shadow.shape == (lines, 2 * samples)
    x = (lines - 1) / 2 * spacing - np.arange(lines) * spacing  # row 0 newest: the last ping
    abeam = int(np.argmin(np.abs(x)))
    starboard = shadow[abeam, samples:]
    hidden = np.flatnonzero(starboard) * metres + metres / 2
    assert hidden.size > 0
    assert abs(hidden.min() - near) <= tolerance
    assert abs(hidden.max() - far) <= tolerance
    assert np.all(np.diff(np.flatnonzero(starboard)) == 1)  # one run
    assert np.all(instance[abeam, samples:][np.flatnonzero(starboard)] <= 1)
    box = np.flatnonzero(instance[abeam, samples:] == 2) * metres + metres / 2
    assert abs(box.min() - first_echo) <= tolerance
    assert abs(box.max() - near) <= tolerance
    # No noise in this spec: nothing is heard from the shadow, well inside it.
    intensity = _array(sidescan_reference, '000000', 'intensity')[abeam, samples:]
    inside = (hidden > near + 2 * metres) & (hidden < far - 2 * metres)
    assert np.all(intensity[np.flatnonzero(starboard)[inside]] == 0.0)
    # Negative control: lines 2 m or more from the box see neither it nor a shadow.
    clear = np.abs(x) > 2.0
    assert clear.any()
    assert not shadow[clear].any()
    assert np.all(instance[clear] <= 1)
    assert not shadow[:, :samples].any()  # nothing to port


@pytest.mark.parametrize('preset', ['fls', 'sidescan'])
def test_the_coherent_model_changes_the_intensity_not_the_masks(preset: str) -> None:
    quiet = FLS_SPEC.replace('speckle: [false, true]', 'speckle: false').replace(
        'gain_stddev: [0, 0.1]', 'gain_stddev: 0'
    )
    index = 2
    if preset == 'sidescan':  # the demo's seabeds and objects, a shorter block (issue 36)
        demo = (REPO / 'config' / 'datasets' / 'sidescan_demo.yaml').read_text()
        quiet = demo.replace('waterfall_lines: 256', 'waterfall_lines: 24')
        quiet = quiet.replace('speckle: true', 'speckle: false')
        quiet = quiet.replace('  echo_model: incoherent\n', '')
        index = 1  # its masks differed by 130 pixels when the model labelled them
    incoherent = parse_spec(quiet)
    coherent = parse_spec(
        quiet.replace(f'preset: {preset}', f'preset: {preset}\n  echo_model: coherent')
    )
    row = draw_row(coherent, index)
    assert row == draw_row(incoherent, index)  # the model is not a drawn value
    plain, phased = make_sample(incoherent, row), make_sample(coherent, row)
    assert plain.error is None, plain.error
    assert phased.error is None, phased.error
    assert make_sample(coherent, row).files == phased.files  # seeded: the same bytes again
    key = f'arrays/{row["id"]}.npz'
    plain_arrays, phased_arrays = (np.load(io.BytesIO(f.files[key])) for f in (plain, phased))
    masks = ('instance', 'semantic', 'shadow', 'instance_polar' if preset == 'fls' else 'shadow')
    for name in masks:  # masks of the noise-free echo
        np.testing.assert_array_equal(phased_arrays[name], plain_arrays[name], err_msg=name)
    if preset == 'sidescan':  # the waterfall differs (negative control: not one model twice)
        assert not np.array_equal(plain_arrays['intensity'], phased_arrays['intensity'])
        return
    a, b = plain_arrays['intensity_polar'], phased_arrays['intensity_polar']
    assert a.shape == b.shape
    assert not np.array_equal(a, b)
    # The coherent fan forms its beams by its array: its energy is the incoherent image's
    # with the array's one-way pattern across the fan (test_formed_fan.py, over seeds), not
    # with the rays' two-way piston, whose beams are narrower: more, but the same order.
    ratio = float(b.sum() / a.sum())
    assert 1.0 < ratio < 2.5, ratio


def test_a_samples_arrays_are_one_deflated_npz_the_same_bytes_each_time() -> None:
    spec = parse_spec(FLS_SPEC)
    row = draw_row(spec, 0)
    first, again = make_sample(spec, row), make_sample(spec, row)
    data = first.files[f'arrays/{row["id"]}.npz']
    assert data == again.files[f'arrays/{row["id"]}.npz']  # no time in the zip
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        entries = archive.infolist()
        names = [entry.filename for entry in entries]
        assert names == sorted(names)
        assert {entry.compress_type for entry in entries} == {zipfile.ZIP_DEFLATED}
        stored = sum(entry.file_size for entry in entries)
        packed = sum(entry.compress_size for entry in entries)
        for entry in entries:  # each entry is the array's .npy, as numpy.save writes it
            array = np.load(io.BytesIO(archive.read(entry)))
            buffer = io.BytesIO()
            np.save(buffer, array)
            assert buffer.getvalue() == archive.read(entry)
    assert packed < 0.8 * stored  # the masks compress to little
    arrays = np.load(io.BytesIO(data))  # numpy reads it as its own .npz
    assert set(arrays.files) == {name[:-4] for name in names}


def test_the_card_sums_up_drawn_values_in_a_line_each_whatever_the_count() -> None:
    spec = parse_spec(FLS_SPEC)
    rows = [draw_row(spec, i) for i in range(3000)]
    records = [
        {'id': row['id'], 'status': 'ok', 'annotations': [], 'width': 8, 'height': 8}
        for row in rows
    ]
    card = dataset_files(spec, rows, records)['README.md'].decode()
    lines = {line.split(' | ')[0][2:]: line for line in card.splitlines() if line.startswith('| ')}
    wavelengths = [row['seabed_wavelength'] for row in rows]
    finite = [w for w in wavelengths if math.isfinite(w)]
    assert 0 < len(finite) < len(rows)  # flat and rocky seabeds have none
    assert lines['seabed_wavelength'] == (
        f'| seabed_wavelength | {min(finite):.6g} | {max(finite):.6g} '
        f'({len(rows) - len(finite)} samples without) |'
    )
    families = Counter(row['seabed_family'] for row in rows)
    assert len(families) == 4
    for family, count in families.items():
        assert f'{family} ({count})' in lines['seabed_family']
    # Negative control: a line per distinct value, as the card had, would be thousands long.
    assert len({str(w) for w in wavelengths}) > 1000
    assert max(len(line) for line in card.splitlines()) < 400


def _split_lists(spec_text: str, count: int, failed: int) -> dict[str, bytes]:
    """The dataset-wide files of ``count`` made samples (sample ``failed`` failed)."""
    spec = parse_spec(spec_text)
    rows = [draw_row(spec, i) for i in range(count)]
    records: list[dict[str, Any]] = [
        {'id': row['id'], 'status': 'ok', 'annotations': [], 'width': 8, 'height': 8}
        for row in rows
    ]
    records[failed] = {'id': rows[failed]['id'], 'status': 'failed', 'error': 'a test'}
    return dataset_files(spec, rows, records)


def _splits_of_sequences(manifest: bytes, listed: dict[str, list[str]]) -> dict[int, set[str]]:
    """Each sequence's splits, from the manifest's own ``sequence`` column and the lists."""
    import pyarrow.parquet as pq

    table = pq.read_table(io.BytesIO(manifest)).to_pydict()
    sequence_of = dict(zip(table['id'], table['sequence'], strict=True))
    splits: dict[int, set[str]] = {}
    for name, lines in listed.items():
        for line in lines:
            splits.setdefault(sequence_of[Path(line).stem], set()).add(name)
    return splits


def test_the_yolo_splits_list_made_samples_by_index_as_ultralytics_reads_them(
    tmp_path: Path,
) -> None:
    spec = parse_spec(FLS_SPEC)
    files = _split_lists(FLS_SPEC, 25, 18)
    yolo = yaml.safe_load(files['yolo.yaml'])
    assert 'path' not in yolo  # Ultralytics then takes the YAML's folder as the root
    assert {k: yolo[k] for k in ('train', 'val', 'test')} == {
        'train': 'train.txt', 'val': 'val.txt', 'test': 'test.txt'
    }  # fmt: skip
    assert yolo['names'] == dict(enumerate(spec.classes))
    listed = {
        name: files[f'{name}.txt'].decode().splitlines() for name in ('train', 'val', 'test')
    }
    expected: dict[str, list[str]] = {'train': [], 'val': [], 'test': []}
    for i in range(25):
        if i != 18:  # the failed sample is in no split
            name = 'val' if i % 10 == 8 else 'test' if i % 10 == 9 else 'train'
            expected[name].append(f'./images/{i:06d}.png')
    assert listed == expected
    assert (len(listed['train']), len(listed['val']), len(listed['test'])) == (21, 1, 2)
    # Ultralytics: a './' line is relative to the list's folder; its label file is the image
    # path with /images/ replaced by /labels/.
    root = tmp_path / 'out'
    (root / 'images').mkdir(parents=True)
    (root / 'labels').mkdir()
    for line in listed['val']:
        image = Path(line.replace('./', f'{root}/', 1))
        label = Path(str(image).replace('/images/', '/labels/')).with_suffix('.txt')
        assert image.parent == root / 'images'
        assert label == root / 'labels' / f'{image.stem}.txt'


def test_the_splits_keep_each_sequence_whole() -> None:
    length, count = 3, 75  # 25 sequences: 0-7 and 10-17 train, 8 and 18 val, 9 and 19 test
    files = _split_lists(FLS_SPEC + f'sequence: {{length: {length}, step: 0.5}}\n', count, 40)
    names = ('train', 'val', 'test')
    listed = {name: files[f'{name}.txt'].decode().splitlines() for name in names}
    assert listed == {name: files[f'obb/{name}.txt'].decode().splitlines() for name in names}
    splits = _splits_of_sequences(files['manifest.parquet'], listed)
    assert sorted(splits) == list(range(25))  # every sequence listed
    assert all(len(found) == 1 for found in splits.values()), splits
    assert {n for n, found in splits.items() if found == {'val'}} == {8, 18}
    assert {n for n, found in splits.items() if found == {'test'}} == {9, 19}
    assert sum(map(len, listed.values())) == count - 1  # the failed sample is in none
    assert '000040' not in ''.join(listed['train'])
    assert 'Splits by sequence' in files['README.md'].decode()
    # Negative control: the index rule (of every ten samples) splits sequences across lists.
    by_index: dict[str, list[str]] = {name: [] for name in names}
    for i in range(count):
        by_index[names[max(0, i % 10 - 7)]].append(f'./images/{i:06d}.png')
    mixed = _splits_of_sequences(files['manifest.parquet'], by_index)
    assert any(len(found) > 1 for found in mixed.values())


def test_a_sequence_of_one_ping_splits_as_no_sequence() -> None:
    plain = _split_lists(FLS_SPEC, 25, 18)
    single = _split_lists(FLS_SPEC + 'sequence: {length: 1}\n', 25, 18)
    for name in ('train.txt', 'val.txt', 'test.txt', 'obb/train.txt', 'yolo.yaml'):
        assert single[name] == plain[name]
    assert 'Splits by index' in plain['README.md'].decode()


def test_each_object_says_whether_it_is_seen_and_where_it_is(
    fls_reference: Path, sidescan_reference: Path
) -> None:
    # The side-scan's box: 15 m to starboard abeam of the middle ping, on a flat seabed at
    # z = 0 under a sensor 10 m above it (SIDESCAN_SPEC): from the spec, not the code.
    row = _ok_rows(sidescan_reference)[0]
    (view,) = _record(sidescan_reference, row['id'])['object_views']
    assert view['visible']
    assert view['pixels'] == int((_array(sidescan_reference, row['id'], 'instance') == 2).sum())
    np.testing.assert_allclose(view['pose'][:3], [0.0, -15.0, -10.0], atol=1e-3)
    assert view['range'] == pytest.approx(math.hypot(15.0, 10.0), abs=1e-3)
    assert view['bearing'] == pytest.approx(-90.0, abs=1e-3)  # starboard: negative
    checked = 0
    for row in _ok_rows(fls_reference):
        record = _record(fls_reference, row['id'])
        instance = _array(fls_reference, row['id'], 'instance')
        boxed = {a['instance'] for a in record['annotations']}
        drawn = object_list(row)
        assert len(record['object_views']) == len(drawn)
        for k, (view, item) in enumerate(zip(record['object_views'], drawn, strict=True)):
            assert view['class'] == item['class']
            assert view['pixels'] == int((instance == 2 + k).sum())
            assert view['visible'] == (2 + k in boxed)
            # the fan pitches about its y axis: y to port is the drawn y
            assert view['pose'][1] == pytest.approx(item['y'], abs=1e-3)
            x, y, z = view['pose'][:3]
            assert view['range'] == pytest.approx(math.hypot(x, y, z), abs=1e-3)
            assert view['bearing'] == pytest.approx(math.degrees(math.atan2(y, x)), abs=1e-3)
            checked += 1
    assert checked > 0
