"""The display chain's water column: volume reverberation and multipath, by the sonar equation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nps_sonar_py.echo.beam import BeamPattern, beam_intensity
from nps_sonar_py.echo.display import Compression, DisplayChain
from nps_sonar_py.echo.display_presets import display_chain
from nps_sonar_py.echo.reverberation import SV_COASTAL_DB, surface_bounce
from nps_sonar_py.errors import ConfigurationError

BINS, MAX_RANGE = 200, 20.0
EDGES = np.linspace(0.0, MAX_RANGE, BINS + 1)
R = 0.5 * (EDGES[:-1] + EDGES[1:])
DR = MAX_RANGE / BINS


def _chain(**changes: object) -> DisplayChain:
    settings: dict[str, object] = {
        'name': 'water',
        'samples': BINS,
        'max_range': MAX_RANGE,
        'compression': Compression.NONE,
        'full_scale': 65535,
    }
    settings.update(changes)
    return DisplayChain(**settings)  # type: ignore[arg-type]


def test_the_volume_fill_is_the_sonar_equations_reverberation_level() -> None:
    # RL - SL = -40 log r - 2 a r + Sv + 10 log(Psi r**2 dr), by hand, on an empty echo.
    sv, psi, alpha = -65.0, 0.004, 0.3
    chain = _chain(sv_db=sv, solid_angle=psi, alpha=alpha)
    level = 10.0 * np.log10(chain.apply(np.zeros((1, BINS)), EDGES).linear[0])
    by_hand = -40 * np.log10(R) - 2 * alpha * R + sv + 10 * np.log10(psi * R**2 * DR)
    assert np.allclose(level, by_hand, atol=1e-9)
    # Negative control: a level without the volume's r**2 growth (a point target's 40 log r).
    point = -40 * np.log10(R) - 2 * alpha * R + sv + 10 * np.log10(psi * DR)
    assert np.max(np.abs(level - point)) > 20.0


def test_drawn_fill_is_exponential_about_its_mean() -> None:
    chain = _chain(solid_angle=0.01)
    drawn = chain.apply(np.zeros((4000, BINS)), EDGES, rng=np.random.default_rng(1)).linear
    mean = chain.apply(np.zeros((1, BINS)), EDGES).linear[0]
    ratio = drawn / mean
    assert float(np.mean(ratio)) == pytest.approx(1.0, abs=0.01)
    assert float(np.var(ratio)) == pytest.approx(1.0, abs=0.03)  # fully developed speckle


def test_coherent_input_gets_no_second_receiver_noise() -> None:
    chain = _chain(noise_floor=1e-6, reference=1e-5)
    echo = np.zeros((1, BINS))
    assert np.all(chain.apply(echo, EDGES, coherent=True).codes == 0)
    # Control: on incoherent input the noise floor is the receiver noise and is added.
    assert np.all(np.abs(chain.apply(echo, EDGES).codes - 0.1 * 65535) <= 1.0)


def test_multipath_fills_a_shadow_from_the_seabeds_level_past_its_onset() -> None:
    seabed = np.full((10, BINS), 1e-4)
    seabed[3, 50:120] = 0.0  # a shadow in line 3
    chain = _chain(multipath_db=20.0, multipath_from=8.0)
    linear = chain.apply(seabed, EDGES).linear
    mean_level = np.mean(seabed, axis=0) * 1e-2
    inside = R >= 8.0
    shadow = slice(50, 120)
    assert np.allclose(linear[3, shadow][inside[shadow]], mean_level[shadow][inside[shadow]])
    assert np.all(linear[3, shadow][~inside[shadow]] == 0.0)  # before the bounce arrives
    # Control: without the multipath setting the shadow stays empty.
    assert np.all(_chain().apply(seabed, EDGES).linear[3, shadow] == 0.0)


def test_the_one_bounce_path_by_hand() -> None:
    # Depth 2 m, altitude 1 m: the echo arrives from 3 m; at 10 m the leg is unfolded to
    # x with (hypot(x, 5) + hypot(x, 1)) / 2 = 10.
    width, tilt = math.radians(30.0), math.radians(5.0)
    earliest, loss = surface_bounce(2.0, 1.0, 10.0, tilt, width, BeamPattern.GAUSSIAN)
    assert earliest == pytest.approx(3.0)
    x = np.linspace(0.0, 20.0, 2_000_001)
    x_end = x[np.argmin(np.abs(0.5 * (np.hypot(x, 5.0) + np.hypot(x, 1.0)) - 10.0))]
    off = tilt + math.atan2(5.0, x_end)
    by_hand = -10 * math.log10(float(beam_intensity(BeamPattern.GAUSSIAN, [off], width)[0]))
    assert loss == pytest.approx(by_hand, abs=1e-3)
    # Control: the leg's elevation measured from the sonar to the surface alone (2 m up)
    # would see the beam far nearer its axis.
    near = tilt + math.atan2(2.0, x_end)
    wrong = -10 * math.log10(float(beam_intensity(BeamPattern.GAUSSIAN, [near], width)[0]))
    assert abs(loss - wrong) > 3.0


def test_a_path_behind_the_face_or_past_the_window_is_lost() -> None:
    # The record's geometry: 21.5 m deep, 5 m up, a 30 m window, a 20 degree tilt.
    _, loss = surface_bounce(21.5, 5.0, 30.0, math.radians(20), math.radians(50), BeamPattern.SINC)
    assert loss == math.inf
    earliest, late = surface_bounce(21.5, 5.0, 20.0, 0.1, 1.0, BeamPattern.SINC)
    assert earliest == pytest.approx(26.5)
    assert late == math.inf


def test_presets_carry_coastal_water_and_their_beam() -> None:
    chain = display_chain('sidescan_600khz_xtf')
    assert chain.sv_db == SV_COASTAL_DB
    assert chain.solid_angle > 0.0


@pytest.mark.parametrize(
    ('setting', 'value'),
    [('sv_db', 10.0), ('solid_angle', -1.0), ('multipath_db', -3.0), ('multipath_from', -1.0)],
)
def test_bad_water_settings_are_refused_by_name(setting: str, value: float) -> None:
    with pytest.raises(ConfigurationError, match=f'display chain: {setting}'):
        _chain(**{setting: value})
