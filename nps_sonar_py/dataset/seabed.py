"""Seabeds of a family (flat, ripples, sand waves, rocky) with sand, mud and rock patches.

A seabed is a grid of heights ``(R, C)`` over an extent of the survey frame (x ahead of the
sensor, y to port), row 0 at the +y edge as ``scene.heightmap_triangles`` lays it, mean level
z = 0. Crests of ripples and sand waves run across the direction ``heading`` (rad) from +x:
the sensor's heading relative to the bedforms. The reflectivity is one Lambert coefficient
per grid cell: a smooth random field of ``patch_size`` m split by its quantiles into mud
(the lowest ``mud_fraction``), rock (the highest ``rock_fraction``) and sand between.
Everything is drawn from the row's ``seabed_seed`` (``dataset/draw.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.ndimage import gaussian_filter, map_coordinates

from nps_sonar_py.scene import Entity, heightmap_triangles

__all__ = ['Seabed', 'make_seabed', 'scoured']


@dataclass(frozen=True, eq=False)
class Seabed:
    """Heights ``(R, C)`` m over ``x0..x1``, ``y0..y1`` m, and the cells' Lambert coefficients."""

    heights: NDArray[np.float64]
    x0: float
    x1: float
    y0: float
    y1: float
    mu: NDArray[np.float64]  # (R - 1, C - 1)

    def height_at(self, x: float, y: float) -> float:
        """The seabed's height at ``(x, y)`` (bilinear; the nearest edge outside), m."""
        rows, cols = self.heights.shape
        col = (x - self.x0) / (self.x1 - self.x0) * (cols - 1)
        row = (self.y1 - y) / (self.y1 - self.y0) * (rows - 1)
        z = map_coordinates(self.heights, [[row], [col]], order=1, mode='nearest')
        return float(z[0])

    def entity(self, name: str = 'seabed') -> Entity:
        """The seabed as an entity: two triangles per cell, each with its cell's mu."""
        size = (self.x1 - self.x0, self.y1 - self.y0)
        centre = (0.5 * (self.x0 + self.x1), 0.5 * (self.y0 + self.y1), 0.0)
        surface = heightmap_triangles(self.heights, size, centre)
        # heightmap_triangles: two triangles per cell, cells in row-major order.
        return Entity(name, surface, np.repeat(self.mu.ravel(), 2))


#: The peak of ``sin a + sin(2 a) / 4``, at ``cos a = (sqrt(3) - 1) / 2``: a sand wave's
#: crest-to-trough height is then ``seabed_height``.
_SAND_WAVE_PEAK = math.sin(math.acos((math.sqrt(3.0) - 1.0) / 2.0)) * (
    1.0 + 0.5 * (math.sqrt(3.0) - 1.0) / 2.0
)


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], sigma: float) -> NDArray[Any]:
    """A smooth random field of unit standard deviation, correlation length ``sigma`` cells."""
    field = gaussian_filter(rng.standard_normal(shape), sigma=max(sigma, 0.5), mode='wrap')
    std = float(np.std(field))
    out: NDArray[np.float64] = field / std if std > 0 else field
    return out


def _heights(
    family: str,
    row: dict[str, Any],
    x: NDArray[np.float64],
    y: NDArray[np.float64],
    cell: float,
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    heading = math.radians(row['heading'])
    u = x * math.cos(heading) + y * math.sin(heading)  # across the crests
    v = -x * math.sin(heading) + y * math.cos(heading)  # along them
    phase = 2.0 * math.pi * float(rng.random())
    if family == 'ripples':
        k = 2.0 * math.pi / row['seabed_wavelength']
        wander = 0.3 * np.sin(v * k / 7.0 + phase)  # crests that bend a little
        z = 0.5 * row['seabed_height'] * np.sin(k * u + wander + phase)
    elif family == 'sand_waves':
        k = 2.0 * math.pi / row['seabed_wavelength']
        a = k * u + phase
        asymmetric = np.sin(a) + 0.25 * np.sin(2.0 * a)  # steeper lee sides
        z = 0.5 * row['seabed_height'] * asymmetric / _SAND_WAVE_PEAK
    elif family == 'rocky':
        field = _smooth_noise(rng, x.shape, row['seabed_scale'] / cell)
        outcrop = np.clip(field / 2.5, 0.0, 1.0) ** 1.5  # outcrops on a flat bed
        z = row['seabed_height'] * outcrop
    else:  # flat
        z = np.zeros(x.shape)
    rough = row['seabed_roughness'] if family == 'flat' else 0.01
    z = z + rough * _smooth_noise(rng, x.shape, 1.0)
    heights: NDArray[np.float64] = z - float(np.mean(z))
    return heights


def _patches(
    row: dict[str, Any], shape: tuple[int, int], cell: float, rng: np.random.Generator
) -> NDArray[np.float64]:
    """(R - 1, C - 1) mu per cell: mud, sand and rock by the quantiles of a smooth field."""
    field = _smooth_noise(rng, (shape[0] - 1, shape[1] - 1), row['patch_size'] / cell)
    mu = np.full(field.shape, row['sand'])
    order = np.argsort(np.argsort(field, axis=None, kind='stable'), kind='stable')
    quantile = order.reshape(field.shape) / field.size
    mu[quantile < row['mud_fraction']] = row['mud']
    mu[quantile >= 1.0 - row['rock_fraction']] = row['rock']
    clipped: NDArray[np.float64] = np.clip(mu, 0.0, 1.0)
    return clipped


def make_seabed(
    row: dict[str, Any], extent: tuple[float, float, float, float], cell: float
) -> Seabed:
    """The seabed of ``row`` over ``extent`` = (x0, x1, y0, y1) m, ``cell`` m per grid step."""
    x0, x1, y0, y1 = extent
    cols = max(2, math.ceil((x1 - x0) / cell) + 1)
    rows = max(2, math.ceil((y1 - y0) / cell) + 1)
    xs = np.linspace(x0, x1, cols)
    ys = np.linspace(y1, y0, rows)  # row 0 at +y
    x, y = np.meshgrid(xs, ys)
    rng = np.random.default_rng(row['seabed_seed'])
    heights = _heights(row['seabed_family'], row, x, y, cell, rng)
    mu = _patches(row, heights.shape, cell, rng)
    return Seabed(heights, x0, x1, y0, y1, mu)


def scoured(seabed: Seabed, scours: list[tuple[float, ...]]) -> Seabed:
    """``seabed`` with a scour pit under and around each object of ``scours``.

    Each is ``(x, y, yaw, half_length, half_width, depth, width)`` (m, rad). A pit is
    ``depth (1 - q)**2`` deep where ``q = (u / (half_length + width))**2 + (v / (half_width +
    width))**2 < 1`` in the object's frame (``u`` along its length): ``depth`` under its
    centre, 0 with a level slope at ``width`` m beyond its footprint. Overlapping pits take the
    deeper.
    """
    if not scours:
        return seabed
    rows, cols = seabed.heights.shape
    x, y = np.meshgrid(
        np.linspace(seabed.x0, seabed.x1, cols), np.linspace(seabed.y1, seabed.y0, rows)
    )
    pit = np.zeros(seabed.heights.shape)
    for cx, cy, yaw, half_length, half_width, depth, width in scours:
        u = (x - cx) * math.cos(yaw) + (y - cy) * math.sin(yaw)
        v = -(x - cx) * math.sin(yaw) + (y - cy) * math.cos(yaw)
        q = (u / (half_length + width)) ** 2 + (v / (half_width + width)) ** 2
        pit = np.maximum(pit, depth * np.clip(1.0 - q, 0.0, 1.0) ** 2)
    return Seabed(seabed.heights - pit, seabed.x0, seabed.x1, seabed.y0, seabed.y1, seabed.mu)
