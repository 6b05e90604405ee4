"""Ray sensors (``type="ray"``): a fan or a grid of rays cast at once, turned into readings.

Frames and angles (``docs/ranger.md``): the sensor's body frame is x forward, y left, z up
(REP 103). A horizontal angle ``a`` turns about +z from +x; a vertical angle ``e`` is the
elevation, positive towards +z. A reading at ``(a, e)`` looks along
``(cos e cos a, cos e sin a, sin e)``.

Samples and resolution, per axis (``<horizontal>`` and ``<vertical>``): ``samples`` is the
number of *readings* on that axis, evenly spaced from ``min_angle`` to ``max_angle``
(one sample sits in the middle). ``resolution`` multiplies it to give the number of *rays*
cast, ``max(1, round(samples * resolution))``:

* ``resolution == 1``: one ray per reading;
* ``resolution > 1`` averages: reading ``i`` stands for the angular cell of width
  ``delta`` (the reading spacing; the whole window for one sample) centred on it, the rays
  sit at the centres of equal sub-cells of the covered span, and each reading is the mean
  of the rays in its cell (a box filter, like a beam of width ``delta``);
* ``resolution < 1`` interpolates: the rays span ``[min_angle, max_angle]`` and each reading
  is linearly interpolated in angle between its two neighbouring rays.

This is the only reading of the SDF/URDF text ("multiplied by samples ... less than one
interpolates, greater than one averages") in which both halves hold. Ranges follow REP 117
per ray (``+inf`` nothing within ``max_range``, ``-inf`` nearer than ``min_range``); an
average is taken over the rays that returned within the window (else ``-inf`` if one was too
close, else ``+inf``); an interpolation falls back to the nearer ray when a neighbour is not
finite. Intensities are plain means (a miss counts 0) and plain interpolations.

Then, on finite readings only: noise as SDF ``<noise>`` (gz-sensors ``GaussianNoiseModel``:
a bias drawn once, ``+ N(mean, stddev)`` per reading, rounded to ``precision`` for
``gaussian_quantized``), then rounding to ``range_resolution``, then REP 117 again (a noisy
reading beyond ``max_range`` reads ``+inf``, below ``min_range`` ``-inf``).

Intensity (:class:`IntensityMode`): ``RETRO`` (default) is Gazebo's: the ``laser_retro`` of
the surface hit as the scene read it (``RayHits.retro``, not clipped: a retro of 1000
reads 1000), 0 on a miss and on a surface that gives none (Gazebo's default). ``ECHO`` is
incidence-aware, the per-ray term of the echo model with the beam weight set to 1:
``255 mu cos(alpha) (1 m / r)**2``, with the echo's Lambert coefficient ``mu`` (clipped to
1; the factor 255 puts a perfect reflector at 1 m head-on at 255, Gazebo's usual top).
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field
from enum import Enum

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.description import MAX_SCAN_RAYS, MAX_SCAN_SAMPLES, RaySpec, ScanAxis
from nps_sonar_py.echo import RangeNoise
from nps_sonar_py.echo.reflectivity import RETRO_FULL_SCALE
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.sensing.caster import SurfaceCaster

__all__ = [
    'AxisSampling',
    'IntensityMode',
    'ScanConfig',
    'ScanReading',
    'Scanner',
    'intensity_mode',
    'scan_directions',
]

#: Most rays a scanner may cast per scan, and most readings it may give (a guard against a
#: configuration that would stall a node): the description's ``MAX_SCAN_RAYS``. Checked
#: with plain integers before any array is made.
MAX_RAYS = MAX_SCAN_RAYS


class IntensityMode(Enum):
    """What a ray sensor reports as intensity."""

    RETRO = 'retro'  #: Gazebo's laser_retro of the surface hit, as read; 0 on a miss.
    ECHO = 'echo'  #: incidence-aware Lambert echo: 255 mu cos(alpha) (1 m / r)**2.


def intensity_mode(value: IntensityMode | str) -> IntensityMode:
    """``value`` as an ``IntensityMode`` (also its string value); else ``ConfigurationError``."""
    try:
        return IntensityMode(value)
    except ValueError:
        choices = ', '.join(m.value for m in IntensityMode)
        raise ConfigurationError(f'intensity must be one of {choices}, got {value!r}') from None


def _axis_error(name: str, axis: object) -> str | None:
    if not isinstance(axis, ScanAxis):
        return f'{name} must be a ScanAxis'
    if not (math.isfinite(axis.min_angle) and math.isfinite(axis.max_angle)):
        return f'{name} angles must be finite'
    if axis.max_angle < axis.min_angle:
        return f'{name}.max_angle ({axis.max_angle!r}) must be >= min_angle ({axis.min_angle!r})'
    if axis.max_angle - axis.min_angle > 2.0 * math.pi + 1e-9:
        return f'{name} spans more than 2 pi ({axis.max_angle - axis.min_angle!r} rad)'
    return _size_error(name, axis)


def _size_error(name: str, axis: ScanAxis) -> str | None:
    """Why ``axis`` would make too many readings or rays; plain numbers, no array."""
    resolution = axis.resolution
    try:
        samples = operator.index(axis.samples)
    except TypeError:
        samples = 0  # not an integer: refused below
    if not 1 <= samples <= MAX_SCAN_SAMPLES:
        return (
            f'{name}.samples must be an integer in [1, {MAX_SCAN_SAMPLES}], got {axis.samples!r}'
        )
    if not (math.isfinite(resolution) and resolution > 0.0):
        return f'{name}.resolution must be a finite number > 0, got {resolution!r}'
    rays = samples * resolution
    if rays > MAX_RAYS + 0.5:  # also when rays would round to more than MAX_RAYS
        return (
            f'{name}: samples x resolution = {samples} x {resolution!r} is more than the '
            f'{MAX_RAYS} rays allowed per scan'
        )
    return None


def _axis_rays(axis: ScanAxis) -> int:
    """Rays cast on ``axis``, ``max(1, round(samples * resolution))`` (checked by _size_error)."""
    return max(1, round(axis.samples * axis.resolution))


@dataclass(frozen=True)
class ScanConfig:
    """The configuration of a ray sensor, validated on creation (``ConfigurationError``).

    Attributes:
        horizontal: readings about +z (``ScanAxis``: samples, resolution, min/max angle in rad).
        vertical: elevation rows (``ScanAxis``); one sample at 0 for a planar scanner.
        min_range: nearest measurable range, m, >= 0.
        max_range: farthest range, m, > min_range.
        range_resolution: readings are rounded to multiples of it, m; 0 for none.
        noise: SDF-style noise on each reading, m (``echo.RangeNoise``).
        intensity: ``IntensityMode.RETRO`` (Gazebo) or ``ECHO``.
        update_rate: scans per second, Hz, > 0.
        seed: random seed of the noise; ``None`` for fresh entropy.
    """

    horizontal: ScanAxis = field(default_factory=ScanAxis)
    vertical: ScanAxis = field(default_factory=ScanAxis)
    min_range: float = 0.0
    max_range: float = 10.0
    range_resolution: float = 0.0
    noise: RangeNoise = field(default_factory=RangeNoise)
    intensity: IntensityMode = IntensityMode.RETRO
    update_rate: float = 10.0
    seed: int | None = None

    def __post_init__(self) -> None:
        for name in ('horizontal', 'vertical'):
            problem = _axis_error(name, getattr(self, name))
            if problem:
                raise ConfigurationError(problem)
        if not (math.isfinite(self.min_range) and self.min_range >= 0.0):
            raise ConfigurationError(
                f'min_range must be a finite number >= 0 m, got {self.min_range!r}'
            )
        if not (math.isfinite(self.max_range) and self.max_range > self.min_range):
            raise ConfigurationError(
                f'max_range ({self.max_range!r}) must be finite and > min_range '
                f'({self.min_range!r})'
            )
        if not (math.isfinite(self.range_resolution) and self.range_resolution >= 0.0):
            raise ConfigurationError(
                f'range_resolution must be >= 0 m, got {self.range_resolution!r}'
            )
        if not isinstance(self.noise, RangeNoise):
            raise ConfigurationError('noise must be a RangeNoise')
        object.__setattr__(self, 'intensity', intensity_mode(self.intensity))
        if not (math.isfinite(self.update_rate) and self.update_rate > 0.0):
            raise ConfigurationError(
                f'update_rate must be a positive number of Hz, got {self.update_rate!r}'
            )
        rays = _axis_rays(self.horizontal) * _axis_rays(self.vertical)
        if rays > MAX_RAYS:
            raise ConfigurationError(f'{rays} rays per scan is more than the {MAX_RAYS} allowed')
        readings = self.horizontal.samples * self.vertical.samples
        if readings > MAX_RAYS:
            raise ConfigurationError(
                f'{readings} readings per scan is more than the {MAX_RAYS} allowed'
            )

    @classmethod
    def from_ray_spec(
        cls,
        spec: RaySpec,
        *,
        update_rate: float,
        intensity: IntensityMode | str = IntensityMode.RETRO,
        seed: int | None = None,
    ) -> ScanConfig:
        """The configuration of a URDF/SDF ``<ray>``, its ``<noise>`` included."""
        noise = spec.noise
        range_noise = RangeNoise(
            type=noise.type,
            mean=noise.mean,
            stddev=noise.stddev,
            bias_mean=noise.bias_mean,
            bias_stddev=noise.bias_stddev,
            precision=noise.precision,
        )
        return cls(
            horizontal=spec.horizontal,
            vertical=spec.vertical,
            min_range=spec.range.min,
            max_range=spec.range.max,
            range_resolution=spec.range.resolution or 0.0,
            noise=range_noise,
            intensity=intensity_mode(intensity),
            update_rate=update_rate,
            seed=seed,
        )

    @property
    def rows(self) -> int:
        """Number of rows of readings (vertical samples)."""
        return self.vertical.samples

    @property
    def columns(self) -> int:
        """Number of readings per row (horizontal samples)."""
        return self.horizontal.samples


class AxisSampling:
    """Where one axis casts its rays and how it turns them into readings (built once).

    Raises:
        ConfigurationError: more than ``MAX_RAYS`` samples or rays, checked before any array.

    """

    def __init__(self, axis: ScanAxis) -> None:
        problem = _axis_error('axis', axis)
        if problem:
            raise ConfigurationError(problem)
        self.axis = axis
        samples = axis.samples
        span = axis.max_angle - axis.min_angle
        self.n_rays = _axis_rays(axis)
        #: Spacing of the readings, rad; the whole window for one sample.
        self.increment = span / (samples - 1) if samples > 1 else span
        if samples > 1:
            self.reading_angles = np.linspace(axis.min_angle, axis.max_angle, samples)
        else:
            self.reading_angles = np.array([0.5 * (axis.min_angle + axis.max_angle)])
        if self.n_rays == samples:
            self.mode = 'identity'
            self.ray_angles = self.reading_angles.copy()
        elif self.n_rays > samples:
            self.mode = 'average'
            # Cells of width `increment` centred on the readings, cut into n_rays equal sub-cells.
            start = self.reading_angles[0] - 0.5 * self.increment
            j = np.arange(self.n_rays, dtype=np.float64)
            self.ray_angles = start + (j + 0.5) * (samples * self.increment) / self.n_rays
            self.cell = np.minimum(
                ((j + 0.5) * samples / self.n_rays).astype(np.intp), samples - 1
            )
        else:
            self.mode = 'interpolate'
            if self.n_rays > 1 and span > 0.0:
                self.ray_angles = np.linspace(axis.min_angle, axis.max_angle, self.n_rays)
                position = (self.reading_angles - axis.min_angle) / span * (self.n_rays - 1)
            else:  # one ray (in the middle), or every ray at one angle: each reading is ray 0
                middle = 0.5 * (axis.min_angle + axis.max_angle)
                self.ray_angles = np.full(self.n_rays, middle)
                position = np.zeros(samples)
            self.lower = np.minimum(np.floor(position).astype(np.intp), max(self.n_rays - 2, 0))
            self.weight = np.clip(position - self.lower, 0.0, 1.0)
            self.upper = np.minimum(self.lower + 1, self.n_rays - 1)

    def ranges(self, values: NDArray[np.float64], axis: int) -> NDArray[np.float64]:
        """Readings from per-ray ranges along ``axis`` (REP 117 values kept meaningful)."""
        if self.mode == 'identity':
            return values
        moved = np.moveaxis(values, axis, -1)
        if self.mode == 'average':
            out = _average_ranges(moved, self.cell, self.axis.samples)
        else:
            out = self._interpolate(moved, finite_only=True)
        return np.moveaxis(out, -1, axis)

    def means(self, values: NDArray[np.float64], axis: int) -> NDArray[np.float64]:
        """Readings of a finite per-ray quantity (intensity): plain means or interpolations."""
        if self.mode == 'identity':
            return values
        moved = np.moveaxis(values, axis, -1)
        if self.mode == 'average':
            rows = moved.reshape(-1, moved.shape[-1])
            n = self.axis.samples
            index = (np.arange(rows.shape[0])[:, None] * n + self.cell[None, :]).ravel()
            sums = np.bincount(index, weights=rows.ravel(), minlength=rows.shape[0] * n)
            counts = np.bincount(self.cell, minlength=n)
            out = (sums.reshape(-1, n) / counts).reshape((*moved.shape[:-1], n))
        else:
            out = self._interpolate(moved, finite_only=False)
        return np.moveaxis(out, -1, axis)

    def _interpolate(
        self, values: NDArray[np.float64], *, finite_only: bool
    ) -> NDArray[np.float64]:
        low = values[..., self.lower]
        high = values[..., self.upper]
        w = self.weight
        with np.errstate(invalid='ignore'):
            mixed = (1.0 - w) * low + w * high
        if finite_only:
            nearer = np.where(w < 0.5, low, high)
            mixed = np.where(np.isfinite(low) & np.isfinite(high), mixed, nearer)
        return mixed


def _average_ranges(
    values: NDArray[np.float64], cell: NDArray[np.intp], n_cells: int
) -> NDArray[np.float64]:
    """Mean of the finite ranges of each cell along the last axis; else -inf if any, else +inf."""
    rows = values.reshape(-1, values.shape[-1])
    index = (np.arange(rows.shape[0])[:, None] * n_cells + cell[None, :]).ravel()
    flat = rows.ravel()
    finite = np.isfinite(flat)
    size = rows.shape[0] * n_cells
    sums = np.bincount(index[finite], weights=flat[finite], minlength=size)
    counts = np.bincount(index[finite], minlength=size)
    too_close = np.bincount(index[flat == -np.inf], minlength=size) > 0
    with np.errstate(invalid='ignore', divide='ignore'):
        out = np.where(
            counts > 0, sums / np.maximum(counts, 1), np.where(too_close, -np.inf, np.inf)
        )
    return out.reshape((*values.shape[:-1], n_cells))


def scan_directions(
    azimuth: NDArray[np.float64], elevation: NDArray[np.float64]
) -> NDArray[np.float64]:
    """(len(elevation), len(azimuth), 3) unit directions in the body frame, rows by elevation."""
    a = np.asarray(azimuth, dtype=np.float64)[None, :]
    e = np.asarray(elevation, dtype=np.float64)[:, None]
    cos_e = np.cos(e)
    return np.stack(np.broadcast_arrays(cos_e * np.cos(a), cos_e * np.sin(a), np.sin(e)), axis=-1)


@dataclass(frozen=True, eq=False)
class ScanReading:
    """One scan: readings by row (elevation, lowest first) and column (azimuth, min_angle first).

    Attributes:
        ranges: (rows, columns) float64 m, REP 117 (``+inf`` no return, ``-inf`` too close).
        intensities: (rows, columns) float64 in the units of the intensity mode.
        directions: (rows, columns, 3) unit direction of each reading, sensor body frame
            (shared between scans, read-only).
    """

    ranges: NDArray[np.float64]
    intensities: NDArray[np.float64]
    directions: NDArray[np.float64]

    def points(self) -> NDArray[np.float64]:
        """(rows, columns, 3) points in the sensor body frame, m; NaN where no finite range."""
        r = np.where(np.isfinite(self.ranges), self.ranges, np.nan)
        return self.directions * r[..., None]


class Scanner:
    """A ray sensor: its rays built once per configuration and moved with its pose.

    Args:
        config: the configuration.
        world_from_body: (4, 4) pose of the sensor's body frame (x forward) in the world.
    """

    def __init__(self, config: ScanConfig, world_from_body: NDArray[np.float64]) -> None:
        self.config = config
        self.horizontal = AxisSampling(config.horizontal)
        self.vertical = AxisSampling(config.vertical)
        self.body_rays = scan_directions(
            self.horizontal.ray_angles, self.vertical.ray_angles
        ).reshape(-1, 3)
        directions = scan_directions(self.horizontal.reading_angles, self.vertical.reading_angles)
        directions.flags.writeable = False
        self.reading_directions = directions
        self._rng = np.random.default_rng(config.seed)
        noise = config.noise
        self._bias = noise.draw_bias(self._rng) if noise.enabled else 0.0
        self.set_pose(world_from_body)

    @property
    def n_rays(self) -> int:
        """Rays cast per scan."""
        return int(self.body_rays.shape[0])

    def set_pose(self, world_from_body: NDArray[np.float64]) -> None:
        """Place the sensor: ``world_from_body`` is the 4x4 pose of its x-forward frame."""
        pose = np.asarray(world_from_body, dtype=np.float64)
        self.world_from_body = pose.copy()
        self.origin = pose[:3, 3].copy()
        self.directions = np.einsum('ij,nj->ni', pose[:3, :3], self.body_rays)

    def scan(self, caster: SurfaceCaster) -> ScanReading:
        """Cast every ray once and turn the hits into readings."""
        cfg = self.config
        hits = caster.cast(self.origin, self.directions)
        shape = (self.vertical.n_rays, self.horizontal.n_rays)
        r = np.asarray(hits.ranges, dtype=np.float64)
        valid = (r >= cfg.min_range) & (r <= cfg.max_range)
        ranges = np.where(r > cfg.max_range, np.inf, np.where(r < cfg.min_range, -np.inf, r))
        if cfg.intensity is IntensityMode.ECHO:
            mu = np.nan_to_num(np.asarray(hits.reflectivity, dtype=np.float64), nan=0.0)
            cos = np.abs(np.asarray(hits.cos_incidence, dtype=np.float64))
            with np.errstate(divide='ignore', invalid='ignore'):
                echo = RETRO_FULL_SCALE * mu * cos / (r * r)
            intensity = np.where(valid & (r > 0.0), echo, 0.0)
        else:  # nan on a miss: outside the window, so 0
            intensity = np.where(valid, np.asarray(hits.retro, dtype=np.float64), 0.0)
        ranges = self.horizontal.ranges(ranges.reshape(shape), axis=1)
        ranges = self.vertical.ranges(ranges, axis=0)
        intensity = self.vertical.means(
            self.horizontal.means(intensity.reshape(shape), axis=1), axis=0
        )
        ranges = cfg.noise.apply_array(ranges, self._bias, self._rng)
        if cfg.range_resolution > 0.0:
            finite = np.isfinite(ranges)
            ranges = np.where(
                finite, np.round(ranges / cfg.range_resolution) * cfg.range_resolution, ranges
            )
        ranges = np.where(
            ranges > cfg.max_range, np.inf, np.where(ranges < cfg.min_range, -np.inf, ranges)
        )
        return ScanReading(
            ranges=np.ascontiguousarray(ranges),
            intensities=np.ascontiguousarray(intensity),
            directions=self.reading_directions,
        )
