"""How the world and the robot move for a sensor node: scene time, the robot's pose, its joints.

* Scene time: ``scene_time: start`` (default) maps the node's start to the scene state's
  ``time_stamp``; ``scene_time: clock`` reads the node's clock (sim time with
  ``use_sim_time``) in seconds as scene time. Entities with a twist move with it.
* The robot's root link in the world: fixed (``robot_pose``), or the latest
  ``nav_msgs/Odometry`` (``pose_source: odometry``) or ``geometry_msgs/PoseStamped``
  (``pose_source: pose``) on ``pose_topic``: the pose of the root link in the world frame;
  or (``pose_source: tf``) the root link in ``world_frame`` from ``/tf`` and ``/tf_static``
  at each reading's time (read raw by ``ros/tf_reader.py``, kept and interpolated between
  stamps as tf2 does by ``devices/transform_buffer.py``). A missing
  chain, and a reading time more than ``tf_timeout`` outside a chain's samples, give a
  throttled warning; a missing one keeps the last pose, a stale one gives the nearest
  samples. Time jumping back clears the ``/tf`` samples stamped after it, as tf2_ros clears.
* Joint positions from ``sensor_msgs/JointState`` on ``joint_states_topic``, each within its
  joint's URDF ``<limit>`` (``Joint.position_problem``; continuous joints have none): a
  message with a position outside them is dropped whole, as a message that fails its check.
* ``nps_sonar/SceneState`` on ``scene_state_topic`` (read raw: its entity count checked in
  its bytes before it is deserialised, ``ros/scene_state_reader.py``): new poses and twists
  of entities,
  applied whole or not at all: a message naming another scene, an unknown model or another
  parent frame than the scene file's (``scene.scene_state.update_problem``) is dropped whole
  with the same throttled warning as a message that fails its check.
* ``entity_frames``: entities placed at their TF frames' poses (``ros/entity_tf.py``, after
  the scene states), from the same buffer, which is then filled whatever the pose source.
* ``/clock`` (with ``use_sim_time``): rclpy's own subscription, guarded by
  :func:`guard_sim_clock` so that a time rclpy cannot hold is dropped, not fatal.

Every message is checked before anything is taken from it (``ros/message_checks.py``: finite,
bounded, consistent): a bad one is dropped whole with a warning, throttled per topic, that
names the topic, the field and the problem, and the last good state stays. Messages are
stored as they arrive and applied by :meth:`Motion.apply` between pings. Nodes
that cast into one raycaster (``robot_sensors_node``) share a :class:`SceneStart`, so that
``scene_time: start`` gives them one scene time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import rclpy.logging
from geometry_msgs.msg import Pose, PoseStamped
from nav_msgs.msg import Odometry
from numpy.typing import NDArray
from rclpy.node import Node
from rclpy.time import Time
from sensor_msgs.msg import JointState
from tf2_msgs.msg import TFMessage

from nps_sonar import msg as nps_msg
from nps_sonar_py.devices.settings import MotionSettings, PoseSource, SceneTime
from nps_sonar_py.devices.transform_buffer import (
    BUFFER_SECONDS,
    MAX_FRAMES,
    TransformBatch,
    TransformBuffer,
)
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.ros.conversions import matrix_from_pose
from nps_sonar_py.ros.entity_tf import entity_tf_for
from nps_sonar_py.ros.message_checks import (
    joint_state_problem,
    odometry_problem,
    pose_stamped_problem,
    scene_state_problem,
    stamp_problem,
    tf_message_problem,
)
from nps_sonar_py.ros.scene_state_reader import read_scene_state
from nps_sonar_py.ros.tf import STATIC_LISTENER_QOS, TF_QOS
from nps_sonar_py.ros.tf_reader import MessageError, TfReader
from nps_sonar_py.scene import WORLD_FRAME, EntityState
from nps_sonar_py.scene.scene_state import update_problem

if TYPE_CHECKING:
    from nps_sonar_py.description import Joint
    from nps_sonar_py.scene import Raycaster, World

__all__ = [
    'MESSAGE_POSE_SOURCES',
    'Motion',
    'SceneStart',
    'SharedTf',
    'guard_sim_clock',
]

#: The pose sources whose messages the node turns into the robot's pose (so it may publish it).
MESSAGE_POSE_SOURCES = (PoseSource.ODOMETRY, PoseSource.POSE)
#: Shortest interval between two warnings about bad messages on one topic, s.
WARNING_PERIOD = 5.0


def guard_sim_clock() -> None:
    """Make rclpy's ``/clock`` subscription drop a time it cannot hold instead of dying on it.

    rclpy's ``TimeSource`` turns every ``/clock`` message into a ``Time``, which raises on a
    negative ``sec`` inside the executor: the node would stop with a traceback. Its callback
    is wrapped, once per process and before any node subscribes, so that the message is
    checked first (``stamp_problem``) and a bad one is dropped with a throttled warning; the
    clock keeps its last good time.
    """
    from rclpy.time_source import TimeSource

    original = TimeSource.clock_callback
    if getattr(original, 'guarded', False):
        return
    logger = rclpy.logging.get_logger('nps_sonar.clock')

    def clock_callback(self: TimeSource, message: Any) -> None:
        problem = stamp_problem(message.clock, 'clock')
        if problem is None:
            original(self, message)
            return
        logger.warning(
            f'ignored a message on /clock: {problem}', throttle_duration_sec=WARNING_PERIOD
        )

    clock_callback.guarded = True  # type: ignore[attr-defined]  # a mark on the function
    TimeSource.clock_callback = clock_callback  # type: ignore[method-assign,assignment]  # as above


def _entity_state(entity: nps_msg.EntityState) -> EntityState:
    """The scene's state of a checked ``nps_sonar/EntityState`` (an empty frame is the world)."""
    linear, angular = entity.twist.linear, entity.twist.angular
    return EntityState(
        model=entity.model,
        frame=entity.parent_frame or WORLD_FRAME,
        origin=matrix_from_pose(entity.pose),
        linear=np.array([linear.x, linear.y, linear.z]),
        angular=np.array([angular.x, angular.y, angular.z]),
    )


class SceneStart:
    """The node time at which scene time is the scene state's ``time_stamp``: the first ping's."""

    def __init__(self) -> None:
        self.time: Time | None = None


class SharedTf:
    """One TF buffer for the sensor nodes of one process (``robot_sensors_node``).

    The first node with ``pose_source: tf`` subscribes to ``/tf`` and ``/tf_static`` and fills
    :attr:`buffer`; the others look up in it, so each transform is checked and stored once.
    """

    def __init__(self) -> None:
        self.buffer: TransformBuffer | None = None


class _Checked:
    """A subscription's callback that passes a message on only if ``check`` finds no problem.

    A bad message is dropped with a warning naming the topic and the problem. Each topic has
    its own logger object (under the node's logger name), so its own throttle: a flood on one
    topic does not hide the first bad message on another. ``read``: for a raw subscription,
    what turns the bytes into what is checked (a ``MessageError`` is the message's problem).
    """

    def __init__(
        self,
        node: Node,
        check: Callable[[Any], str | None],
        use: Callable[[Any], None],
        read: Callable[[bytes], Any] | None = None,
    ) -> None:
        self.topic = ''  # the resolved name, once subscribed
        self._check, self._use, self._read = check, use, read
        self._logger = rclpy.logging.get_logger(node.get_logger().name)

    def __call__(self, message: Any) -> None:
        try:
            message = message if self._read is None else self._read(message)
        except MessageError as error:
            problem: str | None = str(error)
        else:
            problem = self._check(message)
        if problem is None:
            self._use(message)
            return
        self.warn(problem)

    def warn(self, problem: str) -> None:
        """Say, throttled, that a message on this topic was dropped for ``problem``."""
        self._logger.warning(
            f'ignored a message on {self.topic}: {problem}', throttle_duration_sec=WARNING_PERIOD
        )


class Motion:
    """The subscriptions that move a sensor node's robot and world, applied between pings.

    ``start``: shared by the nodes casting into one raycaster; default, this node's own.
    ``root_link``: the robot's root link, the frame ``pose_source: tf`` looks up.
    ``joints``: the robot's joints, whose limits bound the positions taken from messages.
    """

    def __init__(
        self,
        node: Node,
        settings: MotionSettings,
        *,
        world_from_root: NDArray[np.float64],
        root_link: str = '',
        start: SceneStart | None = None,
        shared_tf: SharedTf | None = None,
        world: World | None = None,
        joints: Mapping[str, Joint] | None = None,
    ) -> None:
        source = settings.pose_source  # pose_source and scene_time: checked by the record
        self._node = node
        self._clock_scene_time = settings.scene_time is SceneTime.CLOCK
        self._start = start or SceneStart()
        self.world_from_root = np.asarray(world_from_root, dtype=np.float64)
        self.joint_positions: dict[str, float] = {}
        self._joints: Mapping[str, Joint] = joints or {}
        self._robot_changed = False
        self._scene_updates: list[tuple[str, tuple[EntityState, ...], Time]] = []
        self.world_frame, self.root_link = settings.world_frame.lstrip('/'), root_link
        if source != 'fixed' and self.world_frame in ('', root_link):
            raise ConfigurationError(
                f'world_frame must name a TF frame other than the root link {root_link!r}, '
                f'got {settings.world_frame!r}'
            )
        self._tf: TransformBuffer | None = None
        self._tf_time = 0  # ns of the last lookup, to see time jump back
        self._tf_timeout = settings.tf_timeout
        self._tf_logger = rclpy.logging.get_logger(node.get_logger().name)
        self._entity_tf = entity_tf_for(node, settings, world)  # entities following /tf
        self._robot_tf = source == 'tf'
        listen_tf = self._robot_tf or self._entity_tf is not None
        if source == 'odometry':
            self._subscribe(
                Odometry,
                settings.pose_topic or 'odom',
                odometry_problem,
                lambda m: self._on_pose(m.pose.pose),
            )
        elif source == 'pose':
            self._subscribe(
                PoseStamped,
                settings.pose_topic or 'pose',
                pose_stamped_problem,
                lambda m: self._on_pose(m.pose),
            )
        if listen_tf and shared_tf is not None and shared_tf.buffer is not None:
            self._tf = shared_tf.buffer  # another node of this process fills it
        elif listen_tf:
            self._tf = TransformBuffer()
            if shared_tf is not None:
                shared_tf.buffer = self._tf
            for topic, qos, static in (
                ('/tf', TF_QOS, False),
                ('/tf_static', STATIC_LISTENER_QOS, True),
            ):
                self._subscribe(
                    TFMessage,
                    topic,
                    tf_message_problem,
                    partial(self._on_tf, static=static),
                    qos,
                    read=TfReader().read,  # raw: rclpy's objects cost ~50 us per transform
                )
        self._subscribe(
            JointState,
            settings.joint_states_topic,
            self._joint_state_problem,
            self._on_joint_state,
        )
        self._scene_state_callback = self._subscribe(
            nps_msg.SceneState,
            settings.scene_state_topic,
            scene_state_problem,
            self._on_scene_state,
            read=read_scene_state,  # raw: the entity count checked before deserialising
        )

    def _subscribe(
        self,
        msg_type: Any,
        topic: str,
        check: Callable[[Any], str | None],
        use: Callable[[Any], None],
        qos: Any = 10,
        read: Callable[[bytes], Any] | None = None,
    ) -> _Checked:
        """Subscribe to ``topic``; each message is ``check``ed and, if good, ``use``d.

        ``read``: subscribe raw, and turn the bytes into what is checked with it.
        """
        callback = _Checked(self._node, check, use, read)
        subscription = self._node.create_subscription(
            msg_type, topic, callback, qos, raw=read is not None
        )
        callback.topic = subscription.topic_name
        return callback

    # The callbacks below get only messages that passed their check (ros/message_checks.py).

    def _on_pose(self, pose: Pose) -> None:
        self.world_from_root = matrix_from_pose(pose)
        self._robot_changed = True

    def _on_tf(self, batch: TransformBatch, static: bool) -> None:
        assert self._tf is not None
        now_ns = self._node.get_clock().now().nanoseconds
        self._see_tf_time(now_ns)
        dropped = self._tf.add(batch, static=static, now_ns=now_ns)
        if dropped:
            reasons = (
                (dropped.new_frames, f'of new frames past {MAX_FRAMES} frames'),
                (dropped.old, f"older than {BUFFER_SECONDS:g} s before their frame's newest"),
                (dropped.future, f'stamped more than {BUFFER_SECONDS:g} s ahead of the clock'),
            )
            self._tf_logger.warning(
                f'ignored transforms on {"/tf_static" if static else "/tf"}: '
                + '; '.join(f'{count} {why}' for count, why in reasons if count),
                throttle_duration_sec=WARNING_PERIOD,
            )

    def _see_tf_time(self, now_ns: int) -> None:
        """As tf2_ros: when the clock went back (a simulation reset), forget the old run's samples.

        Checked when a TF message comes and at each lookup, so that the first messages after
        a reset are not dropped as older than the previous run's newest. Each node checks its
        own clock: nodes sharing a buffer each forget, and only, what is stamped after it.
        """
        assert self._tf is not None
        if now_ns < self._tf_time:
            self._tf.forget_after(now_ns)
            self._tf_logger.warning(
                f'time jumped back {(self._tf_time - now_ns) * 1e-9:.3f} s: forgot the /tf '
                'samples stamped after it'
            )
        self._tf_time = now_ns

    def _follow_tf(self, now: Time) -> None:
        """Take the root link's pose in the world frame at ``now`` from TF, if it is there."""
        assert self._tf is not None
        self._see_tf_time(now.nanoseconds)
        try:
            pose, lag = self._tf.lookup(self.world_frame, self.root_link, now.nanoseconds)
        except LookupError as error:
            self._tf_logger.warning(
                f'pose_source tf: no pose of {self.root_link!r} in {self.world_frame!r}: '
                f'{error}; keeping the last pose',
                throttle_duration_sec=WARNING_PERIOD,
            )
            return
        if lag > self._tf_timeout:
            self._tf_logger.warning(
                f'pose_source tf: the pose of {self.root_link!r} in {self.world_frame!r} is '
                f'stale: a transform of its chain is {lag:.3f} s from the reading, the '
                f'nearest held (tf_timeout {self._tf_timeout:g} s); using it',
                throttle_duration_sec=WARNING_PERIOD,
            )
        if not np.array_equal(pose, self.world_from_root):
            self.world_from_root = pose
            self._robot_changed = True

    def _joint_state_problem(self, message: JointState) -> str | None:
        """Why a ``JointState`` cannot move the robot: its check, then its joints' limits."""
        problem = joint_state_problem(message)
        if problem is not None or not self._joints:
            return problem
        for index, (name, position) in enumerate(
            zip(message.name, message.position, strict=False)
        ):
            joint = self._joints.get(name)  # another robot's joints are left alone
            outside = None if joint is None else joint.position_problem(float(position))
            if outside is not None:
                return f'position[{index}] {outside} (joint {name!r})'
        return None

    def _on_joint_state(self, message: JointState) -> None:
        self.joint_positions.update(zip(message.name, map(float, message.position), strict=False))
        self._robot_changed = True

    def _on_scene_state(self, message: nps_msg.SceneState) -> None:
        stamp = Time.from_msg(message.header.stamp, clock_type=self._node.get_clock().clock_type)
        states = tuple(_entity_state(entity) for entity in message.entities)
        self._scene_updates.append((message.scene, states, stamp))

    def scene_time(self, now: Time, time_stamp: float) -> float:
        """Scene time in seconds at node time ``now``."""
        if self._clock_scene_time:
            return now.nanoseconds * 1e-9
        if self._start.time is None:
            self._start.time = now
        return time_stamp + (now - self._start.time).nanoseconds * 1e-9

    def apply(
        self,
        now: Time,
        raycaster: Raycaster,
        set_robot_state: Callable[[NDArray[np.float64], dict[str, float]], None],
    ) -> None:
        """Bring the world (``raycaster``) and the robot to ``now``: entities, scene time, robot.

        ``set_robot_state(world_from_root, joint_positions)`` is called only after the robot moved.
        """
        world = raycaster.world
        time_stamp = world.time_stamp
        scene_now = self.scene_time(now, time_stamp)  # first: it fixes the start
        updates, self._scene_updates = self._scene_updates, []
        for scene, states, stamp in updates:  # each message whole, or not at all
            problem = update_problem(scene, states, world=world.name, frames=world.frames)
            if problem is not None:
                self._scene_state_callback.warn(problem)
                continue
            since = self.scene_time(stamp, time_stamp)
            for state in states:
                raycaster.set_entity_state(state, since=since)
        raycaster.set_time(scene_now)
        if self._tf is not None and self._entity_tf is not None:
            self._see_tf_time(now.nanoseconds)
            self._entity_tf.apply(self._tf, now.nanoseconds, raycaster)
        if self._tf is not None and self._robot_tf:
            self._follow_tf(now)
        if self._robot_changed:
            self._robot_changed = False
            try:
                set_robot_state(self.world_from_root, dict(self.joint_positions))
            except (KeyError, ValueError) as error:
                self._node.get_logger().warning(f'ignored the robot state: {error}')
