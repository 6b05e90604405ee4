"""The type of an SDF ``<noise>``, one enum for the description and the echo layers.

``description`` reads it into ``Noise`` (URDF/SDF ``<noise><type>``), ``echo`` applies it as
``RangeNoise``; each re-exports it (``nps_sonar_py.description.NoiseType`` is
``nps_sonar_py.echo.NoiseType``). It lives here, outside both, so that neither imports the
other: ``description`` stays free of scipy (which ``echo`` imports), ``echo`` of lxml.
"""

from __future__ import annotations

from enum import Enum

__all__ = ['NoiseType']


class NoiseType(Enum):
    """SDF ``<noise><type>``: none, gaussian or gaussian_quantized."""

    NONE = 'none'
    GAUSSIAN = 'gaussian'
    GAUSSIAN_QUANTIZED = 'gaussian_quantized'
