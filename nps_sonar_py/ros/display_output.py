"""The device-encoded image of a fan or a side-scan: its display chain's codes, per ping.

Published beside the linear outputs (``image_polar``, ``raw_image``, which stay as they are)
while the device runs a display chain (``display``, ``devices/display.py``) and
``publish_display`` is on, with intensities on:

* a fan (``FanRanger``): ``<device>/display_image``, ``sensor_msgs/Image`` of the chain's
  codes, ``mono8`` (an Oculus' 8-bit gamma) or ``mono16``, laid out as ``image_polar``: a
  row per stored sample, far range at the top, a column per beam, port (the largest
  azimuth) on the left;
* a side-scan (``SidescanRanger``): ``<device>/display_line``, one ``mono16`` (or ``mono8``)
  row per ping as an XTF record stores it: the port channel far to near, then starboard
  near to far, each over slant range ``0..max_range``.

``docs/display.md`` gives the chains; ``sonar_record`` writes these topics as the field's
files (``--xtf``, ``--oculus``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from builtin_interfaces.msg import Time
from numpy.typing import NDArray
from sensor_msgs.msg import Image

from nps_sonar_py.devices import FanRanger, SidescanRanger
from nps_sonar_py.devices.display import DisplaySettings
from nps_sonar_py.devices.pinging import PingingRanger
from nps_sonar_py.ros.context import OutputContext
from nps_sonar_py.ros.conversions import image_message
from nps_sonar_py.ros.output_base import OutputDefaults

__all__ = ['DISPLAY_TOPICS', 'DisplayOutput', 'fan_codes', 'line_codes']

Codes = NDArray[np.unsignedinteger]


def fan_codes(codes: Codes) -> Codes:
    """(beams, samples) codes as ``image_polar`` lays a fan out (``sensing.images.polar_image``).

    Far range at the top, port (the last beam, the largest azimuth) on the left.
    """
    image: Codes = np.ascontiguousarray(np.asarray(codes)[::-1, ::-1].T)
    return image


def line_codes(codes: Codes) -> Codes:
    """(2, samples) port and starboard codes as one row: port far to near, starboard after."""
    line: Codes = np.concatenate((codes[0, ::-1], codes[1]))[np.newaxis, :]
    return line


#: The topic (under ``<device>/``) and the layout of each kind's device-encoded image.
DISPLAY_TOPICS: dict[type[Any], tuple[str, Callable[[Codes], Codes]]] = {
    FanRanger: ('display_image', fan_codes),
    SidescanRanger: ('display_line', line_codes),
}


class DisplayOutput(OutputDefaults):
    """``<device>/display_image`` or ``<device>/display_line`` (module docstring), per ping."""

    def __init__(
        self, device: PingingRanger[Any], context: OutputContext, settings: DisplaySettings
    ) -> None:
        self.device = device
        self.context = context
        self.image = None
        topic, self.layout = DISPLAY_TOPICS[type(device)]
        if settings.on and settings.publish_display:
            self.image = context.publisher(Image, f'{context.name}/{topic}')

    def describe(self) -> str:
        """The topic and the chain, when published."""
        if self.image is None or self.device.display is None:
            return ''
        chain = self.device.display.chain(self.device.echo)
        return (
            f'display chain {chain.name} on {self.image.topic_name}: {chain.samples} samples '
            f'to {chain.max_range:g} m, {np.dtype(chain.dtype).name}'
        )

    def publish(self, reading: Any, stamp: Time) -> None:
        """The reading's codes, with intensities on."""
        if self.image is None or not self.context.state.intensities:
            return
        shown = self.device.displayed(reading)
        if shown is None:
            return
        pixels = self.layout(shown.codes)
        self.image.publish(image_message(pixels, stamp=stamp, frame_id=self.context.frame))
