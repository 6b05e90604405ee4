"""The seabed law's hook: seabed hits get their sediment's law, every other hit is untouched.

Real Open3D scenes; the ripples shown in the level of a grid of hits, as an image would.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from nps_sonar_py.devices.rig import medium_caster
from nps_sonar_py.devices.settings import BeamSettings
from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig
from nps_sonar_py.echo.sediment import SEDIMENTS, backscatter_cross_section
from nps_sonar_py.scene import Raycaster, parse_world
from nps_sonar_py.sensing.seabed_caster import SeabedCaster, seabed_caster
from nps_sonar_py.sensing.sidescan import SidescanConfig, SidescanSonar


def _scene(seabed: str) -> Raycaster:
    """A 400 m floor whose top is z = 0, carrying ``seabed``, and a block without one."""
    return Raycaster(
        parse_world(f"""<world name="w">
<model name="floor">{seabed}<robot name="f"><link name="f"><collision><origin xyz="0 0 -0.5"/>
<geometry><box size="400 400 1"/></geometry></collision></link></robot></model>
<model name="block" retro="120"><robot name="b"><link name="b"><collision>
<origin xyz="0 -30 1"/><geometry><box size="2 2 2"/></geometry></collision></link></robot></model>
</world>""")
    )


def _grid_rays(grazing: float, size: float, step: float) -> tuple[np.ndarray, np.ndarray, int]:
    """Parallel rays going down along +x at ``grazing`` rad onto a square grid of z = 0."""
    ticks = np.arange(0.0, size, step)
    x, y = np.meshgrid(ticks, ticks)  # rows: y, columns: x
    targets = np.stack([x.ravel(), y.ravel(), np.zeros(x.size)], axis=1)
    d = np.array([math.cos(grazing), 0.0, -math.sin(grazing)])
    origins = targets - 10.0 * d
    return origins, np.tile(d, (targets.shape[0], 1)), ticks.size


def test_other_surfaces_are_untouched_and_a_world_without_seabeds_is_not_wrapped() -> None:
    plain = _scene('')
    assert seabed_caster(plain, 300e3, 1500.0) is plain
    raycaster = _scene('<seabed sediment="sand"/>')
    caster = seabed_caster(raycaster, 300e3, 1500.0)
    assert isinstance(caster, SeabedCaster)
    origin = np.array([0.0, 0.0, 1.0])
    angles = np.radians(np.linspace(-95.0, -85.0, 400))  # toward the block at y = -30
    down = np.concatenate([np.full(200, -0.01), np.full(200, -0.5)])  # the block, the floor
    directions = np.stack([np.cos(angles), np.sin(angles), down], axis=1)
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    raw, hits = raycaster.cast(origin, directions), caster.cast(origin, directions)
    block = hits.entity == 1
    assert block.any()
    assert (hits.entity == 0).any()
    assert np.array_equal(hits.reflectivity[block], raw.reflectivity[block])  # bit for bit
    assert np.array_equal(hits.ranges, raw.ranges)
    assert not np.allclose(hits.reflectivity[hits.entity == 0], raw.reflectivity[~block])


def test_the_rig_wraps_a_world_with_seabeds_at_the_beams_frequency() -> None:
    raycaster = _scene('<seabed sediment="silt" texture_shape="" extrapolate="true"/>')
    caster = medium_caster(raycaster, BeamSettings(frequency=300e3, sound_speed=1500.0))
    assert isinstance(caster, SeabedCaster)
    grazing = np.radians([10.0, 30.0, 60.0])
    d = np.stack([np.cos(grazing), np.zeros(3), -np.sin(grazing)], axis=1)
    hits = caster.cast(np.array([0.0, 0.0, 5.0]), d)
    sigma = backscatter_cross_section(SEDIMENTS['silt'], grazing, 300e3)
    # The echo law's surface term mu cos(alpha) is sigma over sin(theta): the footprint's.
    law = hits.reflectivity * np.asarray(hits.cos_incidence)
    assert np.allclose(law, sigma / np.sin(grazing), rtol=1e-3)
    assert medium_caster(_scene(''), BeamSettings()) is not None


def _level_image(direction: float, ripples: bool) -> tuple[np.ndarray, float]:
    wave = 'ripple_wavelength="0.5" ripple_height="0.04"' if ripples else ''
    seabed = f'<seabed model="lambert" texture_shape="" {wave} ripple_direction="{direction}"/>'
    caster = seabed_caster(_scene(seabed), 300e3, 1500.0)
    step = 0.05
    origins, directions, n = _grid_rays(math.radians(20.0), 6.0, step)
    hits = caster.cast(origins, directions)
    level = np.asarray(hits.reflectivity) * np.asarray(hits.cos_incidence)  # the law's term
    return level.reshape(n, n), step


def _peak_wavelength(profile: np.ndarray, step: float) -> tuple[float, float]:
    """The wavelength of the strongest Fourier component of ``profile`` and its share."""
    spectrum = np.abs(np.fft.rfft(profile - profile.mean())) ** 2
    frequencies = np.fft.rfftfreq(profile.size, step)
    peak = int(np.argmax(spectrum[1:])) + 1
    return 1.0 / frequencies[peak], float(spectrum[peak] / max(spectrum.sum(), 1e-300))


@pytest.mark.parametrize(('direction', 'period'), [(0.0, 0.5), (math.pi / 2, 0.25)])
def test_the_level_modulates_with_the_ripples_along_their_direction_only(
    direction: float, period: float
) -> None:
    # The rays go along +x. Ripples across them (direction 0) modulate the level with their
    # wavelength along x; ripples along them (pi / 2) tilt the facets sideways, both flanks
    # alike: the level modulates at half the wavelength along y. Never along the crests.
    image, step = _level_image(direction, ripples=True)
    along_x = image.mean(axis=0)  # the level against x, averaged over y
    along_y = image.mean(axis=1)
    modulated, steady = (along_x, along_y) if direction == 0.0 else (along_y, along_x)
    wavelength, share = _peak_wavelength(modulated, step)
    assert wavelength == pytest.approx(period, rel=0.05)
    assert share > 0.5
    assert np.std(modulated) > 0.01 * np.mean(modulated)
    assert np.std(steady) < 1e-6 * np.mean(steady)  # along the crests: no modulation
    # Negative control: the same seabed without ripples is level both ways.
    flat, _ = _level_image(direction, ripples=False)
    assert np.std(flat) < 1e-6 * np.mean(flat)


def _sidescan_profile(seabed: str) -> tuple[np.ndarray, np.ndarray]:
    """A side-scan ping over the floor at 5 m altitude: (bin centres, one channel's profile)."""
    echo = EchoConfig(
        pattern=BeamPattern.PISTON,
        absorption=Absorption.NONE,
        min_range=0.0,
        max_range=30.0,
        n_bins=3000,
        frequency=300e3,
        beam_width=math.radians(1.0),
    )
    config = SidescanConfig(tilt=math.radians(20.0), vertical_width=math.radians(50.0))
    pose = np.eye(4)
    pose[2, 3] = 5.0
    sonar = SidescanSonar(echo, config, pose)
    ping = sonar.ping(seabed_caster(_scene(seabed), 300e3, 1500.0))
    return sonar.model.bin_centres, np.asarray(ping.profiles)[1]


@pytest.mark.parametrize('ripples', ['across', 'along', 'none'])
def test_a_sidescan_image_shows_ripples_across_its_track(ripples: str) -> None:
    # Ripples across the track (their wave vector along y, the side-scan's look direction)
    # modulate the profile with their wavelength in ground range; ripples along the track
    # (wave vector along x) are averaged along the beam and leave the profile as smooth as
    # a seabed without ripples (the negative control).
    wave = {'across': 'ripple_direction="1.5707963"', 'along': 'ripple_direction="0"'}
    extra = (
        ''
        if ripples == 'none'
        else f'ripple_wavelength="0.5" ripple_height="0.03" {wave[ripples]}'
    )
    centres, profile = _sidescan_profile(f'<seabed model="lambert" texture_shape="" {extra}/>')
    ground = np.sqrt(np.maximum(centres**2 - 25.0, 0.0))
    lit = (ground > 8.0) & (ground < 20.0) & (profile > 0.0)
    uniform = np.arange(8.0, 20.0, 0.02)
    level = np.interp(uniform, ground[lit], np.log(profile[lit]))
    trend = np.polyval(np.polyfit(uniform, level, 3), uniform)
    wavelength, share = _peak_wavelength(level - trend, 0.02)
    wiggle = float(np.std(level - trend))
    if ripples == 'across':
        assert wavelength == pytest.approx(0.5, rel=0.05)
        assert share > 0.3
        assert wiggle > 0.05  # several percent of the level
    else:
        assert wiggle < 0.01
