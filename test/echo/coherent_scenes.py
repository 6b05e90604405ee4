"""Shared set-ups of the coherent model's tests: one point target, a rough flat seabed."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo import Absorption, EchoConfig
from nps_sonar_py.echo.coherent import CoherentConfig, CoherentModel, CoherentPing
from nps_sonar_py.echo.pulse import Pulse, PulseKind, PulseWindow

C = 1500.0
X = np.array([[1.0, 0.0, 0.0]])


def fine_echo(bandwidth: float, oversample: int, *, min_range: float = 9.0) -> EchoConfig:
    """A window of 400 bins, each one sample of ``oversample`` samples per ``1 / B``."""
    spacing = C / (2.0 * oversample * bandwidth)
    return EchoConfig(
        min_range=min_range,
        max_range=min_range + 400 * spacing,
        n_bins=400,
        frequency=200e3,
        sound_speed=C,
        absorption=Absorption.NONE,
    )


def point_echo(window: PulseWindow, target: float = 9.9, oversample: int = 16) -> CoherentPing:
    """The coherent echo of one scatterer at ``target`` m, sampled finely: the range PSF."""
    bandwidth = 10e3
    echo = fine_echo(bandwidth, oversample)
    pulse = Pulse(PulseKind.CHIRP, 1e-3, bandwidth, window)
    config = CoherentConfig.of(pulse=pulse, sample_rate=oversample * bandwidth)
    model = CoherentModel(config, echo)
    ranges = np.array([[target]])
    return model.ping(np.ones((1, 1)), ranges, np.zeros(3), X)


def psf_figures(power: NDArray[np.floating], spacing: float) -> tuple[float, float]:
    """-3 dB full width (m) and highest side lobe (dB) of a sampled PSF ``power``."""
    peak = int(np.argmax(power))
    level = power / power[peak]

    def crossing(step: int) -> float:
        i = peak
        while level[i + step] >= 0.5:
            i += step
        j = i + step  # level[i] >= 0.5 > level[j]: interpolate between them
        return i + step * (level[i] - 0.5) / (level[i] - level[j])

    width = (crossing(1) - crossing(-1)) * spacing
    right = level[peak:]
    null = int(np.argmax(np.diff(right) > 0.0))  # the first minimum after the peak
    side = float(right[null:].max())
    return width, 10.0 * math.log10(side)


def seabed_rays(
    n_beams: int, n_rays: int, altitude: float, seed: int = 1
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Rays from the origin down to the plane ``z = -altitude``: ranges (N, n), cos, dirs.

    Evenly spaced depressions 30 to 60 degrees below the horizon (a smooth profile) at random
    azimuths within each beam's 2 degrees: their hits are spread over many speckle cells, at
    ranges ``altitude / sin``.
    """
    rng = np.random.default_rng(seed)
    steps = np.radians(np.linspace(30.0, 60.0, n_rays))
    depression = np.broadcast_to(steps, (n_beams, n_rays))
    azimuth = np.radians(2.0 * np.arange(n_beams)[:, None] + rng.uniform(-1, 1, (n_beams, n_rays)))
    directions = np.stack(
        (
            np.cos(depression) * np.cos(azimuth),
            np.cos(depression) * np.sin(azimuth),
            -np.sin(depression),
        ),
        axis=-1,
    )
    ranges = altitude / np.sin(depression)
    return ranges, np.sin(depression), directions.reshape(-1, 3)
