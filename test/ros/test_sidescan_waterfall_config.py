"""The side-scan waterfall across an accepted SetConfig, over real DDS (docs/sidescan.md).

The sensor hangs still at altitude H over a flat seabed, so every ping reaches the seabed
(from slant range ``H``, cast to nadir, under the window's far end) and
every line has lit samples; with ``waterfall_line_spacing`` 0 each ping adds one line, so a
waterfall message of ``n`` lines since the waterfall (re)started has exactly ``n`` rows that
are not all 0 (32FC1, linear: an empty row is exactly 0). A SetConfig that keeps the window
(a new bin width and rate) keeps the lines: the rows go on counting up. One that moves the
window (a new ``max_range``) starts the waterfall afresh: the first line after it is alone.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ros_helpers import Probe, running, stamped_after

pytestmark = pytest.mark.ros

ROBOT = str(Path(__file__).resolve().parents[2] / 'config' / 'robots' / 'sidescan_sonar.urdf')
H, RATE, BINS, LINES, SAMPLES = 8.0, 10.0, 100, 5000, 20
TOPIC = 'sidescan/waterfall'


def parameters(tmp_path: Path) -> dict[str, Any]:
    world = tmp_path / 'seabed.world'
    world.write_text("""<world name="flat"><model name="seabed" retro="255"><robot name="seabed">
  <link name="seabed"><collision><origin xyz="0 0 -0.5"/>
    <geometry><box size="400 400 1"/></geometry></collision></link>
</robot></model></world>""")
    return {
        'robot_description_file': ROBOT,
        'scene_file': str(world),
        'mode': 'sidescan',
        'robot_pose': [0.0, 0.0, H, 0.0, 0.0, 0.0],
        'sidescan_rays_along': 1,
        'update_rate': RATE,
        'range_bins': BINS,
        'sound_speed': 1500.0,
        'absorption': 'none',
        'waterfall_lines': LINES,  # never full during the test: rows count lines
        'waterfall_samples': SAMPLES,
        'image_encoding': '32FC1',
        'publish_raw_image': False,
    }


def lines(message: Any) -> int:
    """Rows of a waterfall message with a lit sample."""
    assert (message.encoding, message.is_bigendian) == ('32FC1', 0)
    image = np.frombuffer(bytes(message.data), dtype='<f4').reshape(message.height, -1)
    return int(np.count_nonzero(image.any(axis=1)))


def counts_after(probe: Probe, node: Any, request: Any) -> tuple[int, list[int]]:
    """Lines in the last waterfall received before ``request`` and in those after it.

    Those after run to the 4th stamped after the answer (read with the change in effect);
    before them come the waterfalls read before the change that came after the request
    (however many a loaded machine kept), and any read after it that a catch-up tick stamped
    earlier than the answer.
    """
    from nps_sonar import srv

    with probe.lock:
        start = len(probe.received[TOPIC])
        last = probe.received[TOPIC][-1]
    answer = probe.call(srv.SetRangerConfig, 'sidescan/set_config', config=request)
    since = time.time_ns()
    assert answer.success, answer.reason
    fourth = stamped_after(probe, TOPIC, node, since, count=4)[-1]
    with probe.lock:
        got = probe.received[TOPIC][start:]
    end = [m is fourth for m in got].index(True) + 1
    return lines(last), [lines(m) for m in got[:end]]


def test_the_waterfall_keeps_its_lines_unless_the_window_moves(
    tmp_path: Path, probe: Probe
) -> None:
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import Image

    from nps_sonar import srv

    probe.subscribe(Image, TOPIC, QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE))
    with running('scanning_sonar_node', parameters(tmp_path)) as node:
        first = probe.wait(TOPIC, 3, node)
        counts = [lines(m) for m in first]
        assert np.all(np.diff(counts) == 1)  # one line per ping
        config = probe.call(srv.GetRangerConfig, 'sidescan/get_config').config
        assert (config.min_range, config.max_range) == (0.5, 50.0)

        # The same window, half the bins, a slower rate: the lines are kept.
        config.range_resolution, config.frequency = 2 * (50.0 - 0.5) / BINS, RATE / 2
        before, after = counts_after(probe, node, config)
        assert after == list(range(after[0], after[0] + len(after)))
        assert after[0] > before

        # A new far end: the old lines' samples were at other ranges; the waterfall restarts.
        config.max_range = 25.0
        before, after = counts_after(probe, node, config)
        assert before > 4
        assert 1 in after
        fresh = after[after.index(1) :]
        assert fresh == list(range(1, len(fresh) + 1))
        assert node.poll() is None
