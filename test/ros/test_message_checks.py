"""Checks of incoming messages (``ros/message_checks.py``) without a node.

Each bad case spoils one field of a good message and expects the problem, naming that field,
word for word; good messages (at the bounds too) pass. Property tests feed every kind of
float (nan, inf, huge, subnormal) and check that a check only ever returns None or a
problem, and that whatever it lets through gives finite, rigid poses.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from fuzzing import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nps_sonar_py.ros.message_checks import (
    joint_state_problem,
    odometry_problem,
    pose_stamped_problem,
    scene_state_problem,
    tf_message_problem,
)

pytestmark = pytest.mark.ros

NAN, INF = math.nan, math.inf


def _odometry() -> Any:
    from nav_msgs.msg import Odometry

    message = Odometry()
    p = message.pose.pose.position
    p.x, p.y, p.z = 1.0, 2.0, -3.0
    message.pose.pose.orientation.w = 1.0
    return message


def _pose_stamped() -> Any:
    from geometry_msgs.msg import PoseStamped

    message = PoseStamped()
    message.pose.position.x = 0.5
    message.pose.orientation.z, message.pose.orientation.w = math.sqrt(0.5), math.sqrt(0.5)
    return message


def _joint_state() -> Any:
    from sensor_msgs.msg import JointState

    return JointState(name=['pan', 'tilt'], position=[0.5, -0.25])


def _scene_state() -> Any:
    from nps_sonar.msg import EntityState, SceneState

    target = EntityState(model='target', parent_frame='world')
    target.pose.position.y = 4.0
    target.pose.orientation.w = 1.0
    target.twist.linear.y = -0.5
    target.twist.angular.z = 0.2
    buoy = EntityState(model='buoy')  # no parent frame: the world
    buoy.pose.orientation.w = 1.0
    message = SceneState(entities=[target, buoy])
    message.header.stamp.sec, message.header.stamp.nanosec = 100, 250
    return message


def _tf_message() -> Any:
    from geometry_msgs.msg import TransformStamped
    from tf2_msgs.msg import TFMessage

    odom = TransformStamped(child_frame_id='base_link')
    odom.header.frame_id = 'odom'
    odom.header.stamp.sec, odom.header.stamp.nanosec = 12, 500
    odom.transform.translation.x = 3.0
    odom.transform.rotation.w = 1.0
    mast = TransformStamped(child_frame_id='mast')
    mast.header.frame_id = 'base_link'
    mast.transform.rotation.z, mast.transform.rotation.w = math.sqrt(0.5), math.sqrt(0.5)
    return TFMessage(transforms=[odom, mast])


def _tf_problem(message: Any) -> str | None:
    """The problem of a TFMessage as a node finds it: read off the wire, then checked."""
    from rclpy.serialization import serialize_message

    from nps_sonar_py.ros.tf_reader import MessageError, read_tf_message

    try:
        return tf_message_problem(read_tf_message(serialize_message(message)))
    except MessageError as error:
        return str(error)


GOOD = {
    'odometry': (_odometry, odometry_problem),
    'pose': (_pose_stamped, pose_stamped_problem),
    'joints': (_joint_state, joint_state_problem),
    'scene': (_scene_state, scene_state_problem),
    'tf': (_tf_message, _tf_problem),
}


def _set(message: Any, path: str, value: Any) -> Any:
    """``message`` with the field at dotted ``path`` (list indices as numbers) set to ``value``."""
    *parents, last = path.split('.')
    target = message
    for part in parents:
        target = target[int(part)] if part.isdigit() else getattr(target, part)
    setattr(target, last, value)
    return message


BAD = [
    ('odometry', 'pose.pose.position.x', NAN, 'pose.pose.position.x is nan'),
    ('odometry', 'pose.pose.position.y', INF, 'pose.pose.position.y is inf'),
    ('odometry', 'pose.pose.position.z', -INF, 'pose.pose.position.z is -inf'),
    (
        'odometry',
        'pose.pose.position.y',
        1e308,
        'pose.pose.position.y is 1e+308, beyond the bound of 1e+06 m',
    ),
    (
        'odometry',
        'pose.pose.position.x',
        -1.5e6,
        'pose.pose.position.x is -1500000.0, beyond the bound of 1e+06 m',
    ),
    ('odometry', 'pose.pose.orientation.z', INF, 'pose.pose.orientation.z is inf'),
    ('odometry', 'pose.pose.orientation.w', NAN, 'pose.pose.orientation.w is nan'),
    ('odometry', 'pose.pose.orientation.w', 0.0, 'pose.pose.orientation has norm 0, below 1e-06'),
    (
        'odometry',
        'pose.pose.orientation.w',
        5e-324,
        'pose.pose.orientation has norm 4.94e-324, below 1e-06',
    ),
    (
        'odometry',
        'pose.pose.orientation.w',
        1e7,
        'pose.pose.orientation has norm 1e+07, above 1e+06',
    ),
    ('pose', 'pose.position.x', NAN, 'pose.position.x is nan'),
    ('pose', 'pose.orientation.x', -INF, 'pose.orientation.x is -inf'),
    ('joints', 'position', [0.5, NAN], "position[1] is nan (joint 'tilt')"),
    ('joints', 'position', [-INF, 0.0], "position[0] is -inf (joint 'pan')"),
    (
        'joints',
        'position',
        [0.5, 2e9],
        "position[1] is 2000000000.0, beyond the bound of 1e+09 rad or m (joint 'tilt')",
    ),
    ('joints', 'position', [0.5], 'name and position differ in length: 2 and 1'),
    ('joints', 'position', [0.5, 0.0, 1.0], 'name and position differ in length: 2 and 3'),
    ('joints', 'name', ['pan', ''], 'name[1] is empty'),
    ('scene', 'header.stamp.sec', -1, 'header.stamp.sec is -1, negative'),
    (
        'scene',
        'header.stamp.nanosec',
        10**9,
        'header.stamp.nanosec is 1000000000, not below 1e9',
    ),
    ('scene', 'entities.0.model', '', 'entities[0].model is empty'),
    (
        'scene',
        'entities.1.pose.position.x',
        NAN,
        "entities[1].pose.position.x is nan (model 'buoy')",
    ),
    (
        'scene',
        'entities.1.pose.orientation.w',
        0.0,
        "entities[1].pose.orientation has norm 0, below 1e-06 (model 'buoy')",
    ),
    (
        'scene',
        'entities.0.twist.linear.y',
        1e308,
        "entities[0].twist.linear.y is 1e+308, beyond the bound of 10000 m/s (model 'target')",
    ),
    (
        'scene',
        'entities.0.twist.angular.z',
        -2e3,
        "entities[0].twist.angular.z is -2000.0, beyond the bound of 1000 rad/s (model 'target')",
    ),
    (
        'scene',
        'entities.1.twist.angular.x',
        NAN,
        "entities[1].twist.angular.x is nan (model 'buoy')",
    ),
    (
        'scene',
        'entities.1.model',
        'target',
        "entities[1].model 'target' has a state in entities[0] already: two states for one model",
    ),
    (
        'tf',
        'transforms.1.transform.translation.y',
        NAN,
        "transforms[1].transform.translation.y is nan ('base_link' -> 'mast')",
    ),
    (
        'tf',
        'transforms.0.transform.translation.z',
        -2e6,
        'transforms[0].transform.translation.z is -2000000.0, beyond the bound of 1e+06 m '
        "('odom' -> 'base_link')",
    ),
    (
        'tf',
        'transforms.1.transform.rotation.w',
        INF,
        "transforms[1].transform.rotation.w is inf ('base_link' -> 'mast')",
    ),
    (
        'tf',
        'transforms.0.transform.rotation.w',
        0.0,
        "transforms[0].transform.rotation has norm 0, below 1e-06 ('odom' -> 'base_link')",
    ),
    ('tf', 'transforms.1.header.stamp.sec', -3, 'transforms[1].header.stamp.sec is -3, negative'),
    ('tf', 'transforms.0.header.frame_id', '', 'transforms[0].header.frame_id is empty'),
    ('tf', 'transforms.1.child_frame_id', '/', 'transforms[1].child_frame_id is empty'),
    (
        'tf',
        'transforms.1.child_frame_id',
        '/base_link',
        "transforms[1].child_frame_id is its own parent 'base_link'",
    ),
]


@pytest.mark.parametrize(('kind', 'path', 'value', 'problem'), BAD)
def test_a_bad_field_is_named_with_its_problem(
    kind: str, path: str, value: Any, problem: str
) -> None:
    make, check = GOOD[kind]
    assert check(_set(make(), path, value)) == problem


GOOD_CASES = [
    ('odometry', None, None),
    ('odometry', 'pose.pose.position.x', -1e6),  # at the bound
    ('odometry', 'pose.pose.orientation.w', 2.0),  # not unit: normalised when used
    ('odometry', 'pose.pose.orientation.w', 1e-6),  # the shortest accepted quaternion
    ('pose', None, None),
    ('joints', None, None),
    ('joints', 'position', []),  # velocities or efforts only: nothing taken
    ('joints', 'position', [7e4, -1e9]),  # a wheel's turns pile up
    ('scene', None, None),
    ('scene', 'header.stamp.sec', 0),  # an unset stamp is a valid time
    ('scene', 'entities.0.twist.linear.x', 1e4),
    ('scene', 'entities.0.twist.angular.x', -1e3),
    ('scene', 'entities.1.pose.position.z', 1e6),
    ('scene', 'entities', []),
    ('tf', None, None),
    ('tf', 'transforms', []),
    ('tf', 'transforms.0.header.frame_id', '/odom'),  # a leading slash is dropped, as tf2 does
    ('tf', 'transforms.1.transform.translation.x', 1e6),
]


@pytest.mark.parametrize(('kind', 'path', 'value'), GOOD_CASES)
def test_good_messages_pass(kind: str, path: str | None, value: Any) -> None:
    make, check = GOOD[kind]
    message = make() if path is None else _set(make(), path, value)
    assert check(message) is None


def test_too_many_joint_names_are_refused_before_their_positions() -> None:
    from sensor_msgs.msg import JointState

    names = [f'joint_{i}' for i in range(10_001)]
    message = JointState(name=names, position=[NAN] * len(names))
    assert joint_state_problem(message) == 'name has 10001 entries, more than 10000'
    message = JointState(name=names[:10_000], position=[0.0] * 10_000)
    assert joint_state_problem(message) is None


def test_too_many_entities_are_refused_before_any_is_looked_at() -> None:
    from nps_sonar.msg import EntityState

    message = _scene_state()
    message.entities = [EntityState(model='')] * 1_001  # each would be a bad entity too
    assert scene_state_problem(message) == 'entities has 1001 entries, more than 1000'


def test_too_many_transforms_are_refused_before_any_is_looked_at() -> None:
    from geometry_msgs.msg import TransformStamped

    message = _tf_message()
    message.transforms = [TransformStamped()] * 10_001  # each would be a bad transform too
    assert _tf_problem(message) == 'transforms has 10001 entries, more than 10000'


# --- any float -------------------------------------------------------------------------------

SPECIAL = [NAN, INF, -INF, 1e308, -1e308, 5e-324, -5e-324, 0.0, -0.0, 1e6, 1e4, 1e3, 1e9]
FLOATS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
    st.sampled_from(SPECIAL),
    st.floats(-10.0, 10.0),
)
PROPERTY = settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _pose(values: tuple[float, ...]) -> Any:
    from geometry_msgs.msg import Point, Pose, Quaternion

    x, y, z, qx, qy, qz, qw = values
    return Pose(position=Point(x=x, y=y, z=z), orientation=Quaternion(x=qx, y=qy, z=qz, w=qw))


def _rigid_and_finite(matrix: np.ndarray) -> bool:
    r = matrix[:3, :3]
    return bool(
        np.all(np.isfinite(matrix))
        and np.allclose(r @ r.T, np.eye(3), atol=1e-9)
        and np.linalg.det(r) > 0.0
    )


@PROPERTY
@given(st.tuples(*[FLOATS] * 7))
def test_any_pose_gives_a_problem_or_a_rigid_transform(values: tuple[float, ...]) -> None:
    from geometry_msgs.msg import PoseStamped
    from nav_msgs.msg import Odometry

    from nps_sonar_py.ros.conversions import matrix_from_pose

    odometry = Odometry()
    odometry.pose.pose = _pose(values)
    problem = odometry_problem(odometry)
    assert problem is None or (isinstance(problem, str) and problem.startswith('pose.pose.'))
    assert pose_stamped_problem(PoseStamped(pose=_pose(values))) == (
        None if problem is None else problem.removeprefix('pose.')
    )
    if problem is None:
        assert _rigid_and_finite(matrix_from_pose(odometry.pose.pose))


@PROPERTY
@given(st.tuples(*[FLOATS] * 13), st.integers(-(2**31), 2**31 - 1), st.integers(0, 2**32 - 1))
def test_any_entity_gives_a_problem_or_stays_in_the_world(
    values: tuple[float, ...], sec: int, nanosec: int
) -> None:
    from geometry_msgs.msg import Twist, Vector3

    from nps_sonar.msg import EntityState, SceneState
    from nps_sonar_py.ros.conversions import matrix_from_pose
    from nps_sonar_py.scene.scene_state import integrate_twist

    linear, angular = (
        Vector3(x=values[7], y=values[8], z=values[9]),
        Vector3(x=values[10], y=values[11], z=values[12]),
    )
    entity = EntityState(
        model='target', pose=_pose(values[:7]), twist=Twist(linear=linear, angular=angular)
    )
    message = SceneState(entities=[entity])
    message.header.stamp.sec, message.header.stamp.nanosec = sec, nanosec
    problem = scene_state_problem(message)
    assert problem is None or isinstance(problem, str)
    if problem is None:
        origin = matrix_from_pose(entity.pose)
        v, w = np.array(values[7:10]), np.array(values[10:13])
        for dt in (0.0, 1.0, 3.2e9):  # up to a century later the entity is still somewhere
            assert _rigid_and_finite(integrate_twist(origin, v, w, dt))


@PROPERTY
@given(
    st.lists(st.text(alphabet='ab', max_size=2), max_size=6),
    st.lists(FLOATS, max_size=6),
)
def test_any_joint_state_gives_a_problem_or_finite_positions(
    names: list[str], positions: list[float]
) -> None:
    from sensor_msgs.msg import JointState

    problem = joint_state_problem(JointState(name=names, position=positions))
    assert problem is None or isinstance(problem, str)
    if problem is None and positions:
        assert len(positions) == len(names)
        assert '' not in names
        assert all(math.isfinite(p) for p in positions)


@PROPERTY
@given(st.tuples(*[FLOATS] * 7))
def test_any_transform_gives_a_problem_or_a_rigid_lookup(values: tuple[float, ...]) -> None:
    from rclpy.serialization import serialize_message

    from nps_sonar_py.devices.transform_buffer import TransformBuffer
    from nps_sonar_py.ros.tf_reader import read_tf_message

    message = _tf_message()
    t = message.transforms[0].transform
    v, q = t.translation, t.rotation
    v.x, v.y, v.z, q.x, q.y, q.z, q.w = values
    problem = _tf_problem(message)
    assert problem is None or problem.startswith('transforms[0].transform.')
    if problem is None:
        buffer = TransformBuffer()
        buffer.add(read_tf_message(serialize_message(message)), static=False)
        matrix, _ = buffer.lookup('odom', 'mast', 12 * 10**9)
        assert _rigid_and_finite(matrix)
