"""A single-beam sonar: its cone of rays placed in the world, cast once per ping.

The device works in its body frame (x forward, REP 103). Its pose comes from the URDF
``<sensor><origin>``, which is an optical frame (z forward, x right, y down), so
``world<-body = world<-optical @ body<-optical^T`` with ``OPTICAL_TO_BODY``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.sensing.cone import RayPattern, cone_half_angle, cone_pattern
from nps_sonar_py.transforms import OPTICAL_TO_BODY

__all__ = ['CastResult', 'Caster', 'SonarConfig', 'SonarDevice', 'nearest_range']


class CastResult(Protocol):
    """What a raycaster returns per ray (see ``nps_sonar_py.scene.RayHits``)."""

    @property
    def ranges(self) -> NDArray[np.floating]: ...


class Caster(Protocol):
    """Anything that casts world-frame rays: ``nps_sonar_py.scene.Raycaster``."""

    def cast(self, origins: NDArray[np.float64], directions: NDArray[np.float64]) -> CastResult: ...


@dataclass(frozen=True)
class SonarConfig:
    """The configuration of a single-beam sonar.

    Attributes:
        min_range: closest measurable range in metres; nearer echoes read -inf (REP 117).
        max_range: farthest range in metres; nothing within it reads +inf.
        half_angle: half angle of the cast cone in radians.
        n_rays: number of rays in the cone (equal solid angle, see ``sensing.cone``).
        update_rate: pings per second; ``None`` means every simulation cycle.
    """

    min_range: float
    max_range: float
    half_angle: float
    n_rays: int = 500
    update_rate: float | None = None

    def __post_init__(self) -> None:
        if not (math.isfinite(self.min_range) and self.min_range >= 0.0):
            raise ConfigurationError(f'min_range must be a finite number >= 0, got {self.min_range!r}')
        if not (math.isfinite(self.max_range) and self.max_range > self.min_range):
            raise ConfigurationError(
                f'max_range ({self.max_range!r}) must be finite and greater than min_range ({self.min_range!r})',
            )
        if not 0.0 < self.half_angle <= math.pi / 2:
            raise ConfigurationError(f'half_angle must be in (0, pi/2] radians, got {self.half_angle!r}')
        if self.n_rays < 1:
            raise ConfigurationError(f'n_rays must be at least 1, got {self.n_rays!r}')
        if self.update_rate is not None and not (math.isfinite(self.update_rate) and self.update_rate > 0.0):
            raise ConfigurationError(f'update_rate must be a positive number of Hz, got {self.update_rate!r}')

    @classmethod
    def from_cone(
        cls, *, min_range: float, max_range: float, radius: float, n_rays: int = 500,
        update_rate: float | None = None,
    ) -> SonarConfig:
        """The URDF ``<sonar>`` form: a cone whose radius at ``max_range`` is ``radius``."""
        if not (math.isfinite(radius) and radius > 0.0):
            raise ConfigurationError(f'radius must be a positive number of metres, got {radius!r}')
        if not (math.isfinite(max_range) and max_range > 0.0):
            raise ConfigurationError(f'max_range must be a positive number of metres, got {max_range!r}')
        return cls(
            min_range=min_range, max_range=max_range, half_angle=cone_half_angle(radius, max_range),
            n_rays=n_rays, update_rate=update_rate,
        )

    @property
    def field_of_view(self) -> float:
        """Full angle of the cone in radians, as ``sensor_msgs/Range.field_of_view``."""
        return 2.0 * self.half_angle


def nearest_range(ranges: NDArray[np.floating], min_range: float, max_range: float) -> float:
    """Nearest hit with REP 117 semantics: -inf nearer than ``min_range``, +inf none within ``max_range``."""
    nearest = float(np.min(ranges)) if ranges.size else math.inf
    if nearest > max_range:
        return math.inf
    if nearest < min_range:
        return -math.inf
    return nearest


class SonarDevice:
    """A sonar's ray cone, built once per configuration and moved with the sensor's pose."""

    def __init__(self, config: SonarConfig, world_from_optical: NDArray[np.float64]) -> None:
        self.config = config
        self.pattern: RayPattern = cone_pattern(config.half_angle, config.n_rays)
        self.set_pose(world_from_optical)

    def set_pose(self, world_from_optical: NDArray[np.float64]) -> None:
        """Place the sensor: ``world_from_optical`` is the 4x4 pose of its URDF optical frame."""
        pose = np.asarray(world_from_optical, dtype=np.float64)
        self.world_from_body = pose.copy()
        self.world_from_body[:3, :3] = pose[:3, :3] @ OPTICAL_TO_BODY.T
        self.origin = self.world_from_body[:3, 3].copy()
        self.directions = self.pattern.directions @ self.world_from_body[:3, :3].T
        self._origins = np.broadcast_to(self.origin, self.directions.shape)

    @property
    def boresight(self) -> NDArray[np.float64]:
        """Unit vector of the sensor's +x axis in the world frame."""
        return self.world_from_body[:3, 0].copy()

    def cast(self, caster: Caster) -> CastResult:
        """Cast the cone's rays from the sensor's current pose."""
        return caster.cast(self._origins, self.directions)

    def range_of(self, hits: CastResult) -> float:
        """The reading of a ping: the nearest hit, REP 117 (see :func:`nearest_range`)."""
        return nearest_range(np.asarray(hits.ranges), self.config.min_range, self.config.max_range)
