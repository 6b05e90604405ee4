"""The pulse's kernel table within its memory budget, or refused in one line (issue 35 item 5).

The table holds ``(PHASES + 1) x 2 half`` complex64 taps, ``half = round(support /
interval)``: a chirp's support is ``CHIRP_SUPPORT / B`` (2 / B unwindowed), a CW pulse's its
length. With one sample per bin of ``dr`` the interval is ``2 dr / c``: a chirp of 2 Hz on
3.75 cm bins spans 40,000 samples, 19.8 MiB of table (and building it whole held gigabytes).
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from nps_sonar_py.echo import EchoConfig
from nps_sonar_py.echo.coherent import CoherentConfig, CoherentModel
from nps_sonar_py.echo.pulse import (
    MAX_PULSE_TABLE_BYTES,
    PHASES,
    Pulse,
    PulseKind,
    compressed_pulse,
    kernel_table,
    pulse_table_problem,
)
from nps_sonar_py.errors import ConfigurationError

C, DR = 1500.0, 0.0375
INTERVAL = 2.0 * DR / C  # one sample per bin: the grid of a pulse narrower than a bin's band
#: Taps the budget holds (complex64, PHASES + 1 rows).
BUDGET_TAPS = MAX_PULSE_TABLE_BYTES // ((PHASES + 1) * 8)


def table_bytes(pulse: Pulse, interval: float) -> int:
    """The table's bytes by the documented layout."""
    half = max(1, round(pulse.support / interval))
    return (PHASES + 1) * 2 * half * 8


@pytest.mark.parametrize(
    ('pulse', 'setting'),
    [
        (Pulse(bandwidth=2.0), 'bandwidth'),
        (Pulse(kind=PulseKind.CW, length=1.0), 'pulse_duration'),
    ],
    ids=['chirp-2Hz', 'cw-1s'],
)
def test_a_pulse_over_the_budget_is_refused_in_one_line(pulse: Pulse, setting: str) -> None:
    needed = table_bytes(pulse, INTERVAL)
    assert needed == (PHASES + 1) * 40_000 * 8  # 40,000 samples of 50 us
    problem = pulse_table_problem(pulse, INTERVAL)
    assert problem is not None
    assert problem.startswith(f'{setting}: ')
    assert f'{needed / 2**20:.4g} MiB' in problem
    assert f'budget of {MAX_PULSE_TABLE_BYTES >> 20} MiB' in problem
    assert '\n' not in problem
    with pytest.raises(ConfigurationError, match=f'^{setting}: '):
        kernel_table(pulse, INTERVAL)
    # the coherent model refuses it the same way, before building anything
    echo = EchoConfig(min_range=0.0, max_range=75.0, n_bins=2000, sound_speed=C, frequency=400e3)
    config = CoherentConfig.of(pulse)
    with pytest.raises(ConfigurationError, match=f'^{setting}: '):
        CoherentModel(config, echo)


def test_the_budget_is_the_boundary() -> None:
    # a CW pulse of exactly BUDGET_TAPS / 2 samples a side is built; one sample more is not
    fits = Pulse(kind=PulseKind.CW, length=(BUDGET_TAPS // 2) * INTERVAL)
    assert table_bytes(fits, INTERVAL) <= MAX_PULSE_TABLE_BYTES
    assert pulse_table_problem(fits, INTERVAL) is None
    over = Pulse(kind=PulseKind.CW, length=(BUDGET_TAPS // 2 + 1) * INTERVAL)
    assert table_bytes(over, INTERVAL) > MAX_PULSE_TABLE_BYTES  # negative control
    assert pulse_table_problem(over, INTERVAL) is not None


def test_a_table_at_the_budget_is_built_within_its_memory() -> None:
    pulse = Pulse(kind=PulseKind.CW, length=(BUDGET_TAPS // 2) * INTERVAL)
    tracemalloc.start()
    try:
        table = kernel_table(pulse, INTERVAL)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert table.taps.nbytes <= MAX_PULSE_TABLE_BYTES
    # built a block of delays at a time: the table and about 32 MiB of terms
    assert peak < MAX_PULSE_TABLE_BYTES + (40 << 20)
    # built whole, its delays' terms alone (float64, 512 envelope samples) would be more
    assert table.taps.size * 512 * 8 > MAX_PULSE_TABLE_BYTES + (40 << 20)


@pytest.mark.parametrize(
    'pulse',
    [Pulse(bandwidth=600.0), Pulse(kind=PulseKind.CW, length=3e-3)],
    ids=['chirp', 'cw'],
)
def test_the_blocks_make_the_table_of_the_whole(pulse: Pulse) -> None:
    # a table of several blocks (2048 delays each) against the compressed pulse on the whole
    # grid at once, normalised as documented (mean energy over the phases 1)
    table = kernel_table(pulse, INTERVAL)
    half = table.half
    assert (PHASES + 1) * 2 * half > 3 * 2048
    offset = np.arange(2 * half) - half + 1
    x = offset[None, :] - (np.arange(PHASES + 1) / PHASES)[:, None]
    whole = compressed_pulse(pulse, x * INTERVAL)
    whole /= np.sqrt(np.mean(np.sum(np.abs(whole[:-1]) ** 2, axis=1)))
    np.testing.assert_allclose(table.taps, whole, rtol=0.0, atol=2e-6 * np.abs(whole).max())
