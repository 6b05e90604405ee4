"""The coherent sweep and single beam over the surfaces' fixed scatterers (docs/coherent.md).

The head of ``coherent_scenes.sweep_sonar`` (750 kHz: a wavelength of 2 mm, 3 degrees, a
7.5 kHz chirp, 0.1 m bins to 40 m) 10 m over the flat seabed of ``test_sidescan``, pitched
30 degrees down, its head at 0:

* moving it by a quarter wavelength keeps its speckle (intensity correlation >= 0.99), by a
  wavelength nearly so (>= 0.95), forward and sideways; the control is the per-ray model,
  which the same move re-draws;
* the mean profile over scatterer seeds is the incoherent one bin by bin; the control, the
  same scatterers heard through the one-way pattern, is rejected;
* a single-beam sonar of the same cone keeps its speckle under the same moves (its control
  the per-ray model too).
"""

from __future__ import annotations

import numpy as np
import pytest
from coherent_scenes import channel_engine, per_ray_intensity, pitched, sweep_sonar
from flat_seabed import seabed_fixture
from numpy.typing import NDArray
from test_sidescan import MU
from test_sidescan_fixed_scatterers import chi_square, correlation

from nps_sonar_py.devices.interface import RangerGeometry
from nps_sonar_py.devices.sonar import SingleBeamSonar
from nps_sonar_py.scene import Raycaster
from nps_sonar_py.sensing.sweep import ScanningSonar

SEEDS = 80


flat = seabed_fixture(MU)


def per_ray_profile(sonar: ScanningSonar, caster: Raycaster) -> NDArray[np.float64]:
    """The control: the per-ray model's profile of the head's rays (each hit a scatterer)."""
    directions = sonar.directions(0.0)
    return per_ray_intensity(channel_engine(sonar), caster, sonar.origin, directions)[0]


@pytest.mark.parametrize('axis', [0, 1])
def test_moving_a_wavelength_keeps_the_speckle(flat: Raycaster, axis: int) -> None:
    """Forward (x) and sideways (y): >= 0.99 at a quarter wavelength, >= 0.95 at one."""
    sonar = sweep_sonar(0)
    wavelength = sonar.echo.wavelength
    still = sonar.ping(flat, 0.0).intensity
    lit = still > 0.0
    control_still = per_ray_profile(sonar, flat)
    for fraction, least in ((0.25, 0.99), (1.0, 0.95)):
        xyz = [0.0, 0.0, 10.0]
        xyz[axis] += fraction * wavelength
        sonar.set_pose(pitched(xyz[2], 30.0, xyz[0], xyz[1]))
        moved = sonar.ping(flat, 0.0).intensity
        assert correlation(still[lit], moved[lit]) >= least, fraction
        control = per_ray_profile(sonar, flat)
        assert correlation(control_still[lit], control[lit]) < 0.5, fraction


def test_the_mean_over_seeds_is_the_incoherent_profile(flat: Raycaster) -> None:
    """Bin by bin within the mean's spread; the one-way pattern's mean is rejected."""
    reference = sweep_sonar(None).ping(flat, 0.0).intensity[None, :]
    right, wrong = [], []
    for seed in range(SEEDS):
        sonar = sweep_sonar(seed)
        right.append(sonar.ping(flat, 0.0).intensity[None, :])
        engine = channel_engine(sonar)
        two_way = engine.pattern

        def one_way(
            body: NDArray[np.float64], both: object = two_way
        ) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
            channel, weight = both(body)  # type: ignore[operator]
            return channel, np.sqrt(weight)

        engine.pattern = one_way
        wrong.append(sonar.ping(flat, 0.0).intensity[None, :])
    lit = np.flatnonzero(reference[0] > 1e-3 * reference.max())
    inside = slice(int(lit[0]) + 2, int(lit[-1]) - 1)  # a pulse inside the footprint's edges
    assert chi_square(np.stack(right), reference, inside) < 2.0
    assert chi_square(np.stack(wrong), reference, inside) > 3.0  # control


def single_beam(pose: NDArray[np.float64]) -> SingleBeamSonar:
    """The sweep's head as a single-beam sonar of 4000 rays at ``pose``."""
    head = sweep_sonar(0)
    eye = np.eye(4)
    geometry = RangerGeometry(
        'world', 'sonar', eye, np.full(3, 0.1), ('sonar',), eye[None], np.full((1, 3), 0.1)
    )
    config = channel_engine(head).config
    return SingleBeamSonar(head.echo, pose, geometry, n_rays=4000, coherent=config)


def single_per_ray(sonar: SingleBeamSonar, caster: Raycaster) -> NDArray[np.float64]:
    """The control: the per-ray model's profile of the single beam's rays."""
    origin, directions = sonar.world_from_elements[0, :3, 3], sonar._directions
    return per_ray_intensity(channel_engine(sonar), caster, origin, directions)[0]


@pytest.mark.parametrize('axis', [0, 1])
def test_a_single_beam_keeps_its_speckle_too(flat: Raycaster, axis: int) -> None:
    """Forward (x) and sideways (y): >= 0.99 at a quarter wavelength, >= 0.95 at one."""
    sonar = single_beam(pitched(10.0, 30.0))
    wavelength = sonar.echo.wavelength
    still = sonar.read(flat).pings[0].intensity
    lit = still > 0.0
    control_still = single_per_ray(sonar, flat)
    for fraction, least in ((0.25, 0.99), (1.0, 0.95)):
        xyz = [0.0, 0.0, 10.0]
        xyz[axis] += fraction * wavelength
        sonar.set_pose(pitched(xyz[2], 30.0, xyz[0], xyz[1]))
        moved = sonar.read(flat).pings[0].intensity
        assert correlation(still[lit], moved[lit]) >= least, fraction
        control = single_per_ray(sonar, flat)
        assert correlation(control_still[lit], control[lit]) < 0.5, fraction
