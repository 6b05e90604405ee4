"""Ground-truth labels of a ping: which entity's echo dominates each (beam, range bin) cell.

A label is ``1 + i`` for entity ``i`` of the label table (the world's entities, in order, as
``RayHits.entity`` indexes them), ``0`` for none. The dominant entity of a cell is the one
whose rays sum to the largest echo intensity in it: the same per-ray intensities the profile
sums, before speckle, gain and the imaging options (``docs/labels.md``). Ties go to the lowest
index; a cell whose largest sum is not positive (no return, or only silent ones) is ``0``.
Occlusion comes from the cast: a ray reports only the first surface it meets, so an entity
hidden behind another never contributes to the rays that met the front one.

One ``np.bincount`` over the ``(beam, bin, entity)`` cells, then an argmax per cell: its
memory, ``beams x bins x entities`` float64 sums, is bounded by :data:`MAX_LABEL_CELLS` and
checked (:func:`label_problem`) when a sensor is built, never per ping.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.errors import ConfigurationError, one_line

__all__ = [
    'MAX_LABELLED_ENTITIES',
    'MAX_LABEL_CELLS',
    'LabelTable',
    'dominant_labels',
    'label_problem',
]

#: Most entities a label table holds: a ``mono16`` pixel is ``1 + index`` <= 65535.
MAX_LABELLED_ENTITIES = 2**16 - 1
#: Most ``(beam, bin, entity)`` cells of one ping's label sums: 2**25 float64, 256 MiB.
MAX_LABEL_CELLS = 2**25


def label_problem(n_beams: int, n_bins: int, n_entities: int) -> str | None:
    """Why labels of ``n_beams x n_bins`` cells over ``n_entities`` cannot be made, or ``None``."""
    if n_entities > MAX_LABELLED_ENTITIES:
        return (
            f'labels: a label table of {n_entities} entities is over the limit of '
            f'{MAX_LABELLED_ENTITIES} (a mono16 label is 1 + the entity index)'
        )
    cells = n_beams * n_bins * n_entities
    if cells > MAX_LABEL_CELLS:
        return (
            f'labels: {n_beams} beams x {n_bins} bins x {n_entities} entities = {cells} cells, '
            f'more than the {MAX_LABEL_CELLS} allowed ({MAX_LABEL_CELLS * 8 // 2**20} MiB)'
        )
    return None


def dominant_labels(
    flat: NDArray[np.intp],
    intensity: ArrayLike,
    entity: ArrayLike,
    n_beams: int,
    n_bins: int,
    n_entities: int,
) -> NDArray[np.uint16]:
    """(n_beams, n_bins) uint16 label of each cell (module docstring), in one bincount.

    Args:
        flat: (n,) the flat cell of every ray, ``beam * n_bins + bin``, or
            ``n_beams * n_bins`` (the dump cell) for a ray that returns nothing in range.
        intensity: (n,) echo intensity of every ray (anything on dumped rays, NaN included).
        entity: (n,) entity index of every ray, ``-1`` for none (such a ray labels nothing).
        n_beams: beams of the cells.
        n_bins: range bins of each beam.
        n_entities: length of the label table; every index must be below it.

    Raises:
        ValueError: shapes that differ, or an entity index outside ``[-1, n_entities)``.
    """
    problem = label_problem(n_beams, n_bins, n_entities)
    if problem:
        raise ConfigurationError(problem)
    cells = n_beams * n_bins
    e = np.asarray(entity).reshape(-1)
    weights = np.asarray(intensity).reshape(-1)
    if not (e.shape == weights.shape == flat.shape):
        msg = f'entity {e.shape}, intensity {weights.shape} and cells {flat.shape} must match'
        raise ValueError(msg)
    labels = np.zeros(cells, dtype=np.uint16)
    if n_entities == 0 or e.size == 0:
        return labels.reshape(n_beams, n_bins)
    if int(e.min()) < -1 or int(e.max()) >= n_entities:
        msg = f'entity indices must be in [-1, {n_entities}), got {int(e.min())}..{int(e.max())}'
        raise ValueError(msg)
    dump = cells * n_entities  # rays without an entity or a cell: one bin after the last
    key = np.where(e >= 0, flat * n_entities + e, dump)
    np.minimum(key, dump, out=key)  # a dumped ray of any entity lands in the one dump bin
    # With weights, bincount sums them in float64; numpy's stubs say intp whatever the weights.
    sums = cast('NDArray[np.float64]', np.bincount(key, weights, dump + 1))
    table = sums[:dump].reshape(cells, n_entities)
    best = np.argmax(table, axis=1)  # the first of equal sums: the lowest index
    loud = np.take_along_axis(table, best[:, None], axis=1)[:, 0] > 0.0  # NaN too is not loud
    labels[loud] = best[loud] + 1
    return labels.reshape(n_beams, n_bins)


@dataclass(frozen=True)
class LabelTable:
    """The entity of each label: label ``p >= 1`` is ``names[p - 1]``, ``0`` is none.

    Raises ``ConfigurationError`` (one line) for more than :data:`MAX_LABELLED_ENTITIES` names.
    """

    names: tuple[str, ...]

    def __post_init__(self) -> None:
        names = tuple(self.names)
        object.__setattr__(self, 'names', names)
        problem = label_problem(0, 0, len(names))
        if problem:
            raise ConfigurationError(problem)
        for name in names:
            if not isinstance(name, str):
                msg = f'labels: entity names must be strings, got {one_line(repr(name), 80)}'
                raise ConfigurationError(msg)

    def __len__(self) -> int:
        return len(self.names)

    def name(self, label: int) -> str | None:
        """The entity of ``label``; ``None`` for 0 (no entity)."""
        if not 0 <= label <= len(self.names):
            msg = f'label {label} is not in [0, {len(self.names)}]'
            raise ValueError(msg)
        return self.names[label - 1] if label else None

    def to_json(self) -> str:
        """The table as JSON: ``{"none": 0, "labels": {"1": name, ...}}`` (``docs/labels.md``)."""
        labels = {str(i + 1): name for i, name in enumerate(self.names)}
        return json.dumps({'none': 0, 'labels': labels}, ensure_ascii=False)
