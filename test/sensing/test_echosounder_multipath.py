"""The echosounder's multipath ghosts over a flat seabed under the sea surface, in closed form.

Geometry: the transducer ``S`` is ``Z_S`` below the sea surface (world z = 0, a mirror) and
the seabed ``D`` below ``S`` (a Lambert surface that also mirrors, ``sensing.multipath``).

The surface-bottom ghost of the nadir beam. With two bounces a ray sent straight down is
mirrored by the seabed at ``P`` (``D`` from ``S``), goes up past ``S`` to the surface
(``D + Z_S``), is mirrored down to the seabed again at ``B`` (``Z_S + D``), scatters there and
comes straight back up to ``S`` (``D``). Unfolded, the out leg is the straight line from ``S``
to the image of ``B`` in the seabed mirrored in the image of the surface: ``3 D + 2 Z_S``
long. The two-way path is ``4 D + 2 Z_S``, so the ghost is heard at the equivalent range

    R_ghost = (3 D + 2 Z_S + D) / 2 = 2 D + Z_S

(a transducer at the surface, ``Z_S = 0``: the classic first bottom multiple at twice the
depth). Its reverse (out straight to ``B``, back by the surface and ``P``) has the same length.
No other path returns: with one bounce the mirrored rays only meet the surface, which does
not scatter, and every beam points down, so no ray meets the surface first. A ray ``t`` off
the vertical scatters ``(3 D + 2 Z_S) tan t`` off the nadir, so only rays within
``(half width) / (3 + 2 Z_S / D)`` hear their ghost inside the nadir beam; their extra path
is below ``R_ghost t**2``, under a micrometre here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_echosounder import echo as echosounder_echo
from test_echosounder import swath as echosounder_swath

from nps_sonar_py.echo import EchoConfig, Scattering
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.scene.raycaster import Raycaster
from nps_sonar_py.scene.scene_state import SceneState
from nps_sonar_py.scene.tessellation import Triangles, plane_triangles
from nps_sonar_py.scene.world import Entity, World
from nps_sonar_py.sensing.echosounder import Detection, Echosounder, Quality, SwathConfig
from nps_sonar_py.sensing.multipath import MultipathConfig

Z_S = 5.0  # transducer depth below the sea surface (world z = 0)
D = 40.0  # seabed below the transducer
R_GHOST = 2.0 * D + Z_S
WIDTH = math.radians(1.0)


@pytest.fixture(scope='module')
def bed() -> Raycaster:
    plane = plane_triangles([600.0, 600.0])
    seabed = Triangles(plane.vertices + np.array([0.0, 0.0, -Z_S - D]), plane.triangles)
    return Raycaster(World('bed', (Entity('bed', seabed),), SceneState('bed', 0.0, ())))


def echo(**kwargs: object) -> EchoConfig:
    """test_echosounder's beam, its window to 120 m (0.05 m bins): past the ghost."""
    return echosounder_echo(max_range=120.0, n_bins=2380, **kwargs)


def swath(**kwargs: object) -> SwathConfig:
    """One nadir beam of test_echosounder's swath, 31 x 31 rays."""
    settings: dict[str, object] = {'beams': 1, 'min_angle': 0.0, 'max_angle': 0.0}
    return echosounder_swath(**{**settings, 'rays_along': 31, **kwargs})


def pose() -> np.ndarray:
    p = np.eye(4)
    p[2, 3] = -Z_S
    return p


def sounder(bounces: int, **kwargs: object) -> Echosounder:
    multipath = MultipathConfig(max_bounces=bounces, sea_surface_z=0.0)
    return Echosounder(echo(), swath(**kwargs), pose(), multipath=multipath)


def lit(profile: np.ndarray, centres: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """The profile's bins with an echo whose centres lie in ``[lo, hi]``."""
    return np.flatnonzero((profile > 0.0) & (centres >= lo) & (centres <= hi))


def test_the_nadir_beam_hears_the_seabed_at_d_and_its_ghost_at_2d_plus_z_s(
    bed: Raycaster,
) -> None:
    plain = sounder(0).ping(bed)
    ghosts = sounder(2)
    ping = ghosts.ping(bed)
    centres = ghosts.model.bin_centres
    width = ghosts.echo.bin_width
    slack = (ghosts.pulse_bins + 1.0) * width  # the pulse window and the bin
    # Direct: the bins around D, and nothing else but the ghost around R_ghost.
    profile = ping.profiles[0]
    direct = lit(profile, centres, D - slack, D / math.cos(WIDTH) + slack)
    ghost = lit(profile, centres, R_GHOST - slack, R_GHOST + slack)
    assert direct.size > 0
    assert ghost.size > 0
    assert np.count_nonzero(profile > 0.0) == direct.size + ghost.size
    centre = float(np.sum(profile[ghost] * centres[ghost]) / np.sum(profile[ghost]))
    assert centre == pytest.approx(R_GHOST, abs=0.5 * width)
    # Everything before the ghost is the direct echo, exactly as without multipath.
    before = centres < R_GHOST - slack
    np.testing.assert_array_equal(profile[before], plain.profiles[0][before])
    assert np.all(plain.profiles[0][~before] == 0.0)
    # The detection takes the seabed echo, exactly as without the ghost.
    assert ping.quality.tolist() == [Quality.GOOD]
    np.testing.assert_array_equal(ping.two_way_time, plain.two_way_time)
    np.testing.assert_array_equal(ping.points, plain.points)
    assert 0.5 * ping.sound_speed * ping.two_way_time[0] == pytest.approx(D, abs=slack)


def test_one_bounce_over_a_flat_seabed_adds_no_ghost(bed: Raycaster) -> None:
    plain, one = sounder(0).ping(bed), sounder(1).ping(bed)
    np.testing.assert_array_equal(one.profiles, plain.profiles)


@pytest.mark.parametrize('detection', list(Detection))
def test_max_bounces_0_leaves_every_sounding_unchanged_exactly(
    bed: Raycaster, detection: Detection
) -> None:
    kwargs = {'beams': 21, 'min_angle': -1.0, 'max_angle': 1.0, 'detection': detection}
    alone = Echosounder(echo(), swath(**kwargs), pose()).ping(bed)
    off = sounder(0, **kwargs).ping(bed)
    for field in ('two_way_time', 'intensities', 'quality', 'points', 'world_points', 'profiles'):
        np.testing.assert_array_equal(getattr(off, field), getattr(alone, field))


def test_a_swath_keeps_its_seabed_soundings_with_two_bounces(bed: Raycaster) -> None:
    """Every ghost comes after the seabed echo of the beam that hears it.

    A ghost heard from ``a'`` off nadir returns along ``D / cos a'``, the direct range of the
    beam at ``a'``, and its out leg is longer: it comes after that beam's seabed echo.
    """
    kwargs = {'beams': 21, 'min_angle': -1.0, 'max_angle': 1.0, 'rays_along': 3}
    plain, ghosts = sounder(0, **kwargs).ping(bed), sounder(2, **kwargs).ping(bed)
    assert np.any(ghosts.profiles != plain.profiles)  # the ghosts are there
    np.testing.assert_array_equal(ghosts.two_way_time, plain.two_way_time)
    np.testing.assert_array_equal(ghosts.quality, plain.quality)
    depth = -ghosts.points[:, 2]
    np.testing.assert_allclose(depth, D, rtol=2e-3)


def test_multipath_with_specular_scattering_is_refused_in_one_line() -> None:
    with pytest.raises(ConfigurationError, match=r'^max_bounces > 0 needs scattering lambert'):
        Echosounder(
            echo(scattering=Scattering.SPECULAR),
            swath(),
            pose(),
            multipath=MultipathConfig(max_bounces=1),
        )
