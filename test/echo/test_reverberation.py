"""Water column and shadow levels from the sonar equation, against hand-worked values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nps_sonar_py.echo.beam import BeamPattern
from nps_sonar_py.echo.reverberation import (
    SV_COASTAL_DB,
    equivalent_solid_angle,
    fan_solid_angle,
    multipath_fill,
    shadow_fill,
    volume_reverberation,
)
from nps_sonar_py.echo.sonar_equation import ReceiverNoise, noise_intensity


def test_the_volume_reverberation_level_is_the_sonar_equations() -> None:
    # RL - SL = -40 log r - 2 a r + Sv + 10 log(Psi r**2 dr), by hand at r = 20 m.
    r, dr, sv, psi, a = 20.0, 0.05, -70.0, 0.01, 0.1
    level = 10.0 * math.log10(float(volume_reverberation([r], dr, sv, psi, a)[0]))
    by_hand = -40.0 * math.log10(r) - 2.0 * a * r + sv + 10.0 * math.log10(psi * r * r * dr)
    assert level == pytest.approx(by_hand, abs=1e-9)
    # Negative control: a point target's 1 / r**4 (the volume's r**2 growth left out).
    point_law = -40.0 * math.log10(r) - 2.0 * a * r + sv + 10.0 * math.log10(psi * dr)
    assert abs(level - point_law) > 20.0


def test_it_falls_20_log_r_without_absorption() -> None:
    levels = volume_reverberation([10.0, 20.0, 40.0], 0.1, SV_COASTAL_DB, 0.02)
    steps = np.diff(10.0 * np.log10(levels))
    assert np.allclose(steps, -20.0 * math.log10(2.0))


def test_equivalent_solid_angles() -> None:
    # A uniform cone of half angle b: 2 pi (1 - cos b); a Gaussian fan: w_h w_v pi / (8 ln 2).
    half = math.radians(10.0)
    cone = equivalent_solid_angle(BeamPattern.UNIFORM, 2.0 * half, 2)
    assert cone == pytest.approx(2.0 * math.pi * (1.0 - math.cos(half)), rel=1e-3)
    gaussian = equivalent_solid_angle(BeamPattern.GAUSSIAN, math.radians(2.0), 2)
    assert gaussian == pytest.approx(
        fan_solid_angle(math.radians(2.0), math.radians(2.0)), rel=1e-3
    )
    # Negative control: the one-way pattern's is twice as wide.
    one_way = equivalent_solid_angle(BeamPattern.GAUSSIAN, math.radians(2.0), 1)
    assert one_way == pytest.approx(2.0 * gaussian, rel=1e-3)


def test_the_shadow_fill_adds_noise_volume_and_multipath() -> None:
    noise = noise_intensity(ReceiverNoise(True, 40.0, 30.0), 210.0, 50e3)
    # N0 + 10 log B - DI - SL = 40 + 47.0 - 30 - 210 dB.
    assert 10.0 * math.log10(noise) == pytest.approx(40.0 + 10.0 * math.log10(50e3) - 240.0)
    volume = volume_reverberation([10.0, 20.0], 0.05, -70.0, 0.01)
    seabed = np.array([1e-6, 2e-7])
    multipath = multipath_fill(seabed, 3.0, 20.0)
    assert np.allclose(multipath, seabed * 10.0**-2.3)
    fill = shadow_fill(noise, volume, multipath)
    assert np.allclose(fill, noise + volume + multipath)
    assert np.all(fill > 0.0)  # a shadow is never exactly zero
