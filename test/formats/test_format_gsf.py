"""GSF swath bathymetry through libgsf (gsfpy): the real file read, soundings written back."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from real_records import real_file

from nps_sonar_py.errors import NpsSonarError
from nps_sonar_py.formats.gsf import PRECISION, Soundings, read_soundings, write_soundings


def test_the_real_file_reads_as_its_source_describes_it() -> None:
    soundings = read_soundings(real_file('multibeam/GSF3_08_test_file.gsf'))
    assert soundings.depth.shape == (8, 432)
    assert 3000.0 < np.nanmedian(soundings.depth) < 6000.0  # Okeanos Explorer, deep water
    assert np.all(np.diff(soundings.times) > 0.0)
    # across track runs from port (negative) to starboard
    assert soundings.across_track[0, 0] < 0.0 < soundings.across_track[0, -1]


def test_soundings_round_trip_at_the_stored_precision(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    pings, beams = 4, 16
    soundings = Soundings(
        depth=rng.uniform(5.0, 60.0, (pings, beams)),
        across_track=np.tile(np.linspace(-30.0, 30.0, beams), (pings, 1)),
        along_track=rng.uniform(-0.5, 0.5, (pings, beams)),
        times=1.7e9 + np.arange(pings) * 0.5,
        latitude=np.full(pings, 36.6),
        longitude=np.full(pings, -121.9),
        heading=np.full(pings, 90.0),
    )
    write_soundings(tmp_path / 'sim.gsf', soundings)
    back = read_soundings(tmp_path / 'sim.gsf')
    for name in ('depth', 'across_track', 'along_track'):
        error = np.abs(getattr(back, name) - getattr(soundings, name))
        assert error.max() <= 0.5 * PRECISION + 1e-9, name
    # control: the stored values are rounded, not the float64s (a lossless copy would be 0)
    assert np.abs(back.depth - soundings.depth).max() > 0.0
    np.testing.assert_allclose(back.times, soundings.times, atol=1e-6)


def test_not_a_gsf_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / 'bad.gsf'
    path.write_bytes(b'not gsf' * 100)
    with pytest.raises(NpsSonarError, match=r'bad\.gsf'):
        read_soundings(path)
