"""Label images of fans and sweeps: the layouts of ``images.py``, ``mono16``, never interpolated.

A label (``echo.labels``) is ``1 + i`` for entity ``i`` of the label table, ``0`` for none.
The polar label image has the polar image's layout (``images.polar_image``: row 0 the farthest
bin, column 0 the leftmost beam); the Cartesian one the Cartesian image's pixels
(``images.CartesianImager``) by ``nearest`` lookup, whatever the intensity image's
interpolation: labels are categories, and a mean of two labels is a third entity. Pixels
outside the sector are 0. Both are ``uint16`` (``mono16``). ``docs/labels.md``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.sensing.images import CartesianImager, polar_image

__all__ = ['LabelImager', 'SweepLabels', 'polar_labels']


def polar_labels(labels: NDArray[np.integer]) -> NDArray[np.uint16]:
    """``(n_beams, n_bins)`` labels as the ``(n_bins, n_beams)`` polar label image."""
    # polar_image's float32 holds every uint16 exactly: one layout for both images.
    image: NDArray[np.uint16] = polar_image(np.asarray(labels, np.float32)).astype(np.uint16)
    return image


class LabelImager:
    """The Cartesian label image of a sector: the pixels of its Cartesian image, nearest lookup.

    Args:
        imager: a ``nearest`` Cartesian imager of the sector (:meth:`like` makes one).

    Raises:
        ValueError: ``imager`` interpolates.
    """

    def __init__(self, imager: CartesianImager) -> None:
        if imager.interpolation != 'nearest':
            msg = f'a label image is never interpolated, got a {imager.interpolation} imager'
            raise ValueError(msg)
        self._imager = imager

    @classmethod
    def like(cls, imager: CartesianImager, *, max_pixels: int) -> LabelImager:
        """The label imager of ``imager``'s pixel grid (shares a ``nearest`` imager's lookup).

        Raises:
            ConfigurationError: the image is too large (one line), as ``CartesianImager``.
        """
        if imager.interpolation == 'nearest':
            return cls(imager)
        nearest = CartesianImager(
            imager.geometry,
            imager.metres_per_pixel,
            'nearest',
            max_pixels=max_pixels,
            what='Cartesian label image',
        )
        return cls(nearest)

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)`` of the image, as the intensity image's."""
        return self._imager.height, self._imager.width

    def image(self, labels: NDArray[np.integer]) -> NDArray[np.uint16]:
        """``(height, width)`` uint16 image of ``(n_beams, n_bins)`` labels; 0 outside."""
        # Nearest: exact float32 copies of the labels (every uint16 is exact), NaN outside.
        values = self._imager.image(np.asarray(labels, np.float32))
        image: NDArray[np.uint16] = np.nan_to_num(values, nan=0.0).astype(np.uint16)
        return image


class SweepLabels:
    """The latest labels at each head angle of a scanning sonar, as ``images.SweepProfiles``.

    Row ``k`` is head angle ``k`` in increasing order; rows not pinged yet are 0 (none).
    """

    def __init__(self, n_angles: int, n_bins: int) -> None:
        self.labels = np.zeros((n_angles, n_bins), dtype=np.uint16)

    def restart(self) -> None:
        """Every head angle unlabelled again."""
        self.labels[:] = 0

    def update(self, angle_index: int, labels: NDArray[np.integer]) -> None:
        """The labels of the ping at head angle ``angle_index``."""
        self.labels[angle_index] = labels
