"""The seabed echo and the water column's fill on one scale: both at the sonar equation's levels.

The display chain adds volume reverberation on the echo model's scale (intensity relative
to the source at 1 m, a bin holding the sum of its returns); the benchmark's contrasts
compare it with the coherent side-scan's seabed echo. Here a coherent side-scan over a flat
sand seabed is checked against the sonar equation's seabed level worked in the test,
``RL - SL = Sb(theta) - 40 log r - 2 a r + 10 log(A)`` with the footprint ``A = r phi dr /
cos(theta)`` (``phi`` the two-way equivalent along-track width) times the two-way
across-track pattern, so a water-to-seabed contrast read from the simulation is the sonar
equation's.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig
from nps_sonar_py.echo.absorption import francois_garrison
from nps_sonar_py.echo.beam import beam_intensity, first_null_half_angle
from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.pulse import Pulse, PulseKind
from nps_sonar_py.echo.seabed import Seabed, model_frequency, named_seabed
from nps_sonar_py.echo.sediment import backscatter_cross_section
from nps_sonar_py.scene import Entity, EntityState, Raycaster, SceneState, Triangles, World
from nps_sonar_py.sensing.seabed_caster import seabed_caster
from nps_sonar_py.sensing.sidescan import SidescanConfig, SidescanSonar
from nps_sonar_py.transforms import transform_from_xyz_rpy

FREQUENCY, RANGE, BINS, ALTITUDE = 600e3, 30.0, 1024, 5.0
F = NDArray[np.float64]


def _flat(seabed: Seabed) -> World:
    """A flat floor at z = 0 under the track, carrying ``seabed``."""
    plane = Triangles(
        np.array([[-50.0, -50.0, 0.0], [90.0, -50.0, 0.0], [90.0, 50.0, 0.0], [-50.0, 50.0, 0.0]]),
        np.array([[0, 1, 2], [0, 2, 3]]),
    )
    state = EntityState('floor', origin=transform_from_xyz_rpy((0, 0, 0), (0, 0, 0)))
    return World(
        'flat',
        (Entity('floor', plane, np.array(0.002), seabed=seabed),),
        SceneState('flat', 0.0, (state,)),
    )


def _echo(**settings: object) -> EchoConfig:
    """The side-scan's echo settings over the window, with ``settings`` (pattern, ...)."""
    return EchoConfig(
        min_range=0.0,
        max_range=RANGE,
        n_bins=BINS,
        frequency=FREQUENCY,
        absorption=Absorption.AUTO,
        source_level=210.0,
        **settings,  # type: ignore[arg-type]
    )


def _mean_starboard() -> tuple[F, F, SidescanConfig, Seabed]:
    """Mean starboard intensity of 30 pings over flat sand, the bins' centres, beam, seabed."""
    seabed = named_seabed('sand')
    world = _flat(seabed)
    echo = _echo(pattern=BeamPattern.PISTON, seed=3)
    pulse = Pulse(PulseKind.CHIRP, 2e-3, 1500.0 / (2.0 * RANGE / BINS))
    config = SidescanConfig(horizontal_width=math.radians(0.5), min_altitude=2.0, max_altitude=8.0)
    sonar = SidescanSonar(
        echo,
        config,
        transform_from_xyz_rpy([0, 0, ALTITUDE], [0, 0, 0]),
        coherent=CoherentConfig.of(pulse=pulse),
    )
    caster = seabed_caster(Raycaster(world), FREQUENCY, 1500.0)
    profiles = []
    for x in np.linspace(0.0, 30.0, 30):
        sonar.set_pose(transform_from_xyz_rpy([float(x), 0.0, ALTITUDE], [0, 0, 0]))
        ping = sonar.ping(caster)
        profiles.append(ping.profiles[1])
    edges = np.asarray(ping.bin_edges)
    return np.mean(profiles, axis=0), 0.5 * (edges[1:] + edges[:-1]), config, seabed


def _sonar_equation(
    r: float, phi: float, config: SidescanConfig, seabed: Seabed
) -> tuple[float, float]:
    """``(sigma, spread)`` at slant range ``r``: the seabed's cross-section and the rest.

    ``spread = A / r**4 10**(-2 a r / 10) B**2(theta - tilt)``, ``A = r phi dr / cos theta``.
    """
    theta = math.asin(ALTITUDE / r)
    frequency = model_frequency(seabed, FREQUENCY)
    sigma = float(backscatter_cross_section(seabed.sediment, [theta], frequency)[0])
    pattern = float(
        beam_intensity(
            config.vertical_pattern, [abs(theta - config.tilt)], config.vertical_width, 2
        )[0]
    )
    footprint = r * phi * (RANGE / BINS) / math.cos(theta)
    alpha = francois_garrison(FREQUENCY)
    return sigma, footprint / r**4 * 10.0 ** (-0.2 * alpha * r) * pattern


def test_the_coherent_seabed_echo_is_at_the_sonar_equations_level() -> None:
    mean, centres, config, seabed = _mean_starboard()
    phi = config.horizontal_width * math.sqrt(math.pi / (8.0 * math.log(2.0)))
    simulated, expected, lambert = [], [], []
    for r in (8.0, 12.0, 16.0, 20.0, 25.0):
        near = np.abs(centres - r) < 0.5  # 34 bins of 30 pings
        theta = math.asin(ALTITUDE / r)
        sigma, spread = _sonar_equation(r, phi, config, seabed)
        simulated.append(10.0 * math.log10(float(np.mean(mean[near]))))
        expected.append(10.0 * math.log10(sigma * spread))
        # Negative control: the Lambert -27 dB floor the scene had before its sediment.
        lambert.append(10.0 * math.log10(0.002 * math.sin(theta) ** 2 * spread))
    error = np.abs(np.subtract(simulated, expected))
    assert np.all(error < 2.0), (simulated, expected)  # a mean of 30 pings x 34 bins
    assert np.max(np.abs(np.subtract(simulated, lambert))) > 5.0


def _line_aperture_levels(cast_limit: float, rays_along: int) -> list[float]:
    """dB of an incoherent side-scan's seabed over the sonar equation's, with ``phi`` whole.

    The along-track pattern is a line aperture's (``SINC``) of 0.5 degrees, as the realism
    benchmark's side-scan; flat sand without texture, so one ping is exact. ``phi`` is the
    pattern's whole two-way equivalent width, ``int B**2 da``, worked here by quadrature:
    the width the volume term's solid angle holds.
    """
    width = math.radians(0.5)
    seabed = Seabed()  # medium sand, no texture
    world = _flat(seabed)
    echo = _echo(pattern=BeamPattern.SINC, cast_limit=cast_limit)
    config = SidescanConfig(
        horizontal_width=width, min_altitude=2.0, max_altitude=8.0, rays_along=rays_along
    )
    sonar = SidescanSonar(echo, config, transform_from_xyz_rpy([0, 0, ALTITUDE], [0, 0, 0]))
    ping = sonar.ping(seabed_caster(Raycaster(world), FREQUENCY, 1500.0))
    edges = np.asarray(ping.bin_edges)
    centres = 0.5 * (edges[1:] + edges[:-1])
    angles = np.linspace(-math.radians(10.0), math.radians(10.0), 400_001)
    phi = float(np.trapezoid(beam_intensity(BeamPattern.SINC, np.abs(angles), width, 2), angles))
    levels = []
    for r in (8.0, 12.0, 16.0, 20.0, 25.0):
        sigma, spread = _sonar_equation(r, phi, config, seabed)
        mean = float(np.mean(ping.profiles[1][np.abs(centres - r) < 0.5]))
        levels.append(10.0 * math.log10(mean / (sigma * spread)))
    return levels


def test_heard_through_its_side_lobes_the_seabed_holds_the_whole_pattern() -> None:
    """Cast to its third null along track, the seabed's echo is the whole pattern's.

    The volume term (``reverberation.fan_solid_angle``) integrates the whole pattern, so the
    water-to-seabed contrast is the sonar equation's only when the seabed's echo does too.
    Control: cast to the -3 dB edge only, the echo is short by the share of ``B**2`` outside
    it, worked here (0.39 dB for ``sinc**2``).
    """
    width = math.radians(0.5)
    first = first_null_half_angle(BeamPattern.SINC, width)
    whole = _line_aperture_levels(math.asin(3.0 * math.sin(first)), 24)
    assert np.max(np.abs(whole)) < 0.1, whole
    angles = np.linspace(-math.radians(10.0), math.radians(10.0), 400_001)
    two_way = beam_intensity(BeamPattern.SINC, np.abs(angles), width, 2)
    inside = np.where(np.abs(angles) <= 0.5 * width, two_way, 0.0)
    short = 10.0 * math.log10(float(np.trapezoid(inside, angles) / np.trapezoid(two_way, angles)))
    gated = _line_aperture_levels(0.5 * width, 3)
    assert short < -0.3
    np.testing.assert_allclose(gated, short, atol=0.06)
