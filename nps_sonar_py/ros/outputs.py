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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from builtin_interfaces.msg import Time
from sensor_msgs.msg import LaserScan, PointCloud2, Range

from nps_sonar import msg as nps_msg
from nps_sonar_py.devices import (
    ArrayReading,
    FanRanger,
    ScannerRanger,
    SingleBeamSonar,
    SonarArray,
    SweepRanger,
    SweepReading,
)
from nps_sonar_py.devices.settings import SonarTopicSettings
from nps_sonar_py.ros.conversions import (
    laser_scan,
    multibeam_message,
    point_cloud,
    range_message,
    ranger_data_message,
    single_beam_scan,
    sonar_point_message,
)
from nps_sonar_py.sensing.multibeam import FanPing
from nps_sonar_py.sensing.scan import ScanReading

if TYPE_CHECKING:
    from nps_sonar_py.ros.device_node import DeviceNode

__all__ = ['OUTPUTS', 'Output', 'outputs_for']


class Output(Protocol):
    """Publishes one reading of its device."""

    def publish(self, reading: Any, stamp: Time) -> None:
        """Publish ``reading``, stamped ``stamp``."""
        ...


class _RangerData:
    """``<device>/ranger``: every kind of device but the single sonar publishes RangerData."""

    def __init__(self, node: DeviceNode) -> None:
        self.node = node
        self.name = node.rig.mount.name
        self.frame = node.rig.device.geometry.device_frame
        self.data = node.create_publisher(nps_msg.RangerData, f'{self.name}/ranger', node.qos)

    def _ranger_data(self, ranges: Any, intensities: Any, stamp: Time) -> None:
        services = self.node.ranger_services
        self.data.publish(
            ranger_data_message(
                ranges,
                intensities,
                geometry=services.geometry_message,
                config=services.config_message,
                stamp=stamp,
                frame_id=self.frame,
            )
        )


class SonarOutput:
    """A single-beam sonar: Range, the one-element LaserScan and SonarPoint, each switchable."""

    def __init__(self, node: DeviceNode) -> None:
        self.node = node
        topics = node.settings[SonarTopicSettings]
        name = node.rig.mount.name
        qos = node.qos
        self.range = node.create_publisher(Range, topics.range_topic or f'{name}/range', qos)
        self.scan = node.create_publisher(LaserScan, topics.scan_topic or f'{name}/scan', qos)
        self.sonar_point = node.create_publisher(
            nps_msg.SonarPoint, topics.sonar_point_topic or f'{name}/sonar_point', qos
        )

    def publish(self, reading: ArrayReading, stamp: Time) -> None:
        """The ping of the sonar's one element on the switched-on topics."""
        device = self.node.rig.device
        assert isinstance(device, SingleBeamSonar)
        switches = self.node.settings[SonarTopicSettings]
        intensities = self.node.ranger_services.intensities
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


class ArrayOutput(_RangerData):
    """An array of sonars: a Range per element in its own frame, and RangerData."""

    def __init__(self, node: DeviceNode) -> None:
        super().__init__(node)
        frames = node.rig.device.geometry.element_frames
        self.ranges = [node.create_publisher(Range, f'{f}/range', node.qos) for f in frames]

    def publish(self, reading: ArrayReading, stamp: Time) -> None:
        """Each element's range, then the RangerData of all."""
        device = self.node.rig.device
        assert isinstance(device, SonarArray)
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
        intensities = reading.intensities if self.node.ranger_services.intensities else None
        self._ranger_data(reading.ranges, intensities, stamp)


class ScanOutput(_RangerData):
    """A scanner: one row as LaserScan, several as an organised PointCloud2; and RangerData."""

    def __init__(self, node: DeviceNode) -> None:
        super().__init__(node)
        device = node.rig.device
        assert isinstance(device, ScannerRanger)
        self.planar = device.config.rows == 1
        if self.planar:
            self.scan = node.create_publisher(LaserScan, f'{self.name}/scan', node.qos)
        else:
            self.cloud = node.create_publisher(PointCloud2, f'{self.name}/points', node.qos)

    def publish(self, reading: ScanReading, stamp: Time) -> None:
        """The scan, then its RangerData."""
        device = self.node.rig.device
        assert isinstance(device, ScannerRanger)
        config = device.ranger_config()
        intensities = reading.intensities if self.node.ranger_services.intensities else None
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


class SweepOutput(_RangerData):
    """A scanning sonar: SonarPoint per step; per sweep a LaserScan and RangerData.

    The sweep's messages are stamped when its first step was transmitted.
    """

    def __init__(self, node: DeviceNode) -> None:
        super().__init__(node)
        self.sonar_point = node.create_publisher(
            nps_msg.SonarPoint, f'{self.name}/sonar_point', node.qos
        )
        self.scan = node.create_publisher(LaserScan, f'{self.name}/scan', node.qos)
        self._sweep_stamp = Time()

    def publish(self, reading: SweepReading, stamp: Time) -> None:
        """The step's ping; the sweep when the step ended one."""
        device = self.node.rig.device
        assert isinstance(device, SweepRanger)
        intensities = self.node.ranger_services.intensities
        self.sonar_point.publish(
            sonar_point_message(
                reading.ping,
                device.echo,
                stamp=stamp,
                frame_id=self.frame,
                rays=len(device.sonar.pattern),
                azimuth=reading.step.angle,
                intensities=intensities,
            )
        )
        if reading.step.position == 0:
            self._sweep_stamp = stamp
        sweep = reading.sweep
        if sweep is None:
            return
        config = device.ranger_config()
        values = sweep.intensities if intensities else None
        self.scan.publish(
            laser_scan(
                sweep.ranges,
                values,
                angle_min=sweep.angle_min,
                angle_increment=sweep.angle_increment,
                time_increment=sweep.time_increment,
                scan_time=sweep.scan_time,
                range_min=config.min_range,
                range_max=config.max_range,
                stamp=self._sweep_stamp,
                frame_id=self.frame,
            )
        )
        self._ranger_data(sweep.ranges, values, self._sweep_stamp)


class FanOutput(_RangerData):
    """A multibeam: LaserScan (one range per beam), MultibeamPing and RangerData per ping."""

    def __init__(self, node: DeviceNode) -> None:
        super().__init__(node)
        self.scan = node.create_publisher(LaserScan, f'{self.name}/scan', node.qos)
        self.fan = node.create_publisher(nps_msg.MultibeamPing, f'{self.name}/multibeam', node.qos)

    def publish(self, reading: FanPing, stamp: Time) -> None:
        """The ping's scan, its beams' profiles, and its RangerData."""
        device = self.node.rig.device
        assert isinstance(device, FanRanger)
        config = device.ranger_config()
        intensities = self.node.ranger_services.intensities
        totals = reading.totals if intensities else None
        self.scan.publish(
            laser_scan(
                reading.ranges,
                totals,
                angle_min=float(reading.azimuths[0]),
                angle_increment=device.sonar.fan.spacing,
                time_increment=0.0,
                scan_time=device.period,
                range_min=config.min_range,
                range_max=config.max_range,
                stamp=stamp,
                frame_id=self.frame,
            )
        )
        self.fan.publish(
            multibeam_message(
                reading,
                device.echo,
                vertical_beam_width=device.sonar.fan.vertical_width,
                stamp=stamp,
                frame_id=self.frame,
                intensities=intensities,
            )
        )
        self._ranger_data(reading.ranges, totals, stamp)


#: The output of each kind of device.
OUTPUTS: dict[type[Any], Callable[[DeviceNode], Output]] = {
    SingleBeamSonar: SonarOutput,
    SonarArray: ArrayOutput,
    ScannerRanger: ScanOutput,
    SweepRanger: SweepOutput,
    FanRanger: FanOutput,
}


def outputs_for(node: DeviceNode) -> Output:
    """The publishers of ``node``'s device."""
    return OUTPUTS[type(node.rig.device)](node)
