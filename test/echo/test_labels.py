"""The dominance rule of labels on cells built by hand, the label table and its limits."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig
from nps_sonar_py.echo.labels import (
    MAX_LABELLED_ENTITIES,
    LabelTable,
    dominant_labels,
    label_problem,
)
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.sensing.multibeam import FanConfig, MultibeamSonar
from nps_sonar_py.sensing.sweep import ScanningSonar, SweepConfig

N_BEAMS, N_BINS, N_ENTITIES = 2, 3, 3
DUMP = N_BEAMS * N_BINS


def cell(beam: int, bin_: int) -> int:
    return beam * N_BINS + bin_


def test_the_entity_of_the_largest_summed_echo_labels_a_cell() -> None:
    # (cell, intensity, entity) of each ray, and the label each cell must get, by hand.
    rays = [
        (cell(0, 1), 1.0, 0),  # entity 0 sums 2.0 in cell (0, 1) ...
        (cell(0, 1), 1.0, 0),
        (cell(0, 1), 1.5, 2),  # ... more than entity 2's single, louder ray: label 1
        (cell(0, 2), 0.5, 1),  # a tie of entities 1 and 2: the lower index, label 2
        (cell(0, 2), 0.5, 2),
        (cell(1, 0), 0.0, 2),  # only a silent return: none
        (DUMP, 7.0, 1),  # a ray out of range: labels nothing
        (cell(1, 2), 3.0, -1),  # a ray without an entity: labels nothing
        (cell(0, 0), 0.25, 2),  # one entity alone: label 3
        (DUMP, np.nan, -1),  # a miss, NaN intensity
    ]
    flat = np.array([r[0] for r in rays], dtype=np.intp)
    intensity = np.array([r[1] for r in rays])
    entity = np.array([r[2] for r in rays])
    labels = dominant_labels(flat, intensity, entity, N_BEAMS, N_BINS, N_ENTITIES)
    assert labels.dtype == np.uint16
    np.testing.assert_array_equal(labels, [[3, 1, 2], [0, 0, 0]])


def test_labels_with_no_rays_or_no_entities_are_none() -> None:
    empty = np.zeros(0, dtype=np.intp)
    np.testing.assert_array_equal(dominant_labels(empty, [], empty, 2, 3, 4), np.zeros((2, 3)))
    one = np.array([0], dtype=np.intp)
    np.testing.assert_array_equal(dominant_labels(one, [1.0], [-1], 1, 2, 0), [[0, 0]])


@pytest.mark.parametrize('bad', [-2, N_ENTITIES])
def test_an_entity_index_outside_the_table_is_refused(bad: int) -> None:
    flat = np.array([0, 1], dtype=np.intp)
    with pytest.raises(ValueError, match='entity indices must be in'):
        dominant_labels(flat, [1.0, 1.0], [0, bad], N_BEAMS, N_BINS, N_ENTITIES)


def test_the_label_table_maps_label_to_entity_and_reads_as_json() -> None:
    table = LabelTable(('seabed', 'wreck', 'diver'))
    assert [table.name(p) for p in range(4)] == [None, 'seabed', 'wreck', 'diver']
    assert json.loads(table.to_json()) == {
        'none': 0,
        'labels': {'1': 'seabed', '2': 'wreck', '3': 'diver'},
    }
    with pytest.raises(ValueError, match='label 4 is not in'):
        table.name(4)


def one_line(error: pytest.ExceptionInfo[ConfigurationError]) -> str:
    message = str(error.value)
    assert '\n' not in message
    return message


def test_a_label_table_over_the_entity_limit_gets_one_line() -> None:
    assert MAX_LABELLED_ENTITIES == 65535  # a mono16 pixel: 1 + index <= 2**16 - 1
    LabelTable(tuple(f'e{i}' for i in range(MAX_LABELLED_ENTITIES)))  # the largest is fine
    with pytest.raises(ConfigurationError) as error:
        LabelTable(tuple(f'e{i}' for i in range(MAX_LABELLED_ENTITIES + 1)))
    assert 'label table of 65536 entities is over the limit of 65535' in one_line(error)


def echo() -> EchoConfig:
    return EchoConfig(
        beam_width=math.radians(1.0),
        pattern=BeamPattern.UNIFORM,
        n_way=1,
        absorption=Absorption.NONE,
        n_bins=200,
    )


def test_sonars_refuse_a_label_table_over_the_entity_limit() -> None:
    fan = FanConfig(beams=64, rays_horizontal=1, rays_vertical=2)
    assert label_problem(MAX_LABELLED_ENTITIES) is None
    MultibeamSonar(echo(), fan, np.eye(4), label_entities=MAX_LABELLED_ENTITIES)
    with pytest.raises(ConfigurationError) as error:
        MultibeamSonar(echo(), fan, np.eye(4), label_entities=MAX_LABELLED_ENTITIES + 1)
    assert 'over the limit of 65535' in one_line(error)
    with pytest.raises(ConfigurationError) as error:
        ScanningSonar(echo(), SweepConfig(), np.eye(4), label_entities=70_000)
    assert 'over the limit of 65535' in one_line(error)


def test_labels_of_many_cells_and_entities_match_a_cell_by_cell_sum() -> None:
    # A large table (200 beams x 500 bins x 5000 entities, 5e8 cells) with few rays: each
    # cell's label is checked against its own sums, written out with Python dicts.
    rng = np.random.default_rng(7)
    beams, bins, entities, n = 200, 500, 5000, 3000
    cells = rng.integers(0, 40, n) * 2503 % (beams * bins)  # 40 cells, many rays each
    flat = np.where(rng.random(n) < 0.1, beams * bins, cells).astype(np.intp)  # some dumped
    entity = rng.choice([-1, 3, 17, 4999], n)
    intensity = rng.choice([0.0, 0.5, 1.0, 2.0], n)
    labels = dominant_labels(flat, intensity, entity, beams, bins, entities)
    sums: dict[int, dict[int, float]] = {}
    for c, e, i in zip(flat.tolist(), entity.tolist(), intensity.tolist(), strict=True):
        if c < beams * bins and e >= 0:
            sums.setdefault(c, {}).setdefault(e, 0.0)
            sums[c][e] += i
    expected = np.zeros(beams * bins, dtype=np.uint16)
    for c, by_entity in sums.items():
        top = max(by_entity.values())
        if top > 0.0:
            expected[c] = 1 + min(e for e, s in by_entity.items() if s == top)
    np.testing.assert_array_equal(labels.reshape(-1), expected)
    assert len(set(expected.tolist())) == 4  # none and the three entities all appear
