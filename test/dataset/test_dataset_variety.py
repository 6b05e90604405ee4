"""The variety of real sonars: objects placed in view, settings drawn per sample, off-seabed
objects, debris fields, scour and sequences of pings (``docs/datasets.md``).

Every check is computed here from the documented geometry: an object's centre projected into
the fan's sector, vertical beam and range window (or the side-scan's swath), the sequence's
places from its formulas, the scour pit's depth from its profile. Each has a negative control:
the demo specs with the old rectangles of ``x``, ``y`` leave objects out of view, a wrong
track is told apart, and bad specs are one line naming their key.
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from dataset_runs import FLS_SPEC, REPO, run_cli, write_spec
from refusals import Refusal, changes, each, refused_in_one_line

from nps_sonar_py.dataset import SpecError, draw_row, load_spec, parse_spec
from nps_sonar_py.dataset.assemble import read_manifest
from nps_sonar_py.dataset.draw import object_list
from nps_sonar_py.dataset.sample import render_sample, sample_worlds
from nps_sonar_py.dataset.sensor import check_sensor
from nps_sonar_py.dataset.spec import Spec
from nps_sonar_py.dataset.work import make_sample
from nps_sonar_py.devices.presets import PRESETS

#: The fan preset's view (docs/datasets.md): 130 degrees wide, 20 degrees tall.
FAN_HALF_WIDTH, FAN_HALF_HEIGHT = math.radians(65.0), math.radians(10.0)
#: Samples drawn for the fractions.
SAMPLES = 150


def _fan_sees(row: dict[str, Any], point: np.ndarray, min_range: float) -> bool:
    """Whether ``point`` (world) is in the fan of ``row``: sector, vertical beam and window."""
    yaw, tilt = math.radians(row['sensor_yaw']), math.radians(row['tilt'])
    d = point - np.array([row['sensor_x'], row['sensor_y'], row['altitude']])
    # Into the sensor's frame: undo the heading (about z), then the pitch down (about y).
    x = math.cos(yaw) * d[0] + math.sin(yaw) * d[1]
    y = -math.sin(yaw) * d[0] + math.cos(yaw) * d[1]
    xs, zs = math.cos(tilt) * x - math.sin(tilt) * d[2], math.sin(tilt) * x + math.cos(tilt) * d[2]
    azimuth, elevation = math.atan2(y, xs), math.atan2(zs, math.hypot(xs, y))
    slant = float(np.linalg.norm(d))
    return (
        abs(azimuth) <= FAN_HALF_WIDTH
        and abs(elevation) <= FAN_HALF_HEIGHT
        and min_range <= slant <= row['range']
    )


def _centres(row: dict[str, Any]) -> list[np.ndarray]:
    """Each object's base centre: on the seabed's mean level, raised by its elevation."""
    return [np.array([o['x'], o['y'], o.get('elevation', 0.0)]) for o in object_list(row)]


def _fan_fraction(spec: Spec) -> tuple[float, int]:
    seen = [
        _fan_sees(row, centre, spec.sensor.min_range)
        for row in (draw_row(spec, i) for i in range(SAMPLES))
        for centre in _centres(row)
    ]
    return float(np.mean(seen)), len(seen)


#: The fan demo's objects as they were placed before (rectangles of x and y ahead).
OLD_FAN_OBJECTS = """\
objects:
  - {kind: box, count: [0, 2], x: [6, 25], y: [-10, 10]}
  - {kind: pipe, count: [0, 1], x: [6, 25], y: [-10, 10], length: [6, 15]}
  - {kind: mine, count: [0, 2], x: [6, 25], y: [-10, 10]}
  - {kind: tyre, count: [0, 1], x: [6, 25], y: [-10, 10]}
  - {kind: wreck, count: [0, 1], x: [12, 24], y: [-8, 8]}
"""


def _with_objects(path: Path, objects: str) -> Spec:
    text = path.read_text()
    start, end = text.index('objects:\n'), text.index('water:\n')
    return parse_spec(text[:start] + objects + text[end:], source=path.name, base=path.parent)


def test_the_fan_demos_objects_are_in_its_view() -> None:
    path = REPO / 'config' / 'datasets' / 'fls_demo.yaml'
    fraction, count = _fan_fraction(load_spec(path))
    assert count > 300
    assert fraction >= 0.95, fraction
    # Negative control: the rectangles ahead leave about a fifth of the objects out of view.
    old, _ = _fan_fraction(_with_objects(path, OLD_FAN_OBJECTS))
    assert old < 0.9, old


def _sidescan_sees(row: dict[str, Any], point: np.ndarray, settings: Any) -> bool:
    """Whether ``point`` is in the side-scan block's swath: along the block, in a fan's beam."""
    s = settings.sidescan
    half = 0.5 * (s.waterfall_lines - 1) * s.waterfall_line_spacing
    depression = math.atan2(row['altitude'] - point[2], abs(point[1]))
    tilt, width = math.radians(row['tilt']), s.sidescan_vertical_beam_width
    slant = math.hypot(row['altitude'] - point[2], point[1])
    return bool(
        abs(point[0]) <= half and abs(depression - tilt) <= width / 2 and slant <= row['range']
    )


def test_the_sidescan_demos_objects_are_in_its_swath() -> None:
    path = REPO / 'config' / 'datasets' / 'sidescan_demo.yaml'
    spec = load_spec(path)
    settings = check_sensor(spec)
    seen = [
        _sidescan_sees(row, centre, settings)
        for row in (draw_row(spec, i) for i in range(SAMPLES))
        for centre in _centres(row)
    ]
    assert np.mean(seen) >= 0.95
    old = _with_objects(path, OLD_FAN_OBJECTS.replace('x: [6, 25]', 'x: [40, 60]'))
    wrong = [
        _sidescan_sees(row, centre, settings)
        for row in (draw_row(old, i) for i in range(40))
        for centre in _centres(row)
    ]
    assert np.mean(wrong) < 0.5  # negative control: beyond the block


VARIED_SPEC = FLS_SPEC.replace('beams: 24, range_bins: 64, ', '').replace(
    '  range: [10, 12]\n',
    '  range: [10, 12]\n'
    '  vary: {frequency: [400000, 1200000], beams: [16, 32], range_bins: [48, 80],\n'
    '         image_db_min: [-70, -60], image_db_max: [-30, -20]}\n',
)


def test_the_varied_settings_stay_within_their_ranges_and_are_used() -> None:
    spec = parse_spec(VARIED_SPEC, source='spec.yaml')
    check_sensor(spec)
    rows = [draw_row(spec, i) for i in range(300)]
    bounds = {
        'frequency': (4e5, 1.2e6),
        'beams': (16, 32),
        'range_bins': (48, 80),
        'image_db_min': (-70, -60),
        'image_db_max': (-30, -20),
    }
    for name, (low, high) in bounds.items():
        values = np.array([row[name] for row in rows], dtype=np.float64)
        assert values.min() >= low, name
        assert values.max() <= high, name
        assert np.ptp(values) > 0.8 * (high - low), name  # spread over the range
    for name in ('beams', 'range_bins'):  # counts: whole numbers, both ends drawn
        values = [row[name] for row in rows]
        assert all(isinstance(v, int) for v in values)
        assert {bounds[name][0], bounds[name][1]} <= set(values)
    fixed = draw_row(parse_spec(FLS_SPEC, source='spec.yaml'), 0)
    assert (fixed['beams'], fixed['range_bins']) == (24, 64)  # the spec's settings
    outcome = make_sample(spec, rows[0])
    assert outcome.error is None
    arrays = np.load(io.BytesIO(outcome.files['arrays/000000.npz']))
    assert arrays['intensity_polar'].shape == (rows[0]['range_bins'], rows[0]['beams'])


BAD = changes(
    FLS_SPEC,
    {
        'vary-unknown': (
            '  range: [10, 12]\n',
            '  range: [10, 12]\n  vary: {tilt: [1, 2]}\n',
            'spec.yaml: sensor.vary.tilt: unknown key; known: frequency, beams',
        ),
        'vary-and-set': (
            '  range: [10, 12]\n',
            '  range: [10, 12]\n  vary: {beams: [8, 16]}\n',
            'spec.yaml: sensor.vary.beams: drawn here and set in sensor.settings.beams: keep one',
        ),
        'vary-fraction-of-a-count': (
            '  range: [10, 12]\n',
            '  range: [10, 12]\n  vary: {range_bins: [40.5, 60]}\n',
            'spec.yaml: sensor.vary.range_bins: a count: must be whole numbers',
        ),
        'vary-window-upside-down': (
            '  range: [10, 12]\n',
            '  range: [10, 12]\n  vary: {image_db_min: [-50, -20], image_db_max: [-30, -10]}\n',
            'spec.yaml: sensor.vary.image_db_max: must stay above image_db_min',
        ),
        'place-view-with-xy': (
            '{kind: box, count: [1, 2],',
            '{kind: box, place: view, count: [1, 2],',
            'spec.yaml: objects[0].place: view places the object itself: drop x and y',
        ),
        'buried-and-floating': (
            'burial: [0, 0.5]}',
            'burial: [0, 0.5], elevation: 2}',
            'spec.yaml: objects[2].burial: an object off the seabed (elevation) is not buried',
        ),
        'cluster-of-none': (
            '{kind: tyre,',
            '{kind: tyre, cluster: {pieces: 0},',
            'spec.yaml: objects[3].cluster.pieces: must be at least 1, got 0',
        ),
        'scour-key': (
            '{kind: tyre,',
            '{kind: tyre, scour: {deep: 1},',
            'spec.yaml: objects[3].scour.deep: unknown key; known: depth, width',
        ),
        'sequence-kind': (
            'processing:',
            'sequence: {length: 3, kind: circle}\nprocessing:',
            "spec.yaml: sequence.kind: must be track or approach, got 'circle'",
        ),
        'sequence-step-and-speed': (
            'processing:',
            'sequence: {length: 3, step: 1, speed: 2}\nprocessing:',
            'spec.yaml: sequence: give step, or speed and interval, not both',
        ),
        'sequence-length': (
            'processing:',
            'sequence: {length: 0}\nprocessing:',
            'spec.yaml: sequence.length: must be an integer in [1, 10000], got 0',
        ),
    },
)


@each(BAD)
def test_a_bad_variety_key_is_one_line_naming_it(refusal: Refusal) -> None:
    text = refusal.text()  # the change is in the good spec
    refused_in_one_line(lambda: parse_spec(text, source='spec.yaml'), refusal.words)


def test_a_sidescan_approach_is_refused() -> None:
    text = (REPO / 'config' / 'datasets' / 'sidescan_demo.yaml').read_text()
    with pytest.raises(SpecError, match=r'sequence\.kind: a side-scan sequence is a track'):
        parse_spec(text + 'sequence: {length: 2, kind: approach}\n', source='s.yaml')


#: One box in view on a flat seabed, a moored mine and a debris field: for the scene's checks.
SCENE_SPEC = """\
seed: 3
sensor:
  preset: fls
  settings: {beams: 24, range_bins: 64, rays_vertical: 48}
  range: 12
  altitude: 3
  tilt: 20
seabed:
  family: flat
  flat: {roughness: 0}
objects:
  - {kind: box, place: xy, x: 7, y: 0, yaw: 30, length: 2, width: 1, height: 0.5,
     scour: {depth: 0.3, width: 1.0}}
  - {kind: mine, x: 8, y: 2, elevation: 1.5}
  - {kind: debris, count: 1, cluster: {pieces: [5, 9], spread: 1.5}}
"""


def test_scour_elevation_and_clusters_in_the_scene() -> None:
    spec = parse_spec(SCENE_SPEC, source='spec.yaml')
    settings = check_sensor(spec)
    row = draw_row(spec, 0)
    objects = object_list(row)
    scene, alone, _ = sample_worlds(spec, settings, row)
    seabed = alone.entities[0].surface.vertices
    box = scene.states[1].origin

    def depth_at(x: float, y: float) -> float:
        near = np.argmin(np.hypot(seabed[:, 0] - x, seabed[:, 1] - y))
        return float(-seabed[near, 2])

    # The pit: 0.3 m under the box's centre, (1 - q)^2 of it inside, none beyond.
    assert depth_at(7.0, 0.0) == pytest.approx(0.3, abs=0.02)
    assert box[2, 3] == pytest.approx(-0.3, abs=0.02)  # the box rests in it
    yaw = math.radians(30.0)
    u = 1.5  # along the box's length, half-way to the pit's end (1 + 1 m)
    q = (u / 2.0) ** 2
    assert depth_at(7 + u * math.cos(yaw), u * math.sin(yaw)) == pytest.approx(
        0.3 * (1 - q) ** 2, abs=0.03
    )
    assert depth_at(7 + 2.3 * math.cos(yaw), 2.3 * math.sin(yaw)) == pytest.approx(0, abs=1e-9)
    assert depth_at(7 - 1.6 * math.sin(yaw), 1.6 * math.cos(yaw)) == pytest.approx(0, abs=1e-9)
    # The moored mine's base 1.5 m above the seabed.
    assert scene.states[2].origin[2, 3] == pytest.approx(1.5, abs=1e-9)
    # The debris field: 5 to 9 pieces within 1.5 m of a common centre.
    pieces = np.array([[o['x'], o['y']] for o in objects if o['kind'] == 'debris'])
    assert 5 <= len(pieces) <= 9
    distances = np.linalg.norm(pieces[:, None] - pieces[None], axis=-1)
    assert distances.max() <= 3.0


def _sequence_spec(kind: str) -> Spec:
    return parse_spec(
        SCENE_SPEC + f'sequence: {{length: 4, step: 0.5, kind: {kind}}}\n', source='q'
    )


@pytest.mark.parametrize('kind', ['track', 'approach'])
def test_a_sequence_moves_the_sensor_through_one_scene(kind: str) -> None:
    spec = _sequence_spec(kind)
    rows = [draw_row(spec, i) for i in range(8)]
    first = rows[:4]
    own = ('sample', 'id', 'noise_seed', 'ping', 'sensor_x', 'sensor_y', 'sensor_yaw')
    scene = {n: v for n, v in first[0].items() if n not in own}
    for k, row in enumerate(first):
        assert (row['sequence'], row['ping']) == (0, k)
        if kind == 'track':  # x_k = (k - (L - 1) / 2) step, heading 0
            expected = ((k - 1.5) * 0.5, 0.0, 0.0)
        else:  # from the origin towards the first object (7, 0, then the box): heading 0
            bearing = math.atan2(0.0, 7.0)
            expected = (k * 0.5 * math.cos(bearing), k * 0.5 * math.sin(bearing), 0.0)
        assert (row['sensor_x'], row['sensor_y'], row['sensor_yaw']) == pytest.approx(expected)
        drawn = {n: v for n, v in row.items() if n not in own}
        assert drawn == pytest.approx(scene, nan_ok=True)
    assert len({row['noise_seed'] for row in first}) == 4  # each ping its own noise
    assert rows[4]['sequence'] == 1
    assert rows[4]['objects'] != rows[0]['objects']
    # Negative control: a track of another step is told apart.
    assert rows[1]['sensor_x'] - rows[0]['sensor_x'] != pytest.approx(0.6)


def test_an_approach_heads_for_the_first_object() -> None:
    text = SCENE_SPEC.replace('x: 7, y: 0,', 'x: 6, y: 4,')
    spec = parse_spec(text + 'sequence: {length: 3, speed: 2, interval: 0.5, kind: approach}\n',
                      source='q')  # fmt: skip
    rows = [draw_row(spec, i) for i in range(3)]
    bearing = math.atan2(4.0, 6.0)
    for k, row in enumerate(rows):  # step = speed x interval = 1 m
        assert row['sensor_x'] == pytest.approx(k * math.cos(bearing))
        assert row['sensor_y'] == pytest.approx(k * math.sin(bearing))
        assert row['sensor_yaw'] == pytest.approx(math.degrees(bearing))


def test_each_pings_object_poses_are_seen_from_its_own_place() -> None:
    spec = _sequence_spec('track')
    settings = check_sensor(spec)
    for row in (draw_row(spec, 0), draw_row(spec, 3)):
        rendered = render_sample(spec, settings, row)
        for k, item in enumerate(object_list(row)):
            world = np.array([item['x'], item['y'], scene_z(spec, settings, row, k)])
            tilt = math.radians(row['tilt'])
            d = world - np.array([row['sensor_x'], row['sensor_y'], row['altitude']])
            expected = [
                math.cos(tilt) * d[0] - math.sin(tilt) * d[2],
                d[1],
                math.sin(tilt) * d[0] + math.cos(tilt) * d[2],
            ]
            np.testing.assert_allclose(rendered.object_poses[k][:3, 3], expected, atol=1e-9)


def scene_z(spec: Spec, settings: Any, row: dict[str, Any], k: int) -> float:
    """The base height of object ``k`` in the sample's scene."""
    scene, _, _ = sample_worlds(spec, settings, row)
    return float(scene.states[1 + k].origin[2, 3])


def test_the_same_seed_makes_the_same_bytes_with_every_variety() -> None:
    text = VARIED_SPEC.replace(
        '  - {kind: tyre, count: [0, 1], x: [4, 8], y: [-3, 3]}',
        '  - {kind: drum, count: 1, elevation: [0.5, 1]}\n'
        '  - {kind: debris, count: 1, cluster: {pieces: 3, spread: 1}}\n'
        '  - {kind: chain, count: 1, scour: {depth: 0.1}}',
    )
    spec = parse_spec(text + 'sequence: {length: 2, step: 0.3}\n', source='spec.yaml')
    check_sensor(spec)
    first = make_sample(spec, draw_row(spec, 1))
    again = make_sample(parse_spec(spec.text, source='spec.yaml'), draw_row(spec, 1))
    assert first.error is None
    assert first.files == again.files
    other = parse_spec(spec.text.replace('seed: 28', 'seed: 27'), source='spec.yaml')
    assert make_sample(other, draw_row(other, 1)).files != first.files
    kinds = [o['kind'] for o in json.loads(draw_row(spec, 1)['objects'])]
    assert {'drum', 'debris', 'chain'} <= set(kinds)


def test_the_card_reports_the_fraction_of_objects_seen(fls_reference: Path) -> None:
    views = [
        view
        for record in sorted((fls_reference / 'records').glob('*.json'))
        for view in json.loads(record.read_text())['object_views']
    ]
    seen = sum(view['pixels'] >= 4 for view in views)
    card = (fls_reference / 'README.md').read_text()
    line = f'{seen} of {len(views)} drawn ({100 * seen / len(views):.1f} %)'
    assert line in card
    assert f'{seen + 1} of {len(views)} drawn' not in card  # negative control


@pytest.mark.parametrize('name', sorted(PRESETS))
def test_every_node_preset_makes_a_dataset_sonar(name: str) -> None:
    text = FLS_SPEC.replace('beams: 24, range_bins: 64,', f'sonar_preset: {name},')
    spec = parse_spec(text, source='spec.yaml')
    settings = check_sensor(spec)
    preset = PRESETS[name]
    assert settings.fan.beams == preset.beams
    assert settings.beam.frequency == preset.frequency
    assert settings.scanning.max_angle == pytest.approx(preset.field_of_view / 2)
    row = draw_row(spec, 0)
    assert (row['beams'], row['frequency']) == (preset.beams, preset.frequency)
    plain = check_sensor(parse_spec(FLS_SPEC, source='spec.yaml'))
    assert plain.fan.beams != preset.beams  # negative control: the spec's own 24


def test_a_track_too_long_for_one_seabed_is_refused() -> None:
    spec = parse_spec(FLS_SPEC + 'sequence: {length: 202, step: 1}\n', source='spec.yaml')
    with pytest.raises(SpecError, match=r'^spec\.yaml: sequence: a track of 201 m, longer than'):
        check_sensor(spec)
    check_sensor(parse_spec(FLS_SPEC + 'sequence: {length: 201, step: 1}\n', source='spec.yaml'))


def test_the_command_writes_each_pings_place_and_its_objects_seen_from_there(
    tmp_path: Path,
) -> None:
    text = SCENE_SPEC + 'sequence: {length: 2, step: 1.0, kind: approach}\n'
    out = tmp_path / 'out'
    result = run_cli(write_spec(tmp_path, text), out, '--samples', '2', '--quiet')
    assert result.returncode == 0, result.stderr
    rows = read_manifest(out / 'manifest.parquet')
    assert [(r['sequence'], r['ping']) for r in rows] == [(0, 0), (0, 1)]
    assert [r['sensor_x'] for r in rows] == pytest.approx([0.0, 1.0])  # towards the box at (7, 0)
    ranges = []
    for row in rows:
        record = json.loads((out / 'records' / f'{row["id"]}.json').read_text())
        box = record['object_views'][0]
        ranges.append(box['range'])
        # The box's base centre, in the scour pit 0.3 m deep, from this ping's sensor.
        expected = math.hypot(7.0 - row['sensor_x'], row['sensor_y'], 3.0 + 0.3)
        assert box['range'] == pytest.approx(expected, abs=0.02)
    assert ranges[0] - ranges[1] > 0.5  # the approach closes in


def _visible(spec: Spec, samples: int) -> float:
    """The fraction of objects (debris pieces aside) with at least 4 pixels in the image."""
    settings = check_sensor(spec)
    shown = []
    for index in range(samples):
        rendered = render_sample(spec, settings, draw_row(spec, index))
        pixels = np.bincount(rendered.instance.ravel(), minlength=2 + len(rendered.objects))
        shown += [
            p >= 4
            for o, p in zip(rendered.objects, pixels[2:], strict=True)
            if o['kind'] != 'debris'
        ]
    return float(np.mean(shown))


def test_the_fan_demos_objects_show_in_its_images() -> None:
    path = REPO / 'config' / 'datasets' / 'fls_demo.yaml'
    assert _visible(load_spec(path), 8) >= 0.9
    assert _visible(_with_objects(path, OLD_FAN_OBJECTS), 8) < 0.9  # negative control


def test_a_sidescan_tracks_objects_are_along_its_blocks() -> None:
    path = REPO / 'config' / 'datasets' / 'sidescan_demo.yaml'
    text = path.read_text() + 'sequence: {length: 3}\n'  # blocks of 256 x 0.1 m end to end
    spec = parse_spec(text, source=path.name)
    settings = check_sensor(spec)
    rows = [draw_row(spec, i) for i in range(0, 3 * 40, 3)]  # the first ping of 40 sequences
    along = np.array([o['x'] for row in rows for o in object_list(row)])
    block = 256 * 0.1
    assert np.abs(along).max() <= 1.5 * block  # within the three blocks' track
    assert np.abs(along).max() > 0.5 * block  # past the middle one (negative: one block)
    seen = [
        _sidescan_sees({**row, 'sensor_x': 0.0}, c - np.array([x, 0, 0]), settings)
        for row in rows
        for c in _centres(row)
        for x in (-block, 0.0, block)
        if abs(c[0] - x) <= block / 2
    ]
    assert np.mean(seen) >= 0.95  # each in the swath of the block it lies along
