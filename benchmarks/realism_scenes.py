"""The package's simulations of the real records of ``benchmarks/realism.py``.

Each sonar is configured to its record's geometry and rendered through the public sensing
APIs (``SidescanSonar``, ``MultibeamSonar`` with the coherent model and its receiver noise),
over a seabed of the kind the record shows: the benchmarks' seeded random relief
(``seabeds.py``) 0.3 m high and the record's wreck, an open ship's hull
(``realism_wreck.py``), for the side-scan, flown along the record's navigation with its
altitude's held readings joined up (``flown_altitude``); a flat floor for the
forward-looking sonar, the Oculus M1200d preset's fan whose beams its shaded array forms
over the floor's fixed scatterers, steered to the record's own bearing table (even in
sine, ``FanConfig.bearings``), heard through its Gaussian vertical pattern's skirt down to
the floor below (``FanConfig.vertical_cast``). The side-scan's floor is a seabed
(``SIDESCAN_SEABED``: medium sand with its K texture, no ripples; ``docs/realism.md``
says why), cast through ``sensing.seabed_caster`` as the devices do. Intensities are linear;
the display chain comes after.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from realism_wreck import wreck_triangles
from seabeds import relief_triangles

from nps_sonar_py.devices.presets import ARRAY_SPACING, PRESETS
from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig
from nps_sonar_py.echo.beam import first_null_half_angle
from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.line_array import LineArray
from nps_sonar_py.echo.pulse import Pulse, PulseKind, PulseWindow
from nps_sonar_py.echo.reverberation import fan_solid_angle
from nps_sonar_py.echo.seabed import Seabed, named_seabed
from nps_sonar_py.echo.sonar_equation import ReceiverNoise
from nps_sonar_py.scene import Entity, EntityState, Raycaster, SceneState, Triangles, World
from nps_sonar_py.sensing.multibeam import FanConfig, MultibeamSonar
from nps_sonar_py.sensing.seabed_caster import seabed_caster
from nps_sonar_py.sensing.sidescan import SidescanConfig, SidescanSonar
from nps_sonar_py.transforms import transform_from_xyz_rpy

__all__ = [
    'FAN_ARRAY',
    'FAN_PRESET',
    'FAN_VERTICAL',
    'FAN_VERTICAL_PATTERN',
    'SEED',
    'SIDESCAN_ALONG_PATTERN',
    'SIDESCAN_ALONG_WIDTH',
    'SIDESCAN_SEABED',
    'SIDESCAN_SEDIMENT',
    'Rendered',
    'fan_beam_solid_angle',
    'fan_geometry',
    'flown_altitude',
    'realism_sidescan',
    'render_fan',
    'render_sidescan',
    'sidescan_along_cast',
    'sidescan_beam',
]

SEED = 34
#: The package's receiver noise at a sonar-equation level (``bench_coherent``'s floor).
NOISE = ReceiverNoise(enabled=True, spectrum_level=40.0, directivity_index=30.0)
#: Source level, dB re 1 uPa at 1 m, of both simulated sonars.
SOURCE_LEVEL = 210.0
#: Seabed reflectivity (the package's Lambert ``mu``): about -27 dB.
SEABED_MU = 0.002
#: The forward-looking fan's device: the Oculus M1200d's high-frequency mode, the record's
#: (2.1 MHz, 256 beams over 60 degrees): its beam widths and its receive array (413 elements
#: half a wavelength apart, Hann-shaded, whose -3 dB width is the preset's 0.4 degrees)
#: form the beams.
FAN_PRESET = PRESETS['oculus_m1200d_hf']
#: The fan's receive array: the preset's elements, spacing and shading.
FAN_ARRAY = LineArray(
    FAN_PRESET.array_elements or 2, ARRAY_SPACING, PulseWindow(FAN_PRESET.array_window)
)
#: The forward-looking fan's one-way -3 dB vertical width (the preset's 12 degrees), rad.
FAN_VERTICAL = FAN_PRESET.vertical_beam_width
#: Its vertical pattern: Gaussian of the published -3 dB width, heard past the edges through
#: its skirt down to the floor straight below (``vertical_cast``), as the side-scan's
#: ``cast_to_nadir`` across track. A uniform aperture's ``sinc**2`` has exact nulls that no
#: broadband pulse keeps (the record's 2.8 mm rows need 260 kHz or more, an eighth of the
#: carrier, and a null's angle scales with the wavelength): ``docs/realism.md``.
FAN_VERTICAL_PATTERN = BeamPattern.GAUSSIAN
#: Ray rows across the cast: the formed fan's rays only find the lit surfaces (the fixed
#: scatterers carry the echo), so they need not put a ray in every 2.8 mm bin.
RAYS_VERTICAL = 1024
#: Height of the side-scan's relief, m (a gently undulating sand floor).
SIDESCAN_RELIEF = 0.3
#: The side-scan's seabed: medium sand (Jackson and Richardson's row) with the package's
#: texture of sands; no ripples, since the record shows none (``docs/realism.md``). (The
#: entity's Lambert ``SEABED_MU`` is then unused: the sediment's law replaces it.)
SIDESCAN_SEDIMENT = 'sand'
SIDESCAN_SEABED: Seabed = named_seabed(SIDESCAN_SEDIMENT)
#: The side-scan's one-way -3 dB width along track, rad.
SIDESCAN_ALONG_WIDTH = math.radians(0.5)
#: Its along-track pattern: a uniform line aperture's (the transducer's length), ``sinc**2``.
SIDESCAN_ALONG_PATTERN = BeamPattern.SINC
#: Nulls of that pattern each side of the axis out to which the fans are cast along track.
SIDESCAN_ALONG_NULLS = 3
#: The seabed's mean level, m: the relief's entity sits there.
SEABED_LEVEL = -0.2


@dataclass(frozen=True)
class Rendered:
    """A simulated record's linear intensity: (lines, n_bins) per channel, and the bin edges."""

    channels: tuple[NDArray[np.float64], ...]
    bin_edges: NDArray[np.float64]
    bearings: NDArray[np.float64] | None = None  # a fan's lines: its beams' own, as stored


def _world(name: str, entities: list[Entity], states: list[EntityState]) -> World:
    """A world of ``entities`` at ``states``."""
    return World(name, tuple(entities), SceneState(name, 0.0, tuple(states)))


def sidescan_world(track: float) -> World:
    """Relief over the track and 35 m each side, the record's wreck to starboard on it."""
    rng = np.random.default_rng(SEED)
    half = max(0.5 * track + 5.0, 36.0)
    seabed = _scaled(relief_triangles(rng, half), SIDESCAN_RELIEF)
    centre = EntityState(
        'seabed', origin=transform_from_xyz_rpy((0.5 * track, 0, SEABED_LEVEL), (0, 0, 0))
    )
    wreck = EntityState('wreck', origin=transform_from_xyz_rpy((0, 0, 0), (0, 0, 0)))
    entities = [
        Entity('seabed', seabed, SEABED_MU, seabed=SIDESCAN_SEABED),
        Entity('wreck', wreck_triangles(SEABED_LEVEL), 0.01),
    ]
    return _world('realism_sidescan', entities, [centre, wreck])


def flown_altitude(
    altitude: NDArray[np.float64], times: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The altitude at each ping, its held readings joined up linearly.

    The record's altitude field is a reading held over the pings between updates (about one
    a second, every 7 to 12 pings): a vehicle flown at those held values climbs and sinks in
    steps of 0.1-0.4 m, and every shadow's far edge jumps with each step. Each reading is
    taken to hold at the first ping that carries it; between them the vehicle is assumed to
    move steadily, as the record's smooth first return says it does.
    """
    first = np.concatenate(([0], np.flatnonzero(np.diff(altitude) != 0.0) + 1))
    flown: NDArray[np.float64] = np.interp(times, times[first], altitude[first])
    return flown


def sidescan_beam() -> SidescanConfig:
    """The simulated side-scan's fans: 0.5 degrees along track, the package's default across.

    Cast to nadir, the default: the line array's pattern past its -3 dB edge lights the
    seabed under the sonar, as in the record (no gap after the first return). Along track
    the fan is cast over its side lobes (``sidescan_along_cast``), ``rays_along`` columns
    putting three in each lobe.
    """
    return SidescanConfig(
        horizontal_width=SIDESCAN_ALONG_WIDTH,
        min_altitude=2.0,
        max_altitude=12.0,
        rays_along=3 * 2 * (SIDESCAN_ALONG_NULLS + 1),
    )


def sidescan_along_cast() -> float:
    """Half angle the side-scan's fans are cast along track: the line aperture's third null, rad.

    A side-scan's transducer is a long rectangle: along track its pattern is a uniform line
    aperture's, ``sinc**2`` of the -3 dB width, whose nulls are ``m lambda / L`` apart, and
    a real transducer hears through its side lobes as it does across track (the first
    -13.3 dB one way, -26.5 dB two-way; the third's -41 dB two-way is where the cast stops).
    """
    first = first_null_half_angle(SIDESCAN_ALONG_PATTERN, SIDESCAN_ALONG_WIDTH)
    return math.asin(SIDESCAN_ALONG_NULLS * math.sin(first))


def fan_beam_solid_angle() -> float:
    """``Psi`` of one beam of the simulated forward-looking fan (the preset's widths), sr."""
    return fan_solid_angle(_fan_width(), FAN_VERTICAL)


def _fan_width() -> float:
    """The fan's horizontal -3 dB beam width: the preset's (0.4 degrees), rad."""
    width = FAN_PRESET.horizontal_beam_width
    assert width is not None  # the preset gives it (docs/presets.md)
    return width


def realism_sidescan(frequency: float, slant_range: float, bins: int) -> SidescanSonar:
    """The coherent side-scan of the realism benchmark, 10 m up at the track's start.

    The pulse's bandwidth resolves the record's sample spacing (``c / (2 B)``).
    """
    c = 1500.0
    echo = EchoConfig(
        pattern=SIDESCAN_ALONG_PATTERN,
        cast_limit=sidescan_along_cast(),
        min_range=0.0,
        max_range=slant_range,
        n_bins=bins,
        frequency=frequency,
        absorption=Absorption.AUTO,
        source_level=SOURCE_LEVEL,
        seed=SEED,
    )
    bandwidth = c / (2.0 * slant_range / bins)
    coherent = CoherentConfig.of(pulse=Pulse(PulseKind.CHIRP, 2e-3, bandwidth), noise=NOISE)
    config = sidescan_beam()
    return SidescanSonar(
        echo, config, transform_from_xyz_rpy([0, 0, 10], [0, 0, 0]), coherent=coherent
    )


def render_sidescan(
    frequency: float,
    slant_range: float,
    bins: int,
    altitude: NDArray[np.float64],
    along: NDArray[np.float64],
) -> Rendered:
    """Port and starboard (pings, bins) of a coherent side-scan along ``along`` at ``altitude``."""
    sonar = realism_sidescan(frequency, slant_range, bins)
    world = sidescan_world(float(along[-1]))
    caster = seabed_caster(Raycaster(world), frequency, 1500.0)
    port, starboard = [], []
    for x, h in zip(along, altitude, strict=True):
        sonar.set_pose(transform_from_xyz_rpy([float(x), 0.0, float(h)], [0.0, 0.0, 0.0]))
        ping = sonar.ping(caster)
        port.append(ping.profiles[0])
        starboard.append(ping.profiles[1])
        edges = ping.bin_edges
    return Rendered((np.array(port), np.array(starboard)), np.asarray(edges))


def fan_geometry(near: float, far: float, vertical: float) -> tuple[float, float]:
    """``(height, tilt)`` over a flat floor whose -3 dB edges meet it at ``near`` and ``far`` m.

    A fan ``vertical`` rad tall, tilted ``tilt`` down at ``height``: its edges' depressions
    ``tilt +- vertical / 2`` reach the floor at ``height / sin``. The difference of the two
    depressions grows with the height, so it is solved for by bisection.
    """
    low, high = 0.0, near
    for _ in range(60):
        height = 0.5 * (low + high)
        spread = math.asin(height / near) - math.asin(height / far)
        low, high = (height, high) if spread < vertical else (low, height)
    height = 0.5 * (low + high)
    return height, math.asin(height / near) - 0.5 * vertical


def render_fan(
    frequency: float,
    max_range: float,
    bins: int,
    bearings: NDArray[np.float64],
    height: float,
    tilt: float,
) -> Rendered:
    """(beams, bins) of a formed forward-looking fan ``height`` above a flat floor, ``tilt`` down.

    The beams are formed by the preset's receive array over the floor's fixed scatterers
    (``docs/beamforming.md``), steered to the record's own ``bearings`` (rad, positive to
    starboard as the Oculus stores them; ``FanConfig.bearings``: the device's table, even in
    sine); the lines are in the record's order, with the fan's bearings as stored. The
    vertical pattern is heard down to the floor below.
    """
    azimuths = -np.asarray(bearings, dtype=np.float64)[::-1]  # REP 103: positive to port
    c = 1500.0
    echo = EchoConfig(
        beam_width=_fan_width(),
        pattern=BeamPattern.PISTON,
        min_range=0.0,
        max_range=max_range,
        n_bins=bins,
        frequency=frequency,
        absorption=Absorption.AUTO,
        source_level=SOURCE_LEVEL,
        seed=SEED,
    )
    fan = FanConfig(
        beams=azimuths.size,
        min_angle=float(azimuths[0]),
        max_angle=float(azimuths[-1]),
        bearings=tuple(float(a) for a in azimuths),
        vertical_width=FAN_VERTICAL,
        vertical_pattern=FAN_VERTICAL_PATTERN,
        vertical_cast=2.0 * (0.5 * math.pi - tilt),
        rays_horizontal=1,
        rays_vertical=RAYS_VERTICAL,
    )
    bandwidth = c / (2.0 * max_range / bins)
    coherent = CoherentConfig.of(
        pulse=Pulse(PulseKind.CHIRP, 50e-6, bandwidth),
        array=FAN_ARRAY,
        noise=NOISE,
    )
    pose = transform_from_xyz_rpy([0.0, 0.0, height], [0.0, tilt, 0.0])
    sonar = MultibeamSonar(echo, fan, pose, coherent=coherent)
    # a flat floor: a relief of a few cm on facets of a few cm draws the facets' contours
    # at these millimetre bins (docs/realism.md)
    floor = Triangles(
        np.array([[-4.0, -4.0, 0.0], [4.0, -4.0, 0.0], [4.0, 4.0, 0.0], [-4.0, 4.0, 0.0]]),
        np.array([[0, 1, 2], [0, 2, 3]]),
    )
    flat = EntityState('floor', origin=transform_from_xyz_rpy((0, 0, 0), (0, 0, 0)))
    world = _world('realism_fan', [Entity('floor', floor, SEABED_MU)], [flat])
    ping = sonar.ping(Raycaster(world))
    return Rendered(
        (np.asarray(ping.profiles)[::-1],),
        np.asarray(ping.bin_edges),
        -np.asarray(ping.azimuths)[::-1],
    )


def _scaled(surface: Triangles, relief: float) -> Triangles:
    """``surface`` with its heights scaled to at most ``relief`` m."""
    vertices = np.array(surface.vertices, dtype=np.float64)
    vertices[:, 2] *= relief / max(float(np.max(np.abs(vertices[:, 2]))), 1e-9)
    return Triangles(vertices, np.asarray(surface.triangles))
