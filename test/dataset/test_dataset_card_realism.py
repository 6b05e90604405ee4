"""The dataset card states the realism benchmark's figures of the record of its sensor's kind.

The figures are read here from the package's data file (``dataset/realism_card.py``), not
copied into the test: a side-scan set's card carries the side-scan record's measures, a fan
set's the Oculus record's, and neither the other's.
"""

from __future__ import annotations

from typing import Any

import pytest
from dataset_runs import FLS_SPEC, SIDESCAN_SPEC

from nps_sonar_py.dataset import draw_row, parse_spec
from nps_sonar_py.dataset.assemble import dataset_files
from nps_sonar_py.dataset.realism_card import read_figures, realism_lines


def _card(spec_text: str) -> str:
    """The card of a set of three made samples of ``spec_text``."""
    spec = parse_spec(spec_text)
    rows = [draw_row(spec, i) for i in range(3)]
    records = [
        {'id': row['id'], 'status': 'ok', 'annotations': [], 'width': 8, 'height': 8}
        for row in rows
    ]
    return dataset_files(spec, rows, records)['README.md'].decode()


def _table(card: str) -> dict[str, list[str]]:
    """The card's table rows by their first cell."""
    rows = {}
    for line in card.splitlines():
        if line.startswith('| ') and line.endswith(' |'):
            cells = [cell.strip() for cell in line[2:-2].split(' | ')]
            rows[cells[0]] = cells
    return rows


@pytest.mark.parametrize(
    ('spec_text', 'record', 'other'),
    [(FLS_SPEC, 'oculus', 'sidescan'), (SIDESCAN_SPEC, 'sidescan', 'oculus')],
)
def test_the_card_states_the_figures_of_the_record_of_its_sensor(
    spec_text: str, record: str, other: str
) -> None:
    figures: dict[str, Any] = read_figures()
    card = _card(spec_text)
    table = _table(card)
    measures = figures['records'][record]['measures']
    for name, row in measures.items():
        cells = table[name]
        assert cells[1] == row['real'], (name, cells)
        assert cells[3] == row['sim'], (name, cells)
        spread = 'none' if row['spread'] is None else f'{row["spread"]:.3f}'
        assert cells[2] == spread
        if row['ratio'] is not None:
            assert float(cells[4]) == pytest.approx(row['ratio'], abs=0.005)
    within = sum(r['ratio'] is not None and r['ratio'] <= 1.0 for r in measures.values())
    assert f'{within} of {len(measures)} measures within' in card
    assert figures['date'] in card
    assert figures['summary'] in card
    assert figures['records'][record]['source'] in card
    assert 'docs/realism.md' in card
    assert card.index('## Realism') < card.index('## Spec')
    # Negative control: the other record's figures differ and are not in this card.
    others = figures['records'][other]['measures']
    differing = [n for n in measures if n in others and others[n]['sim'] != measures[n]['sim']]
    assert differing
    assert all(table[n][3] != others[n]['sim'] for n in differing)
    assert figures['records'][other]['source'] not in card


def test_a_sensor_with_no_real_record_says_so() -> None:
    figures = read_figures()
    lines = realism_lines('profiling', figures)
    assert lines[-1] == 'No real record was compared with sensor preset `profiling`.'
    assert not any(line.startswith('| ') for line in lines)
    # Control: a preset with a record gets its table.
    assert any(line.startswith('| ') for line in realism_lines('fls', figures))
