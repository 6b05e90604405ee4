"""Every drawn value of a sample, from the run's seed and the sample's index alone.

Sample ``i`` draws from ``numpy.random.default_rng(SeedSequence([seed, i]))`` (in a sequence
of ``L`` pings: ``[seed, i div L]``, ``dataset/sequence.py``), in a fixed order, every value
whether it is used or not: a sample's values depend on nothing but the
spec, the seed and ``i``, never on the worker count or the order the samples run in. The
values are one flat row (:func:`draw_row`): the manifest's row, from which the sample is
made (``dataset/sample.py``) and remade.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from nps_sonar_py.dataset.placement import draw_objects, view_of
from nps_sonar_py.dataset.placement import value as _value
from nps_sonar_py.dataset.sensor import block_length, cached_settings, drawn_settings
from nps_sonar_py.dataset.sequence import POSE_COLUMNS, place_row
from nps_sonar_py.dataset.spec import VARIED, Spec

__all__ = ['MANIFEST_COLUMNS', 'draw_row', 'object_list', 'sample_id']

#: The manifest's columns besides the status (``dataset/manifest.py``), in order.
MANIFEST_COLUMNS = (
    'sample',
    'id',
    'range',
    'altitude',
    'tilt',
    'heading',
    'gain_db',
    'tvg',
    'speckle',
    'gain_stddev',
    'noise_seed',
    'seabed_family',
    'seabed_seed',
    'seabed_roughness',
    'seabed_wavelength',
    'seabed_height',
    'seabed_scale',
    'sand',
    'mud',
    'rock',
    'mud_fraction',
    'rock_fraction',
    'patch_size',
    'profile',
    'surface_speed',
    'gradient',
    'thermocline_depth',
    'thermocline_drop',
    'sensor_depth',
    'multipath',
    *VARIED,
    *POSE_COLUMNS,
    'objects',
)


def sample_id(index: int) -> str:
    """The sample's name in file names: its index, six digits or more."""
    return f'{index:06d}'


def _seed(rng: np.random.Generator) -> int:
    """A seed in ``[0, 2**31 - 1]`` (the echo model's ``seed`` setting's range)."""
    return int(rng.integers(0, 2**31 - 1))


def draw_row(spec: Spec, index: int) -> dict[str, Any]:
    """The drawn values of sample ``index`` (the columns of :data:`MANIFEST_COLUMNS`)."""
    sequence, ping = divmod(index, spec.sequence.length)
    rng = np.random.default_rng(np.random.SeedSequence([spec.seed, sequence]))
    s, w, b = spec.sensor, spec.water, spec.seabed
    row: dict[str, Any] = {'sample': index, 'id': sample_id(index)}
    for name in ('range', 'altitude', 'tilt', 'heading'):
        row[name] = _value(getattr(s, name), rng)
    row['gain_db'] = _value(spec.gain_db, rng)
    row['tvg'] = _value(spec.tvg, rng)
    row['speckle'] = bool(_value(spec.speckle, rng))
    row['gain_stddev'] = _value(spec.gain_stddev, rng)
    row['noise_seed'] = _seed(rng)
    family = _value(b.family, rng)
    row['seabed_family'] = family
    row['seabed_seed'] = _seed(rng)
    drawn = {f: {n: _value(d, rng) for n, d in p.items()} for f, p in b.parameters.items()}
    for name in ('roughness', 'wavelength', 'height', 'scale'):
        row[f'seabed_{name}'] = drawn[family].get(name, math.nan)
    r = b.reflectivity
    for name in ('sand', 'mud', 'rock', 'mud_fraction', 'rock_fraction', 'patch_size'):
        row[name] = _value(getattr(r, name), rng)
    row['profile'] = _value(w.profile, rng)
    for name in ('surface_speed', 'gradient', 'thermocline_depth', 'thermocline_drop'):
        row[name] = _value(getattr(w, name), rng)
    row['sensor_depth'] = _value(w.sensor_depth, rng)
    row['multipath'] = bool(_value(w.multipath, rng))
    settings = cached_settings(spec)
    objects = draw_objects(spec, row, rng, view_of(spec, settings))
    row.update(drawn_settings(spec, settings, {name: float(rng.random()) for name in VARIED}))
    row.update(place_row(spec, block_length(settings), index, objects))
    if spec.sequence.length > 1:  # the scene's the sequence's, the noise each ping's own
        noise = np.random.default_rng(np.random.SeedSequence([spec.seed, sequence, ping]))
        row['noise_seed'] = _seed(noise)
    row['objects'] = json.dumps(objects, sort_keys=True)
    return row


def object_list(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The objects of a row, as drawn (kind, class, sizes, place, pose, elevation, scour, ...)."""
    objects: list[dict[str, Any]] = json.loads(row['objects'])
    return objects
