"""Shared set-ups of the coherent model's tests (``test/echo/test_coherent.py``, the core
against closed forms, and ``test/sensing/test_coherent_sonars.py``, the sonars over Open3D):
one point target, a rough flat seabed, the line array of a beam, and the fan, side-scan and
sweep they run.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig
from nps_sonar_py.echo.array_response import SteeredArray
from nps_sonar_py.echo.coherent import CoherentConfig, CoherentModel, CoherentPing
from nps_sonar_py.echo.line_array import LineArray
from nps_sonar_py.echo.pulse import Pulse, PulseKind, PulseWindow
from nps_sonar_py.sensing.multibeam import FanConfig, MultibeamSonar
from nps_sonar_py.sensing.sidescan import SidescanConfig, SidescanSonar
from nps_sonar_py.sensing.sweep import ScanningSonar, SweepConfig
from nps_sonar_py.transforms import transform_from_xyz_rpy

C = 1500.0
X = np.array([[1.0, 0.0, 0.0]])
#: A sonar level 10 m above the seabed z = 0 (``test_sidescan.seabed_world``).
LEVEL = transform_from_xyz_rpy([0.0, 0.0, 10.0], [0.0, 0.0, 0.0])
#: 10 m above the seabed, pitched 30 degrees down.
PITCHED = transform_from_xyz_rpy([0.0, 0.0, 10.0], [0.0, math.radians(30.0), 0.0])


def beam_array(beam_width: float) -> LineArray:
    """The uniform half-wavelength line array whose -3 dB width ``0.886 / (N 0.5)`` is
    ``beam_width`` (rad) or just under it: the fewest elements for its beams."""
    return LineArray(math.ceil(0.886 / (0.5 * beam_width)), 0.5)


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


def seabed_model(seed: int = 0, pulse: Pulse | None = None) -> tuple[CoherentModel, EchoConfig]:
    """8 m of 0.1 m bins; by default a 7.5 kHz chirp: one sample, one resolution cell a bin."""
    echo = EchoConfig(
        beam_width=math.radians(2.0),
        min_range=11.0,
        max_range=19.0,
        n_bins=80,
        frequency=200e3,
        sound_speed=C,
        absorption=Absorption.NONE,
    )
    pulse = pulse or Pulse(PulseKind.CHIRP, 1e-3, 7.5e3)
    return CoherentModel(CoherentConfig.of(pulse=pulse, scatterer_seed=seed), echo), echo


#: The side-scan's echo: 400 kHz, two-way piston along track, 400 bins to 40 m.
SIDESCAN_ECHO = EchoConfig(
    pattern=BeamPattern.PISTON,
    min_range=0.0,
    max_range=40.0,
    n_bins=400,
    frequency=400e3,
    absorption=Absorption.NONE,
)


def sidescan_sonar(seed: int) -> SidescanSonar:
    """The side-scan level 10 m up, coherent (a 7 kHz chirp) with scatterer seed ``seed``."""
    coherent = CoherentConfig.of(pulse=Pulse(PulseKind.CHIRP, 5e-3, 7e3), scatterer_seed=seed)
    config = SidescanConfig(rays_per_bin=8, min_altitude=5.0, max_altitude=15.0)
    return SidescanSonar(SIDESCAN_ECHO, config, LEVEL, coherent=coherent)


def fan_sonar(
    coherent: CoherentConfig | None, array_pattern: SteeredArray | None = None
) -> MultibeamSonar:
    """64 beams of 2 degrees over 1 rad, 1 to 30 m in 300 bins, pitched 30 degrees down."""
    echo = EchoConfig(
        beam_width=math.radians(2.0),
        min_range=1.0,
        max_range=30.0,
        n_bins=300,
        frequency=400e3,
        absorption=Absorption.NONE,
    )
    fan = FanConfig(beams=64, min_angle=-0.5, max_angle=0.5, rays_vertical=12)
    return MultibeamSonar(echo, fan, PITCHED, coherent=coherent, array_pattern=array_pattern)


def sweep_sonar(seed: int | None) -> ScanningSonar:
    """A 3-degree, 750 kHz head pitched 30 degrees down; coherent (a 7.5 kHz chirp) with
    scatterer seed ``seed``, incoherent for ``None``."""
    echo = EchoConfig(
        beam_width=math.radians(3.0),
        min_range=1.0,
        max_range=40.0,
        n_bins=400,
        frequency=750e3,
        absorption=Absorption.NONE,
    )
    coherent = None
    if seed is not None:
        coherent = CoherentConfig.of(
            pulse=Pulse(PulseKind.CHIRP, 2e-3, 7.5e3), scatterer_seed=seed
        )
    return ScanningSonar(echo, SweepConfig(), PITCHED, n_rays=4000, coherent=coherent)
