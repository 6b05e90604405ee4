"""The multibeam's ProjectedSonarImage over real DDS, at the wall x = D, against its MultibeamPing.

The message is decoded here with numpy alone, by the layout docs/marine.md gives: pixel
``(r, b)``, beam ``b`` at range ``ranges[r]``, at byte ``(r * beam_count + b) * itemsize``,
little-endian. Beam ``b`` of the fan points at azimuth ``a_b = FIRST + b * SPACING`` (REP 103,
about the body's z), which in the acoustic frame (z forward, x up, y starboard) is
``(0, -sin a_b, cos a_b)``; range bins of width ``W = (MAX_RANGE - 0.5) / BINS`` start at 0.5 m.
dB pixels: ``round((clip(SL + 10 log10 I, lo, hi) - lo) / (hi - lo) * (2**bits - 1))``, silent
bins 0. The ``SonarImageData.DTYPE_*`` codes are the message definition's: UINT16 2, FLOAT32 8.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ranger_scenes import (
    BEAMS,
    BINS,
    DB_HIGH,
    DB_LOW,
    FIRST,
    MAX_RANGE,
    MIN_RANGE,
    SPACING,
    C,
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

W = (MAX_RANGE - MIN_RANGE) / BINS
AZIMUTHS = FIRST + SPACING * np.arange(BEAMS)
SOURCE_LEVEL = 6.0
FREQUENCY, VERTICAL, HORIZONTAL = 900e3, math.radians(10.0), math.radians(1.5)
DTYPE_CODES = {'uint16': 2, 'float32': 8}  # SonarImageData.DTYPE_*


def parameters(robot: str, world: str, **more: Any) -> dict[str, Any]:
    """``image_fan``'s parameters at ``FREQUENCY`` Hz and a source level of ``SOURCE_LEVEL`` dB."""
    return image_fan(
        robot, world, **({'frequency': FREQUENCY, 'source_level': SOURCE_LEVEL} | more)
    )


def reliable() -> Any:
    from rclpy.qos import QoSProfile, ReliabilityPolicy

    return QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE)


def latched() -> Any:
    """The QoS of tf2's static listener: a late subscriber still gets /tf_static."""
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

    return QoSProfile(
        depth=100,
        reliability=ReliabilityPolicy.RELIABLE,
        durability=DurabilityPolicy.TRANSIENT_LOCAL,
    )


def decode(message: Any) -> np.ndarray:
    """The ``(n_ranges, n_beams)`` image of a ProjectedSonarImage, by the documented layout."""
    pixel = {0: '<u1', 2: '<u2', 4: '<u4', 8: '<f4'}[message.image.dtype]
    assert message.image.is_bigendian is False
    data = np.frombuffer(bytes(message.image.data), dtype=pixel)
    assert data.size == len(message.ranges) * message.image.beam_count
    return data.reshape(len(message.ranges), message.image.beam_count)


def rotation_of(q: Any) -> np.ndarray:
    """The rotation matrix of a unit quaternion (x, y, z, w), written out here."""
    x, y, z, w = q.x, q.y, q.z, q.w
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def first_static(probe: Probe, node: Any, timeout: float = NODE_START_TIMEOUT) -> Any:
    """The node's /tf_static message (latched: it may have come before this call)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with probe.lock:
            if probe.received['/tf_static']:
                return probe.received['/tf_static'][0]
        assert node.poll() is None, f'the node exited: {node.communicate()[1]}'
        time.sleep(0.02)
    pytest.fail(f'no /tf_static in {timeout} s')


def received(probe: Probe, node: Any) -> tuple[Any, Any]:
    """The latest projected image and the MultibeamPing of the same stamp."""
    window = in_step(probe, ('head/projected_image', 'head/multibeam'), node)
    images, pings = window['head/projected_image'], window['head/multibeam']
    stamp = max(set(images) & set(pings))
    return images[stamp], pings[stamp]


@pytest.mark.parametrize('dtype', ['float32', 'uint16'])
def test_the_projected_image_is_the_ping_pixel_for_pixel(
    tmp_path: Path, probe: Probe, dtype: str
) -> None:
    from marine_acoustic_msgs.msg import ProjectedSonarImage
    from tf2_msgs.msg import TFMessage

    from nps_sonar.msg import MultibeamPing

    probe.subscribe(ProjectedSonarImage, 'head/projected_image', reliable())
    probe.subscribe(MultibeamPing, 'head/multibeam', reliable())
    probe.subscribe(TFMessage, '/tf_static', latched())
    robot, world = wall_scene(tmp_path)
    switches = {'publish_projected_image': True, 'projected_image_dtype': dtype}
    with running('scanning_sonar_node', parameters(robot, world, **switches)) as node:
        image, ping = received(probe, node)
        static = first_static(probe, node)
    assert image.header.stamp == ping.header.stamp
    assert image.header.frame_id == 'head_acoustic'
    assert ping.header.frame_id == 'head'
    assert (image.image.dtype, image.image.beam_count) == (DTYPE_CODES[dtype], BEAMS)
    assert (ping.beam_count, ping.bin_count) == (BEAMS, BINS)

    # Pixels: the ping's profiles (beam-major) as range-major rows of beams.
    pixels = decode(image)
    profiles = np.array(ping.profiles, dtype=np.float32).reshape(BEAMS, BINS)
    assert pixels.shape == (BINS, BEAMS)
    if dtype == 'float32':
        assert pixels.dtype == np.float32
        np.testing.assert_array_equal(pixels, profiles.T)
    else:
        loud = profiles > 0
        levels = np.full(profiles.shape, DB_LOW)
        levels[loud] = SOURCE_LEVEL + 10.0 * np.log10(profiles[loud].astype(np.float64))
        top = 2**16 - 1
        expected = np.rint((np.clip(levels, DB_LOW, DB_HIGH) - DB_LOW) / (DB_HIGH - DB_LOW) * top)
        expected[~loud] = 0
        assert pixels.dtype == np.uint16
        np.testing.assert_array_equal(pixels, expected.T.astype(np.uint16))
        assert np.count_nonzero((pixels > 0) & (pixels < top)) > 0  # inside the window
    # The boresight beam (15) sees the wall first in bin (D - 0.5) / W = 300.
    assert int(np.flatnonzero(pixels[:, BEAMS // 2])[0]) == round((D - MIN_RANGE) / W)

    # Geometry: bin centres, the beams' axes in the acoustic frame, the fan's widths.
    centres = MIN_RANGE + (np.arange(BINS) + 0.5) * W
    np.testing.assert_allclose(np.array(image.ranges), centres, rtol=1e-6)
    directions = np.array([(d.x, d.y, d.z) for d in image.beam_directions])
    expected_directions = np.stack([np.zeros(BEAMS), -np.sin(AZIMUTHS), np.cos(AZIMUTHS)], axis=1)
    np.testing.assert_allclose(directions, expected_directions, atol=1e-9)
    info = image.ping_info
    assert info.frequency == pytest.approx(FREQUENCY, rel=1e-7)
    assert info.sound_speed == pytest.approx(C, rel=1e-7)
    assert list(info.tx_beamwidths) == pytest.approx([VERTICAL], rel=1e-6)
    assert list(info.rx_beamwidths) == pytest.approx([HORIZONTAL], rel=1e-6)

    # /tf_static holds head -> head_acoustic, a pure rotation that takes each beam's direction
    # in the acoustic frame to (cos a, sin a, 0) in the body frame (x forward, y left).
    frames = {t.child_frame_id: t for t in static.transforms}
    acoustic = frames['head_acoustic']
    assert acoustic.header.frame_id == 'head'
    t = acoustic.transform.translation
    assert (t.x, t.y, t.z) == (0.0, 0.0, 0.0)
    rotation = rotation_of(acoustic.transform.rotation)
    body = directions @ rotation.T
    beams = np.stack([np.cos(AZIMUTHS), np.sin(AZIMUTHS), np.zeros(BEAMS)], axis=1)
    np.testing.assert_allclose(body, beams, atol=1e-9)
    np.testing.assert_allclose(rotation @ [0.0, 0.0, 1.0], [1.0, 0.0, 0.0], atol=1e-12)  # z ahead
    np.testing.assert_allclose(rotation @ [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], atol=1e-12)  # x up


def test_off_by_default_no_topic_and_no_acoustic_frame(tmp_path: Path, probe: Probe) -> None:
    from tf2_msgs.msg import TFMessage

    from nps_sonar.msg import MultibeamPing

    probe.subscribe(MultibeamPing, 'head/multibeam', reliable())
    probe.subscribe(TFMessage, '/tf_static', latched())
    robot, world = wall_scene(tmp_path)
    with running('scanning_sonar_node', parameters(robot, world)) as node:
        probe.wait('head/multibeam', 2, node)
        static = first_static(probe, node)
        assert probe.node.get_publishers_info_by_topic('/head/projected_image') == []
    assert {t.child_frame_id for t in static.transforms} == {'head'}


def test_no_projected_image_without_intensities(tmp_path: Path, probe: Probe) -> None:
    from marine_acoustic_msgs.msg import ProjectedSonarImage

    from nps_sonar import srv
    from nps_sonar.msg import MultibeamPing

    probe.subscribe(ProjectedSonarImage, 'head/projected_image', reliable())
    probe.subscribe(MultibeamPing, 'head/multibeam', reliable())
    robot, world = wall_scene(tmp_path)
    switches = {'publish_projected_image': True}
    with running('scanning_sonar_node', parameters(robot, world, **switches)) as node:
        probe.wait('head/projected_image', 1, node)
        answer = probe.call(srv.EnableRangerIntensities, 'head/enable_intensities', enable=False)
        assert answer.success
        # Pings without profiles, then two more: none of the silent pings had an image. Those
        # read after the answer (pings read before it may still be on their way).
        pings = stamped_after(probe, 'head/multibeam', node, time.time_ns(), count=6)
        silent = {nanoseconds(p.header.stamp) for p in pings[:4] if len(p.profiles) == 0}
        with probe.lock:
            stamps = {nanoseconds(m.header.stamp) for m in probe.received['head/projected_image']}
    assert silent
    assert not silent & stamps


def test_a_dtype_not_of_the_four_stops_the_node_with_one_line(tmp_path: Path) -> None:
    robot, world = wall_scene(tmp_path)
    switches = {'publish_projected_image': True, 'projected_image_dtype': 'int16'}
    command = [executable('scanning_sonar_node'), *ros_args(parameters(robot, world, **switches))]
    line = exit_line(command)
    assert line.endswith(
        "projected_image_dtype must be uint8, uint16, uint32 or float32, got 'int16'"
    ), line
