"""Oculus SimplePingResult pings: the real messages read from their header fields, and written."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from real_records import real_file

from nps_sonar_py.echo.display_presets import display_chain, oculus_gamma
from nps_sonar_py.errors import NpsSonarError
from nps_sonar_py.formats.oculus import OculusPing, read_oculus, write_oculus


def test_the_real_pings_read_as_their_source_describes_them() -> None:
    pings = read_oculus(real_file('fls/three_pings_8bit.raw'))
    assert len(pings) == 3
    ping = pings[0]
    assert ping.image.shape == (703, 256)
    assert ping.image.dtype == np.uint8
    assert ping.frequency == pytest.approx(2.0989e6, rel=1e-4)
    assert ping.range == 2.0
    assert ping.range_resolution == pytest.approx(2.842e-3, rel=1e-3)
    assert (ping.gamma, ping.gain_percent, ping.row_gains) == (127, 50.0, None)
    assert math.degrees(ping.bearings[0]) == pytest.approx(-30.0)
    assert math.degrees(ping.bearings[-1]) == pytest.approx(30.0)
    # the scene is still: the pings correlate at about 0.97; the one-ping file is the first
    a, b = (p.image.astype(float).ravel() for p in pings[:2])
    assert np.corrcoef(a, b)[0, 1] > 0.9
    one = read_oculus(real_file('fls/one_ping_8bit.raw'))
    assert len(one) == 1
    np.testing.assert_array_equal(one[0].image, ping.image)


def test_written_pings_read_back_and_keep_the_real_layout(tmp_path: Path) -> None:
    source = real_file('fls/three_pings_8bit.raw')
    pings = read_oculus(source)
    path = tmp_path / 'copy.raw'
    write_oculus(path, pings)
    assert path.stat().st_size == source.stat().st_size  # image at byte 2048, as the device
    for a, b in zip(pings, read_oculus(path), strict=True):
        np.testing.assert_array_equal(a.image, b.image)
        np.testing.assert_allclose(a.bearings, b.bearings, atol=1e-6)
        assert (a.frequency, a.range_resolution, a.gamma) == (
            b.frequency,
            b.range_resolution,
            b.gamma,
        )


def test_the_device_encoding_beside_the_linear_one(tmp_path: Path) -> None:
    chain = display_chain('oculus_m750d_hf', samples=50, max_range=1.0, gamma=oculus_gamma(127))
    edges = np.linspace(0.0, 1.0, 51)
    linear = np.random.default_rng(5).exponential(1e-3, (8, 50))
    image = chain.apply(linear, edges)
    ping = OculusPing(
        image=image.codes.T.copy(),
        bearings=np.radians(np.linspace(-10, 10, 8)),
        frequency=1.2e6,
        range_resolution=0.02,
        range=1.0,
        gain_percent=50.0,
        gamma=127,
        speed_of_sound=1500.0,
    )
    write_oculus(tmp_path / 'sim.raw', [ping])
    back = read_oculus(tmp_path / 'sim.raw')[0]
    np.testing.assert_array_equal(back.image.T, image.codes)
    # bins = samples here: the linear image is the echo and the preset's water column
    water = chain.water_column(linear, edges)
    np.testing.assert_allclose(image.linear, linear + water, rtol=1e-6)


def test_bad_messages_are_named(tmp_path: Path) -> None:
    data = bytearray(real_file('fls/one_ping_8bit.raw').read_bytes())
    bad = tmp_path / 'bad.raw'
    bad.write_bytes(b'XX' + bytes(data[2:]))
    with pytest.raises(NpsSonarError, match='not an Oculus message'):
        read_oculus(bad)
    bad.write_bytes(bytes(data[:100_000]))
    with pytest.raises(NpsSonarError, match='cut off'):
        read_oculus(bad)
    # An image size that does not match the ranges and beams (the message is complete).
    wrong = bytearray(data)
    wrong[16 + 37 + 61 : 16 + 37 + 65] = (12345).to_bytes(4, 'little')  # imageSize
    bad.write_bytes(bytes(wrong))
    with pytest.raises(NpsSonarError, match='does not hold 703 x 256'):
        read_oculus(bad)


@pytest.mark.parametrize('cut', [10, 16, 100, 180, 2047, 182_016 + 10, 273_031, -1])
def test_a_truncated_real_file_is_one_clear_error(tmp_path: Path, cut: int) -> None:
    data = real_file('fls/three_pings_8bit.raw').read_bytes()
    bad = tmp_path / 'cut.raw'
    bad.write_bytes(data[:cut])
    with pytest.raises(NpsSonarError, match=r'^\S*cut\.raw: [^\n]+$'):
        read_oculus(bad)
    # Negative control: cut at a message boundary, the file is whole pings and reads.
    bad.write_bytes(data[:182_016])
    assert len(read_oculus(bad)) == 1


def test_a_missing_file_or_a_folder_is_one_clear_error(tmp_path: Path) -> None:
    for path in (tmp_path / 'missing.raw', tmp_path):
        with pytest.raises(NpsSonarError, match=r'^\S+: not a readable Oculus file \(.+\)$'):
            read_oculus(path)


def test_an_image_past_its_message_is_refused(tmp_path: Path) -> None:
    """The first of three pings pointing its image 2000 bytes on: into the second message."""
    data = bytearray(real_file('fls/three_pings_8bit.raw').read_bytes())
    at = 16 + 37 + 57  # imageOffset in the first message's result
    offset = int.from_bytes(data[at : at + 4], 'little')
    data[at : at + 4] = (offset + 2000).to_bytes(4, 'little')
    bad = tmp_path / 'past.raw'
    bad.write_bytes(bytes(data))
    with pytest.raises(NpsSonarError, match=r'byte 0: image of 179968 bytes does not hold'):
        read_oculus(bad)
    # Negative control: the offset unchanged, the three pings read.
    data[at : at + 4] = offset.to_bytes(4, 'little')
    bad.write_bytes(bytes(data))
    assert len(read_oculus(bad)) == 3
