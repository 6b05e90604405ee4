"""``sonar_preset`` in the scanning node over real DDS (docs/presets.md).

The Ping360-like head of ``config/robots/ranger_scanning_sonar.urdf`` (its ``<sonar>``: 0.3 to
8 m) in the reference tank, ``mode: multibeam`` with a preset set in a parameter file: its
``MultibeamPing`` has the preset's beam count, sector, carrier and range window (the far end
the preset's, the near end the URDF's); a parameter given in the same file wins over the
preset and the node logs it; an unknown preset stops the node with one line listing the
choices; a change of the preset while it runs is refused and the node keeps publishing. The
Oculus presets' beams are even in the sine of the bearing (``beam_spacing: sine``, as the
device's bearing table is): ``MultibeamPing.azimuths`` carries them; a table of bearings of
the wrong count stops the node with one line naming ``bearings``.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from ros_helpers import (
    NODE_START_TIMEOUT,
    NodeLog,
    Probe,
    executable,
    exit_line,
    running,
    set_parameters,
    stamped_after,
)

pytestmark = pytest.mark.ros

ROBOTS = Path(__file__).resolve().parents[2] / 'config' / 'robots'
ROBOT = str(ROBOTS / 'ranger_scanning_sonar.urdf')
#: The figures of the Oculus M750d preset (docs/presets.md): beams, field of view, carrier, range.
BEAMS, FIELD_OF_VIEW, FREQUENCY, MAX_RANGE = 512, math.radians(130.0), 750e3, 120.0
#: The URDF <sonar>'s near end, which the preset leaves.
MIN_RANGE = 0.3


def parameter_file(tmp_path: Path, **given: Any) -> list[str]:
    """``--params-file`` of a file holding the preset and ``given``, as a user writes one."""
    values = {
        'robot_description_file': ROBOT,
        'mode': 'multibeam',
        'sonar_preset': 'oculus_m750d',
        'rays_vertical': 2,  # few rays: the preset's geometry is what is checked
        'rays_horizontal': 1,
        **given,
    }
    path = tmp_path / 'preset.yaml'
    path.write_text(yaml.safe_dump({'/**': {'ros__parameters': values}}))
    return ['--params-file', str(path)]


def describe(probe: Probe, node_name: str, name: str, timeout: float = NODE_START_TIMEOUT) -> Any:
    """The ``ParameterDescriptor`` a running node gives of its parameter ``name``."""
    from rclpy.parameter_client import AsyncParameterClient

    client = AsyncParameterClient(probe.node, node_name)
    assert client.wait_for_services(timeout_sec=timeout)
    future = client.describe_parameters([name])
    end = time.monotonic() + timeout
    while not future.done() and time.monotonic() < end:
        time.sleep(0.01)
    assert future.done(), f'describe_parameters on {node_name} got no answer in {timeout} s'
    return future.result().descriptors[0]


def test_a_preset_makes_the_fan_and_cannot_change_while_running(
    tmp_path: Path, probe: Probe
) -> None:
    from nps_sonar.msg import MultibeamPing

    probe.subscribe(MultibeamPing, 'ping360/multibeam')
    with running('scanning_sonar_node', extra=parameter_file(tmp_path)) as node:
        ping = probe.wait('ping360/multibeam', 1, node)[-1]
        described = describe(probe, 'scanning_sonar', 'sonar_preset')
        results = set_parameters(probe, 'scanning_sonar', {'sonar_preset': 'blueview_p900_130'})
        refused_at = time.time_ns()
        later = stamped_after(probe, 'ping360/multibeam', node, refused_at)
    assert ping.beam_count == BEAMS
    assert ping.azimuths[-1] - ping.azimuths[0] == pytest.approx(FIELD_OF_VIEW, abs=1e-5)
    assert_even_in_sine(ping.azimuths)
    assert ping.frequency == pytest.approx(FREQUENCY)
    assert (ping.min_range, ping.max_range) == pytest.approx((MIN_RANGE, MAX_RANGE))
    assert described.additional_constraints == (
        'one of: none, blueview_p900_130, oculus_m750d, oculus_m1200d_hf'
    )
    assert described.read_only
    assert len(results) == 1
    assert not results[0].successful
    assert 'sonar_preset' in results[0].reason
    assert '\n' not in results[0].reason
    assert later[0].beam_count == BEAMS  # still the Oculus, still publishing


def test_a_parameter_given_wins_over_the_preset_and_is_logged(
    tmp_path: Path, probe: Probe
) -> None:
    from nps_sonar.msg import MultibeamPing

    probe.subscribe(MultibeamPing, 'ping360/multibeam')
    extra = parameter_file(tmp_path, beams=256, max_range=8.0)
    with running('scanning_sonar_node', extra=extra) as node:
        log = NodeLog(node)
        line = log.wait_for('sonar_preset oculus_m750d sets')
        ping = probe.wait('ping360/multibeam', 1, node)[-1]
        assert log.stop() == 0
    assert ping.beam_count == 256  # given
    assert ping.max_range == pytest.approx(8.0)  # given
    assert ping.frequency == pytest.approx(FREQUENCY)  # the preset's
    assert ping.azimuths[-1] - ping.azimuths[0] == pytest.approx(FIELD_OF_VIEW, abs=1e-5)
    assert_even_in_sine(ping.azimuths)  # the preset's spacing, over the beams given
    assert line.endswith('given, kept over it: beams, max_range')


def assert_even_in_sine(azimuths: Any) -> None:
    """``sin a_k = sin a_0 + k s``, ``s = 2 sin(fov / 2) / (n - 1)``; control: not in angle."""
    a = np.asarray(azimuths, dtype=np.float64)
    step = 2.0 * math.sin(0.5 * FIELD_OF_VIEW) / (a.size - 1)
    np.testing.assert_allclose(
        np.sin(a), -math.sin(0.5 * FIELD_OF_VIEW) + step * np.arange(a.size), atol=2e-6
    )
    gaps = np.diff(a)
    assert gaps[0] > 1.5 * gaps[a.size // 2]  # even in angle: every gap alike (fov / (n - 1))


def test_a_table_of_bearings_of_the_wrong_count_stops_the_node_with_one_line(
    tmp_path: Path,
) -> None:
    extra = parameter_file(tmp_path, bearings=[-0.1, 0.0, 0.1])
    line = exit_line([executable('scanning_sonar_node'), '--ros-args', *extra])
    assert line.startswith(f'nps_sonar: {ROBOT}:')  # the sensor it is set on, then why
    assert line.endswith(
        '<sensor name="ping360">: bearings: 3 bearings for 512 beams (one per beam)'
    )


@pytest.mark.parametrize(
    ('table', 'says'),
    [
        ([-0.1, float('nan'), 0.1], 'bearings must be finite numbers'),
        ([-0.1, float('inf'), 0.1], 'bearings must be finite numbers'),
        ([-1, 0, 1], 'bearings'),  # integers: not the parameter's type (doubles)
        ('[-0.1, 0.0]', 'bearings'),  # a string
        ([0.0] * 100_001, 'bearings must hold at most 100000 numbers, got 100001'),
    ],
)
def test_a_table_of_bearings_not_numbers_stops_the_node_with_one_line(
    tmp_path: Path, table: object, says: str
) -> None:
    """NaN, inf, integers, a string, a table longer than a fan may be: one line naming
    ``bearings`` (the wrong count above is the one a valid list of numbers gets)."""
    extra = parameter_file(tmp_path, bearings=table)
    line = exit_line([executable('scanning_sonar_node'), '--ros-args', *extra])
    assert says in line, line
    assert len(line) < 300, line


def test_an_unknown_preset_stops_the_node_with_one_line(tmp_path: Path) -> None:
    extra = parameter_file(tmp_path, sonar_preset='p900')
    line = exit_line([executable('scanning_sonar_node'), '--ros-args', *extra])
    assert line == (
        'nps_sonar: sonar_preset must be none, blueview_p900_130, oculus_m750d or '
        "oculus_m1200d_hf, got 'p900'"
    )
