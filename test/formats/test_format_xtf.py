"""XTF side-scan: the real record read as its README describes it, and written back."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from real_records import real_file

from nps_sonar_py.errors import NpsSonarError
from nps_sonar_py.formats.xtf import KNOT, read_sidescan, write_sidescan

RECORD = 'sidescan/scotsman-iver2.xtf'


def test_the_real_record_reads_as_its_source_describes_it() -> None:
    record = read_sidescan(real_file(RECORD))
    assert record.port.shape == record.starboard.shape == (461, 1024)
    assert record.port.dtype == np.uint16
    assert record.frequency == 600e3
    assert record.slant_range == pytest.approx(29.98, abs=0.01)
    assert record.sonar_name == 'HDS'
    # navigation: the first ping's fields are zero; altitude 2.7-10.7 m, median 4.7 m
    assert record.altitude[0] == 0.0
    assert np.median(record.altitude[1:]) == pytest.approx(4.7, abs=0.1)
    assert np.median(np.diff(record.times)) == pytest.approx(0.110, abs=0.001)
    assert np.median(record.speed[1:]) / KNOT == pytest.approx(2.0, abs=0.1)  # stored in knots
    # both channels near to far: the 32767 markers first, then the dim water column
    for channel in (record.port, record.starboard):
        assert np.mean(channel[1:, :8] == 32767) > 0.95
        assert channel[1:, 12:60].mean() < 0.1 * channel[1:, 500:].mean()
    # control: the port channel as stored (far to near) has its markers at the other end
    assert np.mean(record.port[1:, ::-1][:, :8] == 32767) < 0.5


def test_a_written_record_reads_back_the_same(tmp_path: Path) -> None:
    record = read_sidescan(real_file(RECORD))
    path = tmp_path / 'copy.xtf'
    write_sidescan(path, record)
    back = read_sidescan(path)
    np.testing.assert_array_equal(back.port, record.port)
    np.testing.assert_array_equal(back.starboard, record.starboard)
    for name in ('altitude', 'speed', 'depth', 'pitch', 'times'):
        np.testing.assert_allclose(getattr(back, name), getattr(record, name), atol=1e-5)
    assert (back.frequency, back.slant_range) == (record.frequency, pytest.approx(29.98, abs=0.01))


def test_a_synthetic_record_round_trips(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 32768, (2, 5, 64), dtype=np.uint16)
    record = read_sidescan(real_file(RECORD))
    from dataclasses import replace

    small = replace(
        record,
        port=codes[0],
        starboard=codes[1],
        altitude=np.full(5, 3.0),
        speed=np.full(5, 1.5),
        depth=np.zeros(5),
        pitch=np.zeros(5),
        times=np.arange(5) * 0.25,
        slant_range=12.5,
    )
    write_sidescan(tmp_path / 'small.xtf', small)
    back = read_sidescan(tmp_path / 'small.xtf')
    np.testing.assert_array_equal(back.port, codes[0])
    np.testing.assert_array_equal(back.starboard, codes[1])
    np.testing.assert_allclose(back.times, small.times, atol=0.005)  # stored in 1/100 s
    assert back.slant_range == 12.5


def test_a_time_just_under_a_second_carries_into_it(tmp_path: Path) -> None:
    """Times stored in 1/100 s: 1.99997 s is 2.00 s, 59.996 s is 1 min 0.00 s.

    Negative control: the fraction rounded apart from the whole seconds (1 + round(99.997)
    % 100 / 100) reads 1.00 s, a second early (a recorded bag's ping stamped 1.99997 s).
    """
    times = np.array([0.0, 0.995, 1.99997, 59.996, 3599.999])
    record = read_sidescan(real_file(RECORD))
    from dataclasses import replace

    n = times.size
    codes = np.zeros((n, 16), dtype=np.uint16)
    small = replace(
        record,
        port=codes,
        starboard=codes,
        altitude=np.ones(n),
        speed=np.ones(n),
        depth=np.zeros(n),
        pitch=np.zeros(n),
        times=times,
    )
    write_sidescan(tmp_path / 'times.xtf', small)
    back = read_sidescan(tmp_path / 'times.xtf')
    np.testing.assert_allclose(back.times, times, atol=0.005)
    apart = np.floor(times) + np.round((times - np.floor(times)) * 100) % 100 / 100
    assert np.max(np.abs(apart - times)) > 0.5


def test_not_an_xtf_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / 'bad.xtf'
    path.write_bytes(b'\x00' * 2048)
    with pytest.raises(NpsSonarError, match=r'bad\.xtf'):
        read_sidescan(path)


@pytest.mark.parametrize('cut', [0, 10, 1000, 2047, 2100, 688_768, 1_033_159, -1])
def test_a_truncated_real_record_is_one_clear_error(tmp_path: Path, cut: int) -> None:
    data = real_file('sidescan/scotsman-iver2.xtf').read_bytes()
    path = tmp_path / 'cut.xtf'
    path.write_bytes(data[:cut])
    with pytest.raises(NpsSonarError, match=r'^\S*cut\.xtf: [^\n]+$'):
        read_sidescan(path)


def test_a_corrupt_packet_is_one_clear_error(tmp_path: Path) -> None:
    data = bytearray(real_file('sidescan/scotsman-iver2.xtf').read_bytes())
    data[200:260] = b'\xff' * 60  # a channel header's fields: pyxtf itself raises IndexError
    path = tmp_path / 'corrupt.xtf'
    path.write_bytes(bytes(data))
    with pytest.raises(NpsSonarError, match=r'^\S*corrupt\.xtf: [^\n]+$'):
        read_sidescan(path)
    # Negative control: the same bytes unchanged read (the error comes from the corruption).
    assert read_sidescan(real_file('sidescan/scotsman-iver2.xtf')).port.shape[0] > 0
