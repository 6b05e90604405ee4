"""Write the side-scan demo's seabed: config/worlds/sidescan_survey/{heights,reflectivity}.png.

Run: ``scripts/run python scripts/make_sidescan_world.py`` (the PNGs are committed; this says
how they were made). Both images cover the same 160 m x 120 m (x, y) of
config/worlds/sidescan_survey.sdf, row 0 at the +y edge (north up, as Gazebo reads a
heightmap), column 0 at the -x edge.

* ``heights.png``: 129 x 129 16-bit grey; with the world's ``<size>`` z of 2 m, pixel 0 is
  z = 0 and 65535 is z = 2 m. h(x, y) = 0.6 + 0.4 sin(2 pi x / 40) cos(2 pi y / 60) + 0.5 exp(
  -((x - 30)^2 + (y + 25)^2) / 200), in metres (gentle sand waves and a low mound).
* ``reflectivity.png``: 257 x 257 8-bit grey, grey level g = Lambert coefficient mu = g / 255 of
  the seabed hit there (docs/scene.md): sand (mu 0.35) everywhere but a band of mud (0.08)
  for y in [-45, -20] m and a rock outcrop (0.85) within 12 m of (-25, 22); the mud band's
  edge at y = -20 is a straight step across the track.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

OUT = Path(__file__).resolve().parents[1] / 'config' / 'worlds' / 'sidescan_survey'
SIZE_X, SIZE_Y, SIZE_Z = 160.0, 120.0, 2.0
SAND, MUD, ROCK = 0.35, 0.08, 0.85


def grid(n: int) -> tuple[np.ndarray, np.ndarray]:
    """World (x, y) of each pixel of an n x n image over the extent, row 0 at +y."""
    x = np.linspace(-SIZE_X / 2, SIZE_X / 2, n)
    y = np.linspace(SIZE_Y / 2, -SIZE_Y / 2, n)
    return np.meshgrid(x, y)


def heights(n: int = 129) -> np.ndarray:
    """Heights in metres (module docstring)."""
    x, y = grid(n)
    bump = 0.5 * np.exp(-((x - 30.0) ** 2 + (y + 25.0) ** 2) / 200.0)
    return 0.6 + 0.4 * np.sin(2 * np.pi * x / 40.0) * np.cos(2 * np.pi * y / 60.0) + bump


def reflectivity(n: int = 257) -> np.ndarray:
    """Lambert coefficients mu (module docstring)."""
    x, y = grid(n)
    mu = np.full(x.shape, SAND)
    mu[(y >= -45.0) & (y <= -20.0)] = MUD
    mu[(x + 25.0) ** 2 + (y - 22.0) ** 2 <= 12.0**2] = ROCK
    return mu


def main() -> None:
    """Write both PNGs."""
    OUT.mkdir(parents=True, exist_ok=True)
    h = np.rint(heights() / SIZE_Z * 65535).astype(np.uint16)
    Image.fromarray(h).save(OUT / 'heights.png')
    g = np.rint(reflectivity() * 255).astype(np.uint8)
    Image.fromarray(g, mode='L').save(OUT / 'reflectivity.png')
    print(f'wrote {OUT}/heights.png and reflectivity.png')


if __name__ == '__main__':
    main()
