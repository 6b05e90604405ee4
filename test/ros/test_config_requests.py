"""SetConfig requests out of the shared bounds, sent to live nodes over real DDS (issue 21).

Frequencies 5e-324, 1e-300 and 1e-12 Hz once ended the sonar, ranger and scanning nodes (an
infinite or too long timer period); a multibeam min_angle of -1e308 overflowed counting its
beams. Each is refused with a reason; the node keeps its configuration, keeps publishing
and exits 0 on SIGINT.
"""

from __future__ import annotations

import math
import signal
from pathlib import Path
from typing import Any

import pytest
from ranger_scenes import wall_scene
from ros_helpers import STOP_TIMEOUT, Probe, running

pytestmark = pytest.mark.ros

BAD_FREQUENCIES = [5e-324, 1e-300, 1e-12, math.inf, math.nan]


def _fields(config: Any) -> tuple[float, ...]:
    names = (
        'min_angle',
        'max_angle',
        'angular_resolution',
        'min_range',
        'max_range',
        'range_resolution',
        'frequency',
    )
    return tuple(getattr(config, name) for name in names)


def _nodes(tmp_path: Path) -> dict[str, tuple[str, dict[str, Any], str, str]]:
    """Each case: node executable, parameters, device name, the topic and type it publishes."""
    robot, world = wall_scene(tmp_path)
    head = {'robot_description_file': robot, 'scene_file': world}
    return {
        'sonar': ('sonar_node', {'rays': 20}, 'sonar', 'Range'),
        'ranger': ('ranger_node', {}, 'laser', 'LaserScan'),
        'sweep': (
            'scanning_sonar_node',
            {
                **head,
                'rays': 20,  # mode sweep's cone; a fan's rays are rays_horizontal x rays_vertical
                'min_angle': -0.2,
                'max_angle': 0.2,
                'step': 0.1,
                'step_period': 0.02,
            },
            'head',
            'SonarPoint',
        ),
        'multibeam': (
            'scanning_sonar_node',
            {
                **head,
                'mode': 'multibeam',
                'beams': 5,
                'min_angle': -0.2,
                'max_angle': 0.2,
                'rays_vertical': 4,
                'update_rate': 10.0,
            },
            'head',
            'MultibeamPing',
        ),
    }


def _message_type(name: str) -> tuple[Any, str]:
    from sensor_msgs.msg import LaserScan, Range

    from nps_sonar.msg import MultibeamPing, SonarPoint

    types = {
        'Range': (Range, 'range'),
        'LaserScan': (LaserScan, 'scan'),
        'SonarPoint': (SonarPoint, 'sonar_point'),
        'MultibeamPing': (MultibeamPing, 'multibeam'),
    }
    return types[name]


@pytest.mark.parametrize('case', ['sonar', 'ranger', 'sweep', 'multibeam'])
def test_requests_out_of_bounds_are_refused_and_the_node_keeps_running(
    tmp_path: Path, probe: Probe, case: str
) -> None:
    from nps_sonar import srv

    executable, parameters, device, kind = _nodes(tmp_path)[case]
    message_type, suffix = _message_type(kind)
    topic = f'{device}/{suffix}'
    probe.subscribe(message_type, topic)
    bad: list[tuple[str, float, str]] = [
        ('frequency', value, 'frequency must be') for value in BAD_FREQUENCIES
    ]
    if case == 'multibeam':
        bad.append(('min_angle', -1e308, 'min_angle must be in'))
    with running(executable, parameters) as node:
        probe.wait(topic, 1, node)
        before = probe.call(srv.GetRangerConfig, f'{device}/get_config').config
        for field, value, words in bad:
            config = probe.call(srv.GetRangerConfig, f'{device}/get_config').config
            setattr(config, field, value)
            answer = probe.call(srv.SetRangerConfig, f'{device}/set_config', config=config)
            assert not answer.success, (field, value)
            assert words in answer.reason, answer.reason
            assert _fields(answer.config) == _fields(before)
        probe.wait(topic, 2, node)  # still publishing
        after = probe.call(srv.GetRangerConfig, f'{device}/get_config').config
        assert _fields(after) == _fields(before)
        node.send_signal(signal.SIGINT)
        assert node.wait(timeout=STOP_TIMEOUT) == 0
