"""The fan heard past its -3 dB vertical edges (``FanConfig.vertical_cast``).

Two fans at the same height over a flat seabed, tilted 20 and 30 degrees down, see the seabed
at a slant range ``r`` at the same depression ``asin(h / r)``, the same incidence and the
same footprint: their echoes there differ only by their vertical patterns at it, both ways.
Where the 20-degree fan hears the seabed past its lower -3 dB edge (the sinc's main-lobe
flank) and the 30-degree fan inside its width, the ratio of their profiles is
``B(delta - 20)**2 / B(delta - 30)**2``, ``B = sinc**2(L sin x)`` of the uniform aperture
``L = 0.443 / sin(w / 2)`` wavelengths (worked here, not by the package's ``beam_intensity``).
Checked through the rays' incoherent engine and through the fan that forms its beams.
Negative controls: the knife edge (``vertical_cast`` 0) and a uniform pattern cast as wide
hear nothing there; a cast narrower than the -3 dB width is refused in one line.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from coherent_scenes import lossless_echo
from flat_seabed import seabed_fixture
from numpy.typing import NDArray

from nps_sonar_py.echo import BeamPattern, EchoConfig
from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.line_array import LineArray
from nps_sonar_py.echo.pulse import Pulse, PulseKind
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.scene import Raycaster
from nps_sonar_py.sensing.multibeam import FanConfig, MultibeamSonar
from nps_sonar_py.transforms import transform_from_xyz_rpy

HEIGHT = 2.0
VERTICAL = math.radians(12.0)
#: The 20-degree fan's lower skirt (off-axis 8.5 to 11 degrees, before its first null at
#: 13.65) and the 30-degree fan's -3 dB width: depressions 28.5 to 31 degrees.
SKIRT = (HEIGHT / math.sin(math.radians(31.0)), HEIGHT / math.sin(math.radians(28.5)))


seabed = seabed_fixture(0.01)


def sinc_two_way(off_axis: NDArray[np.float64]) -> NDArray[np.float64]:
    """The uniform aperture's pattern of -3 dB width ``VERTICAL``, both ways, by hand."""
    length = 0.443 / math.sin(0.5 * VERTICAL)  # wavelengths: sinc**2 is 1/2 at the edge
    u = math.pi * length * np.sin(off_axis)
    one_way = np.where(u == 0.0, 1.0, np.sin(u) / np.where(u == 0.0, 1.0, u)) ** 2
    return np.asarray(one_way**2, dtype=np.float64)


def fan_profile(
    seabed: Raycaster,
    tilt_deg: float,
    *,
    pattern: BeamPattern = BeamPattern.SINC,
    cast: bool = True,
    formed: bool = False,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(bin centres, mean profile over the beams) of a fan ``tilt_deg`` down at ``HEIGHT``."""
    tilt = math.radians(tilt_deg)
    echo = lossless_echo(3.0, 6.0, 60, beam_width=math.radians(0.5), sound_speed=1500.0, seed=3)
    beams = 41 if formed else 1
    fan = FanConfig(
        beams=beams,
        min_angle=math.radians(-5.0) if formed else 0.0,
        max_angle=math.radians(5.0) if formed else 0.0,
        vertical_width=VERTICAL,
        vertical_pattern=pattern,
        vertical_cast=2.0 * (0.5 * math.pi - tilt) if cast else 0.0,
        rays_horizontal=1 if formed else 3,
        rays_vertical=1400,
    )
    coherent = (
        CoherentConfig.of(pulse=Pulse(PulseKind.CHIRP, 1e-3, 60e3), array=LineArray(212, 0.5))
        if formed
        else None
    )
    pose = transform_from_xyz_rpy([0.0, 0.0, HEIGHT], [0.0, tilt, 0.0])
    sonar = MultibeamSonar(echo, fan, pose, coherent=coherent)
    ping = sonar.ping(seabed)
    edges = np.asarray(ping.bin_edges)
    return 0.5 * (edges[:-1] + edges[1:]), np.asarray(ping.profiles).mean(axis=0)


def skirt_ratio_db(
    centres: NDArray[np.float64], low: NDArray[np.float64], high: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(measured, closed-form) dB of the 20-degree fan over the 30-degree one in the skirt."""
    inside = (centres > SKIRT[0]) & (centres < SKIRT[1])
    delta = np.arcsin(HEIGHT / centres[inside])
    expected = sinc_two_way(delta - math.radians(20.0)) / sinc_two_way(delta - math.radians(30.0))
    with np.errstate(divide='ignore'):
        measured = 10.0 * np.log10(low[inside] / high[inside])
    return measured, 10.0 * np.log10(expected)


def test_the_rays_hear_the_seabed_through_the_vertical_skirt(seabed: Raycaster) -> None:
    centres, high = fan_profile(seabed, 30.0)
    _, low = fan_profile(seabed, 20.0)
    measured, expected = skirt_ratio_db(centres, low, high)
    assert measured.size >= 5
    assert np.all(expected < -8.0)  # past the edge: far under the axis
    np.testing.assert_allclose(measured, expected, atol=0.25)


def test_the_formed_fan_hears_the_seabed_through_the_vertical_skirt(seabed: Raycaster) -> None:
    # the same fixed scatterers under both fans: the speckle divides out bin by bin
    centres, high = fan_profile(seabed, 30.0, formed=True)
    _, low = fan_profile(seabed, 20.0, formed=True)
    measured, expected = skirt_ratio_db(centres, low, high)
    assert measured.size >= 5
    np.testing.assert_allclose(measured, expected, atol=0.75)


@pytest.mark.parametrize('formed', [False, True])
def test_a_knife_edge_or_a_uniform_pattern_hears_nothing_there(
    seabed: Raycaster, formed: bool
) -> None:
    centres, high = fan_profile(seabed, 30.0, formed=formed)
    inside = (centres > SKIRT[0]) & (centres < SKIRT[1])
    _, edge = fan_profile(seabed, 20.0, cast=False, formed=formed)
    _, uniform = fan_profile(seabed, 20.0, pattern=BeamPattern.UNIFORM, formed=formed)
    floor = 1e-3 * float(np.min(high[inside]))
    assert np.all(edge[inside] < floor)  # the closed form's -8 to -13 dB is not met
    assert np.all(uniform[inside] < floor)


def test_a_cast_narrower_than_the_width_is_refused() -> None:
    with pytest.raises(ConfigurationError, match='vertical_cast') as caught:
        FanConfig(vertical_width=VERTICAL, vertical_cast=0.5 * VERTICAL)
    assert '\n' not in str(caught.value)
    assert FanConfig(vertical_width=VERTICAL).cast_width == VERTICAL
    assert FanConfig(vertical_width=VERTICAL, vertical_cast=1.0).cast_width == 1.0


def test_the_default_fan_is_its_knife_edge(seabed: Raycaster) -> None:
    # vertical_cast 0 (default) and vertical_cast = vertical_width are the same fan
    sonars = [
        MultibeamSonar(
            EchoConfig(min_range=1.0, max_range=20.0, n_bins=50, seed=1),
            FanConfig(beams=4, vertical_width=VERTICAL, vertical_cast=cast),
            transform_from_xyz_rpy([0.0, 0.0, HEIGHT], [0.0, math.radians(20.0), 0.0]),
        )
        for cast in (0.0, VERTICAL)
    ]
    first, second = (sonar.ping(seabed).profiles for sonar in sonars)
    np.testing.assert_array_equal(first, second)
