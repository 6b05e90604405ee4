"""Sound-speed profiles: tables, files, Mackenzie (1981), and every refusal in one line."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from nps_sonar_py.echo.sound_speed import (
    MAX_LAYERS,
    MAX_PROFILE_BYTES,
    SoundSpeedProfile,
    mackenzie_1981,
    read_profile_file,
)
from nps_sonar_py.errors import InputError


def test_mackenzie_check_value() -> None:
    # Mackenzie (1981), the paper's check value: 1550.744 m/s at 25 deg C, 35 ppt, 1000 m
    assert mackenzie_1981(1000.0, 25.0, 35.0) == pytest.approx(1550.744, abs=5e-4)


def test_mackenzie_at_the_surface_is_the_constant_and_temperature_terms() -> None:
    # at S = 35 ppt and D = 0 only the four temperature terms remain (the equation's own form)
    t = 10.0
    expected = 1448.96 + 4.591 * t - 5.304e-2 * t**2 + 2.374e-4 * t**3
    assert mackenzie_1981(0.0, t, 35.0) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize(
    ('depth', 'temperature', 'salinity', 'word'),
    [
        (9000.0, 10.0, 35.0, 'depth'),
        (0.0, 31.0, 35.0, 'temperature'),
        (0.0, 10.0, 20.0, 'salinity'),
    ],
)
def test_mackenzie_refuses_outside_its_validity(
    depth: float, temperature: float, salinity: float, word: str
) -> None:
    with pytest.raises(ValueError, match=f'{word}.*Mackenzie') as error:
        mackenzie_1981(depth, temperature, salinity)
    assert '\n' not in str(error.value)


def test_speed_is_linear_between_rows_and_constant_beyond() -> None:
    profile = SoundSpeedProfile.from_rows([(10.0, 1500.0), (110.0, 1520.0)], source='p')
    np.testing.assert_allclose(
        profile.speed_at([0.0, 10.0, 60.0, 110.0, 500.0]), [1500, 1500, 1510, 1520, 1520]
    )
    assert SoundSpeedProfile.constant(1490.0).speed_at(3000.0) == 1490.0
    assert SoundSpeedProfile.constant(1490.0).is_constant


def test_files_of_speeds_and_of_temperature_and_salinity(tmp_path: Path) -> None:
    speeds = tmp_path / 'svp.csv'
    speeds.write_text('# an SVP cast\ndepth [m], speed [m/s]\n0, 1500\n\n100, 1490.5\n')
    profile = read_profile_file(str(speeds))
    np.testing.assert_array_equal(profile.depths, [0.0, 100.0])
    np.testing.assert_array_equal(profile.speeds, [1500.0, 1490.5])
    ctd = tmp_path / 'ctd.txt'
    ctd.write_text('0 10 35\n1000 25 35\n')  # no header: depth, temperature, salinity
    profile = read_profile_file(str(ctd))
    assert profile.speeds[1] == pytest.approx(1550.744, abs=5e-4)
    reordered = tmp_path / 'reordered.csv'
    reordered.write_text('salinity,temperature,depth\n35,25,1000\n')
    assert read_profile_file(str(reordered)).speeds[0] == pytest.approx(1550.744, abs=5e-4)


@pytest.mark.parametrize(
    ('text', 'where', 'problem'),
    [
        ('0,1500\n10,1490\n10,1480\n', ':3: row 3', 'strictly increasing'),
        ('0,1500\n20,1490\n10,1480\n', ':3: row 3', 'strictly increasing'),
        ('0,1500\n10,nan\n', ':2: row 2', 'finite'),
        ('0,1500\n10,1200\n', ':2: row 2', '1300'),
        ('0,1900\n', ':1: row 1', '1800'),
        ('-5,1500\n', ':1: row 1', 'depth'),
        ('0,10,35\n100,35,35\n', ':2: row 2', 'temperature 35'),
        ('0,1500\n10,1490,3\n', ':2: row 2', 'expected 2 values'),
        ('0,1500\n10,fast\n', ':2: row 2', 'numbers'),
        ('depth,pressure\n0,1\n', ':1', 'unknown column'),
        ('# nothing\n', '', 'no rows'),
    ],
)
def test_bad_files_are_refused_in_one_line(
    tmp_path: Path, text: str, where: str, problem: str
) -> None:
    path = tmp_path / 'bad.csv'
    path.write_text(text)
    with pytest.raises(InputError) as error:
        read_profile_file(str(path))
    message = str(error.value)
    assert message.startswith(f'{path}{where}')
    assert problem in message
    assert '\n' not in message


def test_unreadable_and_oversized_files_are_refused(tmp_path: Path) -> None:
    missing = tmp_path / 'missing.csv'
    with pytest.raises(InputError, match='sound-speed profile not found') as error:
        read_profile_file(str(missing))
    assert str(error.value).startswith(str(missing))
    locked = tmp_path / 'locked.csv'
    locked.write_text('0,1500\n')
    locked.chmod(0)
    if os.geteuid() != 0:  # root reads any file
        with pytest.raises(InputError, match='cannot read sound-speed profile: Permission'):
            read_profile_file(str(locked))
    binary = tmp_path / 'binary.csv'
    binary.write_bytes(b'\xff\xfe\x00\x01')
    with pytest.raises(InputError, match='not a text file'):
        read_profile_file(str(binary))
    big = tmp_path / 'big.csv'
    big.write_text(''.join(f'{i},1500\n' for i in range(MAX_LAYERS + 1)))
    with pytest.raises(InputError, match=f'more than {MAX_LAYERS} rows') as error:
        read_profile_file(str(big))
    assert f':{MAX_LAYERS + 1}:' in str(error.value)


@pytest.mark.parametrize('kind', ['fifo', 'device', 'directory', 'sparse'])
def test_files_that_would_block_or_flood_are_refused_before_they_are_read(
    tmp_path: Path, kind: str
) -> None:
    """A FIFO blocked the reader forever; /dev/zero and a sparse 1 GiB file filled memory."""
    path = tmp_path / 'svp.csv'
    expected = {
        'fifo': 'is not a regular file (FIFO)',
        'device': 'is not a regular file (character device)',
        'directory': 'is not a regular file (directory)',
        'sparse': 'is too large: 1073741824 bytes (1.02e+03 MiB); the limit is '
        f'{MAX_PROFILE_BYTES} bytes',
    }[kind]
    if kind == 'fifo':
        os.mkfifo(path)  # nobody writes: opening it to read would wait for ever
    elif kind == 'device':
        path = Path('/dev/zero')
    elif kind == 'directory':
        path.mkdir()
    else:
        with path.open('wb') as stream:  # a hole: no disk used, st_size 1 GiB
            stream.truncate(2**30)
    with pytest.raises(InputError) as error:
        read_profile_file(str(path))
    message = str(error.value)
    assert message.startswith(f'{path}: sound-speed profile {expected}'), message
    assert '\n' not in message


def test_a_file_at_the_size_limit_is_read_and_one_byte_more_is_not(tmp_path: Path) -> None:
    rows = '0,1500\n100,1490\n'
    path = tmp_path / 'svp.csv'
    path.write_text('#' * (MAX_PROFILE_BYTES - len(rows) - 1) + '\n' + rows)
    assert path.stat().st_size == MAX_PROFILE_BYTES
    assert read_profile_file(str(path)).speeds.tolist() == [1500.0, 1490.0]
    with path.open('a') as stream:
        stream.write(' ')
    with pytest.raises(InputError, match='is too large'):
        read_profile_file(str(path))


def test_rows_and_flat_lists_are_checked() -> None:
    with pytest.raises(InputError, match=r'^param: more than') as error:
        SoundSpeedProfile.from_flat([0.0, 1500.0] * (MAX_LAYERS + 1), source='param')
    assert '\n' not in str(error.value)
    with pytest.raises(InputError, match=r'^param: .*even count'):
        SoundSpeedProfile.from_flat([0.0, 1500.0, 10.0], source='param')
    with pytest.raises(InputError, match=r'^param: row 2: .*strictly increasing'):
        SoundSpeedProfile.from_flat([5.0, 1500.0, 5.0, 1490.0], source='param')
    with pytest.raises(InputError, match=r'^param: no rows'):
        SoundSpeedProfile.from_rows([], source='param')
    flat = SoundSpeedProfile.from_flat([0.0, 1500.0, 50.0, 1480.0], source='param')
    np.testing.assert_array_equal(flat.gradients(), [-0.4])
