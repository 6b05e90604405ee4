"""The display chain as a stage of the devices: chosen by ``display``, bounded, refused in a line.

A fan and a side-scan built as a node builds them (``device_kinds``) with ``display`` naming a
preset run its chain after the echo: the codes are the preset's type (uint8 for the Oculus
chain, uint16 for the XTF side-scan's), over the preset's sample spacing across the device's
window, the TVG restoring the device's own absorption; ``display_gain_db`` is a gain in dB
(checked against codes decoded by the test's own power law, with a wrong law, a gain in
amplitude, as the negative control). Bad values are refused in one line naming the setting;
a kind without a chain refuses ``display``. The Oculus multibeam preset supplies its chain.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from device_kinds import robot_of, setup_of
from flat_seabed import flat_seabed

from nps_sonar_py.devices import Family, Rig, Setup, reference_world_file, robot_root_pose
from nps_sonar_py.devices.display import NO_DISPLAY, DisplaySettings
from nps_sonar_py.devices.kinds import KINDS, family_kinds, family_records
from nps_sonar_py.devices.presets import PRESETS, preset_settings
from nps_sonar_py.devices.settings import BeamSettings
from nps_sonar_py.echo.display_presets import DISPLAY_PRESETS
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.records import read_records
from nps_sonar_py.scene import Raycaster, World, load_world

OCULUS, XTF = 'oculus_m750d_hf', 'sidescan_600khz_xtf'
_WORLD: list[World] = []


def rig_of(kind: str, **display: Any) -> Rig:
    """The kind's device in the reference tank, seeded, with ``DisplaySettings(**display)``."""
    if not _WORLD:
        _WORLD.append(load_world(reference_world_file()))
    world = _WORLD[0]
    base = setup_of(kind)
    seeded = dataclasses.replace(base[BeamSettings], seed=7)
    setup = base.replaced(DisplaySettings(**display), seeded)
    pose = robot_root_pose([0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    return Rig(robot_of(kind), setup, Raycaster(world), pose, entities=len(world.entities))


@pytest.mark.parametrize(('kind', 'name', 'dtype'), [('multibeam', OCULUS, np.uint8)])
def test_a_named_chain_runs_after_the_echo(kind: str, name: str, dtype: type) -> None:
    rig = rig_of(kind, display=name)
    reading = rig.read()
    before = reading.echo.intensity.copy()
    image = rig.device.displayed(reading)
    assert image is not None
    assert image.codes.dtype == dtype
    echo, preset = rig.device.echo, DISPLAY_PRESETS[name]
    samples = round(echo.max_range / (preset.max_range / preset.samples))
    assert image.codes.shape == (reading.echo.intensity.shape[0], samples)
    assert image.ranges[-1] == pytest.approx(echo.max_range * (1 - 0.5 / samples))
    chain = rig.device.display.chain(echo)
    assert chain.alpha == echo.effective_absorption  # the TVG undoes the echo's absorption
    assert np.array_equal(reading.echo.intensity, before)  # the linear echo stays as it was
    assert rig.device.displayed(reading) is image  # one reading's codes are made once
    # Negative control: no chain, no image.
    plain = rig_of(kind)
    assert plain.device.display is None
    assert plain.device.displayed(plain.read()) is None


def test_the_side_scan_stores_uint16(tmp_path: Path) -> None:
    setup = setup_of('sidescan').replaced(DisplaySettings(display=XTF, display_samples=300))
    towed = robot_root_pose([0.0, 0.0, 8.0, 0.0, 0.0, 0.0])
    rig = Rig(robot_of('sidescan'), setup, flat_seabed(tmp_path, 0.3), towed, entities=1)
    image = rig.device.displayed(rig.read())
    assert image is not None
    assert image.codes.dtype == np.uint16
    assert image.codes.shape == (2, 300)
    assert np.isfinite(image.linear).all()
    assert image.codes.max() > 0


def decoded(codes: np.ndarray, gamma: float) -> np.ndarray:
    """Gained intensity of codes of full scale 255 and reference 1, by the test's own law."""
    return (codes.astype(np.float64) / 255.0) ** (1.0 / gamma)


def test_the_gain_is_in_decibels() -> None:
    gamma = DISPLAY_PRESETS[OCULUS].gamma
    low = rig_of('multibeam', display=OCULUS, display_gain_db=20.0)
    high = rig_of('multibeam', display=OCULUS, display_gain_db=26.0)
    codes = [r.device.displayed(r.read()).codes for r in (low, high)]
    # Codes clear of 0 and of saturation in both: their intensities 10**0.6 apart.
    usable = (codes[0] > 10) & (codes[1] < 250)
    assert usable.sum() > 10
    ratio = decoded(codes[1], gamma)[usable] / decoded(codes[0], gamma)[usable]
    assert np.median(ratio) == pytest.approx(10**0.6, rel=0.05)
    # Negative control: 6 dB read as an amplitude gain (a factor 10**0.3) is rejected.
    assert np.median(ratio) != pytest.approx(10**0.3, rel=0.05)


@pytest.mark.parametrize(
    ('values', 'named'),
    [
        ({'display': 'oculus'}, 'display'),
        ({'display_samples': -1}, 'display_samples'),
        ({'display_samples': 2_000_000}, 'display_samples'),
        ({'display_gain_db': math.nan}, 'display_gain_db'),
        ({'display_gain_db': 1e4}, 'display_gain_db'),
    ],
)
def test_bad_values_are_refused_in_one_line(values: dict[str, Any], named: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        DisplaySettings(**values)
    line = str(caught.value)
    assert line.startswith(named)
    assert '\n' not in line


def test_a_kind_without_a_chain_refuses_display() -> None:
    family = family_kinds(Family.SCANNING)
    records = family_records(Family.SCANNING)
    for name in ('sweep', 'echosounder'):
        setup = setup_of(name).replaced(DisplaySettings(display=OCULUS))
        with pytest.raises(ConfigurationError, match=r'^mode \w+ does not use display'):
            KINDS[name].check(setup, records, family)
        # Negative control: left at none, it is not refused.
        KINDS[name].check(setup.replaced(DisplaySettings()), records, family)


def test_the_oculus_preset_supplies_its_chain() -> None:
    assert preset_settings('oculus_m1200d_hf')['display'] == OCULUS
    records = family_records(Family.SCANNING)
    chosen = read_records(records, {'mode': 'multibeam', 'sonar_preset': 'oculus_m1200d_hf'})
    assert next(r for r in chosen if isinstance(r, DisplaySettings)).display == OCULUS
    given = {'mode': 'multibeam', 'sonar_preset': 'oculus_m1200d_hf', 'display': NO_DISPLAY}
    chosen = read_records(records, given)  # a value given wins over the preset
    assert next(r for r in chosen if isinstance(r, DisplaySettings)).display == NO_DISPLAY
    for preset in PRESETS.values():
        assert preset.display is None or preset.display in DISPLAY_PRESETS
    # Negative control: a preset without a chain supplies none (the default, none).
    assert 'display' not in preset_settings('blueview_p900_130')
    assert DisplaySettings().display == NO_DISPLAY


def test_the_display_setup_is_part_of_the_device() -> None:
    """Equal setups build equal devices: the chain is in the setup a node compares."""
    base = setup_of('multibeam')
    other: Setup = base.replaced(DisplaySettings(display=OCULUS))
    assert other != base
    assert dataclasses.replace(other[DisplaySettings], display=NO_DISPLAY) == base[DisplaySettings]
