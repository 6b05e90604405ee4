"""The seabed's K texture on the fixed scatterers (docs/seabed.md, issue 34 item 3).

A coherent side-scan (``coherent_scenes``: 400 kHz, a 7 kHz chirp, 0.1 m bins to 40 m, level
10 m over a flat Lambert seabed; 0.3 degrees along track) hears the scatterers fixed on the
seabed, each weighted by the texture ``T`` of its place: a gamma variate of shape ``nu`` and
mean 1 fixed to the surface, in patches of ``PATCH`` m, larger than a resolution cell
(0.11 m by at most 0.2 m over the bins used). A bin's intensity is then ``T`` times
exponential speckle, K-distributed, whose scintillation index is ``E[T**2] E[S**2] - 1 =
(1 + 1/nu) 2 - 1 = 1 + 2/nu``: worked out here, not read from the code. Checks, each with a
negative control:

* the index over the seabed's bins of 40 texture realisations is ``1 + 2/nu`` (5, 3, 1.4)
  within three of its standard errors (a jackknife over the realisations); the control, a
  texture in patches far smaller than a cell (averaged away within each cell), is rejected;
* the mean is unchanged: with the same scatterers, the textured image's energy over the
  untextured one's is 1 within its spread; the control, ``T`` on the amplitude (``T**2`` on
  the power, mean ``1 + 1/nu``), is rejected;
* no texture (``nu`` past ``RAYLEIGH_SHAPE``) is the Rayleigh model bit for bit; the control
  ``nu = 50`` is not;
* the texture stays in the world: after a quarter wavelength's move the image correlates
  >= 0.99; the control, a texture drawn anew for the moved ping, < 0.9;
* the formed fan (``coherent_scenes.fan_sonar`` with its line array) carries it too: its
  bins sum correlated samples, so its own speckle index ``s`` is under 1 (0.53), and its
  index over a textured floor is ``E[T**2] (1 + s) - 1 = (1 + 1/nu)(1 + s) - 1``; the
  control, patches under a cell, is rejected;
* bent rays (a sound-speed profile) hand the scatterers the untextured law too.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from coherent_scenes import LEVEL, SIDESCAN_ECHO, beam_array, chirp, fan_sonar, pitched
from numpy.typing import NDArray

from nps_sonar_py.echo import surface_echoes
from nps_sonar_py.echo.sound_speed import SoundSpeedProfile
from nps_sonar_py.scene import Raycaster, parse_world
from nps_sonar_py.sensing.caster import SurfaceCaster
from nps_sonar_py.sensing.refraction import RefractingCaster
from nps_sonar_py.sensing.seabed_caster import seabed_caster
from nps_sonar_py.sensing.sidescan import SidescanConfig, SidescanSonar

SEEDS = 40
#: The texture's correlation length, m: a patch.
PATCH = 2.0
#: The control's patches, far smaller than a cell.
SPECK = 0.01
#: The bins used: 15 to 39 m of slant range (11 to 38 m across the seabed).
INSIDE = slice(150, 390)
CONFIG = SidescanConfig(
    rays_per_bin=8, min_altitude=5.0, max_altitude=15.0, horizontal_width=math.radians(0.3)
)


@functools.lru_cache(maxsize=32)
def floor(shape: str, patch: float = PATCH, seed: int = 0) -> SurfaceCaster:
    """A 400 m Lambert floor z = 0 of texture ``shape`` (``texture_shape``), through the hook."""
    texture = f'texture_shape="{shape}" texture_patch="{patch}" texture_seed="{seed}"'
    world = parse_world(f"""<world name="w"><model name="floor">
<seabed model="lambert" lambert_db="-20" {texture}/><robot name="f"><link name="f">
<collision><origin xyz="0 0 -0.5"/><geometry><box size="400 400 1"/></geometry></collision>
</link></robot></model></world>""")
    return seabed_caster(Raycaster(world), SIDESCAN_ECHO.frequency, 1500.0)


def sonar(seed: int, coherent: bool = True) -> SidescanSonar:
    """The side-scan level 10 m up, with scatterer seed ``seed`` (incoherent: ``False``)."""
    model = chirp(5e-3, 7e3, scatterer_seed=seed) if coherent else None
    return SidescanSonar(SIDESCAN_ECHO, CONFIG, LEVEL, coherent=model)


@functools.lru_cache(maxsize=1)
def reference() -> NDArray[np.float64]:
    """The incoherent image of the untextured floor: each bin's mean level."""
    return sonar(0, coherent=False).ping(floor('')).profiles[:, INSIDE]


def normalised(shape: str, patch: float = PATCH) -> NDArray[np.float64]:
    """(seeds, 2, bins) coherent images over ``SEEDS`` realisations of texture and scatterers,
    over the mean level."""
    images = [
        sonar(seed).ping(floor(shape, patch, seed)).profiles[:, INSIDE] for seed in range(SEEDS)
    ]
    return np.stack(images) / reference()[None]


def scintillation(n: NDArray[np.float64]) -> tuple[float, float]:
    """The index ``<I**2> / <I>**2 - 1`` of all bins, and its jackknife standard error over
    the realisations (the first axis)."""
    square, mean = (n**2).reshape(len(n), -1).mean(axis=1), n.reshape(len(n), -1).mean(axis=1)
    k = len(n)
    leave = [
        (square.sum() - square[i]) / (k - 1) / ((mean.sum() - mean[i]) / (k - 1)) ** 2 - 1.0
        for i in range(k)
    ]
    spread = math.sqrt((k - 1) / k * float(np.sum((np.array(leave) - np.mean(leave)) ** 2)))
    return float(square.mean() / mean.mean() ** 2 - 1.0), spread


@pytest.mark.parametrize('nu', [0.5, 1.0, 5.0])
def test_scintillation_index_is_one_plus_two_over_nu(nu: float) -> None:
    expected = 1.0 + 2.0 / nu  # K: E[T**2] E[S**2] - 1, T gamma (1 + 1/nu), S exponential (2)
    index, spread = scintillation(normalised(f'0 {nu}'))
    assert abs(index - expected) < 3.0 * spread, (index, spread)
    assert spread < 0.15 * expected  # the test can tell
    # Control: patches far smaller than a cell; each cell averages the texture away.
    control, _ = scintillation(normalised(f'0 {nu}', SPECK))
    assert abs(control - expected) > 3.0 * spread, (control, spread)


def test_the_mean_is_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same scatterers with and without texture: the energies' ratio is 1 (nu = 1)."""
    plain = np.stack([sonar(seed).ping(floor('')).profiles[:, INSIDE] for seed in range(SEEDS)])

    def ratios() -> NDArray[np.float64]:
        textured = [
            sonar(seed).ping(floor('0 1', PATCH, seed)).profiles[:, INSIDE]
            for seed in range(SEEDS)
        ]
        return np.stack(textured).sum(axis=(1, 2)) / plain.sum(axis=(1, 2))

    right = ratios()
    error = float(right.std(ddof=1)) / math.sqrt(SEEDS)
    assert abs(float(right.mean()) - 1.0) < 3.0 * error, (right.mean(), error)
    assert error < 0.15
    # Control: T on the amplitude (its square on the power: mean 1 + 1/nu = 2).
    texture = surface_echoes.scatterer_texture
    monkeypatch.setattr(surface_echoes, 'scatterer_texture', lambda *args: texture(*args) ** 2)
    assert abs(float(ratios().mean()) - 1.0) > 3.0 * error


def test_no_texture_is_the_rayleigh_model_bit_for_bit() -> None:
    """``nu`` at ``RAYLEIGH_SHAPE`` (T = 1) and no texture give the same baseband."""
    plain = floor('')
    assert plain.cast(np.zeros(3), np.array([[0.0, 0.6, -0.8]])).untextured is None
    none = sonar(3).ping(plain)
    rayleigh = sonar(3).ping(floor('0 10000'))
    assert np.array_equal(none.profiles, rayleigh.profiles)
    assert none.echo is not None
    assert rayleigh.echo is not None
    a, b = none.echo.coherent, rayleigh.echo.coherent
    assert a is not None
    assert b is not None
    assert np.array_equal(a.baseband, b.baseband)
    # Control: a texture (nu = 50) changes it.
    assert not np.array_equal(none.profiles, sonar(3).ping(floor('0 50')).profiles)


def test_bent_rays_hand_on_the_untextured_law() -> None:
    """Through a sound-speed profile the scatterers still get the law without the texture."""
    textured = floor('0 0.5')
    directions = np.array([[0.0, 0.6, -0.8], [0.3, -0.5, -0.8124]])
    straight = textured.cast(np.array([0.0, 0.0, 10.0]), directions)
    profile = SoundSpeedProfile(np.array([0.0, 50.0]), np.array([1500.0, 1490.0]))
    bent = RefractingCaster(textured, profile, surface_z=20.0).cast(
        np.array([0.0, 0.0, 10.0]), directions
    )
    assert straight.untextured is not None
    assert bent.untextured is not None  # (a caster that dropped it would give None here)
    # Control: the textured law differs from it on both casts (T is not 1 there).
    assert not np.allclose(straight.reflectivity, straight.untextured)
    assert not np.allclose(bent.reflectivity, bent.untextured)
    # Bent and straight rays meet the floor at nearly the same grazing angles.
    assert np.allclose(bent.untextured, straight.untextured, rtol=0.05)


@pytest.mark.parametrize('axis', [0, 1])
def test_the_texture_stays_in_the_world(axis: int) -> None:
    """nu = 0.5: a quarter wavelength along track (x) or across (y) keeps the image."""
    moved = sonar(0)
    still = moved.ping(floor('0 0.5')).profiles[:, INSIDE]
    xyz = [0.0, 0.0, 10.0]
    xyz[axis] += 0.25 * SIDESCAN_ECHO.wavelength
    moved.set_pose(pitched(xyz[2], 0.0, xyz[0], xyz[1]))
    after = moved.ping(floor('0 0.5')).profiles[:, INSIDE]
    assert np.corrcoef(still.ravel(), after.ravel())[0, 1] >= 0.99
    # Control: a texture drawn anew for the moved ping (another realisation).
    redrawn = moved.ping(floor('0 0.5', PATCH, 1)).profiles[:, INSIDE]
    assert np.corrcoef(still.ravel(), redrawn.ravel())[0, 1] < 0.9


def test_the_formed_fan_carries_the_texture() -> None:
    """nu = 1 in 6 m patches over 20 realisations: ``(1 + 1/nu)(1 + s) - 1``."""
    array = beam_array(math.radians(2.0))
    reference = fan_sonar(None).ping(floor('')).profiles
    lit = reference > 0.05 * reference.max()

    def index(shape: str, patch: float) -> tuple[float, float]:
        images = [
            fan_sonar(chirp(1e-3, 15e3, scatterer_seed=seed, array=array))
            .ping(floor(shape, patch, seed))
            .profiles[lit]
            for seed in range(20)
        ]
        return scintillation(np.stack(images) / reference[lit][None])

    plain, plain_spread = index('', PATCH)
    expected = 2.0 * (1.0 + plain) - 1.0  # E[T**2] = 2 at nu = 1
    textured, spread = index('0 1', 6.0)
    allowed = 3.0 * (spread + 2.0 * plain_spread)
    assert abs(textured - expected) < allowed, (textured, expected, allowed)
    control, _ = index('0 1', SPECK)  # Control: patches under a cell
    assert abs(control - expected) > allowed, (control, expected)
