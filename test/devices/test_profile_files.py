"""Both settings that name a sound-speed profile file read it as every input file is read.

``sound_speed_profile_file`` (the water) and ``processing_profile_file`` (the echosounder's
soundings) used to ``open`` their file as it came: a FIFO blocked the node for ever and
``/dev/zero`` filled its memory. Both are now one line at once (``input_files``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nps_sonar_py.devices.kinds.echosounder import EchosounderSettings
from nps_sonar_py.devices.settings import BeamSettings
from nps_sonar_py.errors import InputError


@pytest.mark.parametrize('setting', ['sound_speed_profile_file', 'processing_profile_file'])
@pytest.mark.parametrize('kind', ['fifo', 'device'])
def test_a_profile_file_that_would_block_or_flood_is_one_line(
    tmp_path: Path, setting: str, kind: str
) -> None:
    path = tmp_path / 'svp.csv'
    if kind == 'fifo':
        os.mkfifo(path)  # nobody writes: opening it to read would wait for ever
        expected = 'FIFO'
    else:
        path, expected = Path('/dev/zero'), 'character device'
    if setting == 'sound_speed_profile_file':
        read = BeamSettings(sound_speed_profile_file=str(path)).water_profile
    else:
        read = EchosounderSettings(processing_profile_file=str(path)).processing_profile
    with pytest.raises(InputError) as error:
        read()
    assert str(error.value) == f'{path}: sound-speed profile is not a regular file ({expected})'


def test_a_good_profile_file_is_read_by_both(tmp_path: Path) -> None:
    """The control: the same settings read a regular file."""
    path = tmp_path / 'svp.csv'
    path.write_text('depth,speed\n0,1500\n100,1490\n')
    water = BeamSettings(sound_speed_profile_file=str(path)).water_profile()
    processing = EchosounderSettings(processing_profile_file=str(path)).processing_profile()
    assert water is not None
    assert processing is not None
    assert water.speeds.tolist() == processing.speeds.tolist() == [1500.0, 1490.0]
