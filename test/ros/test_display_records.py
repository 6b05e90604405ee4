"""The device-encoded images over real DDS, and the field's files ``sonar_record`` writes of them.

Each node runs a display chain (``display``) and ``sonar_record`` records it from the graph,
then writes the field's file, which the test reads back with the reader the realism
benchmark uses for the real records (``formats``):

* the side-scan of ``test_sidescan_node`` (level at H = 8 m over a flat seabed, 0.5-50 m):
  ``/sidescan/display_line`` is one mono16 row per ping, port far to near then starboard,
  over ``0..50 m`` at the XTF chain's sample spacing; the seabed's first echo comes at slant
  ``H / sin(tilt + vertical / 2)`` (11.3 m), so each side is far louder past it than before
  it, on the port half only once read right to left (the negative control: read left to
  right it is not). ``sidescan.xtf`` holds the same codes, port near to far.
* the fan of ``test_projected_image`` (31 beams, a wall at x = D = 2 m, 0-10 m):
  ``/head/display_image`` is mono8 (the Oculus chain's 8 bits), a row per sample far to near,
  a column per beam port to starboard; the boresight column is loudest at the wall's row.
  ``oculus.raw`` holds the codes rows near to far, bearings ``-azimuth`` (positive to
  starboard), gamma 127.
* the echosounder of ``test_echosounder_node`` (21 beams over a seabed D = 10 m below):
  ``soundings.gsf`` holds per beam the depth D and across track ``-D tan a`` (to starboard),
  at GSF's millimetre.
Without ``display`` no display topic is published (the negative control of the switch).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ros_helpers import Probe, running
from test_recorder import RecorderProcess

from nps_sonar_py.echo.display_presets import DISPLAY_PRESETS

pytestmark = pytest.mark.ros

XTF_CHAIN, OCULUS_CHAIN = 'sidescan_600khz_xtf', 'oculus_m750d_hf'


def samples_of(chain: str, max_range: float) -> int:
    """Samples over ``0..max_range`` at the preset's spacing (docs/display.md)."""
    preset = DISPLAY_PRESETS[chain]
    return round(max_range / (preset.max_range / preset.samples))


def pixels(image: Any, kind: type) -> np.ndarray:
    """``(height, width)`` pixels of a recorded mono8/mono16 image, little-endian."""
    assert image.is_bigendian == 0
    rows = np.frombuffer(bytes(image.data), dtype=np.uint8).reshape(image.height, image.step)
    return (
        rows[:, : image.width * np.dtype(kind).itemsize].copy().view(f'<{np.dtype(kind).str[1:]}')
    )


def recorded(bag: Path, topic: str) -> list[Any]:
    """The messages of ``topic`` in ``bag``, in order, read with rosbags (no ROS)."""
    from rosbags.highlevel import AnyReader

    with AnyReader([bag]) as reader:
        connections = [c for c in reader.connections if c.topic == topic]
        return [
            reader.deserialize(raw, c.msgtype)
            for c, _, raw in reader.messages(connections=connections)
        ]


def stamp_of(message: Any) -> tuple[int, int]:
    """A message's header stamp, (sec, nanosec)."""
    return (message.header.stamp.sec, message.header.stamp.nanosec)


def record(
    bag: Path, probe: Probe, node_params: dict[str, Any], watch: tuple[Any, str], *args: str
) -> None:
    """Run the node, record ``args`` until two more ``watch`` messages, finish cleanly."""
    from test_sidescan_node import reliable

    kind, topic = watch
    probe.subscribe(kind, topic, reliable())
    with running('scanning_sonar_node', node_params) as node:
        recorder = RecorderProcess(bag, *args)
        recorder.wait_writing([topic])
        probe.wait(topic, probe.count(topic) + 3, node)
        status, out, err = recorder.finish()
    assert status == 0, err
    assert 'wrote ' in out


def test_the_side_scan_line_and_its_xtf(tmp_path: Path, probe: Probe) -> None:
    from sensor_msgs.msg import Image
    from test_sidescan_node import MAX_RANGE, H, parameters, world

    from nps_sonar_py.formats.xtf import read_sidescan

    bag = tmp_path / 'bag'
    node = parameters(world(tmp_path), display=XTF_CHAIN, frequency=600e3)
    record(bag, probe, node, (Image, '/sidescan/display_line'), '--sidescan', '/sidescan', '--xtf')
    lines = recorded(bag, '/sidescan/display_line')
    samples = samples_of(XTF_CHAIN, MAX_RANGE)
    assert {(m.encoding, m.height, m.width) for m in lines} == {('mono16', 1, 2 * samples)}
    rows = np.concatenate([pixels(m, np.uint16) for m in lines])
    first = H  # slant range of the seabed's first echo, m: straight down, cast to nadir
    spacing = MAX_RANGE / samples
    before, after = slice(0, int(0.8 * first / spacing)), slice(int(first / spacing), None)

    def contrast(side: np.ndarray) -> float:
        return float(side[:, after].astype(float).mean() / (side[:, before].mean() + 1.0))

    port, starboard = rows[:, :samples][:, ::-1], rows[:, samples:]
    assert contrast(starboard) > 10.0
    assert contrast(port) > 10.0
    # Negative control: port read the wrong way fails the check above (its far, faint end
    # first; the bright seabed under the sonar, heard through the skirt, is in its "after").
    assert contrast(rows[:, :samples]) < 10.0
    # The XTF file: the same codes per ping, port near to far, the window and the carrier.
    # A ping is written with its window (``/sidescan/ranger``): the recorder can stop between
    # a ping's line and its window, so the file holds the lines whose window the bag holds.
    xtf = read_sidescan(bag / 'sidescan.xtf')
    windowed = {stamp_of(m) for m in recorded(bag, '/sidescan/ranger')}
    paired = [m for m in lines if stamp_of(m) in windowed]
    assert len(paired) >= len(lines) - 1
    rows = np.concatenate([pixels(m, np.uint16) for m in paired])
    assert xtf.port.shape == (len(paired), samples)
    np.testing.assert_array_equal(xtf.port, rows[:, :samples][:, ::-1])
    np.testing.assert_array_equal(xtf.starboard, rows[:, samples:])
    assert xtf.slant_range == pytest.approx(MAX_RANGE)
    assert xtf.frequency == pytest.approx(600e3)
    stamps = [m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec for m in paired]
    np.testing.assert_allclose(xtf.times, np.array(stamps) - stamps[0], atol=0.011)


def test_the_fan_image_in_the_oculus_encoding(tmp_path: Path, probe: Probe) -> None:
    from ranger_scenes import MAX_RANGE, D, wall_scene
    from sensor_msgs.msg import Image
    from test_projected_image import AZIMUTHS, BEAMS, parameters

    from nps_sonar_py.formats.oculus import read_oculus

    bag = tmp_path / 'bag'
    robot, world = wall_scene(tmp_path)
    node = parameters(robot, world, display=OCULUS_CHAIN, display_gain_db=30.0)
    record(bag, probe, node, (Image, '/head/display_image'), '--oculus', '/head')
    images = recorded(bag, '/head/display_image')
    samples = samples_of(OCULUS_CHAIN, MAX_RANGE)
    assert {(m.encoding, m.height, m.width) for m in images} == {('mono8', samples, BEAMS)}
    codes = pixels(images[-1], np.uint8)
    wall_row = samples - 1 - int(D / (MAX_RANGE / samples))  # far at the top
    assert abs(int(np.argmax(codes[:, BEAMS // 2])) - wall_row) <= 2
    # The Oculus file: rows near to far, bearings positive to starboard, port first.
    pings = read_oculus(bag / 'oculus.raw')
    pinged = [m for m in recorded(bag, '/head/multibeam')]
    assert 1 <= len(pings) <= len(images)
    stamps = {stamp_of(m) for m in pinged}
    paired = [m for m in images if stamp_of(m) in stamps]
    np.testing.assert_array_equal(pings[-1].image, pixels(paired[-1], np.uint8)[::-1])
    assert not np.array_equal(pings[-1].image, pixels(paired[-1], np.uint8))  # control
    np.testing.assert_allclose(pings[-1].bearings, -AZIMUTHS[::-1], atol=1e-4)
    assert pings[-1].range_resolution * samples == pytest.approx(MAX_RANGE)
    assert pings[-1].gamma == 127


def test_the_soundings_in_gsf(tmp_path: Path, probe: Probe) -> None:
    from sensor_msgs.msg import PointCloud2
    from test_echosounder_node import ANGLES, D, parameters, scene

    from nps_sonar_py.formats.gsf import read_soundings

    bag = tmp_path / 'bag'
    robot, world = scene(tmp_path)
    record(
        bag, probe, parameters(robot, world), (PointCloud2, '/mbes/soundings'), '--gsf', '/mbes'
    )
    soundings = read_soundings(bag / 'soundings.gsf')
    assert soundings.depth.shape == (len(recorded(bag, '/mbes/soundings')), len(ANGLES))
    np.testing.assert_allclose(soundings.depth, D, atol=2e-3)
    expected = np.broadcast_to(-D * np.tan(ANGLES), soundings.depth.shape)
    np.testing.assert_allclose(soundings.across_track, expected, atol=2e-3)
    # Negative control: the body frame's y (to port) is not GSF's across track.
    assert not np.allclose(soundings.across_track, -expected, atol=2e-3)


def test_no_display_topic_without_a_chain(tmp_path: Path, probe: Probe) -> None:
    from ranger_scenes import wall_scene
    from test_projected_image import parameters, reliable

    from nps_sonar.msg import MultibeamPing

    probe.subscribe(MultibeamPing, 'head/multibeam', reliable())
    robot, world = wall_scene(tmp_path)
    with running('scanning_sonar_node', parameters(robot, world)) as node:
        probe.wait('head/multibeam', 2, node)
        assert probe.node.get_publishers_info_by_topic('/head/display_image') == []
        assert probe.node.get_publishers_info_by_topic('/head/multibeam') != []
