"""The side-scan through every kind of sound-speed profile, the sensor above, in and below layers.

Issue 35 item 2: with the sensor inside a thermocline, a straight piece of a ray that starts
below the source but above the scene's depths was cut (the refracting caster casts only the
part within the scene's depths) and its time counted from the cut, so every seabed return
came about 2 m early (1.4 m of vertical travel) whatever the size of the speed drop. Here the
side-scan's own rays are cast as the node casts them (``devices.rig.medium_caster``: the
scene's box on) and each seabed hit is compared with the ray tracer's time to the seabed's
depth (``echo.ray_trace``, independent of the chords), and the ping's first seabed return and
the box's echo with the tracer's ranges to where they are.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from flat_seabed import box_model, seabed_file, sidescan_echo
from numpy.typing import NDArray

from nps_sonar_py.echo.ray_trace import trace
from nps_sonar_py.echo.sound_speed import SoundSpeedProfile
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.refraction import RefractingCaster, scene_bounds
from nps_sonar_py.sensing.sidescan import SidescanConfig, SidescanSonar

H = 9.85  # altitude over the flat seabed z = 0
BOX_Y, BOX_H = 27.5, 1.0  # the port box's near face (ground range) and height
MAX_RANGE, N_BINS = 75.0, 2000
DR = MAX_RANGE / N_BINS
TOLERANCE = 1e-4  # m: Open3D casts in float32 (2e-6 m at 25 m), the tracer is exact
C0 = 1500.0


def thermocline(drop: float) -> SoundSpeedProfile:
    """The dataset's thermocline: C0 to 10.6 m, down by ``drop`` over 10 m, then constant."""
    rows = [(0.0, C0), (10.6, C0), (20.6, C0 - drop), (200.0, C0 - drop)]
    return SoundSpeedProfile.from_rows(rows, source='thermocline')


PROFILES = {
    'isovelocity': SoundSpeedProfile.constant(C0),
    'gradient': SoundSpeedProfile.from_rows([(0.0, 1520.0), (60.0, 1490.0)], source='gradient'),
    'thermocline': thermocline(11.6),
    'weak-thermocline': thermocline(2.0),
    'layered': SoundSpeedProfile.from_rows(
        [(0.0, 1510.0), (8.0, 1509.0), (16.0, 1490.0), (24.0, 1496.0), (40.0, 1480.0)],
        source='layered',
    ),
}
#: Sensor depths above, inside and below each layer (and below the last row: the open end).
DEPTHS = {
    'isovelocity': (5.0, 14.7, 30.0),
    'gradient': (5.0, 30.0, 65.0),
    'thermocline': (5.0, 14.7, 25.0),
    'weak-thermocline': (5.0, 14.7, 25.0),
    'layered': (4.0, 12.0, 20.0, 30.0, 45.0),
}
CASES = [(kind, depth) for kind, depths in DEPTHS.items() for depth in depths]


@pytest.fixture(scope='module')
def scene(tmp_path_factory: pytest.TempPathFactory) -> Raycaster:
    path = tmp_path_factory.mktemp('layers') / 'box.world'
    box = box_model('box', 0.3, (0, BOX_Y + 0.2, BOX_H / 2), f'60 0.4 {BOX_H}')
    return Raycaster(load_world(str(seabed_file(path, 0.3, box))))


def sonar(profile: SoundSpeedProfile, depth: float) -> SidescanSonar:
    echo = sidescan_echo(MAX_RANGE, N_BINS, sound_speed=float(profile.speed_at(depth)))
    pose = np.eye(4)
    pose[2, 3] = H
    return SidescanSonar(echo, SidescanConfig(), pose, label_entities=2)


def caster(scene: Raycaster, profile: SoundSpeedProfile, depth: float) -> RefractingCaster:
    """As the node wraps the scene (``medium_caster``): the scene's box on."""
    return RefractingCaster(scene, profile, surface_z=depth + H, bounds=scene_bounds(scene))


def traced_range(
    profile: SoundSpeedProfile, depth: float, depression: NDArray[np.float64], to: float
) -> NDArray[np.float64]:
    """The tracer's equivalent range ``c(source) t`` of rays to depth ``to`` (nan: never)."""
    paths = trace(profile, depth, depression, until_depth=to)
    return np.asarray(profile.speed_at(depth) * paths.time, dtype=np.float64)


def depression_through(
    profile: SoundSpeedProfile, depth: float, offset: float, to: float
) -> float:
    """The depression of the ray that passes ``offset`` m out at depth ``to``: bisection."""
    low, high = 1e-3, 0.5 * math.pi  # the offset falls as the ray steepens
    for _ in range(60):
        mid = 0.5 * (low + high)
        reached = trace(profile, depth, [mid], until_depth=to).offset[0]
        low, high = (mid, high) if not reached <= offset else (low, mid)
    return 0.5 * (low + high)


@pytest.mark.parametrize(('kind', 'depth'), CASES, ids=[f'{k}-{d:g}m' for k, d in CASES])
def test_every_seabed_hit_is_where_the_ray_tracer_puts_it(
    scene: Raycaster, kind: str, depth: float
) -> None:
    profile = PROFILES[kind]
    s = sonar(profile, depth)
    hits = caster(scene, profile, depth).cast(s.origin, s.directions)
    seabed = np.flatnonzero(hits.entity == scene.entity_names.index('seabed'))
    assert seabed.size > 1000
    depression = np.arcsin(-s.directions[seabed, 2])
    expected = traced_range(profile, depth, depression, depth + H)
    got = np.asarray(hits.ranges, dtype=np.float64)[seabed]
    np.testing.assert_allclose(got, expected, rtol=0.0, atol=TOLERANCE)
    # negative control: a source 1 cm off, or the cut piece's time left out, is rejected
    off = traced_range(profile, depth + 0.01, depression, depth + H)
    assert np.max(np.abs(got - off)) > 10 * TOLERANCE


@pytest.mark.parametrize(('kind', 'depth'), CASES, ids=[f'{k}-{d:g}m' for k, d in CASES])
def test_the_first_return_and_the_box_are_where_the_ray_tracer_puts_them(
    scene: Raycaster, kind: str, depth: float
) -> None:
    profile = PROFILES[kind]
    s = sonar(profile, depth)
    ping = s.ping(caster(scene, profile, depth))
    # the fan's steepest ray: straight down, cast to nadir (the default), else its edge
    edge = math.inf if s.config.cast_to_nadir else s.config.tilt + 0.5 * s.config.vertical_width
    steepest = min(edge, 0.5 * math.pi)
    first = traced_range(profile, depth, np.array([steepest]), depth + H)[0]
    lit = np.flatnonzero(ping.profiles[0])
    assert ping.labels is not None
    box = np.flatnonzero(ping.labels[0] == 1 + scene.entity_names.index('box'))
    # the box's nearest point is its near top edge
    corner_ray = depression_through(profile, depth, BOX_Y, depth + H - BOX_H)
    corner = traced_range(profile, depth, np.array([corner_ray]), depth + H - BOX_H)[0]
    # within two bins (a footprint reaches half a cell before its ray, and the cells are
    # placed as over a straight ray's seabed); the bug put them 1.4 m (37 bins) early
    assert abs(ping.bin_edges[lit[0]] - first) <= 2 * DR
    assert abs(ping.bin_edges[box[0]] - corner) <= 2 * DR
    # negative control: a range 3 bins off is rejected
    assert abs(ping.bin_edges[box[0]] - (corner - 3 * DR)) > 2 * DR
