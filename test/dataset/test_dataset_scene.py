"""The seabed families and the object library against what their parameters say.

Ripples repeat at their wavelength across their crests; ripples and sand waves are their
height from crest to trough; rocky outcrops stay under theirs; the patches cover the
fractions asked; every object rests on z = 0, centred, with the sizes drawn.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from nps_sonar_py.dataset.objects import object_triangles
from nps_sonar_py.dataset.seabed import make_seabed

#: What the roughness every bedform carries adds to a crest-to-trough height: 0.01 m (one
#: standard deviation) of smooth noise (``seabed.py``), up to 4 sigma at a crest and a trough.
ROUGH = 0.08


def _row(family: str, **values: float) -> dict[str, Any]:
    row: dict[str, Any] = {
        'seabed_family': family,
        'seabed_seed': 11,
        'heading': 0.0,
        'seabed_roughness': 0.0,
        'seabed_wavelength': 2.0,
        'seabed_height': 0.4,
        'seabed_scale': 3.0,
        'sand': 0.35,
        'mud': 0.08,
        'rock': 0.85,
        'mud_fraction': 0.0,
        'rock_fraction': 0.0,
        'patch_size': 6.0,
    }
    row.update(values)
    return row


def test_ripples_repeat_at_their_wavelength_across_their_crests() -> None:
    cell = 0.1
    seabed = make_seabed(_row('ripples', seabed_wavelength=1.6), (0.0, 32.0, -2.0, 2.0), cell)
    profile = seabed.heights[seabed.heights.shape[0] // 2]  # along +x, across the crests
    spectrum = np.abs(np.fft.rfft(profile - profile.mean()))
    frequencies = np.fft.rfftfreq(profile.size, d=cell)
    peak = int(np.argmax(spectrum))
    assert abs(1.0 / frequencies[peak] - 1.6) < 0.1
    # Turned by the heading: along +x the profile now runs along the crests: nothing there.
    turned = make_seabed(
        _row('ripples', seabed_wavelength=1.6, heading=90.0), (0.0, 32.0, -2.0, 2.0), cell
    )
    along = turned.heights[turned.heights.shape[0] // 2]
    across_crests = spectrum[peak - 1 : peak + 2].max()
    assert (
        np.abs(np.fft.rfft(along - along.mean()))[peak - 1 : peak + 2].max() < 0.1 * across_crests
    )


@pytest.mark.parametrize('family', ['ripples', 'sand_waves'])
def test_bedforms_are_their_height_from_crest_to_trough(family: str) -> None:
    seabed = make_seabed(
        _row(family, seabed_wavelength=12.0, seabed_height=0.8), (0.0, 60.0, -3.0, 3.0), 0.25
    )
    assert abs(np.ptp(seabed.heights) - 0.8) < ROUGH
    assert abs(float(seabed.heights.mean())) < 1e-9  # the mean level is z = 0


def test_rocky_outcrops_stay_under_their_height_and_flat_is_flat() -> None:
    rocky = make_seabed(_row('rocky', seabed_height=1.2), (0.0, 40.0, -20.0, 20.0), 0.25)
    assert 0.5 < np.ptp(rocky.heights) < 1.2 + ROUGH
    flat = make_seabed(_row('flat'), (0.0, 10.0, -5.0, 5.0), 0.25)
    assert np.ptp(flat.heights) == 0.0


def test_the_patches_cover_the_fractions_asked() -> None:
    row = _row('flat', mud_fraction=0.3, rock_fraction=0.2)
    seabed = make_seabed(row, (0.0, 50.0, -25.0, 25.0), 0.25)
    n = seabed.mu.size
    assert abs(np.count_nonzero(seabed.mu == 0.08) - 0.3 * n) <= 1
    assert abs(np.count_nonzero(seabed.mu == 0.85) - 0.2 * n) <= 1
    assert set(np.unique(seabed.mu)) == {0.08, 0.35, 0.85}
    entity = seabed.entity()
    assert entity.reflectivity.shape == (2 * n,)  # two triangles per cell
    assert abs(seabed.height_at(10.0, 3.0)) < 1e-12


SIZES = {
    'box': ({'length': 2.0, 'width': 1.0, 'height': 0.5}, (2.0, 1.0, 0.5)),
    'pipe': ({'radius': 0.3, 'length': 8.0}, (8.0, 0.6, 0.6)),
    'mine': ({'radius': 0.4, 'length': 1.5}, (1.5, 0.8, 0.8)),
    'tyre': ({'radius': 0.6, 'tube': 0.2}, (1.6, 1.6, 0.4)),
    'wreck': ({'length': 10.0, 'beam': 3.0, 'height': 2.0}, (10.0, 3.0, 2.0)),
}


@pytest.mark.parametrize('kind', SIZES)
def test_each_object_rests_on_its_base_with_the_sizes_drawn(kind: str) -> None:
    sizes, extent = SIZES[kind]
    mesh = object_triangles({'kind': kind, **sizes})
    low, high = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    assert low[2] == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(low[:2], -high[:2], atol=1e-9)  # centred footprint
    # Faceted round shapes reach their radius at the vertices (cos of half a facet short).
    np.testing.assert_allclose(high - low, extent, rtol=1 - math.cos(math.pi / 32) + 1e-9)
    assert np.all(np.linalg.norm(mesh.normals(), axis=1) > 0.5)  # no degenerate triangle
