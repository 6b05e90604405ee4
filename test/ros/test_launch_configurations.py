"""What the launch files configure, started without launch (``launch`` is not installable here).

Each case starts the same executable with the same node name, parameter file and
parameters that the launch file passes by default, from the installed share directory as
``ros2 launch`` would, and checks that the node comes up publishing. ``ranger.launch.py``'s
device table is read from the launch file itself, so a device added there is tested here.
"""

from __future__ import annotations

import ast
import time
from pathlib import Path
from typing import Any

import pytest
from ros_helpers import NODE_START_TIMEOUT, Receiver, running

from nps_sonar_py.ament import package_share

pytestmark = pytest.mark.ros

LAUNCH = Path(__file__).resolve().parents[2] / 'launch'


def share() -> Path:
    """The installed ``share/nps_sonar`` (what ``get_package_share_directory`` returns)."""
    found = package_share('nps_sonar')
    if found is None:
        pytest.fail('nps_sonar is not installed in any AMENT_PREFIX_PATH prefix; run scripts/test')
    return found


def ranger_devices() -> dict[str, tuple[Any, ...]]:
    """The ``DEVICES`` table of launch/ranger.launch.py, read without importing launch."""
    tree = ast.parse((LAUNCH / 'ranger.launch.py').read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            getattr(t, 'id', '') == 'DEVICES' for t in node.targets
        ):
            return ast.literal_eval(node.value)
    pytest.fail('launch/ranger.launch.py has no DEVICES table')


def launch_arguments(
    name: str,
    params_file: Path,
    parameters: dict[str, Any],
    namespace: str = '',
) -> list[str]:
    """``--ros-args`` matching a launch_ros Node(name=, namespace=, parameters=[file, dict])."""
    args = ['-r', f'__node:={name}', '--params-file', str(params_file)]
    if namespace:
        args += ['-r', f'__ns:=/{namespace}']
    return args


@pytest.mark.parametrize('namespace', ['', 'ns1'])
def test_sonar_launch_configuration(receiver, namespace: str) -> None:
    from sensor_msgs.msg import Range

    s = share()
    topic = f'/{namespace}/sonar/range' if namespace else '/sonar/range'
    r = receiver(Range, topic)
    parameters: dict[str, Any] = {}  # by default the launch file passes config/sonar.yaml alone
    extra = launch_arguments('sonar', s / 'config' / 'sonar.yaml', parameters, namespace)
    with running('sonar_node', parameters, extra=extra) as node:
        message = r.wait_for(2, process=node)[-1]
    assert message.range == pytest.approx(1.750, abs=1e-6)


def _wait_for_topic(
    receiver: Receiver, type_name: str, process, timeout: float = NODE_START_TIMEOUT
) -> str:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for name, types in receiver.node.get_topic_names_and_types():
            if type_name in types:
                return name
        if process.poll() is not None:
            pytest.fail(
                f'the node exited with status {process.returncode}: '
                f'{process.communicate()[1].strip()}',
            )
        time.sleep(0.1)
    pytest.fail(f'no {type_name} topic in {timeout} s')


@pytest.mark.parametrize('device', sorted(ranger_devices()))
def test_ranger_launch_configurations(receiver, device: str) -> None:
    from rosgraph_msgs.msg import Clock

    from nps_sonar.msg import RangerData

    executable, name, robot, params, extra = ranger_devices()[device]
    s = share()
    parameters = {'robot_description_file': str(s / 'config' / 'robots' / robot), **extra}
    probe = receiver(Clock, '/unused_probe')  # a node to look at the graph with
    arguments = launch_arguments(name, s / 'config' / params, parameters)
    with running(executable, parameters, extra=arguments) as node:
        topic = _wait_for_topic(probe, 'nps_sonar/msg/RangerData', node)
        data = receiver(RangerData, topic)
        message = data.wait_for(1, timeout=30.0, process=node)[-1]
    assert len(message.ranges) > 0
    assert topic.endswith('/ranger')
