"""The scanning sonar node's sensor_msgs/Image outputs over real DDS, at the wall x = D.

The wall's face is the plane x = D in front of the sonar (``ranger_scenes.wall_scene``);
range bins of width W = (MAX_RANGE - 0.5) / 1900 start at 0.5 m. Pixel conventions
(``sensing/images.py``): polar ``image[r, c] = profiles[N - 1 - c, M - 1 - r]``; Cartesian
pixel (row, col) centred on x = (origin_row - row) m, y = (origin_col - col) m, the origin in
the bottom row of a forward fan. dB pixels: round((clip(10 log10 I, lo, hi) - lo) /
(hi - lo) * 255), silent bins 0.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ranger_scenes import (
    ACOUSTICS,
    BEAMS,
    BINS,
    DB_HIGH,
    DB_LOW,
    FIRST,
    LAST,
    MAX_RANGE,
    MIN_RANGE,
    SPACING,
    D,
    image_fan,
    wall_scene,
)
from ros_helpers import (
    NODE_START_TIMEOUT,
    Probe,
    executable,
    exit_line,
    in_step,
    nanoseconds,
    ros_args,
    running,
    stamped_after,
)

pytestmark = pytest.mark.ros

M_PER_PX = 0.05  # D / M_PER_PX = 40 pixels


def fan_parameters(robot: str, world: str, **more: Any) -> dict[str, Any]:
    """``image_fan``'s parameters, Cartesian images of ``M_PER_PX`` m pixels."""
    return image_fan(robot, world, **({'image_resolution': M_PER_PX} | more))


# A post of the wall's height on the sensor's left (+y), nearer than the wall: its face is the
# plane x = POST_X, centred on beam POST_BEAM's axis (azimuth 0.4), 0.1 m wide.
POST_BEAM = 25
POST_AZIMUTH = FIRST + POST_BEAM * SPACING  # 0.4 rad
POST_X = 1.0
POST_Y = POST_X * math.tan(POST_AZIMUTH)  # 0.4228 m


def wall_and_post_scene(tmp_path: Path) -> tuple[str, str]:
    """The wall scene with the post added in front of the wall, on the sensor's left."""
    robot, world = wall_scene(tmp_path)
    text = Path(world).read_text()
    post = f'''<model name="post" retro="255"><robot name="post">
  <link name="post"><collision>
    <origin xyz="{POST_X + 0.05} {POST_Y} 0"/><geometry><box size="0.1 0.1 100"/></geometry>
  </collision></link>
</robot></model></world>'''
    Path(world).write_text(text.replace('</world>', post))
    return robot, world


@contextmanager
def in_process(parameters: dict[str, Any]) -> Iterator[Any]:
    """A scanning sonar node in this process, not spinning: its calls are made by the test."""
    import rclpy
    from rclpy.parameter import Parameter

    from nps_sonar_py.ros.scanning_sonar_node import ScanningSonarNode

    context = rclpy.context.Context()
    rclpy.init(context=context)
    node = None
    try:
        overrides = [Parameter(name, value=value) for name, value in parameters.items()]
        node = ScanningSonarNode(context=context, parameter_overrides=overrides)
        yield node
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.shutdown(context=context)


def set_config(node: Any, **changes: Any) -> Any:
    """Call the node's set_config service handler with its configuration changed."""
    import copy

    from nps_sonar import srv

    config = copy.deepcopy(node.ranger_services.config_message)
    for name, value in changes.items():
        setattr(config, name, value)
    request = srv.SetRangerConfig.Request(config=config)
    return node.ranger_services._set_config(request, srv.SetRangerConfig.Response())


def reliable() -> Any:
    from rclpy.qos import QoSProfile, ReliabilityPolicy

    return QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE)


def test_multibeam_images_agree_with_the_ping(tmp_path: Path, probe: Probe) -> None:
    from sensor_msgs.msg import Image

    from nps_sonar import srv
    from nps_sonar.msg import MultibeamPing

    for topic in ('image_polar', 'image_polar_db', 'image'):
        probe.subscribe(Image, f'head/{topic}', reliable())
    probe.subscribe(MultibeamPing, 'head/multibeam', reliable())
    robot, world = wall_and_post_scene(tmp_path)
    limit = BEAMS * BINS  # the polar image just fits
    parameters = fan_parameters(
        robot,
        world,
        publish_image_polar=True,
        publish_image_polar_db=True,
        publish_image=True,
        image_max_pixels=limit,
    )
    with running('scanning_sonar_node', parameters) as node:
        kinds = ('image_polar', 'image_polar_db', 'image')
        window = in_step(probe, (*(f'head/{t}' for t in kinds), 'head/multibeam'), node)
        pings = window['head/multibeam']
        images = {t: window[f'head/{t}'] for t in kinds}
        # A new configuration of twice the bins: its polar image would exceed the limit.
        config = probe.call(srv.GetRangerConfig, 'head/get_config').config
        config.range_resolution = (MAX_RANGE - MIN_RANGE) / (2 * BINS)
        answer = probe.call(srv.SetRangerConfig, 'head/set_config', config=config)
        after = probe.wait('head/multibeam', 3, node)
        kept = probe.call(srv.GetRangerConfig, 'head/get_config').config
    assert not answer.success
    assert answer.reason == (
        f'polar image: {BEAMS} x {2 * BINS} = {2 * limit} pixels, '
        f'more than image_max_pixels ({limit})'
    )
    assert kept.range_resolution == pytest.approx((MAX_RANGE - MIN_RANGE) / BINS, rel=1e-6)
    assert {m.bin_count for m in after} == {BINS}  # the pings go on, as they were
    # Images are published with the ping of the same stamp: pair them (a stamp of each list).
    polars, dbs = images['image_polar'], images['image_polar_db']
    common = set(polars) & set(dbs) & set(pings)
    assert common
    stamp = max(common)
    polar, db, ping = polars[stamp], dbs[stamp], pings[stamp]
    assert (ping.beam_count, ping.bin_count) == (BEAMS, BINS)
    for message in (m for found in images.values() for m in found.values()):
        assert message.header.frame_id == 'head'
        assert message.is_bigendian == 0
    # The polar image: one column per beam, one row per bin, the same float32 values.
    assert (polar.width, polar.height, polar.encoding) == (BEAMS, BINS, '32FC1')
    assert polar.step == 4 * BEAMS
    pixels = np.frombuffer(bytes(polar.data), dtype='<f4').reshape(BINS, BEAMS)
    profiles = np.array(ping.profiles, dtype=np.float32).reshape(BEAMS, BINS)
    np.testing.assert_array_equal(pixels, profiles[::-1, ::-1].T)
    # The boresight beam (column 15) sees the wall first in bin (D - 0.5) / W = 300, row 1599.
    w = (MAX_RANGE - MIN_RANGE) / BINS
    first_bin = round((D - MIN_RANGE) / w)
    assert int(np.flatnonzero(pixels[:, BEAMS // 2])[-1]) == BINS - 1 - first_bin
    # Off boresight: column c is beam N - 1 - c, so the post's beam (25, azimuth +0.4, left) is
    # column 5; it sees the post's face first, by 1.2 m (bin 140, row 1759). Its mirror beam
    # (5, azimuth -0.4) is column 25: nothing there nearer than the wall, 2 m (bin 300).
    post_column, mirror_column = BEAMS - 1 - POST_BEAM, POST_BEAM
    assert post_column == 5
    nearest_post = int(np.flatnonzero(pixels[:, post_column])[-1])
    assert nearest_post > BINS - 1 - round((1.2 - MIN_RANGE) / w)
    assert int(np.flatnonzero(pixels[:, mirror_column])[-1]) <= BINS - 1 - first_bin

    # The dB image of the same ping: the window formula on the same values.
    assert (db.width, db.height, db.encoding, db.step) == (BEAMS, BINS, 'mono8', BEAMS)
    levels = np.full(pixels.shape, DB_LOW)
    loud = pixels > 0
    levels[loud] = 10.0 * np.log10(pixels[loud].astype(np.float64))
    expected = np.rint((np.clip(levels, DB_LOW, DB_HIGH) - DB_LOW) / (DB_HIGH - DB_LOW) * 255)
    expected[~loud] = 0
    got = np.frombuffer(bytes(db.data), dtype=np.uint8).reshape(BINS, BEAMS)
    np.testing.assert_array_equal(got, expected.astype(np.uint8))
    assert got.max() > 0

    # The Cartesian fan: up to MAX_RANGE ahead, +-MAX_RANGE sin(0.62) across, sensor at the
    # bottom centre; straight ahead the brightest pixel is the wall, D / m rows above it.
    fan = images['image'][max(images['image'])]
    up = math.ceil(MAX_RANGE / M_PER_PX - 1e-9)
    across = math.ceil(MAX_RANGE * math.sin(LAST + SPACING / 2) / M_PER_PX - 1e-9)
    assert (fan.height, fan.width, fan.encoding) == (up + 1, 2 * across + 1, 'mono8')
    assert fan.step == fan.width
    picture = np.frombuffer(bytes(fan.data), dtype=np.uint8).reshape(fan.height, fan.width)
    assert int(np.argmax(picture[:, across])) == up - round(D / M_PER_PX)
    assert picture[0, 0] == 0  # beyond the fan
    assert picture.max() > 0
    # The post, at x = 1.0 m, y = +0.42 m (the sensor's left), is left of the sensor's column:
    # col = across - y / m. Around it (x 0.9 to 1.2 m, y 0.3 to 0.55 m) something is lit; the
    # mirror window (y -0.55 to -0.3 m, all nearer than the wall) is silent.
    top, bottom = up - round(1.2 / M_PER_PX), up - round(0.9 / M_PER_PX)
    near, far = round(0.3 / M_PER_PX), round(0.55 / M_PER_PX)
    assert picture[top : bottom + 1, across - far : across - near + 1].max() > 0
    assert picture[top : bottom + 1, across + near : across + far + 1].max() == 0


def test_a_slow_image_subscriber_does_not_stall_the_pings(tmp_path: Path, probe: Probe) -> None:
    """Ten pings made after an image subscriber got stuck in its callback, while it still is.

    Its callback returns only once the test releases it (or after a bound on a hang, which
    the test sees): a node that stalls on it would make no ping until then.
    """
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import Image

    from nps_sonar.msg import MultibeamPing

    probe.subscribe(MultibeamPing, 'head/multibeam')
    entered, release, left = threading.Event(), threading.Event(), threading.Event()
    stuck_at: list[int] = []

    def block(_image: Any) -> None:
        stuck_at.append(time.time_ns())
        entered.set()
        release.wait(timeout=4 * NODE_START_TIMEOUT)
        left.set()

    slow = Probe()  # its own context and executor: its blocked callback holds only itself
    try:
        slow.node.create_subscription(
            Image, 'head/image', block, QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE)
        )
        robot, world = wall_scene(tmp_path)
        parameters = fan_parameters(robot, world, publish_image=True, image_resolution=0.02)
        with running('scanning_sonar_node', parameters) as node:
            probe.wait('head/multibeam', 1, node)
            assert entered.wait(timeout=NODE_START_TIMEOUT), 'no image reached the slow one'
            # 10 pings stamped after the subscriber got stuck, received while it is stuck
            pings = stamped_after(probe, 'head/multibeam', node, stuck_at[0], count=10)
            assert not left.is_set(), 'the slow subscriber was let go before the pings came'
            release.set()
        stamps = np.array([nanoseconds(p.header.stamp) for p in pings])
        assert np.all(np.diff(stamps) > 0)
    finally:
        release.set()
        slow.close()


def image_with_its_points(
    probe: Probe, node: Any, timeout: float = NODE_START_TIMEOUT
) -> tuple[Any, list[Any]]:
    """A polar image and every point from its sweep's first on (5 at least), once received.

    The point subscription matches the node's publisher at its own moment, and a sweep's last
    point may come after its image: an image counts once a point stamped at or before its
    stamp (its sweep's first step) is in, and 5 stamped from it.
    """
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with probe.lock:
            images = list(probe.received['head/image_polar'])
            points = list(probe.received['head/sonar_point'])
        if points:
            first = nanoseconds(points[0].header.stamp)
            for image in images:
                start = nanoseconds(image.header.stamp)
                if (
                    first <= start
                    and sum(nanoseconds(p.header.stamp) >= start for p in points) >= 5
                ):
                    return image, points
        assert node.poll() is None, node.communicate()[1]
        time.sleep(0.02)
    pytest.fail(f'no polar image with its sweep of points in {timeout} s')


def test_sweep_images_are_the_last_sweep(tmp_path: Path, probe: Probe) -> None:
    from sensor_msgs.msg import Image

    from nps_sonar.msg import SonarPoint

    probe.subscribe(SonarPoint, 'head/sonar_point', reliable())
    probe.subscribe(Image, 'head/image_polar', reliable())
    probe.subscribe(Image, 'head/image', reliable())
    step = math.radians(15.0)
    robot, world = wall_scene(tmp_path)
    parameters = {
        'robot_description_file': robot,
        'scene_file': world,
        'min_angle': -2 * step,
        'max_angle': 2 * step,
        'step': step,
        'rays': 500,
        'publish_image_polar': True,
        'publish_image': True,
        'image_resolution': 0.1,
        **ACOUSTICS,
    }
    with running('scanning_sonar_node', parameters) as node:
        image, points = image_with_its_points(probe, node)
        disc = probe.wait('head/image', 1, node)[-1]
    # Published once per sweep of 5 steps, stamped with its first step; column c is head
    # angle 4 - c (column 0 the leftmost, +30 degrees).
    assert (image.width, image.height, image.encoding) == (5, BINS, '32FC1')
    start = nanoseconds(image.header.stamp)
    sweep = [p for p in points if nanoseconds(p.header.stamp) >= start][:5]
    assert len(sweep) == 5
    assert [round(p.azimuth / step) for p in sweep] == [-2, -1, 0, 1, 2]
    pixels = np.frombuffer(bytes(image.data), dtype='<f4').reshape(BINS, 5)
    for k, point in enumerate(sweep):
        np.testing.assert_array_equal(
            pixels[::-1, 4 - k], np.array(point.profile, dtype=np.float32)
        )
    # The Cartesian image of the sector -37.5 to 37.5 degrees: sensor at the bottom centre.
    across = math.ceil(MAX_RANGE * math.sin(2.5 * step) / 0.1 - 1e-9)
    assert (disc.height, disc.width) == (round(MAX_RANGE / 0.1) + 1, 2 * across + 1)


def test_an_image_over_the_limit_stops_the_node_with_one_line(tmp_path: Path) -> None:
    # The Cartesian fan at 0.01 m per pixel: 10 / 0.01 + 1 rows, 2 * 582 + 1 columns; the
    # polar image (31 x 1900 = 58900 pixels) is within the limit.
    across = math.ceil(MAX_RANGE * math.sin(LAST + SPACING / 2) / 0.01)
    assert across == 582
    limit = 100_000
    parameters = {'publish_image': True, 'image_resolution': 0.01, 'image_max_pixels': limit}
    words = (
        f'Cartesian image: {2 * across + 1} x 1001 = {(2 * across + 1) * 1001} pixels, '
        f'more than image_max_pixels ({limit})'
    )
    robot, world = wall_scene(tmp_path)
    command = [
        executable('scanning_sonar_node'),
        *ros_args(fan_parameters(robot, world, **parameters)),
    ]
    assert words in exit_line(command)


@pytest.mark.parametrize('mode', ['multibeam', 'sweep'])
def test_a_refused_set_config_keeps_the_images_as_they_were(tmp_path: Path, mode: str) -> None:
    """The refused geometry is checked beside the one in use: the Cartesian lookup (and a
    sweep's latest profiles) are the same objects afterwards, nothing is rebuilt or blanked."""
    from builtin_interfaces.msg import Time

    robot, world = wall_scene(tmp_path)
    images = {'publish_image_polar': True, 'publish_image': True}
    if mode == 'multibeam':
        beams = BEAMS
        parameters = fan_parameters(robot, world, **images, image_max_pixels=BEAMS * BINS)
    else:  # 5 head angles, +-0.625 rad; at 0.1 m per pixel 101 x 119 pixels, within the limit
        beams = 5
        parameters = {
            'robot_description_file': robot,
            'scene_file': world,
            'min_angle': -0.5,
            'max_angle': 0.5,
            'step': 0.25,
            'rays': 200,
            'image_resolution': 0.1,
            'sweep_image_update': 'step',
            'image_max_pixels': 2 * beams * BINS - 1,
            **images,
            **ACOUSTICS,
        }
    with in_process(parameters) as node:
        outputs = node.outputs
        # The part that publishes the images (a multibeam's outputs are several parts).
        part = next(p for p in getattr(outputs, 'parts', [outputs]) if hasattr(p, 'images'))
        for _ in range(2):
            outputs.publish(node.rig.read(), Time())
        imager = part.images._imager
        assert imager is not None
        latest = getattr(getattr(part, '_image', None), '_profiles', None)
        before = None if latest is None else latest.profiles.copy()
        # Twice the bins: the polar image would have 2 * beams * BINS pixels, over the limit.
        answer = set_config(node, range_resolution=(MAX_RANGE - MIN_RANGE) / (2 * BINS))
        assert not answer.success
        limit = parameters['image_max_pixels']
        assert answer.reason == (
            f'polar image: {beams} x {2 * BINS} = {2 * beams * BINS} pixels, '
            f'more than image_max_pixels ({limit})'
        )
        outputs.publish(node.rig.read(), Time())
        assert part.images._imager is imager
        if mode == 'sweep':
            assert part._image._profiles is latest
            assert before is not None
            assert np.count_nonzero(before.any(axis=1)) == 2
            # The two steps before the refusal keep their profiles; the sweep restarted at
            # its first angle, which the third ping updated.
            np.testing.assert_array_equal(part._image._profiles.profiles[1], before[1])


def test_a_gain_over_the_limit_stops_the_node_with_one_line(tmp_path: Path) -> None:
    """G(max_range) = 40 log10(10) + 2 alpha 10 = 40 + 20 alpha dB, at most 250 dB.

    The scanning sonar's parameters are read-only and set_config cannot raise max_range past
    the sensor's, so the start is where such a gain law can come in.
    """
    robot, world = wall_scene(tmp_path)
    gain = {'tvg': '40log', 'absorption': 'fixed', 'publish_image': True}
    over = fan_parameters(robot, world, **gain, absorption_db_per_m=12.0)  # 280 dB
    line = exit_line([executable('scanning_sonar_node'), *ros_args(over)])
    assert line.endswith(
        'tvg: 40log gain at max_range (10 m, absorption 12 dB/m) must be <= 250 dB, got 280.0 dB'
    ), line
    under = fan_parameters(robot, world, **gain, absorption_db_per_m=10.0)  # 240 dB
    with in_process(under) as node:
        ping = node.rig.read()
    silent = ping.hits == 0
    assert silent.any()
    assert (~silent).any()
    assert np.all(ping.profiles[silent] == 0.0)
    assert np.all(np.isfinite(ping.profiles))


def received_within(
    probe: Probe, topic: str, process: Any, timeout: float = NODE_START_TIMEOUT
) -> list[Any]:
    """Every message on ``topic`` so far, once there is one (a latched one may already be in)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with probe.lock:
            got = list(probe.received[topic])
        if got:
            return got
        assert process.poll() is None, process.communicate()[1]
        time.sleep(0.02)
    pytest.fail(f'{topic}: nothing in {timeout} s')


def label_table(message: Any) -> dict[str, int]:
    """Entity name -> label, from the JSON of ``<device>/label_names``."""
    import json

    table = json.loads(message.data)
    assert table['none'] == 0
    return {name: int(label) for label, name in table['labels'].items()}


def test_multibeam_label_images_name_the_post_in_front_of_the_wall(
    tmp_path: Path, probe: Probe
) -> None:
    """Labels of the wall-and-post scene, their cells found from the geometry.

    Beam 25's axis (azimuth 0.4 rad) meets the post's near face x = 1 m at y = 0.4228 m; the
    face spans y in [0.3728, 0.4728] m, the azimuths [0.357, 0.442] rad, and its side face
    y = 0.3728 m (x 1.0 to 1.1 m) the azimuths [0.327, 0.357] rad. Every ray of beam 25 is
    within one beam width (1.5 degrees) of its axis, so all of them meet the post, and the
    wall behind it is hidden on that beam: only the post's label, at the ranges
    r = 1 / (cos e cos a), |e| <= 5 degrees, |a - 0.4| <= 1.5 degrees. The boresight beam
    (15) meets only the wall, at r = 2 / (cos e cos a).
    """
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import Image
    from std_msgs.msg import String

    for topic in ('image_polar', 'image', 'labels_polar', 'labels'):
        probe.subscribe(Image, f'head/{topic}', reliable())
    robot, world = wall_and_post_scene(tmp_path)
    parameters = fan_parameters(
        robot, world, publish_image_polar=True, publish_image=True, publish_labels=True
    )
    with running('scanning_sonar_node', parameters) as node:
        kinds = ('image_polar', 'image', 'labels_polar', 'labels')
        window = in_step(probe, tuple(f'head/{t}' for t in kinds), node)
        # A subscriber that joins after the table was published still gets it (latched).
        latched = QoSProfile(
            depth=1,
            reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL,
        )
        probe.subscribe(String, 'head/label_names', latched)
        tables = received_within(probe, 'head/label_names', node)
        images = {t: window[f'head/{t}'] for t in ('image_polar', 'image')}
        labels = {t: window[f'head/{t}'] for t in ('labels_polar', 'labels')}
    assert len(tables) == 1
    names = label_table(tables[0])
    assert set(names) == {'wall', 'post'}
    assert sorted(names.values()) == [1, 2]
    post, wall = names['post'], names['wall']
    # Every label image pairs with the intensity image of its stamp.
    assert set(labels['labels_polar']) <= set(images['image_polar'])
    assert set(labels['labels']) <= set(images['image'])
    stamp = max(set(labels['labels_polar']) & set(labels['labels']))
    polar_message, label_message = images['image_polar'][stamp], labels['labels_polar'][stamp]
    assert label_message.header.frame_id == 'head'
    assert (label_message.width, label_message.height) == (BEAMS, BINS)
    assert (label_message.encoding, label_message.step) == ('mono16', 2 * BEAMS)
    polar = np.frombuffer(bytes(polar_message.data), dtype='<f4').reshape(BINS, BEAMS)
    image = np.frombuffer(bytes(label_message.data), dtype='<u2').reshape(BINS, BEAMS)
    # A label exactly where the polar image has an echo, of one of the table's entities.
    np.testing.assert_array_equal(image > 0, polar > 0)
    assert set(np.unique(image).tolist()) == {0, post, wall}
    # Pixel (r, c) is beam N - 1 - c, bin M - 1 - r: beam 25 is column 5, bin k row M - 1 - k.
    w = (MAX_RANGE - MIN_RANGE) / BINS
    column = image[:, BEAMS - 1 - POST_BEAM]
    bins = BINS - 1 - np.flatnonzero(column)
    width = math.radians(1.5)
    near = POST_X / math.cos(POST_AZIMUTH - width)
    far = POST_X / (math.cos(math.radians(5.0)) * math.cos(POST_AZIMUTH + width))
    assert bins.size
    assert set(column[column > 0].tolist()) == {post}  # the wall behind it: hidden
    assert bins.min() >= math.floor((near - MIN_RANGE) / w)
    assert bins.max() <= math.floor((far - MIN_RANGE) / w)
    boresight = image[:, BEAMS // 2]
    assert set(boresight[boresight > 0].tolist()) == {wall}
    wall_bins = BINS - 1 - np.flatnonzero(boresight)
    wall_far = D / (math.cos(math.radians(5.0)) * math.cos(width))
    assert wall_bins.min() >= math.floor((D - 1e-6 - MIN_RANGE) / w)  # a ray at r = D
    assert wall_bins.max() <= math.floor((wall_far - MIN_RANGE) / w)
    # The Cartesian labels: the intensity image's pixel grid, mono16; the post's label only
    # around the post (x 0.9 to 1.2 m, y 0.3 to 0.55 m: rows up - x / m, columns across - y / m).
    fan, cartesian = images['image'][stamp], labels['labels'][stamp]
    assert (cartesian.height, cartesian.width) == (fan.height, fan.width)
    assert (cartesian.encoding, cartesian.step) == ('mono16', 2 * fan.width)
    picture = np.frombuffer(bytes(cartesian.data), dtype='<u2').reshape(fan.height, fan.width)
    up = math.ceil(MAX_RANGE / M_PER_PX - 1e-9)
    across = (fan.width - 1) // 2
    assert picture[0, 0] == 0  # beyond the fan
    rows, cols = np.nonzero(picture == post)
    assert rows.size
    assert np.all((rows >= up - round(1.2 / M_PER_PX)) & (rows <= up - round(0.9 / M_PER_PX)))
    assert np.all(
        (cols >= across - round(0.55 / M_PER_PX)) & (cols <= across - round(0.3 / M_PER_PX))
    )
    ahead = picture[up - round((D + 0.05) / M_PER_PX) : up - round((D - 0.05) / M_PER_PX) + 1]
    assert wall in ahead[:, across]  # straight ahead, at x = D: the wall


def test_labels_survive_a_new_configuration_and_follow_the_sweep(tmp_path: Path) -> None:
    """A set_config rebuilds the fan with its labels; a sweep's labels are its rows' pings'."""
    from builtin_interfaces.msg import Time

    robot, world = wall_and_post_scene(tmp_path)
    parameters = fan_parameters(robot, world, publish_image_polar=True, publish_labels=True)
    with in_process(parameters) as node:
        entities = len(node.raycaster.entity_names)
        assert entities == 2
        answer = set_config(node, range_resolution=(MAX_RANGE - MIN_RANGE) / (BINS // 2))
        assert answer.success, answer.reason
        ping = node.rig.read()
        assert node.rig.device.sonar.label_entities == entities
        assert ping.labels is not None
        assert ping.labels.shape == (BEAMS, BINS // 2)
        np.testing.assert_array_equal(ping.labels > 0, ping.profiles > 0)
    step = math.radians(15.0)
    sweep = {
        'robot_description_file': robot,
        'scene_file': world,
        'min_angle': -2 * step,
        'max_angle': 2 * step,
        'step': step,
        'rays': 200,
        'publish_image_polar': True,
        'publish_labels': True,
        **ACOUSTICS,
    }
    with in_process(sweep) as node:
        outputs = node.outputs
        pings = []
        for _ in range(5):
            reading = node.rig.read()
            pings.append(reading.ping)
            outputs.publish(reading, Time())
        # The sweep's cross-ping state (devices/kinds/sweep.py), in its part of the outputs.
        latest = next(p for p in outputs.parts if hasattr(p, '_image'))._image
        assert latest.labels is not None
        for k, ping in enumerate(pings):  # row k: head angle k, the k-th step of the first sweep
            assert ping.labels is not None
            np.testing.assert_array_equal(latest.labels[k], ping.labels)
            np.testing.assert_array_equal(ping.labels > 0, ping.intensity > 0)


def test_labels_without_an_intensity_image_stop_the_node_with_one_line(tmp_path: Path) -> None:
    robot, world = wall_scene(tmp_path)
    command = [
        executable('scanning_sonar_node'),
        *ros_args(fan_parameters(robot, world, publish_labels=True)),
    ]
    assert exit_line(command).endswith(
        'publish_labels needs an intensity image to pair with: set publish_image, '
        'publish_image_polar or publish_image_polar_db'
    )


def test_a_label_image_over_the_limit_stops_the_node_with_one_line(tmp_path: Path) -> None:
    """With the Cartesian intensity image off, the label image has its own grid, checked alike."""
    across = math.ceil(MAX_RANGE * math.sin(LAST + SPACING / 2) / 0.01)
    assert across == 582  # 2 * 582 + 1 columns, 10 / 0.01 + 1 rows; the polar image fits
    limit = 100_000
    labels = {
        'publish_image_polar': True,
        'publish_labels': True,
        'image_resolution': 0.01,
        'image_max_pixels': limit,
    }
    robot, world = wall_scene(tmp_path)
    command = [
        executable('scanning_sonar_node'),
        *ros_args(fan_parameters(robot, world, **labels)),
    ]
    assert exit_line(command).endswith(
        f'Cartesian label image: {2 * across + 1} x 1001 = {(2 * across + 1) * 1001} pixels, '
        f'more than image_max_pixels ({limit})'
    )
