"""The rough seabed's diffuse one-bounce paths (``seabed_diffuse``), against closed forms.

A lone scatterer on a face turned to the sensor, ``Z`` up over a level seabed (plane z = 0),
``Y`` across from a sensor ``H`` up (its frame the world's, shifted), one channel, pattern 1,
no absorption, direct amplitude 1. The test works, independently of the package:

* the slope variance along an axis, half of ``int K**2 W(K) d2K`` integrated numerically
  between the Fresnel zone's ``K_L`` (``seabed_image_paths``) and ``K_u``, where the heights
  above it have ``q_z**2 sigma**2 = 1`` (root-found on the numerically integrated variance);
* the facet law ``|R|**2 / (8 pi s**2 cos**4 beta) exp(-tan**2 beta / (2 s**2))``, times the
  share ``1 - exp(-q_z**2 sigma**2)`` the coherent image leaves, on a fine grid over a wide
  square of the seabed: the diffuse energy of one order (sensor -> patch -> scatterer ->
  sensor) over the direct one, ``int sigma_b (cos_in / cos_d) r_d**2 / (d1 d2)**2 dA``, and
  its distribution over the range heard at ``(d1 + d2 + r_d) / 2``.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from numpy.typing import NDArray
from scipy.integrate import quad
from scipy.optimize import brentq

from nps_sonar_py.echo import seabed_diffuse
from nps_sonar_py.echo.seabed_images import Ground, Images, seabed_images
from nps_sonar_py.echo.sediment import SEDIMENTS, Sediment, reflection_coefficient, with_overrides

H, Y, Z = 10.0, 25.0, 1.0
SAND = SEDIMENTS['sand']
P = np.array([0.0, Y, Z - H])  # the scatterer in the sensor's frame (origin 10 m up)
NORMAL = np.array([0.0, -1.0, 0.0])
POSE = np.eye(4)
POSE[2, 3] = H


def level(sediment: Sediment):  # type: ignore[no-untyped-def]
    """The level seabed of ``sediment`` straight down."""

    def below(points: NDArray[np.float64]) -> Ground:
        normals = np.tile([0.0, 0.0, 1.0], (points.shape[0], 1))
        return Ground(points[:, 2].copy(), normals, ((np.arange(points.shape[0]), sediment),))

    return below


def everywhere(*points: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Every way open, every leg clear."""
    return np.ones(points[0].shape[0], dtype=bool)


def one(points: NDArray[np.float64]) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """One channel, pattern 1 everywhere."""
    return np.zeros(points.shape[0], dtype=np.intp), np.ones(points.shape[0])


def paths(sediment: Sediment, frequency: float, body: NDArray[np.float64] = P) -> Images:
    """The package's image paths of the scatterer."""
    looks = (level(sediment), everywhere, everywhere)
    scatterer = (body[None, :], NORMAL[None, :], np.ones(1, dtype=np.complex128))
    return seabed_images(POSE, looks, scatterer, one, (0.0, 1500.0 / frequency))


def geometry(body: NDArray[np.float64] = P) -> tuple[float, float, float, float, float]:
    """``r_d``, ``r_i``, the specular legs ``d1``, ``d2`` and the grazing sine."""
    z = body[2] + H
    image = body - np.array([0.0, 0.0, 2.0 * z])
    r_d, r_i = float(np.linalg.norm(body)), float(np.linalg.norm(image))
    sin = (H + z) / r_i
    return r_d, r_i, r_i * H / (H + z), r_i * z / (H + z), sin


def roughness(sediment: Sediment, frequency: float) -> tuple[float, float]:
    """The test's own slope variance along an axis and the coherent intensity ``chi**2``."""
    _, _, d1, d2, sin = geometry()
    w2, g2 = sediment.spectral_strength, sediment.spectral_exponent
    a = math.sqrt(1500.0 / frequency * d1 * d2 / (d1 + d2) / sin)
    k_low = math.pi / a
    qz = 2.0 * (2.0 * math.pi * frequency / 1500.0) * sin

    def above(low: float) -> float:
        return quad(lambda q: 2.0 * math.pi * q * w2 * q**-g2, low, np.inf)[0]

    k_up = math.exp(brentq(lambda u: math.log(qz**2 * above(math.exp(u))), -3.0, 12.0))
    slope = 0.5 * quad(lambda q: 2.0 * math.pi * q**3 * w2 * q**-g2, k_low, k_up, limit=200)[0]
    return (slope if k_up > k_low else 0.0), math.exp(-(qz**2) * above(k_low))


#: The closed forms' grid step, m: the lobe is metres wide; the narrow beam's test takes 2 cm
#: (its beam is 0.13 m across at the patch).
STEP, FINE = 0.04, 0.02


@functools.cache
def seabed_grid(step: float = STEP) -> NDArray[np.float64]:
    """The closed forms' seabed: (n, 3) points ``step`` apart over 40 x 60 m about the
    specular point, in the sensor's frame (made once a step, read-only)."""
    _, r_i, d1_0, _, _ = geometry()
    x = np.arange(-20.0, 20.0, step) + 0.5 * step
    y = Y * d1_0 / r_i + np.arange(-30.0, 30.0, step) + 0.5 * step
    gx, gy = np.meshgrid(x, y, indexing='ij')
    grid = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, -H)], axis=-1)
    grid.flags.writeable = False
    return grid


@functools.cache
def lobe(
    sediment: Sediment, frequency: float, law: str = 'facet', step: float = STEP
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The closed form's diffuse energy density over the seabed (one order) and the ranges.

    A grid ``step`` apart over 60 x 40 m around the specular point; ``law``: 'facet' the
    model, 'no_cos4' a control without the facet's ``1 / cos**4 beta``. Worked once for
    each set of arguments (the tests share them)."""
    s2, coherent = roughness(sediment, frequency)
    r_d = geometry()[0]
    b = seabed_grid(step)
    d1 = np.linalg.norm(b, axis=-1)
    d2 = np.linalg.norm(P - b, axis=-1)
    half = -b / d1[..., None] + (P - b) / d2[..., None]
    half /= np.linalg.norm(half, axis=-1)[..., None]
    cos = half[..., 2]
    chi = np.arcsin(np.sum(-b / d1[..., None] * half, axis=-1))
    r2 = np.abs(reflection_coefficient(sediment, chi)) ** 2
    tilt = cos**4 if law == 'facet' else 1.0
    sigma = r2 / (8.0 * math.pi * s2 * tilt) * np.exp(-(1.0 / cos**2 - 1.0) / (2.0 * s2))
    cos_in = np.clip(np.sum((b - P) / d2[..., None] * NORMAL, axis=-1), 0.0, None)
    cos_d = float(-P @ NORMAL / r_d)
    density = sigma * (1.0 - coherent) * cos_in / cos_d * r_d**2 / (d1 * d2) ** 2 * step**2
    density, ranges = density.ravel(), (0.5 * (d1 + d2 + r_d)).ravel()
    density.flags.writeable = ranges.flags.writeable = False
    return density, ranges


def diffuse_order(found: Images) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """One order's diffuse energies and ranges (the first half of the diffuse rows)."""
    n = (found.amplitudes.size - found.coherent) // 2
    rows = slice(found.coherent, found.coherent + n)
    return np.abs(found.amplitudes[rows]) ** 2, found.ranges[rows]


def flat_energy(frequency: float) -> tuple[float, float]:
    """One one-bounce path's energy over the direct one, flat mirror: ``|R|**2 (cos_i /
    cos_d) (r_d / r_i)**2``; and the coherent one's, times ``chi**2``."""
    r_d, r_i, d1, _, sin = geometry()
    bounce = np.array([0.0, Y * d1 / r_i, -H])
    leg = (bounce - P) / np.linalg.norm(bounce - P)
    cos_i, cos_d = float(leg @ NORMAL), float(-P @ NORMAL / r_d)
    mirror = float(abs(reflection_coefficient(SAND, math.asin(sin))) ** 2)
    full = mirror * cos_i / cos_d * (r_d / r_i) ** 2
    return full, full * roughness(SAND, frequency)[1]


def test_the_diffuse_energy_is_the_facet_lobe_integrated_over_the_seabed() -> None:
    """Medium sand at 600 kHz (no coherent image left): the diffuse energy of one order is
    the lobe integrated over the seabed within 3 %; the coherent + diffuse total within the
    flat mirror's. Controls: the lobe without ``1 / cos**4 beta``, and twice the cross
    section (``4 pi s**2`` for ``8 pi s**2``), rejected."""
    found = paths(SAND, 600e3)
    energy, _ = diffuse_order(found)
    density, _ = lobe(SAND, 600e3)
    closed = float(density.sum())
    assert energy.sum() == pytest.approx(closed, rel=0.03)
    full, coherent = flat_energy(600e3)
    assert coherent < 1e-12 * full
    assert 0.5 * full < energy.sum() + coherent <= full
    assert energy.sum() != pytest.approx(float(lobe(SAND, 600e3, 'no_cos4')[0].sum()), rel=0.06)
    assert 2.0 * energy.sum() > full  # control: twice the cross section breaks the bound


@pytest.mark.parametrize('frequency', [45e3, 60e3])
def test_the_lobe_takes_what_the_coherent_image_leaves(frequency: float) -> None:
    """At 45 and 60 kHz the sand keeps part of its mirror coherent: the coherent and
    diffuse energies together do not exceed the flat mirror's (within 1 %), and the diffuse
    energy matches the lobe's closed form within 3 %. Control: the lobe without the share
    ``1 - chi**2`` (the facet law on its own) over the coherent part exceeds the flat mirror."""
    found = paths(SAND, frequency)
    energy = float(diffuse_order(found)[0].sum())
    assert energy == pytest.approx(float(lobe(SAND, frequency)[0].sum()), rel=0.03)
    full, coherent = flat_energy(frequency)
    assert coherent == pytest.approx(np.abs(found.amplitudes[0]) ** 2, rel=1e-6)
    assert 1e-3 * full < coherent < 0.9 * full  # a partial coherent image
    assert energy + coherent <= 1.01 * full
    chi2 = roughness(SAND, frequency)[1]
    assert energy / (1.0 - chi2) + coherent > 1.01 * full


def test_a_smooth_seabed_has_no_diffuse_part() -> None:
    """``w2`` 0 (the flat mirror): no diffuse paths; ``w2`` 1e-12: under 1e-6 of the mirror.
    Control: the sand's own roughness gives them."""
    assert paths(with_overrides(SAND, spectral_strength=0.0), 600e3).coherent == 3
    found = paths(with_overrides(SAND, spectral_strength=0.0), 600e3)
    assert found.amplitudes.size == 3
    smooth = paths(with_overrides(SAND, spectral_strength=1e-12), 600e3)
    full, _ = flat_energy(600e3)
    assert float(diffuse_order(smooth)[0].sum()) < 1e-6 * full
    assert float(diffuse_order(paths(SAND, 600e3))[0].sum()) > 0.1 * full


def test_the_diffuse_energy_follows_the_one_bounce_image_over_the_lobe() -> None:
    """No diffuse path is shorter than the specular one (Fermat: ``|B| + |P - B| >= r_i``):
    all its energy is heard at or after the one-bounce image's range ``(r_d + r_i) / 2``; the
    energy's mean and spread over range are the closed form's within 5 and 10 %, a spread of
    the order of ``r_i - r_d`` and more. Controls: a blurred copy of the image (the same
    spread centred on the image's range) puts a third of it earlier, and the energy all at the
    image's range has no spread."""
    energy, ranges = diffuse_order(paths(SAND, 600e3))
    r_d, r_i, *_ = geometry()
    image = 0.5 * (r_d + r_i)
    assert np.all(ranges >= image - 1e-9)
    density, closed_ranges = lobe(SAND, 600e3)
    mean = float(np.average(ranges, weights=energy))
    closed_mean = float(np.average(closed_ranges, weights=density))
    spread = math.sqrt(np.average((ranges - mean) ** 2, weights=energy))
    closed = math.sqrt(np.average((closed_ranges - closed_mean) ** 2, weights=density))
    assert mean - image == pytest.approx(closed_mean - image, rel=0.05)
    assert spread == pytest.approx(closed, rel=0.10)
    assert closed > 0.5 * (r_i - r_d)  # the lobe spreads the energy over range
    blurred = image + (ranges - mean)
    assert energy[blurred < image - 1e-9].sum() > 0.3 * energy.sum()
    assert closed_mean - image > 0.5 * closed  # not centred on the image's range


def test_the_two_orders_are_one_patch_heard_both_ways_and_fixed_in_the_world() -> None:
    """Each patch point is heard by both orders with the same amplitude and range
    (reciprocity: they add in phase, as the coherent one-bounce paths), the first from the
    scatterer, the reverse from the patch point on the seabed; the phases are the same from
    call to call, and the scatterer moved by 1 mm draws new ones. Control: the phases are
    not all equal (a lobe with one phase would be a blurred coherent image)."""
    found = paths(SAND, 600e3)
    n = (found.amplitudes.size - found.coherent) // 2
    first, second = slice(found.coherent, found.coherent + n), slice(found.coherent + n, None)
    np.testing.assert_array_equal(found.amplitudes[first], found.amplitudes[second])
    np.testing.assert_array_equal(found.ranges[first], found.ranges[second])
    np.testing.assert_allclose(found.arrivals[first], np.tile(P, (n, 1)))
    np.testing.assert_allclose(found.arrivals[second][:, 2], -H, atol=1e-9)
    again = paths(SAND, 600e3)
    np.testing.assert_array_equal(again.amplitudes, found.amplitudes)
    moved = paths(SAND, 600e3, P + np.array([1e-3, 0.0, 0.0]))
    phase = np.angle(found.amplitudes[first])
    assert np.std(phase) > 1.0
    assert np.mean(np.abs(np.angle(moved.amplitudes[first]) - phase) > 0.1) > 0.8


BEAM = math.radians(0.3)  # a pencil beam's width along x: 0.13 m at the patch, the lobe ~2 m


def narrow(points: NDArray[np.float64]) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """One channel, a two-way pattern ``exp(-(a / BEAM)**2)`` of the angle ``a`` off the
    y-z plane: a side-scan's narrow beam along the track, far narrower than the lobe."""
    angle = np.arctan2(points[:, 0], np.hypot(points[:, 1], points[:, 2]))
    return np.zeros(points.shape[0], dtype=np.intp), np.exp(-((angle / BEAM) ** 2))


def narrow_energy() -> float:
    """One order's diffuse energy heard through the narrow beam (pattern in the amplitudes)."""
    looks = (level(SAND), everywhere, everywhere)
    scatterer = (P[None, :], NORMAL[None, :], np.ones(1, dtype=np.complex128))
    found = seabed_images(POSE, looks, scatterer, narrow, (0.0, 1500.0 / 600e3))
    return float(diffuse_order(found)[0].sum())


def test_a_beam_narrower_than_the_lobe_hears_its_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pattern weighs each patch one way (``sqrt(w(B))`` in energy, ``w(P)`` 1 here):
    through a beam 0.3 degrees wide the energy is the closed form's lobe times
    ``sqrt(w(B))`` on the 2 cm grid, within 5 % (0.13 of the 0.74 a wide beam hears).
    Control: the pattern taken at each node's point alone (no average over its cell) is
    rejected."""
    density, _ = lobe(SAND, 600e3, step=FINE)
    closed = float((density * np.sqrt(narrow(seabed_grid(FINE))[1])).sum())
    assert closed < 0.3 * float(density.sum())
    assert narrow_energy() == pytest.approx(closed, rel=0.05)
    monkeypatch.setattr(seabed_diffuse, 'SUB', 1)
    assert narrow_energy() != pytest.approx(closed, rel=0.5)
