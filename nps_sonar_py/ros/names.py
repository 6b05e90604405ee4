"""Topic names checked before a node makes any publisher, subscription or service.

rclpy checks a name only when it is used, and some of its failures surface as a
``ValueError`` with a chained ``RCLError`` (an unknown substitution such as ``/{x}``), not as
a name error. :func:`check_topics` resolves every name a device node will use - each
non-empty ``*_topic`` parameter, and the names made from the device's and its beams' names -
the way rclpy will (expansion of ``~`` and ``{node}``, remapping), with rclpy's own
validation, and refuses the first bad one as a :class:`ConfigurationError` naming where it
came from: one line, exit status 2 (``ros/startup.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from nps_sonar_py.errors import ConfigurationError, error_line
from nps_sonar_py.ros.startup import rcl_error

if TYPE_CHECKING:
    from rclpy.node import Node

__all__ = ['TOPIC_SUFFIX', 'check_topics', 'device_topics', 'resolve_topic']

#: The parameters whose values are topic names end with this.
TOPIC_SUFFIX = '_topic'


def resolve_topic(node: Node, name: str, *, is_service: bool = False) -> str:
    """``name`` expanded and remapped as ``node`` would use it.

    Raises:
        ConfigurationError: the name rclpy would refuse, and why (without saying where from).
    """
    from rclpy.exceptions import InvalidServiceNameException, InvalidTopicNameException
    from rclpy.validate_full_topic_name import validate_full_topic_name
    from rclpy.validate_topic_name import validate_topic_name

    try:
        validate_topic_name(name, is_service=is_service)  # its message points at the character
        resolved = (node.resolve_service_name if is_service else node.resolve_topic_name)(name)
        validate_full_topic_name(resolved, is_service=is_service)
    except (InvalidTopicNameException, InvalidServiceNameException) as error:
        raise ConfigurationError(error_line(error)) from None
    except rcl_error() as error:  # an unknown substitution, '//', empty once expanded
        raise ConfigurationError(f'{name!r}: {error_line(error)}') from None
    return str(resolved)


def check_topics(node: Node, names: Mapping[str, str]) -> None:
    """Resolve each of ``names`` (where it comes from -> topic name) as ``node`` would.

    Raises:
        ConfigurationError: ``<where>: <why>`` for the first name rclpy would refuse.
    """
    for where, name in names.items():
        try:
            resolve_topic(node, name)
        except ConfigurationError as error:
            raise ConfigurationError(f'{where}: {error}') from None


def device_topics(records: Iterable[Any], device: str, beams: Iterable[str]) -> dict[str, str]:
    """The names a device node will use, by where they come from.

    ``records``: the node's settings records (dataclasses); every non-empty field
    ending in :data:`TOPIC_SUFFIX` is a topic. ``device``: the device's name, the namespace of its
    topics and services (``<device>/ranger``); ``beams``: its beams' frames (``<beam>/markers``).
    """
    names: dict[str, str] = {}
    for record in records:
        for item in fields(record):
            value = getattr(record, item.name)
            if item.name.endswith(TOPIC_SUFFIX) and isinstance(value, str) and value:
                names[item.name] = value
    names[f'device name {device!r}'] = f'{device}/ranger'
    for beam in beams:
        names[f'beam frame {beam!r}'] = f'{beam}/markers'
    return names
