"""Bad messages on the topics that move a sonar node, over real DDS: dropped, warned, survived.

Expected ranges come from the reference scenario's geometry (``reference_scene``): the sonar
at (2.1, 1.0, 1.0) looks along +y at a vertical cylinder of radius 0.25 m centred on
(2.1, 3.0), whose 64-gon has a vertex facing -y on the boresight, so the one-ray range is
exact: ``3.0 - 0.25 - 1.0 = 1.75`` m from the robot's start; the tank's inner wall x = 0.
Each test sees a good message take effect, then a bad one dropped with a warning naming the
topic and the field, while the node keeps publishing the range of the last good state.
"""

from __future__ import annotations

import copy
import math
import subprocess
from pathlib import Path
from typing import Any

import pytest
from reference_scene import CYLINDER_CENTRE, CYLINDER_RADIUS, PAN_ROBOT, SONAR
from ros_helpers import (
    NodeLog,
    Receiver,
    executable,
    exit_line,
    first_such,
    messages_after,
    publishing,
    running,
)

pytestmark = pytest.mark.ros

NAN, INF = math.nan, math.inf
ONE_RAY = {'rays': 1, 'update_rate': 20.0}
#: The cylinder's face on the boresight (its vertex facing -y), world y.
FACE_Y = float(CYLINDER_CENTRE[1]) - CYLINDER_RADIUS
#: Range readings checked after a bad message was dropped.
AFTER = 5


def _boresight_to_cylinder(sonar_y: float) -> float:
    """Range along +y from a sonar at world y ``sonar_y`` (on the cylinder's axis in x)."""
    return FACE_Y - sonar_y


def _reaches(r: Receiver, node: subprocess.Popen[str], expected: float) -> None:
    """Wait for a Range of ``expected`` metres: a good message has taken effect."""
    first_such(r, r.topic, node, lambda m: abs(m.range - expected) < 1e-6)


def _stays(r: Receiver, node: subprocess.Popen[str], expected: float) -> None:
    """The next readings all show ``expected`` metres, and the node still runs."""
    after = messages_after(r, AFTER)
    assert node.poll() is None
    assert [m.range for m in after] == pytest.approx([expected] * AFTER, abs=1e-6)


def _good_then_bad(
    r: Receiver,
    parameters: dict[str, Any],
    topic: tuple[Any, str],
    good: Any,
    bad: Any,
    warning: str,
    held: float = _boresight_to_cylinder(SONAR[1] + 0.5),
) -> None:
    """A node whose ``good`` message makes it read ``held`` m (by default: the sonar 0.5 m
    nearer the cylinder); then ``bad``.

    ``bad`` is dropped with ``ignored a message on <warning>``, the range of ``good`` stays,
    and the node exits 0 on SIGINT without a traceback.
    """
    msg_type, name = topic
    with running('sonar_node', parameters) as node:
        log = NodeLog(node)
        assert r.wait_for(1, process=node)[-1].range == pytest.approx(
            _boresight_to_cylinder(SONAR[1]), abs=1e-6
        )
        with publishing(r, msg_type, name, lambda: good):
            _reaches(r, node, held)
        with publishing(r, msg_type, name, lambda: bad):
            log.wait_for(f'ignored a message on {warning}')
            _stays(r, node, held)
        assert log.stop() == 0
    assert 'Traceback' not in log.text()


def _set(message: Any, path: str, value: float) -> Any:
    """A copy of ``message`` with the field at dotted ``path`` set to ``value``."""
    message = copy.deepcopy(message)
    *parents, last = path.split('.')
    target = message
    for part in parents:
        target = target[int(part)] if part.isdigit() else getattr(target, part)
    setattr(target, last, value)
    return message


@pytest.mark.parametrize(
    ('field', 'value', 'problem'),
    [
        ('pose.pose.position.x', NAN, 'pose.pose.position.x is nan'),
        ('pose.pose.orientation.z', INF, 'pose.pose.orientation.z is inf'),
        ('pose.pose.orientation.w', 0.0, 'pose.pose.orientation has norm 0'),
        ('pose.pose.position.y', 1e308, 'pose.pose.position.y is 1e+308'),
    ],
    ids=['nan-position', 'inf-quaternion', 'zero-quaternion', 'huge-position'],
)
def test_bad_odometry_keeps_the_last_good_pose(
    receiver: Any, field: str, value: float, problem: str
) -> None:
    from nav_msgs.msg import Odometry
    from sensor_msgs.msg import Range

    r = receiver(Range, 'sonar/range')
    good = Odometry()
    good.pose.pose.position.y = 0.5  # the robot 0.5 m nearer the cylinder
    good.pose.pose.orientation.w = 1.0
    bad = _set(good, field, value)
    parameters = {**ONE_RAY, 'pose_source': 'odometry'}
    _good_then_bad(r, parameters, (Odometry, 'odom'), good, bad, f'/odom: {problem}')


def test_a_nan_joint_state_keeps_the_last_good_joints(receiver: Any, tmp_path: Path) -> None:
    from nav_msgs.msg import Odometry
    from sensor_msgs.msg import JointState, Range

    robot = tmp_path / 'pan_sonar.urdf'
    robot.write_text(PAN_ROBOT)  # the reference sonar on a joint "pan" about z
    r = receiver(Range, 'sonar/range')
    turned = JointState(name=['pan'], position=[math.pi / 2])  # boresight from +y to -x
    nan = JointState(name=['pan'], position=[NAN])
    moved = Odometry()
    moved.pose.pose.position.x = 0.5  # the whole robot 0.5 m farther from the wall x = 0
    moved.pose.pose.orientation.w = 1.0
    parameters = {**ONE_RAY, 'robot_description_file': str(robot), 'pose_source': 'odometry'}
    with running('sonar_node', parameters) as node:
        log = NodeLog(node)
        assert r.wait_for(1, process=node)[-1].range == pytest.approx(
            _boresight_to_cylinder(SONAR[1]), abs=1e-6
        )
        with publishing(r, JointState, 'joint_states', lambda: turned):
            _reaches(r, node, SONAR[0])  # the wall x = 0 is 2.1 m away along -x
        with publishing(r, JointState, 'joint_states', lambda: nan):
            log.wait_for("ignored a message on /joint_states: position[0] is nan (joint 'pan')")
            _stays(r, node, SONAR[0])
            # Not frozen: the robot still moves, its pan still at the last good 90 degrees.
            with publishing(r, Odometry, 'odom', lambda: moved):
                _reaches(r, node, SONAR[0] + 0.5)
        assert log.stop() == 0
    assert 'Traceback' not in log.text()


#: The reference sonar on a prismatic joint "lift" that slides it along world +y, limited to
#: +-1 m, beside a continuous joint "wheel" that carries nothing the sonar sees.
LIFT_ROBOT = (
    PAN_ROBOT.replace('<joint name="pan" type="revolute">', '<joint name="lift" type="prismatic">')
    .replace(
        '<axis xyz="0 0 1"/><limit lower="-3.2" upper="3.2" effort="1" velocity="1"/>',
        '<axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/>',
    )
    .replace(
        '<link name="head"/>',
        '<link name="head"/><link name="wheel_link"/>'
        '<joint name="wheel" type="continuous"><parent link="base_link"/>'
        '<child link="wheel_link"/><axis xyz="0 1 0"/></joint>',
    )
)


def test_a_joint_position_past_its_urdf_limits_keeps_the_last_good_joints(
    receiver: Any, tmp_path: Path
) -> None:
    """1e7 m on a joint limited to +-1 m read inf on every range; now it is dropped, warned."""
    from sensor_msgs.msg import JointState, Range

    assert LIFT_ROBOT.count('type="prismatic"') == 1
    assert 'type="continuous"' in LIFT_ROBOT
    robot = tmp_path / 'lift_sonar.urdf'
    robot.write_text(LIFT_ROBOT)
    r = receiver(Range, 'sonar/range')
    # Within the limits, beside a continuous joint 10 million radians round: both taken.
    lifted = JointState(name=['lift', 'wheel'], position=[0.5, 1e7])
    past = JointState(name=['wheel', 'lift'], position=[0.0, 1e7])
    parameters = {**ONE_RAY, 'robot_description_file': str(robot)}
    warning = "/joint_states: position[1] 1e+07 m is outside the limits [-1, 1] m (joint 'lift')"
    _good_then_bad(r, parameters, (JointState, 'joint_states'), lifted, past, warning)


@pytest.mark.parametrize(
    ('field', 'value', 'problem'),
    [
        ('entities.0.pose.position.y', NAN, "entities[0].pose.position.y is nan (model 'target')"),
        ('entities.0.twist.linear.y', 1e308, 'entities[0].twist.linear.y is 1e+308'),
        ('entities.0.twist.angular.z', 1e308, 'entities[0].twist.angular.z is 1e+308'),
    ],
    ids=['nan-pose', 'huge-linear-twist', 'huge-angular-twist'],
)
def test_a_bad_scene_state_leaves_the_entity_where_it_was(
    receiver: Any, field: str, value: float, problem: str
) -> None:
    from sensor_msgs.msg import Range

    from nps_sonar.msg import EntityState, SceneState

    r = receiver(Range, 'sonar/range')
    target = EntityState(model='target', parent_frame='world')
    target.pose.position.x, target.pose.position.y, target.pose.position.z = 2.1, 4.0, 1.0
    target.pose.orientation.w = 1.0  # the cylinder 1 m farther along +y, standing still
    good = SceneState(entities=[target])
    good.header.stamp = r.node.get_clock().now().to_msg()
    # The bad state would also bring the cylinder 0.5 m nearer: the whole message is dropped.
    bad = _set(_set(good, 'entities.0.pose.position.y', 3.5), field, value)
    farther = _boresight_to_cylinder(SONAR[1]) + 1.0
    topic = (SceneState, 'scene_state')
    _good_then_bad(r, ONE_RAY, topic, good, bad, f'/scene_state: {problem}', farther)


def _target(y: float, parent_frame: str = 'world', model: str = 'target') -> Any:
    """An EntityState placing the cylinder (standing still) with its axis at world y ``y``."""
    from nps_sonar.msg import EntityState

    state = EntityState(model=model, parent_frame=parent_frame)
    state.pose.position.x, state.pose.position.y, state.pose.position.z = 2.1, y, 1.0
    state.pose.orientation.w = 1.0
    return state


# (case id, scene named, the states (each would bring the cylinder 0.5 m nearer), problem)
UNFIT = [
    ('another-scene', 'harbour', [(3.5,)], "scene 'harbour' is not this world, 'reference_tank'"),
    (
        'an-unknown-model',
        'reference_tank',
        [(3.5,), (0.0, 'world', 'ghost')],
        "entities[1].model 'ghost' is no model of world 'reference_tank'",
    ),
    (
        'two-states-for-one-model',
        '',
        [(3.5,), (3.4,)],
        "entities[1].model 'target' has a state in entities[0] already: two states for one model",
    ),
    (
        'another-parent-frame',
        '',
        [(3.5, 'tank')],
        "entities[0].parent_frame 'tank' is not 'world', the frame that places 'target'",
    ),
]


@pytest.mark.parametrize(
    ('scene', 'states', 'problem'), [c[1:] for c in UNFIT], ids=[c[0] for c in UNFIT]
)
def test_a_scene_state_that_does_not_fit_the_world_is_dropped_whole(
    receiver: Any, scene: str, states: list[tuple[Any, ...]], problem: str
) -> None:
    from sensor_msgs.msg import Range

    from nps_sonar.msg import SceneState

    r = receiver(Range, 'sonar/range')
    good = SceneState(scene='reference_tank', entities=[_target(4.0)])  # 1 m farther
    good.header.stamp = r.node.get_clock().now().to_msg()
    bad = SceneState(scene=scene, entities=[_target(*state) for state in states])
    bad.header.stamp = good.header.stamp
    farther = _boresight_to_cylinder(SONAR[1]) + 1.0
    topic = (SceneState, 'scene_state')
    _good_then_bad(r, ONE_RAY, topic, good, bad, f'/scene_state: {problem}', farther)


@pytest.mark.parametrize(
    ('node_name', 'value', 'read'),
    [('sonar_node', '.nan', 'nan'), ('ranger_node', '-.inf', '-inf')],
)
def test_a_robot_pose_that_is_not_finite_exits_with_one_line(
    node_name: str, value: str, read: str
) -> None:
    command = [
        executable(node_name),
        '--ros-args',
        '-p',
        f'robot_pose:=[1.0, {value}, 0.0, 0.0, 0.0, 0.0]',
    ]
    line = exit_line(command)
    assert 'robot_pose' in line
    assert f'[1.0, {read}, 0.0' in line  # the values as the node read them (YAML)


def test_a_clock_that_rclpy_cannot_hold_is_dropped(receiver: Any) -> None:
    from builtin_interfaces.msg import Time
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import Range

    r = receiver(Range, 'sonar/range')
    best_effort = QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT)
    sim = [100.0]

    def good() -> Clock:
        sim[0] += 0.05
        return Clock(clock=Time(sec=int(sim[0]), nanosec=round((sim[0] % 1) * 1e9)))

    negative = Clock(clock=Time(sec=-5, nanosec=0))
    with running('sonar_node', {**ONE_RAY, 'use_sim_time': True}) as node:
        log = NodeLog(node)
        with publishing(r, Clock, '/clock', good, qos=best_effort):
            r.wait_for(1, process=node)
        with publishing(r, Clock, '/clock', lambda: negative, qos=best_effort):
            log.wait_for('ignored a message on /clock: clock.sec is -5, negative')
            assert node.poll() is None
        # The clock runs on from its last good time: the pings come back, stamped after it
        # (the first of them may still be one of the first phase's, late on a loaded machine:
        # stamped before it, but never before the first good clock).
        last_good = sim[0]
        with publishing(r, Clock, '/clock', good, qos=best_effort):
            after = messages_after(r, 3)
        stamps = [m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec for m in after]
        assert min(stamps) > 100.0
        assert stamps[-1] >= last_good
        assert log.stop() == 0
    assert 'Traceback' not in log.text()
