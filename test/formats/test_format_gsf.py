"""GSF swath bathymetry through libgsf (gsfpy): the real file read, soundings written back."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from real_records import real_file

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig
from nps_sonar_py.errors import NpsSonarError
from nps_sonar_py.formats.gsf import (
    PRECISION,
    Soundings,
    read_soundings,
    soundings_of,
    write_soundings,
)
from nps_sonar_py.scene.raycaster import Raycaster
from nps_sonar_py.scene.scene_state import SceneState
from nps_sonar_py.scene.tessellation import Triangles, plane_triangles
from nps_sonar_py.scene.world import Entity, World
from nps_sonar_py.sensing.echosounder import Echosounder, SwathConfig

DEPTH = 40.0  # flat seabed under the transducer, m


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


def test_an_echosounder_ping_is_written_and_read_as_gsf(tmp_path: Path) -> None:
    plane = plane_triangles([100.0, 100.0])
    bed = Triangles(plane.vertices + np.array([0.0, 0.0, -DEPTH]), plane.triangles)
    caster = Raycaster(World('bed', (Entity('bed', bed),), SceneState('bed', 0.0, ())))
    echo = EchoConfig(
        beam_width=np.radians(1.0),
        pattern=BeamPattern.PISTON,
        absorption=Absorption.NONE,
        min_range=1.0,
        max_range=150.0,
        n_bins=2980,
        sound_speed=1500.0,
        frequency=300e3,
    )
    swath = SwathConfig(
        beams=61,
        max_angle=np.radians(75.0),
        min_angle=np.radians(-75.0),
        across_width=np.radians(1.0),
        along_width=np.radians(1.0),
        rays_across=31,
        rays_along=3,
        pulse_duration=240e-6,
    )
    ping = Echosounder(echo, swath, np.eye(4)).ping(caster)
    soundings = soundings_of([ping], np.array([1.7e9]), np.zeros(1), np.zeros(1), np.zeros(1))
    write_soundings(tmp_path / 'swath.gsf', soundings)
    back = read_soundings(tmp_path / 'swath.gsf')
    hit = np.isfinite(soundings.depth[0])
    assert 0 < hit.sum() < 61  # the outer beams at 75 degrees miss the 100 m plane
    # GSF's depth is positive down: the flat seabed 40 m under, within the detection's spread
    np.testing.assert_allclose(back.depth[0, hit], DEPTH, atol=0.5)
    # across track positive to starboard: the first beam (min_angle, negative: to starboard)
    # positive, the last (to port) negative, as the body frame's y negated
    across = back.across_track[0, hit]
    assert across[0] > 0.0 > across[-1]
    np.testing.assert_allclose(across, -ping.points[hit, 1], atol=PRECISION)
    assert np.all(np.isnan(back.depth[0, ~hit]))  # a missing sounding: GSF's null, read as NaN
    # control: the body frame's z is negative down; unconverted it would be -40
    assert np.nanmedian(ping.points[:, 2]) == pytest.approx(-DEPTH, abs=0.5)


@pytest.mark.parametrize('cut', [0, 10, 100, 2047, 82_653])
def test_a_truncated_real_file_is_one_clear_error(tmp_path: Path, cut: int) -> None:
    data = real_file('multibeam/GSF3_08_test_file.gsf').read_bytes()
    path = tmp_path / 'cut.gsf'
    path.write_bytes(data[:cut])
    with pytest.raises(NpsSonarError, match=r'^\S*cut\.gsf: [^\n]+$'):
        read_soundings(path)
    # Negative control: the whole file reads.
    assert read_soundings(real_file('multibeam/GSF3_08_test_file.gsf')).depth.shape == (8, 432)
