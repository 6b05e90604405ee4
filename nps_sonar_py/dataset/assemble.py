"""The dataset-wide files, made from the samples' records in sample order.

The same bytes however the samples ran. The records are those the workers reported as they
wrote them (``run.py``): no sample is read back here.

* ``manifest.parquet``: one row a sample, every drawn value (``draw.MANIFEST_COLUMNS``), its
  ``status`` (``ok`` or ``failed``) and ``error``; written by pyarrow without statistics or
  timestamps.
* ``coco.json``: the images, the object categories (ids ``1 + k``, contiguous, each with its
  ``semantic_id`` ``2 + k``) and every box (ids in sample order), with its object's
  ``occluded``, ``range``, ``bearing`` and ``pose`` (:data:`VIEW_KEYS`).
* ``yolo.yaml``: the YOLO class names (class ``k`` is category ``1 + k``) and the splits,
  ``train.txt``, ``val.txt``, ``test.txt``: the made samples' images by index, or by sequence
  when the spec has ``sequence`` (:func:`split`),
  as Ultralytics reads them (no ``path``: the YAML's folder is the dataset's root).
  ``yolo_obb.yaml`` the same for the oriented boxes, its splits in ``obb/`` listing
  ``obb/images`` (a link to ``images``) so that Ultralytics finds ``obb/labels``.
* ``README.md``: the dataset card: the spec, the counts, per-class statistics, and the
  realism benchmark's figures for the sensor's kind (``realism_card.py``).
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

from nps_sonar_py.dataset.draw import MANIFEST_COLUMNS
from nps_sonar_py.dataset.files import OBB_FOLDER, json_bytes
from nps_sonar_py.dataset.realism_card import read_figures, realism_lines
from nps_sonar_py.dataset.spec import Spec

__all__ = [
    'SPLITS',
    'dataset_files',
    'manifest_bytes',
    'parse_records',
    'read_manifest',
    'record_status',
    'split',
]


def _parsed(data: bytes | None) -> dict[str, Any] | None:
    """A record's bytes as a dict; None if there are none or they are broken."""
    try:
        record = json.loads(data) if data is not None else None
    except ValueError:  # truncated, not UTF-8
        return None
    return record if isinstance(record, dict) and 'status' in record else None


def record_status(data: bytes) -> str | None:
    """The ``status`` of a record's bytes (``ok``, ``failed``); None if they are broken."""
    record = _parsed(data)
    return None if record is None else str(record['status'])


def parse_records(rows: list[dict[str, Any]], records: dict[int, bytes]) -> list[dict[str, Any]]:
    """The record of each row's sample, in row order, from its bytes by index.

    ``status`` ``missing`` if it has none or they are broken.
    """
    parsed = []
    for row in rows:
        record = _parsed(records.pop(row['sample'], None))  # the bytes freed as they are read
        parsed.append(record or {'id': row['id'], 'status': 'missing', 'error': 'not made'})
    return parsed


def manifest_bytes(rows: list[dict[str, Any]], records: list[dict[str, Any]]) -> bytes:
    """The manifest as Parquet bytes: the drawn values, status and error of every sample."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns: dict[str, list[Any]] = {
        name: [row[name] for row in rows] for name in MANIFEST_COLUMNS
    }
    columns['status'] = [r['status'] for r in records]
    columns['error'] = [r.get('error', '') for r in records]
    table = pa.table(columns)
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression='zstd', write_statistics=False, store_schema=True)
    return buffer.getvalue()


def read_manifest(path: Path) -> list[dict[str, Any]]:
    """The manifest's rows as dicts (the values :func:`draw.draw_row` gave)."""
    import pyarrow.parquet as pq

    rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
    return rows


#: What a COCO annotation repeats of its object's view in the record.
VIEW_KEYS = ('occluded', 'range', 'bearing', 'pose')


def _coco(spec: Spec, records: list[dict[str, Any]]) -> dict[str, Any]:
    images: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    for index, record in enumerate(records):
        if record['status'] != 'ok':
            continue
        images.append(
            {
                'id': index,
                'file_name': f'images/{record["id"]}.png',
                'width': record['width'],
                'height': record['height'],
            }
        )
        views = record.get('object_views', [])
        for a in record['annotations']:
            view = views[a['instance'] - 2] if a['instance'] - 2 < len(views) else {}
            annotations.append(
                {
                    **{key: view[key] for key in VIEW_KEYS if key in view},
                    'id': len(annotations) + 1,
                    'image_id': index,
                    'category_id': a['category_id'],
                    'bbox': a['bbox'],
                    'area': a['area'],
                    'iscrowd': 0,
                    'segmentation': a['segmentation'],
                    'obb': a['obb'],
                    'elongated': a['elongated'],
                    'instance': a['instance'],
                }
            )
    categories = [
        {'id': 1 + k, 'name': name, 'semantic_id': 2 + k, 'supercategory': 'object'}
        for k, name in enumerate(spec.classes)
    ]
    return {
        'info': {'description': f'nps_sonar dataset from {spec.source}', 'version': '1'},
        'images': images,
        'annotations': annotations,
        'categories': categories,
    }


#: Most distinct words a drawn value's line of the card names (else it counts them).
CARD_WORDS = 12


def _drawn_line(name: str, values: list[Any]) -> str:
    """The card's line of one drawn value: its range, or its words and their counts.

    Bounded whatever the sample count: numbers give their min and max (and how many samples
    have none, e.g. a wavelength of a flat seabed), words their counts, at most
    :data:`CARD_WORDS` of them.
    """
    numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    finite = [v for v in numbers if math.isfinite(v)]
    if numbers and len(numbers) == len(values):
        if not finite:
            return f'| {name} | none | |'
        absent = len(values) - len(finite)
        note = f' ({absent} samples without)' if absent else ''
        return f'| {name} | {min(finite):.6g} | {max(finite):.6g}{note} |'
    counts: dict[str, int] = {}
    for value in values:
        counts[str(value)] = counts.get(str(value), 0) + 1
    shown = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:CARD_WORDS]
    words = ', '.join(f'{word} ({count})' for word, count in shown)
    more = f', and {len(counts) - len(shown)} more' if len(counts) > len(shown) else ''
    return f'| {name} | {words}{more} | |'


def _card(
    spec: Spec, rows: list[dict[str, Any]], records: list[dict[str, Any]], coco: dict[str, Any]
) -> str:
    ok = sum(r['status'] == 'ok' for r in records)
    lines = [
        f'# Sonar dataset: {spec.source}',
        '',
        f'Made by `sonar_dataset` of the ROS package nps_sonar from the spec below, seed '
        f'{spec.seed}: {len(records)} samples, {ok} made, {len(records) - ok} failed. Sensor '
        f'preset `{spec.sensor.preset}`, echo model `{spec.sensor.echo_model}`. Layout and '
        'conventions: nps_sonar `docs/datasets.md`; every drawn value of a sample is its row '
        'of `manifest.parquet`.',
        '',
        _split_line(spec.sequence.length),
        '',
        '## Classes',
        '',
        '| class | COCO id | YOLO class | semantic id | instances with a box | samples with it '
        '| mean box area (px) | elongated |',
        '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ]
    for category in coco['categories']:
        boxes = [a for a in coco['annotations'] if a['category_id'] == category['id']]
        samples = len({a['image_id'] for a in boxes})
        mean = sum(a['area'] for a in boxes) / len(boxes) if boxes else 0.0
        elongated = sum(a['elongated'] for a in boxes)
        lines.append(
            f'| {category["name"]} | {category["id"]} | {category["id"] - 1} '
            f'| {category["semantic_id"]} | {len(boxes)} | {samples} | {mean:.1f} | {elongated} |'
        )
    views = [view for record in records for view in record.get('object_views', [])]
    seen = sum(view['visible'] for view in views)
    lines += [
        '',
        f'Objects seen (a box: at least 4 pixels in the image): {seen} of {len(views)} drawn '
        f'({100 * seen / max(len(views), 1):.1f} %).',
    ]
    pixels: dict[str, int] = {}
    for record in records:
        for name, count in record.get('semantic_pixels', {}).items():
            pixels[name] = pixels.get(name, 0) + count
    total = sum(pixels.values()) or 1
    lines += ['', 'Pixels of the display grid by semantic class (0 none, 1 seabed):', '']
    lines += [f'* {name}: {count} ({100 * count / total:.2f} %)' for name, count in pixels.items()]
    shadow = sum(r.get('shadow_pixels', 0) for r in records)
    lines += [
        f'* shadow: {shadow} ({100 * shadow / total:.2f} %)',
        '',
        '## Drawn values',
        '',
        '| value | min | max |',
        '| --- | --- | --- |',
    ]
    drawn = [name for name in MANIFEST_COLUMNS[2:] if name != 'objects']
    lines += [_drawn_line(name, [row[name] for row in rows]) for name in drawn]
    failed = [r for r in records if r['status'] != 'ok']
    if failed:
        lines += ['', '## Failed samples', '']
        lines += [f'* {r["id"]}: {r.get("error", "")}' for r in failed]
    lines += ['', *realism_lines(spec.sensor.preset, read_figures())]
    lines += ['', '## Spec', '', '```yaml', spec.text.rstrip('\n'), '```', '']
    return '\n'.join(lines)


#: The splits, in the order of :func:`split`'s answer.
SPLITS = ('train', 'val', 'test')


def split(index: int, length: int = 1) -> str:
    """The split of sample ``index`` in sequences of ``length`` pings (1: no sequences).

    Of every ten sequences, eight train, the ninth val, the tenth test; every ping of a
    sequence in its sequence's split, so that no scene is both trained on and tested (with
    ``length`` 1: of every ten samples). By index alone, so a sample keeps its split whatever
    else is made, resumed or added.
    """
    return SPLITS[max(0, index // length % 10 - 7)]


def _split_line(length: int) -> str:
    """The card's paragraph on the splits (:func:`split`) for sequences of ``length`` pings."""
    lists = (
        '(`train.txt`, `val.txt`, `test.txt`, named by `yolo.yaml`; the same in `obb/`, named '
        'by `yolo_obb.yaml`)'
    )
    if length == 1:
        return (
            f'Splits by index {lists}: of every ten samples, eight train, the ninth val, the '
            'tenth test; failed samples in none.'
        )
    return (
        f'Splits by sequence {lists}: of every ten sequences (of {length} pings: sample `i` is '
        f'of sequence `i div {length}`), eight train, the ninth val, the tenth test; all the '
        'pings of a sequence in one split, so no scene is in two; failed samples in none.'
    )


def _yolo_files(spec: Spec, records: list[dict[str, Any]]) -> dict[str, bytes]:
    """``yolo.yaml``, ``yolo_obb.yaml`` and their split lists (module docstring)."""
    lists: dict[str, list[str]] = {name: [] for name in SPLITS}
    for index, record in enumerate(records):
        if record['status'] == 'ok':
            lists[split(index, spec.sequence.length)].append(f'./images/{record["id"]}.png\n')
    names = 'names:\n' + ''.join(
        f'  {k}: {json.dumps(name)}\n' for k, name in enumerate(spec.classes)
    )
    files: dict[str, bytes] = {}
    for yaml_name, folder in (('yolo.yaml', ''), ('yolo_obb.yaml', f'{OBB_FOLDER}/')):
        splits = ''.join(f'{name}: {folder}{name}.txt\n' for name in SPLITS)
        files[yaml_name] = (splits + names).encode()
        for name, lines in lists.items():  # ./ is the list's folder: obb/images is images
            files[f'{folder}{name}.txt'] = ''.join(lines).encode()
    return files


def dataset_files(
    spec: Spec, rows: list[dict[str, Any]], records: list[dict[str, Any]]
) -> dict[str, bytes]:
    """The dataset-wide files (module docstring) as bytes."""
    coco = _coco(spec, records)
    return {
        'manifest.parquet': manifest_bytes(rows, records),
        'coco.json': json_bytes(coco),
        **_yolo_files(spec, records),
        'README.md': _card(spec, rows, records, coco).encode(),
    }
