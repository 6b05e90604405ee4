"""Several sensors in one process sharing one scene (``robot_sensors_node``), over real DDS.

The demo robot (config/robots/demo_robot.urdf.xacro) stands in the box room at the
``robot_pose`` of config/demo_robot.yaml. Its sensors, in its base_link frame, from the
xacro: the sonar at lift (0, 0, 0.1) + pan (0.2, 0, 0.3) = (0.2, 0, 0.4), looking along +x,
a cone of radius 0.3 m at 7 m; front_scanner at (0.3, 0, 0.15), 181 readings over
[-pi/2, pi/2], ranges rounded to 0.01 m with N(0, 0.01 m) noise; rear_ranger (Gazebo form)
at rear_link (-0.3, 0, 0.15) turned by pi, then 0.05 m forward: (-0.35, 0, 0.15) looking
along -x, 3 readings over [-0.1, 0.1], rounded to 0.01 m. Expected ranges are the box
room's planes (``ranger_scenes.room_hits``) from those poses.
"""

from __future__ import annotations

import ast
import math
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from ranger_scenes import FLOAT32, room_hits
from ros_helpers import (
    NODE_START_TIMEOUT,
    STOP_TIMEOUT,
    NodeLog,
    Probe,
    executable,
    exit_line,
    first_such,
    nanoseconds,
    publishing,
    running,
    wait_for_graph,
    waited_for_clock,
)

from nps_sonar_py.ament import package_share
from nps_sonar_py.sensing.cone import cone_pattern

pytestmark = pytest.mark.ros

REPOSITORY = Path(__file__).resolve().parents[2]
CONFIG = REPOSITORY / 'config'
DEMO = yaml.safe_load((CONFIG / 'demo_robot.yaml').read_text())['/**']['ros__parameters']
ROBOT_POSE, SONAR_RAYS = DEMO['robot_pose'], DEMO['rays']
SONAR_XYZ, SCANNER_XYZ, REAR_XYZ = (0.2, 0.0, 0.4), (0.3, 0.0, 0.15), (-0.35, 0.0, 0.15)
SONAR_HALF_ANGLE = math.atan(0.3 / 7.0)
NODES = {('robot_sensors', '/'), ('sonar', '/'), ('front_scanner', '/'), ('rear_ranger', '/')}


def _declared(tree: ast.AST) -> dict[str, str]:
    """Name -> default of each ``DeclareLaunchArgument`` call of ``tree`` with a literal name.

    A call's source text if the default is not a literal.
    """
    defaults = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, 'id', '') == 'DeclareLaunchArgument':
            value = next(k.value for k in node.keywords if k.arg == 'default_value')
            literal = isinstance(value, ast.Constant)
            defaults[node.args[0].value] = value.value if literal else ast.unparse(value)
    return defaults


def launch_defaults() -> dict[str, str]:
    """The default of each argument of launch/demo_robot.launch.py.

    Its own ``DeclareLaunchArgument`` calls, and those of the helpers of
    launch/nps_sonar_launch_arguments.py it calls (``namespace_argument()``, ...). A call's
    source text if the default is not a literal.
    """
    launch = REPOSITORY / 'launch'
    tree = ast.parse((launch / 'demo_robot.launch.py').read_text())
    defaults = _declared(tree)
    helpers = {
        function.name: _declared(function)
        for function in ast.parse((launch / 'nps_sonar_launch_arguments.py').read_text()).body
        if isinstance(function, ast.FunctionDef)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, 'id', '') in helpers:
            defaults.update(helpers[node.func.id])  # type: ignore[attr-defined]
    return defaults


def share() -> Path:
    """The installed ``share/nps_sonar``, as ``get_package_share_directory`` finds it."""
    found = package_share('nps_sonar')
    if found is None:
        pytest.fail('nps_sonar is not installed in any AMENT_PREFIX_PATH prefix; run scripts/test')
    return found


# --- what each sensor should read ---------------------------------------------------------


def in_world(pose: list[float], xyz: tuple[float, float, float]) -> np.ndarray:
    """A point of base_link in the world, the robot at ``pose`` = x y z 0 0 yaw."""
    x, y, z, roll, pitch, yaw = pose
    assert roll == pitch == 0.0
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([x + c * xyz[0] - s * xyz[1], y + s * xyz[0] + c * xyz[1], z + xyz[2]])


def fan(azimuths: np.ndarray) -> np.ndarray:
    return np.column_stack((np.cos(azimuths), np.sin(azimuths), np.zeros(len(azimuths))))


def sonar_range(pose: list[float]) -> float:
    """The nearest wall over the sonar's rays (the documented cone, turned by the robot's yaw)."""
    d = cone_pattern(SONAR_HALF_ANGLE, SONAR_RAYS).directions
    c, s = math.cos(pose[5]), math.sin(pose[5])
    world = np.column_stack((c * d[:, 0] - s * d[:, 1], s * d[:, 0] + c * d[:, 1], d[:, 2]))
    return float(room_hits(in_world(pose, SONAR_XYZ), world)[0].min())


def scanner_hits(pose: list[float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return room_hits(
        in_world(pose, SCANNER_XYZ), fan(pose[5] + np.linspace(-math.pi / 2, math.pi / 2, 181))
    )


def rear_ranges(pose: list[float]) -> np.ndarray:
    return room_hits(
        in_world(pose, REAR_XYZ), fan(pose[5] + math.pi + np.array([-0.1, 0.0, 0.1]))
    )[0]


def check_readings(pose: list[float], sonar: Any, front: Any, rear: Any) -> None:
    """Every sensor reads the box room from the robot at ``pose``."""
    assert sonar.field_of_view == pytest.approx(2 * SONAR_HALF_ANGLE, rel=1e-6)
    assert sonar.range == pytest.approx(sonar_range(pose), rel=FLOAT32)
    distance, retro, gap = scanner_hits(pose)
    assert len(front.ranges) == 181
    assert front.angle_min == pytest.approx(-math.pi / 2)
    error = np.array(front.ranges) - distance
    # N(0, 0.01) noise, then rounding to 0.01 m (a uniform error of sd 0.01 / sqrt(12))
    assert np.max(np.abs(error)) < 6 * 0.0105
    assert abs(np.mean(error)) < 0.005
    assert 0.007 < np.std(error) < 0.014
    clear = gap > 1e-3
    np.testing.assert_allclose(np.array(front.intensities)[clear], retro[clear], rtol=1e-6)
    expected = rear_ranges(pose)
    got = np.array(rear.ranges)
    assert np.all(np.abs(got - expected) <= 0.005 + 1e-5)  # rounded to 0.01 m
    np.testing.assert_allclose(got / 0.01, np.round(got / 0.01), atol=1e-3)


def subscribe_all(probe: Probe, namespace: str = '') -> dict[str, str]:
    from sensor_msgs.msg import LaserScan, Range

    prefix = f'/{namespace}/' if namespace else ''
    topics = {
        'sonar': f'{prefix}sonar/range',
        'front': f'{prefix}front_scanner/scan',
        'rear': f'{prefix}rear_ranger/scan',
    }
    probe.subscribe(Range, topics['sonar'])
    probe.subscribe(LaserScan, topics['front'])
    probe.subscribe(LaserScan, topics['rear'])
    return topics


def stop(node: subprocess.Popen[str]) -> str:
    """SIGINT the node; its standard error (the log)."""
    node.send_signal(2)
    _, err = node.communicate(timeout=STOP_TIMEOUT)
    assert node.returncode == 0, err
    return err


# --- over DDS -----------------------------------------------------------------------------------


def test_demo_robot_launch_configuration(probe: Probe) -> None:
    """What demo_robot.launch.py starts by default: the node with config/demo_robot.yaml alone."""
    defaults = launch_defaults()
    # Empty arguments leave the params_file's values: the launch file then passes the file alone.
    for empty in ('robot_description', 'scene', 'namespace', 'use_sim_time'):
        assert defaults[empty] == '', empty
    assert defaults['params_file'] == "os.path.join(share, 'config', 'demo_robot.yaml')"
    topics = subscribe_all(probe)
    extra = ['--params-file', str(share() / 'config' / 'demo_robot.yaml')]
    with running('robot_sensors_node', extra=extra) as node:
        sonar = probe.wait(topics['sonar'], 2, node)[-1]
        front = probe.wait(topics['front'], 2, node)[-1]
        rear = probe.wait(topics['rear'], 2, node)[-1]
        nodes = set(probe.node.get_node_names_and_namespaces())
        log = stop(node)
    assert nodes >= NODES
    assert (sonar.header.frame_id, front.header.frame_id, rear.header.frame_id) == (
        'sonar',
        'front_scanner',
        'rear_ranger',
    )
    check_readings(ROBOT_POSE, sonar, front, rear)
    assert log.count('world loaded once from') == 1
    assert 'shared by 3 sensor nodes' in log
    assert 'read but not simulated: imu (imu)' in log


def test_namespace_sim_time_and_odometry_move_every_sensor(probe: Probe) -> None:
    from builtin_interfaces.msg import Time
    from nav_msgs.msg import Odometry
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from rosgraph_msgs.msg import Clock

    topics = subscribe_all(probe, 'robot1')
    moved = [2.5, 0.5, 0.0, 0.0, 0.0, -0.4]
    odometry = Odometry()
    odometry.pose.pose.position.x, odometry.pose.pose.position.y = moved[0], moved[1]
    odometry.pose.pose.orientation.z, odometry.pose.pose.orientation.w = (
        math.sin(-0.2),
        math.cos(-0.2),
    )
    sim = [100 * 10**9]
    lock = threading.Lock()

    def tick() -> Clock:
        with lock:
            sim[0] += 50_000_000
            return Clock(clock=Time(sec=sim[0] // 10**9, nanosec=sim[0] % 10**9))

    extra = ['--params-file', str(share() / 'config' / 'demo_robot.yaml'), '-r', '__ns:=/robot1']
    parameters = {'use_sim_time': True, 'pose_source': 'odometry'}
    with running('robot_sensors_node', parameters, extra=extra) as node:
        # No /clock yet: nothing is published (once the topics are discovered, readings would
        # come).
        wait_for_graph(probe, node, publishers=tuple(topics.values()), subscribers=('/clock',))
        log = NodeLog(node)
        waited_for_clock(log, nodes=len(topics))  # each sensor node, CLOCK_WAIT s
        assert sum(probe.count(t) for t in topics.values()) == 0
        best_effort = QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT)
        with (
            publishing(probe, Odometry, '/robot1/odom', lambda: odometry),
            publishing(probe, Clock, '/clock', tick, qos=best_effort),
        ):
            expected = sonar_range(moved)
            first_such(probe, topics['sonar'], node, lambda m: abs(m.range - expected) < 0.01)
            behind = rear_ranges(moved)[1]
            first_such(probe, topics['rear'], node, lambda m: abs(m.ranges[1] - behind) < 0.01)
            ahead = scanner_hits(moved)[0][90]
            first_such(probe, topics['front'], node, lambda m: abs(m.ranges[90] - ahead) < 0.06)
            sonar, front, rear = (
                probe.wait(topics[k], 1, node)[-1] for k in ('sonar', 'front', 'rear')
            )
        with lock:
            last = sim[0]
        assert log.stop() == 0, log.text()
    check_readings(moved, sonar, front, rear)
    for message in (sonar, front, rear):  # stamped in simulated time
        assert 100 * 10**9 < nanoseconds(message.header.stamp) <= last


@pytest.mark.parametrize(
    ('arguments', 'words'),
    [
        (
            ['-p', 'sensors:=imu'],
            'has no sonar or ray <sensor> to simulate; other sensors: imu (imu)',
        ),
        (['-r', '__node:=sensors'], 'do not remap __node'),
    ],
    ids=['nothing-to-simulate', 'node-name-remap'],
)
def test_bad_input_exits_with_one_line(arguments: list[str], words: str) -> None:
    command = [executable('robot_sensors_node'), '--ros-args', *arguments]
    assert words in exit_line(command)


# --- in process ----------------------------------------------------------------------------------

PRECEDENCE = """/**:
  ros__parameters:
    sensor: 'front_scanner'
    sensors: 'sonar, front_scanner, rear_ranger'
    rays: 32
/**/sonar:
  ros__parameters:
    sensor: 'no_such_sensor'
    rays: 64
"""


def test_one_world_one_raycaster_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host builds one Raycaster for all; its parameter_overrides beat the files and -p."""
    import rclpy
    from rclpy.executors import SingleThreadedExecutor

    from nps_sonar_py.ros.robot_sensors import RobotSensors
    from nps_sonar_py.scene import raycaster

    built: list[Any] = []
    original = raycaster.Raycaster.__init__

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        built.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(raycaster.Raycaster, '__init__', counting)
    parameters = tmp_path / 'precedence.yaml'
    parameters.write_text(PRECEDENCE)
    context = rclpy.context.Context()
    rclpy.init(
        context=context,
        args=[
            'robot_sensors_node',
            '--ros-args',
            '--params-file',
            str(CONFIG / 'demo_robot.yaml'),
            '--params-file',
            str(parameters),
            '-p',
            'sensor:=rear_ranger',
        ],
    )
    host = None
    try:
        host = RobotSensors(context=context)
        children = {n.get_name(): n for n in host.sensor_nodes}
        assert list(children) == ['sonar', 'front_scanner', 'rear_ranger']
        assert len(built) == 1  # one world, one raycaster, read by the host
        for name in ('sonar', 'front_scanner', 'rear_ranger'):
            assert children[name].rig.caster is host.raycaster
            assert children[name].rig.robot is host.robot
        # parameter_overrides (the host's) win over a '/**' file value, a '/**/sonar' one and -p
        assert children['sonar'].get_parameter('sensor').value == 'sonar'
        assert children['front_scanner'].get_parameter('sensors').value == 'front_scanner'
        # ... and the files still configure the rest:
        # '/**/sonar' beats '/**' for the sonar node alone
        assert children['sonar'].get_parameter('rays').value == 64
        assert children['front_scanner'].get_parameter('rays').value == 32
        # One executor: adding the host adds its sensor nodes; they ping together without error.
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(host)
        assert set(executor.get_nodes()) == {host, *children.values()}
        # Until each has read twice (a fixed spin may see no reading on a loaded machine).
        end = time.monotonic() + NODE_START_TIMEOUT
        while min(n.diagnostics.rates.count for n in children.values()) < 2:
            assert time.monotonic() < end, {
                n: c.diagnostics.rates.count for n, c in children.items()
            }
            executor.spin_once(timeout_sec=0.05)
        executor.shutdown()
    finally:
        if host is not None:
            host.destroy_node()
        rclpy.shutdown(context=context)
