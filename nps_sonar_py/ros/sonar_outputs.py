"""The outputs of the scanning node's kinds: sweep, fan, side-scan, echosounder, baseband.

Each publishes its kind's messages per reading (``ros/outputs.py`` has the table and the
topics); the images are ``image_outputs``', the marine messages ``ros/marine.py``'s and
``ros/soundings.py``'s. The baseband is any coherent kind's: its beams are the kind's own
(``BasebandSource.baseband_beams``), its samples the reading's echo record's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from builtin_interfaces.msg import Time
from marine_acoustic_msgs.msg import RawSonarImage, SonarDetections
from numpy.typing import NDArray
from sensor_msgs.msg import Image, LaserScan, PointCloud2
from std_msgs.msg import Header

from nps_sonar import msg as nps_msg
from nps_sonar_py.devices import (
    EchosounderRanger,
    FanRanger,
    SidescanRanger,
    SidescanReading,
    SweepRanger,
    SweepReading,
    SweepScan,
)
from nps_sonar_py.devices.display import DisplaySettings
from nps_sonar_py.devices.interface import BasebandFrame, BasebandSource
from nps_sonar_py.devices.kinds.echosounder import EchosounderSettings
from nps_sonar_py.devices.kinds.sidescan import SidescanSettings
from nps_sonar_py.devices.kinds.sweep import SweepImage
from nps_sonar_py.devices.mount import FrameTransform
from nps_sonar_py.devices.settings import (
    CoherentSettings,
    ImageEncoding,
    ImageSettings,
    SweepImageUpdate,
)
from nps_sonar_py.ros.context import OutputContext
from nps_sonar_py.ros.conversions import (
    image_message,
    laser_scan,
    multibeam_message,
    sonar_point_message,
)
from nps_sonar_py.ros.display_output import DisplayOutput
from nps_sonar_py.ros.image_outputs import (
    ProjectedImage,
    SonarImages,
)
from nps_sonar_py.ros.marine import (
    MarineImageFormat,
    baseband_image,
    raw_sonar_image,
)
from nps_sonar_py.ros.output_base import (
    OutputDefaults,
    OutputFactory,
    RangerDataBase,
    acoustic_frame,
    frd_frame,
    part,
)
from nps_sonar_py.ros.soundings import sonar_detections, soundings_cloud
from nps_sonar_py.sensing.echosounder import EchosounderPing
from nps_sonar_py.sensing.images import (
    DbWindow,
    db_pixels,
)
from nps_sonar_py.sensing.multibeam import FanPing

__all__ = [
    'SONAR_PARTS',
    'BasebandOutput',
    'EchosounderOutput',
    'FanOutput',
    'SidescanOutput',
    'SweepOutput',
]


class SweepOutput(RangerDataBase[SweepRanger]):
    """A scanning sonar: SonarPoint per step; per sweep a LaserScan and RangerData.

    The sweep's messages are stamped when its first step was transmitted.
    """

    def __init__(self, device: SweepRanger, context: OutputContext, images: ImageSettings) -> None:
        super().__init__(device, context)
        self.sonar_point = context.publisher(nps_msg.SonarPoint, f'{self.name}/sonar_point')
        self.scan = context.publisher(LaserScan, f'{self.name}/scan')
        self._sweep_stamp = Time()
        self.images = SonarImages(context, images, device.image_geometry())
        self._image = SweepImage()  # the latest sweep's profiles, kept across pings

    def refusal(self) -> str | None:
        """Why the sweep's images could not be made, or None."""
        if not self.images.settings.any_image:
            return None
        return self.images.problem(self.device.image_geometry())

    def publish(self, reading: SweepReading, stamp: Time) -> None:
        """The step's ping; the sweep when the step ended one."""
        device = self.device
        intensities = self.context.state.intensities
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
        if reading.sweep is not None:
            self._publish_sweep(reading.sweep)
        self._publish_images(reading, stamp)

    def _publish_sweep(self, sweep: SweepScan) -> None:
        """The finished sweep's LaserScan and RangerData."""
        intensities = self.context.state.intensities
        config = self.device.ranger_config()
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

    def _publish_images(self, reading: SweepReading, stamp: Time) -> None:
        """Keep the step's profile; publish the sweep's images per step or at its end."""
        settings = self.images.settings
        if not settings.any_image:
            return
        per_step = settings.sweep_image_update is SweepImageUpdate.STEP
        kept = self._image.add(self.device, reading, self.images.problem, settings.publish_labels)
        if not kept:
            if per_step or reading.sweep is not None:
                self.images.warn(self.images.problem(self.device.image_geometry()) or '')
            return
        if per_step or reading.sweep is not None:
            self.images.publish(
                self._image.profiles,
                self.device.image_geometry(),
                self.device.sonar.echo.source_level,
                stamp if per_step else self._sweep_stamp,
                self._image.labels,
            )


class FanOutput(RangerDataBase[FanRanger]):
    """A multibeam: LaserScan (one range per beam), MultibeamPing and RangerData per ping."""

    def __init__(self, device: FanRanger, context: OutputContext, images: ImageSettings) -> None:
        super().__init__(device, context)
        self.scan = context.publisher(LaserScan, f'{self.name}/scan')
        self.fan = context.publisher(nps_msg.MultibeamPing, f'{self.name}/multibeam')
        self.images = SonarImages(context, images, device.image_geometry())
        self.projected = ProjectedImage(context, images)

    def frames(self) -> list[FrameTransform]:
        """The acoustic frame of the projected image, while it is published."""
        return self.projected.frames()

    def refusal(self) -> str | None:
        """Why the fan's images could not be made, or None."""
        if not self.images.settings.any_image:
            return None
        return self.images.problem(self.device.image_geometry())

    def publish(self, reading: FanPing, stamp: Time) -> None:
        """The ping's scan, its beams' profiles, and its RangerData."""
        device = self.device
        config = device.ranger_config()
        intensities = self.context.state.intensities
        totals = reading.totals if intensities else None
        self.scan.publish(
            laser_scan(
                reading.ranges,
                totals,
                angle_min=float(reading.azimuths[0]),
                angle_increment=device.sonar.fan.scan_step,
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
        if self.images.settings.any_image:
            self.images.publish(
                reading.profiles,
                device.image_geometry(),
                device.echo.source_level,
                stamp,
                reading.labels,
            )
        self.projected.publish(reading, device, stamp)


class SidescanOutput(RangerDataBase[SidescanRanger]):
    """A side-scan: RangerData and RawSonarImage per ping, the waterfall per new line.

    ``RangerData`` holds per channel (port, then starboard) the reading's ``ranges`` (the
    slant range of the first bin with an echo, inf: none) and ``intensities`` (the channel's
    total). The ``RawSonarImage`` is always in slant range (it is the raw ping);
    ``ground_range`` changes only the waterfall, which the device keeps (``devices/kinds/
    sidescan.py``): its image goes out when a reading says the ping added a line.
    """

    def __init__(
        self,
        device: SidescanRanger,
        context: OutputContext,
        images: ImageSettings,
        settings: SidescanSettings,
    ) -> None:
        super().__init__(device, context)
        self.images = images
        self.window = DbWindow(images.image_db_min, images.image_db_max, images.image_db_bits)
        self.raw = self.waterfall_image = None
        if settings.publish_raw_image:
            self.raw = context.publisher(RawSonarImage, f'{self.name}/raw_image')
        if settings.publish_waterfall:
            self.waterfall_image = context.publisher(Image, f'{self.name}/waterfall')
        self.format = MarineImageFormat(
            settings.raw_image_dtype, images.image_db_min, images.image_db_max
        )
        self._altitude_told = False

    def _altitude_once(self, altitude: float) -> None:
        """Say once, the first time, that the fan falls short of the window at this altitude."""
        if self._altitude_told:
            return
        problem = self.device.sonar.altitude_problem(altitude)
        if problem:
            self.context.logger.warning(problem)
            self._altitude_told = True

    def frames(self) -> list[FrameTransform]:
        """The FRD frame of the raw image, while it is published."""
        return [] if self.raw is None else [frd_frame(self.context)]

    def describe(self) -> str:
        """The device's kind, name, bins, ranges, rate, rays and frame."""
        device = self.device
        e = device.echo
        return (
            f'SidescanRanger "{self.name}": 2 x {e.n_bins} bins, {e.min_range:g}..'
            f'{e.max_range:g} m slant range, {device.frequency:g} pings/s, '
            f'{device.sonar.rays_per_channel} rays per channel, '
            f'frame "{device.geometry.device_frame}"'
        )

    def publish(self, reading: SidescanReading, stamp: Time) -> None:
        """The ping's RangerData and raw image; the waterfall if the ping added a line."""
        device, ping = self.device, reading.ping
        intensities = self.context.state.intensities
        self._ranger_data(reading.ranges, reading.intensities if intensities else None, stamp)
        self._altitude_once(ping.altitude)
        if not intensities:
            return
        echo = device.echo
        if self.raw is not None:
            config = device.sonar.config
            self.raw.publish(
                raw_sonar_image(
                    Header(stamp=stamp, frame_id=f'{self.frame}_frd'),
                    np.asarray(ping.profiles, dtype=np.float32),
                    min_range=echo.min_range,
                    bin_width=echo.bin_width,
                    tilt=config.tilt,
                    frequency=echo.frequency,
                    sound_speed=echo.speed_of_sound,
                    along_track_width=config.horizontal_width,
                    across_track_width=config.vertical_width,
                    image_format=self.format,
                    source_level=echo.source_level,
                )
            )
        if reading.waterfall is not None and self.waterfall_image is not None:
            image: NDArray[Any] = reading.waterfall.image()
            if self.images.image_encoding is ImageEncoding.DB:
                image = db_pixels(image, self.window, echo.source_level)
            self.waterfall_image.publish(image_message(image, stamp=stamp, frame_id=self.frame))


class EchosounderOutput(RangerDataBase[EchosounderRanger]):
    """An echosounder: ``<device>/soundings`` (PointCloud2), ``/detections``, ``/ranger``."""

    def __init__(
        self, device: EchosounderRanger, context: OutputContext, topics: EchosounderSettings
    ) -> None:
        super().__init__(device, context)
        self.topics = topics
        self.cloud = context.publisher(PointCloud2, f'{self.name}/soundings')
        self.detections = context.publisher(SonarDetections, f'{self.name}/detections')

    def frames(self) -> list[FrameTransform]:
        """The FRD frame of the detections."""
        return [frd_frame(self.context)]

    def publish(self, reading: EchosounderPing, stamp: Time) -> None:
        """The soundings, the detections, and the reading's slant ranges as RangerData."""
        swath = self.device.sonar.swath
        if self.topics.publish_soundings:
            self.cloud.publish(soundings_cloud(reading, stamp=stamp, frame_id=self.frame))
        if self.topics.publish_detections:
            self.detections.publish(
                sonar_detections(
                    reading,
                    frequency=self.device.echo.frequency,
                    tx_beamwidth=swath.along_width,
                    rx_beamwidth=swath.across_width,
                    stamp=stamp,
                    frame_id=f'{self.frame}_frd',
                )
            )
        intensities = reading.intensities if self.context.state.intensities else None
        self._ranger_data(reading.ranges, intensities, stamp)


class BasebandOutput(OutputDefaults):
    """``<device>/baseband``: a coherent ping's complex baseband per beam, each ping.

    ``marine_acoustic_msgs/RawSonarImage`` of float32 pairs (``ros/marine.baseband_image``),
    published while ``publish_baseband`` is on and the device runs the coherent model
    (``echo_model: coherent``), with the ping's stamp. In the frame and with the angles of
    the kind's other marine message (``docs/marine.md``, ``docs/coherent.md``): a fan's, a
    sweep step's (its one beam at the head angle) and a single beam's in ``<frame>_acoustic``
    (z forward, x up, y to starboard; ``rx_angles`` minus the REP 103 azimuths), a side-scan's
    (port, starboard) and an echosounder's (its beams, ``rx_angles`` minus the angles from
    nadir, as its detections) in ``<frame>_frd``.
    """

    def __init__(
        self, device: BasebandSource, context: OutputContext, settings: CoherentSettings
    ) -> None:
        self.device = device
        self.context = context
        self.raw = None
        if settings.publish_baseband:
            self.raw = context.publisher(RawSonarImage, f'{context.name}/baseband')
        acoustic = device.baseband_frame is BasebandFrame.ACOUSTIC
        self.frame = acoustic_frame(context) if acoustic else frd_frame(context)

    def describe(self) -> str:
        """The topic, when published."""
        return '' if self.raw is None else f'baseband on {self.context.name}/baseband'

    def frames(self) -> list[FrameTransform]:
        """The frame of the baseband image, while it is published."""
        return [] if self.raw is None else [self.frame]

    def publish(self, reading: Any, stamp: Time) -> None:
        """The ping's baseband, if it has one."""
        if self.raw is None:
            return
        record = reading.echo
        if record is None or record.coherent is None:
            return
        beams = self.device.baseband_beams(reading)
        echo = self.device.echo
        self.raw.publish(
            baseband_image(
                Header(stamp=stamp, frame_id=self.frame.child),
                record.coherent,
                beams.rx_angles,
                frequency=echo.frequency,
                sound_speed=echo.speed_of_sound,
                tx_beamwidth=beams.tx_width,
                rx_beamwidth=beams.rx_width,
            )
        )


#: The scanning node's rows of ``outputs.PARTS``.
SONAR_PARTS: dict[str, OutputFactory] = {
    'sweep': part(SweepRanger, lambda d, c, s: SweepOutput(d, c, s[ImageSettings])),
    'multibeam': part(FanRanger, lambda d, c, s: FanOutput(d, c, s[ImageSettings])),
    'sidescan': part(
        SidescanRanger,
        lambda d, c, s: SidescanOutput(d, c, s[ImageSettings], s[SidescanSettings]),
    ),
    'echosounder': part(
        EchosounderRanger, lambda d, c, s: EchosounderOutput(d, c, s[EchosounderSettings])
    ),
    'baseband': lambda d, c, s: BasebandOutput(d, c, s[CoherentSettings]),
    'display': lambda d, c, s: DisplayOutput(d, c, s[DisplaySettings]),
}
