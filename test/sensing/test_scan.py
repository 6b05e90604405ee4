"""The ray sensor (``sensing.scan``) in the box room, against ray-plane distances computed here.

The room (``config/worlds/box_room.world``) is bounded by the planes x = -3, x = 5,
y = -2, y = 4, z = 0 and z = 3, with laser_retro 40, 80, 120, 160, 200 and 240.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from nps_sonar_py.description import ScanAxis
from nps_sonar_py.echo import NoiseType, RangeNoise
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.scan import AxisSampling, IntensityMode, ScanConfig, Scanner
from nps_sonar_py.transforms import transform_from_xyz_rpy

ROOM = Path(__file__).resolve().parents[2] / 'config' / 'worlds' / 'box_room.world'
LOW = np.array([-3.0, -2.0, 0.0])
HIGH = np.array([5.0, 4.0, 3.0])
RETRO_LOW = np.array([40.0, 120.0, 200.0])  # the faces x = -3, y = -2, z = 0
RETRO_HIGH = np.array([80.0, 160.0, 240.0])  # x = 5, y = 4, z = 3
ORIGIN = np.array([0.5, 0.7, 1.2])
YAW = 0.3
FLOAT32 = 2e-6  # Open3D casts in float32: a few ulp at a few metres


def face_distances(origin: np.ndarray, directions: np.ndarray) -> np.ndarray:
    """(n, 3) distance along each ray to the face it meets across x, y and z."""
    d = np.asarray(directions, dtype=np.float64)
    with np.errstate(divide='ignore', invalid='ignore'):
        return np.where(d > 0, (HIGH - origin) / d, np.where(d < 0, (LOW - origin) / d, np.inf))


def room_hits(
    origin: np.ndarray, directions: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distance, retro and |cos incidence| of rays from inside the room to its nearest face."""
    d = np.asarray(directions, dtype=np.float64)
    t_axis = face_distances(origin, d)
    axis = np.argmin(t_axis, axis=1)
    rows = np.arange(d.shape[0])
    retro = np.where(d[rows, axis] > 0, RETRO_HIGH[axis], RETRO_LOW[axis])
    return t_axis[rows, axis], retro, np.abs(d[rows, axis])


def world_dirs(azimuth: np.ndarray, elevation: float = 0.0, yaw: float = YAW) -> np.ndarray:
    """Directions of body-frame angles for a sensor yawed by ``yaw`` about world z."""
    a = np.asarray(azimuth) + yaw
    return np.column_stack(
        (
            np.cos(elevation) * np.cos(a),
            np.cos(elevation) * np.sin(a),
            np.full(a.shape, math.sin(elevation)),
        )
    )


@pytest.fixture(scope='module')
def room() -> Raycaster:
    return Raycaster(load_world(str(ROOM)))


def pose(origin: np.ndarray = ORIGIN, yaw: float = YAW) -> np.ndarray:
    return transform_from_xyz_rpy(origin, (0.0, 0.0, yaw))


def scanner(horizontal: ScanAxis, vertical: ScanAxis | None = None, **kwargs: object) -> Scanner:
    settings: dict[str, object] = {'max_range': 30.0, **kwargs}
    vertical = vertical or ScanAxis()
    config = ScanConfig(horizontal=horizontal, vertical=vertical, **settings)  # type: ignore[arg-type]
    return Scanner(config, pose())


def test_planar_scan_reads_the_distance_to_the_walls(room: Raycaster) -> None:
    axis = ScanAxis(samples=721, min_angle=-math.pi, max_angle=math.pi)
    reading = scanner(axis).scan(room)
    angles = np.linspace(-math.pi, math.pi, 721)
    expected, retro, _ = room_hits(ORIGIN, world_dirs(angles))
    assert reading.ranges.shape == (1, 721)
    np.testing.assert_allclose(reading.ranges[0], expected, rtol=FLOAT32)
    # Gazebo's semantics: the intensity is the laser_retro of the face hit (away from corners).
    t_sorted = np.sort(face_distances(ORIGIN, world_dirs(angles)), axis=1)
    clear = t_sorted[:, 1] - t_sorted[:, 0] > 1e-3
    assert clear.sum() > 700
    np.testing.assert_allclose(reading.intensities[0][clear], retro[clear], rtol=1e-9)
    assert set(np.unique(retro)) == {40.0, 80.0, 120.0, 160.0}


def test_rows_are_elevations_lowest_first(room: Raycaster) -> None:
    horizontal = ScanAxis(samples=36, min_angle=-math.pi, max_angle=math.pi * 34 / 36)
    vertical = ScanAxis(samples=5, min_angle=-0.8, max_angle=0.8)
    reading = scanner(horizontal, vertical).scan(room)
    assert reading.ranges.shape == (5, 36)
    azimuths = np.linspace(-math.pi, math.pi * 34 / 36, 36)
    for row, elevation in enumerate(np.linspace(-0.8, 0.8, 5)):
        expected, _, _ = room_hits(ORIGIN, world_dirs(azimuths, elevation))
        np.testing.assert_allclose(reading.ranges[row], expected, rtol=FLOAT32)
    # The points lie on the room's faces (in the body frame, turned back into the world here).
    points = reading.points().reshape(-1, 3) @ pose()[:3, :3].T + ORIGIN
    on_face = np.min(np.abs(np.concatenate([points - LOW, points - HIGH], axis=1)), axis=1)
    assert np.max(on_face) < 1e-5


def test_resolution_above_one_averages_the_rays_of_each_cell(room: Raycaster) -> None:
    # 3 rays per reading: reading i averages the rays at theta_i - d/3, theta_i, theta_i + d/3.
    axis = ScanAxis(samples=91, resolution=3.0, min_angle=-1.5, max_angle=1.5)
    reading = scanner(axis).scan(room)
    delta = 3.0 / 90
    centres = np.linspace(-1.5, 1.5, 91)
    sub = (centres[:, None] + np.array([-delta / 3, 0.0, delta / 3])[None]).ravel()
    distance, retro, _ = room_hits(ORIGIN, world_dirs(sub))
    np.testing.assert_allclose(
        reading.ranges[0], distance.reshape(91, 3).mean(axis=1), rtol=FLOAT32
    )
    np.testing.assert_allclose(
        reading.intensities[0], retro.reshape(91, 3).mean(axis=1), rtol=1e-9
    )


def test_resolution_below_one_interpolates_between_rays(room: Raycaster) -> None:
    # 0.25: 101 readings from 25 rays spanning the same window; readings between rays interpolate.
    axis = ScanAxis(samples=101, resolution=0.25, min_angle=-1.0, max_angle=1.0)
    device = scanner(axis)
    assert device.n_rays == 25
    reading = device.scan(room)
    ray_angles = np.linspace(-1.0, 1.0, 25)
    ray_distance, _, _ = room_hits(ORIGIN, world_dirs(ray_angles))
    expected = np.interp(np.linspace(-1.0, 1.0, 101), ray_angles, ray_distance)
    np.testing.assert_allclose(reading.ranges[0], expected, rtol=FLOAT32)
    # Readings 25 k sit on rays 6 k (100 reading gaps over 24 ray gaps).
    np.testing.assert_allclose(reading.ranges[0][::25], ray_distance[::6], rtol=FLOAT32)


def test_one_sample_averages_its_window(room: Raycaster) -> None:
    # An IR-like ranger: one reading, five rays across a 0.2 rad window.
    axis = ScanAxis(samples=1, resolution=5.0, min_angle=-0.1, max_angle=0.1)
    reading = scanner(axis).scan(room)
    sub = -0.1 + (np.arange(5) + 0.5) * 0.2 / 5
    distance, _, _ = room_hits(ORIGIN, world_dirs(sub))
    assert reading.ranges[0, 0] == pytest.approx(distance.mean(), rel=FLOAT32)
    assert AxisSampling(axis).reading_angles.tolist() == [0.0]


def test_rep117_outside_the_range_window(room: Raycaster) -> None:
    axis = ScanAxis(samples=360, min_angle=-math.pi, max_angle=math.pi * 358 / 360)
    angles = np.linspace(-math.pi, math.pi * 358 / 360, 360)
    expected, _, _ = room_hits(ORIGIN, world_dirs(angles))
    reading = scanner(axis, min_range=2.0, max_range=4.0).scan(room)
    r = reading.ranges[0]
    assert np.all(r[expected > 4.0 + 1e-4] == np.inf)
    assert np.all(r[expected < 2.0 - 1e-4] == -np.inf)
    inside = (expected > 2.0 + 1e-4) & (expected < 4.0 - 1e-4)
    assert inside.sum() > 50
    np.testing.assert_allclose(r[inside], expected[inside], rtol=FLOAT32)
    outside = (expected > 4.0 + 1e-4) | (expected < 2.0 - 1e-4)
    assert np.all(reading.intensities[0][outside] == 0.0)


def test_averaging_keeps_the_returns_of_a_cell_that_also_misses(room: Raycaster) -> None:
    # Rays of one cell: some beyond max_range (+inf), some within:
    # the reading is the mean of those within.
    axis = ScanAxis(samples=1, resolution=4.0, min_angle=0.0, max_angle=0.8)
    config = ScanConfig(horizontal=axis, max_range=5.3)
    sub = (np.arange(4) + 0.5) * 0.8 / 4
    origin = np.array([0.0, 0.0, 1.0])
    distance, _, _ = room_hits(origin, world_dirs(sub, yaw=0.0))
    within = distance <= 5.3
    assert 0 < within.sum() < 4
    reading = Scanner(config, transform_from_xyz_rpy(origin, (0, 0, 0))).scan(room)
    assert reading.ranges[0, 0] == pytest.approx(distance[within].mean(), rel=FLOAT32)


def test_range_resolution_rounds_readings(room: Raycaster) -> None:
    axis = ScanAxis(samples=200, min_angle=-1.0, max_angle=1.0)
    reading = scanner(axis, range_resolution=0.05).scan(room)
    expected, _, _ = room_hits(ORIGIN, world_dirs(np.linspace(-1.0, 1.0, 200)))
    r = reading.ranges[0]
    np.testing.assert_allclose(r / 0.05, np.round(r / 0.05), atol=1e-9)
    assert np.max(np.abs(r - expected)) <= 0.025 + 1e-5


def test_gaussian_noise_has_the_sdf_statistics(room: Raycaster) -> None:
    noise = RangeNoise(NoiseType.GAUSSIAN, mean=0.02, stddev=0.05)
    axis = ScanAxis(samples=4000, min_angle=-math.pi, max_angle=math.pi)
    device = scanner(axis, noise=noise, seed=7)
    expected, _, _ = room_hits(ORIGIN, world_dirs(np.linspace(-math.pi, math.pi, 4000)))
    residual = device.scan(room).ranges[0] - expected
    # 4000 draws: the mean within 4 standard errors, the spread within 5 %.
    assert residual.mean() == pytest.approx(0.02, abs=4 * 0.05 / math.sqrt(4000))
    assert residual.std() == pytest.approx(0.05, rel=0.05)
    again = scanner(axis, noise=noise, seed=7).scan(room).ranges
    np.testing.assert_array_equal(again[0] - expected, residual)


def test_echo_intensity_is_retro_times_cos_incidence_over_r_squared(room: Raycaster) -> None:
    axis = ScanAxis(samples=180, min_angle=-1.4, max_angle=1.4)
    reading = scanner(axis, intensity=IntensityMode.ECHO).scan(room)
    distance, retro, cos = room_hits(ORIGIN, world_dirs(np.linspace(-1.4, 1.4, 180)))
    np.testing.assert_allclose(reading.intensities[0], retro * cos / distance**2, rtol=1e-5)
    assert ScanConfig(intensity='echo').intensity is IntensityMode.ECHO  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ('kwargs', 'problem'),
    [
        ({'min_range': -1.0}, 'min_range'),
        ({'max_range': 0.0}, 'max_range'),
        ({'range_resolution': -0.1}, 'range_resolution'),
        ({'intensity': 'glow'}, 'intensity'),
        ({'update_rate': 0.0}, 'update_rate'),
        ({'horizontal': ScanAxis(samples=3, min_angle=-4.0, max_angle=4.0)}, '2 pi'),
        ({'horizontal': ScanAxis(samples=10_000, resolution=500.0)}, 'rays'),
    ],
)
def test_bad_configuration_is_refused(kwargs: dict[str, object], problem: str) -> None:
    with pytest.raises(ConfigurationError, match=problem):
        ScanConfig(**kwargs)  # type: ignore[arg-type]
