"""A fan's beam axes even in angle, even in sine, or a table (``FanConfig.beam_spacing``,
``bearings``; docs/beamforming.md, "Beams even in sine").

A line array steers its beams by phases, so a formed fan's beams are the same pattern
shifted in the sine of the bearing. Each figure against a closed form worked here, each
with a control:

* the sine spacing of 256 beams over 60 degrees: ``sin b_k = sin b_0 + k s``,
  ``s = 2 sin 30 / 255`` (the Oculus record's table: 0.2247 degrees apart at the centre,
  0.2591 at the edges); the angle spacing's constant 0.2353 degrees fails it;
* a formed fan even in sine over a pole at a few bearings: the loudest beam is the one whose
  table bearing is nearest the pole; read against the angle-even table of the same count
  and sector (the realism benchmark's old mistake) it is off by up to 2.3 beams, at about
  17 degrees (the two tables meet at the centre and at the edges);
* neighbouring beams over a seabed, near broadside and near 50 degrees: beams even in
  sine correlate the same everywhere, as the Hann-shaded array's
  ``|sum w**2 exp(2 i pi d n du)|**2 / (sum w**2)**2`` at the constant sine step says;
  beams even in angle (the control) correlate more at 50 degrees, where their sine step
  is ``cos 50`` times the centre's;
* a table refused in one line naming the setting (wrong count, not increasing, outside the
  field of view), and sine spacing past 90 degrees.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from coherent_scenes import C, chirp, lossless_echo, pitched, pole_world
from flat_seabed import seabed_fixture

from nps_sonar_py.echo.pulse import PulseWindow
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.scene import Raycaster
from nps_sonar_py.sensing.multibeam import MAX_BEAMS, BeamSpacing, FanConfig, MultibeamSonar

HALF = math.radians(30.0)


def oculus_fan(spacing: BeamSpacing, **rest: object) -> FanConfig:
    """256 beams over +-30 degrees (the Oculus M1200d's), ``spacing``; ``rest``: any field."""
    return FanConfig(beams=256, min_angle=-HALF, max_angle=HALF, beam_spacing=spacing, **rest)  # type: ignore[arg-type]


def test_sine_spacing_is_even_in_the_sine_of_the_bearing() -> None:
    b = oculus_fan(BeamSpacing.SINE).azimuths()
    step = 2.0 * math.sin(HALF) / 255  # 0.0039216, the record's 0.003921
    np.testing.assert_allclose(np.sin(b), -math.sin(HALF) + step * np.arange(256), atol=1e-12)
    gaps = np.degrees(np.diff(b))
    assert gaps[127] == pytest.approx(math.degrees(2.0 * math.asin(0.5 * step)), rel=1e-9)
    assert gaps[127] == pytest.approx(0.2247, abs=1e-4)
    edge = math.degrees(math.asin(math.sin(HALF)) - math.asin(math.sin(HALF) - step))
    assert gaps[0] == pytest.approx(edge, rel=1e-9)
    assert gaps[-1] == pytest.approx(0.2591, abs=1e-4)
    # Control: even in angle, every gap is 60 / 255 degrees and the sines are not even.
    angle = oculus_fan(BeamSpacing.ANGLE).azimuths()
    np.testing.assert_allclose(np.degrees(np.diff(angle)), 60.0 / 255, rtol=1e-9)
    assert np.ptp(np.diff(np.sin(angle))) > 1e-4


def test_a_table_is_the_fans_axes() -> None:
    table = tuple(np.radians(np.linspace(-20.0, 25.0, 10) ** 3 / 625.0))
    fan = FanConfig(beams=10, min_angle=-0.5, max_angle=0.5, bearings=table)
    np.testing.assert_array_equal(fan.azimuths(), table)
    assert not fan.uniform
    # A LaserScan from the first axis by scan_step ends on the last axis, inside the sector.
    assert table[0] + 9 * fan.scan_step == pytest.approx(table[-1], abs=1e-12)
    assert table[0] + 9 * fan.spacing > table[-1] + 0.1  # control: min..max's step overshoots
    sine = oculus_fan(BeamSpacing.SINE)
    assert sine.scan_step == pytest.approx(2.0 * HALF / 255, rel=1e-12)  # its ends: the sector's


@pytest.mark.parametrize(
    ('table', 'says'),
    [
        ((0.0, 0.1), '2 bearings for 3 beams'),
        ((0.0, 0.2, 0.1), 'strictly increasing'),
        ((0.0, 0.1, 0.1), 'strictly increasing'),
        ((-0.2, 0.0, 0.6), 'outside the field of view'),
        ((0.0, float('nan'), 0.2), 'finite'),
        ((0.0, float('inf'), 0.2), 'finite'),
        ('abc', 'a list of numbers'),
        ((0.0, 'x', 0.2), 'finite'),
        ((False, 0.1, 0.2), 'False'),  # a bool is not a number (not shown as 0.0)
        ((0.0,) * (MAX_BEAMS + 1), f'at most {MAX_BEAMS} numbers, got {MAX_BEAMS + 1}'),
        ((0.1,) * 40 + (float('nan'),), 'got nan at [40] of 41'),  # named, not listed
    ],
)
def test_a_wrong_table_is_refused_in_one_line(table: tuple[float, ...], says: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        FanConfig(beams=3, min_angle=-0.5, max_angle=0.5, bearings=table)
    line = str(refused.value)
    assert '\n' not in line
    assert line.startswith('bearings'), line
    assert says in line, line
    assert len(line) < 200, line  # a huge table is refused by its size, a long one by an element


def test_a_table_as_long_as_a_fan_may_be_is_taken() -> None:
    """Control of the length bound: ``MAX_BEAMS`` bearings are a fan's own table."""
    table = tuple(float(a) for a in np.linspace(-1.0, 1.0, MAX_BEAMS))
    fan = FanConfig(
        beams=MAX_BEAMS, min_angle=-1.0, max_angle=1.0, bearings=table, rays_horizontal=1
    )
    assert fan.azimuths().size == MAX_BEAMS


def test_sine_spacing_past_ninety_degrees_is_refused() -> None:
    with pytest.raises(ConfigurationError, match=r'^beam_spacing sine needs'):
        FanConfig(beams=9, min_angle=-2.0, max_angle=2.0, beam_spacing=BeamSpacing.SINE)
    FanConfig(beams=9, min_angle=-2.0, max_angle=2.0)  # control: even in angle, taken


@pytest.fixture(scope='module')
def poles(tmp_path_factory: pytest.TempPathFactory) -> dict[float, Raycaster]:
    """A 2 cm pole 10 m away at each bearing (degrees) of the peak test: beams 128, 170, 203
    and 245 of the sine table (``asin(-1/2 + k / 255)``) to 0.001 degree."""
    folder: Path = tmp_path_factory.mktemp('bearing_poles')
    return {a: pole_world(folder, a) for a in (0.112, 9.594, 17.222, 27.438)}


def test_a_formed_fan_even_in_sine_peaks_on_the_nearest_table_bearing(
    poles: dict[float, Raycaster],
) -> None:
    fan = oculus_fan(
        BeamSpacing.SINE, rays_horizontal=5, rays_vertical=2, vertical_width=math.radians(1.0)
    )
    echo = lossless_echo(5.0, 15.0, 200, beam_width=math.radians(2.0), sound_speed=C)
    coherent = chirp(1e-3, 30e3, scatterer_density=1e5)
    sonar = MultibeamSonar(echo, fan, np.eye(4), coherent=coherent)
    table = np.degrees(sonar.azimuths)
    angle = np.degrees(oculus_fan(BeamSpacing.ANGLE).azimuths())
    for bearing, world in poles.items():
        peak = int(np.argmax(sonar.ping(world).profiles.sum(axis=1)))
        # The pole's direction cosine along the array, nearest beam in the table (the
        # steering is even in sine: nearest in sine, here the same beam as in angle).
        sines = np.sin(np.radians(table))
        nearest = int(np.argmin(np.abs(sines - math.sin(math.radians(bearing)))))
        assert peak == nearest, bearing
        assert abs(table[peak] - bearing) < 0.5 * (table[peak + 1] - table[peak - 1])
        # Control: the same beam read as even in angle (sin b = -1/2 + k / 255 against
        # -30 + 60 k / 255 degrees): 2.3 beams off at 17 degrees, 1.7 at 9.6, 0.9 at 27.4;
        # the tables meet at the centre (and at the edges).
        off = (angle[peak] - bearing) / (60.0 / 255)
        assert abs(off) > 2.0 if bearing == 17.222 else True
        assert abs(off) > 1.5 if bearing == 9.594 else True
        assert abs(off) < 0.1 if bearing == 0.112 else True


seabed = seabed_fixture(0.01)

#: The correlation test's array: 128 elements half a wavelength apart, Hann-shaded.
ELEMENTS = 128
#: Its beams' sine step, and the beams of each cluster.
STEP, CLUSTER = 0.015, 15


def hann_correlation(du: np.ndarray) -> np.ndarray:
    """Intensity correlation of two beams ``du`` apart in sine over scatterers uniform in
    sine: ``|sum w**2 exp(2 i pi d n du)|**2 / (sum w**2)**2`` (Parseval over the two
    beams' factors), Hann weights at the element centres, ``d`` half a wavelength."""
    n = np.arange(ELEMENTS) - 0.5 * (ELEMENTS - 1)
    w2 = np.sin(math.pi * (n + 0.5 * ELEMENTS) / ELEMENTS) ** 4
    phase = np.exp(2j * math.pi * 0.5 * n[None, :] * np.asarray(du)[:, None])
    return np.abs(phase @ w2 / np.sum(w2)) ** 2


def clusters(spacing: BeamSpacing) -> tuple[float, ...]:
    """Two clusters of ``CLUSTER`` beams, about broadside and about 50 degrees: ``STEP``
    apart in sine (``SINE``) or ``STEP`` rad apart in angle (``ANGLE``)."""
    k = np.arange(CLUSTER) - 0.5 * (CLUSTER - 1)
    if spacing is BeamSpacing.SINE:
        centre = np.arcsin(STEP * k)
        edge = np.arcsin(math.sin(math.radians(50.0)) + STEP * k)
    else:
        centre, edge = STEP * k, math.radians(50.0) + STEP * k
    return tuple(float(a) for a in np.concatenate([centre, edge]))


def pitched_towards(azimuth_deg: float) -> np.ndarray:
    """2 m over the seabed, the direction ``azimuth_deg`` of the body pitched 18 degrees
    down (a rotation about the horizontal axis across it): that direction sees the seabed
    as the broadside one does when pitched."""
    a, tilt = math.radians(azimuth_deg), math.radians(18.0)
    axis = np.array([-math.sin(a), math.cos(a), 0.0])
    cross = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    pose = pitched(2.0, 0.0)
    pose[:3, :3] = np.eye(3) + math.sin(tilt) * cross + (1 - math.cos(tilt)) * cross @ cross
    return pose


def cluster_correlations(seabed: Raycaster, spacing: BeamSpacing) -> list[float]:
    """Mean lag-1 intensity correlation of the inner beams of each cluster (broadside,
    50 degrees), each cluster pinged looking at the seabed alike, over 3 seeds."""
    table = clusters(spacing)
    echo = lossless_echo(5.5, 7.5, 54, beam_width=1.44 / (0.5 * ELEMENTS), sound_speed=C)
    fan = FanConfig(
        beams=len(table),
        min_angle=table[0],
        max_angle=table[-1],
        bearings=table,
        rays_vertical=24,
        vertical_width=math.radians(12.0),
    )
    measured = []
    for cluster, azimuth in ((slice(0, CLUSTER), 0.0), (slice(CLUSTER, None), 50.0)):
        images = []
        for seed in range(3):
            coherent = chirp(
                1e-3,
                20e3,
                scatterer_seed=seed,
                array_elements=ELEMENTS,
                array_window=PulseWindow.HANN,
            )
            sonar = MultibeamSonar(echo, fan, pitched_towards(azimuth), coherent=coherent)
            images.append(sonar.ping(seabed).profiles[cluster, 5:-5][3:-3])
        bins = np.arange(images[0].shape[1])
        trend = np.polyval(np.polyfit(bins, np.mean(images, axis=(0, 1)), 2), bins)
        stack = np.concatenate(images, axis=1) / np.tile(trend, len(images))
        pairs = [np.corrcoef(stack[b], stack[b + 1])[0, 1] for b in range(stack.shape[0] - 1)]
        measured.append(float(np.mean(pairs)))
    return measured


def test_beams_even_in_sine_share_their_speckle_alike_across_the_fan(seabed: Raycaster) -> None:
    sine = cluster_correlations(seabed, BeamSpacing.SINE)
    predicted = float(hann_correlation(np.array([STEP]))[0])  # 0.47 at both clusters
    np.testing.assert_allclose(sine, predicted, atol=0.06)
    # Control: beams even in angle are cos(b) STEP apart in sine: more alike at 50 degrees.
    angle = cluster_correlations(seabed, BeamSpacing.ANGLE)
    inner = np.array(clusters(BeamSpacing.ANGLE)[CLUSTER + 3 : -3])
    edge = float(np.mean(hann_correlation(np.diff(np.sin(inner)))))
    assert angle[0] == pytest.approx(predicted, abs=0.06)
    assert angle[1] == pytest.approx(edge, abs=0.06)
    assert edge - predicted > 0.15
    assert angle[1] - angle[0] > 0.12
    assert abs(sine[1] - sine[0]) < 0.08


def test_the_images_take_each_beam_at_its_own_bearing() -> None:
    """A sine fan's Cartesian image (``SectorGeometry`` with its bearings): profiles whose
    value is the beam's index give, at every pixel, the index of the nearest axis (nearest:
    the cell reaching halfway to the neighbours) and the azimuth's fractional position
    between the two axes about it (linear); control: the even-angle geometry of the same
    beams puts pixels near 17 degrees two beams away."""
    from nps_sonar_py.sensing.images import CartesianImager

    fan = oculus_fan(BeamSpacing.SINE)
    echo = lossless_echo(0.0, 10.0, 100)
    sonar = MultibeamSonar(echo, fan, np.eye(4))
    g = sonar.image_geometry()
    b = sonar.azimuths
    profiles = np.repeat(np.arange(256.0)[:, None], 100, axis=1)
    for interpolation in ('nearest', 'linear'):
        imager = CartesianImager(g, 0.05, interpolation, max_pixels=10**7)
        image = imager.image(profiles)
        rows, cols = np.nonzero(np.isfinite(image))
        x = (imager.origin_row - rows) * 0.05
        y = (imager.origin_col - cols) * 0.05
        azimuth = np.arctan2(y, x)
        inner = (azimuth > b[0]) & (azimuth < b[-1]) & (np.hypot(x, y) > 1.0)
        got, a = image[rows, cols][inner], azimuth[inner]
        if interpolation == 'nearest':
            distance = np.abs(a[:, None] - b[None, :])
            expected = np.argmin(distance, axis=1)
            two = np.sort(distance, axis=1)[:, :2]
            clear = two[:, 1] - two[:, 0] > 1e-9  # on an edge: the cell that starts there
            np.testing.assert_array_equal(got[clear], expected[clear])
        else:
            right = np.searchsorted(b, a)
            left = right - 1
            expected = left + (a - b[left]) / (b[right] - b[left])
            np.testing.assert_allclose(got, expected, atol=2e-3)
    # Control: the same image read as beams even in angle is two beams off near 17 degrees.
    even = (a - b[0]) / fan.spacing
    near = np.abs(np.degrees(a) - 17.2) < 0.2
    assert np.all(np.abs(even[near] - got[near]) > 2.0)


def test_the_array_pattern_weighs_each_column_by_its_beams_cell() -> None:
    """``fan_pattern: array`` over beams even in sine: each column stands for its beam's cell
    (the mean of its two gaps) over the rays across it, so a beam's summed weights are the
    integral of its ``|AF(sin a - s_b)|**2`` over the fan's azimuths, worked here by the
    trapezoid rule on a fine grid, at the centre and at 42 and 52 degrees alike. Control: the
    sector's mean spacing for every column (what the even fan takes) misses it at 52 degrees."""
    from nps_sonar_py.echo.array_response import SteeredArray

    array = SteeredArray(64, 0.5)
    echo = lossless_echo(1.0, 10.0, 10, beam_width=math.radians(1.6))
    fan = FanConfig(
        beams=64,
        min_angle=-1.05,
        max_angle=1.05,
        beam_spacing=BeamSpacing.SINE,
        rays_horizontal=40,
        rays_vertical=1,
        vertical_width=1e-3,
    )
    sonar = MultibeamSonar(echo, fan, np.eye(4), array_pattern=array)
    half, b = echo.cast_half_angle, sonar.azimuths
    d_a = 2.0 * half / fan.rays_horizontal
    weights = sum(band.weights for band in sonar.engine.bands)  # type: ignore[union-attr]
    heard = weights.sum(axis=1) * d_a
    cells = np.repeat(np.gradient(b), fan.rays_horizontal)
    even = (weights * (fan.spacing / cells)).sum(axis=1) * d_a  # the control's weights
    a = np.linspace(b[0] - half, b[-1] + half, 400_001)
    for k in (32, 56, 60):
        integral = np.trapezoid(np.abs(array.steered(np.sin(a), math.sin(b[k]))) ** 2, a)
        assert heard[k] == pytest.approx(integral, rel=0.02), k
        if k == 60:
            assert abs(even[k] / integral - 1.0) > 0.15


def test_a_direction_is_heard_by_the_beam_whose_axis_is_nearest() -> None:
    """The multipath ghosts' beam (``MultibeamSonar._hear_body``) over a sine fan: the axis
    nearest each direction's azimuth, worked here by ``argmin |a - b_k|`` over the table, on
    a fine grid across the fan. Control: the even-angle index ``rint((a - a_0) / spacing)``
    disagrees near 17 degrees."""
    fan = oculus_fan(BeamSpacing.SINE, rays_horizontal=1, rays_vertical=2)
    sonar = MultibeamSonar(lossless_echo(0.0, 10.0, 10), fan, np.eye(4))
    b = sonar.azimuths
    a = np.linspace(b[0], b[-1], 20_011)
    body = np.stack([np.cos(a), np.sin(a), np.zeros_like(a)], axis=1)
    beam, _ = sonar._hear_body(np.zeros(a.size, dtype=np.intp), body)
    distance = np.abs(a[:, None] - b[None, :])
    two = np.sort(distance, axis=1)[:, :2]
    clear = two[:, 1] - two[:, 0] > 1e-9  # not on a cell's edge
    np.testing.assert_array_equal(beam[clear], np.argmin(distance, axis=1)[clear])
    even = np.rint((a - b[0]) / fan.spacing).astype(np.intp)
    near = np.abs(np.degrees(a) - 17.2) < 0.2
    assert np.all(np.abs(even[near] - beam[near]) >= 2)
