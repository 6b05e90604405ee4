"""Draw the README's dataset pictures: docs/images/dataset_fls.png and dataset_sidescan.png.

Run: ``scripts/run python scripts/make_dataset_pictures.py`` (the PNGs are committed; this
says how they were made). It makes samples of the shipped demo specs
(``config/datasets/fls_demo.yaml``, ``sidescan_demo.yaml``) in this process, as
``sonar_dataset --workers 1`` does, and draws the first ones with at least two boxes: each
display image beside its semantic and shadow masks and its boxes (``plots.draw_labelled``).
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nps_sonar_py.dataset import draw_row, load_spec, make_sample
from nps_sonar_py.plots import draw_labelled

REPO = Path(__file__).resolve().parents[1]
PICTURES = {  # spec, picture, samples drawn
    'fls_demo.yaml': ('dataset_fls.png', 3),
    'sidescan_demo.yaml': ('dataset_sidescan.png', 2),
}


def _sample(files: dict[str, bytes], sample: str) -> dict[str, Any]:
    arrays = np.load(io.BytesIO(files[f'arrays/{sample}.npz']))

    def array(name: str) -> np.ndarray:
        return np.asarray(arrays[name])

    record = json.loads(files[f'records/{sample}.json'])
    from PIL import Image

    display = np.asarray(Image.open(io.BytesIO(files[f'images/{sample}.png'])))
    return {
        'display': display,
        'semantic': array('semantic'),
        'shadow': array('shadow'),
        'boxes': record['annotations'],
    }


def main() -> int:
    """Write the pictures."""
    for name, (picture, count) in PICTURES.items():
        spec = load_spec(REPO / 'config' / 'datasets' / name)
        drawn = []
        index = 0
        while len(drawn) < count:
            row = draw_row(spec, index)
            outcome = make_sample(spec, row)
            assert outcome.error is None, outcome.error
            sample = _sample(outcome.files, row['id'])
            if len(sample['boxes']) >= 2:
                sample['title'] = (
                    f'{name} sample {row["id"]}: {row["seabed_family"]} seabed, '
                    f'altitude {row["altitude"]:.1f} m, tilt {row["tilt"]:.0f} deg, '
                    f'range {row["range"]:.0f} m'
                )
                drawn.append(sample)
            index += 1
        draw_labelled(REPO / 'docs' / 'images' / picture, drawn, spec.classes)
        print(f'docs/images/{picture}: samples of {name} up to {index - 1}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
