"""What each kind of device publishes per reading: the ROS layer's one table of device kinds.

Topics are relative (namespaces and remapping apply); ``<device>`` is the device's name,
``<element>`` an element's frame.

| device | per reading |
| --- | --- |
| ``SingleBeamSonar`` | ``<sensor>/range``, ``/scan`` (one element), ``/sonar_point`` (switches) |
| ``SonarArray`` | ``<element>/range`` per element, ``<device>/ranger`` (``RangerData``) |
| ``ScannerRanger`` | ``<device>/scan`` (one row) or ``<device>/points``, ``<device>/ranger`` |
| ``SweepRanger`` | ``<device>/sonar_point`` per step; ``<device>/scan``, ``/ranger`` per sweep |
| ``FanRanger`` | ``<device>/scan``, ``<device>/multibeam``, ``<device>/ranger`` |
| ``SidescanRanger`` | ``<device>/ranger``, ``/raw_image``; ``<device>/waterfall`` per line |
| ``EchosounderRanger`` | ``<device>/soundings``, ``<device>/detections`` (switches), ``/ranger`` |

Both scanning kinds also publish, each switched by ``ImageSettings``, ``sensor_msgs/Image``s
after their other messages: ``<device>/image_polar`` (32FC1), ``<device>/image_polar_db``
(mono8/mono16) and ``<device>/image`` (Cartesian); a sweep's are of its latest sweep, per
sweep or per step (``sensing/images.py`` gives the pixel conventions). A multibeam also
publishes, last, ``<device>/projected_image`` (``marine_acoustic_msgs/ProjectedSonarImage``,
``publish_projected_image``) in the frame ``<frame>_acoustic``, which its node puts on
``/tf_static`` (``Output.frames``; docs/marine.md). With ``publish_labels``,
the label images ``<device>/labels_polar`` and ``<device>/labels`` (mono16) go out with them,
of the same cells and stamp (``docs/labels.md``); the node publishes the label table once,
latched, on ``<device>/label_names``.

A side-scan publishes per ping ``<device>/raw_image`` (``marine_acoustic_msgs/RawSonarImage``:
beam 0 port, 1 starboard, slant-range samples; ``publish_raw_image``) in the frame
``<frame>_frd`` (x forward, y starboard, z down), and ``<device>/waterfall``
(``sensor_msgs/Image``, ``publish_waterfall``) each time the waterfall gains a line
(``sensing/waterfall.py`` gives the pixel conventions).
With a display chain (``display``, ``devices/display.py``; ``publish_display``) a fan also
publishes ``<device>/display_image`` and a side-scan ``<device>/display_line``: the device's
own codes (mono8 or mono16) beside the linear images (``ros/display_output.py``, docs/display.md).
An echosounder's ``<device>/detections`` (``SonarDetections``) are in ``<frame>_frd`` too.
Every kind but the ranger node's arrays and scanners publishes, with the coherent model and
``publish_baseband``, ``<device>/baseband`` per ping (a sweep: per step), last
(:class:`BasebandOutput`).

Each output is made of its device, the node's :class:`~nps_sonar_py.ros.context.OutputContext`
and the settings records it needs (:data:`OUTPUTS`); a node that applies new settings makes
a new output of them (its publishers are kept). Each also gives the line the node logs on
its device at start and after a change (``describe``).
"""

from __future__ import annotations

from typing import Any

from builtin_interfaces.msg import Time

from nps_sonar_py.devices import (
    Device,
)
from nps_sonar_py.devices.kinds import kind_of
from nps_sonar_py.devices.mount import FrameTransform
from nps_sonar_py.ros.context import OutputContext
from nps_sonar_py.ros.output_base import (
    Output,
    OutputFactory,
    RangerDataBase,
)
from nps_sonar_py.ros.params import Settings
from nps_sonar_py.ros.ranger_outputs import (
    RANGER_PARTS,
)
from nps_sonar_py.ros.sonar_outputs import (
    SONAR_PARTS,
)

__all__ = ['PARTS', 'Output', 'OutputFactory', 'RangerDataOutput', 'outputs_for']


class RangerDataOutput(RangerDataBase[Device[Any]]):
    """``<device>/ranger`` alone: a kind whose readings have ``ranges`` and ``intensities``.

    The output of a kind that publishes no message of its own: its readings' ``ranges`` (m)
    and ``intensities``, one per beam, as ``RangerData``.
    """

    def publish(self, reading: Any, stamp: Time) -> None:
        """The reading's ranges and (with intensities on) intensities."""
        intensities = reading.intensities if self.context.state.intensities else None
        self._ranger_data(reading.ranges, intensities, stamp)


class _Outputs:
    """The outputs a kind offers, as one: each publishes in turn (``Kind.outputs`` order)."""

    def __init__(self, parts: list[Output]) -> None:
        self.parts = parts

    def publish(self, reading: Any, stamp: Time) -> None:
        """Every part's messages of ``reading``."""
        for part in self.parts:
            part.publish(reading, stamp)

    def refusal(self) -> str | None:
        """The first part's reason not to publish the present configuration, or None."""
        return next((r for r in (p.refusal() for p in self.parts) if r), None)

    def describe(self) -> str:
        """The first part's line on the device."""
        return self.parts[0].describe()

    def frames(self) -> list[FrameTransform]:
        """Every part's frames, each child frame once (two parts may share the acoustic one)."""
        frames = {frame.child: frame for part in self.parts for frame in part.frames()}
        return list(frames.values())


#: Each output a kind may offer (``Kind.outputs``), by name, with the settings it takes: each
#: module of outputs gives its rows.
PARTS: dict[str, OutputFactory] = {
    'ranger': lambda d, c, _: RangerDataOutput(d, c),
    **RANGER_PARTS,
    **SONAR_PARTS,
}


def outputs_for(device: Device[Any], context: OutputContext, settings: Settings) -> Output:
    """The outputs of ``device``'s kind in the node of ``context`` and ``settings``."""
    parts = [PARTS[name](device, context, settings) for name in kind_of(device).outputs]
    return parts[0] if len(parts) == 1 else _Outputs(parts)
