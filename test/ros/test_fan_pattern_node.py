"""``fan_pattern: array`` and ``vertical_cast`` of the multibeam node, over real DDS.

One ``scanning_sonar_node`` (mode multibeam, the fan of ``test_projected_image.py``: 31 beams
over +-0.6 rad, 1.5 degree beams, 10 degree ``sinc`` vertical pattern) at ``H`` = 1 m over a
flat seabed, looking level at a post (the front face x = ``R``, ``|y| <= HALF``, +-5 cm tall)
straight ahead; ``fan_pattern: array`` with 68 elements at half a wavelength and
``vertical_cast: 0.6`` rad. Its float32 projected image is decoded by docs/marine.md.
Closed forms, each with the defaults' answer as the negative control:

- **array**: beam ``b`` hears the post's columns of rays (azimuths ``a_c``, the documented
  grid: ``rays_horizontal`` cell centres across each beam's 1.5 degrees) through
  ``|AF(sin a_c - sin a_b)|**2``, ``AF(u) = sin(N pi d u) / (N sin(pi d u))``. The default
  ``rays`` pattern hears the post on the beams whose own rays meet it alone: the others silent.
- **vertical_cast**: the rows span +-0.3 rad, so the seabed is heard from ``H / sin 0.3`` =
  3.38 m; through the sinc's skirt, with its dip where the sinc's first null meets the seabed
  (``(L / lambda) sin e = 1``). The default (the -3 dB width, a knife edge) and a uniform
  pattern hear no seabed nearer than ``H / sin 5 deg`` = 11.5 m: none in the 10 m window.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from flat_seabed import box_model, seabed_file
from ranger_scenes import wall_scene
from ros_helpers import Probe, running
from test_projected_image import (
    AZIMUTHS,
    BEAMS,
    BINS,
    HORIZONTAL,
    MIN_RANGE,
    VERTICAL,
    W,
    decode,
    reliable,
)
from test_projected_image import parameters as fan_parameters

pytestmark = pytest.mark.ros

H, R, HALF = 1.0, 2.0, 0.1
ROWS, CAST, ELEMENTS, ELEMENT_SPACING = 41, 0.6, 68, 0.5
COLUMNS = 3  # rays_horizontal
RANGES = MIN_RANGE + (np.arange(BINS) + 0.5) * W
#: The sinc's one-way -3 dB point: sin(x) / x = 1 / sqrt(2) at x = 1.39156.
LENGTH = 1.39156 / math.pi / math.sin(0.5 * VERTICAL)  # L / lambda


@pytest.fixture(scope='module')
def image(tmp_path_factory: pytest.TempPathFactory) -> np.ndarray:
    """The ``(bins, beams)`` float32 image of the node with both settings, one start-up."""
    from marine_acoustic_msgs.msg import ProjectedSonarImage

    folder = tmp_path_factory.mktemp('fan_pattern')
    robot, _ = wall_scene(folder)  # its sonar at base_link; the world is the seabed here
    post = box_model('post', 0.5, (R + 0.1, 0.0, H), f'0.2 {2 * HALF} 0.1')
    world = seabed_file(folder / 'seabed.world', 0.5, post)
    settings: dict[str, Any] = {
        'robot_pose': [0.0, 0.0, H, 0.0, 0.0, 0.0],
        'rays_vertical': ROWS,
        'vertical_pattern': 'sinc',
        'vertical_cast': CAST,
        'fan_pattern': 'array',
        'array_elements': ELEMENTS,
        'array_spacing': ELEMENT_SPACING,
        'publish_projected_image': True,
        'projected_image_dtype': 'float32',
    }
    probe = Probe()
    try:
        probe.subscribe(ProjectedSonarImage, 'head/projected_image', reliable())
        with running('scanning_sonar_node', fan_parameters(robot, str(world), **settings)) as node:
            message = probe.wait('head/projected_image', 1, node)[0]
    finally:
        probe.close()
    pixels = decode(message)
    assert pixels.shape == (BINS, BEAMS)
    return pixels.astype(np.float64)


def post_columns() -> np.ndarray:
    """Azimuths of the columns of rays that meet the post's face (``|R tan a| <= HALF``)."""
    edges = np.linspace(-0.5, 0.5, COLUMNS + 1) * HORIZONTAL
    columns = (AZIMUTHS[:, None] + 0.5 * (edges[:-1] + edges[1:])[None, :]).ravel()
    return columns[np.abs(R * np.tan(columns)) <= HALF]


def test_every_beam_hears_the_post_through_the_array(image: np.ndarray) -> None:
    r = RANGES
    post = (r > R - 0.05) & (r < R + 0.1)  # the seabed starts at 3.38 m
    heard = image[post].sum(axis=0)
    columns = post_columns()
    assert columns.size >= 3
    x = math.pi * ELEMENT_SPACING * (np.sin(columns)[None, :] - np.sin(AZIMUTHS)[:, None])
    with np.errstate(invalid='ignore', divide='ignore'):
        af = np.where(np.abs(x) < 1e-12, 1.0, np.sin(ELEMENTS * x) / (ELEMENTS * np.sin(x)))
    expected = (af**2).sum(axis=1)
    measured_db = 10.0 * np.log10(heard / heard.max())
    expected_db = 10.0 * np.log10(expected / expected.max())
    assert measured_db.min() < -25.0  # the side lobes are in the comparison
    np.testing.assert_allclose(measured_db, expected_db, atol=0.1)
    # Negative control: the rays' own pattern. A beam hears the post only where its own rays
    # (within 0.75 degrees of its axis) meet it; the far beams would be silent.
    own = np.abs(AZIMUTHS) <= math.atan(HALF / R) + 0.5 * HORIZONTAL
    assert (heard[~own] > 0.0).all()
    assert own.sum() < BEAMS // 4


def test_the_fan_hears_the_seabed_past_its_vertical_width(image: np.ndarray) -> None:
    r = RANGES  # the bins' centres, m
    seabed = image.sum(axis=1) * (r > R + 0.3)
    assert seabed.any(), 'no seabed heard in the 10 m window'
    onset = float(r[np.flatnonzero(seabed)[0]])
    assert onset == pytest.approx(H / math.sin(0.5 * CAST), abs=W)
    # Negative control: the knife edge (vertical_cast 0) or a uniform pattern hears the seabed
    # from H / sin(5 deg) on, past the window.
    assert H / math.sin(0.5 * VERTICAL) > r[-1]
    # The sinc's skirt: the seabed's dip where its first null meets it, within a row (the
    # rows' own weights are their cells' means) of H / sin(e_null).
    null = math.asin(1.0 / LENGTH)
    cell = CAST / ROWS
    near, far = H / math.sin(null + 1.5 * cell), H / math.sin(null - 1.5 * cell)
    window = (r > onset + 0.1) & (r < r[-1] - 0.1)
    dip = float(r[np.argmin(np.where(window, seabed, np.inf))])
    assert near < dip < far, (near, dip, far)
    # A dip, not a floor: the side lobe's seabed, nearer, is over ten times louder.
    assert seabed[(r > onset) & (r < near)].max() > 10.0 * seabed[window].min()
