"""A multibeam fan: N beams across a horizontal sector, all in one ping, each with an echo profile.

Geometry (body frame, x forward, REP 103): beam ``j`` points at azimuth ``a_j`` about +z,
``a_j`` evenly spaced from ``min_angle`` to ``max_angle`` (the ``LaserScan`` angles), and is a
fan: narrow in azimuth, ``vertical_width`` tall in elevation. Each beam is a grid of rays
built once: ``rays_horizontal`` columns across the cast width ``2 * echo.cast_half_angle``
about its axis and ``rays_vertical`` rows across ``[-vertical_width / 2, vertical_width / 2]``,
at cell centres. A ray's solid angle is its cell's, ``d_a (sin e_hi - sin e_lo)``, so the
echo model's sums stay independent of the ray counts.

Beam pattern: ``echo.EchoModel`` applies its axially symmetric pattern to the ray's
*horizontal* angle from the beam axis (the ``off_axis`` it is given), with ``echo.beam_width``
the horizontal one-way -3 dB width; the pattern is uniform in elevation within the fan
(Stonefish and DAVE also leave the vertical pattern flat). Side lobes and the cross-beam
leakage DAVE adds are not modelled.

All beams are cast in one call; the echo model then runs once per beam (a loop over beams,
not over rays).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo import EchoConfig, EchoModel
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.sensing.caster import SurfaceCaster
from nps_sonar_py.sensing.scan import scan_directions

__all__ = ['FanConfig', 'FanPing', 'MultibeamSonar']


@dataclass(frozen=True)
class FanConfig:
    """The fan of a multibeam sonar, validated on creation (``ConfigurationError``).

    Attributes:
        beams: number of beams, >= 1.
        min_angle: azimuth of the first beam's axis, rad.
        max_angle: azimuth of the last beam's axis, rad, >= min_angle (one beam: their middle).
        vertical_width: full elevation extent of every beam, rad, in (0, pi).
        rays_horizontal: ray columns across a beam's cast width, >= 1.
        rays_vertical: ray rows across its vertical width, >= 1.
    """

    beams: int = 64
    min_angle: float = -math.pi / 4
    max_angle: float = math.pi / 4
    vertical_width: float = math.radians(20.0)
    rays_horizontal: int = 3
    rays_vertical: int = 24

    def __post_init__(self) -> None:
        problem = fan_problem(self.beams, self.min_angle, self.max_angle)
        vertical = self.vertical_width
        if problem is None and not (math.isfinite(vertical) and 0.0 < vertical < math.pi):
            problem = f'vertical_width must be in (0, pi) radians, got {self.vertical_width!r}'
        for name in ('rays_horizontal', 'rays_vertical'):
            value = getattr(self, name)
            if problem is None and not (isinstance(value, int) and value >= 1):
                problem = f'{name} must be an integer >= 1, got {value!r}'
        if problem is None and self.beams * self.rays_horizontal * self.rays_vertical > 4_000_000:
            problem = 'more than 4000000 rays per ping'
        if problem:
            raise ConfigurationError(problem)

    @property
    def spacing(self) -> float:
        """Angle between neighbouring beam axes, rad (0 for one beam)."""
        return (self.max_angle - self.min_angle) / (self.beams - 1) if self.beams > 1 else 0.0

    def azimuths(self) -> NDArray[np.float64]:
        """(beams,) azimuth of each beam's axis, rad."""
        if self.beams == 1:
            return np.array([0.5 * (self.min_angle + self.max_angle)])
        return np.linspace(self.min_angle, self.max_angle, self.beams)


def fan_problem(beams: int, min_angle: float, max_angle: float) -> str | None:
    """Why these beam axes are impossible, or ``None``."""
    if not (isinstance(beams, int) and 1 <= beams <= 100_000):
        return f'beams must be an integer in [1, 100000], got {beams!r}'
    if not (math.isfinite(min_angle) and math.isfinite(max_angle)):
        return f'min_angle and max_angle must be finite, got {min_angle!r} and {max_angle!r}'
    if max_angle < min_angle:
        return f'max_angle ({max_angle!r}) must be >= min_angle ({min_angle!r})'
    if max_angle - min_angle >= 2.0 * math.pi:
        return f'the fan must span less than a full turn, got {max_angle - min_angle!r} rad'
    return None


@dataclass(frozen=True, eq=False)
class FanPing:
    """The echoes of one multibeam ping, beam by beam (beam ``j`` at ``azimuths[j]``).

    Attributes:
        azimuths: (N,) beam axes, rad.
        ranges: (N,) range of each beam by the echo model's estimator, m, REP 117.
        totals: (N,) total intensity of each beam, linear, relative to the source at 1 m.
        confidence: (N,) the echo model's confidence per beam, 0..1.
        profiles: (N, n_bins) intensity per range bin, linear.
        hits: (N, n_bins) returning rays per bin.
        bin_edges: (n_bins + 1,) m.
    """

    azimuths: NDArray[np.float64]
    ranges: NDArray[np.float64]
    totals: NDArray[np.float64]
    confidence: NDArray[np.float64]
    profiles: NDArray[np.float64]
    hits: NDArray[np.int64]
    bin_edges: NDArray[np.float64]


class MultibeamSonar:
    """N fan-shaped beams, their rays built once and cast together each ping.

    Args:
        echo: the echo model's configuration; ``beam_width`` is the horizontal width of a beam.
        fan: the beams.
        world_from_body: (4, 4) pose of the sensor's body frame (x forward) in the world.
    """

    def __init__(
        self, echo: EchoConfig, fan: FanConfig, world_from_body: NDArray[np.float64]
    ) -> None:
        self.echo = echo
        self.fan = fan
        half = echo.cast_half_angle
        nh, nv = fan.rays_horizontal, fan.rays_vertical
        d_a = 2.0 * half / nh
        offsets = -half + (np.arange(nh) + 0.5) * d_a
        d_e = fan.vertical_width / nv
        low = -0.5 * fan.vertical_width + np.arange(nv, dtype=np.float64) * d_e
        elevations = low + 0.5 * d_e
        solid = d_a * (np.sin(low + d_e) - np.sin(low))  # (nv,)
        off_axis = np.broadcast_to(np.abs(offsets)[None, :], (nv, nh)).ravel()
        solid_angle = np.broadcast_to(solid[:, None], (nv, nh)).ravel()
        self.model = EchoModel(echo, off_axis, solid_angle)
        self.rays_per_beam = nv * nh
        self.azimuths = fan.azimuths()
        self.azimuths.flags.writeable = False
        # (beams, nv * nh, 3): every beam's grid at its own azimuth, in the body frame.
        azimuth = (self.azimuths[:, None] + offsets[None, :]).ravel()
        grid = scan_directions(azimuth, elevations).reshape(nv, fan.beams, nh, 3)
        self.body_rays = np.ascontiguousarray(grid.transpose(1, 0, 2, 3)).reshape(-1, 3)
        self.set_pose(world_from_body)

    def set_pose(self, world_from_body: NDArray[np.float64]) -> None:
        """Place the sensor: ``world_from_body`` is the 4x4 pose of its x-forward frame."""
        pose = np.asarray(world_from_body, dtype=np.float64)
        self.world_from_body = pose.copy()
        self.origin = pose[:3, 3].copy()
        self.directions = np.einsum('ij,nj->ni', pose[:3, :3], self.body_rays)

    def ping(self, caster: SurfaceCaster) -> FanPing:
        """Cast every beam's rays at once and run the echo model on each beam."""
        hits = caster.cast(self.origin, self.directions)
        n, m = self.fan.beams, self.rays_per_beam
        r = np.asarray(hits.ranges).reshape(n, m)
        cos = np.asarray(hits.cos_incidence).reshape(n, m)
        mu = np.nan_to_num(np.asarray(hits.reflectivity), nan=0.0).reshape(n, m)
        n_bins = self.echo.n_bins
        ranges = np.empty(n)
        totals = np.empty(n)
        confidence = np.empty(n)
        profiles = np.empty((n, n_bins))
        counts = np.empty((n, n_bins), dtype=np.int64)
        edges = self.model.bin_edges
        for j in range(n):
            echo = self.model.ping(r[j], cos[j], mu[j])
            ranges[j], totals[j], confidence[j] = echo.range, echo.total, echo.confidence
            profiles[j] = echo.intensity
            counts[j] = echo.hits
        return FanPing(self.azimuths, ranges, totals, confidence, profiles, counts, edges)
