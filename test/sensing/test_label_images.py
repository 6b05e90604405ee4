"""Labels of a multibeam fan and a sweep against two targets, one partly behind the other.

The scene (real Open3D), sonar at the origin looking along +x, REP 103:

* ``front``: a box T = 0.2 m thick whose near face is the plane x = F = 4.02 m, for y in
  [0.02, 2.0] m: it covers the azimuths a in [atan(0.02 / F), atan(2.0 / F)] = [0.285, 26.45]
  degrees, and its side face y = 0.02 m (x in [F, F + T]) the azimuths [0.272, 0.285] degrees.
* ``rear``: a box whose near face is x = R = 8.03 m, for y in [-3, 3] m: azimuths
  |a| <= atan(3 / R) = 20.49 degrees; its part at a in [0.285, 20.49] degrees is hidden
  behind ``front``.

A ray at azimuth a and elevation e meets the plane x = P at r = P / (cos e cos a) (y / x =
tan a whatever e). So a beam whose rays span the azimuths [lo, hi] and the elevations
|e| <= v / 2 reads an entity at P only in r in [P / cos(min |a|), P / (cos(v / 2) cos(max |a|))],
taken over the azimuths of its rays that meet that entity. The fan's rays are at the cell
centres of each beam (``sensing.multibeam``): azimuths a_j and a_j +- 1/3 degree, none of them
in front's side-face window; the sweep's cone has rays there, which meet front at ranges up to
(F + T) / cos(1 degree) beyond the edge.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.images import CartesianImager, SectorGeometry
from nps_sonar_py.sensing.label_images import LabelImager, SweepLabels, polar_labels
from nps_sonar_py.sensing.multibeam import FanConfig, FanPing, MultibeamSonar
from nps_sonar_py.sensing.sweep import ScanningSonar, SweepConfig

F, R = 4.02, 8.03
T = 0.2
FRONT_Y = (0.02, 2.0)
REAR_HALF = 3.0
MIN_RANGE, MAX_RANGE, N_BINS = 0.5, 10.0, 190
DR = (MAX_RANGE - MIN_RANGE) / N_BINS
BEAMS = 61  # every degree from -30 to 30
VERTICAL = math.radians(4.0)
DEG = math.radians(1.0)

FRONT_EDGE = math.degrees(math.atan(FRONT_Y[0] / F))  # 0.285
FRONT_FAR = math.degrees(math.atan(FRONT_Y[1] / F))  # 26.45
REAR_EDGE = math.degrees(math.atan(REAR_HALF / R))  # 20.49


def two_targets(tmp_path: Path) -> str:
    centre_y, width = 0.5 * sum(FRONT_Y), FRONT_Y[1] - FRONT_Y[0]
    path = tmp_path / 'two_targets.world'
    path.write_text(f'''<world name="two_targets">
  <model name="front" retro="200">
    <robot name="front"><link name="front"><collision>
      <origin xyz="{F + T / 2} {centre_y} 0"/><geometry><box size="{T} {width} 2"/></geometry>
    </collision></link></robot>
  </model>
  <model name="rear" retro="255">
    <robot name="rear"><link name="rear"><collision>
      <origin xyz="{R + T / 2} 0 0"/><geometry><box size="{T} {2 * REAR_HALF} 2"/></geometry>
    </collision></link></robot>
  </model>
</world>''')
    return str(path)


@pytest.fixture(scope='module')
def caster(tmp_path_factory: pytest.TempPathFactory) -> Raycaster:
    return Raycaster(load_world(two_targets(tmp_path_factory.mktemp('labels'))))


def echo(beam_width: float) -> EchoConfig:
    return EchoConfig(
        beam_width=beam_width,
        pattern=BeamPattern.UNIFORM,
        n_way=1,
        absorption=Absorption.NONE,
        min_range=MIN_RANGE,
        max_range=MAX_RANGE,
        n_bins=N_BINS,
    )


def bins_between(r_low: float, r_high: float) -> set[int]:
    """The bins that the ranges [r_low, r_high] fall in."""
    first = math.floor((r_low - MIN_RANGE) / DR)
    last = math.floor((r_high - MIN_RANGE) / DR)
    return set(range(first, last + 1))


def plane_bins(plane: float, low_deg: float, high_deg: float, half_elevation: float) -> set[int]:
    """Bins of the plane x = plane seen over the azimuths [low, high] deg, |e| <= half."""
    near = min(abs(low_deg), abs(high_deg)) if low_deg * high_deg > 0 else 0.0
    far = max(abs(low_deg), abs(high_deg))
    r_low = plane / math.cos(math.radians(near))
    r_high = plane / (math.cos(half_elevation) * math.cos(math.radians(far)))
    return bins_between(r_low, r_high)


@pytest.fixture(scope='module')
def fan_ping(caster: Raycaster) -> tuple[FanPing, int, int]:
    fan = FanConfig(
        beams=BEAMS,
        min_angle=-30 * DEG,
        max_angle=30 * DEG,
        vertical_width=VERTICAL,
        rays_horizontal=3,
        rays_vertical=8,
    )
    names = caster.entity_names
    sonar = MultibeamSonar(echo(DEG), fan, np.eye(4), label_entities=len(names))
    ping = sonar.ping(caster)
    return ping, 1 + names.index('front'), 1 + names.index('rear')


def labelled_bins(labels: np.ndarray, label: int) -> set[int]:
    return {int(k) for k in np.flatnonzero(labels == label)}


def test_fan_labels_follow_the_cast_occlusion_and_the_geometry(
    fan_ping: tuple[FanPing, int, int],
) -> None:
    ping, front, rear = fan_ping
    labels = ping.labels
    assert labels is not None
    assert labels.shape == (BEAMS, N_BINS)
    assert labels.dtype == np.uint16
    half = 0.5  # the beam's rays span its azimuth +- half its 1 degree width
    v = VERTICAL / 2
    for j, degrees in enumerate(range(-30, 31)):
        lo, hi = degrees - half, degrees + half
        row = labels[j]
        if lo > 0 and hi < FRONT_FAR:  # wholly in front's shadow: never the hidden rear
            assert labelled_bins(row, rear) == set(), degrees
            assert labelled_bins(row, front), degrees
            assert labelled_bins(row, front) <= plane_bins(F, lo, hi, v), degrees
        elif lo > -REAR_EDGE and hi < 0:  # the rear's unshadowed part
            assert labelled_bins(row, front) == set(), degrees
            assert labelled_bins(row, rear), degrees
            assert labelled_bins(row, rear) <= plane_bins(R, lo, hi, v), degrees
        elif degrees == 0:  # across front's edge: both, each at its own range
            assert labelled_bins(row, front), degrees
            assert labelled_bins(row, front) <= plane_bins(F, FRONT_EDGE, hi, v)
            assert labelled_bins(row, rear), degrees
            assert labelled_bins(row, rear) <= plane_bins(R, lo, FRONT_EDGE, v)
        elif lo > FRONT_FAR or hi < -REAR_EDGE:  # past both targets: none
            assert not row.any(), degrees
    # Every cell with a return (both targets reflect) has a label, and no other cell has one.
    np.testing.assert_array_equal(labels > 0, ping.hits > 0)


def test_the_fan_labels_ranges_are_where_the_profiles_echo(
    fan_ping: tuple[FanPing, int, int],
) -> None:
    ping, front, rear = fan_ping
    assert ping.labels is not None
    # Beam +10 deg, wholly in front's shadow: front's bins by hand, all of them labelled.
    j = 40
    expected = plane_bins(F, 9.5, 10.5, VERTICAL / 2)
    assert labelled_bins(ping.labels[j], front) <= expected
    assert labelled_bins(ping.labels[j], front) == {int(k) for k in np.flatnonzero(ping.hits[j])}
    # Beam -10 deg sees the rear: its bins by hand.
    j = 20
    assert labelled_bins(ping.labels[j], rear) <= plane_bins(R, -10.5, -9.5, VERTICAL / 2)
    assert labelled_bins(ping.labels[j], rear) == {int(k) for k in np.flatnonzero(ping.hits[j])}


def test_the_polar_label_image_has_the_polar_layout(fan_ping: tuple[FanPing, int, int]) -> None:
    ping, _, _ = fan_ping
    assert ping.labels is not None
    polar = polar_labels(ping.labels)
    assert polar.shape == (N_BINS, BEAMS)
    assert polar.dtype == np.uint16
    rows, cols = np.indices(polar.shape)
    # image[r, c] = labels[n_beams - 1 - c, n_bins - 1 - r] (README "Sonar images").
    np.testing.assert_array_equal(polar, ping.labels[BEAMS - 1 - cols, N_BINS - 1 - rows])


def test_the_cartesian_label_image_is_the_polar_one_by_nearest_lookup(
    fan_ping: tuple[FanPing, int, int],
) -> None:
    ping, front, rear = fan_ping
    labels = ping.labels
    assert labels is not None
    first, spacing = -30 * DEG, DEG
    geometry = SectorGeometry(BEAMS, first, spacing, DEG, MIN_RANGE, MAX_RANGE, N_BINS)
    m = 0.01
    linear = CartesianImager(geometry, m, 'linear', max_pixels=10**7)
    imager = LabelImager.like(linear, max_pixels=10**7)  # labels are never interpolated
    image = imager.image(labels)
    assert image.shape == (linear.height, linear.width)
    assert image.dtype == np.uint16
    # The documented pixel centres: x = (origin_row - row) m, y = (origin_col - col) m.
    rows, cols = np.indices(image.shape)
    x = (linear.origin_row - rows) * m
    y = (linear.origin_col - cols) * m
    r = np.hypot(x, y)
    u = (np.arctan2(y, x) - (first - spacing / 2)) / spacing  # beam cells, from the first edge
    k = (r - MIN_RANGE) / DR
    inside = (r >= MIN_RANGE) & (r <= MAX_RANGE) & (u >= 0) & (u <= BEAMS)
    # Pixel centres on a cell's border could go either way in floating point: left out.
    border = (np.abs(u - np.rint(u)) < 1e-6) | (np.abs(k - np.rint(k)) < 1e-6)
    border |= (np.abs(r - MIN_RANGE) < 1e-6) | (np.abs(r - MAX_RANGE) < 1e-6)
    assert border.mean() < 0.01
    beam = np.clip(np.floor(u), 0, BEAMS - 1).astype(int)
    bin_ = np.clip(np.floor(k), 0, N_BINS - 1).astype(int)
    expected = np.where(inside, labels[beam, bin_], 0)
    keep = ~border
    np.testing.assert_array_equal(image[keep], expected[keep])
    # Only labels, never a blend of two: front, rear and none, each present.
    assert set(np.unique(image).tolist()) == {0, front, rear}


def sweep_sonar(caster: Raycaster) -> ScanningSonar:
    return ScanningSonar(
        echo(2 * DEG),  # a cone of half angle 1 degree
        SweepConfig(-math.pi / 2, math.pi / 2, 10 * DEG),
        np.eye(4),
        n_rays=2000,
        label_entities=len(caster.entity_names),
    )


def cone_bins(plane: float, head_deg: float) -> set[int]:
    """Bins of the plane x = plane in a cone of half angle 1 deg about azimuth head_deg.

    The rays' x components d_x = cos(angle to +x) lie in [cos(|head| + 1), cos(|head| - 1)]
    (1 for |head| <= 1), and r = plane / d_x.
    """
    near = max(abs(head_deg) - 1.0, 0.0)
    far = abs(head_deg) + 1.0
    return bins_between(plane / math.cos(math.radians(near)), plane / math.cos(math.radians(far)))


def test_sweep_labels_follow_the_occlusion_and_the_geometry(caster: Raycaster) -> None:
    sonar = sweep_sonar(caster)
    names = caster.entity_names
    front, rear = 1 + names.index('front'), 1 + names.index('rear')
    shadowed = sonar.ping(caster, 10 * DEG).labels  # rear hidden behind front
    assert shadowed is not None
    assert shadowed.dtype == np.uint16
    assert labelled_bins(shadowed, rear) == set()
    assert labelled_bins(shadowed, front)
    assert labelled_bins(shadowed, front) <= cone_bins(F, 10.0)
    clear = sonar.ping(caster, -10 * DEG).labels  # the rear's unshadowed part
    assert clear is not None
    assert labelled_bins(clear, front) == set()
    assert labelled_bins(clear, rear)
    assert labelled_bins(clear, rear) <= cone_bins(R, -10.0)
    edge = sonar.ping(caster, 0.0).labels  # across front's edge: each at its own range
    assert edge is not None
    assert labelled_bins(edge, front)
    # Front's near face, and its side face y = 0.02 m out to x = F + T.
    assert labelled_bins(edge, front) <= bins_between(F, (F + T) / math.cos(DEG))
    assert labelled_bins(edge, rear)
    assert labelled_bins(edge, rear) <= cone_bins(R, 0.0)
    nothing = sonar.ping(caster, 40 * DEG).labels
    assert nothing is not None
    assert not nothing.any()


def test_a_sweep_of_labels_images_as_a_fan_of_head_angles(caster: Raycaster) -> None:
    sonar = sweep_sonar(caster)
    names = caster.entity_names
    front, rear = 1 + names.index('front'), 1 + names.index('rear')
    sweep = SweepLabels(sonar.steps_per_sweep, N_BINS)
    for k, angle in enumerate(sonar.angles):
        labels = sonar.ping(caster, float(angle)).labels
        assert labels is not None
        sweep.update(k, labels)
    degrees = np.rint(np.degrees(sonar.angles)).astype(int).tolist()
    polar = polar_labels(sweep.labels)
    assert polar.shape == (N_BINS, sonar.steps_per_sweep)
    # Column c is head angle n - 1 - c: front on the left of straight ahead, rear on the right.
    seen = {
        degrees[len(degrees) - 1 - c]: set(np.unique(polar[:, c]).tolist()) - {0}
        for c in range(polar.shape[1])
    }
    assert seen[10] == seen[20] == {front}
    assert seen[-10] == seen[-20] == {rear}
    assert seen[0] == {front, rear}
    assert seen[30] == seen[-30] == set()
    sweep.restart()
    assert not sweep.labels.any()
