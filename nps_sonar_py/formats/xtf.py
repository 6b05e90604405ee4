"""Side-scan records in XTF (eXtended Triton Format), read and written with ``pyxtf``.

:func:`read_sidescan` gives the sonar packets of a two-channel side-scan file as arrays, both
channels near to far (XTF stores the port channel far to near), with the navigation each ping
carries; :func:`write_sidescan` writes such a record as an XTF file that ``pyxtf`` and the
field's other readers read back (``docs/realism.md``).
"""

from __future__ import annotations

import ctypes
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyxtf
from numpy.typing import NDArray

from nps_sonar_py.errors import NpsSonarError

__all__ = ['KNOT', 'SidescanRecord', 'read_sidescan', 'write_sidescan']

#: XTF's channel types of a side-scan's port and starboard channels.
_PORT, _STARBOARD = pyxtf.XTFChannelType.port.value, pyxtf.XTFChannelType.stbd.value
#: Metres per second in a knot (XTF's ``SensorSpeed`` is in knots).
KNOT = 1852.0 / 3600.0
#: XTF's sample format code of unsigned 16-bit samples.
_UINT16_FORMAT = 3


@dataclass(frozen=True)
class SidescanRecord:
    """A two-channel side-scan record: the stored samples and each ping's navigation.

    Attributes:
        port: (pings, samples) the port channel's stored samples, near to far.
        starboard: (pings, samples) the starboard channel's, near to far.
        slant_range: range of the last sample, m.
        frequency: carrier, Hz.
        altitude: (pings,) height above the seabed, m (0 where the file has none).
        speed: (pings,) the sensor's speed, m/s (XTF stores knots).
        depth: (pings,) sensor depth, m.
        pitch: (pings,) pitch field, degrees.
        times: (pings,) seconds since the first ping.
        sonar_name: the file header's sonar name.
    """

    port: NDArray[np.uint16]
    starboard: NDArray[np.uint16]
    slant_range: float
    frequency: float
    altitude: NDArray[np.float64]
    speed: NDArray[np.float64]
    depth: NDArray[np.float64]
    pitch: NDArray[np.float64]
    times: NDArray[np.float64]
    sonar_name: str = ''

    @property
    def samples(self) -> int:
        """Samples per channel."""
        return int(self.port.shape[1])


def read_sidescan(path: Path) -> SidescanRecord:
    """The side-scan record of XTF file ``path``; ``NpsSonarError`` names what is missing."""
    try:
        header, packets = pyxtf.xtf_read(str(path), types=[pyxtf.XTFHeaderType.sonar])
    except (OSError, RuntimeError, ValueError, IndexError, KeyError, struct.error) as error:
        # pyxtf raises IndexError on a corrupt channel number (a channel its header lacks);
        # KeyError and struct.error guard other damaged fields.
        msg = f'{path}: not a readable XTF file ({error})'
        raise NpsSonarError(msg) from error
    pings = packets.get(pyxtf.XTFHeaderType.sonar, [])
    if not pings or header.NumberOfSonarChannels < 2:
        channels = header.NumberOfSonarChannels
        msg = f'{path}: no two-channel side-scan pings (sonar channels: {channels})'
        raise NpsSonarError(msg)
    lengths = {len(channel) for ping in pings for channel in ping.data[:2]}
    if len(lengths) != 1:
        msg = f'{path}: channels of different lengths {sorted(lengths)} are not supported'
        raise NpsSonarError(msg)
    types = [header.ChanInfo[c.ChannelNumber].TypeOfChannel for c in pings[0].ping_chan_headers]
    port_index = types.index(_PORT) if _PORT in types else 0
    stbd_index = 1 - port_index
    port = np.stack([ping.data[port_index] for ping in pings])[:, ::-1]
    starboard = np.stack([ping.data[stbd_index] for ping in pings])
    first = pings[0].ping_chan_headers[port_index]
    times = np.array(
        [float(ping.get_time().astype('datetime64[ns]').astype(np.int64)) for ping in pings]
    )

    def field(name: str) -> NDArray[np.float64]:
        return np.array([float(getattr(ping, name)) for ping in pings])

    return SidescanRecord(
        port=np.ascontiguousarray(port, dtype=np.uint16),
        starboard=np.ascontiguousarray(starboard, dtype=np.uint16),
        slant_range=float(first.SlantRange),
        frequency=float(header.ChanInfo[first.ChannelNumber].Frequency) * 1e3,
        altitude=field('SensorPrimaryAltitude'),
        speed=field('SensorSpeed') * KNOT,
        depth=field('SensorDepth'),
        pitch=field('SensorPitch'),
        times=(times - times[0]) * 1e-9,
        sonar_name=header.SonarName.decode('ascii', 'replace').strip('\x00 '),
    )


def write_sidescan(path: Path, record: SidescanRecord) -> None:
    """Write ``record`` as an XTF file of two uint16 channels, port stored far to near."""
    pings, samples = record.port.shape
    header = pyxtf.XTFFileHeader()
    header.RecordingProgramName = b'nps_sonr'  # 8 bytes at most
    header.SonarName = record.sonar_name.encode('ascii', 'replace')[:15]
    header.NumberOfSonarChannels = 2
    header.NavUnits = 3  # latitude and longitude
    for index, kind in enumerate((_PORT, _STARBOARD)):
        info = header.ChanInfo[index]
        info.TypeOfChannel = kind
        info.SubChannelNumber = index
        info.BytesPerSample = 2
        info.SampleFormat = _UINT16_FORMAT
        info.Frequency = record.frequency * 1e-3
        info.UniPolar = 1
        info.ChannelName = b'PORT' if kind == _PORT else b'STBD'
    packets = [bytes(header)]
    for i in range(pings):
        packets.append(_ping_bytes(record, i, samples))
    Path(path).write_bytes(b''.join(packets))


def _ping_bytes(record: SidescanRecord, i: int, samples: int) -> bytes:
    """Ping ``i`` of ``record`` as one XTF sonar packet, padded to 64 bytes."""
    ping = pyxtf.XTFPingHeader()
    ping.MagicNumber = 0xFACE
    ping.HeaderType = int(pyxtf.XTFHeaderType.sonar)
    ping.NumChansToFollow = 2
    ping.Year, ping.Month, ping.Day, ping.JulianDay = 2026, 1, 1, 1
    # Rounded to XTF's 1/100 s first, so that 1.99997 s carries into 2.00, not 1.00.
    whole, ping.HSeconds = divmod(round(float(record.times[i]) * 100), 100)
    ping.Hour, rest = divmod(whole, 3600)
    ping.Minute, ping.Second = divmod(rest, 60)
    ping.PingNumber = i
    ping.SoundVelocity = 750.0  # XTF: one-way, half the sound speed
    ping.SensorSpeed = float(record.speed[i]) / KNOT
    ping.SensorPrimaryAltitude = float(record.altitude[i])
    ping.SensorDepth = float(record.depth[i])
    ping.SensorPitch = float(record.pitch[i])
    channels = (record.port[i, ::-1], record.starboard[i])
    heads = []
    for number, data in enumerate(channels):
        chan = pyxtf.XTFPingChanHeader()
        chan.ChannelNumber = number
        chan.SlantRange = record.slant_range
        chan.Frequency = round(record.frequency * 1e-3)
        chan.NumSamples = samples
        heads.append(bytes(chan) + np.ascontiguousarray(data, dtype='<u2').tobytes())
    size = ctypes.sizeof(pyxtf.XTFPingHeader) + sum(len(h) for h in heads)
    padded = pyxtf.xtf_io.xtf_padding(size)
    ping.NumBytesThisRecord = padded
    return bytes(ping) + b''.join(heads) + bytes(padded - size)
