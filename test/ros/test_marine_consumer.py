"""Our marine messages read as the marine tools read them, over real DDS (docs/marine.md).

A small consumer of our own decodes each message by the released definitions
(marine_acoustic_msgs 2.1.0, their comments and README) and the way the tools that read them
do, then places known targets with the node's ``/tf_static`` alone, as a viewer would:

* ``ProjectedSonarImage``, as sonar_image_proc draws it: pixel ``(r, b)`` at element
  ``r * beam_count + b`` of ``image.data`` read as the dtype (range-major: row 0 is
  ``ranges[0]``, the nearest); a beam's azimuth ``atan2(-y, z)`` of its direction (a turn
  about x, up, positive to port), so that ``atan2(y, z)`` is its bearing positive to
  starboard; the fan's vertical extent ``tx_beamwidths[0]``. sonar_image_proc takes uint8,
  uint16 and uint32; rviz_sonar_image's fan float32 as well: all four are decoded.
* ``RawSonarImage`` of the side-scan, as rviz_sonar_image's curtain draws it: sample ``i`` of
  beam ``b`` at element ``i * beam_count + b``, at range ``(sample0 + i) c / (2 sample_rate)``,
  along ``(sin tx, sin rx, cos rx cos tx)`` in the header's frame (the README: ``rx`` the
  elevation from the x-z plane towards y, ``tx`` from the y-z plane towards x).
* ``SonarDetections``, as a multibeam processing chain turns them into soundings: range
  ``c t / 2`` with ``c`` the ping's sound speed, along the same ``(tx, rx)`` direction, ``rx``
  positive to starboard and ``tx`` positive forward (the field comments).

The targets are placed by hand and the expected places computed here in closed form: posts
to port and to starboard of a multibeam, a box to port of a side-scan (its shadow), a block
on the seabed to starboard of an echosounder. Each is checked on its side and, as the
negative control, absent from the other.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ranger_scenes import ACOUSTICS, MAX_RANGE
from ros_helpers import Probe, running
from test_echosounder_node import D as DEPTH
from test_echosounder_node import parameters as echosounder_parameters
from test_echosounder_node import scene as echosounder_scene
from test_projected_image import HORIZONTAL, first_static, latched, reliable, rotation_of
from test_projected_image import VERTICAL as VERTICAL_FAN
from test_projected_image import parameters as projected_parameters
from test_sidescan_node import HB, TILT, VERTICAL, WIDTH, Y0, H, W, shadow_slant
from test_sidescan_node import parameters as sidescan_parameters
from test_sidescan_node import world as sidescan_world

pytestmark = pytest.mark.ros

DTYPES = ['uint8', 'uint16', 'uint32', 'float32']
#: ``SonarImageData.DTYPE_*`` (the definition's constants) and the numpy type of each.
PIXELS = {0: 'u1', 2: 'u2', 4: 'u4', 8: 'f4'}


# --- the consumer ----------------------------------------------------------------------------


def pixels(image: Any, rows: int) -> np.ndarray:
    """``SonarImageData`` as ``(rows, beam_count)`` numbers: element ``row * beam_count + b``."""
    assert image.dtype in PIXELS, f'no tool reads dtype {image.dtype}'
    order = '>' if image.is_bigendian else '<'
    data = np.frombuffer(bytes(image.data), dtype=order + PIXELS[image.dtype])
    assert data.size == rows * image.beam_count
    return data.reshape(rows, image.beam_count)


def body_rotation(static: Any, parent: str, child: str) -> np.ndarray:
    """The rotation of ``child`` in ``parent`` from ``/tf_static`` (a pure turn: no offset)."""
    frames = {(t.header.frame_id, t.child_frame_id): t for t in static.transforms}
    transform = frames[(parent, child)].transform
    offset = transform.translation
    assert (offset.x, offset.y, offset.z) == (0.0, 0.0, 0.0)
    return rotation_of(transform.rotation)


def steered(tx_angles: Any, rx_angles: Any) -> np.ndarray:
    """``(n, 3)`` unit directions of beams steered by ``tx`` and ``rx`` (the README's angles)."""
    tx, rx = np.asarray(tx_angles, dtype=np.float64), np.asarray(rx_angles, dtype=np.float64)
    return np.stack([np.sin(tx), np.sin(rx), np.cos(rx) * np.cos(tx)], axis=1)


def projected_echoes(message: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The lit pixels of a ProjectedSonarImage: ranges (m), azimuths (rad) and their points.

    Points are in the message's frame; azimuths are sonar_image_proc's ``atan2(-y, z)``.
    """
    ranges = np.asarray(message.ranges, dtype=np.float64)
    image = pixels(message.image, ranges.size)
    directions = np.array([(d.x, d.y, d.z) for d in message.beam_directions])
    azimuths = np.arctan2(-directions[:, 1], directions[:, 2])
    rows, beams = np.nonzero(image > 0)
    points = ranges[rows, None] * directions[beams]
    return ranges[rows], azimuths[beams], points


# --- ProjectedSonarImage: a post to port, another to starboard -------------------------------

PORT_POST, STARBOARD_POST, POST_RADIUS = (6.0, math.radians(20.0)), (8.0, math.radians(-12.0)), 0.3
BIN = (MAX_RANGE - 0.5) / ACOUSTICS['range_bins']  # m


def posts_scene(tmp_path: Path) -> tuple[str, str]:
    """A forward-looking sonar at the origin (body frame = base_link) and two vertical posts."""
    posts = ''.join(
        f'<model name="{name}" retro="255"><robot name="{name}"><link name="{name}"><collision>'
        f'<origin xyz="{r * math.cos(a)!r} {r * math.sin(a)!r} 0"/>'
        f'<geometry><cylinder radius="{POST_RADIUS}" length="20"/></geometry>'
        '</collision></link></robot></model>'
        for name, (r, a) in (('port_post', PORT_POST), ('starboard_post', STARBOARD_POST))
    )
    world = tmp_path / 'posts.world'
    world.write_text(f'<world name="posts">{posts}</world>')
    robot = tmp_path / 'sonar.urdf'
    robot.write_text(f'''<robot name="head"><link name="base_link"/>
  <sensor name="head" type="sonar"><parent link="base_link"/>
    <origin rpy="-1.5707963267948966 0 -1.5707963267948966"/>
    <sonar min="0.5" max="{MAX_RANGE}" radius="0.2"/></sensor></robot>''')
    return str(robot), str(world)


def fan_parameters(robot: str, world: str, dtype: str) -> dict[str, Any]:
    """test_projected_image's fan, its dB window wide enough that every echo reads above 0."""
    window = {'image_db_min': -250.0, 'image_db_max': 0.0}
    switches = {'publish_projected_image': True, 'projected_image_dtype': dtype}
    return projected_parameters(robot, world, **window, **switches)


def first_message(probe: Probe, msg_type: Any, topic: str, settings: dict[str, Any]) -> Any:
    """The first message on ``topic`` of a node run with ``settings``, and its /tf_static."""
    from tf2_msgs.msg import TFMessage

    probe.subscribe(msg_type, topic, reliable())
    probe.subscribe(TFMessage, '/tf_static', latched())
    with running('scanning_sonar_node', settings) as node:
        return probe.wait(topic, 1, node)[0], first_static(probe, node)


@pytest.mark.parametrize('dtype', DTYPES)
def test_projected_image_posts_land_at_their_range_bearing_and_side(
    tmp_path: Path, probe: Probe, dtype: str
) -> None:
    from marine_acoustic_msgs.msg import ProjectedSonarImage

    settings = fan_parameters(*posts_scene(tmp_path), dtype)
    message, static = first_message(probe, ProjectedSonarImage, 'head/projected_image', settings)
    assert message.ping_info.tx_beamwidths[0] == pytest.approx(VERTICAL_FAN, rel=1e-6)
    ranges = np.asarray(message.ranges)
    assert np.all(np.diff(ranges) > 0)  # row 0 is the nearest range

    found, azimuths, points = projected_echoes(message)
    bearings = np.arctan2(points[:, 1], points[:, 2])  # positive to starboard
    np.testing.assert_allclose(bearings, -azimuths, atol=1e-12)
    spread = math.asin(POST_RADIUS / PORT_POST[0]) + HORIZONTAL  # a post's half-width, a beam
    for (centre, azimuth), side in ((PORT_POST, azimuths > 0), (STARBOARD_POST, azimuths < 0)):
        echoes = found[side]
        assert echoes.size > 0
        # The post's near face, seen through the fan's vertical width, within a bin.
        near = centre - POST_RADIUS
        assert echoes.min() == pytest.approx(near, abs=2 * BIN)
        assert np.all(echoes < centre + 0.05)  # the far edge of its visible half
        assert np.all(np.abs(azimuths[side] - azimuth) < spread + 1e-6)

    # Through /tf_static into the body frame (x forward, y left): the nearest echo of each
    # post is the post's near face, on its side.
    rotation = body_rotation(static, 'head', message.header.frame_id)
    body = points @ rotation.T
    for centre, azimuth in (PORT_POST, STARBOARD_POST):
        side = np.sign(azimuth) * body[:, 1] > 0
        nearest = body[side][np.argmin(np.linalg.norm(body[side], axis=1))]
        face = (centre - POST_RADIUS) * np.array([math.cos(azimuth), math.sin(azimuth), 0.0])
        np.testing.assert_allclose(nearest, face, atol=0.15)
    port = body[:, 1] > 0
    assert np.all(np.abs(np.linalg.norm(body[port], axis=1) - PORT_POST[0]) < 0.5)
    assert np.all(np.abs(np.linalg.norm(body[~port], axis=1) - STARBOARD_POST[0]) < 0.5)


# --- RawSonarImage of the side-scan: a box to port and its shadow -----------------------------


@pytest.mark.parametrize('dtype', DTYPES)
def test_sidescan_raw_image_puts_the_port_box_and_its_shadow_to_port(
    tmp_path: Path, probe: Probe, dtype: str
) -> None:
    from marine_acoustic_msgs.msg import RawSonarImage

    settings = sidescan_parameters(sidescan_world(tmp_path), raw_image_dtype=dtype)
    message, static = first_message(probe, RawSonarImage, 'sidescan/raw_image', settings)
    samples = pixels(message.image, message.samples_per_beam)
    step = message.ping_info.sound_speed / message.sample_rate / 2.0  # m per sample
    start = (message.sample0 + np.arange(message.samples_per_beam)) * step
    rotation = body_rotation(static, 'sidescan', message.header.frame_id)
    axes = steered(message.tx_angles, message.rx_angles) @ rotation.T  # in the body frame

    # Each beam's axis in the body frame (x forward, y left, z up): across track, down by
    # the tilt; the beam of negative rx (to port, by the definition) looks to +y.
    assert message.image.beam_count == 2
    for axis in axes:
        side = np.sign(axis[1])
        np.testing.assert_allclose(axis, [0.0, side * math.cos(TILT), -math.sin(TILT)], atol=1e-6)
    port_beam = int(np.argmax(axes[:, 1]))
    assert message.rx_angles[port_beam] < 0 < message.rx_angles[1 - port_beam]
    port, starboard = samples[:, port_beam], samples[:, 1 - port_beam]

    # Both beams hear the seabed first at H / sin(top), the top of the fan.
    first = H / math.sin(min(TILT + VERTICAL / 2, math.pi / 2))
    for channel in (port, starboard):
        assert not channel[start + step < first - step].any()
        assert channel[(start > first) & (start < first + 2.0)].all()
    # The box's shadow on the seabed, on the port beam only; the starboard beam is lit there.
    near, far = shadow_slant()
    inside = (start > near + step) & (start + step < far - step)
    assert inside.sum() > 10
    assert not port[inside].any()
    assert starboard[inside].all()
    # A flat-bottom consumer places the port beam's silence at ground y = +sqrt(r^2 - H^2)
    # (the side of the beam's axis): from behind the box's top edge, slant range
    # hypot(Y0 + WIDTH, H - HB), to the far end of its shadow.
    silent = (port == 0) & (start > first + W)
    ground = np.sign(axes[port_beam, 1]) * np.sqrt(start[silent] ** 2 - H**2)
    behind_top = math.hypot(Y0 + WIDTH, H - HB)
    assert ground.min() == pytest.approx(math.sqrt(behind_top**2 - H**2), abs=2 * W)
    assert ground.max() == pytest.approx(math.sqrt(far**2 - H**2), abs=2 * W)
    assert not ((starboard == 0) & (start > first + W)).any()  # no shadow to starboard


# --- SonarDetections: a block on the seabed to starboard --------------------------------------

BLOCK_Y, BLOCK_TOP = (-6.0, -3.0), -7.0  # across track (body y, starboard negative), top z


def block_world(tmp_path: Path) -> str:
    """The echosounder's flat seabed z = -DEPTH and a block on it, to starboard, long along x."""
    low, high = BLOCK_Y
    height = BLOCK_TOP + DEPTH
    path = tmp_path / 'block.world'
    path.write_text(f"""<world name="block">
  <model name="bed"><robot name="bed"><link name="bed"><collision>
    <origin xyz="0 0 {-DEPTH - 0.1}"/><geometry><box size="200 200 0.2"/></geometry>
  </collision></link></robot></model>
  <model name="block"><robot name="block"><link name="block"><collision>
    <origin xyz="0 {(low + high) / 2} {-DEPTH + height / 2}"/>
    <geometry><box size="200 {high - low} {height}"/></geometry>
  </collision></link></robot></model>
</world>""")
    return str(path)


def first_hit(direction: np.ndarray) -> np.ndarray:
    """Where a ray from the origin along ``direction`` (body frame, in the y-z plane) first
    meets the seabed, the block's top or the block's near side face (y = BLOCK_Y[1])."""
    _, dy, dz = direction
    low, high = BLOCK_Y
    hits = [DEPTH / -dz]  # the seabed z = -DEPTH
    top = BLOCK_TOP / dz
    if low <= top * dy <= high:
        hits.append(top)
    if dy < 0:
        side = high / dy
        if -DEPTH <= side * dz <= BLOCK_TOP:
            hits.append(side)
    return min(hits) * direction


def test_detections_put_the_starboard_block_at_negative_y(tmp_path: Path, probe: Probe) -> None:
    from marine_acoustic_msgs.msg import SonarDetections

    robot, _ = echosounder_scene(tmp_path)
    settings = echosounder_parameters(robot, block_world(tmp_path))
    message, static = first_message(probe, SonarDetections, 'mbes/detections', settings)
    times = np.asarray(message.two_way_travel_times, dtype=np.float64)
    assert np.all(np.isfinite(times))
    directions = steered(message.tx_angles, message.rx_angles)
    ranges = message.ping_info.sound_speed * times / 2.0
    rotation = body_rotation(static, 'mbes', message.header.frame_id)
    soundings = (ranges[:, None] * directions) @ rotation.T  # body frame: x forward, y left

    # Every sounding where its beam's axis meets the bed or the block (closed form).
    expected = np.array([first_hit(d) for d in directions @ rotation.T])
    np.testing.assert_allclose(soundings, expected, rtol=1e-5, atol=1e-4)
    rx = np.asarray(message.rx_angles)
    assert np.all(np.sign(soundings[rx != 0, 1]) == -np.sign(rx[rx != 0]))  # + rx: starboard
    raised = soundings[:, 2] > -DEPTH + 0.5  # on the block
    assert raised.sum() >= 3
    assert np.all(soundings[raised, 1] < 0)  # to starboard, at negative y
    assert np.all(
        (soundings[raised, 1] >= BLOCK_Y[0] - 1e-4) & (soundings[raised, 1] <= BLOCK_Y[1] + 1e-4)
    )
    mirrored = np.abs(soundings[:, 1]) >= -BLOCK_Y[1]
    port = soundings[:, 1] > 0
    np.testing.assert_allclose(
        soundings[port & mirrored, 2], -DEPTH, rtol=1e-5
    )  # no block to port
