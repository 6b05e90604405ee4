"""A setting whose memory is over its budget, refused in one line by the node (issue 35 item 5).

At start the node exits 2 with the line; at run time (a Ranger ``SetConfig``: the range bins
are read-only parameters in this node) the change is refused with it and the node pings on
with its last good settings. The side-scan of ``test_sidescan_node`` with the
coherent model: a CW pulse of 20 ms spans 303 samples on its 500 bins of 9.9 cm (one sample
per bin, ``2 dr / c`` = 132 us), a table of 155 KiB; on 20,000 bins it would span 12,121
samples, 6 MiB, over the 1 MiB budget (``echo/pulse.py``, ``docs/coherent.md``). A fan
whose settings need more than the device budget (``limits.MAX_DEVICE_BYTES``, 2 GiB) stops
the node with the line naming them and the memory, before anything is allocated.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ros_helpers import Probe, executable, exit_line, ros_args, running
from test_presets_node import ROBOT
from test_sidescan_node import BINS, MAX_RANGE, MIN_RANGE, parameters, reliable, world

pytestmark = pytest.mark.ros


def test_a_pulse_over_its_memory_budget_is_refused_at_start_and_at_run_time(
    tmp_path: Path, probe: Probe
) -> None:
    from marine_acoustic_msgs.msg import RawSonarImage

    from nps_sonar import srv

    scene = world(tmp_path)
    line = exit_line(
        [
            executable('scanning_sonar_node'),
            *ros_args(parameters(scene, echo_model='coherent', bandwidth=2.0)),
        ]
    )
    assert 'bandwidth: a chirp of 2 Hz' in line, line
    assert 'MiB, over the budget of 1 MiB' in line, line
    probe.subscribe(RawSonarImage, 'sidescan/raw_image', reliable())
    cw = parameters(scene, echo_model='coherent', pulse='cw', pulse_duration=0.02)
    with running('scanning_sonar_node', cw) as node:
        probe.wait('sidescan/raw_image', 1, node)
        config = probe.call(srv.GetRangerConfig, 'sidescan/get_config').config
        good = config.range_resolution
        config.range_resolution = (MAX_RANGE - MIN_RANGE) / 20_000
        refused = probe.call(srv.SetRangerConfig, 'sidescan/set_config', config=config)
        assert not refused.success
        assert refused.reason.startswith('pulse_duration: a cw pulse of 0.02 s'), refused.reason
        assert 'MiB, over the budget of 1 MiB' in refused.reason
        assert '\n' not in refused.reason
        count = probe.count('sidescan/raw_image')
        after = probe.wait('sidescan/raw_image', count + 3, node)[count:]
        kept = probe.call(srv.GetRangerConfig, 'sidescan/get_config').config
    assert kept.range_resolution == pytest.approx(good)  # the last good settings
    assert all(m.samples_per_beam == BINS for m in after)


def test_a_fan_over_the_device_budget_is_refused_at_start_and_at_run_time(probe: Probe) -> None:
    from nps_sonar import srv
    from nps_sonar.msg import MultibeamPing

    settings = {
        'robot_description_file': ROBOT,
        'mode': 'multibeam',
        'min_angle': -0.3,
        'max_angle': 0.3,
        'rays_vertical': 2,
    }
    line = exit_line(
        [
            executable('scanning_sonar_node'),
            *ros_args({**settings, 'beams': 20_000, 'range_bins': 5_000}),
        ]
    )
    # 20,000 x 5,000 cells of 32 bytes (devices/memory.py CELL_BYTES): 2.98 GiB
    assert line.startswith('nps_sonar: beams 20000 x range_bins 5000: '), line
    assert "a ping's profiles would need 2.98 GiB" in line, line
    assert 'over the budget of 2 GiB per device' in line, line
    probe.subscribe(MultibeamPing, 'ping360/multibeam', reliable())
    with running('scanning_sonar_node', settings) as node:
        first = probe.wait('ping360/multibeam', 1, node)[-1]
        good = probe.call(srv.GetRangerConfig, 'ping360/get_config').config
        asked = probe.call(srv.GetRangerConfig, 'ping360/get_config').config
        # 601 beams of 10^6 bins: 6.01e8 cells of 32 bytes, 17.9 GiB
        asked.angular_resolution = (asked.max_angle - asked.min_angle) / 600
        asked.range_resolution = (asked.max_range - asked.min_range) / 1e6
        refused = probe.call(srv.SetRangerConfig, 'ping360/set_config', config=asked)
        assert not refused.success
        assert '(1000000 bins) x 601 beams: ' in refused.reason, refused.reason
        assert "a ping's profiles would need 17.9 GiB" in refused.reason, refused.reason
        assert '\n' not in refused.reason
        count = probe.count('ping360/multibeam')
        after = probe.wait('ping360/multibeam', count + 3, node)[count:]
        kept = probe.call(srv.GetRangerConfig, 'ping360/get_config').config
    assert kept.range_resolution == pytest.approx(good.range_resolution)  # last good settings
    assert all(len(m.azimuths) == len(first.azimuths) for m in after)
