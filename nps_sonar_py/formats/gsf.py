"""Swath bathymetry in GSF (Generic Sensor Format), read and written with ``gsfpy``.

``gsfpy`` (UKHO) binds the reference C library of the format (``libgsf``, shipped in its
wheel), so what it writes is what the field's tools read. :func:`read_soundings` gives the
swath pings of a file as arrays; :func:`write_soundings` writes an echosounder's soundings
(depth, across and along track per beam, each ping's time, position and heading) as swath
bathymetry pings, with the scale factors the format stores them at (``PRECISION``);
:func:`soundings_of` makes them of the echosounder's pings. A beam without a sounding is
written as GSF's null depth, 0, and read back as NaN.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from gsfpy3_08 import GsfException, open_gsf
from gsfpy3_08.bindings import _libgsf
from gsfpy3_08.enums import FileMode, RecordType, ScaledSwathBathySubRecord
from gsfpy3_08.gsfRecords import c_gsfRecords
from numpy.typing import NDArray

from nps_sonar_py.errors import NpsSonarError
from nps_sonar_py.sensing.echosounder import EchosounderPing

__all__ = [
    'PRECISION',
    'Soundings',
    'read_soundings',
    'soundings_of',
    'soundings_of_points',
    'write_soundings',
]

#: Resolution the written arrays are stored at, m (depth, across and along track).
PRECISION = 0.001
#: GSF's compression flag for four-byte fields (high nibble 4): depths to 2,147 km at 1 mm.
_FOUR_BYTES = b'\x40'


@dataclass(frozen=True)
class Soundings:
    """Swath pings: per beam depth, across and along track, and each ping's navigation.

    Attributes:
        depth: (pings, beams) depth below the sensor's datum, m (positive down).
        across_track: (pings, beams) m, positive to starboard.
        along_track: (pings, beams) m, positive forward.
        times: (pings,) seconds since the epoch.
        latitude: (pings,) degrees north.
        longitude: (pings,) degrees east.
        heading: (pings,) degrees.
    """

    depth: NDArray[np.float64]
    across_track: NDArray[np.float64]
    along_track: NDArray[np.float64]
    times: NDArray[np.float64]
    latitude: NDArray[np.float64]
    longitude: NDArray[np.float64]
    heading: NDArray[np.float64]


def _array(pointer: object, n: int) -> NDArray[np.float64]:
    """The ``n`` doubles a ``POINTER(c_double)`` points to (NaN if none)."""
    if not pointer:
        return np.full(n, np.nan)
    return np.ctypeslib.as_array(pointer, shape=(n,)).astype(np.float64)


def read_soundings(path: Path) -> Soundings:
    """Every swath bathymetry ping of GSF file ``path`` (all of one beam count)."""
    pings = []
    try:
        with open_gsf(str(path)) as gsf:
            while True:
                try:
                    _, record = gsf.read(RecordType.GSF_RECORD_SWATH_BATHYMETRY_PING)
                except GsfException as error:
                    if 'end of file' in str(error).lower():
                        break
                    raise
                ping = record.mb_ping
                n = int(ping.number_beams)
                pings.append(
                    (
                        _array(ping.depth, n),
                        _array(ping.across_track, n),
                        _array(ping.along_track, n),
                        ping.ping_time.tv_sec + 1e-9 * ping.ping_time.tv_nsec,
                        ping.latitude,
                        ping.longitude,
                        ping.heading,
                    )
                )
    except GsfException as error:
        msg = f'{path}: not a readable GSF file ({error})'
        raise NpsSonarError(msg) from error
    if not pings or len({p[0].size for p in pings}) != 1:
        msg = f'{path}: no swath pings, or pings of different beam counts'
        raise NpsSonarError(msg)
    columns = list(zip(*pings, strict=True))
    depth, across, along = (np.stack(column) for column in columns[:3])
    null = depth == 0.0  # GSF's null depth: no sounding
    return Soundings(
        np.where(null, np.nan, depth),
        np.where(null, np.nan, across),
        np.where(null, np.nan, along),
        *(np.array(column, dtype=np.float64) for column in columns[3:]),
    )


def soundings_of(
    pings: Sequence[EchosounderPing],
    times: NDArray[np.float64],
    latitude: NDArray[np.float64],
    longitude: NDArray[np.float64],
    heading: NDArray[np.float64],
) -> Soundings:
    """The soundings of echosounder ``pings`` (body frame: x forward, y port, z up) for GSF.

    Beams without a sounding are NaN (``soundings_of_points``).
    """
    points = np.stack([ping.points for ping in pings])
    return soundings_of_points(points, times, latitude, longitude, heading)


def soundings_of_points(
    points: NDArray[np.float64],
    times: NDArray[np.float64],
    latitude: NDArray[np.float64],
    longitude: NDArray[np.float64],
    heading: NDArray[np.float64],
) -> Soundings:
    """GSF soundings of (pings, beams, 3) points in the body frame (x forward, y port, z up).

    GSF's depth is positive down and its across track positive to starboard: ``-z`` and
    ``-y`` of each sounding; along track is ``x``. NaN points stay NaN (no sounding).
    """
    return Soundings(
        depth=-points[..., 2],
        across_track=-points[..., 1],
        along_track=points[..., 0],
        times=np.asarray(times, dtype=np.float64),
        latitude=np.asarray(latitude, dtype=np.float64),
        longitude=np.asarray(longitude, dtype=np.float64),
        heading=np.asarray(heading, dtype=np.float64),
    )


def write_soundings(path: Path, soundings: Soundings) -> None:
    """Write ``soundings`` as GSF swath bathymetry pings; ``NpsSonarError`` if libgsf refuses."""
    pings, beams = soundings.depth.shape
    try:
        with open_gsf(str(path), FileMode.GSF_CREATE) as gsf:
            for i in range(pings):
                record = c_gsfRecords()
                keep = _fill(record, soundings, i, beams)
                gsf.write(record, RecordType.GSF_RECORD_SWATH_BATHYMETRY_PING)
                del keep
    except GsfException as error:
        msg = f'{path}: GSF writing failed ({error})'
        raise NpsSonarError(msg) from error


def _fill(record: c_gsfRecords, soundings: Soundings, i: int, beams: int) -> list[object]:
    """Ping ``i`` into ``record``; the ctypes arrays it points to (keep them alive)."""
    ping = record.mb_ping
    seconds = float(soundings.times[i])
    ping.ping_time.tv_sec = int(seconds)
    ping.ping_time.tv_nsec = round((seconds - int(seconds)) * 1e9)
    ping.latitude = float(soundings.latitude[i])
    ping.longitude = float(soundings.longitude[i])
    ping.heading = float(soundings.heading[i])
    ping.number_beams = beams
    ping.center_beam = beams // 2
    arrays: list[object] = []
    subrecords = (
        (
            'depth',
            soundings.depth,
            ScaledSwathBathySubRecord.GSF_SWATH_BATHY_SUBRECORD_DEPTH_ARRAY,
        ),
        (
            'across_track',
            soundings.across_track,
            ScaledSwathBathySubRecord.GSF_SWATH_BATHY_SUBRECORD_ACROSS_TRACK_ARRAY,
        ),
        (
            'along_track',
            soundings.along_track,
            ScaledSwathBathySubRecord.GSF_SWATH_BATHY_SUBRECORD_ALONG_TRACK_ARRAY,
        ),
    )
    for name, values, subrecord in subrecords:
        row = np.nan_to_num(np.asarray(values[i], dtype=np.float64), nan=0.0)  # GSF's null
        buffer = (ctypes.c_double * beams)(*row)
        arrays.append(buffer)
        setattr(ping, name, ctypes.cast(buffer, ctypes.POINTER(ctypes.c_double)))
        status = _libgsf.gsfLoadScaleFactor(
            ctypes.byref(ping.scaleFactors), int(subrecord), _FOUR_BYTES, PRECISION, 0
        )
        if status != 0:
            msg = f'libgsf refused the scale factor of {name}'
            raise NpsSonarError(msg)
    return arrays
