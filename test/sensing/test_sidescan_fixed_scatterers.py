"""The coherent side-scan over the surfaces' fixed scatterers (docs/coherent.md, issue 33).

The side-scan of ``coherent_scenes.sidescan_sonar`` (400 kHz: a wavelength of 3.75 mm, a
7 kHz chirp, 0.1 m bins to 40 m) level 10 m over the flat seabed of ``test_sidescan``:

* moving it by a quarter wavelength keeps its speckle (intensity correlation >= 0.99), by a
  wavelength nearly so (>= 0.95), along track and across; the control is the per-ray model
  (each ray's hit a scatterer in cells of a quarter wavelength), which the same move
  re-draws;
* the mean over scatterer seeds is the incoherent image bin by bin (within the spread of the
  mean); the control, the same scatterers heard through the one-way pattern, is rejected;
  each ping is fully developed speckle (scintillation index 1);
* the depth map: a box's shadow stays dark; heard without occlusion it fills in.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from coherent_scenes import (
    LEVEL,
    SIDESCAN_ECHO,
    channel_engine,
    per_ray_intensity,
    pitched,
    sidescan_sonar,
)
from flat_seabed import seabed_fixture
from numpy.typing import NDArray
from test_sidescan import MU, seabed_world

from nps_sonar_py.echo.channel_echoes import SeenSurfaces
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.sidescan import SidescanSonar

SEEDS = 40


flat = seabed_fixture(MU)


def seabed_bins(profiles: NDArray[np.float64]) -> slice:
    """The bins 2 m past the first return's edge to 1 m before the window's end."""
    lit = np.flatnonzero((profiles > 0.0).all(axis=0))
    return slice(int(lit[0]) + 20, profiles.shape[1] - 10)


def correlation(a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
    """The correlation coefficient of two images' bins."""
    return float(np.corrcoef(a.ravel(), b.ravel())[0, 1])


def per_ray_profiles(sonar: SidescanSonar, caster: Raycaster) -> NDArray[np.float64]:
    """The control: the per-ray model's profiles of the sonar's rays (each hit a scatterer)."""
    return per_ray_intensity(channel_engine(sonar), caster, sonar.origin, sonar.directions)


@pytest.mark.parametrize('axis', [0, 1])
def test_moving_a_wavelength_keeps_the_speckle(flat: Raycaster, axis: int) -> None:
    """Along track (x) and across (y): >= 0.99 at a quarter wavelength, >= 0.95 at one."""
    sonar = sidescan_sonar(0)
    wavelength = SIDESCAN_ECHO.wavelength
    still = sonar.ping(flat).profiles
    inside = seabed_bins(still)
    control_still = per_ray_profiles(sonar, flat)
    for fraction, least in ((0.25, 0.99), (1.0, 0.95)):
        xyz = [0.0, 0.0, 10.0]
        xyz[axis] += fraction * wavelength
        sonar.set_pose(pitched(xyz[2], 0.0, xyz[0], xyz[1]))
        moved = sonar.ping(flat).profiles
        assert correlation(still[:, inside], moved[:, inside]) >= least, fraction
        # Control: the per-ray model re-draws its scatterers under the same move.
        control = per_ray_profiles(sonar, flat)
        assert correlation(control_still[:, inside], control[:, inside]) < 0.5, fraction


def chi_square(pings: NDArray[np.float64], reference: NDArray[np.float64], inside: slice) -> float:
    """The mean squared z-score of the pings' mean against ``reference``, bin by bin."""
    mean = pings.mean(axis=0)
    error = pings.std(axis=0) / math.sqrt(pings.shape[0])
    z = (mean - reference)[:, inside] / error[:, inside]
    return float(np.mean(z**2))


def test_the_mean_over_seeds_is_the_incoherent_image(flat: Raycaster) -> None:
    """Bin by bin within the mean's spread; the one-way pattern's mean is rejected."""
    reference = SidescanSonar(SIDESCAN_ECHO, sidescan_sonar(0).config, LEVEL).ping(flat).profiles
    inside = seabed_bins(reference)
    right, wrong = [], []
    for seed in range(SEEDS):
        sonar = sidescan_sonar(seed)
        right.append(sonar.ping(flat).profiles)
        engine = channel_engine(sonar)
        two_way = engine.pattern

        def one_way(
            body: NDArray[np.float64], heard: object = two_way
        ) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
            channel, weight = heard(body)  # type: ignore[operator]
            return channel, np.sqrt(weight)

        engine.pattern = one_way
        wrong.append(sonar.ping(flat).profiles)
    pings, control = np.stack(right), np.stack(wrong)
    assert chi_square(pings, reference, inside) < 2.0  # 1.08 measured
    assert chi_square(control, reference, inside) > 3.0  # 4.5 measured
    # Each channel's seabed energy: within 3 % (0.5 % and 1.4 % measured); the control's
    # is 1.9 times it.
    energy = reference[:, inside].sum(axis=1)
    assert pings.mean(axis=0)[:, inside].sum(axis=1) / energy == pytest.approx(1.0, abs=0.03)
    assert np.all(control.mean(axis=0)[:, inside].sum(axis=1) / energy > 1.5)
    # Each ping is speckled: the seabed's bins scatter as an exponential (index about 1),
    # where the incoherent profile is smooth (index near 0).
    normalised = pings[:, :, inside] / reference[None, :, inside]
    index = float(np.mean(normalised**2) / np.mean(normalised) ** 2 - 1.0)
    assert index == pytest.approx(1.0, abs=0.15)
    assert float(np.var(reference[:, inside] / pings.mean(axis=0)[:, inside])) < 0.05


def test_the_shadow_of_a_box_stays_dark(tmp_path: Path) -> None:
    """Port: the box's shadow (incoherent 0) holds under 1e-3 of the seabed's mean level in
    the coherent ping; heard through no depth map the scatterers there fill it in."""
    caster = Raycaster(load_world(seabed_world(tmp_path, box=True)))
    sonar = sidescan_sonar(0)
    reference = SidescanSonar(SIDESCAN_ECHO, sonar.config, LEVEL).ping(caster).profiles
    inside = seabed_bins(reference)
    lit = reference[0, inside] > 0.0
    dark = np.flatnonzero(~lit) + inside.start
    assert dark.size > 10  # the shadow, 22.3 to 24.8 m
    shadow = slice(int(dark[0]) + 2, int(dark[-1]) - 1)  # a pulse inside its edges
    level = float(np.mean(reference[0, inside][lit]))
    coherent = sonar.ping(caster).profiles
    assert float(coherent[0, shadow].max()) < 1e-3 * level
    # Control: every scatterer heard, hidden or not.
    lighting = sonar._lighting
    assert lighting is not None
    cast = lighting.lit

    def unoccluded(*args: Any) -> SeenSurfaces | None:
        lit = cast(*args)
        everything = lambda body, r: np.ones(r.size, dtype=bool)  # noqa: E731
        return None if lit is None else dataclasses.replace(lit, visible=everything)

    lighting.lit = unoccluded  # type: ignore[method-assign]
    unhidden = sonar.ping(caster).profiles
    assert float(unhidden[0, shadow].mean()) > 0.1 * level


def test_the_scatterers_stay_in_the_world(flat: Raycaster) -> None:
    """A new sonar (its cache cold) and one that went 1 m away and back give the same ping
    bit for bit; another seed another one (the control)."""
    first = sidescan_sonar(0).ping(flat)
    sonar = sidescan_sonar(0)
    sonar.ping(flat)
    sonar.set_pose(pitched(10.0, 0.0, 1.0, 0.5))
    away = sonar.ping(flat)
    sonar.set_pose(LEVEL)
    back = sonar.ping(flat)
    assert first.echo is not None
    assert back.echo is not None
    assert first.echo.coherent is not None
    assert back.echo.coherent is not None
    assert np.array_equal(first.echo.coherent.baseband, back.echo.coherent.baseband)
    assert not np.array_equal(first.profiles, away.profiles)
    # Control: another seed's speckle is another (each over the mean, the incoherent image).
    mean = SidescanSonar(SIDESCAN_ECHO, sonar.config, LEVEL).ping(flat).profiles
    inside = seabed_bins(mean)
    other = sidescan_sonar(1).ping(flat).profiles
    speckle = first.profiles[:, inside] / mean[:, inside]
    assert correlation(speckle, other[:, inside] / mean[:, inside]) < 0.2
    assert correlation(speckle, back.profiles[:, inside] / mean[:, inside]) > 0.999
