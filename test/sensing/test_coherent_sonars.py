"""The coherent model in the fan and the side-scan, over real Open3D scenes (docs/coherent.md)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
from coherent_scenes import (
    beam_array,
    fan_sonar,
    sidescan_sonar,
    sweep_sonar,
)
from test_sidescan import seabed_world

from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.formed_engine import FormedEngine
from nps_sonar_py.echo.pulse import Pulse, PulseKind
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.transforms import transform_from_xyz_rpy


def test_sidescan_static_pings_are_identical_and_carry_their_baseband(tmp_path: Path) -> None:
    """Same scene, same pose: the same profiles and baseband; moving 1 m changes them."""
    caster = Raycaster(load_world(seabed_world(tmp_path)))
    sonar = sidescan_sonar(0)
    first, again = sonar.ping(caster), sonar.ping(caster)
    assert first.echo.coherent is not None
    assert again.echo.coherent is not None
    assert np.array_equal(first.profiles, again.profiles)
    assert np.array_equal(first.echo.coherent.baseband, again.echo.coherent.baseband)
    assert first.echo.coherent.baseband.shape == (2, first.echo.coherent.grid.count)
    assert np.array_equal(first.profiles, first.echo.coherent.intensity)
    sonar.set_pose(transform_from_xyz_rpy([1.0, 0.0, 10.0], [0.0, 0.0, 0.0]))
    moved = sonar.ping(caster)
    assert not np.array_equal(first.profiles, moved.profiles)


def test_fan_coherent_profiles_and_refusals(tmp_path: Path) -> None:
    """The fan's profiles are the coherent intensities; bad settings are refused in one line."""
    caster = Raycaster(load_world(seabed_world(tmp_path)))
    array = beam_array(math.radians(2.0))
    coherent = CoherentConfig.of(pulse=Pulse(PulseKind.CHIRP, 2e-3, 15e3), array=array)
    ping = fan_sonar(coherent).ping(caster)
    assert ping.echo.coherent is not None
    assert np.array_equal(ping.profiles, ping.echo.coherent.intensity)
    assert ping.echo.coherent.baseband.shape == (64, ping.echo.coherent.grid.count)
    plain = fan_sonar(None).ping(caster)
    assert plain.echo.coherent is None
    # The formed fan's beams are its array's: energy about the incoherent image with that
    # array's pattern (test_formed_fan.py checks it over seeds).
    formed = fan_sonar(coherent).engine.coherent
    assert isinstance(formed, FormedEngine)
    same = fan_sonar(None, array_pattern=formed.array).ping(caster)
    lit = same.profiles > 1e-3 * same.profiles.max()
    ratio = float(ping.profiles[lit].sum() / same.profiles[lit].sum())
    assert ratio == pytest.approx(1.0, abs=0.15)  # one realisation: energy about kept
    assert np.array_equal(ping.ranges, plain.ranges)  # the incoherent model's
    for bad, words in (
        (dataclasses.replace(coherent, bandwidth=900e3), 'wider than the carrier'),
        (dataclasses.replace(coherent, array_elements=16), 'too short for its beams'),
    ):
        with pytest.raises(ConfigurationError, match=words) as error:
            fan_sonar(bad)
        assert '\n' not in str(error.value)


def test_sweep_coherent_ping_keeps_the_energy_and_stays_still(tmp_path: Path) -> None:
    """A mechanical sweep's coherent ping: the incoherent total on average, still when still."""
    caster = Raycaster(load_world(seabed_world(tmp_path)))
    plain = sweep_sonar(None).ping(caster, 0.0)
    totals = np.array([sweep_sonar(seed).ping(caster, 0.0).total for seed in range(60)])
    error = totals.std() / math.sqrt(totals.size)
    assert float(totals.mean()) == pytest.approx(plain.total, abs=4.0 * error)
    sonar = sweep_sonar(0)
    first, again = sonar.ping(caster, 0.0), sonar.ping(caster, 0.0)
    assert np.array_equal(first.intensity, again.intensity)
    assert not np.array_equal(first.intensity, plain.intensity)  # speckled, not the sums
    assert first.range == plain.range  # the incoherent model's range
    # Negative control: an incoherent total 20 % off is outside the Monte Carlo error.
    assert float(totals.mean()) != pytest.approx(1.2 * plain.total, abs=4.0 * error)
