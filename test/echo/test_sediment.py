"""Seabed physics per sediment against closed forms and the APL-UW / Jackson reference curves.

Each check has a negative control: a deliberately wrong model the same check rejects. The
reference curves are the MATLAB files of the real records (``real_records``: CI has them; a
test that cannot find them is skipped only outside CI).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from real_records import real_file
from scipy.io import loadmat

from nps_sonar_py.echo.sediment import (
    SEDIMENTS,
    Sediment,
    backscatter_cross_section,
    backscatter_table,
    critical_angle,
    lambert_strength_db,
    reflection_coefficient,
    reflection_loss_db,
    roughness_cross_section,
    with_overrides,
)
from nps_sonar_py.errors import ConfigurationError

SAND, SILT = SEDIMENTS['medium_sand'], SEDIMENTS['silt']


def _curve(sediment: str, name: str, key: str) -> np.ndarray:
    path = real_file(f'backscatter/jackson2/300k/{sediment}/{name}.mat')
    return np.asarray(loadmat(str(path))[key], dtype=np.float64).ravel()


def test_lambert_check_values_and_a_wrong_law() -> None:
    grazing = np.radians([10.0, 30.0, 60.0])
    expected = [-42.21, -33.02, -28.25]  # -27 + 20 log10(sin theta), by hand
    assert np.allclose(lambert_strength_db(-27.0, grazing), expected, atol=0.005)
    wrong = -27.0 + 20.0 * np.log10(np.cos(grazing))  # the angle from the normal, mistaken
    assert not np.allclose(wrong, expected, atol=0.5)


def test_normal_incidence_loss_of_sand_and_silt() -> None:
    # Lossless closed form: R = (a_rho nu - 1) / (a_rho nu + 1) at normal incidence.
    for sediment, check in ((SAND, 8.64), (SILT, 24.02)):
        z = sediment.density_ratio * sediment.sound_speed_ratio
        closed = -20.0 * math.log10((z - 1.0) / (z + 1.0))
        assert round(closed, 2) == check
        lossless = with_overrides(sediment, loss_parameter=0.0)
        assert float(reflection_loss_db(lossless, math.pi / 2)) == pytest.approx(closed, abs=1e-9)
        # With the loss parameter the model moves it by under 0.01 dB.
        assert float(reflection_loss_db(sediment, math.pi / 2)) == pytest.approx(check, abs=0.01)
        # Negative control: the density left out (R = (nu - 1) / (nu + 1)).
        nu = sediment.sound_speed_ratio
        assert abs(-20.0 * math.log10(abs((nu - 1.0) / (nu + 1.0))) - check) > 3.0


def test_sand_critical_angle_and_total_reflection_below_it() -> None:
    angle = critical_angle(SAND)
    assert math.degrees(angle) == pytest.approx(31.92, abs=0.005)
    lossless = with_overrides(SAND, loss_parameter=0.0)
    below, above = angle - 1e-3, angle + 1e-3
    assert abs(complex(reflection_coefficient(lossless, below))) == pytest.approx(1.0, abs=1e-12)
    assert abs(complex(reflection_coefficient(lossless, above))) < 0.99
    wrong = math.asin(1.0 / SAND.sound_speed_ratio)  # the complement, mistaken
    assert abs(math.degrees(wrong) - 31.92) > 1.0
    assert math.isnan(critical_angle(SILT))  # a slow sediment has none


@pytest.mark.parametrize(
    ('name', 'sediment', 'values'),
    [
        ('medium_sand', SAND, (-29.84, -21.59, -18.21, -16.76, -14.87)),
        ('silt', SILT, (-35.68, -31.77, -29.93, -27.35, -24.02)),
    ],
)
def test_backscatter_against_the_reference_curves(
    name: str, sediment: Sediment, values: tuple[float, ...]
) -> None:
    angles = np.array([10.0, 20.0, 30.0, 60.0, 80.0])
    theta = _curve(name, 'theta_g', 'thetg')
    total = _curve(name, 'ss_tot', 'sstot')
    assert np.allclose(np.interp(angles, theta, total), values, atol=0.005)  # the issue's
    ours = 10.0 * np.log10(backscatter_cross_section(sediment, np.radians(angles), 300e3))
    assert np.abs(ours - values).max() < 0.5
    # Every tabulated angle from 10 to 89 degrees, through the cached table too.
    every = (theta >= 10.0) & (theta < 90.0)
    table = backscatter_table(sediment, 300e3, 1500.0)
    tabled = 10.0 * np.log10(table.cross_section(np.radians(theta[every])))
    assert np.abs(tabled - total[every]).max() < 0.5
    # Reflection loss against the files' too.
    loss = _curve(name, 'ref_loss', 'refloss')
    assert np.abs(reflection_loss_db(sediment, np.radians(theta)) - loss).max() < 0.05
    # Negative controls: Lambert at -27 dB, and the roughness alone for silt (its volume).
    lambert = lambert_strength_db(-27.0, np.radians(angles))
    assert np.abs(lambert - values).max() > 0.5
    if name == 'silt':
        rough = 10.0 * np.log10(roughness_cross_section(sediment, np.radians(angles), 300e3))
        assert np.abs(rough - values).max() > 0.5


def test_a_bad_sediment_parameter_is_refused_in_one_line() -> None:
    with pytest.raises(ConfigurationError, match=r'^sediment\.density_ratio must be'):
        with_overrides(SAND, density_ratio=-1.0)


def test_the_table_falls_as_sin_to_the_fourth_below_its_first_angle() -> None:
    table = backscatter_table(SAND, 300e3, 1500.0)
    first = float(table.angles[0])
    low = table.cross_section([first / 2.0, 0.0])
    assert low[0] == pytest.approx(
        float(table.cross_section(first)) * (math.sin(first / 2) / math.sin(first)) ** 4
    )
    assert low[1] == 0.0


def test_fine_sand_follows_its_reference_curve_at_every_angle() -> None:
    """The third fluid row the files hold: 10-89 degrees within 0.5 dB, loss within 0.05 dB."""
    theta = _curve('fine_sand', 'theta_g', 'thetg')
    total = _curve('fine_sand', 'ss_tot', 'sstot')
    every = (theta >= 10.0) & (theta < 90.0)
    fine = SEDIMENTS['fine_sand']
    ours = 10.0 * np.log10(backscatter_cross_section(fine, np.radians(theta[every]), 300e3))
    assert np.abs(ours - total[every]).max() < 0.5
    loss = _curve('fine_sand', 'ref_loss', 'refloss')
    assert np.abs(reflection_loss_db(fine, np.radians(theta)) - loss).max() < 0.05
    # Negative control: medium sand's row, a neighbouring sediment, is rejected by both checks.
    wrong = 10.0 * np.log10(backscatter_cross_section(SAND, np.radians(theta[every]), 300e3))
    assert np.abs(wrong - total[every]).max() > 0.5
    assert np.abs(reflection_loss_db(SAND, np.radians(theta)) - loss).max() > 0.05


def test_coarse_sand_as_a_fluid_is_off_its_elastic_curve_only_at_low_grazing() -> None:
    """docs/seabed.md: the reference's coarse sand has shear; the fluid row misses by 1.4 dB."""
    theta = _curve('coarse_sand', 'theta_g', 'thetg')
    total = _curve('coarse_sand', 'ss_tot', 'sstot')
    coarse = SEDIMENTS['coarse_sand']
    steep, low = (theta >= 30.0) & (theta < 90.0), (theta >= 5.0) & (theta < 30.0)
    ours = 10.0 * np.log10(backscatter_cross_section(coarse, np.radians(theta), 300e3))
    assert np.abs(ours - total)[steep].max() < 0.2
    assert np.abs(ours - total)[low].max() < 1.5
    loss = _curve('coarse_sand', 'ref_loss', 'refloss')
    assert np.abs(reflection_loss_db(coarse, np.radians(theta)) - loss).max() < 0.2
    # Negative control: medium sand's row is rejected where coarse sand's is held to 0.2 dB.
    wrong = 10.0 * np.log10(backscatter_cross_section(SAND, np.radians(theta), 300e3))
    assert np.abs(wrong - total)[steep].max() > 0.2
