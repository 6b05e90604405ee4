"""``fan_pattern`` (mode multibeam): the incoherent fan heard through its receive array.

Set as a node sets its parameters (``read_records`` of name -> value, the strings a user
writes), built by the Rig over the reference tank (issue 33: "the incoherent model offers that
pattern as a setting, and its default stays as it is"). The pattern's physics (the coherent
fan's mean over seeds, the range rows against an integral) is checked through the sonar in
``test/sensing/test_formed_fan.py`` and ``test_fan_footprints.py``; here, that the setting
reaches it with the coherent fan's own array, and that what contradicts it is refused in one
line naming it.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pytest
from device_kinds import robot_of, setup_of

from nps_sonar_py.devices import (
    Family,
    Rig,
    Setup,
    build_device,
    load_robot_from,
    reference_world_file,
    robot_root_pose,
)
from nps_sonar_py.devices.kinds import family_records
from nps_sonar_py.devices.kinds.multibeam import FanSettings
from nps_sonar_py.devices.settings import RobotSettings
from nps_sonar_py.echo.array_response import Shading, SteeredArray
from nps_sonar_py.echo.engine import ArrayPatternEngine, IncoherentEngine, formed_engine
from nps_sonar_py.errors import ConfigurationError, DescriptionError
from nps_sonar_py.records import read_records
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.multibeam import MultibeamSonar

#: A fan of 3 degree beams over +-0.5 rad, as a user's parameters.
FAN = {
    'mode': 'multibeam',
    'min_angle': -0.5,
    'max_angle': 0.5,
    'beams': 32,
    'rays_vertical': 8,
    'beam_width': math.radians(3.0),
}


@pytest.fixture(scope='module')
def tank() -> Raycaster:
    return Raycaster(load_world(reference_world_file()))


def fan_rig(tank: Raycaster, **values: Any) -> Rig:
    """The reference robot's sonar as the fan ``FAN`` with ``values``, read as a node reads."""
    records = read_records(family_records(Family.SCANNING), {**FAN, **values})
    setup = Setup(Family.SCANNING, *records)
    return Rig(load_robot_from(RobotSettings()), setup, tank, robot_root_pose([0.0] * 6))


def test_fan_pattern_array_hears_the_fan_through_the_coherent_fans_array(
    tank: Raycaster,
) -> None:
    """``fan_pattern: array``: the array-pattern engine with the array the coherent fan of the
    same settings forms its beams by (34 elements for 3 degrees, or the 64 given, shaded as
    given); its image is the core's with that array. Control: the default ``rays`` keeps the
    rays' own pattern and another image."""
    for given, expected in (
        ({}, SteeredArray(34, 0.5)),
        (
            {'array_elements': 64, 'array_window': 'hann'},
            SteeredArray(64, 0.5, Shading.HANN),
        ),
    ):
        rig = fan_rig(tank, fan_pattern='array', **given)
        sonar = rig.device.sonar  # type: ignore[attr-defined]
        assert isinstance(sonar, MultibeamSonar)
        assert isinstance(sonar.engine, ArrayPatternEngine)
        coherent = fan_rig(tank, echo_model='coherent', **given).device.sonar  # type: ignore[attr-defined]
        formed = formed_engine(coherent.engine)
        assert formed is not None
        assert sonar.array_pattern == formed.array == expected
    core = MultibeamSonar(sonar.echo, sonar.fan, sonar.world_from_body, array_pattern=expected)
    image = sonar.ping(tank).profiles
    assert image.any()
    np.testing.assert_allclose(image, core.ping(tank).profiles, rtol=1e-12, atol=0.0)
    plain = fan_rig(tank).device.sonar  # type: ignore[attr-defined]
    assert isinstance(plain.engine, IncoherentEngine)
    assert plain.array_pattern is None
    assert not np.allclose(plain.ping(tank).profiles, image, rtol=0.05)  # control


#: Settings that contradict ``fan_pattern: array`` and the words their refusal names.
REFUSED = [
    ({'echo_model': 'coherent'}, "fan_pattern array is the incoherent model's"),
    ({'beams': 1, 'min_angle': 0.0, 'max_angle': 0.0}, 'one beam has no array across beams'),
    ({'array_elements': 4}, 'array_elements: 4 elements'),  # 25 degree beams, too short
    ({'array_spacing': 1.5}, 'array_spacing: 1.5 wavelengths puts a grating lobe'),
    ({'array_window': 'tukey'}, 'array_window: tukey is no shading'),
]


@pytest.mark.parametrize(('values', 'words'), REFUSED)
def test_what_contradicts_fan_pattern_array_is_refused_in_one_line(
    tank: Raycaster, values: dict[str, Any], words: str
) -> None:
    """Each refused in one line naming the setting; the same values with ``fan_pattern:
    rays`` (the control) are taken (a coherent fan refuses its own bad array, as before)."""
    with pytest.raises((ConfigurationError, DescriptionError)) as refused:
        fan_rig(tank, fan_pattern='array', **values)
    line = str(refused.value)
    assert '\n' not in line
    assert words in line, line
    if 'echo_model' in values or 'beams' in values or 'array_elements' in values:
        fan_rig(tank, **values)  # the rays' pattern takes them


@pytest.mark.parametrize('mode', ['sweep', 'sidescan', 'echosounder'])
def test_another_mode_refuses_fan_pattern(mode: str) -> None:
    """``fan_pattern`` is mode multibeam's own: the others name it and its owner."""
    (fan,) = read_records((FanSettings,), {'fan_pattern': 'array'})
    with pytest.raises(DescriptionError) as refused:
        build_device(robot_of(mode), setup_of(mode).replaced(fan))
    line = str(refused.value)
    assert f'mode {mode} does not use fan_pattern' in line, line
    assert "mode multibeam's settings" in line, line


def test_a_sector_whose_grating_lobe_the_array_would_hear_is_refused_at_run_time(
    tank: Raycaster,
) -> None:
    """``set_config`` rebuilds the fan through the same check: an array at 0.9 wavelengths
    takes +-0.5 rad (its grating lobe 1.11 in sine away, the fan 0.96 wide) and refuses
    +-0.69 (1.27) in one line, keeping its fan; the rays' pattern takes it (the control)."""
    for pattern, refused in (('array', True), ('rays', False)):
        rig = fan_rig(tank, fan_pattern=pattern, array_spacing=0.9)
        config = rig.device.ranger_config()
        more = 6 * config.angular_resolution  # to +-0.69 rad, whole steps
        wider = dataclasses.replace(
            config, min_angle=config.min_angle - more, max_angle=config.max_angle + more
        )
        problem = rig.device.reconfigure(wider)  # type: ignore[attr-defined]
        assert (problem is not None) is refused, problem
        if refused:
            assert problem is not None
            assert 'array_spacing: 0.9 wavelengths puts a grating lobe' in problem
            assert rig.device.ranger_config() == config


def test_vertical_cast_reaches_the_fan_and_a_cast_inside_the_beam_is_refused(
    tank: Raycaster,
) -> None:
    """``vertical_cast`` (as a user writes it) reaches the core's ``FanConfig``; with a sinc
    vertical pattern the rows past the -3 dB edges add echo the knife edge (the default 0)
    does not have: the beams off the tank's target hear the tank nearer, none later.
    Control: a uniform pattern cast as wide has no skirt and hears it first where the knife
    edge does. A cast narrower than the beam is refused in one line naming it."""
    width = math.radians(10.0)
    knife = fan_rig(tank, vertical_beam_width=width, vertical_pattern='sinc')
    wide = fan_rig(tank, vertical_beam_width=width, vertical_pattern='sinc', vertical_cast=0.6)
    sonar = wide.device.sonar  # type: ignore[attr-defined]
    assert sonar.fan.vertical_cast == 0.6
    assert knife.device.sonar.fan.vertical_cast == 0.0  # type: ignore[attr-defined]
    assert sonar.fan.cast_width == 0.6

    def first_bins(rig: Rig) -> np.ndarray:
        profiles = rig.device.sonar.ping(tank).profiles  # type: ignore[attr-defined]
        assert profiles.any(axis=1).all()
        return np.argmax(profiles > 0.0, axis=1)

    edge, skirt = first_bins(knife), first_bins(wide)
    assert (skirt <= edge).all()
    assert np.count_nonzero(skirt < edge) > edge.size // 2  # all but those on the target
    flat = fan_rig(tank, vertical_beam_width=width, vertical_pattern='uniform', vertical_cast=0.6)
    np.testing.assert_array_equal(first_bins(flat), edge)
    with pytest.raises((ConfigurationError, DescriptionError)) as refused:
        fan_rig(tank, vertical_beam_width=width, vertical_cast=0.5 * width)
    line = str(refused.value)
    assert '\n' not in line
    assert 'vertical_cast' in line, line
