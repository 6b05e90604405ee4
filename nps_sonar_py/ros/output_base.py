"""What every output of a device shares: the ``Output`` protocol, ``RangerData``, its frames.

The base of the kinds' outputs (``ros/outputs.py`` is their table): ``RangerDataBase``
publishes ``<device>/ranger``; ``acoustic_frame`` and ``frd_frame`` are the fixed frames the
marine messages are in (``docs/marine.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

from builtin_interfaces.msg import Time

from nps_sonar import msg as nps_msg
from nps_sonar_py.devices import (
    Device,
)
from nps_sonar_py.devices.mount import FrameTransform
from nps_sonar_py.ros.context import OutputContext
from nps_sonar_py.ros.conversions import (
    ranger_data_message,
)
from nps_sonar_py.ros.marine import (
    ACOUSTIC_FROM_BODY,
    FRD_FROM_BODY,
)
from nps_sonar_py.ros.params import Settings
from nps_sonar_py.transforms import matrix_from_quaternion, transform_from

__all__ = [
    'Output',
    'OutputDefaults',
    'OutputFactory',
    'RangerDataBase',
    'acoustic_frame',
    'frd_frame',
    'part',
]


DeviceT = TypeVar('DeviceT', bound=Device[Any])


class Output(Protocol):
    """Publishes one reading of its device."""

    def publish(self, reading: Any, stamp: Time) -> None:
        """Publish ``reading``, stamped ``stamp``."""
        ...

    def refusal(self) -> str | None:
        """Why the device's present configuration cannot be published, or None."""
        ...

    def describe(self) -> str:
        """One line on the device, logged at start and after a change."""
        ...

    def frames(self) -> list[FrameTransform]:
        """Frames of this output's messages besides the device's, for ``/tf_static``."""
        ...


class OutputDefaults:
    """What an output says when it has nothing to say: no refusal, no frame of its own."""

    def refusal(self) -> str | None:
        """Every configuration of the device can be published."""
        return None

    def frames(self) -> list[FrameTransform]:
        """No frame but the device's."""
        return []


class RangerDataBase(OutputDefaults, Generic[DeviceT]):
    """``<device>/ranger``: every kind of device but the single sonar publishes RangerData."""

    def __init__(self, device: DeviceT, context: OutputContext) -> None:
        self.device = device
        self.context = context
        self.name = context.name
        self.frame = context.frame
        self.data = context.publisher(nps_msg.RangerData, f'{self.name}/ranger')

    def describe(self) -> str:
        """The device's kind, name, angles, ranges, rate and frame."""
        device = self.device
        c = device.ranger_config()
        return (
            f'{type(device).__name__} "{self.name}": '
            f'{c.min_angle:.4f}..{c.max_angle:.4f} rad every {c.angular_resolution:.6f} rad, '
            f'{c.min_range:g}..{c.max_range:g} m, {c.frequency:g} readings/s, '
            f'frame "{device.geometry.device_frame}"'
        )

    def _ranger_data(self, ranges: Any, intensities: Any, stamp: Time) -> None:
        state = self.context.state
        self.data.publish(
            ranger_data_message(
                ranges,
                intensities,
                geometry=state.geometry_message,
                config=state.config_message,
                stamp=stamp,
                frame_id=self.frame,
            )
        )


def acoustic_frame(context: OutputContext) -> FrameTransform:
    """``<frame>_acoustic`` (z forward, x up, y starboard), the projected image's frame."""
    turn = transform_from(matrix_from_quaternion(*ACOUSTIC_FROM_BODY), (0.0, 0.0, 0.0))
    return FrameTransform(context.frame, f'{context.frame}_acoustic', turn)


def frd_frame(context: OutputContext) -> FrameTransform:
    """``<frame>_frd`` (x forward, y starboard, z down), the raw image's and detections' frame."""
    turn = transform_from(matrix_from_quaternion(*FRD_FROM_BODY), (0.0, 0.0, 0.0))
    return FrameTransform(context.frame, f'{context.frame}_frd', turn)


#: Makes an output of a device from the node's context and settings.
OutputFactory = Callable[[Any, OutputContext, Settings], Output]
D = TypeVar('D')


def part(device: type[D], make: Callable[[D, OutputContext, Settings], Output]) -> OutputFactory:
    """A row of ``outputs.PARTS``; mypy checks that ``make`` takes a ``device``."""
    return make  # type: ignore[return-value]
