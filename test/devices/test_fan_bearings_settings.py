"""``beam_spacing`` and ``bearings`` (mode multibeam) as a node reads them (docs/beamforming.md).

Set through ``read_records`` as a node sets its parameters and built by the Rig over the
reference tank (``test_fan_pattern.fan_rig``): the settings reach the core's ``FanConfig``,
the images take the fan's own axes, and a run-time ``set_config`` keeps a sine fan even in
sine over its new sector; a fan of a table refuses a new sector in one line and keeps its
axes (the control: a fan even in angle takes it). The physics of the axes is
``test/sensing/test_fan_bearings.py``'s.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from test_fan_pattern import fan_rig, tank  # noqa: F401  (the module fixture)

from nps_sonar_py.scene import Raycaster
from nps_sonar_py.sensing.multibeam import BeamSpacing


def test_the_settings_reach_the_fan_and_its_images(tank: Raycaster) -> None:  # noqa: F811
    rig = fan_rig(tank, beam_spacing='sine')
    sonar = rig.device.sonar  # type: ignore[attr-defined]
    assert sonar.fan.beam_spacing is BeamSpacing.SINE
    sines = np.sin(sonar.azimuths)
    np.testing.assert_allclose(np.diff(sines), 2.0 * math.sin(0.5) / 31, rtol=1e-9)
    geometry = rig.device.image_geometry()
    np.testing.assert_array_equal(geometry.bearings, sonar.azimuths)
    table = tuple(np.linspace(-0.4, 0.45, 32) ** 3 / 0.45**2)
    fixed = fan_rig(tank, bearings=list(table)).device.sonar  # type: ignore[attr-defined]
    np.testing.assert_array_equal(fixed.azimuths, table)
    # The images' mean step is the table's own (first axis to last), not the sector's.
    step = fixed.image_geometry().spacing
    assert np.isclose(step, np.diff(table).mean(), rtol=1e-12, atol=0.0)
    assert abs(step - fixed.fan.spacing) > 1e-3  # control: the sector's spacing differs
    # Control: the default is even in angle, and its images' beams are the spacing's.
    even = fan_rig(tank)
    assert even.device.sonar.fan.beam_spacing is BeamSpacing.ANGLE  # type: ignore[attr-defined]
    assert even.device.image_geometry().bearings is None


def test_set_config_keeps_the_spacing_and_a_table_refuses_a_new_sector(
    tank: Raycaster,  # noqa: F811
) -> None:
    table = tuple(float(a) for a in np.linspace(-0.5, 0.5, 32) ** 3 / 0.25)
    for values, refused in (
        ({'beam_spacing': 'sine'}, False),
        ({'bearings': list(table)}, True),
        ({}, False),
    ):
        rig = fan_rig(tank, **values)
        config = rig.device.ranger_config()
        narrower = dataclasses.replace(
            config,
            min_angle=config.min_angle + 4 * config.angular_resolution,
            max_angle=config.max_angle - 4 * config.angular_resolution,
        )
        problem = rig.device.reconfigure(narrower)  # type: ignore[attr-defined]
        assert (problem is not None) is refused, problem
        sonar = rig.device.sonar  # type: ignore[attr-defined]
        if refused:
            assert problem is not None
            assert '\n' not in problem
            assert 'bearings' in problem, problem
            assert rig.device.ranger_config() == config
            np.testing.assert_array_equal(sonar.azimuths, table)
        elif values:
            assert sonar.fan.beams == 24
            sines = np.sin(sonar.azimuths)
            np.testing.assert_allclose(np.diff(sines), np.ptp(sines) / 23, rtol=1e-9)


def test_set_config_past_ninety_degrees_is_refused_for_a_sine_fan(
    tank: Raycaster,  # noqa: F811
) -> None:
    """A sine fan refuses a sector past +-90 degrees (its sine turns back) in one line naming
    ``beam_spacing`` and keeps its axes; the control: a fan even in angle takes it."""
    for spacing in ('sine', 'angle'):
        rig = fan_rig(tank, beam_spacing=spacing)
        config = rig.device.ranger_config()
        before = np.array(rig.device.sonar.azimuths)  # type: ignore[attr-defined]
        wide = dataclasses.replace(
            config, min_angle=-1.8, max_angle=1.8, angular_resolution=3.6 / 31
        )
        problem = rig.device.reconfigure(wide)  # type: ignore[attr-defined]
        if spacing == 'sine':
            assert problem is not None
            assert problem.startswith('beam_spacing sine'), problem
            assert '\n' not in problem
            assert rig.device.ranger_config() == config
            np.testing.assert_array_equal(rig.device.sonar.azimuths, before)  # type: ignore[attr-defined]
        else:
            assert problem is None, problem
            assert rig.device.sonar.azimuths[-1] == 1.8  # type: ignore[attr-defined]
