"""The sonar images a fan and a sweep publish: polar, dB and Cartesian, labels, projected.

``SonarImages`` makes the ``sensor_msgs/Image``s of ``ImageSettings`` (``sensing/images.py``
gives the pixel conventions), ``LabelImages`` the label images paired with them
(``docs/labels.md``), ``ProjectedImage`` a fan's ``ProjectedSonarImage`` (``docs/marine.md``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from builtin_interfaces.msg import Time
from marine_acoustic_msgs.msg import ProjectedSonarImage
from numpy.typing import NDArray
from sensor_msgs.msg import Image
from std_msgs.msg import Header

from nps_sonar_py.devices import (
    FanRanger,
)
from nps_sonar_py.devices.mount import FrameTransform
from nps_sonar_py.devices.settings import (
    ImageEncoding,
    ImageSettings,
)
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.ros.context import OutputContext
from nps_sonar_py.ros.conversions import (
    image_message,
)
from nps_sonar_py.ros.marine import (
    MarineImageFormat,
    projected_sonar_image,
)
from nps_sonar_py.ros.output_base import (
    acoustic_frame,
)
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

__all__ = ['AUTO_IMAGE_ROWS', 'LabelImages', 'ProjectedImage', 'SonarImages']

#: Bytes per pixel a polar image needs while it is made (float32 image, float64 dB levels).
_POLAR_BYTES = 4 + 3 * 8


#: Cartesian image height at ``image_resolution: 0``: max_range / this, m per pixel.
AUTO_IMAGE_ROWS = 400


class LabelImages:
    """``<device>/labels_polar`` and ``<device>/labels``: the label images (``docs/labels.md``).

    Made and published by :class:`SonarImages`, with its images: the same cells, the same stamp.
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


class SonarImages:
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
        self.labels = LabelImages(context) if s.publish_labels else None
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


class ProjectedImage:
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
