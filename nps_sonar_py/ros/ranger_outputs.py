"""The outputs of the single-beam sonar, the ranger node's arrays and its scanners.

Ranges as ``Range``, ``LaserScan``, ``SonarPoint`` and point clouds (``ros/conversions.py``),
beside ``RangerData`` (``output_base``).
"""

from __future__ import annotations

from builtin_interfaces.msg import Time
from sensor_msgs.msg import LaserScan, PointCloud2, Range

from nps_sonar import msg as nps_msg
from nps_sonar_py.devices import (
    ArrayReading,
    ScannerRanger,
    SingleBeamSonar,
    SonarArray,
)
from nps_sonar_py.devices.kinds.single_beam import SonarTopicSettings
from nps_sonar_py.ros.context import OutputContext
from nps_sonar_py.ros.conversions import (
    laser_scan,
    point_cloud,
    range_message,
    single_beam_scan,
    sonar_point_message,
)
from nps_sonar_py.ros.output_base import (
    OutputDefaults,
    OutputFactory,
    RangerDataBase,
    part,
)
from nps_sonar_py.sensing.scan import ScanReading

__all__ = ['RANGER_PARTS', 'ArrayOutput', 'ScanOutput', 'SingleBeamOutput']


class SingleBeamOutput(OutputDefaults):
    """A single-beam sonar: Range, the one-element LaserScan and SonarPoint, each switchable."""

    def __init__(
        self, device: SingleBeamSonar, context: OutputContext, topics: SonarTopicSettings
    ) -> None:
        self.device = device
        self.context = context
        self.topics = topics
        name = context.name
        self.range = context.publisher(Range, topics.range_topic or f'{name}/range')
        self.scan = context.publisher(LaserScan, topics.scan_topic or f'{name}/scan')
        self.sonar_point = context.publisher(
            nps_msg.SonarPoint, topics.sonar_point_topic or f'{name}/sonar_point'
        )

    def describe(self) -> str:
        """The rate, rays, beam, range window and estimator; a warning if it pings too fast."""
        device = self.device
        echo = device.echo
        too_fast = device.too_fast()
        if too_fast:
            self.context.logger.warning(f'faster than a real sonar can ping: {too_fast}')
        return (
            f'sonar "{self.context.name}": {device.frequency:g} Hz, {device.n_rays} rays, '
            f'beam {echo.beam_width:.4f} rad ({echo.pattern.value}, {echo.n_way}-way), '
            f'range {echo.min_range:g}..{echo.max_range:g} m, '
            f'{echo.estimator.value} range, frame "{device.geometry.device_frame}"'
        )

    def publish(self, reading: ArrayReading, stamp: Time) -> None:
        """The ping of the sonar's one element on the switched-on topics."""
        device, switches = self.device, self.topics
        intensities = self.context.state.intensities
        ping, echo, frame = reading.pings[0], device.echo, device.geometry.element_frames[0]
        if switches.publish_range:
            self.range.publish(
                range_message(
                    ping.range,
                    field_of_view=device.field_of_view,
                    min_range=echo.min_range,
                    max_range=echo.max_range,
                    stamp=stamp,
                    frame_id=frame,
                )
            )
        if switches.publish_scan:
            self.scan.publish(
                single_beam_scan(
                    ping,
                    echo,
                    stamp=stamp,
                    frame_id=frame,
                    scan_time=device.period,
                    intensities=intensities,
                )
            )
        if switches.publish_sonar_point:
            self.sonar_point.publish(
                sonar_point_message(
                    ping,
                    echo,
                    stamp=stamp,
                    frame_id=frame,
                    rays=device.n_rays,
                    intensities=intensities,
                )
            )


class ArrayOutput(RangerDataBase[SonarArray]):
    """An array of sonars: a Range per element in its own frame, and RangerData."""

    def __init__(self, device: SonarArray, context: OutputContext) -> None:
        super().__init__(device, context)
        frames = device.geometry.element_frames
        self.ranges = [context.publisher(Range, f'{f}/range') for f in frames]

    def publish(self, reading: ArrayReading, stamp: Time) -> None:
        """Each element's range, then the RangerData of all."""
        device = self.device
        config = device.ranger_config()
        elements = device.geometry.element_frames
        for publisher, element, value in zip(self.ranges, elements, reading.ranges, strict=True):
            publisher.publish(
                range_message(
                    float(value),
                    field_of_view=device.field_of_view,
                    min_range=config.min_range,
                    max_range=config.max_range,
                    stamp=stamp,
                    frame_id=element,
                )
            )
        intensities = reading.intensities if self.context.state.intensities else None
        self._ranger_data(reading.ranges, intensities, stamp)


class ScanOutput(RangerDataBase[ScannerRanger]):
    """A scanner: one row as LaserScan, several as an organised PointCloud2; and RangerData."""

    def __init__(self, device: ScannerRanger, context: OutputContext) -> None:
        super().__init__(device, context)
        self.planar = device.config.rows == 1
        if self.planar:
            self.scan = context.publisher(LaserScan, f'{self.name}/scan')
        else:
            self.cloud = context.publisher(PointCloud2, f'{self.name}/points')

    def publish(self, reading: ScanReading, stamp: Time) -> None:
        """The scan, then its RangerData."""
        device = self.device
        config = device.ranger_config()
        intensities = reading.intensities if self.context.state.intensities else None
        if self.planar:
            axis = device.scanner.horizontal
            self.scan.publish(
                laser_scan(
                    reading.ranges[0],
                    None if intensities is None else intensities[0],
                    angle_min=axis.reading_angles[0],
                    angle_increment=axis.increment,
                    time_increment=0.0,
                    scan_time=device.period,
                    range_min=config.min_range,
                    range_max=config.max_range,
                    stamp=stamp,
                    frame_id=self.frame,
                )
            )
        else:
            self.cloud.publish(
                point_cloud(reading.points(), intensities, stamp=stamp, frame_id=self.frame)
            )
        self._ranger_data(reading.ranges, intensities, stamp)


#: The ranger node's and the sonar node's rows of ``outputs.PARTS``.
RANGER_PARTS: dict[str, OutputFactory] = {
    'single_beam': part(
        SingleBeamSonar, lambda d, c, s: SingleBeamOutput(d, c, s[SonarTopicSettings])
    ),
    'array': part(SonarArray, lambda d, c, _: ArrayOutput(d, c)),
    'scanner': part(ScannerRanger, lambda d, c, _: ScanOutput(d, c)),
}
