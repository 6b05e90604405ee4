"""Grayscale PNG images as integer grids, their size checked before the pixels are decoded.

Both readers of images in a scene use it: heightmaps (:mod:`nps_sonar_py.scene.heightmap`)
and reflectivity maps (:mod:`nps_sonar_py.scene.reflectivity_map`). Only 8- and 16-bit
grayscale PNGs are read; Pillow is imported on first use (a dependency of matplotlib).
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

__all__ = ['GRAY_MODES', 'decode_gray_png']

#: PIL modes of grayscale images: 8-bit, 16-bit (in either byte order) and 32-bit integers
#: (how some Pillow versions open a 16-bit PNG).
GRAY_MODES = ('L', 'I;16', 'I;16B', 'I;16L', 'I;16N', 'I')


def decode_gray_png(
    data: bytes, check_shape: Callable[[tuple[int, int]], None]
) -> tuple[NDArray[np.integer], int]:
    """The (rows, columns) pixels of a grayscale PNG's bytes and the full-scale code of its depth.

    ``check_shape((rows, columns))`` runs before the pixels are decoded (it raises ValueError
    for a size its caller refuses). The full-scale code is 255 for an 8-bit image, 65535 for
    a 16-bit one.

    Raises:
        ValueError: not a PNG Pillow can read, too large for Pillow (a decompression bomb),
            refused by ``check_shape``, or not 8- or 16-bit grayscale.

    """
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter('error', Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=['PNG'])
            cols, rows = image.size
            check_shape((rows, cols))  # before the pixels are decoded
            if image.mode not in GRAY_MODES:
                msg = f'image mode {image.mode!r} is not grayscale: save it as an 8- or 16-bit'
                msg += ' grayscale PNG'
                raise ValueError(msg)
            pixels = np.asarray(image)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as err:
        msg = f'image too large: {err}'
        raise ValueError(msg) from None
    except UnidentifiedImageError:  # its text names a BytesIO object, not the file
        msg = 'not a PNG image Pillow can read'
        raise ValueError(msg) from None
    except (OSError, SyntaxError) as err:
        msg = f'not a readable PNG image ({err})'
        raise ValueError(msg) from None
    return pixels, 255 if image.mode == 'L' else 65535
