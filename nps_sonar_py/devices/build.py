"""Every device built in one place: from a robot and typed settings to a device on its mount.

A node (or a script) reads a robot (:func:`load_robot_from`), gathers the settings records
of its node family in a :class:`Setup` and calls :func:`build_device`, which chooses the kind
(a row of ``devices.kinds.KINDS``: the sonar node's one kind, a ranger node's by the type of
the sensors it selects, a scanning node's by ``mode``), builds it with the kind's builder and
refuses, in one line, a setting of the family that the kind does not use.

A configuration the device refuses is a ``DescriptionError`` located at the sensor's element.
No rclpy here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.ament import share_file
from nps_sonar_py.description import Robot, load_robot, parse_robot
from nps_sonar_py.devices.kinds import (
    Built,
    Family,
    Kind,
    ModeSettings,
    Setup,
    family_kinds,
    family_records,
)
from nps_sonar_py.devices.sensors import pose_problem, select_sensors, sensor_error
from nps_sonar_py.devices.settings import RobotSettings, SelectionSettings
from nps_sonar_py.errors import ConfigurationError, DescriptionError
from nps_sonar_py.transforms import transform_from_xyz_rpy

__all__ = [
    'build_device',
    'choose_kind',
    'load_robot_from',
    'reference_robot_file',
    'reference_world_file',
    'robot_root_pose',
]

# --- files -------------------------------------------------------------------------------------


def reference_robot_file() -> str:
    """The robot of the reference scenario: a sonar at (2.1, 1.0, 1.0) looking along +y."""
    return share_file('config/robots/reference_sonar.urdf')


def reference_world_file() -> str:
    """The reference scenario's world (NPS ``blueview_basement_cylinder``): tank and cylinder."""
    return share_file('config/worlds/reference_tank.world')


def load_robot_from(settings: RobotSettings) -> Robot:
    """The robot of ``robot_description``, else ``robot_description_file`` (or the reference)."""
    if settings.robot_description:
        return parse_robot(settings.robot_description, source='<robot_description>')
    return load_robot(settings.robot_description_file or reference_robot_file())


def robot_root_pose(pose: Sequence[float]) -> NDArray[np.float64]:
    """(4, 4) world <- robot root link of ``[x, y, z, roll, pitch, yaw]``.

    Every value must be finite and within the bounds of ``nps_sonar_py.limits`` (as a pose on
    ``/odom``): a nan, an inf or 1e308 here would reach the raycaster at the first reading
    (every range inf, or the node stopped there), so it is refused at start instead.
    """
    if len(pose) != 6:
        raise ConfigurationError(
            f'robot_pose must be [x, y, z, roll, pitch, yaw], got {list(pose)!r}'
        )
    problem = pose_problem(pose)
    if problem:
        raise ConfigurationError(f'robot_pose {problem}, got {[float(v) for v in pose]!r}')
    return transform_from_xyz_rpy(pose[:3], pose[3:])


# --- building ----------------------------------------------------------------------------------


def choose_kind(robot: Robot, setup: Setup) -> Kind:
    """The kind ``setup`` asks for on ``robot`` (module docstring); an error says why none."""
    kinds = family_kinds(setup.family)
    if setup.family is Family.SCANNING:
        mode = setup[ModeSettings].mode
        return next(k for k in kinds if k.name == mode)  # ModeSettings checked the name
    if setup.family is Family.RANGER:
        sensors = select_sensors(robot, setup[SelectionSettings].sensors)
        types = {s.type for s in sensors}
        for kind in kinds:
            if types == {kind.sensor}:
                return kind
        listed = ', '.join(f'{s.name} ({s.type.value})' for s in sensors)
        raise DescriptionError(
            f'a device is one ray sensor or sonars, not {listed}',
            file=robot.source,
            element='<robot>',
        )
    (kind,) = kinds
    return kind


def build_device(robot: Robot, setup: Setup, *, entities: int = 0) -> Built:
    """The device ``setup`` describes on ``robot``, with its mount, at the robot's zero pose.

    ``entities``: the number of the world's entities, the length of the label table of a
    sensor that labels its cells (``publish_labels``, ``echo.labels``).

    Raises ``DescriptionError`` (a sensor that does not fit, located in the robot's file; a
    setting the kind does not use, located at its sensor) or ``ConfigurationError``
    (settings that contradict each other).
    """
    kind = choose_kind(robot, setup)
    kind.budget(setup)  # before anything is allocated
    mount, device = kind.build(robot, setup, entities)
    try:
        kind.check(setup, family_records(setup.family), family_kinds(setup.family))
    except ConfigurationError as error:
        raise sensor_error(mount.sensors[0], str(error)) from None
    return mount, device
