"""Ground-truth labels of a ping: which entity's echo dominates each (beam, range bin) cell.

A label is ``1 + i`` for entity ``i`` of the label table (the world's entities, in order, as
``RayHits.entity`` indexes them), ``0`` for none. The dominant entity of a cell is the one
whose rays sum to the largest echo intensity in it: the same per-ray intensities the profile
sums, before speckle, gain and the imaging options (``docs/labels.md``). Ties go to the lowest
index; a cell whose largest sum is not positive (no return, or only silent ones) is ``0``.
Occlusion comes from the cast: a ray reports only the first surface it meets, so an entity
hidden behind another never contributes to the rays that met the front one.

Vectorised over the rays, not the cells: the ``(cell, entity)`` pairs that rays actually hit
are found with one ``np.unique`` of their keys, summed with one ``np.bincount`` and reduced
per cell with ``np.maximum.reduceat``. Memory and time grow with the rays of a ping, whatever
the number of beams, bins and entities (a dense ``beams x bins x entities`` table would be
256 MiB for 256 beams, 1000 bins and 128 entities, and mostly zeros).
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
    'LabelTable',
    'dominant_labels',
    'label_problem',
]

#: Most entities a label table holds: a ``mono16`` pixel is ``1 + index`` <= 65535.
MAX_LABELLED_ENTITIES = 2**16 - 1


def label_problem(n_entities: int) -> str | None:
    """Why a label table of ``n_entities`` entities cannot be used, or ``None``."""
    if n_entities > MAX_LABELLED_ENTITIES:
        return (
            f'labels: a label table of {n_entities} entities is over the limit of '
            f'{MAX_LABELLED_ENTITIES} (a mono16 label is 1 + the entity index)'
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
    """(n_beams, n_bins) uint16 label of each cell (module docstring), vectorised over the rays.

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
    problem = label_problem(n_entities)
    if problem:
        raise ConfigurationError(problem)
    cells = n_beams * n_bins
    e = np.asarray(entity).reshape(-1)
    weights = np.asarray(intensity).reshape(-1)
    if not (e.shape == weights.shape == flat.shape):
        msg = f'entity {e.shape}, intensity {weights.shape} and cells {flat.shape} must match'
        raise ValueError(msg)
    labels = np.zeros(cells, dtype=np.uint16)
    if e.size and (int(e.min()) < -1 or int(e.max()) >= n_entities):
        msg = f'entity indices must be in [-1, {n_entities}), got {int(e.min())}..{int(e.max())}'
        raise ValueError(msg)
    rays = np.flatnonzero((e >= 0) & (flat < cells))  # the rays that can label a cell
    if rays.size == 0:
        return labels.reshape(n_beams, n_bins)
    # Sorted (cell, entity) keys: a cell's entities are together, the lowest index first.
    keys, inverse = np.unique(flat[rays] * n_entities + e[rays], return_inverse=True)
    # With weights, bincount sums them in float64; numpy's stubs say intp whatever the weights.
    sums = cast('NDArray[np.float64]', np.bincount(inverse, weights[rays], keys.size))
    cell = keys // n_entities
    new_cell = np.empty(keys.size, dtype=np.bool_)
    new_cell[0] = True
    np.not_equal(cell[1:], cell[:-1], out=new_cell[1:])
    group = np.cumsum(new_cell) - 1
    largest = np.maximum.reduceat(sums, np.flatnonzero(new_cell))  # NaN in a cell stays NaN
    candidates = np.flatnonzero(sums == largest[group])  # NaN equals nothing
    _, first = np.unique(group[candidates], return_index=True)  # a tie: the lowest index
    best = candidates[first]
    best = best[sums[best] > 0.0]  # a silent cell is none
    labels[cell[best]] = keys[best] % n_entities + 1
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
        problem = label_problem(len(names))
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
