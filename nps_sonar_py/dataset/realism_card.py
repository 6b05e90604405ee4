"""The realism benchmark's last figures, as the package carries them and the dataset card states.

``benchmarks/realism.py --save-figures`` measures the package's images against the real
records and writes :data:`MEASURED` (``nps_sonar_py/realism/measured.json``): the date, the
benchmark's last line, and per record (``sidescan``, ``oculus``) its source and each
measure's ``real`` and ``sim`` (the benchmark's text), ``spread`` (real against real; ``null``
where the records give none) and ``ratio`` (``null``: infinite). A dataset's card
(``assemble.py``) states the figures of the record of its sensor's kind. The file is data:
read here by its path, so the dataset layer imports nothing of ``realism``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

__all__ = [
    'MEASURED',
    'RECORD_OF_PRESET',
    'figures_json',
    'measure_figures',
    'read_figures',
    'realism_lines',
]

#: The figures the package was last measured with (written by ``benchmarks/realism.py``).
MEASURED = Path(__file__).resolve().parents[1] / 'realism' / 'measured.json'
#: The real record each dataset sensor preset is compared with (others: none).
RECORD_OF_PRESET = {'sidescan': 'sidescan', 'fls': 'oculus'}
#: What each record is, in the card's words.
_RECORD_NAMES = {
    'sidescan': 'the side-scan record (a 600 kHz Iver2 line over a wreck)',
    'oculus': 'the forward-looking record (one Oculus ping)',
}


def figures_json(date: str, summary: str, records: dict[str, dict[str, Any]]) -> bytes:
    """:data:`MEASURED`'s bytes: ``records`` maps a record to its ``source`` and ``measures``."""
    return (
        json.dumps({'date': date, 'summary': summary, 'records': records}, indent=1) + '\n'
    ).encode()


def measure_figures(real: str, spread: float, sim: str, ratio: float) -> dict[str, Any]:
    """One measure's entry: NaN spread and infinite ratio as ``null``, numbers to 4 decimals."""
    return {
        'real': real,
        'spread': None if math.isnan(spread) else round(spread, 4),
        'sim': sim,
        'ratio': round(ratio, 4) if math.isfinite(ratio) else None,
    }


def read_figures(path: Path = MEASURED) -> dict[str, Any]:
    """The figures at ``path`` (:data:`MEASURED`)."""
    figures: dict[str, Any] = json.loads(path.read_text())
    return figures


def _ratio(value: float | None) -> str:
    return 'inf' if value is None else f'{value:.2f}'


def realism_lines(preset: str, figures: dict[str, Any]) -> list[str]:
    """The card's section on realism for a set of sensor ``preset`` (:data:`RECORD_OF_PRESET`)."""
    lines = ['## Realism', '']
    record = RECORD_OF_PRESET.get(preset)
    if record is None or record not in figures['records']:
        return [*lines, f'No real record was compared with sensor preset `{preset}`.']
    measured = figures['records'][record]
    rows = measured['measures']
    within = sum(r['ratio'] is not None and r['ratio'] <= 1.0 for r in rows.values())
    lines += [
        f'Measured against {_RECORD_NAMES[record]} by `benchmarks/realism.py` on '
        f'{figures["date"]}: {within} of {len(rows)} measures within the real spread '
        f'(ratio at most 1). Record: {measured["source"]}. The benchmark over both records: '
        f'`{figures["summary"]}`.',
        '',
        "These are figures of the package's physics through the benchmark's own display chain "
        "and seabed scene at the record's geometry, not of this set's settings or scenes; how "
        'they are measured: nps_sonar `docs/realism.md`.',
        '',
        '| measure | real | spread (real-real) | sim | ratio (sim-real / real-real) |',
        '| --- | --- | --- | --- | --- |',
    ]
    for name, row in rows.items():
        spread = 'none' if row['spread'] is None else f'{row["spread"]:.3f}'
        lines.append(
            f'| {name} | {row["real"]} | {spread} | {row["sim"]} | {_ratio(row["ratio"])} |'
        )
    return lines
