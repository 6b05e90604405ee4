"""Which world entities follow a TF frame: the ``entity_frames`` setting, read and checked.

A Gazebo simulation publishes the pose of each model it is told to (gz-sim's ``PosePublisher``
with ``<publish_model_pose>``) as the transform *world name* -> *model name*; ``ros_gz_bridge``
carries it to ``/tf`` with the frame names as they are (``::`` becomes ``/``). A world read
from the same SDF file has one entity per top-level model, of the same name, placed in the
model's frame. So the setting lists entities, each following the frame of its own name unless
one is given::

    buoy, ring_buoy=ring_buoy_frame

This module is the pure part: text in, a checked mapping out (``ros/entity_tf.py`` looks the
frames up). Nothing here imports ROS.
"""

from __future__ import annotations

from collections.abc import Collection

from nps_sonar_py.errors import ConfigurationError

__all__ = ['parse_entity_frames']


def parse_entity_frames(text: str, entities: Collection[str], world_frame: str) -> dict[str, str]:
    """``{entity: frame}`` of ``text``: comma-separated ``entity`` or ``entity=frame`` items.

    A frame defaults to the entity's name; a leading ``/`` is dropped, as tf2 does. Empty
    text follows nothing.

    Raises:
        ConfigurationError: one line naming the item and the problem: an empty item, entity
            or frame, an entity the world does not have (the known ones listed), an entity
            named twice, or a frame that is ``world_frame`` (the frame poses are looked up in).
    """
    frames: dict[str, str] = {}
    if not text.strip():
        return frames
    known = set(entities)
    for item in text.split(','):
        entity, equals, frame = (part.strip() for part in item.partition('='))
        frame = (frame if equals else entity).lstrip('/')
        problem = None
        if not entity:
            problem = 'no entity named'
        elif not frame:
            problem = 'an empty frame'
        elif entity not in known:
            listed = ', '.join(sorted(known)[:20]) + (', ...' if len(known) > 20 else '')
            problem = f'the world has no entity {entity!r} (its entities: {listed or "none"})'
        elif entity in frames:
            problem = f'entity {entity!r} is named twice'
        elif frame == world_frame:
            problem = f'frame {frame!r} is the world frame the poses are looked up in'
        if problem is not None:
            raise ConfigurationError(f'entity_frames: item {item.strip()!r}: {problem}')
        frames[entity] = frame
    return frames
