"""World entities that follow their poses on ``/tf``: Gazebo's models moving the sonar's world.

``entity_frames`` (``scene/entity_frames.py``) names the entities and their TF frames;
``entity_world_frame`` (empty: the world's name, which is Gazebo's world frame) is the frame
their poses are looked up in, which must be the scene's own frame. At each reading,
after the scene-state messages and the twists (so TF wins), each entity is placed at its
frame's pose at the reading's time, looked up in the TF buffer that ``ros/motion.py`` fills
from ``/tf`` and ``/tf_static`` (``ros/tf_reader.py`` reads them,
``devices/transform_buffer.py`` keeps and interpolates them as tf2 does).

As for the robot's pose from TF: a frame not (yet) there keeps the entity where it was and
gives a warning naming the entity, its frame and why (the buffer's one-line reason, with the
frames it knows); a pose more than ``tf_timeout`` from the reading gives a warning that it is
stale, and the nearest is used. Warnings are throttled per entity, each with its own logger
object, so one entity's warnings do not hide another's. A bad transform never reaches the
buffer (``message_checks.tf_message_problem`` drops its message), so it moves nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import rclpy.logging
from rclpy.node import Node

from nps_sonar_py.devices.settings import MotionSettings
from nps_sonar_py.devices.transform_buffer import TransformBuffer
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.scene.entity_frames import parse_entity_frames

if TYPE_CHECKING:
    from nps_sonar_py.scene import Raycaster, World

__all__ = ['EntityTf', 'entity_tf_for', 'tf_entity_frames']

#: Shortest interval between two warnings about one entity, s (as ``ros/motion.py``'s).
WARNING_PERIOD = 5.0


class EntityTf:
    """Entities placed from TF frames at each reading: ``{entity: frame}`` in ``world_frame``."""

    def __init__(
        self, node: Node, frames: dict[str, str], world_frame: str, tf_timeout: float
    ) -> None:
        self.frames, self.world_frame = dict(frames), world_frame
        self._timeout = tf_timeout
        name = node.get_logger().name
        self._loggers = {entity: rclpy.logging.get_logger(name) for entity in frames}

    def apply(self, buffer: TransformBuffer, nanoseconds: int, raycaster: Raycaster) -> None:
        """Place each entity at its frame's pose at ``nanoseconds``, where TF has it."""
        for entity, frame in self.frames.items():
            logger = self._loggers[entity]
            where = f'entity {entity!r} (frame {frame!r} in {self.world_frame!r})'
            try:
                pose, lag = buffer.lookup(self.world_frame, frame, nanoseconds)
            except LookupError as error:
                logger.warning(
                    f'entity_frames: no pose of {where}: {error}; it stays where it is',
                    throttle_duration_sec=WARNING_PERIOD,
                )
                continue
            if lag > self._timeout:
                logger.warning(
                    f'entity_frames: the pose of {where} is stale: a transform of its chain is '
                    f'{lag:.3f} s from the reading, the nearest held (tf_timeout '
                    f'{self._timeout:g} s); using it',
                    throttle_duration_sec=WARNING_PERIOD,
                )
            if np.array_equal(pose, raycaster.entity_pose(entity)):
                continue
            try:
                raycaster.set_entity_pose(entity, pose)
            except (KeyError, ValueError) as error:
                logger.warning(
                    f'entity_frames: ignored the pose of {where}: {error}',
                    throttle_duration_sec=WARNING_PERIOD,
                )


def entity_tf_for(node: Node, settings: MotionSettings, world: World | None) -> EntityTf | None:
    """The entities of ``world`` that ``settings.entity_frames`` makes follow TF, or None.

    Raises:
        ConfigurationError: a bad ``entity_frames`` (one line, ``parse_entity_frames``), or
            one given without a world to look its entities up in.
    """
    if not settings.entity_frames.strip():
        return None
    if world is None:
        raise ConfigurationError('entity_frames needs the world its entities are in')
    world_frame, frames = tf_entity_frames(settings, world)
    return EntityTf(node, frames, world_frame, settings.tf_timeout)


def tf_entity_frames(settings: MotionSettings, world: World) -> tuple[str, dict[str, str]]:
    """The frame entity poses are looked up in, and ``{entity: frame}`` of ``entity_frames``.

    The node's raycaster casts these entities in their own scenes from the start
    (``Raycaster(dynamic=)``), so that their first pose from TF rebuilds nothing.

    Raises:
        ConfigurationError: a bad ``entity_frames`` (one line, ``parse_entity_frames``).
    """
    world_frame = settings.entity_world_frame.lstrip('/') or world.name
    return world_frame, parse_entity_frames(
        settings.entity_frames, world.entity_names, world_frame
    )
