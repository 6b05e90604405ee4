"""How the world and the robot move for a sensor node: scene time, the robot's pose, its joints.

* Scene time: ``scene_time: start`` (default) maps the node's start to the scene state's
  ``time_stamp``; ``scene_time: clock`` reads the node's clock (sim time with
  ``use_sim_time``) in seconds as scene time. Entities with a twist move with it.
* The robot's root link in the world: fixed (``robot_pose``), or the latest
  ``nav_msgs/Odometry`` (``pose_source: odometry``) or ``geometry_msgs/PoseStamped``
  (``pose_source: pose``) on ``pose_topic``: the pose of the root link in the world frame.
* Joint positions from ``sensor_msgs/JointState`` on ``joint_states_topic``.
* ``nps_sonar/SceneState`` on ``scene_state_topic``: new poses and twists of entities.

Messages are stored as they arrive and applied by :meth:`Motion.apply` between pings. Nodes
that cast into one raycaster (``robot_sensors_node``) share a :class:`SceneStart`, so that
``scene_time: start`` gives them one scene time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from geometry_msgs.msg import Pose, PoseStamped
from nav_msgs.msg import Odometry
from numpy.typing import NDArray
from rclpy.node import Node
from rclpy.time import Time
from sensor_msgs.msg import JointState

from nps_sonar import msg as nps_msg
from nps_sonar_py.devices.settings import MotionSettings
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.ros.conversions import matrix_from_pose
from nps_sonar_py.scene import EntityState

if TYPE_CHECKING:
    from nps_sonar_py.scene import Raycaster

__all__ = ['POSE_SOURCES', 'SCENE_TIMES', 'Motion', 'SceneStart']

POSE_SOURCES = ('fixed', 'odometry', 'pose')
SCENE_TIMES = ('start', 'clock')


class SceneStart:
    """The node time at which scene time is the scene state's ``time_stamp``: the first ping's."""

    def __init__(self) -> None:
        self.time: Time | None = None


class Motion:
    """The subscriptions that move a sensor node's robot and world, applied between pings.

    ``start``: shared by the nodes casting into one raycaster; default, this node's own.
    """

    def __init__(
        self,
        node: Node,
        settings: MotionSettings,
        *,
        world_from_root: NDArray[np.float64],
        start: SceneStart | None = None,
    ) -> None:
        source, scene_time = settings.pose_source, settings.scene_time
        if source not in POSE_SOURCES:
            raise ConfigurationError(
                f'pose_source must be one of {", ".join(POSE_SOURCES)}, got {source!r}'
            )
        if scene_time not in SCENE_TIMES:
            raise ConfigurationError(
                f'scene_time must be one of {", ".join(SCENE_TIMES)}, got {scene_time!r}',
            )
        self._node = node
        self._clock_scene_time = scene_time == 'clock'
        self._start = start or SceneStart()
        self.world_from_root = np.asarray(world_from_root, dtype=np.float64)
        self.joint_positions: dict[str, float] = {}
        self._robot_changed = False
        self._entity_updates: list[tuple[EntityState, Time]] = []
        depth = 10
        if source == 'odometry':
            node.create_subscription(
                Odometry,
                settings.pose_topic or 'odom',
                lambda m: self._on_pose(m.pose.pose),
                depth,
            )
        elif source == 'pose':
            node.create_subscription(
                PoseStamped,
                settings.pose_topic or 'pose',
                lambda m: self._on_pose(m.pose),
                depth,
            )
        node.create_subscription(
            JointState, settings.joint_states_topic, self._on_joint_state, depth
        )
        node.create_subscription(
            nps_msg.SceneState, settings.scene_state_topic, self._on_scene_state, depth
        )

    def _on_pose(self, pose: Pose) -> None:
        try:
            self.world_from_root = matrix_from_pose(pose)
        except ValueError as error:
            self._node.get_logger().warning(f'ignored a robot pose: {error}')
            return
        self._robot_changed = True

    def _on_joint_state(self, message: JointState) -> None:
        self.joint_positions.update(zip(message.name, map(float, message.position), strict=False))
        self._robot_changed = True

    def _on_scene_state(self, message: nps_msg.SceneState) -> None:
        stamp = Time.from_msg(message.header.stamp, clock_type=self._node.get_clock().clock_type)
        for entity in message.entities:
            t, w = entity.twist.linear, entity.twist.angular
            try:
                state = EntityState(
                    model=entity.model,
                    frame=entity.parent_frame or 'world',
                    origin=matrix_from_pose(entity.pose),
                    linear=np.array([t.x, t.y, t.z]),
                    angular=np.array([w.x, w.y, w.z]),
                )
            except ValueError as error:
                self._node.get_logger().warning(f'ignored the state of {entity.model!r}: {error}')
                continue
            self._entity_updates.append((state, stamp))

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
        time_stamp = raycaster.world.time_stamp
        scene_now = self.scene_time(now, time_stamp)  # first: it fixes the start
        updates, self._entity_updates = self._entity_updates, []
        for state, stamp in updates:
            try:
                raycaster.set_entity_state(state, since=self.scene_time(stamp, time_stamp))
            except (KeyError, ValueError) as error:
                self._node.get_logger().warning(f'ignored the state of {state.model!r}: {error}')
        raycaster.set_time(scene_now)
        if self._robot_changed:
            self._robot_changed = False
            try:
                set_robot_state(self.world_from_root, dict(self.joint_positions))
            except (KeyError, ValueError) as error:
                self._node.get_logger().warning(f'ignored the robot state: {error}')
