"""The coherent model's deposits at the ends of the window: each beam keeps its own echo.

The beams' samples lie end to end in one array (``CoherentModel._baseband``); a return just
outside the window still puts the taps of its compressed pulse that reach inside on its
beam's first or last samples, and the taps outside the window must go nowhere, not onto the
neighbouring beam's samples.
"""

from __future__ import annotations

import numpy as np
from coherent_scenes import X, fine_echo

from nps_sonar_py.echo.coherent import CoherentConfig, CoherentModel
from nps_sonar_py.echo.pulse import Pulse, PulseKind, compressed_pulse

BANDWIDTH = 10e3


def _ends() -> tuple[CoherentModel, CoherentModel, np.ndarray]:
    """Three-beam and one-beam models; the ranges of two returns 1.5 samples past each end."""
    echo = fine_echo(BANDWIDTH, 1)
    config = CoherentConfig.of(pulse=Pulse(PulseKind.CHIRP, 1e-3, BANDWIDTH))
    three = CoherentModel(config, echo, azimuths=np.radians([-2.0, 0.0, 2.0]))
    alone = CoherentModel(config, echo)
    grid = alone.grid
    # Sample j is centred at start + j interval: -1.5 and count + 0.5 are outside the window.
    positions = np.array([-1.5, grid.count + 0.5])
    return three, alone, grid.start + positions * grid.interval


def test_returns_past_the_window_ends_stay_in_their_beam() -> None:
    """The middle beam's ends equal the beam alone's; its neighbours hear nothing."""
    three, alone, ranges = _ends()
    intensity = np.zeros((3, 2))
    intensity[1] = 1.0
    directions = np.tile(X, (6, 1))
    ping = three.ping(intensity, np.tile(ranges, (3, 1)), np.zeros(3), directions)
    single = alone.ping(intensity[1:2], ranges[None], np.zeros(3), directions[:2])
    assert np.array_equal(ping.baseband[1], single.baseband[0])
    assert not np.any(ping.baseband[[0, 2]])
    # The returns reach into the window (the first and last samples hold their taps) ...
    edges = np.abs(single.baseband[0][[0, -1]])
    assert np.all(edges > 0.05 * np.abs(single.baseband[0]).max())
    # ... and the tap half a sample past each end carries about sinc(1/2) = 0.64 of the peak:
    # a deposit that ran on into the neighbouring beam would put that there (control).
    delay = 0.5 * 2.0 * alone.grid.interval / alone.echo.speed_of_sound
    assert abs(compressed_pulse(three.config.transmitted, np.array([delay]))[0]) > 0.6
