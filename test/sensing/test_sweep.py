"""The scanning sonar and multibeam fan against a plane wall, by docs/physics.md T5 and T12.

A wall whose face is the plane x = D; the sonar at the origin, its head turning about +z.
With the head at theta from the wall's normal and a hard cone of half angle beta
(``docs/physics.md``, T5): the echo spreads over
r in [D / cos(theta - beta), D / cos(theta + beta)], and for a narrow beam
I(theta) / I(0) = cos(theta)**3 (range cos**2 and incidence cos).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig, RangeEstimator
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.cone import cone_pattern
from nps_sonar_py.sensing.multibeam import FanConfig, MultibeamSonar
from nps_sonar_py.sensing.sweep import ScanningSonar, SweepConfig, rotation_z, sweep_problem

D = 2.0
C = 1500.0
BETA = math.radians(1.0)
N_RAYS = 3000


def wall_world(tmp_path: Path, distance: float = D, retro: float = 255.0) -> str:
    """A 100 m x 100 m wall, 0.2 m thick, whose near face is the plane x = distance."""
    path = tmp_path / 'wall.world'
    path.write_text(f'''<world name="wall">
  <model name="wall" retro="{retro}">
    <robot name="wall"><link name="wall"><collision>
      <origin xyz="{distance + 0.1} 0 0"/><geometry><box size="0.2 100 100"/></geometry>
    </collision></link></robot>
  </model>
</world>''')
    return str(path)


def narrow_echo(**kwargs: object) -> EchoConfig:
    settings: dict[str, object] = {
        'beam_width': 2 * BETA,
        'pattern': BeamPattern.UNIFORM,
        'n_way': 1,
        'absorption': Absorption.NONE,
        'min_range': 0.5,
        'max_range': 10.0,
        'n_bins': 4750,
        'sound_speed': C,
    }
    settings.update(kwargs)
    return EchoConfig(**settings)  # type: ignore[arg-type]


@pytest.fixture(scope='module')
def wall(tmp_path_factory: pytest.TempPathFactory) -> Raycaster:
    return Raycaster(load_world(wall_world(tmp_path_factory.mktemp('wall'))))


def cone_ranges(theta: float, beta: float = BETA, n: int = N_RAYS) -> np.ndarray:
    """Ranges to the wall of the documented cone's rays with the head at theta."""
    d = cone_pattern(beta, n).directions @ rotation_z(theta).T
    return D / d[:, 0]


@pytest.mark.parametrize('degrees', [0.0, 15.0, 30.0, 45.0, 60.0])
def test_sweep_across_a_wall_spreads_the_echo_as_t5_says(wall: Raycaster, degrees: float) -> None:
    theta = math.radians(degrees)
    sonar = ScanningSonar(
        narrow_echo(),
        SweepConfig(-math.pi / 2, math.pi / 2, math.radians(15.0)),
        np.eye(4),
        n_rays=N_RAYS,
    )
    ping = sonar.ping(wall, theta)
    r_min = D / math.cos(theta - BETA) if theta >= BETA else D
    r_max = D / math.cos(theta + BETA)
    rays = cone_ranges(theta)
    # The rays lie inside the cone: their extremes are inside T5's interval, and close to its ends
    # (within the range that 2 % of beta moves them: dr/dtheta = D sin / cos**2).
    slack_min = (
        D * math.sin(max(theta - BETA, 0.0)) / math.cos(theta - BETA) ** 2 * 0.02 * BETA + 1e-6
    )
    slack_max = D * math.sin(theta + BETA) / math.cos(theta + BETA) ** 2 * 0.02 * BETA + 1e-6
    assert r_min - 1e-9 <= rays.min() <= r_min + slack_min
    assert r_max - slack_max <= rays.max() <= r_max + 1e-9
    assert ping.range == pytest.approx(rays.min(), abs=2e-6)  # the nearest echo (Open3D: float32)
    occupied = np.flatnonzero(ping.hits)
    edges = ping.bin_edges
    assert edges[occupied[0]] <= rays.min() + 2e-6
    assert rays.min() - 2e-6 < edges[occupied[0] + 1]
    assert edges[occupied[-1]] <= rays.max() + 2e-6
    assert rays.max() - 2e-6 < edges[occupied[-1] + 1]
    assert ping.hits.sum() == N_RAYS


def test_sweep_intensity_falls_as_cos_cubed(wall: Raycaster) -> None:
    sweep = SweepConfig(0.0, math.pi / 3, math.radians(15.0))
    sonar = ScanningSonar(narrow_echo(), sweep, np.eye(4), n_rays=N_RAYS)
    totals = np.array([sonar.ping(wall, float(a)).total for a in sonar.angles])
    assert np.degrees(sonar.angles).round(9).tolist() == [0.0, 15.0, 30.0, 45.0, 60.0]
    ratio = totals / totals[0]
    # T5 for a 2 degree beam: 0.9012, 0.6495, 0.3536, 0.1250 (cos**3), within 0.1 %.
    np.testing.assert_allclose(ratio, np.cos(sonar.angles) ** 3, rtol=2e-3)
    # And the level at normal incidence is T2's: (pi / 2) (1 - cos**4 beta) mu / D**2, mu = 1.
    assert totals[0] == pytest.approx(math.pi / 2 * (1 - math.cos(BETA) ** 4) / D**2, rel=2e-3)


def test_the_cone_is_rotated_not_rebuilt(wall: Raycaster) -> None:
    sonar = ScanningSonar(narrow_echo(), SweepConfig(), np.eye(4), n_rays=50)
    pattern = sonar.pattern
    sonar.ping(wall, 0.7)
    assert sonar.pattern is pattern
    np.testing.assert_allclose(sonar.directions(0.7), pattern.directions @ rotation_z(0.7).T)


def test_step_period_is_the_two_way_travel_time() -> None:
    # T12: 30 m of water at 1500 m/s -> 40 ms; 400 steps at 50 m -> 26.7 s per turn.
    sonar = ScanningSonar(narrow_echo(max_range=30.0), SweepConfig(), np.eye(4), n_rays=10)
    assert sonar.step_period == pytest.approx(2 * 30.0 / C)
    assert sonar.steps_per_sweep == 400
    ping360 = ScanningSonar(narrow_echo(max_range=50.0), SweepConfig(), np.eye(4), n_rays=10)
    assert ping360.sweep_period == pytest.approx(400 * 2 * 50.0 / C)
    assert ping360.sweep_period == pytest.approx(26.67, abs=0.01)
    slower = ScanningSonar(
        narrow_echo(max_range=30.0), SweepConfig(step_period=0.1), np.eye(4), n_rays=10
    )
    assert slower.step_period == 0.1


def test_a_step_shorter_than_the_travel_time_is_refused() -> None:
    echo = narrow_echo(max_range=30.0)
    sweep = SweepConfig(step_period=0.039)
    problem = sweep_problem(echo, sweep)
    assert problem is not None
    assert 'two-way travel time' in problem
    assert '0.04' in problem
    with pytest.raises(ConfigurationError, match='two-way travel time'):
        ScanningSonar(echo, sweep, np.eye(4), n_rays=10)


def test_sector_steps_restart_or_bounce() -> None:
    echo = narrow_echo()
    sweep = SweepConfig(-0.2, 0.2, 0.1)
    sonar = ScanningSonar(echo, sweep, np.eye(4), n_rays=10)
    assert sonar.angles.round(12).tolist() == [-0.2, -0.1, 0.0, 0.1, 0.2]
    angles = [round(sonar.step(k).angle, 12) for k in range(10)]
    assert angles == [-0.2, -0.1, 0.0, 0.1, 0.2] * 2
    assert [sonar.step(k).last for k in range(5)] == [False] * 4 + [True]
    bounce = ScanningSonar(echo, SweepConfig(-0.2, 0.2, 0.1, bounce=True), np.eye(4), n_rays=10)
    angles = [round(bounce.step(k).angle, 12) for k in range(10)]
    assert angles == [-0.2, -0.1, 0.0, 0.1, 0.2, 0.2, 0.1, 0.0, -0.1, -0.2]
    assert bounce.sweep_angles(1) == pytest.approx((0.2, -0.2, -0.1))
    with pytest.raises(ConfigurationError, match='bounce'):
        SweepConfig(bounce=True)
    with pytest.raises(ConfigurationError, match='step'):
        SweepConfig(step=0.0)


def test_multibeam_fan_sees_the_wall_beam_by_beam(wall: Raycaster) -> None:
    echo = narrow_echo(beam_width=math.radians(1.5), estimator=RangeEstimator.NEAREST, n_bins=950)
    fan = FanConfig(
        beams=31,
        min_angle=-0.6,
        max_angle=0.6,
        vertical_width=math.radians(10.0),
        rays_horizontal=3,
        rays_vertical=11,
    )
    sonar = MultibeamSonar(echo, fan, np.eye(4))
    ping = sonar.ping(wall)
    azimuths = np.linspace(-0.6, 0.6, 31)
    np.testing.assert_allclose(ping.azimuths, azimuths)
    # The documented grid: columns at the centres of 3 cells across +-0.75 degrees,
    # rows across +-5 degrees.
    half = math.radians(0.75)
    offsets = -half + (np.arange(3) + 0.5) * 2 * half / 3
    elevations = -math.radians(5.0) + (np.arange(11) + 0.5) * math.radians(10.0) / 11
    az = azimuths[:, None, None] + offsets[None, None, :]
    el = elevations[None, :, None]
    nearest = (D / (np.cos(el) * np.cos(az))).reshape(31, -1).min(axis=1)
    np.testing.assert_allclose(ping.ranges, nearest, atol=2e-6)
    np.testing.assert_allclose(ping.profiles.sum(axis=1), ping.totals, rtol=1e-12)
    assert np.all(ping.confidence == 1.0)
    # Symmetric about the wall's normal, and weaker off it.
    np.testing.assert_allclose(ping.totals, ping.totals[::-1], rtol=1e-4)
    assert ping.totals[15] > ping.totals[0]
