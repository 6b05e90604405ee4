"""Parameters of the nodes: one table of names, defaults, descriptions, bounds and flags.

The table drives ``declare_parameter`` with a ``ParameterDescriptor`` each, so that
``config/*.yaml``, the launch files, the tests and ``ros2 param describe`` agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor
from rclpy.node import Node

__all__ = ['SONAR_PARAMETERS', 'ParameterSpec', 'declare_all', 'read_all']


@dataclass(frozen=True)
class ParameterSpec:
    """One parameter: name, default (which fixes its type), description, bounds, read-only flag."""

    name: str
    default: Any
    description: str
    low: float | None = None
    high: float | None = None
    read_only: bool = False

    def descriptor(self) -> ParameterDescriptor:
        """The rcl descriptor: description, range (enforced by rclpy), read-only flag."""
        descriptor = ParameterDescriptor(description=self.description, read_only=self.read_only)
        if self.low is not None and self.high is not None:
            if isinstance(self.default, bool):
                pass
            elif isinstance(self.default, int):
                descriptor.integer_range = [IntegerRange(from_value=int(self.low), to_value=int(self.high), step=1)]
            elif isinstance(self.default, float):
                descriptor.floating_point_range = [
                    FloatingPointRange(from_value=float(self.low), to_value=float(self.high), step=0.0),
                ]
        return descriptor


SONAR_PARAMETERS: tuple[ParameterSpec, ...] = (
    ParameterSpec(
        'robot_description_file', '',
        'URDF or xacro file of the robot carrying the sensor; empty: the reference robot',
        read_only=True,
    ),
    ParameterSpec(
        'robot_description', '',
        'URDF of the robot as a string (as robot_state_publisher takes it); wins over robot_description_file',
        read_only=True,
    ),
    ParameterSpec(
        'scene_file', '', 'scene file of the world (models and scene_state); empty: the reference tank',
        read_only=True,
    ),
    ParameterSpec('sensor', '', 'name of the <sensor type="sonar"> to simulate; empty: the first one', read_only=True),
    ParameterSpec(
        'robot_pose', [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        'pose of the robot root link in the world: x y z [m] roll pitch yaw [rad]', read_only=True,
    ),
    ParameterSpec('rays', 500, 'rays cast per ping, filling the cone at equal solid angle', 1, 1_000_000, read_only=True),
    ParameterSpec(
        'update_rate', 0.0, 'pings per second; 0: the <sensor update_rate>, or 10 Hz if it has none',
        0.0, 1000.0, read_only=True,
    ),
    ParameterSpec('frame_id', '', 'frame_id of the messages; empty: the sensor name', read_only=True),
)


def declare_all(node: Node, specs: tuple[ParameterSpec, ...]) -> None:
    """Declare every parameter of ``specs`` on ``node`` with its descriptor."""
    for spec in specs:
        node.declare_parameter(spec.name, spec.default, spec.descriptor())


def read_all(node: Node, specs: tuple[ParameterSpec, ...]) -> dict[str, Any]:
    """Current values of ``specs`` as a plain dict (arrays as lists)."""
    values: dict[str, Any] = {}
    for spec in specs:
        value = node.get_parameter(spec.name).value
        values[spec.name] = list(value) if isinstance(value, (list, tuple)) or hasattr(value, 'tolist') else value
    return values
