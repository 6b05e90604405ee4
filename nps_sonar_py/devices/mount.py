"""Where a device sits on its robot, whose joints may move it: its frame and its elements.

Two kinds of mount, one type each:

* :class:`SensorMount`: the device frame is one sensor's body frame, with the elements at
  fixed poses in it (a sonar, a scanner, a scanning sonar, one sonar with ``element_poses``).
* :class:`ArrayMount`: an array of ``<sensor>``: an element at each sensor's body frame, and
  the device frame fixed to the root link at their centroid (at zero joints).

Both give the device's :class:`RangerGeometry` at the robot's joint positions and the fixed
frames its messages are stamped in (:meth:`RobotMount.frames`, for ``/tf_static``). Frames
are x forward.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.description import Robot, Sensor, SensorFrame
from nps_sonar_py.devices.interface import Device, RangerGeometry
from nps_sonar_py.transforms import invert_transform, transform_from_xyz_rpy

__all__ = ['ArrayMount', 'FrameTransform', 'RobotMount', 'SensorMount']


class FrameTransform(NamedTuple):
    """A transform ``parent <- child``: the pose of frame ``child`` in frame ``parent``."""

    parent: str
    child: str
    transform: NDArray[np.float64]


class RobotMount(ABC):
    """A device's frame on a robot and its elements' poses in it, following the joints."""

    def __init__(
        self,
        robot: Robot,
        sensors: Sequence[Sensor],
        name: str,
        device_frame: str,
        element_frames: Sequence[str],
        element_size: Sequence[float],
    ) -> None:
        self.robot = robot
        self.sensors = tuple(sensors)
        #: The device's name: the prefix of its topics and services.
        self.name = name
        self.device_frame = device_frame
        self.element_frames = tuple(element_frames)
        self.element_size = tuple(element_size)
        self._joints: dict[str, float] | None = None
        self._geometry: RangerGeometry | None = None

    def _bodies(self, joints: Mapping[str, float]) -> NDArray[np.float64]:
        """(k, 4, 4) ``root_from_body`` of each sensor at ``joints``."""
        body = SensorFrame.BODY
        return np.array(
            [self.robot.sensor_transform(s.name, joints, frame=body) for s in self.sensors]
        )

    @abstractmethod
    def _poses(
        self, bodies: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``root_from_device`` and (k, 4, 4) ``device_from_element`` of the sensors' bodies."""

    @abstractmethod
    def frames(self, geometry: RangerGeometry) -> list[FrameTransform]:
        """The fixed frames of the device, each from the link (or frame) that carries it.

        ``geometry`` is the device's current one (an array's frame is read from its pose).
        """

    def geometry(self, joint_positions: Mapping[str, float]) -> RangerGeometry:
        """The geometry with joints at ``joint_positions`` (others at 0; unknown ones ignored)."""
        joints = {
            name: float(v) for name, v in joint_positions.items() if name in self.robot.joints
        }
        previous = self._geometry
        if previous is not None and joints == self._joints:
            return previous
        self._joints = joints
        root_from_device, poses = self._poses(self._bodies(joints))
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


class SensorMount(RobotMount):
    """A device whose frame is ``sensor``'s body frame, its elements at ``element_poses`` in it.

    ``element_poses``: (k, 4, 4) ``device_from_element``, one per name of ``element_frames``.
    """

    def __init__(
        self,
        robot: Robot,
        sensor: Sensor,
        name: str,
        device_frame: str,
        element_frames: Sequence[str],
        element_size: Sequence[float],
        element_poses: NDArray[np.float64],
    ) -> None:
        super().__init__(robot, (sensor,), name, device_frame, element_frames, element_size)
        self.element_poses = np.asarray(element_poses, dtype=np.float64)
        self._geometry = self.geometry({})

    def _poses(
        self, bodies: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return bodies[0], self.element_poses

    def frames(self, geometry: RangerGeometry) -> list[FrameTransform]:
        """The sensor's link -> the device frame, the device frame -> each element's."""
        sensor = self.sensors[0]
        return [
            FrameTransform(sensor.parent_link, self.device_frame, sensor.body_origin),
            *(
                FrameTransform(self.device_frame, frame, pose)
                for frame, pose in zip(self.element_frames, self.element_poses, strict=True)
            ),
        ]


class ArrayMount(RobotMount):
    """An array of ``sensors``, an element each, in a frame on the root link at their centroid."""

    def __init__(
        self,
        robot: Robot,
        sensors: Sequence[Sensor],
        name: str,
        device_frame: str,
        element_frames: Sequence[str],
        element_size: Sequence[float],
    ) -> None:
        super().__init__(robot, sensors, name, device_frame, element_frames, element_size)
        centroid = self._bodies({})[:, :3, 3].mean(axis=0)
        self._root_from_device = transform_from_xyz_rpy(centroid, (0.0, 0.0, 0.0))
        self._geometry = self.geometry({})

    def _poses(
        self, bodies: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        device_from_root = invert_transform(self._root_from_device)
        return self._root_from_device, np.einsum('ij,kjl->kil', device_from_root, bodies)

    def frames(self, geometry: RangerGeometry) -> list[FrameTransform]:
        """Each sensor's link -> its element's frame; the root link -> the array's frame."""
        return [
            *(
                FrameTransform(sensor.parent_link, frame, sensor.body_origin)
                for sensor, frame in zip(self.sensors, self.element_frames, strict=True)
            ),
            FrameTransform(self.robot.root_link, self.device_frame, geometry.pose),
        ]
