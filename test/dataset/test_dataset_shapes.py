"""The procedural objects: each closed (every edge shared by two triangles, wound outward) and of
the size ``docs/datasets.md`` gives it, in the object's own frame on its base.

The sizes are worked out here from the documented formulas, not read from the builders; the
closedness is counted over the triangles' edges, the outward winding by the divergence theorem
(the signed volume of a closed mesh wound outward is positive). Negative controls: a mesh
missing one triangle, the open hull of the wreck, and a mesh wound inward are rejected.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from nps_sonar_py.dataset.objects import object_triangles
from nps_sonar_py.scene import Triangles

#: kind: (the drawn sizes, the axis-aligned size (x, y, z) the docs give for them)
SIZES: dict[str, tuple[dict[str, Any], tuple[float, float, float]]] = {
    'drum': ({'radius': 0.29, 'height': 0.88}, (0.58, 0.58, 0.88)),
    'cage': (
        {'length': 1.0, 'width': 0.6, 'height': 0.5, 'bar': 0.02},
        (1.0, 0.6, 0.5),
    ),
    'crab_trap': ({'radius': 0.45, 'height': 0.3, 'bar': 0.01}, (0.9, 0.9, 0.3)),
    'effigy': ({'length': 1.8}, (1.8, 0.33 * 1.8, 0.13 * 1.8)),
    'debris': (
        {'length': 0.5, 'width': 0.3, 'height': 0.1, 'shape': 0.37},
        (0.5, 0.3, 0.1),
    ),
}


CHAIN = {'link': 0.2, 'length': 3.0}
PROPELLER = {'diameter': 1.2, 'blades': 4.2}


def _edge_counts(mesh: Triangles) -> tuple[int, int]:
    """(undirected edges not used by exactly two triangles, directed edges used twice)."""
    t = mesh.triangles
    directed = np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]])
    undirected = np.sort(directed, axis=1)
    _, uses = np.unique(undirected, axis=0, return_counts=True)
    _, same_way = np.unique(directed, axis=0, return_counts=True)
    return int(np.sum(uses != 2)), int(np.sum(same_way > 1))


def _signed_volume(mesh: Triangles) -> float:
    a, b, c = (mesh.vertices[mesh.triangles[:, i]] for i in range(3))
    return float(np.einsum('ij,ij->i', a, np.cross(b, c)).sum() / 6.0)


def _closed_outward(mesh: Triangles) -> bool:
    open_edges, twice = _edge_counts(mesh)
    return open_edges == 0 and twice == 0 and _signed_volume(mesh) > 0.0


def _size(mesh: Triangles) -> np.ndarray:
    return np.asarray(mesh.vertices.max(axis=0) - mesh.vertices.min(axis=0))


@pytest.mark.parametrize('kind', [*SIZES, 'chain', 'propeller'])
def test_each_new_kind_is_closed_and_wound_outward(kind: str) -> None:
    others = {'chain': CHAIN, 'propeller': PROPELLER}
    sizes = SIZES[kind][0] if kind in SIZES else others[kind]
    mesh = object_triangles({'kind': kind, **sizes})
    assert _closed_outward(mesh)
    assert mesh.vertices[:, 2].min() == pytest.approx(0.0, abs=1e-12)  # on its base


def test_the_closedness_check_rejects_an_open_or_inward_mesh() -> None:
    drum = object_triangles({'kind': 'drum', 'radius': 0.3, 'height': 0.9})
    holed = Triangles(drum.vertices, drum.triangles[1:])
    inward = Triangles(drum.vertices, np.ascontiguousarray(drum.triangles[:, ::-1]))
    wreck = object_triangles({'kind': 'wreck', 'length': 10.0, 'beam': 3.0, 'height': 2.0})
    assert not _closed_outward(holed)
    assert not _closed_outward(inward)
    assert not _closed_outward(wreck)


@pytest.mark.parametrize('kind', SIZES)
def test_each_new_kind_has_its_documented_size(kind: str) -> None:
    sizes, extent = SIZES[kind]
    mesh = object_triangles({'kind': kind, **sizes})
    # A faceted round shape reaches its radius at its vertices: 32 facets, cos(pi / 32) short.
    np.testing.assert_allclose(_size(mesh), extent, rtol=1 - math.cos(math.pi / 32) + 1e-9)
    wrong = np.array(extent) * [1.0, 1.0, 1.1]  # a deliberately wrong height
    assert not np.allclose(_size(mesh), wrong, rtol=0.01)


def test_a_chain_is_whole_links_each_through_the_next() -> None:
    mesh = object_triangles({'kind': 'chain', **CHAIN})
    radius = CHAIN['link'] / 2.3  # the docs' link: axis radius link / 2.3, pitch 1.55 of it
    pitch = 1.55 * radius
    links = math.floor((CHAIN['length'] - CHAIN['link']) / pitch) + 1
    length = (links - 1) * pitch + CHAIN['link']
    assert length <= CHAIN['length'] < length + pitch
    np.testing.assert_allclose(_size(mesh), (length, 0.2, 0.2), rtol=1 - math.cos(math.pi / 24))
    assert mesh.triangles.shape[0] == links * 2 * 24 * 12  # 24 x 12 quads a link


def test_a_propeller_has_its_blades_and_its_tips_on_the_diameter() -> None:
    mesh = object_triangles({'kind': 'propeller', **PROPELLER})
    centred = (
        mesh.vertices[:, :2] - (mesh.vertices[:, :2].max(0) + mesh.vertices[:, :2].min(0)) / 2
    )
    radial = np.hypot(centred[:, 0], centred[:, 1])
    assert radial.max() == pytest.approx(0.6, rel=0.02)
    # Four blades (4.2 rounded): the tips' bearings fall in four clusters.
    tips = np.sort(np.degrees(np.arctan2(centred[radial > 0.5, 1], centred[radial > 0.5, 0])))
    gaps = np.diff(np.append(tips, tips[0] + 360.0))
    assert int(np.sum(gaps > 30.0)) == 4
    assert mesh.vertices[:, 2].max() == pytest.approx(0.15 * 1.2, rel=0.05)  # the hub's height
