"""The benchmarks' seabed: one seeded, smooth random relief, as a height grid or as triangles.

``bench_fan``, ``bench_sidescan`` (and through ``bench_fan`` ``bench_multipath``) cast on its
triangles, ``bench_reflectivity_map`` writes its grid as a heightmap: the same relief, so their
figures stay comparable.
"""

from __future__ import annotations

import numpy as np
from scipy.ndimage import gaussian_filter

from nps_sonar_py.scene import Triangles

__all__ = ['GRID', 'random_relief', 'relief_triangles']

#: Vertices per side: 2 * 316**2 = 199,712 triangles.
GRID = 317


def random_relief(rng: np.random.Generator, grid: int = GRID, relief: float = 1.5) -> np.ndarray:
    """(grid, grid) heights, m: Gaussian noise smoothed over 6 samples, at most ``relief`` high.

    Draws ``grid**2`` standard normals from ``rng`` (a seeded generator gives the same seabed).
    """
    heights = gaussian_filter(rng.standard_normal((grid, grid)), sigma=6.0)
    scaled: np.ndarray = heights * (relief / np.max(np.abs(heights)))
    return scaled


def relief_triangles(rng: np.random.Generator, half_width: float, grid: int = GRID) -> Triangles:
    """The relief of ``random_relief`` on a square of ``2 half_width`` m centred on the origin.

    Vertex ``(i, j)`` is at ``x = -half_width + i * step``, ``y = -half_width + j * step``; two
    triangles per cell.
    """
    axis = np.linspace(-half_width, half_width, grid)
    x, y = np.meshgrid(axis, axis, indexing='ij')
    z = random_relief(rng, grid)
    vertices = np.column_stack((x.ravel(), y.ravel(), z.ravel()))
    i, j = np.meshgrid(np.arange(grid - 1), np.arange(grid - 1), indexing='ij')
    a = (i * grid + j).ravel()
    b, c, d = a + grid, a + grid + 1, a + 1
    triangles = np.concatenate((np.column_stack((a, b, c)), np.column_stack((a, c, d))))
    return Triangles(vertices, triangles)
