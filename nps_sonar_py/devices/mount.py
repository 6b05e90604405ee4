"""Where a device sits on its robot, whose joints may move it: its frame and its elements."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.description import Robot, Sensor, SensorFrame
from nps_sonar_py.devices.interface import Device, RangerGeometry
from nps_sonar_py.transforms import invert_transform, transform_from_xyz_rpy

__all__ = ['RobotMount']


class RobotMount:
    """A device's frame on a robot and its elements' poses in it, following the joints.

    The device frame is either the first sensor's body frame, with ``element_poses`` fixed in
    it (a sonar, a scanner, a scanning sonar, one sonar with element poses), or, when
    ``element_poses`` is ``None``, a frame fixed to the root link at the sensors' centroid (at
    zero joints) with an element at each sensor's body frame (an array of ``<sensor>``).
    Frames are x forward.
    """

    def __init__(
        self,
        robot: Robot,
        sensors: Sequence[Sensor],
        name: str,
        device_frame: str,
        element_frames: Sequence[str],
        element_size: Sequence[float],
        element_poses: NDArray[np.float64] | None = None,
    ) -> None:
        self.robot = robot
        self.sensors = tuple(sensors)
        #: The device's name: the prefix of its topics and services.
        self.name = name
        self.device_frame = device_frame
        self.element_frames = tuple(element_frames)
        self.element_size = tuple(element_size)
        self.element_poses = element_poses
        self._root_from_device: NDArray[np.float64] | None = None
        if element_poses is None:
            bodies = self._bodies({})
            centroid = bodies[:, :3, 3].mean(axis=0)
            self._root_from_device = transform_from_xyz_rpy(centroid, (0.0, 0.0, 0.0))
        self._joints: dict[str, float] | None = None
        self._geometry: RangerGeometry | None = None
        self._geometry = self.geometry({})

    def _bodies(self, joints: Mapping[str, float]) -> NDArray[np.float64]:
        body = SensorFrame.BODY
        return np.array(
            [self.robot.sensor_transform(s.name, joints, frame=body) for s in self.sensors]
        )

    def geometry(self, joint_positions: Mapping[str, float]) -> RangerGeometry:
        """The geometry with joints at ``joint_positions`` (others at 0; unknown ones ignored)."""
        joints = {
            name: float(v) for name, v in joint_positions.items() if name in self.robot.joints
        }
        previous = self._geometry
        if previous is not None and joints == self._joints:
            return previous
        self._joints = joints
        bodies = self._bodies(joints)
        if self._root_from_device is None:
            assert self.element_poses is not None
            root_from_device, poses = bodies[0], self.element_poses
        else:
            root_from_device = self._root_from_device
            poses = np.einsum('ij,kjl->kil', invert_transform(root_from_device), bodies)
        if (
            previous is not None
            and np.array_equal(previous.pose, root_from_device)
            and np.array_equal(previous.element_poses, poses)
        ):
            return previous  # joints that do not carry this device (wheels...)
        self._geometry = RangerGeometry.of_elements(
            self.robot.root_link,
            self.device_frame,
            root_from_device,
            self.element_frames,
            poses,
            self.element_size,
        )
        return self._geometry

    def place(
        self,
        device: Device[Any],
        world_from_root: NDArray[np.float64],
        joints: Mapping[str, float],
    ) -> bool:
        """Put ``device`` where the robot holds it; whether its ``RangerGeometry`` changed."""
        geometry = self.geometry(joints)
        changed = geometry is not device.geometry
        device.geometry = geometry  # first: a sonar array places its elements by it
        device.set_pose(world_from_root @ geometry.pose)
        return changed
