"""Pings as ``marine_acoustic_msgs`` messages: pure functions, no node (docs/marine.md).

A multibeam ping as ``ProjectedSonarImage`` (:func:`projected_sonar_image`), a side-scan ping
as ``RawSonarImage`` (:func:`raw_sonar_image`), and the ``PingInfo`` of every message
(:func:`ping_info`). The conventions are those of the released definitions (2.1.0, their
comments and README), the layout the one sonar_image_proc and rviz_sonar_image read:

* ``image.data`` holds ``n_ranges x n_beams`` pixels, **range-major**: pixel ``(r, b)``, the
  echo of beam ``b`` at range ``ranges[r]`` (sample ``r``), starts at byte
  ``(r * beam_count + b) * itemsize``. ``is_bigendian`` is false: multi-byte pixels are
  little-endian whatever the machine.
* ``ProjectedSonarImage.beam_directions`` are unit vectors in the frame ``<frame>_acoustic``,
  **z forward, x up, y to starboard**; a beam's azimuth is its turn about x from z, so a beam
  at azimuth ``a`` (REP 103: about the body's z, 0 ahead, positive to port) points along
  ``(0, -sin a, cos a)`` and sonar_image_proc's ``atan2(-y, z)`` is ``a``. That frame is the
  body frame turned by :data:`ACOUSTIC_FROM_BODY`.
* ``image.dtype``: ``UINT8``, ``UINT16`` and ``UINT32`` (what sonar_image_proc draws) hold dB
  pixels of a :class:`~nps_sonar_py.sensing.images.DbWindow` of 8, 16 and 32 bits;
  ``FLOAT32`` holds the linear intensities themselves.
* A side-scan's ``RawSonarImage`` is in the frame ``<frame>_frd`` (**x forward, y starboard,
  z down**, the body frame turned by :data:`FRD_FROM_BODY`), where the definition's angles
  apply: ``tx_angles`` 0 (no along-track steering), ``rx_angles`` each beam's across-track
  angle from z, **positive to starboard**: beam 0 port ``-(pi/2 - tilt)``, beam 1 starboard
  ``+(pi/2 - tilt)``, so that ``(sin tx, sin rx, cos rx cos tx)`` is the beam's axis. Sample
  ``k`` of a beam, at byte ``(k * 2 + b) * itemsize``, is the slant-range bin
  ``[(sample0 + k) w, (sample0 + k + 1) w)``, ``w = sound_speed / (2 sample_rate)``.
* ``PingInfo``'s ``tx_beamwidths`` is the width along the frame's x (the direction the
  definition's ``tx_angles`` turn to), ``rx_beamwidths`` the width along its y.
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass
from typing import Any

import numpy as np
from geometry_msgs.msg import Vector3
from marine_acoustic_msgs.msg import PingInfo, ProjectedSonarImage, RawSonarImage, SonarImageData
from std_msgs.msg import Header

from nps_sonar_py.devices.settings import ProjectedImageDtype
from nps_sonar_py.echo.coherent import CoherentPing
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.ros.conversions import float32_array
from nps_sonar_py.sensing.images import DbWindow, db_pixels

__all__ = [
    'ACOUSTIC_FROM_BODY',
    'FRD_FROM_BODY',
    'IMAGE_DTYPES',
    'MarineImageFormat',
    'baseband_image',
    'ping_info',
    'projected_sonar_image',
    'raw_sonar_image',
]

#: The image dtypes offered (those of the ``projected_image_dtype`` setting), as
#: ``SonarImageData.DTYPE_*`` codes and little-endian pixels.
IMAGE_DTYPES: dict[str, tuple[int, str]] = {
    ProjectedImageDtype.UINT8: (SonarImageData.DTYPE_UINT8, '<u1'),
    ProjectedImageDtype.UINT16: (SonarImageData.DTYPE_UINT16, '<u2'),
    ProjectedImageDtype.UINT32: (SonarImageData.DTYPE_UINT32, '<u4'),
    ProjectedImageDtype.FLOAT32: (SonarImageData.DTYPE_FLOAT32, '<f4'),
}
#: The bits of a dB pixel of each integer dtype.
_BITS = {'uint8': 8, 'uint16': 16, 'uint32': 32}

#: The message's frame (z forward, x up, y starboard) in the x-forward body frame (REP 103),
#: as a quaternion ``(x, y, z, w)``: half a turn about ``(1, 0, 1) / sqrt(2)``, which takes
#: x to z, z to x and y to -y. A static transform body -> acoustic frame of this rotation
#: makes the header's frame.
ACOUSTIC_FROM_BODY = (math.sqrt(0.5), 0.0, math.sqrt(0.5), 0.0)
#: The frame of the temporal-domain messages (``RawSonarImage``, ``SonarDetections``), x
#: forward, y starboard, z down, in the x-forward body frame (REP 103), as a quaternion
#: ``(x, y, z, w)``: half a turn about x, which takes y to -y and z to -z.
FRD_FROM_BODY = (1.0, 0.0, 0.0, 0.0)
#: The side-scan's channels in ``RawSonarImage`` beam order: port, then starboard.
SIDESCAN_CHANNELS = ('port', 'starboard')


@dataclass(frozen=True)
class MarineImageFormat:
    """How the image's pixels are written: ``dtype`` and, for integer ones, the dB window.

    ``dtype`` is ``uint8``, ``uint16``, ``uint32`` or ``float32`` (any case, ``DTYPE_`` prefix
    allowed); ``db_low`` and ``db_high`` are the levels written as 0 and the largest pixel.
    """

    dtype: str = 'uint8'
    db_low: float = -100.0
    db_high: float = -20.0

    def __post_init__(self) -> None:
        # The message's own names (DTYPE_UINT8, UINT8) name the same dtypes.
        name = self.dtype.lower().removeprefix('dtype_') if isinstance(self.dtype, str) else None
        if name not in IMAGE_DTYPES:
            choices = ', '.join(IMAGE_DTYPES)
            msg = f'image dtype must be one of {choices}, got {self.dtype!r}'
            raise ConfigurationError(msg)
        object.__setattr__(self, 'dtype', name)
        if self.dtype in _BITS:
            self.window()  # a bad window is refused here, not at the first ping

    def window(self) -> DbWindow | None:
        """The dB window of an integer dtype; ``None`` for ``float32`` (linear values)."""
        bits = _BITS.get(self.dtype)
        return None if bits is None else DbWindow(self.db_low, self.db_high, bits)


def ping_info(
    *, frequency: float, sound_speed: float, tx_beamwidth: float, rx_beamwidth: float
) -> PingInfo:
    """The ``PingInfo`` of a ping, shared by every message here (Hz, m/s, rad).

    One -3 dB width each, the same for every beam: ``tx_beamwidth`` along the message frame's
    x, ``rx_beamwidth`` along its y (module docstring).
    """
    return PingInfo(
        frequency=float(frequency),
        sound_speed=float(sound_speed),
        tx_beamwidths=array('f', [float(tx_beamwidth)]),
        rx_beamwidths=array('f', [float(rx_beamwidth)]),
    )


def projected_sonar_image(
    header: Header,
    azimuths: Any,
    ranges: Any,
    profiles: Any,
    *,
    frequency: float,
    sound_speed: float,
    tx_beamwidth: float,
    rx_beamwidth: float,
    image_format: MarineImageFormat,
    source_level: float = 0.0,
) -> ProjectedSonarImage:
    """One ping as a ``ProjectedSonarImage`` (layout in the module docstring).

    ``azimuths`` (n_beams, rad, REP 103 about the body's z), ``ranges`` (n_ranges bin
    centres, m) and ``profiles`` (n_beams x n_ranges linear intensities, beam-major as
    ``MultibeamPing.profiles``). ``tx_beamwidth`` is the fan's vertical width and
    ``rx_beamwidth`` a beam's horizontal width (rad, one value each: the same for every beam).
    ``source_level`` (dB) is added to the levels of integer pixels, as in the dB images.
    """
    az = np.asarray(azimuths, dtype=np.float64).reshape(-1)
    centres = np.asarray(ranges, dtype=np.float64).reshape(-1)
    values = np.asarray(profiles)
    if values.shape != (az.size, centres.size):
        msg = f'profiles must be {az.size} beams x {centres.size} ranges, got shape {values.shape}'
        raise ValueError(msg)
    # Vector3[] has no array fast path: one small message per beam, none per pixel.
    ys, zs = (-np.sin(az)).tolist(), np.cos(az).tolist()
    directions = [Vector3(x=0.0, y=y, z=z) for y, z in zip(ys, zs, strict=True)]
    return ProjectedSonarImage(
        header=header,
        ping_info=ping_info(
            frequency=frequency,
            sound_speed=sound_speed,
            tx_beamwidth=tx_beamwidth,
            rx_beamwidth=rx_beamwidth,
        ),
        beam_directions=directions,
        ranges=float32_array(centres),
        image=_image_data(values, image_format, source_level),
    )


def raw_sonar_image(
    header: Header,
    profiles: Any,
    *,
    min_range: float,
    bin_width: float,
    tilt: float,
    frequency: float,
    sound_speed: float,
    along_track_width: float,
    across_track_width: float,
    image_format: MarineImageFormat,
    source_level: float = 0.0,
) -> RawSonarImage:
    """A side-scan ping as a ``RawSonarImage`` in the frame ``<frame>_frd`` (module docstring).

    ``profiles`` (2, n_bins): linear intensities of the port and starboard channels at the
    slant-range bins ``min_range + k bin_width``. A bin of ``bin_width`` m lasts ``2 bin_width
    / sound_speed`` s of two-way time, so ``sample_rate = sound_speed / (2 bin_width)``;
    ``sample0 = round(min_range / bin_width)`` (exact when ``min_range`` is a whole number of
    bins). ``tilt`` (rad) is each channel's depression below horizontal, so its axis is
    ``pi/2 - tilt`` from nadir. ``along_track_width`` becomes ``tx_beamwidths`` (the frame's
    x) and ``across_track_width`` ``rx_beamwidths`` (its y), rad, one value each.
    """
    values = np.asarray(profiles)
    if values.ndim != 2 or values.shape[0] != len(SIDESCAN_CHANNELS):
        msg = f'profiles must be 2 channels (port, starboard) x bins, got shape {values.shape}'
        raise ValueError(msg)
    across = 0.5 * math.pi - float(tilt)
    return RawSonarImage(
        header=header,
        ping_info=ping_info(
            frequency=frequency,
            sound_speed=sound_speed,
            tx_beamwidth=along_track_width,
            rx_beamwidth=across_track_width,
        ),
        sample_rate=float(sound_speed / (2.0 * bin_width)),
        samples_per_beam=int(values.shape[1]),
        sample0=round(min_range / bin_width),
        tx_delays=array('f', [0.0, 0.0]),
        tx_angles=array('f', [0.0, 0.0]),
        rx_angles=array('f', [-across, across]),
        image=_image_data(values, image_format, source_level),
    )


def baseband_image(
    header: Header,
    ping: CoherentPing,
    rx_angles: Any,
    *,
    frequency: float,
    sound_speed: float,
    tx_beamwidth: float,
    rx_beamwidth: float,
) -> RawSonarImage:
    """A coherent ping's complex baseband as a ``RawSonarImage`` (``docs/coherent.md``).

    ``image.dtype`` is ``DTYPE_FLOAT32`` and ``image.data`` holds, sample by sample (range
    major, as the raw images), for each beam the real then the imaginary part, little-endian:
    ``8 * samples_per_beam * beam_count`` bytes, sample ``j`` of beam ``b`` at byte
    ``8 (j beam_count + b)``. Sample ``j`` is at two-way time ``(sample0 + j + 1/2) /
    sample_rate``, range ``ping.grid.start + j ping.grid.interval``; ``|value|**2`` is in the
    intensity units of the echo model (relative to the source at 1 m). ``rx_angles`` (N,)
    are the beams' angles in the header's frame (module docstring); ``tx_angles`` are 0.
    """
    grid = ping.grid
    angles = array('f', np.asarray(rx_angles, dtype=np.float32).tobytes())
    samples = np.ascontiguousarray(ping.baseband.T, dtype='<c8')  # (count, N)
    return RawSonarImage(
        header=header,
        ping_info=ping_info(
            frequency=frequency,
            sound_speed=sound_speed,
            tx_beamwidth=tx_beamwidth,
            rx_beamwidth=rx_beamwidth,
        ),
        sample_rate=float(grid.rate),
        samples_per_beam=int(grid.count),
        sample0=round((grid.start - 0.5 * grid.interval) / grid.interval),
        tx_delays=array('f', bytes(4 * len(angles))),
        tx_angles=array('f', bytes(4 * len(angles))),
        rx_angles=angles,
        image=SonarImageData(
            is_bigendian=False,
            dtype=SonarImageData.DTYPE_FLOAT32,
            beam_count=len(angles),
            data=samples.tobytes(),
        ),
    )


def _image_data(
    profiles: Any, image_format: MarineImageFormat, source_level: float
) -> SonarImageData:
    """``(beams, samples)`` linear values as range-major little-endian pixels of the format."""
    window = image_format.window()
    code, pixel = IMAGE_DTYPES[image_format.dtype]
    values = np.asarray(profiles)
    image = values if window is None else db_pixels(values, window, source_level)
    # Range-major (n_ranges, n_beams), little-endian, then copied once into the message's bytes.
    pixels = np.ascontiguousarray(image.T, dtype=pixel)
    data = array('B')
    data.frombytes(pixels.reshape(-1).view(np.uint8).data)
    return SonarImageData(is_bigendian=False, dtype=code, beam_count=values.shape[0], data=data)
