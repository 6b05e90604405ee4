"""The sonar node in refracting water: its range bends as the constant-gradient arc predicts.

The reference scenario (DESIGN.md): a sonar at (2.1, 1.0, 1.0) looking along +y, whose
boresight meets the front of a vertical cylinder 1.750 m ahead. With the sea surface 10 m
above the sonar and a profile falling from 1800 m/s at 9 m to 1300 m/s at 11 m (a gradient of
-250 1/s, absurd in the sea but visible over 1.75 m), the horizontal boresight bends down on
a circle of radius ``R = c1 / |g|``. At the horizontal offset ``X`` its angle has
``sin(theta) = X |g| / c1`` and its one-way time is ``t = ln[(1 + sin) / cos] / |g|``; the
node reports the equivalent range ``c1 t``.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

import pytest
from ros_helpers import (
    executable,
    exit_line,
    ros_args,
    running,
    set_parameters,
    stamped_after,
)

pytestmark = pytest.mark.ros

SURFACE_Z = 11.0  # the sonar at z = 1.0 is 10 m down
PROFILE = (9.0, 1800.0, 11.0, 1300.0)
X = 1.750


def predicted_range() -> float:
    c1 = 1800.0 + (1300.0 - 1800.0) * (10.0 - 9.0) / 2.0
    g = abs((1300.0 - 1800.0) / 2.0)
    s = X * g / c1
    return c1 * math.log((1.0 + s) / math.sqrt(1.0 - s * s)) / g


def test_the_boresight_range_bends_as_predicted(receiver) -> None:
    from sensor_msgs.msg import Range

    r = receiver(Range, 'sonar/range')
    parameters = {'rays': 1, 'sound_speed_profile': list(PROFILE), 'sea_surface_z': SURFACE_Z}
    with running('sonar_node', parameters) as node:
        message = r.wait_for(2, process=node)[-1]
    expected = predicted_range()
    assert expected - X > 0.04  # a change far above the tolerance
    assert message.range == pytest.approx(expected, abs=1e-5)


def test_a_bad_profile_file_exits_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / 'svp.csv'
    path.write_text('depth,speed\n0,1500\n0,1490\n')
    command = [executable('sonar_node'), *ros_args({'sound_speed_profile_file': str(path)})]
    line = exit_line(command)
    assert line.startswith(f'nps_sonar: {path}:3: row 2: depths must be strictly increasing')


def test_a_bad_profile_at_run_time_is_refused_and_the_range_stays(receiver, tmp_path) -> None:
    from sensor_msgs.msg import Range

    path = tmp_path / 'svp.csv'
    path.write_text('0,1500\n10,2500\n')
    r = receiver(Range, 'sonar/range')
    with running('sonar_node', {'rays': 1}) as node:
        r.wait_for(1, process=node)
        results = set_parameters(r, '/sonar', {'sound_speed_profile_file': str(path)})
        assert not results[0].successful
        assert f'{path}:2: row 2: sound speed must be in [1300, 1800]' in results[0].reason
        results = set_parameters(
            r, '/sonar', {'sound_speed_profile': list(PROFILE), 'sea_surface_z': SURFACE_Z}
        )
        assert results[0].successful, results[0].reason
        message = stamped_after(r, r.topic, node, time.time_ns())[0]
    assert message.range == pytest.approx(predicted_range(), abs=1e-5)


def test_a_fifo_profile_is_refused_at_start_and_at_run_time(receiver, tmp_path) -> None:
    """A FIFO named as the profile blocked the node for ever; it is now one line, at once."""
    from sensor_msgs.msg import Range

    fifo = tmp_path / 'svp.csv'
    os.mkfifo(fifo)  # nobody writes to it: opening it to read would wait for ever
    command = [executable('sonar_node'), *ros_args({'sound_speed_profile_file': str(fifo)})]
    line = exit_line(command)
    assert line == f'nps_sonar: {fifo}: sound-speed profile is not a regular file (FIFO)'
    r = receiver(Range, 'sonar/range')
    with running('sonar_node', {'rays': 1}) as node:
        r.wait_for(1, process=node)
        results = set_parameters(r, '/sonar', {'sound_speed_profile_file': str(fifo)})
        assert not results[0].successful
        assert 'sound-speed profile is not a regular file (FIFO)' in results[0].reason
        stamped_after(r, r.topic, node, time.time_ns())  # still publishing


def test_multipath_with_a_profile_is_refused_at_start_and_at_run_time(receiver, tmp_path) -> None:
    """A profile and ``max_bounces`` > 0 together ended the node at its first ping.

    (``TypeError: multipath needs hits with normals``, status 1.) Now: one line at start
    naming both settings, and a run-time change to either refused with it while the node
    keeps publishing its last good settings.
    """
    from sensor_msgs.msg import Range

    from nps_sonar_py.sensing.multipath import THROUGH_A_PROFILE

    path = tmp_path / 'ok.svp'
    path.write_text('0,1500\n100,1520\n')
    water = {'sound_speed_profile_file': str(path), 'sea_surface_z': SURFACE_Z}
    command = [executable('sonar_node'), *ros_args({**water, 'max_bounces': 1})]
    assert exit_line(command) == f'nps_sonar: {THROUGH_A_PROFILE}'
    assert 'max_bounces' in THROUGH_A_PROFILE
    assert 'sound_speed_profile_file' in THROUGH_A_PROFILE
    r = receiver(Range, 'sonar/range')
    with running('sonar_node', {'rays': 1, **water}) as node:
        r.wait_for(1, process=node)
        results = set_parameters(r, '/sonar', {'max_bounces': 1})
        assert not results[0].successful
        assert THROUGH_A_PROFILE in results[0].reason
        stamped_after(r, r.topic, node, time.time_ns())  # still publishing
        assert node.poll() is None
    with running('sonar_node', {'rays': 1, 'max_bounces': 1}) as node:
        stamped_after(r, r.topic, node, time.time_ns())
        results = set_parameters(r, '/sonar', {'sound_speed_profile_file': str(path)})
        assert not results[0].successful
        assert THROUGH_A_PROFILE in results[0].reason
        stamped_after(r, r.topic, node, time.time_ns())  # still publishing
        assert node.poll() is None
