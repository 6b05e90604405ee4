r"""A sample's files as bytes, written the same way everywhere: no time, no host, no order.

PNGs are written by Pillow without a time or text chunk, a sample's arrays as one ``.npz``
(the ``.npy`` of each, deflated, in a zip whose entries have a fixed time and are in name
order: ``numpy.load`` reads it), JSON with sorted keys, text with ``\\n`` line ends and fixed
decimals. The sample's record (``records/<id>.json``) is written last: a sample is complete
when its record is there (``--resume``). Paths are relative to the dataset's folder
(``docs/datasets.md``).
"""

from __future__ import annotations

import io
import json
import math
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.dataset.boxes import MIN_PIXELS, instance_boxes
from nps_sonar_py.dataset.objects import ELONGATED
from nps_sonar_py.dataset.sample import Rendered
from nps_sonar_py.transforms import matrix_to_rpy

__all__ = [
    'ELONGATION',
    'OBB_FOLDER',
    'json_bytes',
    'npy_bytes',
    'npz_bytes',
    'png_bytes',
    'record_path',
    'sample_files',
    'write_atomic',
]

#: An oriented box at least this many times as long as wide marks its object elongated.
ELONGATION = 2.0

#: The folder of the oriented boxes as Ultralytics' OBB task reads them: ``obb/labels/<id>.txt``
#: beside ``obb/images``, a link to ``../images`` (its label path is the image's with
#: ``/images/`` made ``/labels/``).
OBB_FOLDER = 'obb'


def json_bytes(value: Any, *, indent: int | None = None) -> bytes:
    """``value`` as JSON: sorted keys, compact (or ``indent``), UTF-8, a final newline."""
    separators = (',', ': ') if indent else (',', ':')
    text = json.dumps(
        value, sort_keys=True, indent=indent, separators=separators, ensure_ascii=False
    )
    return (text + '\n').encode()


def npy_bytes(array: NDArray[Any]) -> bytes:
    """``array`` as a ``.npy`` file (C order, little-endian as numpy writes it)."""
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(array), allow_pickle=False)
    return buffer.getvalue()


#: The time of every entry of a sample's ``.npz`` (zip's earliest): no time in the bytes.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def npz_bytes(arrays: dict[str, NDArray[Any]]) -> bytes:
    """``arrays`` as a deflated ``.npz`` (``numpy.load``), the same bytes for the same arrays."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, 'w') as archive:
        for name in sorted(arrays):
            entry = zipfile.ZipInfo(f'{name}.npy', date_time=ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            archive.writestr(entry, npy_bytes(arrays[name]), compresslevel=6)
    return buffer.getvalue()


def png_bytes(image: NDArray[np.uint8], channels: int = 1) -> bytes:
    """An 8-bit PNG of ``image`` (H, W): grayscale, or with ``channels`` 3 the gray in R, G, B.

    No time, text or other metadata chunk.
    """
    from PIL import Image

    pixels = np.ascontiguousarray(image)
    if channels == 3:
        pixels = np.ascontiguousarray(np.repeat(pixels[..., None], 3, axis=-1))
    buffer = io.BytesIO()
    Image.fromarray(pixels, mode='L' if channels == 1 else 'RGB').save(
        buffer, format='PNG', compress_level=6
    )
    return buffer.getvalue()


def record_path(sample_id: str) -> str:
    """The record of a sample, written last."""
    return f'records/{sample_id}.json'


def _yolo(annotations: list[dict[str, Any]], width: int, height: int) -> tuple[str, str]:
    """YOLO lines (class cx cy w h) and YOLO-OBB lines (class x1 y1 .. x4 y4), normalised.

    YOLO class ``k`` is COCO category ``1 + k``, semantic ``2 + k``.
    """
    boxes, oriented = [], []
    for a in annotations:
        x, y, w, h = a['bbox']
        c = a['category_id'] - 1
        boxes.append(
            f'{c} {(x + w / 2) / width:.6f} {(y + h / 2) / height:.6f} '
            f'{w / width:.6f} {h / height:.6f}'
        )
        corners = a['obb_corners']
        scaled = [corners[i] / (width if i % 2 == 0 else height) for i in range(8)]
        oriented.append(f'{c} ' + ' '.join(f'{v:.6f}' for v in scaled))
    return ''.join(f'{line}\n' for line in boxes), ''.join(f'{line}\n' for line in oriented)


def _views(rendered: Rendered, pixels: list[int]) -> list[dict[str, Any]]:
    """Per object, in order: its pixels in the image, whether it has a box, and where it is.

    ``occluded``: the part of it hidden from the sensor (``dataset/occlusion.py``).

    ``range`` (m) and ``bearing`` (degrees, to port positive, 0 ahead) of its base's centre
    from the sensor, and ``pose``: ``[x, y, z, roll, pitch, yaw]`` (m, degrees) in the
    sensor's frame (x ahead, y to port, z up; the side-scan's at the block's middle).
    """
    views = []
    for k, item in enumerate(rendered.objects):
        pose = rendered.object_poses[k]
        x, y, z = (float(v) for v in pose[:3, 3])
        roll, pitch, yaw = matrix_to_rpy(pose[:3, :3])
        views.append(
            {
                'class': item['class'],
                'pixels': int(pixels[k]),
                'visible': int(pixels[k]) >= MIN_PIXELS,
                'occluded': round(float(rendered.occluded[k]), 4),
                'range': round(math.hypot(x, y, z), 4),
                'bearing': round(math.degrees(math.atan2(y, x)), 4),
                'pose': [round(v, 4) for v in (x, y, z)]
                + [round(math.degrees(a), 4) for a in (roll, pitch, yaw)],
            }
        )
    return views


def sample_files(
    sample_id: str, rendered: Rendered, classes: tuple[str, ...], channels: int = 1
) -> dict[str, bytes]:
    """Every file of a sample, its record last (module docstring).

    The annotations' ``category_id`` is COCO's, ``1 + k`` for class ``k`` (contiguous from 1);
    ``semantic`` the mask's value, ``2 + k``.
    """
    height, width = rendered.display.shape
    annotations = []
    for box in instance_boxes(rendered.instance):
        item = rendered.objects[box['instance'] - 2]
        category = 1 + classes.index(item['class'])
        w, h = box['obb'][2], box['obb'][3]
        annotations.append(
            {
                **box,
                'category_id': category,
                'semantic': category + 1,
                'class': item['class'],
                'elongated': item['kind'] in ELONGATED or w >= ELONGATION * max(h, 1e-9),
            }
        )
    files = {f'images/{sample_id}.png': png_bytes(rendered.display, channels)}
    boxes, oriented = _yolo(annotations, width, height)
    files[f'labels/{sample_id}.txt'] = boxes.encode()
    files[f'{OBB_FOLDER}/labels/{sample_id}.txt'] = oriented.encode()
    files[f'arrays/{sample_id}.npz'] = npz_bytes(rendered.arrays)
    counts = np.bincount(rendered.semantic.ravel(), minlength=2 + len(classes))
    seen = np.bincount(rendered.instance.ravel(), minlength=2 + len(rendered.objects))
    record = {
        'id': sample_id,
        'status': 'ok',
        'width': width,
        'height': height,
        'annotations': annotations,
        'semantic_pixels': {
            name: int(n)
            for name, n in zip(('none', 'seabed', *classes), counts.tolist(), strict=False)
        },
        'shadow_pixels': int(rendered.shadow.sum()),
        'objects': len(rendered.objects),
        'object_views': _views(rendered, seen[2:].tolist()),
    }
    files[record_path(sample_id)] = json_bytes(record)
    return files


def write_atomic(root: Path, relative: str, data: bytes) -> None:
    """Write ``data`` to ``root / relative`` through a temporary file and a rename."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f'.{path.name}.part')
    temporary.write_bytes(data)
    os.replace(temporary, path)
