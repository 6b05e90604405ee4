"""Shared set-ups of the coherent model's tests (``test/echo/test_coherent.py``, the core
against closed forms; ``test/sensing/test_coherent_sonars.py``, ``test_formed_fan.py`` and
``test_formed_fan_cache.py``, the sonars over Open3D; the ``*_fixed_scatterers.py`` tests' engine
and per-ray control): one point target, a rough flat seabed,
a thin pole, a seabed and a drum, the line array of a beam, the echo windows, fans, chirps
and poses they use, and the beam-pattern figures they measure.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.devices.sonar import SingleBeamSonar
from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig
from nps_sonar_py.echo.array_response import SteeredArray
from nps_sonar_py.echo.channel_echoes import ChannelEngine
from nps_sonar_py.echo.coherent import CoherentConfig, CoherentModel, CoherentPing
from nps_sonar_py.echo.line_array import LineArray
from nps_sonar_py.echo.pulse import Pulse, PulseKind, PulseWindow
from nps_sonar_py.scene import Entity, EntityState, Raycaster, SceneState, World, load_world
from nps_sonar_py.scene.tessellation import box_triangles, cylinder_triangles
from nps_sonar_py.sensing.multibeam import FanConfig, MultibeamSonar
from nps_sonar_py.sensing.sidescan import SidescanConfig, SidescanSonar
from nps_sonar_py.sensing.sweep import ScanningSonar, SweepConfig
from nps_sonar_py.transforms import transform_from_xyz_rpy

C = 1500.0
X = np.array([[1.0, 0.0, 0.0]])


def pitched(
    height: float, pitch_deg: float, x: float = 0.0, y: float = 0.0
) -> NDArray[np.float64]:
    """The pose of a sonar at ``(x, y, height)`` m, pitched ``pitch_deg`` degrees down."""
    return transform_from_xyz_rpy([x, y, height], [0.0, math.radians(pitch_deg), 0.0])


#: A sonar level 10 m above the seabed z = 0 (``test_sidescan.seabed_world``).
LEVEL = pitched(10.0, 0.0)
#: 10 m above the seabed, pitched 30 degrees down.
PITCHED = pitched(10.0, 30.0)


def lossless_echo(
    min_range: float, max_range: float, n_bins: int, frequency: float = 400e3, **rest: Any
) -> EchoConfig:
    """``n_bins`` bins from ``min_range`` to ``max_range`` m at ``frequency`` Hz, without
    absorption (the closed forms have none); ``rest``: any other ``EchoConfig`` field."""
    return EchoConfig(
        min_range=min_range,
        max_range=max_range,
        n_bins=n_bins,
        frequency=frequency,
        absorption=Absorption.NONE,
        **rest,
    )


def sector(beams: int, half: float, centre: float = 0.0, **rest: Any) -> FanConfig:
    """``beams`` beams from ``centre - half`` to ``centre + half`` rad; ``rest``: any other
    ``FanConfig`` field."""
    return FanConfig(beams=beams, min_angle=centre - half, max_angle=centre + half, **rest)


def chirp(duration: float, bandwidth: float, **rest: Any) -> CoherentConfig:
    """The coherent model of a chirp of ``duration`` s over ``bandwidth`` Hz; ``rest``: any
    other argument of ``CoherentConfig.of``."""
    return CoherentConfig.of(pulse=Pulse(PulseKind.CHIRP, duration, bandwidth), **rest)


def beam_array(beam_width: float) -> LineArray:
    """The uniform half-wavelength line array whose -3 dB width ``0.886 / (N 0.5)`` is
    ``beam_width`` (rad) or just under it: the fewest elements for its beams."""
    return LineArray(math.ceil(0.886 / (0.5 * beam_width)), 0.5)


def fine_echo(bandwidth: float, oversample: int, *, min_range: float = 9.0) -> EchoConfig:
    """A window of 400 bins, each one sample of ``oversample`` samples per ``1 / B``."""
    spacing = C / (2.0 * oversample * bandwidth)
    return lossless_echo(min_range, min_range + 400 * spacing, 400, 200e3, sound_speed=C)


def point_echo(window: PulseWindow, target: float = 9.9, oversample: int = 16) -> CoherentPing:
    """The coherent echo of one scatterer at ``target`` m, sampled finely: the range PSF."""
    bandwidth = 10e3
    echo = fine_echo(bandwidth, oversample)
    pulse = Pulse(PulseKind.CHIRP, 1e-3, bandwidth, window)
    config = CoherentConfig.of(pulse=pulse, sample_rate=oversample * bandwidth)
    model = CoherentModel(config, echo)
    ranges = np.array([[target]])
    return model.ping(np.ones((1, 1)), ranges, np.zeros(3), X)


def half_power_width(axis: NDArray[np.floating], power: NDArray[np.floating]) -> float:
    """-3 dB full width of ``power`` over ``axis`` about its peak, interpolated."""
    level = power / power.max()
    peak = int(np.argmax(level))

    def crossing(step: int) -> float:
        i = peak
        while level[i + step] >= 0.5:
            i += step
        j = i + step  # level[i] >= 0.5 > level[j]: interpolate between them
        return float(axis[i] + (axis[j] - axis[i]) * (level[i] - 0.5) / (level[i] - level[j]))

    return abs(crossing(1) - crossing(-1))


def first_side_lobe_db(power: NDArray[np.floating]) -> float:
    """The highest lobe past the first null on the peak's right, dB re the peak."""
    level = power / power.max()
    right = level[int(np.argmax(level)) :]
    null = int(np.argmax(np.diff(right) > 0.0))  # the first minimum after the peak
    return float(10.0 * np.log10(right[null:].max()))


def psf_figures(power: NDArray[np.floating], spacing: float) -> tuple[float, float]:
    """-3 dB full width (m) and highest side lobe (dB) of a PSF ``power`` sampled every
    ``spacing`` m."""
    return half_power_width(spacing * np.arange(len(power)), power), first_side_lobe_db(power)


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
    echo = lossless_echo(11.0, 19.0, 80, 200e3, beam_width=math.radians(2.0), sound_speed=C)
    pulse = pulse or Pulse(PulseKind.CHIRP, 1e-3, 7.5e3)
    return CoherentModel(CoherentConfig.of(pulse=pulse, scatterer_seed=seed), echo), echo


#: The side-scan's echo: 400 kHz, two-way piston along track, 400 bins to 40 m.
SIDESCAN_ECHO = lossless_echo(0.0, 40.0, 400, pattern=BeamPattern.PISTON)


def sidescan_sonar(seed: int) -> SidescanSonar:
    """The side-scan level 10 m up, coherent (a 7 kHz chirp) with scatterer seed ``seed``."""
    coherent = chirp(5e-3, 7e3, scatterer_seed=seed)
    config = SidescanConfig(rays_per_bin=8, min_altitude=5.0, max_altitude=15.0)
    return SidescanSonar(SIDESCAN_ECHO, config, LEVEL, coherent=coherent)


def fan_sonar(
    coherent: CoherentConfig | None, array_pattern: SteeredArray | None = None
) -> MultibeamSonar:
    """64 beams of 2 degrees over 1 rad, 1 to 30 m in 300 bins, pitched 30 degrees down."""
    echo = lossless_echo(1.0, 30.0, 300, beam_width=math.radians(2.0))
    fan = sector(64, 0.5, rays_vertical=12)
    return MultibeamSonar(echo, fan, PITCHED, coherent=coherent, array_pattern=array_pattern)


def sweep_sonar(seed: int | None) -> ScanningSonar:
    """A 3-degree, 750 kHz head pitched 30 degrees down; coherent (a 7.5 kHz chirp) with
    scatterer seed ``seed``, incoherent for ``None``."""
    echo = lossless_echo(1.0, 40.0, 400, 750e3, beam_width=math.radians(3.0))
    coherent = None if seed is None else chirp(2e-3, 7.5e3, scatterer_seed=seed)
    return ScanningSonar(echo, SweepConfig(), PITCHED, n_rays=4000, coherent=coherent)


def channel_engine(sonar: SidescanSonar | ScanningSonar | SingleBeamSonar) -> ChannelEngine:
    """The coherent sonar's engine over the surfaces' fixed scatterers."""
    engine = sonar.engine.coherent  # type: ignore[union-attr]
    assert isinstance(engine, ChannelEngine)
    return engine


def per_ray_intensity(
    engine: ChannelEngine,
    caster: Raycaster,
    origin: NDArray[np.float64],
    directions: NDArray[np.float64],
) -> NDArray[np.float64]:
    """The fixed-scatterer tests' control: the per-ray coherent model of ``engine``'s settings
    over the rays ``directions`` from ``origin``, each ray's hit a scatterer (which a move
    re-draws): (channels, bins)."""
    hits = caster.cast(origin, directions)
    rows = engine.channels
    law = engine.model.law(
        np.asarray(hits.ranges).reshape(rows, -1),
        np.asarray(hits.cos_incidence).reshape(rows, -1),
        np.asarray(hits.reflectivity).reshape(rows, -1),
    )
    model = CoherentModel(engine.config, engine.model.config)
    return model.ping(law.intensities, law.ranges, origin, directions).intensity


def pole_world(folder: Path, azimuth_deg: float, distance: float = 10.0) -> Raycaster:
    """A vertical pole 2 cm thick and 2 m tall, ``distance`` m away at ``azimuth_deg``."""
    a = math.radians(azimuth_deg)
    path = folder / f'pole_{azimuth_deg:g}_{distance:g}.world'
    path.write_text(f'''<world name="pole"><model name="pole" reflectivity="0.5">
<robot name="pole"><link name="pole"><collision>
<origin xyz="{distance * math.cos(a)} {distance * math.sin(a)} 0"/>
<geometry><cylinder radius="0.01" length="2"/></geometry></collision></link></robot>
</model></world>''')
    return Raycaster(load_world(str(path)))


def seabed_and_drum(drum_at: tuple[float, float, float], drum_radius: float = 0.4) -> Raycaster:
    """A 40 m square seabed (two large triangles a side) whose top is 3 m below the origin,
    centred 10 m ahead, and a drum of 128 sides (small triangles), ``drum_radius`` m in
    radius and 1 m tall, centred at ``drum_at``."""
    entities = (
        Entity('seabed', box_triangles([40.0, 40.0, 0.1]), np.full(12, 0.1)),
        Entity('drum', cylinder_triangles(drum_radius, 1.0, 128), np.full(4 * 128, 0.5)),
    )
    states = (
        EntityState('seabed', origin=transform_from_xyz_rpy((10.0, 0.0, -3.05), (0, 0, 0))),
        EntityState('drum', origin=transform_from_xyz_rpy(drum_at, (0, 0, 0))),
    )
    return Raycaster(World('cache', entities, SceneState('cache', 0.0, states)))
