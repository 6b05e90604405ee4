"""The side-scan (scanning_sonar_node, mode sidescan) over real DDS: raw pings and the waterfall.

The sensor flies level at altitude H over a flat seabed z = 0, x forward, y to port. A box of
height HB lies on the seabed to port, across track over ``[Y0, Y0 + WIDTH]`` and long along
track. Closed forms (issue 19): the seabed's first echo comes at slant range
``H / sin(top)``, ``top = min(tilt + vertical_width / 2, pi / 2)`` (a uniform pattern hears
nothing past its edge, cast to nadir or not); the box's shadow on the
seabed spans ground range ``[Y0 + WIDTH, (Y0 + WIDTH) H / (H - HB)]``, slant range
``sqrt(y^2 + H^2)`` of those. So the port channel is silent over the shadow and the starboard
channel (the bare seabed) is not.

``RawSonarImage`` is decoded with numpy by docs/marine.md's layout: sample ``k`` of beam ``b``
(0 port, 1 starboard) at byte ``(k * 2 + b) * itemsize``, little-endian, slant range
``(sample0 + k) c / (2 sample_rate)`` at the sample's start. The waterfall (``sensor_msgs/
Image``): port on the left reversed, nadir in the middle, starboard on the right, the newest
line at row 0 (``sensing/waterfall.py``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ros_helpers import Probe, executable, exit_line, nanoseconds, ros_args, running

pytestmark = pytest.mark.ros

ROBOT = str(Path(__file__).resolve().parents[2] / 'config' / 'robots' / 'sidescan_sonar.urdf')
H, C, MIN_RANGE, MAX_RANGE, BINS = 8.0, 1500.0, 0.5, 50.0, 500
W = (MAX_RANGE - MIN_RANGE) / BINS
Y0, WIDTH, HB = 10.0, 4.0, 2.0
TILT, VERTICAL, HORIZONTAL = math.radians(20.0), math.radians(50.0), math.radians(1.0)
LINES, SAMPLES, RATE = 20, 250, 10.0
DB_LOW, DB_HIGH = -250.0, 0.0  # far below any speckled seabed echo (~ -96 dB): none reads 0


def world(tmp_path: Path) -> str:
    """The seabed (top face z = 0) and the box to port, 60 m long along track."""
    path = tmp_path / 'survey.world'
    centre_y, centre_z = Y0 + WIDTH / 2, HB / 2
    path.write_text(f"""<world name="survey">
  <model name="seabed" retro="255"><robot name="seabed"><link name="seabed"><collision>
    <origin xyz="0 0 -0.5"/><geometry><box size="400 400 1"/></geometry>
  </collision></link></robot></model>
  <model name="box" retro="255"><robot name="box"><link name="box"><collision>
    <origin xyz="0 {centre_y} {centre_z}"/><geometry><box size="60 {WIDTH} {HB}"/></geometry>
  </collision></link></robot></model>
</world>""")
    return str(path)


def parameters(scene: str, **more: Any) -> dict[str, Any]:
    return {
        'robot_description_file': ROBOT,
        'scene_file': scene,
        'mode': 'sidescan',
        'robot_pose': [0.0, 0.0, H, 0.0, 0.0, 0.0],
        'sidescan_tilt': TILT,
        'sidescan_vertical_beam_width': VERTICAL,
        'sidescan_horizontal_beam_width': HORIZONTAL,
        'sidescan_vertical_pattern': 'uniform',
        'waterfall_lines': LINES,
        'waterfall_samples': SAMPLES,
        'update_rate': RATE,
        'range_bins': BINS,
        'sound_speed': C,
        'absorption': 'none',
        'image_db_min': DB_LOW,
        'image_db_max': DB_HIGH,
        'speckle': True,  # every ping differs: the waterfall's scrolling shows
        'seed': 7,
        **more,
    }


def reliable() -> Any:
    from rclpy.qos import QoSProfile, ReliabilityPolicy

    return QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE)


def decode(message: Any) -> np.ndarray:
    """The ``(samples, 2)`` samples of a RawSonarImage, by the documented layout."""
    pixel = {0: '<u1', 2: '<u2', 4: '<u4', 8: '<f4'}[message.image.dtype]
    assert message.image.is_bigendian is False
    data = np.frombuffer(bytes(message.image.data), dtype=pixel)
    assert data.size == message.samples_per_beam * message.image.beam_count
    return data.reshape(message.samples_per_beam, message.image.beam_count)


def waterfall_pixels(image: Any) -> np.ndarray:
    """The ``(height, width)`` mono8 pixels of a waterfall image."""
    rows = np.frombuffer(bytes(image.data), dtype=np.uint8).reshape(image.height, image.step)
    return rows[:, : image.width]


def shadow_slant() -> tuple[float, float]:
    """Slant ranges of the box's shadow on the seabed (module docstring)."""
    near = Y0 + WIDTH
    far = near * H / (H - HB)
    return math.hypot(near, H), math.hypot(far, H)


def test_raw_pings_and_the_waterfall(tmp_path: Path, probe: Probe) -> None:
    from marine_acoustic_msgs.msg import RawSonarImage
    from sensor_msgs.msg import Image

    probe.subscribe(RawSonarImage, 'sidescan/raw_image', reliable())
    probe.subscribe(Image, 'sidescan/waterfall', reliable())
    with running('scanning_sonar_node', parameters(world(tmp_path))) as node:
        raws = probe.wait('sidescan/raw_image', 3, node)
        waterfalls = probe.wait('sidescan/waterfall', 3, node)
    raw = raws[-1]
    assert raw.header.frame_id == 'sidescan_frd'
    assert (raw.samples_per_beam, raw.image.beam_count, raw.image.dtype) == (BINS, 2, 8)
    assert raw.sample_rate == pytest.approx(C / (2 * W), rel=1e-6)
    assert raw.sample0 == round(MIN_RANGE / W)
    across = math.pi / 2 - TILT  # each axis from nadir, positive to starboard (the definition)
    assert list(raw.rx_angles) == pytest.approx([-across, across], rel=1e-6)
    assert list(raw.tx_angles) == [0.0, 0.0]
    assert list(raw.tx_delays) == [0.0, 0.0]
    assert raw.ping_info.sound_speed == pytest.approx(C)
    assert list(raw.ping_info.tx_beamwidths) == pytest.approx([HORIZONTAL], rel=1e-6)  # along x
    assert list(raw.ping_info.rx_beamwidths) == pytest.approx([VERTICAL], rel=1e-6)  # along y

    samples = decode(raw)
    start = (raw.sample0 + np.arange(BINS)) * C / (2 * raw.sample_rate)  # each sample's start
    port, starboard = samples[:, 0], samples[:, 1]
    first = H / math.sin(min(TILT + VERTICAL / 2, math.pi / 2))
    for channel in (port, starboard):
        assert not channel[start + W < first - W].any()  # nothing before the first return
        assert channel[(start > first) & (start < first + 2.0)].all()
    near, far = shadow_slant()
    inside = (start > near + W) & (start + W < far - W)
    assert inside.sum() > 10
    assert not port[inside].any()  # the box's shadow
    assert starboard[inside].all()  # the bare seabed on the other side

    # The waterfall: LINES rows of 2 x SAMPLES, mono8; rows fill from the top.
    image = waterfalls[-1]
    assert (image.height, image.width, image.encoding) == (LINES, 2 * SAMPLES, 'mono8')
    pixels, before = waterfall_pixels(image), waterfall_pixels(waterfalls[-2])
    assert pixels[0].any()
    # A line per ping, the newest on top: the previous image moved down one row (speckle
    # makes every line differ).
    np.testing.assert_array_equal(pixels[1:], before[:-1])
    assert not np.array_equal(pixels[0], before[0])
    left, right = pixels[0, :SAMPLES][::-1], pixels[0, SAMPLES:]  # outwards from nadir
    # The box lights and shadows the port (left) half only: the starboard half is the seabed.
    assert np.count_nonzero((left == 0) & (right > 0)) > 5
    assert np.count_nonzero((right == 0) & (left > 0)) == 0


def test_a_refused_change_keeps_the_ping_rate(tmp_path: Path, probe: Probe) -> None:
    from marine_acoustic_msgs.msg import RawSonarImage
    from ros_helpers import set_parameters

    from nps_sonar import srv

    probe.subscribe(RawSonarImage, 'sidescan/raw_image', reliable())
    with running('scanning_sonar_node', parameters(world(tmp_path))) as node:
        probe.wait('sidescan/raw_image', 1, node)
        config = probe.call(srv.GetRangerConfig, 'sidescan/get_config').config
        assert (config.min_angle, config.max_angle) == pytest.approx((-math.pi / 2, math.pi / 2))
        assert config.frequency == pytest.approx(RATE)
        config.frequency = 1.1 * C / (2 * MAX_RANGE)  # faster than the echo from 50 m
        refused = probe.call(srv.SetRangerConfig, 'sidescan/set_config', config=config)
        assert not refused.success
        assert 'two-way travel time' in refused.reason
        config.frequency, config.min_angle = RATE, -1.0
        refused = probe.call(srv.SetRangerConfig, 'sidescan/set_config', config=config)
        assert not refused.success
        assert 'two fixed beams' in refused.reason
        [result] = set_parameters(probe, '/scanning_sonar', {'waterfall_lines': 5})
        assert not result.successful
        count = probe.count('sidescan/raw_image')
        after = probe.wait('sidescan/raw_image', count + 5, node)[count:]
        kept = probe.call(srv.GetRangerConfig, 'sidescan/get_config').config
    assert kept.frequency == pytest.approx(RATE)
    assert kept.min_angle == pytest.approx(-math.pi / 2)
    stamps = [nanoseconds(m.header.stamp) for m in after]
    # Still RATE, not the refused rate (pings are stamped as taken: the median of the gaps).
    assert np.median(np.diff(stamps)) == pytest.approx(1e9 / RATE, rel=0.2)
    assert all(m.samples_per_beam == BINS for m in after)


@pytest.mark.parametrize(
    ('more', 'words', 'located'),
    [
        # rclpy refuses a value outside the parameter's declared range, in its own words.
        (
            {'waterfall_lines': 0},
            'Parameter waterfall_lines out of range. Min: 1, Max: 100000, value: 0',
            False,
        ),
        (
            {'waterfall_samples': 70_000},
            'Parameter waterfall_samples out of range. Min: 1, Max: 65536, value: 70000',
            False,
        ),
        (
            {'waterfall_lines': 10_000, 'waterfall_samples': 1_000},
            'waterfall: 2000 x 10000 = 20000000 pixels, more than image_max_pixels (4000000)',
            False,
        ),
        ({'range_bins': 70_000}, 'n_bins must be <= 65536 per channel, got 70000', True),
        ({'update_rate': 20.0}, 'two-way travel time', True),
    ],
    ids=['no-lines', 'too-many-samples', 'waterfall-too-large', 'too-many-bins', 'too-fast'],
)
def test_bad_settings_stop_the_node_with_one_line(
    tmp_path: Path, more: dict[str, Any], words: str, located: bool
) -> None:
    command = [executable('scanning_sonar_node'), *ros_args(parameters(world(tmp_path), **more))]
    line = exit_line(command)
    if located:
        assert line.startswith(f'nps_sonar: {ROBOT}'), line
        assert words in line, line
    else:
        assert words in line, line


def test_sonar_record_draws_both_waterfalls(tmp_path: Path, probe: Probe) -> None:
    """The waterfall Image as recorded, and a waterfall of the recorded raw pings."""
    import matplotlib.image
    from marine_acoustic_msgs.msg import RawSonarImage
    from rosbags.highlevel import AnyReader
    from test_recorder import RecorderProcess

    bag = tmp_path / 'bag'
    topics = ['/sidescan/raw_image', '/sidescan/waterfall']
    probe.subscribe(RawSonarImage, '/sidescan/raw_image', reliable())
    with running('scanning_sonar_node', parameters(world(tmp_path))) as node:
        recorder = RecorderProcess(bag, '--topics', *topics)
        recorder.wait_writing(topics)
        probe.wait('/sidescan/raw_image', probe.count('/sidescan/raw_image') + 4, node)
        status, out, err = recorder.finish()
    assert status == 0, err
    drawn, raw_drawn = (
        bag / 'image_sidescan_waterfall.png',
        bag / 'raw_waterfall_sidescan_raw_image.png',
    )
    assert f'drew {drawn}' in out
    assert f'drew {raw_drawn}' in out
    assert 'no pictures' not in out  # the waterfalls are pictures
    with AnyReader([bag]) as reader:
        by_topic = {c.topic: c for c in reader.connections}
        last = list(reader.messages(connections=[by_topic['/sidescan/waterfall']]))[-1]
        image = reader.deserialize(last[2], last[0].msgtype)
        count = by_topic['/sidescan/raw_image'].msgcount
        last = list(reader.messages(connections=[by_topic['/sidescan/raw_image']]))[-1]
        raw = reader.deserialize(last[2], last[0].msgtype)
    grey = np.rint(matplotlib.image.imread(drawn)[..., 0] * 255).astype(np.uint8)
    np.testing.assert_array_equal(grey, waterfall_pixels(image))  # pixel for pixel
    # The raw pings' waterfall: a row per ping, newest on top, port reversed on the left.
    from nps_sonar_py.plots import waterfall_scale

    lines = np.rint(matplotlib.image.imread(raw_drawn)[..., 0] * 255).astype(np.uint8)
    repeat, block = waterfall_scale(count, 2 * BINS)  # a few pings: rows drawn taller
    assert block == 1
    assert lines.shape == (count * repeat, 2 * BINS)
    assert (lines[1::repeat] == lines[::repeat]).all()
    lines = lines[::repeat]
    samples = decode(raw)
    start = (raw.sample0 + np.arange(BINS)) * C / (2 * raw.sample_rate)
    near, far = shadow_slant()
    inside = np.flatnonzero((start > near + W) & (start + W < far - W))
    assert not lines[0, BINS - 1 - inside].any()  # the port shadow, on the left, reversed
    assert lines[0, BINS + inside].all()  # the seabed to starboard
    # Lit pixels are echoes (32FC1 is drawn over 60 dB below the loudest: fainter is black).
    assert (samples[::-1, 0] > 0)[lines[0, :BINS] > 0].all()
    assert (samples[:, 1] > 0)[lines[0, BINS:] > 0].all()
