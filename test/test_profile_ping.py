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
from test_plots import write_sonar_bag

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


def test_recordings_stopping_at_other_head_angles_draw_the_same_profile(tmp_path: Path) -> None:
    from nps_sonar_py.ros.bag_report import draw_report

    pictures = []
    for steps in (520, 733):  # stopped at -72 and +120 degrees, past azimuth 0 each time
        angles = head_angles(steps)  # a wall seen obliquely: the echo at 2 + azimuth m
        write_sonar_bag(tmp_path / f'bag{steps}', angles, n_bins=60, echo_ranges=2.0 + angles)
        report = draw_report(tmp_path / f'bag{steps}')
        assert report.profile is not None
        pictures.append(report.profile.read_bytes())
    assert pictures[0] == pictures[1]
