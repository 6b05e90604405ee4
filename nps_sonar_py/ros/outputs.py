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

from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
from builtin_interfaces.msg import Time
from marine_acoustic_msgs.msg import ProjectedSonarImage, RawSonarImage, SonarDetections
from numpy.typing import NDArray
from sensor_msgs.msg import Image, LaserScan, PointCloud2, Range
from std_msgs.msg import Header

from nps_sonar import msg as nps_msg
from nps_sonar_py.devices import (
    ArrayReading,
    Device,
    EchosounderRanger,
    FanRanger,
    ScannerRanger,
    SidescanRanger,
    SidescanReading,
    SingleBeamSonar,
    SonarArray,
    SweepRanger,
    SweepReading,
    SweepScan,
)
from nps_sonar_py.devices.interface import BasebandFrame, BasebandSource
from nps_sonar_py.devices.kinds import kind_of
from nps_sonar_py.devices.kinds.echosounder import EchosounderSettings
from nps_sonar_py.devices.kinds.sidescan import SidescanSettings
from nps_sonar_py.devices.kinds.single_beam import SonarTopicSettings
from nps_sonar_py.devices.kinds.sweep import SweepImage
from nps_sonar_py.devices.mount import FrameTransform
from nps_sonar_py.devices.settings import (
    CoherentSettings,
    ImageEncoding,
    ImageSettings,
    SweepImageUpdate,
)
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.ros.context import OutputContext
from nps_sonar_py.ros.conversions import (
    image_message,
    laser_scan,
    multibeam_message,
    point_cloud,
    range_message,
    ranger_data_message,
    single_beam_scan,
    sonar_point_message,
)
from nps_sonar_py.ros.marine import (
    ACOUSTIC_FROM_BODY,
    FRD_FROM_BODY,
    MarineImageFormat,
    baseband_image,
    projected_sonar_image,
    raw_sonar_image,
)
from nps_sonar_py.ros.params import Settings
from nps_sonar_py.ros.soundings import sonar_detections, soundings_cloud
from nps_sonar_py.sensing.echosounder import EchosounderPing
from nps_sonar_py.sensing.images import (
    CartesianImager,
    DbWindow,
    SectorGeometry,
    db_pixels,
    polar_image,
    size_problem,
)
from nps_sonar_py.sensing.label_images import LabelImager, polar_labels
from nps_sonar_py.sensing.multibeam import FanPing
from nps_sonar_py.sensing.scan import ScanReading
from nps_sonar_py.transforms import matrix_from_quaternion, transform_from

__all__ = ['PARTS', 'Output', 'OutputFactory', 'RangerDataOutput', 'outputs_for']

D = TypeVar('D')
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


class _RangerData(Generic[DeviceT]):
    """``<device>/ranger``: every kind of device but the single sonar publishes RangerData."""

    def __init__(self, device: DeviceT, context: OutputContext) -> None:
        self.device = device
        self.context = context
        self.name = context.name
        self.frame = context.frame
        self.data = context.publisher(nps_msg.RangerData, f'{self.name}/ranger')

    def refusal(self) -> str | None:
        """Every configuration of this device can be published."""
        return None

    def frames(self) -> list[FrameTransform]:
        """No frame but the device's."""
        return []

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


#: Bytes per pixel a polar image needs while it is made (float32 image, float64 dB levels).
_POLAR_BYTES = 4 + 3 * 8
#: Cartesian image height at ``image_resolution: 0``: max_range / this, m per pixel.
AUTO_IMAGE_ROWS = 400


class _LabelImages:
    """``<device>/labels_polar`` and ``<device>/labels``: the label images (``docs/labels.md``).

    Made and published by :class:`_Images`, with its images: the same cells, the same stamp.
    """

    def __init__(self, context: OutputContext) -> None:
        self.polar = context.publisher(Image, f'{context.name}/labels_polar')
        self.cartesian = context.publisher(Image, f'{context.name}/labels')

    @staticmethod
    def imager(
        geometry: SectorGeometry,
        resolution: float,
        intensity: CartesianImager | None,
        max_pixels: int,
    ) -> LabelImager:
        """The Cartesian label lookup: the intensity image's pixels, else its own, nearest.

        Raises:
            ConfigurationError: the image is too large (one line).
        """
        if intensity is not None:
            return LabelImager.like(intensity, max_pixels=max_pixels)
        nearest = CartesianImager(
            geometry, resolution, 'nearest', max_pixels=max_pixels, what='Cartesian label image'
        )
        return LabelImager(nearest)

    def publish(
        self, labels: NDArray[np.uint16], imager: LabelImager, stamp: Time, frame: str
    ) -> None:
        """Both label images of ``(n_beams, n_bins)`` labels."""
        self.polar.publish(image_message(polar_labels(labels), stamp=stamp, frame_id=frame))
        self.cartesian.publish(image_message(imager.image(labels), stamp=stamp, frame_id=frame))


class _Images:
    """The switched-on ``sensor_msgs/Image`` outputs of a fan of beams or a whole sweep.

    Sizes are checked before any image is made: at start-up a size over ``image_max_pixels``
    or the memory available raises ``ConfigurationError`` (the node exits with the one line); a
    new configuration by ``set_config`` whose images would be too large is refused with the
    reason (``refusal``), and the device keeps its configuration. Images go out after the
    device's other messages, and only with intensities on; the label images (``labels``) last.
    """

    def __init__(
        self, context: OutputContext, settings: ImageSettings, geometry: SectorGeometry
    ) -> None:
        self.context = context
        self.settings = s = settings
        self.window = DbWindow(s.image_db_min, s.image_db_max, s.image_db_bits)
        self.polar = self.polar_db = self.cartesian = None
        name = context.name
        if s.publish_image_polar:
            self.polar = context.publisher(Image, f'{name}/image_polar')
        if s.publish_image_polar_db:
            self.polar_db = context.publisher(Image, f'{name}/image_polar_db')
        if s.publish_image:
            self.cartesian = context.publisher(Image, f'{name}/image')
        self.labels = _LabelImages(context) if s.publish_labels else None
        # The geometry whose images are made and its Cartesian lookup; a refused geometry is
        # remembered apart, so that refusing one never drops (or rebuilds) the lookup in use.
        self._geometry: SectorGeometry | None = None
        self._imager: CartesianImager | None = None
        self._label_imager: LabelImager | None = None
        self._refused: tuple[SectorGeometry, str] | None = None
        problem = self.problem(geometry)
        if problem:
            raise ConfigurationError(problem)

    def problem(self, geometry: SectorGeometry) -> str | None:
        """Why the images of ``geometry`` are not made, or None; checked once per geometry.

        The Cartesian lookup is built here, and replaces the one in use only once the new
        geometry is accepted: after a refused ``set_config`` the device's previous geometry
        finds its lookup still there. The polar size (beams x bins) bounds every image's
        profiles, so it is checked whichever images are on.
        """
        if not self.settings.any_image or geometry == self._geometry:
            return None
        if self._refused is not None and self._refused[0] == geometry:
            return self._refused[1]
        s = self.settings
        problem = size_problem(
            'polar image', geometry.n_bins, geometry.n_beams, _POLAR_BYTES, s.image_max_pixels
        )
        imager = label_imager = None
        resolution = s.image_resolution or geometry.max_range / AUTO_IMAGE_ROWS
        try:
            if problem is None and self.cartesian is not None:
                imager = CartesianImager(
                    geometry,
                    resolution,
                    s.image_interpolation,
                    max_pixels=s.image_max_pixels,
                    what='Cartesian image',
                )
            if problem is None and self.labels is not None:
                label_imager = self.labels.imager(geometry, resolution, imager, s.image_max_pixels)
        except ConfigurationError as error:
            problem = str(error)
        if problem:
            self._refused = (geometry, problem)
            return problem
        self._geometry, self._imager, self._refused = geometry, imager, None
        self._label_imager = label_imager
        return None

    def warn(self, problem: str) -> None:
        """Say (throttled) why no image is published."""
        self.context.logger.warning(f'no image published: {problem}', throttle_duration_sec=5.0)

    def publish(
        self,
        profiles: NDArray[np.float64],
        geometry: SectorGeometry,
        source_level: float,
        stamp: Time,
        labels: NDArray[np.uint16] | None = None,
    ) -> None:
        """The switched-on images of ``(n_beams, n_bins)`` profiles (and of their labels)."""
        if not self.context.state.intensities:
            return
        problem = self.problem(geometry)
        if problem:
            self.warn(problem)
            return
        frame = self.context.frame
        if self.polar is not None or self.polar_db is not None:
            polar = polar_image(profiles)
            if self.polar is not None:
                self.polar.publish(image_message(polar, stamp=stamp, frame_id=frame))
            if self.polar_db is not None:
                pixels = db_pixels(polar, self.window, source_level)
                self.polar_db.publish(image_message(pixels, stamp=stamp, frame_id=frame))
        if self.cartesian is not None and self._imager is not None:
            image: NDArray[Any] = self._imager.image(profiles)
            if self.settings.image_encoding is ImageEncoding.DB:
                image = db_pixels(image, self.window, source_level)
            self.cartesian.publish(image_message(image, stamp=stamp, frame_id=frame))
        if self.labels is not None and self._label_imager is not None and labels is not None:
            self.labels.publish(labels, self._label_imager, stamp, frame)


class SingleBeamOutput:
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

    def refusal(self) -> str | None:
        """Every configuration of a single sonar can be published."""
        return None

    def frames(self) -> list[FrameTransform]:
        """No frame but the device's."""
        return []

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


class ArrayOutput(_RangerData[SonarArray]):
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


class ScanOutput(_RangerData[ScannerRanger]):
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


class SweepOutput(_RangerData[SweepRanger]):
    """A scanning sonar: SonarPoint per step; per sweep a LaserScan and RangerData.

    The sweep's messages are stamped when its first step was transmitted.
    """

    def __init__(self, device: SweepRanger, context: OutputContext, images: ImageSettings) -> None:
        super().__init__(device, context)
        self.sonar_point = context.publisher(nps_msg.SonarPoint, f'{self.name}/sonar_point')
        self.scan = context.publisher(LaserScan, f'{self.name}/scan')
        self._sweep_stamp = Time()
        self.images = _Images(context, images, device.image_geometry())
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


def acoustic_frame(context: OutputContext) -> FrameTransform:
    """``<frame>_acoustic`` (z forward, x up, y starboard), the projected image's frame."""
    turn = transform_from(matrix_from_quaternion(*ACOUSTIC_FROM_BODY), (0.0, 0.0, 0.0))
    return FrameTransform(context.frame, f'{context.frame}_acoustic', turn)


def frd_frame(context: OutputContext) -> FrameTransform:
    """``<frame>_frd`` (x forward, y starboard, z down), the raw image's and detections' frame."""
    turn = transform_from(matrix_from_quaternion(*FRD_FROM_BODY), (0.0, 0.0, 0.0))
    return FrameTransform(context.frame, f'{context.frame}_frd', turn)


class _ProjectedImage:
    """``<device>/projected_image``: a fan's ping as ``marine_acoustic_msgs/ProjectedSonarImage``.

    Published after the ping's images, with intensities on, in the frame ``<frame>_acoustic``
    (``frame()``, on ``/tf_static``): the device's frame turned by ``ACOUSTIC_FROM_BODY``, as the
    message's beam directions need (docs/marine.md). Its pixels are made of the float32
    profiles ``MultibeamPing`` carries, so that the two messages of a ping agree bit for bit.
    """

    def __init__(self, context: OutputContext, settings: ImageSettings) -> None:
        self.context = context
        self.acoustic_frame = f'{context.frame}_acoustic'
        self.publisher = None
        if settings.publish_projected_image:
            self.publisher = context.publisher(
                ProjectedSonarImage, f'{context.name}/projected_image'
            )
        self.format = MarineImageFormat(
            settings.projected_image_dtype, settings.image_db_min, settings.image_db_max
        )

    def frames(self) -> list[FrameTransform]:
        """The acoustic frame, a child of the device's, while the image is published."""
        return [] if self.publisher is None else [acoustic_frame(self.context)]

    def publish(self, ping: FanPing, device: FanRanger, stamp: Time) -> None:
        """The ping's image, if switched on and intensities are on."""
        if self.publisher is None or not self.context.state.intensities:
            return
        echo, edges = device.echo, ping.bin_edges
        self.publisher.publish(
            projected_sonar_image(
                Header(stamp=stamp, frame_id=self.acoustic_frame),
                ping.azimuths,
                0.5 * (edges[:-1] + edges[1:]),
                np.asarray(ping.profiles, dtype=np.float32),
                frequency=echo.frequency,
                sound_speed=echo.speed_of_sound,
                tx_beamwidth=device.sonar.fan.vertical_width,
                rx_beamwidth=echo.beam_width,
                image_format=self.format,
                source_level=echo.source_level,
            )
        )


class FanOutput(_RangerData[FanRanger]):
    """A multibeam: LaserScan (one range per beam), MultibeamPing and RangerData per ping."""

    def __init__(self, device: FanRanger, context: OutputContext, images: ImageSettings) -> None:
        super().__init__(device, context)
        self.scan = context.publisher(LaserScan, f'{self.name}/scan')
        self.fan = context.publisher(nps_msg.MultibeamPing, f'{self.name}/multibeam')
        self.images = _Images(context, images, device.image_geometry())
        self.projected = _ProjectedImage(context, images)

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
        if self.images.settings.any_image:
            self.images.publish(
                reading.profiles,
                device.image_geometry(),
                device.echo.source_level,
                stamp,
                reading.labels,
            )
        self.projected.publish(reading, device, stamp)


class SidescanOutput(_RangerData[SidescanRanger]):
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


class BasebandOutput:
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

    def refusal(self) -> str | None:
        """Every configuration can be published."""
        return None

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


class EchosounderOutput(_RangerData[EchosounderRanger]):
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


class RangerDataOutput(_RangerData[Device[Any]]):
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


#: Makes an output of a device from the node's context and settings.
OutputFactory = Callable[[Any, OutputContext, Settings], Output]


def _part(device: type[D], make: Callable[[D, OutputContext, Settings], Output]) -> OutputFactory:
    """A row of :data:`PARTS`; mypy checks that ``make`` takes a ``device``."""
    return make  # type: ignore[return-value]


#: Each output a kind may offer (``Kind.outputs``), by name, with the settings it takes.
PARTS: dict[str, OutputFactory] = {
    'ranger': lambda d, c, _: RangerDataOutput(d, c),
    'single_beam': _part(
        SingleBeamSonar, lambda d, c, s: SingleBeamOutput(d, c, s[SonarTopicSettings])
    ),
    'array': _part(SonarArray, lambda d, c, _: ArrayOutput(d, c)),
    'scanner': _part(ScannerRanger, lambda d, c, _: ScanOutput(d, c)),
    'sweep': _part(SweepRanger, lambda d, c, s: SweepOutput(d, c, s[ImageSettings])),
    'multibeam': _part(FanRanger, lambda d, c, s: FanOutput(d, c, s[ImageSettings])),
    'sidescan': _part(
        SidescanRanger,
        lambda d, c, s: SidescanOutput(d, c, s[ImageSettings], s[SidescanSettings]),
    ),
    'echosounder': _part(
        EchosounderRanger, lambda d, c, s: EchosounderOutput(d, c, s[EchosounderSettings])
    ),
    'baseband': lambda d, c, s: BasebandOutput(d, c, s[CoherentSettings]),
}


def outputs_for(device: Device[Any], context: OutputContext, settings: Settings) -> Output:
    """The outputs of ``device``'s kind in the node of ``context`` and ``settings``."""
    parts = [PARTS[name](device, context, settings) for name in kind_of(device).outputs]
    return parts[0] if len(parts) == 1 else _Outputs(parts)
