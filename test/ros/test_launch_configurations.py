"""What the launch files configure, started without launch (``launch`` is not installable here).

Each case starts the same executable with the same node name, parameter file and
parameters that the launch file passes by default, from the installed share directory as
``ros2 launch`` would, and checks that the node comes up publishing. ``ranger.launch.py``'s
devices are started by ``test_readme_commands.py``, from the README's ``scripts/run`` lines,
which ``test/test_device_choices.py`` checks against the launch file's device table;
``gazebo_sonar.launch.py``'s moving models are read from the launch file itself, checked
against the SDF world's pose publishers and the bridge's configuration.
"""

from __future__ import annotations

import ast
import time
from pathlib import Path
from typing import Any

import pytest
from ros_helpers import NODE_START_TIMEOUT, Receiver, first_such, running

from nps_sonar_py.ament import package_share

pytestmark = pytest.mark.ros

LAUNCH = Path(__file__).resolve().parents[2] / 'launch'


def share() -> Path:
    """The installed ``share/nps_sonar`` (what ``get_package_share_directory`` returns)."""
    found = package_share('nps_sonar')
    if found is None:
        pytest.fail('nps_sonar is not installed in any AMENT_PREFIX_PATH prefix; run scripts/test')
    return found


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


def _gazebo_models() -> str:
    """The ``MOVING_MODELS`` of launch/gazebo_sonar.launch.py, read without importing launch."""
    tree = ast.parse((LAUNCH / 'gazebo_sonar.launch.py').read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            getattr(t, 'id', '') == 'MOVING_MODELS' for t in node.targets
        ):
            return ast.literal_eval(node.value)
    pytest.fail('launch/gazebo_sonar.launch.py has no MOVING_MODELS')


def test_the_gazebo_world_publishes_and_the_bridge_carries_what_the_sonar_follows() -> None:
    """Each model the launch file makes follow /tf has a PosePublisher of its model pose in
    config/worlds/underwater.sdf, and config/ros_gz_bridge.yaml bridges its topic to /tf
    (gz-sim names it /model/<model>/pose), and /clock; the world's name is the world frame."""
    import xml.etree.ElementTree as ET

    import yaml

    config = LAUNCH.parent / 'config'
    world = ET.parse(config / 'worlds' / 'underwater.sdf').getroot().find('world')
    assert world is not None
    assert world.get('name') == 'underwater'  # the launch file's world_frame default
    assert "default_value='underwater'" in (LAUNCH / 'gazebo_sonar.launch.py').read_text()
    bridges = yaml.safe_load((config / 'ros_gz_bridge.yaml').read_text())
    routes = {(b['gz_topic_name'], b['ros_topic_name'], b['gz_type_name']) for b in bridges}
    assert all(b['direction'] == 'GZ_TO_ROS' for b in bridges)
    assert ('/clock', '/clock', 'gz.msgs.Clock') in routes
    for model in (m.strip() for m in _gazebo_models().split(',')):
        element = world.find(f"model[@name='{model}']")
        assert element is not None, model
        plugin = element.find("plugin[@name='gz::sim::systems::PosePublisher']")
        assert plugin is not None, model
        assert plugin.findtext('publish_model_pose') == 'true', model
        assert plugin.findtext('use_pose_vector_msg') == 'true', model  # Pose_V: TFMessage
        assert plugin.find('topic') is None, model  # the default topic, bridged below
        assert (f'/model/{model}/pose', '/tf', 'gz.msgs.Pose_V') in routes, model


def test_gazebo_sonar_launch_configuration(probe, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sonar node as the launch file starts it, on sim time, with the buoy moved by /tf.

    gazebo_sonar.yaml's robot_pose puts the sonar at (4, 0, 5) looking along +y (no robot on
    /tf here: it stays there); the buoy, a sphere of radius 0.5 m centred at (4, 3, 5), is
    2.5 m away (its icosphere has a vertex on the line). Gazebo then puts the buoy 1 m
    further along y (underwater -> buoy on /tf): 3.5 m.
    """
    import threading

    from sensor_msgs.msg import Range
    from test_tf import _tf, _tf_publishers, _ticker, _transform, _wait_matched

    s = share()
    monkeypatch.setenv('GZ_SIM_RESOURCE_PATH', str(s / 'config' / 'worlds' / 'models'))
    parameters = {
        'scene_file': str(s / 'config' / 'worlds' / 'underwater.sdf'),
        'world_frame': 'underwater',
        'entity_frames': _gazebo_models(),
        'robot_description_file': str(s / 'config' / 'robots' / 'reference_sonar.urdf'),
        'use_sim_time': True,
    }
    probe.subscribe(Range, '/sonar/range')
    tf, _, clock = _tf_publishers(probe)
    now, stop = [50.0], threading.Event()
    ticker = _ticker(clock, now, stop)
    extra = launch_arguments('sonar', s / 'config' / 'gazebo_sonar.yaml', parameters)
    with running('sonar_node', parameters, extra=extra) as node:
        _wait_matched(probe, tf, node)
        _wait_matched(probe, clock, node)  # sim time advances only once it hears /clock
        ticker.start()
        before = first_such(probe, '/sonar/range', node, lambda m: m.range > 0.0)
        tf.publish(_tf(_transform('underwater', 'buoy', now[0], (4.0, 4.0, 5.0))))
        after = first_such(probe, '/sonar/range', node, lambda m: m.range > 3.0)
        stop.set()
        ticker.join(timeout=5)
    assert before.range == pytest.approx(2.5, abs=1e-5)
    assert after.range == pytest.approx(3.5, abs=1e-5)
