"""A scatterer's images in the seabed, heard by the coherent side-scan (docs/multipath.md).

One fixed scatterer (a thin vertical triangle of area ``0.999 / rho``: one scatterer) 4 m
over a flat sand seabed, 25 m across track from a side-scan 10 m up, its face towards the
sonar. Worked here from the geometry: the image ``P' = P - 2 z e_z`` at
``r_i = sqrt(y**2 + (h + z)**2)``; the two one-bounce paths arrive together at
``(r_d + r_i) / 2`` with the same phase, so their amplitudes add: ``2 R`` times the direct
one, times ``sqrt(cos_i / cos_d) r_d / r_i`` (Lambert's bistatic law and the longer way) and
the pattern's ``(w_i / w_d)**(1/4)``; the two-bounce path at ``r_i`` takes ``R**2``,
``cos_i / cos_d (r_d / r_i)**2`` and ``sqrt(w_i / w_d)``. ``R`` is the sand's Rayleigh
coefficient at the grazing angle ``atan((h + z) / y)`` (``sediment.reflection_coefficient``,
checked against its closed forms in ``test/echo/test_sediment.py``), 29 degrees: under the
critical angle, ``|R|`` near 1. Controls: the paths off (``seabed_images`` false), a
sediment matched to the water (density and sound speed ratios 1, no loss: ``R = 0``), a box
on the seabed that hides the bounce point, and the two one-bounce paths added as
intensities (3 dB under the coherent sum, rejected). The sand here is flat (no roughness);
a rough one keeps the coherent part of its mirror (``rough_mirror``), and a wall between the
bounce point and the scatterer silences the images (control: the legs left uncast).
"""

from __future__ import annotations

import math
from dataclasses import astuple, replace

import numpy as np
import pytest
from coherent_scenes import lossless_echo
from numpy.typing import NDArray
from seabed_image_paths import flat, image_paths, plate_over_seabed, rough_mirror

from nps_sonar_py.echo import BeamPattern, beam_intensity, seabed_images
from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.pulse import Pulse, PulseKind, PulseWindow
from nps_sonar_py.echo.seabed import BackscatterModel, Seabed
from nps_sonar_py.echo.seabed_diffuse import NONE, Bounces, Diffuse
from nps_sonar_py.echo.sediment import SEDIMENTS, reflection_coefficient, with_overrides
from nps_sonar_py.scene import Entity, EntityState, Raycaster, SceneState, World
from nps_sonar_py.scene.tessellation import Triangles, box_triangles
from nps_sonar_py.sensing import fan_lighting
from nps_sonar_py.sensing.seabed_caster import seabed_caster
from nps_sonar_py.sensing.sidescan import SidescanConfig, SidescanSonar
from nps_sonar_py.sensing.sweep import ScanningSonar, SweepConfig
from nps_sonar_py.transforms import transform_from_xyz_rpy

H, Z, Y = 10.0, 4.0, 25.0  # the sonar's height, the scatterer's, its ground range (port)
Hiding = tuple[tuple[float, float, float], tuple[float, float, float]] | None
LENGTH, TALL = 0.6, 0.04  # the triangle along track and up, m
DENSITY = 0.999 / (0.5 * LENGTH * TALL)  # one scatterer on it
FREQUENCY = 400e3
#: Flat sand (no roughness: its whole Rayleigh mirror); the rough seabed's test gives its own.
SAND = Seabed(sediment=flat(SEDIMENTS['sand']), model=BackscatterModel.LAMBERT, lambert_db=-100.0)
CONFIG = SidescanConfig(
    horizontal_width=math.radians(10.0), rays_per_bin=8, min_altitude=5.0, max_altitude=15.0
)
ECHO = lossless_echo(0.0, 40.0, 400, FREQUENCY, pattern=BeamPattern.PISTON)


def plate() -> Triangles:
    """The thin triangle, its face towards -y (the sonar), its base at ``Z``."""
    v = np.array([[-0.5 * LENGTH, Y, Z], [0.5 * LENGTH, Y, Z], [0.0, Y, Z + TALL]])
    return Triangles(v, np.array([[0, 1, 2]], dtype=np.int64))


#: A box on the seabed, 1.5 m tall, from 16.5 to 19 m across track, over the bounce point
#: (at 17.86 m); a wall 3 m tall at 21.5 m across, between the bounce point and the
#: scatterer: the leg up to it passes 2.0 m up there, the direct way 4.8 m up.
HIDING = ((4.0, 2.5, 1.5), (0.0, 17.75, 0.75))
WALL = ((4.0, 0.05, 3.0), (0.0, 21.5, 1.5))


def world(hiding: Hiding = None, seabed: Seabed = SAND) -> Raycaster:
    """The sand seabed (its top at z = 0), the triangle and the box ``hiding`` (or none)."""
    return plate_over_seabed(plate(), seabed, (0.0, 0.0), hiding)


def port_profile(
    hiding: Hiding = None, images: bool = True, seabed: Seabed = SAND
) -> NDArray[np.float64]:
    """The port channel's profile of one coherent ping, 0.1 m bins to 40 m, no noise."""
    pulse = Pulse(PulseKind.CHIRP, 5e-3, 7e3, PulseWindow.HANN)
    coherent = CoherentConfig.of(pulse=pulse, scatterer_density=DENSITY, seabed_images=images)
    pose = transform_from_xyz_rpy([0.0, 0.0, H], [0.0, 0.0, 0.0])
    sonar = SidescanSonar(ECHO, CONFIG, pose, coherent=coherent)
    caster = seabed_caster(world(hiding, seabed), FREQUENCY, ECHO.speed_of_sound)
    return np.asarray(sonar.ping(caster).profiles[0], dtype=np.float64)


def two_way(depression: float) -> float:
    """The port fan's two-way pattern at ``depression`` on its axis along track."""
    across = beam_intensity(
        CONFIG.vertical_pattern, abs(depression - CONFIG.tilt), CONFIG.vertical_width, 1
    )
    return float(across) ** ECHO.n_way


#: The geometry, worked here: direct and image ranges, the one-bounce range, the cosines
#: of the legs on the face (its normal along y), the patterns, the sand's R.
ZC = Z + TALL / 3.0
PATHS = image_paths(Y, H, ZC, two_way, SAND.sediment)
R_D, R_I, R_1, COS_D, COS_I, W_D, W_I, R_SAND = astuple(PATHS)
ONE_DB, TWO_DB = PATHS.one_db, PATHS.two_db
SIN_I = (H + ZC) / R_I  # the sine of the bounce's grazing angle


def peak(profile: NDArray[np.float64], at: float) -> tuple[float, float]:
    """The energy of the bins within 0.5 m of ``at`` and the centre of its strongest bin."""
    centres = 0.5 * (ECHO_EDGES[:-1] + ECHO_EDGES[1:])
    near = np.flatnonzero(np.abs(centres - at) <= 0.5)
    return float(profile[near].sum()), float(centres[near[np.argmax(profile[near])]])


ECHO_EDGES = np.linspace(ECHO.min_range, ECHO.max_range, ECHO.n_bins + 1)


@pytest.fixture(scope='module')
def heard() -> NDArray[np.float64]:
    return port_profile()


def test_the_images_arrive_at_their_ranges_at_their_levels(heard: NDArray[np.float64]) -> None:
    assert R_SAND > 0.8  # under the critical angle (31.9 degrees): a strong mirror
    direct, at_direct = peak(heard, R_D)
    one, at_one = peak(heard, R_1)
    two, at_two = peak(heard, R_I)
    assert direct > 0.0
    bin_width = ECHO_EDGES[1] - ECHO_EDGES[0]
    assert abs(at_direct - R_D) <= bin_width
    assert abs(at_one - R_1) <= bin_width
    assert abs(at_two - R_I) <= bin_width
    assert 10 * math.log10(one / direct) == pytest.approx(ONE_DB, abs=0.5)
    assert 10 * math.log10(two / direct) == pytest.approx(TWO_DB, abs=0.5)
    # Control: the one-bounce paths added as intensities, 3 dB under the coherent sum.
    assert abs(10 * math.log10(one / direct) - (ONE_DB - 10 * math.log10(2.0))) > 2.0


def test_without_the_paths_there_is_no_image(heard: NDArray[np.float64]) -> None:
    plain = port_profile(images=False)
    direct = peak(plain, R_D)[0]
    assert direct == pytest.approx(peak(heard, R_D)[0], rel=0.05)
    assert peak(plain, R_1)[0] < 1e-4 * direct
    assert peak(plain, R_I)[0] < 1e-4 * direct


def test_a_hidden_bounce_point_gives_no_image() -> None:
    hidden = port_profile(hiding=HIDING)
    direct = peak(hidden, R_D)[0]
    assert direct > 0.0
    assert peak(hidden, R_1)[0] < 1e-4 * direct
    assert peak(hidden, R_I)[0] < 1e-4 * direct


def test_a_seabed_matched_to_the_water_mirrors_nothing() -> None:
    water = with_overrides(
        SAND.sediment, density_ratio=1.0, sound_speed_ratio=1.0, loss_parameter=0.0
    )
    assert abs(complex(reflection_coefficient(water, math.atan2(H + ZC, Y)))) == 0.0
    matched = port_profile(seabed=Seabed(sediment=water, model=SAND.model, lambert_db=-100.0))
    direct = peak(matched, R_D)[0]
    assert direct > 0.0
    assert peak(matched, R_1)[0] < 1e-4 * direct
    assert peak(matched, R_I)[0] < 1e-4 * direct


def test_a_rough_seabed_keeps_the_coherent_part_of_the_images() -> None:
    """A smoother sand (``w2`` 2e-6, its other parameters the sand's): each bounce keeps
    ``exp(-2 k**2 sigma**2 sin**2 theta)`` of its amplitude (``rough_mirror``: the rms height
    over the bounce's first Fresnel zone), worked here: about -4 dB a bounce at 400 kHz.
    Control: the flat mirror's levels (the model without the factor) are rejected."""
    smoother = replace(SAND, sediment=with_overrides(SEDIMENTS['sand'], spectral_strength=2e-6))
    d1, d2 = R_I * H / (H + ZC), R_I * ZC / (H + ZC)
    loss = 20 * math.log10(rough_mirror(smoother.sediment, ECHO.wavelength, d1, d2, SIN_I))
    assert -6.0 < loss < -2.0
    heard = port_profile(seabed=smoother)
    direct = peak(heard, R_D)[0]
    one, two = peak(heard, R_1)[0], peak(heard, R_I)[0]
    assert 10 * math.log10(one / direct) == pytest.approx(ONE_DB + loss, abs=0.5)
    assert 10 * math.log10(two / direct) == pytest.approx(TWO_DB + 2 * loss, abs=0.5)
    assert abs(10 * math.log10(one / direct) - ONE_DB) > 2.0  # control: the flat mirror
    assert abs(10 * math.log10(two / direct) - TWO_DB) > 2.0


def no_lobe(bounces: Bounces, *_: object) -> Diffuse:
    """The rough seabed's diffuse paths left out: the coherent images alone."""
    return NONE


def test_a_sand_floor_at_its_own_roughness_mirrors_nothing_at_400_khz(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Medium sand's own spectrum: ``k sigma sin theta`` of about 4, the coherent images
    vanish (the diffuse lobe left out: under 1e-4 of the direct echo at their ranges). With
    the lobe (``test/echo/test_seabed_diffuse.py`` checks it against closed forms), the
    profile holds 0.3 to 1 times the direct echo's peak from the one-bounce range on and
    nothing between it and the direct echo (no path by the seabed is shorter than the
    specular one). Control: the coherent images alone hear nothing there."""
    d1, d2 = R_I * H / (H + ZC), R_I * ZC / (H + ZC)
    assert rough_mirror(SEDIMENTS['sand'], ECHO.wavelength, d1, d2, SIN_I) < 1e-10
    rough = replace(SAND, sediment=SEDIMENTS['sand'])
    heard = port_profile(seabed=rough)
    direct = peak(heard, R_D)[0]
    assert direct > 0.0
    centres = 0.5 * (ECHO_EDGES[:-1] + ECHO_EDGES[1:])
    after = (centres >= R_1 - 0.05) & (centres <= R_I + 3.0)
    between = (centres > R_D + 0.3) & (centres < R_1 - 0.3)
    # The lobe's energy over the direct echo's peak: 0.62 by the closed form's figures
    # (docs/multipath.md); a lobe a few times too weak or too strong is rejected.
    assert 0.3 * direct < heard[after].sum() < 1.0 * direct
    assert heard[between].sum() < 1e-3 * direct
    monkeypatch.setattr(seabed_images, 'diffuse_paths', no_lobe)
    coherent = port_profile(seabed=rough)
    assert peak(coherent, R_D)[0] == pytest.approx(direct, rel=1e-6)
    assert peak(coherent, R_1)[0] < 1e-4 * direct
    assert peak(coherent, R_I)[0] < 1e-4 * direct
    assert coherent[after].sum() < 1e-3 * direct


def every_leg_clear(
    _: object, starts: NDArray[np.float64], ends: NDArray[np.float64]
) -> NDArray[np.bool_]:
    """The control's legs: not cast, every one taken as clear (the model before the cast)."""
    return np.ones(starts.shape[0], dtype=bool)


def test_a_wall_between_the_bounce_point_and_the_scatterer_silences_its_images(
    heard: NDArray[np.float64], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The leg from the bounce point up to the scatterer is cast: a wall across it leaves
    nothing at either image's range; the direct echo passes over it. Without the wall the
    images are at the closed form's levels (the first test). Control: legs left uncast
    (every leg taken as clear) hear the images through the wall at those levels."""
    walled = port_profile(hiding=WALL)
    direct = peak(walled, R_D)[0]
    assert direct == pytest.approx(peak(heard, R_D)[0], rel=0.05)
    assert peak(walled, R_1)[0] < 1e-4 * direct
    assert peak(walled, R_I)[0] < 1e-4 * direct
    monkeypatch.setattr(fan_lighting, 'clear_to_seabed', every_leg_clear)
    uncast = port_profile(hiding=WALL)
    assert 10 * math.log10(peak(uncast, R_1)[0] / direct) == pytest.approx(ONE_DB, abs=0.5)
    assert 10 * math.log10(peak(uncast, R_I)[0] / direct) == pytest.approx(TWO_DB, abs=0.5)


def sweep_profile(images: bool) -> NDArray[np.float64]:
    """A 40 degree coherent head's ping at a 0.6 m plate where the triangle is, both the
    plate and its image in the head's cone (pitched 21 degrees down, yawed to port)."""
    echo = lossless_echo(0.0, 40.0, 400, FREQUENCY, beam_width=math.radians(40.0))
    pulse = Pulse(PulseKind.CHIRP, 5e-3, 7e3, PulseWindow.HANN)
    coherent = CoherentConfig.of(pulse=pulse, scatterer_density=50.0, seabed_images=images)
    pose = transform_from_xyz_rpy([0.0, 0.0, H], [0.0, math.radians(21.0), 0.5 * math.pi])
    head = ScanningSonar(echo, SweepConfig(), pose, n_rays=20000, coherent=coherent)
    entities = (
        Entity('seabed', box_triangles([80.0, 80.0, 0.1]), 1e-10, seabed=SAND),
        Entity('plate', box_triangles([0.6, 0.02, 0.6]), 0.5),
    )
    states = (
        EntityState('seabed', origin=transform_from_xyz_rpy((0.0, 0.0, -0.05), (0, 0, 0))),
        EntityState('plate', origin=transform_from_xyz_rpy((0.0, Y, Z + 0.3), (0, 0, 0))),
    )
    scene = World('sweep', entities, SceneState('sweep', 0.0, states))
    caster = seabed_caster(Raycaster(scene), FREQUENCY, echo.speed_of_sound)
    return np.asarray(head.ping(caster, 0.0).intensity, dtype=np.float64)


def test_the_sweep_hears_the_images_too() -> None:
    """The same engine serves the scanning head (and the single beam): its cone's lighting
    gives the ground below. Control: the paths off leave the image's range empty."""
    heard, plain = sweep_profile(True), sweep_profile(False)
    image = math.hypot(Y, H + Z + 0.3)
    direct = peak(plain, math.hypot(Y, H - Z - 0.3))[0]
    assert direct > 0.0
    assert peak(heard, image)[0] > 1e-2 * direct
    assert peak(plain, image)[0] < 1e-4 * direct
