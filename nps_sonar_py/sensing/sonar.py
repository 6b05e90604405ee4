"""A single-beam sonar: its cone of rays placed in the world, cast and turned into an echo per ping.

The URDF ``<sonar>`` gives a cone (``min``, ``max``, and ``radius`` at ``max``); this package
reads that cone as the beam's one-way -3 dB width, ``beam_width = 2 atan(radius / max)``,
unless the configuration sets another. Rays fill the cast cone (``EchoConfig.cast_half_angle``,
by default the -3 dB half width, so the URDF cone itself) at equal solid angle, and the echo
model (``nps_sonar_py.echo``) turns their hits into a range, an intensity and a profile.

The device works in its body frame (x forward, REP 103). Its pose comes from the URDF
``<sensor><origin>``, an optical frame (z forward, x right, y down), so
``world<-body = world<-optical @ body<-optical^T`` with ``OPTICAL_TO_BODY``.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.description import SonarSpec
from nps_sonar_py.echo import EchoConfig, EchoModel, Ping
from nps_sonar_py.sensing.cone import RayPattern, cone_half_angle, cone_pattern
from nps_sonar_py.transforms import OPTICAL_TO_BODY

__all__ = ['Caster', 'RayHitsLike', 'SonarDevice', 'sonar_echo_config']


class RayHitsLike(Protocol):
    """What a raycaster returns per ray (``nps_sonar_py.scene.RayHits``)."""

    ranges: NDArray[np.floating]
    cos_incidence: NDArray[np.floating]
    reflectivity: NDArray[np.floating]


class Caster(Protocol):
    """Anything that casts world-frame rays: ``nps_sonar_py.scene.Raycaster``."""

    def cast(self, origins: NDArray[np.float64], directions: NDArray[np.float64]) -> RayHitsLike:
        """Hits of the rays from ``origins`` (n, 3) along unit ``directions`` (n, 3)."""
        ...


def sonar_echo_config(spec: SonarSpec, **overrides: Any) -> EchoConfig:
    """The echo configuration of a URDF ``<sonar>``: its range window, its cone as the -3 dB beam.

    ``overrides`` are ``EchoConfig`` fields; ``beam_width`` of 0 or ``None`` keeps the cone's.
    Raises ``ConfigurationError`` naming the field when a value is out of range.
    """
    fields = {'min_range': spec.min, 'max_range': spec.max, **overrides}
    if not fields.get('beam_width'):
        fields['beam_width'] = 2.0 * cone_half_angle(spec.radius, spec.max)
    return EchoConfig(**fields)


class SonarDevice:
    """A sonar's ray cone and echo model, built once per configuration, moved with the sensor's pose."""

    def __init__(self, echo: EchoConfig, n_rays: int, world_from_optical: NDArray[np.float64]) -> None:
        self.echo = echo
        self.pattern: RayPattern = cone_pattern(echo.cast_half_angle, n_rays)
        self.model = EchoModel(echo, self.pattern.off_axis, self.pattern.solid_angle)
        #: (n,) range of each ray at the last ping (inf on a miss), for visualisation.
        self.last_ranges: NDArray[np.floating] = np.full(n_rays, np.inf)
        self.set_pose(world_from_optical)

    def reconfigured(self, echo: EchoConfig, n_rays: int) -> SonarDevice:
        """A device with a new configuration at this one's pose (the ray pattern rebuilt once)."""
        return SonarDevice(echo, n_rays, self.world_from_optical)

    def set_pose(self, world_from_optical: NDArray[np.float64]) -> None:
        """Place the sensor: ``world_from_optical`` is the 4x4 pose of its URDF optical frame."""
        pose = np.asarray(world_from_optical, dtype=np.float64)
        self.world_from_optical = pose.copy()
        self.world_from_body = pose.copy()
        self.world_from_body[:3, :3] = pose[:3, :3] @ OPTICAL_TO_BODY.T
        self.origin = self.world_from_body[:3, 3].copy()
        # einsum rather than @: right after an Open3D cast, BLAS threads wait for the cores.
        self.directions = np.einsum('ij,nj->ni', self.world_from_body[:3, :3], self.pattern.directions)
        self._origins = np.broadcast_to(self.origin, self.directions.shape)

    @property
    def n_rays(self) -> int:
        """Rays cast per ping."""
        return len(self.pattern)

    @property
    def field_of_view(self) -> float:
        """Full angle of the cast cone, radians, as ``sensor_msgs/Range.field_of_view``."""
        return 2.0 * self.echo.cast_half_angle

    @property
    def ping_interval(self) -> float:
        """Shortest time between pings, s: the two-way travel time to ``max_range``."""
        return self.echo.min_ping_interval

    def ping(self, caster: Caster, rng: np.random.Generator | None = None) -> Ping:
        """Cast the cone from the sensor's current pose and compute the echo."""
        hits = caster.cast(self._origins, self.directions)
        self.last_ranges = hits.ranges
        reflectivity = np.nan_to_num(hits.reflectivity, nan=0.0)
        return self.model.ping(hits.ranges, hits.cos_incidence, reflectivity, rng=rng)
