"""A scatterer's images in the seabed, heard by the coherent formed fan (docs/multipath.md).

One fixed scatterer (a thin triangle of area ``0.999 / rho``, its face towards the sonar)
1.5 m over a flat sand seabed, 22 m ahead of a fan 10 m up, pitched 24 degrees down, on the
axis of its middle beam. Worked here from the geometry, as for the side-scan
(``test_seabed_images.py``): the image ``P' = P - 2 z e_z`` at ``r_i = sqrt(x**2 + (h +
z)**2)``; the scatterer and its image both on the axis (sine 0 along the array: the same
``AF``), so the two one-bounce paths, one arriving from the scatterer and one from its image,
add in that beam at ``(r_d + r_i) / 2`` with the same phase: ``2 R`` times the direct
amplitude, times ``sqrt(cos_i / cos_d) r_d / r_i`` (Lambert's bistatic law, the longer way)
and the vertical pattern's ``(w_i / w_d)**(1/4)`` (one leg each way); the two-bounce path at
``r_i`` takes ``R**2``, ``cos_i / cos_d (r_d / r_i)**2`` and ``sqrt(w_i / w_d)``. ``R`` the
sand's Rayleigh coefficient at the grazing angle ``atan((h + z) / x)``. Off the axis the
image's sine ``y / r_i`` is smaller than the scatterer's ``y / r_d``: the two-bounce path is
heard in the beam steered to the image, not the scatterer's. Controls: the paths off
(``seabed_images`` false), a box on the seabed that hides the bounce point, the one-bounce
paths added as intensities (3 dB under), and the off-axis two-bounce placed at the
scatterer's bearing (rejected). The vertical pattern is 12 degrees wide, so that the legs'
patterns differ by 0.8 dB and the direct one is 1.5 dB under the axis: the levels, within
0.1 dB, reject the images' amplitudes with the direct pattern left in (1.5 dB under) and
the direct leg's pattern put on the image's legs (0.4 and 0.8 dB over).
"""

from __future__ import annotations

import math
from dataclasses import astuple, replace

import numpy as np
import pytest
from coherent_scenes import lossless_echo
from numpy.typing import NDArray
from seabed_image_paths import flat, image_paths, plate_over_seabed

from nps_sonar_py.echo import BeamPattern, beam_intensity
from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.pulse import Pulse, PulseKind, PulseWindow
from nps_sonar_py.echo.seabed import BackscatterModel, Seabed
from nps_sonar_py.echo.sediment import SEDIMENTS
from nps_sonar_py.scene import Raycaster
from nps_sonar_py.scene.tessellation import Triangles
from nps_sonar_py.sensing.multibeam import FanConfig, MultibeamSonar
from nps_sonar_py.sensing.seabed_caster import seabed_caster
from nps_sonar_py.transforms import transform_from_xyz_rpy

H, Z, X = 10.0, 1.5, 22.0  # the sonar's height, the scatterer's, its distance ahead
SIDE = 0.3  # the triangle's base and height, m
DENSITY = 0.999 / (0.5 * SIDE * SIDE)  # one scatterer on it, at its centroid
PITCH = math.radians(24.0)
FREQUENCY = 400e3
#: Flat sand (no roughness: its whole mirror; the roughness is test_seabed_images.py's).
SAND = Seabed(sediment=flat(SEDIMENTS['sand']), model=BackscatterModel.LAMBERT, lambert_db=-100.0)
ECHO = lossless_echo(15.0, 30.0, 600, FREQUENCY, beam_width=math.radians(2.0))
FAN = FanConfig(
    beams=161,
    min_angle=math.radians(-20.0),
    max_angle=math.radians(20.0),
    vertical_width=math.radians(12.0),
    vertical_pattern=BeamPattern.PISTON,
    rays_horizontal=2,
    rays_vertical=400,
)


def plate(y: float) -> Triangles:
    """The thin triangle at ``y`` across, its face towards -x (the sonar), its base at ``Z``."""
    v = np.array([[X, y - 0.5 * SIDE, Z], [X, y + 0.5 * SIDE, Z], [X, y, Z + SIDE]])
    return Triangles(v, np.array([[0, 1, 2]], dtype=np.int64))


def world(hiding: bool, y: float, seabed: Seabed = SAND) -> Raycaster:
    """The sand seabed (its top at z = 0) and the triangle; ``hiding``: a box on the seabed,
    1.5 m tall, from 18 to 20.3 m ahead, over the bounce point (at 19.1 m)."""
    box = ((2.3, 2.5, 1.5), (19.15, y, 0.75)) if hiding else None
    return plate_over_seabed(plate(y), seabed, (20.0, 0.0), box)


def fan_image(
    hiding: bool = False, images: bool = True, y: float = 0.0, seabed: Seabed = SAND
) -> NDArray[np.float64]:
    """The fan's (beams, bins) image of one coherent ping, 2.5 cm bins, no noise."""
    pulse = Pulse(PulseKind.CHIRP, 1e-3, 30e3, PulseWindow.HANN)
    coherent = CoherentConfig.of(pulse=pulse, scatterer_density=DENSITY, seabed_images=images)
    pose = transform_from_xyz_rpy([0.0, 0.0, H], [0.0, PITCH, 0.0])
    sonar = MultibeamSonar(ECHO, FAN, pose, coherent=coherent)
    caster = seabed_caster(world(hiding, y, seabed), FREQUENCY, ECHO.speed_of_sound)
    return np.asarray(sonar.ping(caster).profiles, dtype=np.float64)


def two_way(depression: float) -> float:
    """The fan's vertical pattern both ways at ``depression`` (its axis at ``PITCH``)."""
    one = beam_intensity(FAN.vertical_pattern, abs(depression - PITCH), FAN.vertical_width, 1)
    return float(one) ** ECHO.n_way


#: The geometry, worked here: direct and image ranges, the one-bounce range, the cosines of
#: the legs on the face (its normal along x), the vertical patterns, the sand's R.
ZC = Z + SIDE / 3.0
PATHS = image_paths(X, H, ZC, two_way, SAND.sediment)
R_D, R_I, R_1, COS_D, COS_I, W_D, W_I, R_SAND = astuple(PATHS)
ONE_DB, TWO_DB = PATHS.one_db, PATHS.two_db
EDGES = np.linspace(ECHO.min_range, ECHO.max_range, ECHO.n_bins + 1)
CENTRES = 0.5 * (EDGES[:-1] + EDGES[1:])
BIN = EDGES[1] - EDGES[0]
#: The levels' tolerance: the bins near a peak hold its energy (the stored samples'
#: receive filter keeps a lone echo's energy wherever it lies) to a few hundredths of a dB.
TOLERANCE_DB = 0.1


def peak(profile: NDArray[np.float64], at: float) -> tuple[float, float]:
    """The energy of the bins within 0.3 m of ``at`` and the centre of its strongest bin."""
    near = np.flatnonzero(np.abs(CENTRES - at) <= 0.3)
    return float(profile[near].sum()), float(CENTRES[near[np.argmax(profile[near])]])


def beam_at(azimuth: float) -> int:
    """The beam whose axis is nearest ``azimuth`` (rad)."""
    axes = np.linspace(FAN.min_angle, FAN.max_angle, FAN.beams)
    return int(np.argmin(np.abs(axes - azimuth)))


@pytest.fixture(scope='module')
def heard() -> NDArray[np.float64]:
    return fan_image()


def test_the_images_arrive_at_their_ranges_at_their_levels(heard: NDArray[np.float64]) -> None:
    assert R_SAND > 0.8  # under the critical angle: a strong mirror
    # The vertical pattern weighs the paths: under 1 on the direct leg, less on the image's.
    assert W_D < 0.75
    assert W_I / W_D < 0.85
    beam = heard[beam_at(0.0)]
    direct, at_direct = peak(beam, R_D)
    one, at_one = peak(beam, R_1)
    two, at_two = peak(beam, R_I)
    assert direct > 0.0
    assert abs(at_direct - R_D) <= BIN
    assert abs(at_one - R_1) <= BIN
    assert abs(at_two - R_I) <= BIN
    one_db, two_db = 10 * math.log10(one / direct), 10 * math.log10(two / direct)
    assert one_db == pytest.approx(ONE_DB, abs=TOLERANCE_DB)
    assert two_db == pytest.approx(TWO_DB, abs=TOLERANCE_DB)
    # Controls, each rejected: the one-bounce paths added as intensities (3 dB under the
    # coherent sum); the images' amplitudes from the direct one with its pattern still in
    # (times sqrt(W_D): 1.54 dB under); the direct leg's pattern on every leg (the image's
    # legs weighted as the direct one: 0.40 and 0.79 dB over).
    assert abs(one_db - (ONE_DB - 10 * math.log10(2.0))) > 2.0
    kept = 10 * math.log10(W_D)
    assert abs(one_db - (ONE_DB + kept)) > 3 * TOLERANCE_DB
    assert abs(two_db - (TWO_DB + kept)) > 3 * TOLERANCE_DB
    legs = 10 * math.log10(W_D / W_I)
    assert abs(one_db - (ONE_DB + 0.5 * legs)) > 3 * TOLERANCE_DB
    assert abs(two_db - (TWO_DB + legs)) > 3 * TOLERANCE_DB
    # The images are heard in the scatterer's beam: past its main lobe (2.25 degrees to the
    # first null) the beams hear a side lobe's share.
    assert peak(heard[beam_at(math.radians(3.0))], R_I)[0] < 0.1 * two


def no_image(image: NDArray[np.float64], heard: NDArray[np.float64]) -> None:
    """``image``'s beam hears the direct echo as ``heard``'s does and no image: under 1e-3
    of ``heard``'s at the images' ranges (the direct echo's range side lobes reach there)."""
    beam, mirrored = image[beam_at(0.0)], heard[beam_at(0.0)]
    assert peak(beam, R_D)[0] == pytest.approx(peak(mirrored, R_D)[0], rel=0.05)
    assert peak(beam, R_1)[0] < 1e-3 * peak(mirrored, R_1)[0]
    assert peak(beam, R_I)[0] < 1e-3 * peak(mirrored, R_I)[0]


def test_without_the_paths_there_is_no_image(heard: NDArray[np.float64]) -> None:
    no_image(fan_image(images=False), heard)


def test_a_hidden_bounce_point_gives_no_image(heard: NDArray[np.float64]) -> None:
    no_image(fan_image(hiding=True), heard)


def test_the_array_steers_to_the_image_off_the_axis() -> None:
    """The scatterer 6 m aside: its sine ``y / r_d``, its image's ``y / r_i``, 14.3 and 13.6
    degrees (the beams 0.25 degree apart, 2 degrees wide: the peak moves 3 beams). The
    two-bounce path peaks in the beam of the image's bearing; control: the scatterer's."""
    y = 6.0
    r_d, r_i = math.hypot(math.hypot(X, y), H - ZC), math.hypot(math.hypot(X, y), H + ZC)
    image = fan_image(y=y)
    direct_beam = int(np.argmax([peak(b, r_d)[0] for b in image]))
    image_beam = int(np.argmax([peak(b, r_i)[0] for b in image]))
    assert direct_beam == beam_at(math.asin(y / r_d))
    assert image_beam == beam_at(math.asin(y / r_i))
    assert image_beam != direct_beam  # control: the path heard at the scatterer's bearing


def test_the_fan_hears_the_rough_seabeds_lobe_after_the_direct_echo() -> None:
    """Over medium sand's own roughness at 400 kHz the coherent images are gone and the
    diffuse one-bounce paths (``seabed_diffuse``, checked against closed forms in
    ``test/echo/test_seabed_diffuse.py``) reach the fan: summed over the beams, the bins from
    the one-bounce range on hold over a tenth of the direct echo's energy, and between the
    direct echo and that range only the echoes' range side lobes (under 2e-2). Control: with
    ``seabed_images`` off, under 1e-2 of it there."""
    rough = replace(SAND, sediment=SEDIMENTS['sand'])
    total = fan_image(seabed=rough).sum(axis=0)
    bare = fan_image(seabed=rough, images=False).sum(axis=0)
    direct = float(total[np.abs(CENTRES - R_D) <= 0.3].sum())
    after = (CENTRES >= R_1 - 0.05) & (CENTRES <= R_1 + 3.0)
    assert direct == pytest.approx(float(bare[np.abs(CENTRES - R_D) <= 0.3].sum()), rel=0.05)
    assert float(total[after].sum()) > 0.1 * direct
    assert float(bare[after].sum()) < 1e-2 * direct
    between = (CENTRES > R_D + 0.1) & (CENTRES < R_1 - 0.1)
    assert float(total[between].sum()) < 2e-2 * direct  # the echoes' range side lobes
