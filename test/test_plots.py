"""The pictures of ``nps_sonar_py.plots`` and the report drawn from a bag, without ROS.

Each picture is checked through what it shows: the drawn data (the profile's steps, the
mesh's cells) and the colour of rendered pixels at data positions mapped through the axes'
transforms, so an echo is seen where it is put. No golden images.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import matplotlib as mpl
import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.collections import QuadMesh
from matplotlib.figure import Figure
from matplotlib.patches import StepPatch

from nps_sonar_py import plots

PNG_SIGNATURE = b'\x89PNG\r\n\x1a\n'
STRONG, WEAK = 1e-2, 1e-9  # linear intensities: -20 dB and -90 dB (below the 60 dB floor)


def png_size(path: Path) -> tuple[int, int]:
    """Width and height of a PNG from its IHDR chunk."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    return int.from_bytes(data[16:20], 'big'), int.from_bytes(data[20:24], 'big')


def pixel(figure: Figure, ax: Axes, x: float, y: float) -> np.ndarray:
    """RGB (0..1) of the rendered figure at data point (x, y) of ``ax``."""
    rgba = np.asarray(figure.canvas.buffer_rgba())
    px, py = ax.transData.transform((x, y))
    return rgba[round(rgba.shape[0] - py), round(px), :3] / 255.0


def colour(name: str, value: float) -> np.ndarray:
    return np.asarray(mpl.colormaps[name](value)[:3])


def centres(edges: np.ndarray) -> np.ndarray:
    return 0.5 * (edges[:-1] + edges[1:])


# ---------------------------------------------------------------- profile


def test_profile_peak_is_drawn_at_the_strong_bins_range(tmp_path: Path) -> None:
    edges = plots.bin_edges(0.1, 7.0, 69)  # 0.1 m bins
    k = 16  # the bin [1.7, 1.8)
    profile = np.full(69, 1e-6)
    profile[k] = STRONG
    path = tmp_path / 'profile.png'
    figure = plots.draw_profile(path, profile, edges, range_estimate=1.72)

    assert png_size(path) == (800, 450)
    ax = figure.axes[0]
    filled = next(p for p in ax.patches if isinstance(p, StepPatch))
    values, drawn_edges, floor = filled.get_data()
    np.testing.assert_array_equal(drawn_edges, edges)
    assert int(np.argmax(values)) == k
    assert (edges[k], edges[k + 1]) == pytest.approx((1.7, 1.8))
    assert values[k] == pytest.approx(-20.0)
    assert values[0] == pytest.approx(-60.0)
    assert floor == pytest.approx(-20.0 - plots.DEFAULT_DYNAMIC_RANGE)
    (estimate,) = [line for line in ax.lines if line.get_linestyle() == '--']
    assert list(estimate.get_xdata()) == [1.72, 1.72]
    assert '1.720 m' in estimate.get_label()
    assert ax.get_xlabel() == 'range (m)'
    assert 'dB' in ax.get_ylabel()
    # Rendered (off the grid lines): the fill under the peak at -37 dB, white beside it.
    r, g, b, alpha = filled.get_facecolor()
    fill_on_white = alpha * np.array([r, g, b]) + (1.0 - alpha)
    np.testing.assert_allclose(pixel(figure, ax, 1.77, -37.0), fill_on_white, atol=0.02)
    np.testing.assert_allclose(pixel(figure, ax, 4.55, -37.0), [1.0, 1.0, 1.0])


def test_profile_in_linear_units_and_without_echo(tmp_path: Path) -> None:
    edges = plots.bin_edges(1.0, 3.0, 4)
    figure = plots.draw_profile(tmp_path / 'linear.png', [0.0, 2.0, 0.5, 0.0], edges, db=False)
    ax = figure.axes[0]
    values, _, baseline = next(p for p in ax.patches if isinstance(p, StepPatch)).get_data()
    np.testing.assert_array_equal(values, [0.0, 2.0, 0.5, 0.0])
    assert baseline == 0.0
    assert 'linear' in ax.get_ylabel()

    silent = plots.draw_profile(
        tmp_path / 'silent.png', np.zeros(4), edges, range_estimate=math.inf
    )
    texts = [t.get_text() for t in silent.axes[0].texts]
    assert 'no echo in range' in texts
    assert any('+Inf' in t for t in texts)
    assert not [line for line in silent.axes[0].lines if line.get_linestyle() == '--']


@pytest.mark.parametrize(('reading', 'words'), [(-math.inf, '-Inf'), (math.nan, 'NaN')])
def test_profile_writes_out_rep117_readings(tmp_path: Path, reading: float, words: str) -> None:
    figure = plots.draw_profile(
        tmp_path / 'p.png', [1.0, 0.0], [0.5, 1.0, 1.5], range_estimate=reading
    )
    assert any(words in t.get_text() for t in figure.axes[0].texts)


# ---------------------------------------------------------------- sweep (fan)


def fan_scene(
    azimuths_deg: np.ndarray, echo_deg: float, echo_range: float
) -> tuple[np.ndarray, np.ndarray]:
    """Coarse bins (0.5 m) and one strong cell, so that a cell spans many pixels."""
    edges = plots.bin_edges(0.5, 7.0, 13)
    grid = np.full((azimuths_deg.size, 13), WEAK)
    row = int(np.argmin(np.abs(azimuths_deg - echo_deg)))
    grid[row, np.searchsorted(edges, echo_range) - 1] = STRONG
    return grid, edges


def strongest_cell(
    mesh: QuadMesh, theta_or_t: np.ndarray, edges: np.ndarray
) -> tuple[float, float]:
    """(column centre, range centre) of the mesh's strongest cell; mesh: (range bins, columns)."""
    levels = np.asarray(mesh.get_array()).reshape(edges.size - 1, theta_or_t.size - 1)
    row, column = np.unravel_index(np.argmax(levels), levels.shape)
    return float(centres(theta_or_t)[column]), float(centres(edges)[row])


def test_sweep_shows_the_echo_at_its_azimuth_and_range(tmp_path: Path) -> None:
    azimuths = np.arange(-60.0, 61.0, 10.0)
    grid, edges = fan_scene(azimuths, 20.0, 4.2)
    path = tmp_path / 'sweep.png'
    figure = plots.draw_sweep(path, grid, edges, np.radians(azimuths))

    assert png_size(path) == (700, 650)
    ax = figure.axes[0]
    (mesh,) = [c for c in ax.collections if isinstance(c, QuadMesh)]
    theta = np.asarray(mesh.get_coordinates())[0, :, 0]
    azimuth, reach = strongest_cell(mesh, theta, edges)
    assert math.degrees(azimuth) == pytest.approx(20.0)
    assert reach == pytest.approx(4.25)  # the centre of the bin [4.0, 4.5)
    assert mesh.get_clim() == pytest.approx((-80.0, -20.0))
    assert np.degrees(ax.get_xlim()) == pytest.approx((-65.0, 65.0))
    assert 'dB' in figure.axes[1].get_ylabel()  # the colour bar
    # Rendered (off the grid lines): the top colour at the echo, the floor colour beside it and
    # at the mirrored azimuth.
    top, bottom = colour(plots.COLOUR_MAP, 1.0), colour(plots.COLOUR_MAP, 0.0)
    np.testing.assert_allclose(pixel(figure, ax, math.radians(20.0), 4.25), top, atol=0.02)
    np.testing.assert_allclose(pixel(figure, ax, math.radians(-20.0), 4.25), bottom, atol=0.02)
    np.testing.assert_allclose(pixel(figure, ax, math.radians(20.0), 2.25), bottom, atol=0.02)
    # Counter-clockwise from the sensor's x axis drawn up: +20 deg is left of the apex.
    apex_x = ax.transData.transform((0.0, 0.0))[0]
    assert ax.transData.transform((math.radians(20.0), 4.25))[0] < apex_x


def test_sweep_shows_the_latest_ping_of_a_repeated_azimuth(tmp_path: Path) -> None:
    edges = plots.bin_edges(0.5, 7.0, 13)
    grid = np.full((4, 13), WEAK)
    grid[1, 3] = STRONG  # an old echo at 0 deg ...
    grid[3, 8] = STRONG  # ... replaced by the latest ping at 0 deg, 4.5..5 m
    figure = plots.draw_sweep(tmp_path / 's.png', grid, edges, np.radians([-10.0, 0.0, 10.0, 0.0]))
    (mesh,) = [c for c in figure.axes[0].collections if isinstance(c, QuadMesh)]
    theta = np.asarray(mesh.get_coordinates())[0, :, 0]
    assert theta.size == 4  # three azimuths
    azimuth, reach = strongest_cell(mesh, theta, edges)
    assert (math.degrees(azimuth), reach) == pytest.approx((0.0, 4.75))
    levels = np.asarray(mesh.get_array()).reshape(13, 3)
    assert levels[3, 1] == pytest.approx(-80.0)  # the old echo is gone


def test_sweep_across_pi_is_one_sector(tmp_path: Path) -> None:
    azimuths = np.array([150.0, 165.0, 180.0, -165.0, -150.0])  # a sector about the sensor's -x
    grid, edges = fan_scene(azimuths, -165.0, 3.2)
    figure = plots.draw_sweep(tmp_path / 's.png', grid, edges, np.radians(azimuths))
    ax = figure.axes[0]
    low, high = np.degrees(ax.get_xlim())
    assert high - low == pytest.approx(75.0)
    assert np.mod([low + 7.5, high - 7.5], 360.0) == pytest.approx([150.0, 210.0])
    (mesh,) = [c for c in ax.collections if isinstance(c, QuadMesh)]
    azimuth, _ = strongest_cell(mesh, np.asarray(mesh.get_coordinates())[0, :, 0], edges)
    assert np.mod(math.degrees(azimuth), 360.0) == pytest.approx(195.0)
    assert '150.0 to 210.0 deg' in figure.get_suptitle()


def test_full_circle_sweep(tmp_path: Path) -> None:
    azimuths = np.arange(0.0, 360.0, 10.0)
    grid, edges = fan_scene(azimuths, 100.0, 2.2)
    figure = plots.draw_sweep(tmp_path / 's.png', grid, edges, np.radians(azimuths))
    ax = figure.axes[0]
    assert ax.get_xlim() == pytest.approx((0.0, 2 * math.pi))
    assert '360 deg' in figure.get_suptitle()
    top, bottom = colour(plots.COLOUR_MAP, 1.0), colour(plots.COLOUR_MAP, 0.0)
    np.testing.assert_allclose(pixel(figure, ax, math.radians(100.0), 2.25), top, atol=0.02)
    np.testing.assert_allclose(pixel(figure, ax, math.radians(-80.0), 2.25), bottom, atol=0.02)


# ---------------------------------------------------------------- echogram


def test_echogram_shows_the_echo_at_its_time_and_range(tmp_path: Path) -> None:
    times = 100.0 + 0.1 * np.arange(20)  # stamps, s
    edges = plots.bin_edges(0.5, 7.0, 13)
    grid = np.full((20, 13), WEAK)
    grid[12, 5] = STRONG  # ping 12 (1.2 s after the first), bin [3.0, 3.5)
    path = tmp_path / 'echogram.png'
    figure = plots.draw_echogram(path, grid, edges, times)
    assert png_size(path) == (800, 500)
    ax = figure.axes[0]
    (mesh,) = [c for c in ax.collections if isinstance(c, QuadMesh)]
    columns = np.asarray(mesh.get_coordinates())[0, :, 0]
    t, reach = strongest_cell(mesh, columns, edges)
    assert (t, reach) == pytest.approx((1.2, 3.25))
    assert ax.get_ylim() == pytest.approx((7.0, 0.5))  # range grows downwards
    assert ax.get_ylabel() == 'range (m)'
    assert '20 pings over 1.90 s' in ax.get_title()
    top, bottom = colour(plots.COLOUR_MAP, 1.0), colour(plots.COLOUR_MAP, 0.0)
    np.testing.assert_allclose(pixel(figure, ax, 1.2, 3.25), top, atol=0.02)
    np.testing.assert_allclose(pixel(figure, ax, 0.6, 3.25), bottom, atol=0.02)


# ---------------------------------------------------------------- determinism and input checks


def test_the_same_input_gives_the_same_bytes(tmp_path: Path) -> None:
    rng = np.random.default_rng(2345)
    grid = rng.exponential(1e-4, size=(30, 50))
    edges = plots.bin_edges(0.1, 7.0, 50)
    azimuths = np.radians(np.linspace(-45.0, 45.0, 30))
    for name in ('a', 'b'):
        plots.draw_profile(tmp_path / f'profile_{name}.png', grid[0], edges, range_estimate=2.0)
        plots.draw_sweep(tmp_path / f'sweep_{name}.png', grid, edges, azimuths)
        plots.draw_echogram(tmp_path / f'echogram_{name}.png', grid, edges, np.arange(30) * 0.1)
    for kind in ('profile', 'sweep', 'echogram'):
        assert (tmp_path / f'{kind}_a.png').read_bytes() == (
            tmp_path / f'{kind}_b.png'
        ).read_bytes()


def test_inputs_are_checked(tmp_path: Path) -> None:
    png = tmp_path / 'x.png'
    with pytest.raises(ValueError, match='Expected 4 finite increasing bin edges'):
        plots.draw_profile(png, [1.0, 2.0, 3.0], [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match=r'shape \(n, m\)'):
        plots.draw_sweep(png, [1.0, 2.0], [0.0, 1.0, 2.0], [0.0])
    with pytest.raises(ValueError, match='Expected 2 finite azimuths'):
        plots.draw_sweep(png, np.ones((2, 2)), [0.0, 1.0, 2.0], [0.0])
    with pytest.raises(ValueError, match='times must increase'):
        plots.draw_echogram(png, np.ones((2, 2)), [0.0, 1.0, 2.0], [1.0, 1.0])
    with pytest.raises(ValueError, match='dynamic_range'):
        plots.draw_profile(png, [1.0], [0.0, 1.0], dynamic_range=0.0)
    assert not png.exists()


# --------------------------------------------------------- the report of a bag (rosbags, no ROS)


def write_sonar_bag(
    path: Path,
    azimuths: np.ndarray,
    *,
    n_bins: int = 40,
    echo_range: float = 2.0,
    echo_ranges: np.ndarray | None = None,
) -> None:
    """A bag of SonarPoint pings written with rosbags alone, a ping per azimuth.

    Each ping has one echo, at ``echo_range``, or at its own of ``echo_ranges``.
    """
    from rosbags.rosbag2 import StoragePlugin, Writer

    from nps_sonar_py.ros.bag_report import SONAR_POINT, make_typestore
    from nps_sonar_py.ros.recorder import BAG_VERSION, register_type

    store = make_typestore()
    register_type(store, SONAR_POINT)
    sonar_point = store.types[SONAR_POINT]
    header, stamp = store.types['std_msgs/msg/Header'], store.types['builtin_interfaces/msg/Time']
    edges = plots.bin_edges(0.1, 7.0, n_bins)
    ranges = np.full(len(azimuths), echo_range) if echo_ranges is None else echo_ranges
    with Writer(path, version=BAG_VERSION, storage_plugin=StoragePlugin.MCAP) as writer:
        connection = writer.add_connection('/sonar/sonar_point', SONAR_POINT, typestore=store)
        for i, (azimuth, echo_range) in enumerate(zip(azimuths, ranges, strict=True)):
            profile = np.full(n_bins, WEAK, dtype=np.float32)
            profile[np.searchsorted(edges, echo_range) - 1] = STRONG
            t = 10**9 + i * 10**8  # 10 Hz from t = 1 s
            message = sonar_point(
                header=header(stamp=stamp(sec=t // 10**9, nanosec=t % 10**9), frame_id='sonar'),
                range=float(echo_range),
                intensity=float(profile.sum()),
                intensity_db=float(10 * np.log10(profile.sum())),
                source_level=0.0,
                confidence=1.0,
                range_estimator=0,
                azimuth=float(azimuth),
                beam_width=0.1,
                cast_half_angle=0.1,
                frequency=2e5,
                sound_speed=1500.0,
                min_range=0.1,
                max_range=7.0,
                bin_width=float(edges[1] - edges[0]),
                profile=profile,
                hits=np.zeros(n_bins, dtype=np.uint32),
                rays=100,
            )
            writer.write(connection, t, store.serialize_cdr(message, SONAR_POINT))


def test_report_of_a_scanning_sonar_is_a_fan(tmp_path: Path) -> None:
    from nps_sonar_py.ros.bag_report import draw_report

    write_sonar_bag(tmp_path / 'bag', np.radians(np.arange(-40.0, 41.0, 4.0)))
    report = draw_report(tmp_path / 'bag', tmp_path / 'pictures')
    assert report.topic == '/sonar/sonar_point'
    assert report.pings == 21
    assert report.sweep_kind == 'fan'
    assert report.profile == tmp_path / 'pictures' / 'profile.png'
    assert png_size(report.profile) == (800, 450)
    assert png_size(report.sweep) == (700, 650)


def test_report_of_a_fixed_sonar_is_an_echogram(tmp_path: Path) -> None:
    from nps_sonar_py.ros.bag_report import draw_report

    write_sonar_bag(tmp_path / 'bag', np.zeros(15))
    report = draw_report(tmp_path / 'bag')
    assert (report.pings, report.sweep_kind) == (15, 'echogram')
    assert report.sweep == tmp_path / 'bag' / 'sweep.png'
    assert png_size(report.sweep) == (800, 500)
    assert draw_report(tmp_path / 'bag', topic='/other').profile is None


def test_redraw_needs_no_ros(tmp_path: Path) -> None:
    write_sonar_bag(tmp_path / 'bag', np.radians([-10.0, 0.0, 10.0]))
    script = (
        'import sys\n'
        'from nps_sonar_py.ros.recorder import main\n'
        f'status = main(["sonar_record", {str(tmp_path / "bag")!r}, "--redraw"])\n'
        'assert "rclpy" not in sys.modules, "redrawing imported rclpy"\n'
        'sys.exit(status)\n'
    )
    done = subprocess.run(
        [sys.executable, '-c', script],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[1],
    )
    assert done.returncode == 0, done.stderr
    assert 'fan of 3 pings on /sonar/sonar_point' in done.stdout
    assert (tmp_path / 'bag' / 'sweep.png').is_file()


def write_image_bag(path: Path, images: dict[str, np.ndarray]) -> None:
    """A bag of one mono8 ``sensor_msgs/Image`` per topic, written with rosbags alone."""
    from rosbags.rosbag2 import StoragePlugin, Writer

    from nps_sonar_py.ros.bag_report import IMAGE, make_typestore
    from nps_sonar_py.ros.recorder import BAG_VERSION

    store = make_typestore()
    image, header = store.types[IMAGE], store.types['std_msgs/msg/Header']
    stamp = store.types['builtin_interfaces/msg/Time']
    with Writer(path, version=BAG_VERSION, storage_plugin=StoragePlugin.MCAP) as writer:
        for topic, pixels in images.items():
            connection = writer.add_connection(topic, IMAGE, typestore=store)
            message = image(
                header=header(stamp=stamp(sec=1, nanosec=0), frame_id='sonar'),
                height=pixels.shape[0],
                width=pixels.shape[1],
                encoding='mono8',
                is_bigendian=0,
                step=pixels.shape[1],
                data=pixels.astype(np.uint8).ravel(),
            )
            writer.write(connection, 10**9, store.serialize_cdr(message, IMAGE))


def test_side_by_side_puts_two_images_beside_each_other(tmp_path: Path) -> None:
    """``SideBySide``: left, 6 black columns, right, pixel for pixel; mismatches refused."""
    import matplotlib.image

    from nps_sonar_py.errors import ConfigurationError
    from nps_sonar_py.ros.bag_report import SIDE_BY_SIDE_GAP, SideBySide, draw_report

    rng = np.random.default_rng(3)
    left, right = rng.integers(1, 256, (2, 20, 30))
    write_image_bag(tmp_path / 'bag', {'/a/image': left, '/b/image': right, '/c': left[:10]})
    report = draw_report(
        tmp_path / 'bag', side_by_side=(SideBySide('pair', '/a/image', '/b/image'),)
    )
    assert report.images[-1] == tmp_path / 'bag' / 'pair.png'
    grey = np.rint(matplotlib.image.imread(report.images[-1])[..., 0] * 255)
    gap = np.zeros((20, SIDE_BY_SIDE_GAP))
    np.testing.assert_array_equal(grey, np.hstack((left, gap, right)))
    for pair, words in (
        (SideBySide('x', '/a/image', '/c'), '/a/image is 20 rows of mono8, /c 10 rows'),
        (SideBySide('x', '/a/image', '/none'), 'x: no image recorded on /none'),
    ):
        with pytest.raises(ConfigurationError, match=words) as error:
            draw_report(tmp_path / 'bag', side_by_side=(pair,))
        assert '\n' not in str(error.value)


def test_redraw_of_a_missing_bag_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from nps_sonar_py.ros.recorder import main

    assert main(['sonar_record', str(tmp_path / 'missing'), '--redraw']) == 2
    assert capsys.readouterr().err.startswith(f'nps_sonar: {tmp_path / "missing"}: ')


def test_labelled_samples_show_the_masks_and_the_boxes_where_they_are(tmp_path: Path) -> None:
    display = np.full((40, 60), 128, dtype=np.uint8)
    semantic = np.ones((40, 60), dtype=np.uint8)  # seabed everywhere
    semantic[10:14, 20:40] = 2  # an object of the first class
    shadow = np.zeros((40, 60), dtype=np.uint8)
    shadow[5:10, 20:40] = 1  # beyond it (up the picture)
    box = {
        'bbox': [20, 10, 20, 4],
        'obb_corners': [20, 10, 40, 10, 40, 14, 20, 14],
        'category_id': 1,  # COCO's: the first class
    }
    sample = {
        'display': display,
        'semantic': semantic,
        'shadow': shadow,
        'boxes': [box],
        'title': 'one',
    }
    path = tmp_path / 'labelled.png'
    figure = plots.draw_labelled(path, [sample], ('box',))
    assert png_size(path)[0] == 12 * plots.DPI
    masks = figure.axes[1]
    assert np.allclose(pixel(figure, masks, 30, 7), (0.1, 0.25, 0.9), atol=0.05)  # shadow
    assert np.allclose(pixel(figure, masks, 5, 30), 0.55, atol=0.05)  # seabed grey
    object_colour = mpl.colormaps['tab10'](1)[:3]
    assert np.allclose(pixel(figure, masks, 30, 12), object_colour, atol=0.05)
    assert len(masks.patches) == 2  # the box and the oriented box
    assert np.allclose(pixel(figure, figure.axes[0], 30, 30), 128 / 255, atol=0.02)


def test_the_demo_classes_have_distinct_colours_and_a_legend_that_fits(tmp_path: Path) -> None:
    classes = (  # the fan demo's
        'box', 'pipe', 'mine', 'moored_mine', 'tyre', 'wreck', 'drum', 'chain', 'crab_trap',
        'propeller', 'effigy', 'debris',
    )  # fmt: skip
    semantic = np.ones((40, 12 * 6), dtype=np.uint8)
    for k in range(12):
        semantic[10:30, 6 * k : 6 * k + 6] = 2 + k  # a stripe of each class
    shadow = np.zeros_like(semantic)
    shadow[:5] = 1
    sample = {
        'display': np.full(semantic.shape, 128, dtype=np.uint8),
        'semantic': semantic,
        'shadow': shadow,
        'boxes': [],
        'title': 'thirteen',
    }
    figure = plots.draw_labelled(tmp_path / 'classes.png', [sample], classes)
    masks = figure.axes[1]
    drawn = [pixel(figure, masks, 6 * k + 2.5, 20) for k in range(12)]
    drawn += [pixel(figure, masks, 30, 2), pixel(figure, masks, 30, 35)]  # shadow, seabed
    gaps = [np.abs(a - b).max() for i, a in enumerate(drawn) for b in drawn[i + 1 :]]
    assert min(gaps) > 0.1  # every class its own colour, none the shadow's or the seabed's
    # Negative control: tab10 after its blue, as before: box and effigy one colour, propeller
    # the shadow's blue.
    old = [mpl.colormaps['tab10']((k + 1) % 10)[:3] for k in range(12)]
    assert old[0] == old[10]
    assert old[9] == mpl.colormaps['tab10'](0)[:3]
    legend = figure.legends[0]
    inside = figure.bbox.x0, figure.bbox.x1
    extent = legend.get_window_extent()
    assert inside[0] <= extent.x0
    assert extent.x1 <= inside[1]
    # Negative control: the 13 entries in one row are wider than the picture.
    handles = legend.legend_handles
    one_row = figure.legend(handles=handles, ncols=len(handles), fontsize=9, frameon=False)
    figure.draw_without_rendering()
    assert one_row.get_window_extent().width > figure.bbox.width


def test_a_long_thin_waterfall_is_drawn_readable(tmp_path: Path) -> None:
    """200 pings of 2 x 2000 samples: 1000 columns, each the mean of 4, rows drawn 3 high."""
    rng = np.random.default_rng(7)
    pixels = rng.integers(0, 256, size=(200, 4000), dtype=np.uint8)
    drawn = plots.readable_waterfall(pixels)
    assert drawn.dtype == np.uint8
    assert drawn.shape == (600, 1000)  # 1000 / 600: no flatter than 2 : 1
    means = pixels.reshape(200, 1000, 4).astype(np.float64).mean(axis=2)
    np.testing.assert_array_equal(drawn[::3], np.rint(means))
    np.testing.assert_array_equal(drawn[2::3], drawn[::3])
    # Negative control: every fourth sample alone (decimation) is not what is drawn.
    assert not np.array_equal(drawn[::3], pixels[:, ::4])
    path = tmp_path / 'waterfall.png'
    plots.draw_image(path, drawn, 'mono8')
    assert mpl.image.imread(path).shape[:2] == (600, 1000)


def test_a_long_waterfall_keeps_its_rows_and_a_narrow_one_its_columns() -> None:
    assert plots.waterfall_scale(540, 4000) == (1, 4)  # 540 pings: tall enough
    assert plots.waterfall_scale(10, 1000) == (4, 1)  # at most 4 times as tall
    assert plots.waterfall_scale(400, 1001) == (1, 2)  # a last, shorter block
    uneven = plots.readable_waterfall(np.arange(3.0)[None, :].repeat(2000, axis=0)[:, :3])
    assert uneven.shape == (2000, 3)


def test_the_sweep_title_is_inside_the_picture_clear_of_the_sector(tmp_path: Path) -> None:
    """The multibeam picture's title was cut at the top, over the sector's 30 deg label."""
    azimuths = np.linspace(30.0, 150.0, 128)
    grid, edges = fan_scene(azimuths, 90.0, 2.2)
    figure = plots.draw_sweep(tmp_path / 's.png', grid, edges, np.radians(azimuths), title='T')
    renderer = figure.canvas.get_renderer()
    title = figure._suptitle  # where matplotlib keeps the suptitle
    assert title is not None
    box = title.get_window_extent(renderer)
    assert box.y1 <= figure.bbox.y1
    labels = figure.axes[0].get_tightbbox(renderer)
    assert labels is not None
    assert box.y0 >= labels.y1 - 1.0  # above every label of the polar axes
