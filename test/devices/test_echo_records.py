"""Every kind's reading carries its echo at one place, and what is published never changes it.

Each pinging kind is built as a node builds it (``device_kinds``) with each engine and read
once in the reference tank (a side-scan over a flat seabed): its reading has ``echo``, an
``EchoRecord``, with a baseband only from the coherent engine. Then every output switch of
the kind's node (``publish_*``, the RangerData intensities) is turned on and off in turn:
the ranges, profiles and totals are bit-identical. So is a display chain after the echo
(``display``, each preset, its codes made as a node makes them to publish them): the device's
stored image is drawn from what was measured, never into it. Negative control: a setting that
is physics (the range bins) does change them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from device_kinds import robot_of, setup_of
from flat_seabed import flat_seabed

from nps_sonar_py.devices import Rig, Setup, reference_world_file, robot_root_pose
from nps_sonar_py.devices.display import DisplaySettings
from nps_sonar_py.devices.kinds import family_records
from nps_sonar_py.devices.settings import BeamSettings, CoherentSettings, EchoModelChoice
from nps_sonar_py.echo.display_presets import DISPLAY_PRESETS
from nps_sonar_py.echo.records import EchoRecord
from nps_sonar_py.errors import ConfigurationError, DescriptionError
from nps_sonar_py.records import specs
from nps_sonar_py.scene import Raycaster, World, load_world

#: The kinds that ping (each has an echo engine).
PINGING = ('sonar', 'sweep', 'multibeam', 'sidescan', 'echosounder')
ENGINES = {
    'incoherent': CoherentSettings(),
    'coherent': CoherentSettings(echo_model=EchoModelChoice.COHERENT),
}
POSE = robot_root_pose([0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
#: The side-scan 8 m over a flat seabed (the others in the reference tank).
TOWED = robot_root_pose([0.0, 0.0, 8.0, 0.0, 0.0, 0.0])
_WORLD: list[World] = []


def tank() -> World:
    if not _WORLD:
        _WORLD.append(load_world(reference_world_file()))
    return _WORLD[0]


def reading_of(kind: str, setup: Setup, folder: Path) -> Any:
    """One reading, and its display chain's codes made as a node makes them to publish."""
    if kind == 'sidescan':
        rig = Rig(robot_of(kind), setup, flat_seabed(folder, 0.3), TOWED, entities=1)
    else:
        caster, entities = Raycaster(tank()), len(tank().entities)
        rig = Rig(robot_of(kind), setup, caster, POSE, entities=entities)
    reading = rig.read()
    displayed = getattr(rig.device, 'displayed', None)
    if displayed is not None and displayed(reading) is not None:
        shown.append(kind)
    return reading


#: The kinds whose display chain made codes (appended by ``reading_of``).
shown: list[str] = []


def measured(reading: Any) -> dict[str, np.ndarray]:
    """What a reading measured: its echo's image, ranges and totals, its own profiles."""
    echo = reading.echo
    found = {
        'image': echo.intensity,
        'totals': echo.totals,
        'law ranges': echo.law.ranges,
        'law totals': echo.law.totals,
        'hits': echo.law.hits,
    }
    for name in ('ranges', 'profiles', 'intensities'):
        if hasattr(reading, name):
            found[name] = np.asarray(getattr(reading, name))
    ping = getattr(reading, 'ping', None)
    if ping is not None:
        found['ping'] = np.asarray(getattr(ping, 'profiles', getattr(ping, 'intensity', None)))
    return found


def switches(setup: Setup) -> list[tuple[type[Any], dict[str, Any]]]:
    """Every output switch of the node's records, flipped: (record, its new values).

    Each ``publish_*`` and ``intensities`` turned from its default, and each display chain
    (``display``: every preset) with its image published.
    """
    found: list[tuple[type[Any], dict[str, Any]]] = []
    for record in family_records(setup.family):
        for spec in specs(record):
            if spec.name.startswith('publish_') or spec.name == 'intensities':
                found.append((record, {spec.name: not spec.default}))
    if DisplaySettings in family_records(setup.family):
        found += [(DisplaySettings, {'display': name}) for name in DISPLAY_PRESETS]
    return found


def with_engine(kind: str, engine: str) -> Setup:
    return setup_of(kind).replaced(ENGINES[engine])


@pytest.mark.parametrize('engine', sorted(ENGINES))
@pytest.mark.parametrize('kind', PINGING)
def test_every_reading_carries_its_echo_at_one_place(
    kind: str, engine: str, tmp_path: Path
) -> None:
    reading = reading_of(kind, with_engine(kind, engine), tmp_path)
    assert isinstance(reading.echo, EchoRecord)
    assert (reading.echo.coherent is not None) == (engine == 'coherent')
    assert reading.echo.intensity.shape[0] == len(reading.echo.law.ranges)


@pytest.mark.parametrize('engine', sorted(ENGINES))
@pytest.mark.parametrize('kind', PINGING)
def test_no_output_switch_changes_what_is_measured(kind: str, engine: str, tmp_path: Path) -> None:
    setup = with_engine(kind, engine)
    base = measured(reading_of(kind, setup, tmp_path))
    assert base['hits'].sum() > 0  # it hears the tank
    flipped = 0
    shown.clear()
    for record, values in switches(setup):
        name = next(iter(values))
        if name == 'publish_labels':  # labels pair with an image: both on
            values['publish_image'] = True
        changed = setup.replaced(dataclasses.replace(setup[record], **values))
        try:
            other = measured(reading_of(kind, changed, tmp_path))
        except (ConfigurationError, DescriptionError):
            continue  # a switch this kind does not use is refused, not built
        flipped += 1
        for what, found in base.items():
            assert np.array_equal(found, other[what], equal_nan=True), (name, what)
    assert flipped >= 2
    assert (kind in shown) == (kind in ('multibeam', 'sidescan'))  # their chains ran
    # Negative control: the range bins are physics, and change what is measured.
    bins = setup[BeamSettings].range_bins or 100
    finer = setup.replaced(dataclasses.replace(setup[BeamSettings], range_bins=2 * bins))
    assert not np.array_equal(
        base['image'].shape, measured(reading_of(kind, finer, tmp_path))['image'].shape
    )
