"""Every setting that sizes an allocation keeps its memory within the budget, or is refused.

For each such setting of each kind (rays, beams, bins, the waterfall, the largest image, the
coherent model's cells), a value whose memory is over ``MAX_DEVICE_BYTES`` is refused before
anything is built, in one line naming the setting and the memory it would need; that memory is
worked out here from the counts and the documented bytes an element costs. The same kind with
a value within the budget passes (the negative control), and a rule that ignored the setting
would let the large value through (checked against the sum it would have found).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from device_kinds import build, setup_of

from nps_sonar_py.devices import KINDS
from nps_sonar_py.devices.kinds.echosounder import EchosounderSettings
from nps_sonar_py.devices.kinds.multibeam import FanSettings
from nps_sonar_py.devices.kinds.sweep import SweepSettings
from nps_sonar_py.devices.memory import (
    BEAM_PAIR_BYTES,
    CELL_BYTES,
    COHERENT_CELL_BYTES,
    LEAK_BYTES,
    PIXEL_BYTES,
    RAY_BYTES,
    memory_text,
)
from nps_sonar_py.devices.settings import (
    BeamSettings,
    CoherentSettings,
    EchoModelChoice,
    ImageSettings,
)
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.limits import MAX_DEVICE_BYTES

#: (kind, records' changes, the setting text the line names, the bytes it needs).
OVER: list[tuple[str, list[tuple[type[Any], dict[str, Any]]], str, float]] = [
    (
        'multibeam',
        [(FanSettings, {'beams': 20_000}), (BeamSettings, {'range_bins': 5_000})],
        'beams 20000 x range_bins 5000',
        20_000 * 5_000 * CELL_BYTES,
    ),
    (
        'multibeam',
        [(FanSettings, {'beams': 100, 'rays_horizontal': 100, 'rays_vertical': 500})],
        'beams 100 x rays_horizontal 100 x rays_vertical 500',
        100 * 100 * 500 * RAY_BYTES,
    ),
    (
        'multibeam',
        [
            (FanSettings, {'beams': 512}),
            (BeamSettings, {'range_bins': 40_000}),
            (CoherentSettings, {'echo_model': EchoModelChoice.COHERENT}),
        ],
        'beams 512 x range_bins 40000',
        512 * 40_000 * COHERENT_CELL_BYTES,
    ),
    (
        'multibeam',
        [
            (FanSettings, {'beams': 6000}),
            (CoherentSettings, {'echo_model': EchoModelChoice.COHERENT, 'array_elements': 64}),
        ],
        'beams 6000 with array_elements 64',
        6000 * 6000 * BEAM_PAIR_BYTES,
    ),
    (
        'multibeam',
        [
            (FanSettings, {'beams': 512}),
            (BeamSettings, {'range_bins': 2000}),
            (
                CoherentSettings,
                {
                    'echo_model': EchoModelChoice.COHERENT,
                    'array_elements': 64,
                    'leak_cells': 10**6,
                },
            ),
        ],
        'leak_cells 1000000 x beams 512',
        10**6 * 512 * LEAK_BYTES,
    ),
    (
        'echosounder',
        [(EchosounderSettings, {'swath_beams': 1024}), (BeamSettings, {'range_bins': 90_000})],
        'swath_beams 1024 x range_bins 90000',
        1024 * 90_000 * CELL_BYTES,
    ),
    (
        'sweep',
        [(SweepSettings, {'step': 1e-4}), (BeamSettings, {'range_bins': 20_000})],
        'step 0.0001 rad (6001 steps) x range_bins 20000',
        6001 * 20_000 * CELL_BYTES,
    ),
    (
        'sweep',
        [(ImageSettings, {'image_max_pixels': 2**31 - 1})],
        f'image_max_pixels {2**31 - 1}',
        (2**31 - 1) * PIXEL_BYTES,
    ),
    (
        'sidescan',
        [(ImageSettings, {'image_max_pixels': 200_000_000})],
        'image_max_pixels 200000000',
        200_000_000 * PIXEL_BYTES,
    ),
]


def setup_with(kind: str, changes: list[tuple[type[Any], dict[str, Any]]]) -> Any:
    """The setup of ``kind`` with ``changes`` to its records."""
    setup = setup_of(kind)
    for record, values in changes:
        setup = setup.replaced(dataclasses.replace(setup[record], **values))
    return setup


@pytest.mark.parametrize(('kind', 'changes', 'named', 'needed'), OVER, ids=lambda v: str(v)[:40])
def test_a_setting_over_the_memory_budget_is_refused_in_one_line(
    kind: str, changes: list[tuple[type[Any], dict[str, Any]]], named: str, needed: float
) -> None:
    assert needed > MAX_DEVICE_BYTES  # the case is over the budget by the documented costs
    setup = setup_with(kind, changes)
    with pytest.raises(ConfigurationError) as refused:
        build(kind, setup)
    line = str(refused.value)
    assert '\n' not in line
    assert line.startswith(f'{named}: '), line
    assert f'would need {memory_text(needed)} ' in line, line
    assert f'over the budget of {memory_text(MAX_DEVICE_BYTES)}' in line, line


@pytest.mark.parametrize(('kind', 'changes', 'named', 'needed'), OVER, ids=lambda v: str(v)[:40])
def test_the_same_settings_scaled_within_the_budget_pass(
    kind: str, changes: list[tuple[type[Any], dict[str, Any]]], named: str, needed: float
) -> None:
    # the largest factor brought under the budget: the budget's check passes (nothing built)
    factor = needed / MAX_DEVICE_BYTES * 2.0
    smaller = []
    for record, values in changes:
        counts = {k: v for k, v in values.items() if type(v) is int}
        if not counts:  # the model's choice, kept
            smaller.append((record, values))
            continue
        name = max(counts, key=counts.__getitem__)  # the record's largest count, made smaller
        smaller.append((record, {**values, name: max(1, int(values[name] / factor))}))
    KINDS[kind].budget(setup_with(kind, smaller))


def test_a_rule_blind_to_the_cells_would_let_a_huge_fan_through() -> None:
    """The negative control: without its cells, the fan of 20000 x 5000 would pass."""
    setup = setup_with('multibeam', OVER[0][1])
    sizes = KINDS['multibeam'].sizes(setup)
    without_cells = sum(s.bytes for s in sizes if 'profiles' not in s.what)
    assert without_cells <= MAX_DEVICE_BYTES < sum(s.bytes for s in sizes)


def test_every_kind_of_device_is_within_the_budget_at_its_defaults() -> None:
    for kind in ('sonar', 'array', 'sweep', 'multibeam', 'sidescan', 'echosounder'):
        assert build(kind) is not None
    assert memory_text(3 * 2**30) == '3 GiB'
    assert memory_text(512 * 2**20) == '512 MiB'


def test_a_ranger_request_over_the_budget_is_refused_and_the_fan_keeps_its_config() -> None:
    fan = build('multibeam')
    good = fan.ranger_config()
    span = good.max_range - good.min_range
    # 601 beams (0.001 rad apart over 0.6 rad) of 10^6 bins: 6.01e8 cells of 32 bytes
    over = dataclasses.replace(good, angular_resolution=0.001, range_resolution=span / 1e6)
    reason = fan.reconfigure(over)
    assert reason is not None
    assert '\n' not in reason
    assert reason.startswith(f'range_resolution {span / 1e6:g} m (1000000 bins) x 601 beams: ')
    assert f"a ping's profiles would need {memory_text(601 * 10**6 * CELL_BYTES)}" in reason
    assert fan.ranger_config() == good  # the last good configuration
    # the control: the same bins on the fan's own 7 beams fit (7e6 cells, 214 MiB)
    assert fan.reconfigure(dataclasses.replace(good, range_resolution=span / 1e6)) is None


def test_an_array_is_held_to_the_budget_for_all_its_elements() -> None:
    n = len(build('array').geometry.element_frames)  # the robot's sonars the array selects
    assert n >= 2
    rays = 2_000_000  # BeamSettings' bound: one element alone needs 977 MiB of rays
    needed = n * rays * RAY_BYTES
    assert rays * RAY_BYTES < MAX_DEVICE_BYTES < needed
    with pytest.raises(ConfigurationError) as refused:
        build('array', setup_with('array', [(BeamSettings, {'rays': rays})]))
    line = str(refused.value)
    assert line.startswith(f'rays {rays} x {n} elements: '), line
    assert f"a ping's rays would need {memory_text(needed)} " in line, line
    # the control: the single beam takes the same rays (one element, within the budget)
    KINDS['single_beam'].budget(setup_with('sonar', [(BeamSettings, {'rays': rays})]))
