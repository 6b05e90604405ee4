"""Casting along bent rays (RefractingCaster) in real Open3D scenes, against closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.typing import NDArray

from nps_sonar_py.devices.rig import medium_caster
from nps_sonar_py.devices.settings import BeamSettings
from nps_sonar_py.echo.ray_trace import sounding
from nps_sonar_py.echo.sound_speed import SoundSpeedProfile
from nps_sonar_py.errors import InputError
from nps_sonar_py.scene.hits import RayHits
from nps_sonar_py.scene.raycaster import Raycaster
from nps_sonar_py.scene.scene_state import SceneState
from nps_sonar_py.scene.tessellation import Triangles, box_triangles, plane_triangles
from nps_sonar_py.scene.world import Entity, World
from nps_sonar_py.sensing.refraction import RefractingCaster, scene_bounds

SURFACE_Z = 10.0  # the sea surface is not at world z = 0 here: the depth is SURFACE_Z - z
SOURCE_DEPTH = 5.0
D = 200.0  # depth of the flat seabed


def seabed(depth: float = D, tilt: float = 0.0) -> Raycaster:
    plane = plane_triangles([1200.0, 1200.0], normal=(math.sin(tilt), 0.0, math.cos(tilt)))
    triangles = Triangles(
        plane.vertices + np.array([0.0, 0.0, SURFACE_Z - depth]), plane.triangles
    )
    box = Triangles(
        box_triangles([2.0, 2.0, 2.0]).vertices + np.array([0.0, 30.0, -150.0]),
        box_triangles([2.0, 2.0, 2.0]).triangles,
    )
    world = World(
        'test',
        (Entity('bed', triangles, reflectivity=0.5, retro=3.0), Entity('box', box)),
        SceneState('test', 0.0, ()),
    )
    return Raycaster(world)


def fan(count: int = 61, half_width: float = math.radians(60.0)) -> tuple[np.ndarray, np.ndarray]:
    """Rays across track (y), from nadir -half_width to +half_width; their depression angles."""
    angle = np.linspace(-half_width, half_width, count)
    d = np.stack([np.zeros_like(angle), np.sin(angle), -np.cos(angle)], axis=1)
    return d, math.pi / 2.0 - np.abs(angle)


ORIGIN = np.array([0.0, 0.0, SURFACE_Z - SOURCE_DEPTH])


def linear() -> SoundSpeedProfile:
    return SoundSpeedProfile.from_rows([(0.0, 1520.0), (300.0, 1475.0)], source='test')


def layered() -> SoundSpeedProfile:
    rows = [(0.0, 1510.0), (20.0, 1509.0), (60.0, 1490.0), (120.0, 1482.0), (400.0, 1486.0)]
    return SoundSpeedProfile.from_rows(rows, source='test')


@pytest.mark.parametrize('boxed', [False, True], ids=['all-chords', 'scene-box'])
@pytest.mark.parametrize('profile', [linear(), layered()], ids=['linear', 'layered'])
def test_a_flat_seabed_sounds_at_its_depth(profile: SoundSpeedProfile, boxed: bool) -> None:
    d, depression = fan()
    inner = seabed()
    bounds = scene_bounds(inner) if boxed else None
    hits = RefractingCaster(inner, profile, surface_z=SURFACE_Z, bounds=bounds).cast(ORIGIN, d)
    assert np.all(hits.entity == 0)
    depth, offset = sounding(profile, SOURCE_DEPTH, depression, 2.0 * hits.bending.travel_time)
    np.testing.assert_allclose(depth, D, rtol=1e-6)
    # symmetric fan, symmetric answer; the outer beams bend: offsets differ from straight
    np.testing.assert_allclose(offset, offset[::-1], rtol=1e-6)
    straight = (D - SOURCE_DEPTH) / np.tan(depression)
    assert abs(offset[0] - straight[0]) > 1.0
    c_ref = profile.speed_at(SOURCE_DEPTH)
    np.testing.assert_allclose(hits.ranges, c_ref * hits.bending.travel_time, rtol=1e-15)
    np.testing.assert_array_equal(hits.retro, 3.0)
    np.testing.assert_array_equal(hits.reflectivity, 0.5)


def test_the_nadir_ray_of_a_linear_profile_has_the_closed_form_time() -> None:
    d = np.array([[0.0, 0.0, -1.0]])
    profile = linear()
    hits = RefractingCaster(seabed(), profile, surface_z=SURFACE_Z).cast(ORIGIN, d)
    g = (1475.0 - 1520.0) / 300.0
    c1, c2 = profile.speed_at(SOURCE_DEPTH), profile.speed_at(D)
    assert hits.bending.travel_time[0] == pytest.approx(math.log(c2 / c1) / g, rel=1e-6)
    assert hits.path_length[0] == pytest.approx(D - SOURCE_DEPTH, rel=1e-6)
    assert hits.cos_incidence[0] == pytest.approx(1.0, rel=1e-6)


def test_a_constant_profile_leaves_every_range_as_the_straight_cast() -> None:
    caster = seabed(tilt=0.2)
    rng = np.random.default_rng(4)
    d = rng.normal(size=(500, 3))
    d[:, 2] = -np.abs(d[:, 2])  # down, into the water
    d /= np.linalg.norm(d, axis=1)[:, None]
    rows = [(0.0, 1500.0), (50.0, 1500.0), (800.0, 1500.0)]
    for profile in (
        SoundSpeedProfile.constant(1500.0),
        SoundSpeedProfile.from_rows(rows, source='t'),
    ):
        hits = RefractingCaster(caster, profile, surface_z=SURFACE_Z).cast(ORIGIN, d)
        straight = caster.cast(np.broadcast_to(ORIGIN, d.shape), d)
        np.testing.assert_array_equal(hits.ranges[hits.hit], straight.ranges[hits.hit])
        np.testing.assert_array_equal(hits.hit, straight.hit)
        np.testing.assert_array_equal(hits.entity, straight.entity)
        np.testing.assert_allclose(hits.cos_incidence, straight.cos_incidence, atol=1e-6)
        np.testing.assert_allclose(
            hits.bending.travel_time[hits.hit], straight.ranges[hits.hit] / 1500.0
        )


@pytest.mark.parametrize('boxed', [False, True], ids=['all-chords', 'scene-box'])
@pytest.mark.parametrize('sagitta', [1e-3, 1e-5])
def test_the_hits_on_a_sloping_seabed_lie_on_it(sagitta: float, boxed: bool) -> None:
    # a seabed sloping across track (its normal tilted about x): each hit, taken back through
    # the processing inverse with the same profile, must lie on the plane
    tilt = 0.3
    profile = layered()
    d, depression = fan(41)
    plane = plane_triangles([3000.0, 3000.0], normal=(0.0, math.sin(tilt), math.cos(tilt)))
    triangles = Triangles(plane.vertices + np.array([0.0, 0.0, SURFACE_Z - D]), plane.triangles)
    world = World('test', (Entity('bed', triangles),), SceneState('test', 0.0, ()))
    inner = Raycaster(world)
    bounds = scene_bounds(inner) if boxed else None
    caster = RefractingCaster(inner, profile, surface_z=SURFACE_Z, sagitta=sagitta, bounds=bounds)
    hits = caster.cast(ORIGIN, d)
    assert hits.hit.all()
    depth, offset = sounding(profile, SOURCE_DEPTH, depression, 2.0 * hits.bending.travel_time)
    y = np.sign(d[:, 1]) * offset
    z = SURFACE_Z - depth
    distance = math.sin(tilt) * y + math.cos(tilt) * (z - (SURFACE_Z - D))
    # the hit is put back on the arc where it meets the surface's plane, whatever the chords
    # (a chord is up to the sagitta, 1 mm, off the arc): only the float32 scene and hits
    # remain (vertices 450 m from the origin: ~3e-5 m)
    assert np.max(np.abs(distance)) < 1e-4


def test_rays_that_leave_the_water_or_start_above_it() -> None:
    caster = seabed()
    refracting = RefractingCaster(caster, linear(), surface_z=SURFACE_Z)
    up = np.array([[0.0, 0.6, 0.8]])  # toward the surface: leaves the water, no hit
    hits = refracting.cast(ORIGIN, up)
    assert not hits.hit[0]
    assert hits.entity[0] == -1
    assert math.isnan(hits.reflectivity[0])
    dry = np.array([0.0, 0.0, SURFACE_Z + 5.0])  # above the surface: cast straight
    down = np.array([[0.0, 0.0, -1.0]])
    hits = refracting.cast(dry, down)
    assert hits.ranges[0] == pytest.approx(D + 5.0, rel=1e-6)


def test_a_turning_ray_ends_without_a_hit() -> None:
    # speed rising fast with depth: a shallow ray turns back above the seabed
    profile = SoundSpeedProfile.from_rows([(0.0, 1480.0), (100.0, 1530.0)], source='t')
    theta = math.radians(5.0)  # turns where c = 1480 / cos(5 deg), 11.3 m down
    d = np.array([[0.0, math.cos(theta), -math.sin(theta)]])
    hits = RefractingCaster(seabed(), profile, surface_z=SURFACE_Z).cast(ORIGIN, d)
    assert not hits.hit[0]


def test_the_settings_wrap_the_caster_only_with_a_profile(tmp_path) -> None:
    caster = seabed()
    assert medium_caster(caster, BeamSettings()) is caster
    wrapped = medium_caster(
        caster, BeamSettings(sound_speed_profile=(0.0, 1500.0, 100.0, 1490.0), sea_surface_z=2.0)
    )
    assert isinstance(wrapped, RefractingCaster)
    assert wrapped.surface_z == 2.0
    bad = tmp_path / 'bad.csv'
    bad.write_text('0,1500\n0,1490\n')
    with pytest.raises(InputError, match=r'bad.csv:2: row 2: depths must be strictly'):
        medium_caster(caster, BeamSettings(sound_speed_profile_file=str(bad)))
    with pytest.raises(InputError, match=r'^sound_speed_profile: row 1: sound speed'):
        medium_caster(caster, BeamSettings(sound_speed_profile=(0.0, 5.0)))


HIT_FIELDS = (
    'ranges',
    'travel_time',
    'path_length',
    'cos_incidence',
    'reflectivity',
    'retro',
    'entity',
)


def value(hits: RayHits, field: str) -> NDArray[np.floating]:
    """The hits' field ``field`` (the bent paths' travel time for ``travel_time``)."""
    return hits.bending.travel_time if field == 'travel_time' else getattr(hits, field)


def test_the_kept_chords_answer_as_fresh_ones_after_a_move_and_a_turn() -> None:
    # the chords depend on the source depth and the rays' sines only: a horizontal move and a
    # turn in heading reuse them and must give exactly a fresh caster's answer
    inner = seabed(tilt=0.1)
    profile = layered()

    def caster() -> RefractingCaster:
        return RefractingCaster(inner, profile, surface_z=SURFACE_Z, bounds=scene_bounds(inner))

    kept = caster()
    d, _ = fan()
    kept.cast(ORIGIN, d)
    heading = 0.7
    turn = np.array(
        [
            [math.cos(heading), -math.sin(heading), 0.0],
            [math.sin(heading), math.cos(heading), 0.0],
            [0.0, 0.0, 1.0],
        ]
    )
    turned = d @ turn.T
    np.testing.assert_array_equal(turned[:, 2], d[:, 2])  # a turn keeps the sines
    moved = ORIGIN + np.array([35.0, -20.0, 0.0])
    again = kept.cast(moved, turned)
    assert kept.frames_made == 1
    fresh = caster().cast(moved, turned)
    assert fresh.hit.all()
    for field in HIT_FIELDS:
        np.testing.assert_array_equal(value(again, field), value(fresh, field))
    # the same origin given once per ray: the same chords, the same answer
    per_ray = kept.cast(np.tile(moved, (d.shape[0], 1)), turned)
    assert kept.frames_made == 1
    for field in HIT_FIELDS:
        np.testing.assert_array_equal(value(per_ray, field), value(fresh, field))
    # a change of depth makes them anew: the fresh answer at the new depth
    deeper = moved - np.array([0.0, 0.0, 3.0])
    kept_deeper = kept.cast(deeper, turned)
    assert kept.frames_made == 2
    fresh_deeper = caster().cast(deeper, turned)
    for field in HIT_FIELDS:
        np.testing.assert_array_equal(value(kept_deeper, field), value(fresh_deeper, field))
    assert np.all(kept_deeper.bending.travel_time < again.bending.travel_time)


def test_a_moved_and_turned_sounder_still_reads_the_flat_seabed() -> None:
    # the kept chords placed at a new position and heading: the closed-form depth still
    profile = layered()
    inner = seabed()
    refracting = RefractingCaster(inner, profile, surface_z=SURFACE_Z, bounds=scene_bounds(inner))
    d, depression = fan()
    refracting.cast(ORIGIN, d)
    heading = -2.1
    c, s = math.cos(heading), math.sin(heading)
    turned = d @ np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]).T
    hits = refracting.cast(ORIGIN + np.array([-120.0, 64.0, 0.0]), turned)
    assert refracting.frames_made == 1
    assert np.all(hits.entity == 0)
    depth, _ = sounding(profile, SOURCE_DEPTH, depression, 2.0 * hits.bending.travel_time)
    np.testing.assert_allclose(depth, D, rtol=1e-6)


def test_the_scene_box_follows_a_moved_entity() -> None:
    # the bed: 1200 m square at depth D; the box: 2 m cube centred 30 m across, z = -150
    inner = seabed()
    bounds = scene_bounds(inner)
    low, high = bounds()
    np.testing.assert_allclose(low, [-600.0, -600.0, SURFACE_Z - D])
    np.testing.assert_allclose(high, [600.0, 600.0, -149.0])
    again_low, again_high = bounds()
    np.testing.assert_array_equal(again_low, low)
    np.testing.assert_array_equal(again_high, high)
    lift = np.eye(4)
    lift[2, 3] = 100.0
    inner.set_entity_pose('box', lift)
    low, high = bounds()
    np.testing.assert_allclose(low, [-600.0, -600.0, SURFACE_Z - D])
    np.testing.assert_allclose(high, [600.0, 600.0, -49.0])


def test_chords_outside_the_scene_box_are_not_cast_and_change_nothing() -> None:
    # the sounder 100 m inside the bed's edge (y = -600 m): the beams to -y reach past the edge,
    # their chords beyond it are culled; every hit and miss is the one of the same chords all
    # cast (a box as deep but unbounded across: the same chords, none culled)
    profile = layered()
    inner = seabed()
    origin = ORIGIN + np.array([0.0, -500.0, 0.0])
    d, depression = fan()
    box = scene_bounds(inner)

    def unbounded() -> tuple[np.ndarray, np.ndarray]:
        low, high = box()
        return np.array([-np.inf, -np.inf, low[2]]), np.array([np.inf, np.inf, high[2]])

    boxed = RefractingCaster(inner, profile, surface_z=SURFACE_Z, bounds=box)
    every = RefractingCaster(inner, profile, surface_z=SURFACE_Z, bounds=unbounded)
    culled, full = boxed.cast(origin, d), every.cast(origin, d)
    assert boxed.last_chord_count < every.last_chord_count
    for field in HIT_FIELDS:
        np.testing.assert_array_equal(value(culled, field), value(full, field))
    assert culled.hit[d.shape[0] // 2 :].all()  # to +y: the bed
    assert not culled.hit.all()  # the outer beams to -y pass its edge (the first rays)
    depth, offset = sounding(profile, SOURCE_DEPTH, depression, 2.0 * culled.bending.travel_time)
    np.testing.assert_allclose(depth[culled.hit], D, rtol=1e-6)
    assert np.all(-500.0 + np.sign(d[culled.hit, 1]) * offset[culled.hit] >= -600.0)


def test_near_level_rays_meet_a_wall_where_their_arcs_do() -> None:
    # rays 1 to 4 deg below the horizontal toward a vertical wall 300 m across, chords up to
    # 0.5 m off their arcs: a chord's hit is far off the arc along it, where the second-order
    # step onto the plane leaves about a mm and the exact Newton steps finish; the offset from
    # the time (the processing inverse) is the wall's
    source = 100.0
    profile = linear()
    wall = plane_triangles([2000.0, 2000.0], normal=(0.0, 1.0, 0.0))
    shift = np.array([0.0, 300.0, SURFACE_Z - 300.0])
    world = World(
        'test',
        (Entity('wall', Triangles(wall.vertices + shift, wall.triangles)),),
        SceneState('test', 0.0, ()),
    )
    inner = Raycaster(world)
    caster = RefractingCaster(
        inner, profile, surface_z=SURFACE_Z, sagitta=0.5, bounds=scene_bounds(inner)
    )
    depression = np.radians(np.linspace(1.0, 4.0, 13))
    d = np.stack([np.zeros_like(depression), np.cos(depression), -np.sin(depression)], axis=1)
    hits = caster.cast(np.array([0.0, 0.0, SURFACE_Z - source]), d)
    assert hits.hit.all()
    _, offset = sounding(profile, source, depression, 2.0 * hits.bending.travel_time)
    # float32 scene and hits 300 m away: ~3e-5 m
    np.testing.assert_allclose(offset, 300.0, atol=1e-4)
