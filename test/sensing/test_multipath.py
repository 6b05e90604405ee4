"""Multipath (``sensing/multipath.py``, ``docs/multipath.md``) against image-source closed forms.

Real Open3D scenes: a sea surface at z = 0, a flat seabed at z = -H and a small sphere of
radius A at depth D_T, X metres ahead of a sensor at depth D_S. Image source (Jensen et al.,
"Computational Ocean Acoustics", ch. 2-3): the target's image in the surface is at height
+D_T, in the seabed at depth 2 H - D_T, so the direct range is R0 = sqrt(X**2 + (D_T - D_S)**2),
the surface image's R_S = sqrt(X**2 + (D_T + D_S)**2), the seabed image's
R_B = sqrt(X**2 + (2 H - D_T - D_S)**2); a one-bounce ghost arrives at half the path,
(R0 + R_image) / 2, and the path out and back by the surface at R_S.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from nps_sonar_py.devices.interface import RangerGeometry
from nps_sonar_py.devices.settings import BeamSettings
from nps_sonar_py.devices.sonar import ArrayReading, SonarArray
from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig, Scattering
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.scene import Entity, EntityState, Raycaster, SceneState, World
from nps_sonar_py.scene.tessellation import box_triangles, plane_triangles, sphere_triangles
from nps_sonar_py.sensing.multibeam import FanConfig, MultibeamSonar
from nps_sonar_py.sensing.multipath import MultipathConfig, cone_hearing, multipath_returns
from nps_sonar_py.sensing.sidescan import SidescanConfig, SidescanSonar
from nps_sonar_py.sensing.sweep import ScanningSonar, SweepConfig
from nps_sonar_py.transforms import transform_from_xyz_rpy

D_S, D_T, X, H, A = 10.0, 12.0, 15.0, 30.0, 0.3


def world(*, bottom: bool = True, wall: bool = False, target_z: float = -D_T) -> World:
    """The sphere (entity 0), the seabed (1) and, on request, a wall hiding it from the sensor."""
    entities = [Entity('target', sphere_triangles(A, 5), 1.0)]
    states = [EntityState('target', origin=transform_from_xyz_rpy((X, 0.0, target_z), (0, 0, 0)))]
    if bottom:
        entities.append(Entity('seabed', plane_triangles([400.0, 400.0]), 0.01))
        states.append(EntityState('seabed', origin=transform_from_xyz_rpy((0, 0, -H), (0, 0, 0))))
    if wall:  # across the straight line sensor-target, below the surface paths
        entities.append(Entity('wall', box_triangles([0.1, 6.0, 1.0]), 0.0))
        pose = transform_from_xyz_rpy((0.5 * X, 0.0, -0.5 * (D_S + D_T)), (0, 0, 0))
        states.append(EntityState('wall', origin=pose))
    return World('multipath', tuple(entities), SceneState('multipath', 0.0, tuple(states)))


def pose_at(elevation: float) -> np.ndarray:
    """The sensor at depth D_S, its axis at ``elevation`` above the horizontal."""
    return transform_from_xyz_rpy((0.0, 0.0, -D_S), (0.0, -elevation, 0.0))


def echo(half_angle: float, **kwargs: object) -> EchoConfig:
    settings: dict[str, object] = {
        'beam_width': 2.0 * half_angle,
        'pattern': BeamPattern.UNIFORM,
        'n_way': 2,
        'absorption': Absorption.NONE,
        'min_range': 1.0,
        'max_range': 60.0,
        'n_bins': 5900,
        'sound_speed': 1500.0,
    }
    settings.update(kwargs)
    return EchoConfig(**settings)  # type: ignore[arg-type]


def target_returns(caster: Raycaster, sonar: ScanningSonar, config: MultipathConfig) -> np.ndarray:
    """Equivalent ranges of the multipath returns scattered by the target, head at 0."""
    directions = sonar.directions(0.0)
    hits = caster.cast(sonar.origin, directions)
    axis = sonar.world_from_body[:3, 0]
    n = len(sonar.pattern)
    _, extra = multipath_returns(
        caster,
        sonar.origin,
        directions,
        hits,
        config,
        hear=cone_hearing(sonar.echo, axis, n),
        ray_pattern=np.ones(n),
        rays_per_beam=n,
        n_way=2,
        max_range=sonar.echo.max_range,
    )
    assert extra.entity is not None
    ranges: np.ndarray = extra.range[extra.entity == 0]
    return ranges


def nearest_of_cluster(ranges: np.ndarray, centre: float, width: float) -> float:
    near = ranges[np.abs(ranges - centre) < width]
    assert near.size > 0, f'no return near {centre:.3f} m'
    return float(near.min())


def first_range(distance_out: float, distance_back: float, gamma: float) -> float:
    """Nearest equivalent range of a path to the sphere: (R_out + R_back)/2 - A cos(gamma/2).

    ``gamma`` is the angle at the sphere's centre between the directions of the two (image)
    sources; first order in A / R.
    """
    return 0.5 * (distance_out + distance_back) - A * math.cos(0.5 * gamma)


def angle_between(a: np.ndarray, b: np.ndarray) -> float:
    return math.acos(float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))))


@pytest.mark.parametrize('bounces', [1, 2])
def test_echoes_fall_at_the_image_source_ranges(bounces: int) -> None:
    caster = Raycaster(world())
    # A cone wide enough to see the target, its surface image and its seabed image (not the
    # images by both mirrors, at more than 75 degrees from the horizontal).
    sonar = ScanningSonar(
        echo(math.radians(64.0)),
        SweepConfig(),
        pose_at(math.radians(-6.0)),
        n_rays=300_000,
    )
    ranges = target_returns(caster, sonar, MultipathConfig(max_bounces=bounces))
    centre = np.array([X, 0.0, -D_T])
    sensor = np.array([0.0, 0.0, -D_S])
    surface_image = np.array([0.0, 0.0, D_S])  # of the sensor: same distance to the target
    seabed_image = np.array([0.0, 0.0, -2.0 * H + D_S])
    r0 = math.hypot(X, D_T - D_S)
    r_s = math.hypot(X, D_T + D_S)
    r_b = math.hypot(X, 2.0 * H - D_T - D_S)
    to_sensor, to_surface, to_seabed = (p - centre for p in (sensor, surface_image, seabed_image))
    expected = {
        'surface': first_range(r0, r_s, angle_between(to_sensor, to_surface)),
        'seabed': first_range(r0, r_b, angle_between(to_sensor, to_seabed)),
    }
    if bounces == 2:
        expected['surface twice'] = r_s - A  # out and back by the surface
        expected['seabed, surface'] = first_range(r_b, r_s, angle_between(to_seabed, to_surface))
    assert abs(0.5 * (r0 + r_s) - expected['surface']) < 2 * A  # the clusters are apart
    for name, value in expected.items():
        got = nearest_of_cluster(ranges, value, 2.0 * A)
        assert got == pytest.approx(value, abs=0.03), name
    # Nothing else scatters off the target.
    others = np.abs(ranges[:, None] - np.array(list(expected.values()))[None]).min(axis=1)
    assert np.all(others < 2.0 * A)


def test_two_surface_bounces_give_the_image_source_level() -> None:
    """Out and back by the surface: the echo of the target's image, |R|**4 weaker."""
    loss_db = 1.5
    elevation = math.atan2(D_T + D_S, X)  # towards the surface image of the target
    half = math.radians(5.0)
    config = echo(half, pattern=BeamPattern.PISTON, min_range=20.0, max_range=40.0, n_bins=400)
    sweep = SweepConfig()
    pose = pose_at(elevation)
    r_s = math.hypot(X, D_T + D_S)

    ghost = ScanningSonar(
        config, sweep, pose, n_rays=20_000, multipath=MultipathConfig(2, 0.0, loss_db)
    ).ping(Raycaster(world(bottom=False)), 0.0)
    image = ScanningSonar(config, sweep, pose, n_rays=20_000).ping(
        Raycaster(world(bottom=False, target_z=D_T)), 0.0
    )
    window = np.abs(ghost.bin_centres - r_s) < 2.0 * A
    assert image.total > 0.0
    assert image.intensity[~window].sum() == 0.0
    expected = image.total * 10.0 ** (-2.0 * loss_db / 10.0)
    assert ghost.intensity[window].sum() == pytest.approx(expected, rel=1e-3)
    # And the image's own level is the Lambert sphere's, mu (2 pi A**2 / 3) / R**4 (mu = 1),
    # to the first-order terms in A / R and in the piston's fall-off across the sphere.
    assert image.total == pytest.approx((2.0 * math.pi * A**2 / 3.0) / r_s**4, rel=0.05)


def test_no_ghost_when_the_scatterer_does_not_see_the_sensor() -> None:
    sonar = ScanningSonar(
        echo(math.radians(40.0), max_range=40.0),
        SweepConfig(),
        pose_at(math.radians(20.0)),
        n_rays=100_000,
    )
    one = MultipathConfig(max_bounces=1)
    seen = target_returns(Raycaster(world(bottom=False)), sonar, one)
    hidden = target_returns(Raycaster(world(bottom=False, wall=True)), sonar, one)
    assert seen.size > 0
    assert hidden.size == 0
    # Two bounces: out and back by the surface, over the wall, still arrives.
    two = target_returns(Raycaster(world(bottom=False, wall=True)), sonar, MultipathConfig(2))
    r_s = math.hypot(X, D_T + D_S)
    assert two.size > 0
    assert np.all(np.abs(two - r_s) < 2.0 * A)


def fan(multipath: MultipathConfig | None) -> MultibeamSonar:
    return MultibeamSonar(
        echo(math.radians(1.0), pattern=BeamPattern.PISTON, max_range=40.0, n_bins=780),
        FanConfig(
            beams=31,
            min_angle=-math.radians(15.0),
            max_angle=math.radians(15.0),
            vertical_width=math.radians(120.0),
            rays_horizontal=3,
            rays_vertical=600,
        ),
        pose_at(0.0),
        multipath=multipath,
    )


def test_the_fan_shows_the_ghost_beyond_the_true_echo() -> None:
    caster = Raycaster(world(bottom=False))
    plain = fan(None).ping(caster)
    off = fan(MultipathConfig(0, -3.0, 2.0)).ping(caster)
    ghosts = fan(MultipathConfig(1)).ping(caster)
    np.testing.assert_array_equal(off.profiles, plain.profiles)  # bit-identical when off
    np.testing.assert_array_equal(off.ranges, plain.ranges)
    centre = 15  # the beam at azimuth 0, towards the target
    r0 = math.hypot(X, D_T - D_S)
    ghost = 0.5 * (r0 + math.hypot(X, D_T + D_S))
    edges = plain.bin_edges
    lit = np.flatnonzero(plain.profiles[centre] > 0.0)
    assert edges[lit[0]] <= r0 - A + 0.05
    assert edges[lit[-1] + 1] < ghost - A  # no ghost without multipath
    beyond = np.flatnonzero(ghosts.profiles[centre] > plain.profiles[centre])
    assert beyond.size > 0
    first = edges[beyond[0]]
    assert first == pytest.approx(ghost - A, abs=0.1)
    assert np.all(np.abs(edges[beyond] - ghost) < 2.0 * A)


def test_bad_multipath_settings_are_refused_in_one_line() -> None:
    for kwargs, word in (
        ({'max_bounces': 3}, 'max_bounces'),
        ({'max_bounces': True}, 'max_bounces'),
        ({'sea_surface_z': math.nan}, 'sea_surface_z'),
        ({'surface_loss_db': -1.0}, 'surface_loss_db'),
    ):
        with pytest.raises(ConfigurationError) as error:
            MultipathConfig(**kwargs)
        assert word in str(error.value)
        assert '\n' not in str(error.value)
    with pytest.raises(ConfigurationError, match='lambert'):
        ScanningSonar(
            echo(0.1, scattering=Scattering.SPECULAR),
            SweepConfig(),
            np.eye(4),
            multipath=MultipathConfig(1),
        )


def test_a_single_beam_array_hears_the_ghost_in_its_own_element() -> None:
    """Element 0 looks at the target and its surface image; element 1 looks away."""
    looks = (math.radians(20.0), math.radians(-80.0))
    poses = np.stack([transform_from_xyz_rpy((0, 0, 0), (0, -e, 0)) for e in looks])
    geometry = RangerGeometry(
        'world', 'array', np.eye(4), np.zeros(3), ('a', 'b'), poses, np.zeros((2, 3))
    )
    config = echo(math.radians(40.0), max_range=40.0, n_bins=780)
    caster = Raycaster(world(bottom=False))

    def read(multipath: MultipathConfig | None) -> ArrayReading:
        array = SonarArray(config, pose_at(0.0), geometry, n_rays=100_000, multipath=multipath)
        return array.read(caster)

    plain, ghosts = read(None), read(MultipathConfig(1))
    r0 = math.hypot(X, D_T - D_S)
    ghost = 0.5 * (r0 + math.hypot(X, D_T + D_S))
    centres = plain.pings[0].bin_centres
    added = ghosts.pings[0].intensity - plain.pings[0].intensity
    assert np.all(added >= 0.0)
    lit = centres[added > 0.0]
    assert lit.size > 0
    assert np.all(np.abs(lit - ghost) < 2.0 * A)
    assert plain.pings[0].range == pytest.approx(r0 - A, abs=0.02)
    assert ghosts.ranges[0] == plain.ranges[0]  # the nearest return is the ray's own
    np.testing.assert_array_equal(ghosts.pings[1].intensity, plain.pings[1].intensity)


def test_the_settings_carry_multipath_to_the_core_and_refuse_bad_values() -> None:
    beam = BeamSettings(max_bounces=2, sea_surface_z=-3.0, surface_loss_db=1.0)
    assert beam.multipath_config() == MultipathConfig(2, -3.0, 1.0)
    assert BeamSettings().multipath_config() == MultipathConfig()
    with pytest.raises(ConfigurationError) as error:
        BeamSettings(max_bounces=3)
    assert 'max_bounces' in str(error.value)
    assert '\n' not in str(error.value)


def test_the_side_scan_hears_ghosts_never_before_the_direct_echo() -> None:
    """A sphere to port over a seabed: the side-scan's ghosts, in both channels.

    Every ghost path sensor -> A -> B -> sensor passes the sphere, so (triangle inequality)
    none is shorter than twice the direct range to the sphere's nearest point: no ghost
    before R0 - A in either channel. The mirror off the seabed lights the port channel at the
    image-source range (R0 + R_B) / 2 of the sensor's image in the seabed. Starboard hears the
    paths mirrored by the sphere onto the seabed on its side, later still.
    """
    y = 40.0  # the seabed mirror point is then 43.6 degrees down: inside the fan
    entities = (
        Entity('target', sphere_triangles(A, 5), 1.0),
        Entity('seabed', plane_triangles([400.0, 400.0]), 0.01),
    )
    states = (
        EntityState('target', origin=transform_from_xyz_rpy((0.0, y, -D_T), (0, 0, 0))),
        EntityState('seabed', origin=transform_from_xyz_rpy((0, 0, -H), (0, 0, 0))),
    )
    caster = Raycaster(World('sidescan', entities, SceneState('sidescan', 0.0, states)))
    config = SidescanConfig(rays_along=3)
    e = EchoConfig(absorption=Absorption.NONE, min_range=0.0, max_range=60.0, n_bins=600)
    pose = transform_from_xyz_rpy((0.0, 0.0, -D_S), (0, 0, 0))
    plain = SidescanSonar(e, config, pose).ping(caster)
    ghosts = SidescanSonar(e, config, pose, multipath=MultipathConfig(1)).ping(caster)
    added = ghosts.profiles - plain.profiles  # (port, starboard)
    assert np.all(added >= -1e-12 * plain.profiles.max())
    centres = 0.5 * (plain.bin_edges[:-1] + plain.bin_edges[1:])
    direct = math.hypot(y, D_T - D_S)
    assert np.all(added[:, centres < direct - A - e.bin_width] == 0.0)
    image = math.hypot(y, 2.0 * H - D_T - D_S)  # the sensor's image in the seabed
    near = np.abs(centres - 0.5 * (direct + image)) <= A + e.bin_width
    assert added[0, near].sum() > 0.0


def test_multipath_through_a_sound_speed_profile_is_refused_in_one_line() -> None:
    """Ghosts along bent rays are not modelled: the rig refuses both settings together.

    Negative controls: either setting alone is accepted. ``multipath_returns`` refuses bent
    hits with the same line (no ``TypeError`` half-way through a ping).
    """
    from nps_sonar_py.devices.rig import medium_caster
    from nps_sonar_py.sensing.multipath import THROUGH_A_PROFILE
    from nps_sonar_py.sensing.refraction import RefractingCaster

    caster = Raycaster(world())
    profile = (0.0, 1500.0, 100.0, 1520.0)
    with pytest.raises(ConfigurationError) as error:
        medium_caster(caster, BeamSettings(max_bounces=1, sound_speed_profile=profile))
    line = str(error.value)
    assert line == THROUGH_A_PROFILE
    assert 'max_bounces' in line
    assert 'sound_speed_profile_file' in line
    assert '\n' not in line
    assert medium_caster(caster, BeamSettings(max_bounces=1)) is caster
    bent = medium_caster(caster, BeamSettings(sound_speed_profile=profile))
    assert isinstance(bent, RefractingCaster)
    sonar = ScanningSonar(echo(math.radians(10.0)), SweepConfig(), pose_at(0.0), n_rays=50)
    directions = sonar.directions(0.0)
    hits = bent.cast(sonar.origin, directions)
    assert hits.bending is not None
    assert np.any(hits.hit)
    with pytest.raises(ConfigurationError, match='max_bounces > 0 cannot be combined'):
        multipath_returns(
            bent,
            sonar.origin,
            directions,
            hits,
            MultipathConfig(max_bounces=1),
            hear=cone_hearing(sonar.echo, sonar.world_from_body[:3, 0], 50),
            ray_pattern=np.ones(50),
            rays_per_beam=50,
            n_way=2,
            max_range=sonar.echo.max_range,
        )


def ulp32(x: float) -> float:
    """The spacing of float32 values at ``x``: the scene's own precision there (Open3D)."""
    return float(np.spacing(np.float32(abs(x))))


#: The wall's lean: its face's normal is (-cos, 0, sin) of it, facing the sensor and up.
LEAN = math.radians(30.0)


def seabed_and_wall(x0: float, y0: float) -> World:
    """A seabed at z = -30 and a leaning wall through (x0 + 32, y0, -20), around (x0, y0)."""
    normal = np.array([-math.cos(LEAN), 0.0, math.sin(LEAN)])
    centre = np.array([x0 + 32.0, y0, -20.0]) - normal  # the box is 2 m thick
    seabed = EntityState('seabed', origin=transform_from_xyz_rpy((x0, y0, -30.0), (0, 0, 0)))
    wall = EntityState('wall', origin=transform_from_xyz_rpy(centre, (0.0, LEAN, 0.0)))
    entities = (
        Entity('seabed', plane_triangles([200.0, 200.0]), 0.5),
        Entity('wall', box_triangles([2.0, 200.0, 80.0]), 0.5),
    )
    return World('far', entities, SceneState('far', 0.0, (seabed, wall)))


@pytest.mark.parametrize('far', [0.0, 1000.0, 5000.0], ids=['origin', '1 km', '5 km'])
def test_ghost_path_lengths_are_exact_wherever_the_scene_sits(far: float) -> None:
    """Sensor -> seabed (mirror) -> leaning wall (scatter) -> sensor, against the closed form.

    A ray ``d`` from ``o`` meets the seabed ``z = -30`` at ``P = o + (30 + o_z) / (-d_z) d``,
    is mirrored to ``r = (d_x, d_y, -d_z)``, meets the wall (through ``Q``, normal ``n``) at
    ``X = P + s r``, ``s = (Q - P) . n / (r . n)``, and returns straight to the sensor: the
    image-source path, ``R_eq = (|P - o| + s + |X - o|) / 2``. The mirrored ray is cast from
    a start 1e-4 m + 1e-6 of the distance from the world origin off the seabed; its range
    was taken as the leg, which put these ghosts 0.27 mm off at the origin, 1.7 mm at 1 km
    and 8.5 mm at 5 km (4 to 16 times the tolerance: the negative control, measured with
    that leg). Now they are exact to the scene's own float32 precision where it sits
    (0.009, 0.016 and 0.39 mm).
    """
    x0, y0 = 0.6 * far + 0.37, 0.8 * far - 0.21  # not float32 values: rounded when cast
    caster = Raycaster(seabed_and_wall(x0, y0))
    origin = np.array([x0, y0, -10.0])
    elevation = np.radians(np.linspace(-45.0, -40.0, 12))
    azimuth = np.radians(np.linspace(-20.0, 20.0, 12))
    d = np.stack(
        [
            np.cos(elevation) * np.cos(azimuth),
            np.cos(elevation) * np.sin(azimuth),
            np.sin(elevation),
        ],
        axis=1,
    )
    hits = caster.cast(origin, d)
    n = d.shape[0]
    _, extra = multipath_returns(
        caster,
        origin,
        d,
        hits,
        MultipathConfig(max_bounces=1, sea_surface_z=0.0),
        hear=cone_hearing(echo(math.radians(89.0)), np.tile([1.0, 0.0, 0.0], (n, 1)), 1),
        ray_pattern=np.ones(n),
        rays_per_beam=1,
        n_way=2,
        max_range=60.0,
    )
    mirror = origin + ((30.0 - 10.0) / -d[:, 2])[:, None] * d
    reflected = d * np.array([1.0, 1.0, -1.0])
    normal = np.array([-math.cos(LEAN), 0.0, math.sin(LEAN)])
    through = np.array([x0 + 32.0, y0, -20.0])
    s = ((through - mirror) @ normal) / (reflected @ normal)
    wall = mirror + s[:, None] * reflected
    expected = 0.5 * (
        np.linalg.norm(mirror - origin, axis=1) + s + np.linalg.norm(wall - origin, axis=1)
    )
    assert extra.entity is not None
    assert np.all(extra.entity == 1)  # every ghost off the wall
    ray = extra.beam  # one ray per beam: the ray's own index, forward and reverse
    assert sorted(ray.tolist()) == sorted(2 * list(range(n)))
    error = np.abs(extra.range - expected[ray])
    # the scene's float32 rounding where it sits: a few spacings of its coordinates
    tolerance = 4.0 * ulp32(np.hypot(x0, y0) + 40.0) + 1e-6
    assert error.max() <= tolerance, (error.max(), tolerance)
