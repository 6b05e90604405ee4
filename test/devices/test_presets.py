"""Presets of real sonars (``sonar_preset``, docs/presets.md), built as a node builds them.

The expected figures are the sources' (docs/presets.md), typed here in their own units; the
checks compute the closed forms from them: the line array's -3 dB width
``0.886 lambda / (N d)`` against the horizontal beam width, the pulse's range resolution
``c / (2 B)`` against the published one. Each has a control that must fail.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from device_kinds import robot_of

from nps_sonar_py.devices import (
    Family,
    FanRanger,
    Rig,
    Setup,
    build_device,
    reference_world_file,
    robot_root_pose,
)
from nps_sonar_py.devices.kinds import family_records
from nps_sonar_py.devices.presets import PRESETS, preset_names, preset_settings
from nps_sonar_py.errors import ConfigurationError, DescriptionError
from nps_sonar_py.records import read_records, specs
from nps_sonar_py.scene import Raycaster, load_world

#: Each preset's published figures: (frequency Hz, field of view deg, beams, vertical deg,
#: horizontal deg or None, range resolution m or None, max range m) (docs/presets.md).
SHEETS: dict[str, tuple[float, float, int, float, float | None, float | None, float]] = {
    'blueview_p900_130': (900e3, 130.0, 768, 20.0, None, 0.025, 100.0),
    # horizontal: 0.6 deg at 1.2 MHz (liboculus), one aperture: 0.6 * 1.2 / 0.75 deg at 750 kHz
    'oculus_m750d': (750e3, 130.0, 512, 20.0, 0.96, None, 120.0),
    # liboculus Oculus_2100MHz: 12 x 0.4 deg; Oculus.h: M1200d HF up to 10 m; 256 beams over
    # -30 to +30 deg, as liboculus's recorded 2.0989 MHz ping was taken
    'oculus_m1200d_hf': (2.1e6, 60.0, 256, 12.0, 0.4, None, 10.0),
}
#: Sound speed of the published range resolutions, m/s.
C = 1500.0
ORIGIN = robot_root_pose([0.0] * 6)
#: A fan's sector without a preset (the node's default is a full turn, a sweep's).
SECTOR = {'min_angle': -0.5, 'max_angle': 0.5}


def setup(values: dict[str, Any]) -> Setup:
    """The scanning node's setup from parameter ``values`` (mode multibeam, few rays)."""
    values = {'mode': 'multibeam', 'rays_vertical': 2, 'rays_horizontal': 1, **values}
    return Setup(Family.SCANNING, *read_records(family_records(Family.SCANNING), values))


def fan(values: dict[str, Any]) -> FanRanger:
    """The multibeam of the scanning sonar robot from parameter ``values``."""
    device = build_device(robot_of('multibeam'), setup(values))[1]
    assert isinstance(device, FanRanger)
    return device


def test_the_table_holds_the_published_figures() -> None:
    assert set(PRESETS) == set(SHEETS)
    assert preset_names() == ('none', *SHEETS)


@pytest.mark.parametrize('name', list(SHEETS))
def test_each_preset_builds_the_published_geometry(name: str) -> None:
    frequency, fov, beams, vertical, _, _, max_range = SHEETS[name]
    device = fan({'sonar_preset': name})
    sonar = device.sonar
    assert sonar.fan.beams == beams
    assert math.degrees(sonar.fan.max_angle - sonar.fan.min_angle) == pytest.approx(fov)
    assert math.degrees(sonar.fan.min_angle) == pytest.approx(-fov / 2)
    assert math.degrees(sonar.fan.spacing) == pytest.approx(fov / (beams - 1))  # the mean
    # The Oculus bearing tables are even in sine (sin b_k = sin b_0 + k 2 sin(fov / 2) /
    # (n - 1)); the P900's, not found, stay even in angle. Each fails the other's form.
    step = 2.0 * math.sin(math.radians(fov / 2)) / (beams - 1)
    sines = np.diff(np.sin(sonar.azimuths))
    even_in_sine = bool(np.allclose(sines, step, rtol=1e-9))
    assert even_in_sine is name.startswith('oculus'), name
    assert bool(np.allclose(np.diff(sonar.azimuths), sonar.fan.spacing)) is not even_in_sine
    assert math.degrees(sonar.fan.vertical_width) == pytest.approx(vertical)
    assert sonar.echo.frequency == frequency
    assert sonar.echo.max_range == max_range
    assert device.limits[1] == max_range
    assert sonar.engine.grid is not None  # echo_model coherent
    # The ping rate: at most what the two-way time allows in the slowest sea water.
    assert device.frequency <= 1400.0 / (2.0 * max_range)


#: -3 dB width of a shaded array's factor in ``sin(theta)`` times ``N d`` (Harris 1978, Table 1).
HARRIS = {'none': 0.886, 'hann': 1.44}
#: Each Oculus preset's shading: the M1200d's read from its record (docs/presets.md).
SHADING = {'oculus_m750d': 'none', 'oculus_m1200d_hf': 'hann'}


@pytest.mark.parametrize('name', ['oculus_m750d', 'oculus_m1200d_hf'])
def test_the_line_array_has_the_published_horizontal_beam_width(name: str) -> None:
    """``k lambda / (N d)`` of the preset's shaded array is the sheet's width, within 5 %.

    ``k`` the shading's (0.886 unshaded, 1.44 Hann). Controls: 10 % fewer elements, and the
    same elements unshaded when the preset shades them, miss the width.
    """
    width = SHEETS[name][4]
    assert width is not None
    config = fan({'sonar_preset': name}).sonar.coherent
    assert config is not None
    elements, spacing = config.array_elements, config.array_spacing  # spacing in wavelengths
    assert config.array_window.value == SHADING[name]
    factor = HARRIS[SHADING[name]]

    def array_width(n: int, k: float = factor) -> float:
        """Full -3 dB width at broadside of N elements at this spacing, degrees."""
        return math.degrees(2.0 * math.asin(0.5 * k / (n * spacing)))

    assert array_width(elements) == pytest.approx(width, rel=0.05)
    assert array_width(round(elements * 0.9)) != pytest.approx(width, rel=0.05)  # control
    if SHADING[name] != 'none':
        assert array_width(elements, HARRIS['none']) != pytest.approx(width, rel=0.05)
    assert fan({'sonar_preset': name}).sonar.echo.beam_width == pytest.approx(
        math.radians(width), rel=0.05
    )


def test_a_preset_without_a_published_beam_width_sets_none() -> None:
    """The P900-130's horizontal width was not found: beam_width and the array stay unset."""
    assert SHEETS['blueview_p900_130'][4] is None
    given = preset_settings('blueview_p900_130')
    assert not {'beam_width', 'array_elements', 'array_spacing'} & set(given)
    config = fan({'sonar_preset': 'blueview_p900_130'}).sonar.coherent
    assert config is not None
    assert config.array_elements == 0


def test_the_pulse_has_the_published_range_resolution() -> None:
    """c / (2 B) of the preset's chirp is the sheet's range resolution; the bins as fine."""
    resolution = SHEETS['blueview_p900_130'][5]
    assert resolution is not None
    sonar = fan({'sonar_preset': 'blueview_p900_130'}).sonar
    config = sonar.coherent
    assert config is not None
    assert C / (2.0 * config.bandwidth) == pytest.approx(resolution, rel=0.01)
    assert C / (2.0 * 2.0 * config.bandwidth) != pytest.approx(resolution, rel=0.01)  # control
    # The bins: no wider than c / (2 B) in the slowest sea water (1400 m/s), hardly finer.
    finest = 1400.0 / (2.0 * config.bandwidth)
    assert sonar.echo.max_range / sonar.echo.n_bins <= finest
    assert sonar.echo.max_range / (sonar.echo.n_bins - 1) > finest


@pytest.mark.parametrize('name', ['oculus_m750d', 'oculus_m1200d_hf'])
def test_a_preset_without_a_published_resolution_keeps_the_pulse_default(name: str) -> None:
    given = preset_settings(name)
    assert not {'bandwidth', 'range_bins', 'pulse_duration'} & set(given)
    plain = fan({'echo_model': 'coherent', **SECTOR}).sonar.coherent
    preset = fan({'sonar_preset': name}).sonar.coherent
    assert plain is not None
    assert preset is not None
    assert preset.bandwidth == plain.bandwidth


@pytest.mark.parametrize('name', list(SHEETS))
def test_each_preset_pings(name: str) -> None:
    """A preset's ping fits the coherent model's limits (samples per ping) and runs."""
    caster = Raycaster(load_world(reference_world_file()))
    rig = Rig(robot_of('multibeam'), setup({'sonar_preset': name}), caster, ORIGIN)
    reading = rig.read()
    assert reading.ranges.shape == (SHEETS[name][2],)
    assert reading.echo.coherent is not None


def test_settings_given_win_over_the_preset() -> None:
    """Given values are kept; the preset fills in the rest; without it, the defaults."""
    given = fan({'sonar_preset': 'oculus_m750d', 'beams': 256, 'max_range': 30.0}).sonar
    assert given.fan.beams == 256
    assert given.echo.max_range == 30.0
    assert given.echo.frequency == 750e3  # still the preset's
    plain = fan(SECTOR).sonar
    assert plain.fan.beams == 64
    assert plain.echo.frequency != 750e3
    assert plain.engine.grid is None


def test_every_setting_a_preset_gives_is_a_scanning_parameter() -> None:
    names = {spec.name for record in family_records(Family.SCANNING) for spec in specs(record)}
    for name in SHEETS:
        assert set(preset_settings(name)) <= names


def test_an_unknown_preset_is_refused_in_one_line_with_the_choices() -> None:
    with pytest.raises(ConfigurationError) as error:
        fan({'sonar_preset': 'p900'})
    text = str(error.value)
    assert text == (
        'sonar_preset must be none, blueview_p900_130, oculus_m750d or oculus_m1200d_hf, '
        "got 'p900'"
    )


def test_another_mode_refuses_a_preset_in_one_line() -> None:
    values = {'mode': 'sweep', 'sonar_preset': 'oculus_m750d'}
    records = read_records(family_records(Family.SCANNING), values)
    with pytest.raises(DescriptionError, match='mode sweep does not use sonar_preset') as error:
        build_device(robot_of('sweep'), Setup(Family.SCANNING, *records))
    assert '\n' not in str(error.value)
