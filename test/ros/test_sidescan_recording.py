"""Recording a side-scan costs what its data costs: the raw pings, the waterfall drawn from them.

``sonar_record --sidescan /sidescan`` records the raw pings (``raw_image``) and the
``RangerData`` (``ranger``: the exact range window), not the display ``waterfall``, which
republishes the whole image at every line; ``--waterfall`` adds it. ``bag_report.raw_waterfall``
draws the waterfall from the raw pings with the node's own ``Waterfall`` code, so a recording
that holds both is compared line for line: the last recorded display image against the
waterfall drawn from the pings up to its stamp (speckle makes every line differ, so a line off
by one ping fails: the negative control). The node of ``test_sidescan_node`` (its world and
parameters: 500 bins over 0.5 to 50 m, whose start is no whole number of bins, so only the
``RangerData`` window gives the node's bins exactly).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ros_helpers import Probe, running
from test_recorder import RecorderProcess
from test_sidescan_node import LINES, SAMPLES, parameters, reliable, world

pytestmark = pytest.mark.ros

RAW, RANGER, WATERFALL = '/sidescan/raw_image', '/sidescan/ranger', '/sidescan/waterfall'


def _record(tmp_path: Path, probe: Probe, pings: int, *args: str, **more: Any) -> Path:
    """Run the side-scan and ``sonar_record BAG --sidescan /sidescan *args`` for ``pings`` more."""
    from marine_acoustic_msgs.msg import RawSonarImage

    bag = tmp_path / 'bag'
    topics = [RAW, RANGER, *([WATERFALL] if '--waterfall' in args else [])]
    probe.subscribe(RawSonarImage, RAW, reliable())
    with running('scanning_sonar_node', parameters(world(tmp_path), **more)) as node:
        recorder = RecorderProcess(bag, '--sidescan', '/sidescan', *args)
        recorder.wait_writing(topics)
        probe.wait(RAW, probe.count(RAW) + pings, node)
        status, out, err = recorder.finish()
    assert status == 0, err
    assert f'drew {bag / "raw_waterfall_sidescan_raw_image.png"}' in out
    return bag


def _stamp(message: Any) -> int:
    return int(message.header.stamp.sec) * 1_000_000_000 + int(message.header.stamp.nanosec)


def _last_image(bag: Path) -> tuple[Any, set[int]]:
    """The last recorded waterfall image whose ping is in the bag, and the pings' stamps."""
    from rosbags.highlevel import AnyReader

    with AnyReader([bag]) as reader:
        by_topic = {c.topic: c for c in reader.connections}
        raws = {
            _stamp(reader.deserialize(raw, c.msgtype))
            for c, _, raw in reader.messages(connections=[by_topic[RAW]])
        }
        images = [
            reader.deserialize(raw, c.msgtype)
            for c, _, raw in reader.messages(connections=[by_topic[WATERFALL]])
        ]
    return [i for i in images if _stamp(i) in raws][-1], raws


def test_the_raw_pings_are_recorded_and_not_the_display_waterfall(
    tmp_path: Path, probe: Probe
) -> None:
    import matplotlib.image
    from rosbags.highlevel import AnyReader
    from test_sidescan_node import DB_HIGH, DB_LOW

    from nps_sonar_py.plots import waterfall_scale
    from nps_sonar_py.ros.bag_report import raw_waterfall
    from nps_sonar_py.sensing.images import DbWindow, db_pixels

    bag = _record(tmp_path, probe, 5, '--db-window', str(DB_LOW), str(DB_HIGH))
    with AnyReader([bag]) as reader:
        counts = {c.topic: c.msgcount for c in reader.connections}
    assert set(counts) == {RAW, RANGER}  # no waterfall
    assert counts[RAW] >= 5
    assert not (bag / 'image_sidescan_waterfall.png').exists()
    # The picture: the waterfall of the pings, a row per ping, in mono8 over --db-window.
    drawn = raw_waterfall(bag, RAW)
    png = matplotlib.image.imread(bag / 'raw_waterfall_sidescan_raw_image.png')
    grey = np.rint(png[..., 0] * 255).astype(np.uint8)
    expected = db_pixels(drawn.image[: drawn.pings], DbWindow(DB_LOW, DB_HIGH, 8))
    repeat, block = waterfall_scale(*expected.shape)  # few pings: each row drawn `repeat` high
    assert block == 1
    assert grey.shape == (expected.shape[0] * repeat, expected.shape[1])
    np.testing.assert_array_equal(grey[::repeat], expected)
    np.testing.assert_array_equal(grey[repeat - 1 :: repeat], expected)


@pytest.mark.parametrize('encoding', ['32FC1', 'db'])
def test_the_waterfall_drawn_from_the_raw_pings_is_the_published_one(
    tmp_path: Path, probe: Probe, encoding: str
) -> None:
    """Line for line: float32 exactly; mono8 as the node makes its pixels from the same lines."""
    from test_sidescan_node import DB_HIGH, DB_LOW

    from nps_sonar_py.ros.bag_report import raw_waterfall
    from nps_sonar_py.sensing.images import DbWindow, db_pixels

    bag = _record(tmp_path, probe, LINES + 3, '--waterfall', image_encoding=encoding)
    image, stamps = _last_image(bag)
    drawn = raw_waterfall(bag, RAW, lines=LINES, samples=SAMPLES, until=_stamp(image))
    kind = np.float32 if encoding == '32FC1' else np.uint8
    assert image.encoding == ('32FC1' if encoding == '32FC1' else 'mono8')
    published = np.frombuffer(bytes(image.data), dtype=kind).reshape(LINES, 2 * SAMPLES)
    assert drawn.encoding == '32FC1'  # float32 raw pings: linear
    assert drawn.pings == len([s for s in stamps if s <= _stamp(image)])
    lines = drawn.image
    if encoding == 'db':
        lines = db_pixels(lines, DbWindow(DB_LOW, DB_HIGH, 8))
    filled = min(drawn.pings, LINES)  # rows before the recording began are the node's alone
    assert filled >= LINES - 2
    assert published[:filled].any(axis=1).all()
    np.testing.assert_array_equal(lines[:filled], published[:filled])
    # Negative control: one ping off (the lines of the image before) is not the same.
    assert not np.array_equal(lines[1:filled], published[: filled - 1])
