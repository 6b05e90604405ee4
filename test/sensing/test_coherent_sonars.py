"""The coherent model in the fan and the side-scan, over real Open3D scenes (docs/coherent.md)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
from test_sidescan import seabed_world

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig
from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.line_array import LineArray
from nps_sonar_py.echo.pulse import Pulse, PulseKind
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.multibeam import FanConfig, MultibeamSonar
from nps_sonar_py.sensing.sidescan import SidescanConfig, SidescanSonar
from nps_sonar_py.sensing.sweep import ScanningSonar, SweepConfig
from nps_sonar_py.transforms import transform_from_xyz_rpy

SIDESCAN_ECHO = EchoConfig(
    pattern=BeamPattern.PISTON,
    min_range=0.0,
    max_range=40.0,
    n_bins=400,
    frequency=400e3,
    absorption=Absorption.NONE,
)
LEVEL = transform_from_xyz_rpy([0.0, 0.0, 10.0], [0.0, 0.0, 0.0])


def _sidescan(seed: int) -> SidescanSonar:
    coherent = CoherentConfig.of(pulse=Pulse(PulseKind.CHIRP, 5e-3, 7e3), scatterer_seed=seed)
    config = SidescanConfig(rays_per_bin=8, min_altitude=5.0, max_altitude=15.0)
    return SidescanSonar(SIDESCAN_ECHO, config, LEVEL, coherent=coherent)


def test_sidescan_coherent_mean_is_the_incoherent_profile(tmp_path: Path) -> None:
    """Flat seabed: over 40 seeds the coherent profiles average to the incoherent ones."""
    caster = Raycaster(load_world(seabed_world(tmp_path)))
    reference = SidescanSonar(SIDESCAN_ECHO, _sidescan(0).config, LEVEL).ping(caster).profiles
    pings = np.stack([_sidescan(seed).ping(caster).profiles for seed in range(40)])
    mean, error = pings.mean(axis=0), pings.std(axis=0) / math.sqrt(40)
    lit = np.flatnonzero((reference > 0.0).all(axis=0))
    inside = np.zeros(400, dtype=bool)
    inside[lit[0] + 20 : 390] = True  # 2 m past the first return's edge, before the end
    z = (mean - reference)[:, inside] / error[:, inside]
    assert float(np.mean(z**2)) < 2.0
    # Each ping is speckled: the seabed's bins scatter as an exponential (index about 1).
    normalised = pings[:, :, inside] / reference[None, :, inside]
    index = float(np.mean(normalised**2) / np.mean(normalised) ** 2 - 1.0)
    assert index == pytest.approx(1.0, abs=0.15)
    # Negative control: the incoherent profile is smooth (index near 0).
    assert float(np.var(reference[:, inside] / mean[:, inside])) < 0.05


def test_sidescan_static_pings_are_identical_and_carry_their_baseband(tmp_path: Path) -> None:
    """Same scene, same pose: the same profiles and baseband; moving 1 m changes them."""
    caster = Raycaster(load_world(seabed_world(tmp_path)))
    sonar = _sidescan(0)
    first, again = sonar.ping(caster), sonar.ping(caster)
    assert first.coherent is not None
    assert again.coherent is not None
    assert np.array_equal(first.profiles, again.profiles)
    assert np.array_equal(first.coherent.baseband, again.coherent.baseband)
    assert first.coherent.baseband.shape == (2, first.coherent.grid.count)
    assert np.array_equal(first.profiles, first.coherent.intensity)
    sonar.set_pose(transform_from_xyz_rpy([1.0, 0.0, 10.0], [0.0, 0.0, 0.0]))
    moved = sonar.ping(caster)
    assert not np.array_equal(first.profiles, moved.profiles)


def _fan(coherent: CoherentConfig | None) -> MultibeamSonar:
    echo = EchoConfig(
        beam_width=math.radians(2.0),
        min_range=1.0,
        max_range=30.0,
        n_bins=300,
        frequency=400e3,
        absorption=Absorption.NONE,
    )
    fan = FanConfig(beams=64, min_angle=-0.5, max_angle=0.5, rays_vertical=12)
    pose = transform_from_xyz_rpy([0.0, 0.0, 10.0], [0.0, math.radians(30.0), 0.0])
    return MultibeamSonar(echo, fan, pose, coherent=coherent)


def test_fan_coherent_profiles_and_refusals(tmp_path: Path) -> None:
    """The fan's profiles are the coherent intensities; bad settings are refused in one line."""
    caster = Raycaster(load_world(seabed_world(tmp_path)))
    array = LineArray(math.ceil(0.886 / (0.5 * math.radians(2.0))), 0.5)
    coherent = CoherentConfig.of(pulse=Pulse(PulseKind.CHIRP, 2e-3, 15e3), array=array)
    ping = _fan(coherent).ping(caster)
    assert ping.coherent is not None
    assert np.array_equal(ping.profiles, ping.coherent.intensity)
    assert ping.coherent.baseband.shape == (64, ping.coherent.grid.count)
    plain = _fan(None).ping(caster)
    assert plain.coherent is None
    lit = plain.profiles > 0.0
    ratio = float(ping.profiles[lit].sum() / plain.profiles[lit].sum())
    assert ratio == pytest.approx(1.0, abs=0.15)  # one realisation: energy about kept
    assert np.array_equal(ping.ranges, plain.ranges)  # the incoherent model's
    for bad, words in (
        (dataclasses.replace(coherent, bandwidth=900e3), 'wider than the carrier'),
        (dataclasses.replace(coherent, array_elements=16), 'too short for its beams'),
    ):
        with pytest.raises(ConfigurationError, match=words) as error:
            _fan(bad)
        assert '\n' not in str(error.value)


def _sweep(seed: int | None) -> ScanningSonar:
    echo = EchoConfig(
        beam_width=math.radians(3.0),
        min_range=1.0,
        max_range=40.0,
        n_bins=400,
        frequency=750e3,
        absorption=Absorption.NONE,
    )
    coherent = None
    if seed is not None:
        coherent = CoherentConfig.of(
            pulse=Pulse(PulseKind.CHIRP, 2e-3, 7.5e3), scatterer_seed=seed
        )
    pose = transform_from_xyz_rpy([0.0, 0.0, 10.0], [0.0, math.radians(30.0), 0.0])
    return ScanningSonar(echo, SweepConfig(), pose, n_rays=4000, coherent=coherent)


def test_sweep_coherent_ping_keeps_the_energy_and_stays_still(tmp_path: Path) -> None:
    """A mechanical sweep's coherent ping: the incoherent total on average, still when still."""
    caster = Raycaster(load_world(seabed_world(tmp_path)))
    plain = _sweep(None).ping(caster, 0.0)
    totals = np.array([_sweep(seed).ping(caster, 0.0).total for seed in range(60)])
    error = totals.std() / math.sqrt(totals.size)
    assert float(totals.mean()) == pytest.approx(plain.total, abs=4.0 * error)
    sonar = _sweep(0)
    first, again = sonar.ping(caster, 0.0), sonar.ping(caster, 0.0)
    assert np.array_equal(first.intensity, again.intensity)
    assert not np.array_equal(first.intensity, plain.intensity)  # speckled, not the sums
    assert first.range == plain.range  # the incoherent model's range
    # Negative control: an incoherent total 20 % off is outside the Monte Carlo error.
    assert float(totals.mean()) != pytest.approx(1.2 * plain.total, abs=4.0 * error)
