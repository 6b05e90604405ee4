"""The profile drawn of a scanning sonar is the ping at a fixed head angle, whenever it stopped.

``plots.profile_ping`` picks, of the pings' azimuths, the latest nearest ``PROFILE_AZIMUTH``
(0 rad); ``draw_report`` draws that ping's profile. Two recordings of one scanning head that
stop at different head angles therefore draw the same ``profile.png``, byte for byte.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from nps_sonar_py import plots

STEP = 2.0 * math.pi / 400  # the Ping360's head step, as the demo's scanning sonar


def head_angles(steps: int) -> np.ndarray:
    """The head angles of ``steps`` steps of a full-turn sweep from -pi, wrapped as published."""
    angles = -math.pi + STEP * np.arange(steps)
    return np.angle(np.exp(1j * angles))


def test_a_sweep_draws_the_latest_ping_at_azimuth_0() -> None:
    # Two and a half turns from -pi: azimuth 0 is step 200 of each turn, the last at 400 + 200.
    assert plots.profile_ping(head_angles(1000)) == 600
    # Stopped just before the third turn reaches 0: still the second turn's.
    assert plots.profile_ping(head_angles(999)) == 600
    assert plots.profile_ping(head_angles(1001)) == 1000


def test_angles_are_compared_modulo_two_pi() -> None:
    assert plots.profile_ping([3.0, 2.0 * math.pi + 0.01, 0.5]) == 1
    assert plots.profile_ping([3.0, -3.1, 0.5], azimuth=math.pi) == 1  # -3.1 is 0.04 from pi


def test_a_fixed_sonar_draws_its_last_ping() -> None:
    assert plots.profile_ping(np.full(7, 0.3)) == 6


@pytest.mark.parametrize('azimuths', [[], [0.0, math.nan], [[0.0, 1.0]]])
def test_bad_azimuths_are_refused(azimuths: list) -> None:
    with pytest.raises(ValueError, match='finite azimuths'):
        plots.profile_ping(azimuths)


def write_sweep_bag(path: Path, azimuths: np.ndarray, n_bins: int = 60) -> None:
    """A bag of SonarPoint pings whose one echo lies at 2 + azimuth m (a wall seen obliquely)."""
    from rosbags.rosbag2 import StoragePlugin, Writer

    from nps_sonar_py.ros.recorder import BAG_VERSION, SONAR_POINT, make_typestore, register_type

    store = make_typestore()
    register_type(store, SONAR_POINT)
    sonar_point = store.types[SONAR_POINT]
    header, stamp = store.types['std_msgs/msg/Header'], store.types['builtin_interfaces/msg/Time']
    edges = plots.bin_edges(0.1, 7.0, n_bins)
    with Writer(path, version=BAG_VERSION, storage_plugin=StoragePlugin.MCAP) as writer:
        connection = writer.add_connection('/ping360/sonar_point', SONAR_POINT, typestore=store)
        for i, azimuth in enumerate(azimuths):
            echo_range = 2.0 + float(azimuth)
            profile = np.full(n_bins, 1e-6, dtype=np.float32)
            profile[np.searchsorted(edges, echo_range) - 1] = 1e-2
            t = 10**9 + i * 10**7
            message = sonar_point(
                header=header(stamp=stamp(sec=t // 10**9, nanosec=t % 10**9), frame_id='head'),
                range=echo_range,
                intensity=float(profile.sum()),
                intensity_db=float(10 * np.log10(profile.sum())),
                source_level=0.0,
                confidence=1.0,
                range_estimator=0,
                azimuth=float(azimuth),
                beam_width=0.03,
                cast_half_angle=0.03,
                frequency=7.5e5,
                sound_speed=1500.0,
                min_range=0.1,
                max_range=7.0,
                bin_width=float(edges[1] - edges[0]),
                profile=profile,
                hits=np.zeros(n_bins, dtype=np.uint32),
                rays=50,
            )
            writer.write(connection, t, store.serialize_cdr(message, SONAR_POINT))


def test_recordings_stopping_at_other_head_angles_draw_the_same_profile(tmp_path: Path) -> None:
    from nps_sonar_py.ros.recorder import draw_report

    pictures = []
    for steps in (520, 733):  # stopped at -72 and +120 degrees, past azimuth 0 each time
        write_sweep_bag(tmp_path / f'bag{steps}', head_angles(steps))
        report = draw_report(tmp_path / f'bag{steps}')
        assert report.profile is not None
        pictures.append(report.profile.read_bytes())
    assert pictures[0] == pictures[1]
