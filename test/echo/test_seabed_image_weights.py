"""``seabed_images``' weights worked by hand in the world frame (docs/multipath.md).

Two scatterers over a level sand seabed (its plane z = 0, its normal given downwards: either
orientation is the seabed's), heard by a sensor 10 m up, rolled 30 degrees and yawed 20 (its
frame is not the world's), through a two-channel pattern given here. Each image is worked
from the geometry in the world: the image ``P' = (x, y, -z)``, the bounce point on the line
to it at ``h / (h + z)``, the legs' cosines on the face, ``R`` at ``asin((h + z) / r_i)``:

* one bounce, at ``(r_d + r_i) / 2``: ``R sqrt(cos_i / cos_d) (r_d / r_i)`` times the absorption
  of the extra length ``r_i - r_d`` (half of it each way: ``exp(-a (r_i - r_d) / 2)`` in
  amplitude) and ``(w(P) w(P'))**(1/4)``; zero when ``P`` and ``P'`` are different channels';
* two bounces, at ``r_i``: ``R**2 (cos_i / cos_d) (r_d / r_i)**2``, ``exp(-a (r_i - r_d))``
  and ``sqrt(w(P'))``, in the image's channel.

Controls: the absorption of the whole path (``r_i + r_d``), the two-way pattern of the image
alone (``w(P')``) and ``|R|`` for the complex ``R`` are each rejected.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from numpy.typing import NDArray
from scipy.integrate import quad
from seabed_image_paths import flat, rough_mirror

from nps_sonar_py.echo.seabed_images import Ground, seabed_images
from nps_sonar_py.echo.sediment import (
    SEDIMENTS,
    Sediment,
    coherent_roughness_factor,
    reflection_coefficient,
    roughness_variance,
    with_overrides,
)
from nps_sonar_py.transforms import transform_from_xyz_rpy

H = 10.0
#: The sand of the weights' tests, flat (no roughness: the whole mirror); the rough sand's
#: coherent part is checked below.
SAND = flat(SEDIMENTS['sand'])
WAVELENGTH = 1500.0 / 30e3  # 30 kHz: a moderate roughness loss for the rough sand
ABSORPTION = 0.2  # dB/m one way: a clear factor over the few metres the images add
NEPER = math.log(10.0) / 10.0
POSE = transform_from_xyz_rpy([1.0, -2.0, H], [math.radians(30.0), 0.0, math.radians(20.0)])
#: The scatterers in the world (port, 4 m and 2 m up), their faces' normals towards the sensor.
WORLD = np.array([[3.0, 25.0, 4.0], [-2.0, 18.0, 2.0]])
NORMALS = np.array([[0.0, -1.0, 0.0], [0.6, -0.8, 0.0]])


def sensor(points: NDArray[np.float64]) -> NDArray[np.float64]:
    """World points in the sensor's frame."""
    frame: NDArray[np.float64] = (points - POSE[:3, 3]) @ POSE[:3, :3]
    return frame


def level(sediment: Sediment) -> Callable[[NDArray[np.float64]], Ground]:
    """A level seabed of ``sediment`` straight down: its distance, its normal downwards."""

    def below(points: NDArray[np.float64]) -> Ground:
        normals = np.tile([0.0, 0.0, -1.0], (points.shape[0], 1))
        return Ground(points[:, 2].copy(), normals, ((np.arange(points.shape[0]), sediment),))

    return below


def everywhere(*points: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Every way open, every leg clear."""
    return np.ones(points[0].shape[0], dtype=bool)


below = level(SAND)


def two_way(points: NDArray[np.float64]) -> NDArray[np.float64]:
    """A two-way pattern of the sensor-frame elevation, smooth and below 1."""
    elevation = np.arctan2(points[:, 2], np.hypot(points[:, 0], points[:, 1]))
    w: NDArray[np.float64] = np.exp(-((elevation + 0.5) ** 2))
    return w


Pattern = Callable[[NDArray[np.float64]], tuple[NDArray[np.intp], NDArray[np.float64]]]


def channels(split: bool) -> Pattern:
    """Each point's channel: one for all, or by the sign of the sensor-frame elevation
    below -0.91 rad (``split``: the scatterer and its image in different channels)."""

    def of(points: NDArray[np.float64]) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        elevation = np.arctan2(points[:, 2], np.hypot(points[:, 0], points[:, 1]))
        channel = (elevation < -0.91).astype(np.intp) if split else np.zeros(len(points), np.intp)
        return channel, two_way(points)

    return of


def images(
    split: bool, sediment: Sediment = SAND, wavelength: float = WAVELENGTH
) -> tuple[NDArray[np.intp], NDArray[np.float64], NDArray[np.complex128]]:
    """The images' channels, ranges and amplitudes of the two scatterers (direct amplitude 1)."""
    body = sensor(WORLD)
    normals = NORMALS @ POSE[:3, :3]
    opened = (level(sediment), everywhere, everywhere)
    direct = np.ones(2, dtype=np.complex128)
    medium = (ABSORPTION, wavelength)
    found = seabed_images(POSE, opened, (body, normals, direct), channels(split), medium)
    coherent = slice(0, found.coherent)  # the rough seabed's lobe: test_seabed_diffuse.py
    return found.channels[coherent], found.ranges[coherent], found.amplitudes[coherent]


def expected(
    whole_path: bool = False, image_pattern_only: bool = False, magnitude: bool = False
) -> tuple[
    NDArray[np.float64], NDArray[np.complex128], NDArray[np.float64], NDArray[np.complex128]
]:
    """One- and two-bounce ranges and amplitudes, worked in the world; the flags: controls."""
    origin = POSE[:3, 3]
    p, n = WORLD, NORMALS
    image = p * np.array([1.0, 1.0, -1.0])
    rd = np.linalg.norm(p - origin, axis=1)
    ri = np.linalg.norm(image - origin, axis=1)
    z = p[:, 2]
    bounce = origin + (image - origin) * (H / (H + z))[:, None]
    leg = bounce - p
    cos_i = np.abs(np.sum(leg * n, axis=1)) / np.linalg.norm(leg, axis=1)
    cos_d = np.abs(np.sum((origin - p) * n, axis=1)) / rd
    r = np.array([complex(reflection_coefficient(SAND, math.asin(s))) for s in (H + z) / ri])
    r = np.abs(r) if magnitude else r
    extra = (ri + rd) if whole_path else (ri - rd)
    loss = np.exp(-0.5 * ABSORPTION * NEPER * extra)
    w_d, w_i = two_way(sensor(p)), two_way(sensor(image))
    one_pattern = w_i if image_pattern_only else np.sqrt(np.sqrt(w_d * w_i))
    one = r * np.sqrt(cos_i / cos_d) * (rd / ri) * loss * one_pattern
    two = r**2 * (cos_i / cos_d) * (rd / ri) ** 2 * loss**2 * np.sqrt(w_i)
    return 0.5 * (rd + ri), one, ri, two


def test_the_weights_are_the_image_methods() -> None:
    channel, ranges, amplitude = images(split=False)
    one_at, one, two_at, two = expected()
    assert channel.size == 6  # both scatterers mirrored, three paths each
    np.testing.assert_array_equal(channel, 0)
    np.testing.assert_allclose(ranges, np.concatenate([one_at, one_at, two_at]), rtol=1e-12)
    np.testing.assert_allclose(amplitude, np.concatenate([one, one, two]), rtol=1e-9)
    assert np.all(np.abs(amplitude) > 0.05)  # the weights are far from negligible
    # Controls, each a wrong model the comparison rejects.
    for wrong in (
        expected(whole_path=True),
        expected(image_pattern_only=True),
        expected(magnitude=True),
    ):
        model = np.concatenate([wrong[1], wrong[1], wrong[3]])
        assert not np.allclose(amplitude, model, rtol=1e-3)


def test_a_one_bounce_path_between_two_channels_is_not_heard() -> None:
    channel, _, amplitude = images(split=True)
    sensed = sensor(WORLD)
    elevation = np.arctan2(sensed[:, 2], np.hypot(sensed[:, 0], sensed[:, 1]))
    assert np.all(elevation > -0.91)  # the scatterers in channel 0 ...
    np.testing.assert_array_equal(channel[2:], 1)  # ... their images in channel 1
    np.testing.assert_array_equal(amplitude[:4], 0.0)  # sent by one, heard by the other
    _, _, _, two = expected()
    np.testing.assert_allclose(amplitude[4:], two, rtol=1e-9)  # the image's own, kept
    assert np.all(np.abs(two) > 0.05)  # control: not zero for want of weight


@pytest.mark.parametrize('height', [-1.0, 0.0])
def test_a_scatterer_not_above_the_seabed_has_no_image(height: float) -> None:
    """A scatterer at or under the plane (``z <= 0``) is not mirrored; the control above."""
    opened = (below, everywhere, everywhere)
    for z, count in ((height, 0), (3.0, 3)):
        point = np.array([[3.0, 25.0, z]])
        body = sensor(point)
        found = seabed_images(
            POSE,
            opened,
            (body, NORMALS[:1] @ POSE[:3, :3], np.ones(1, dtype=np.complex128)),
            channels(False),
            (ABSORPTION, WAVELENGTH),
        )
        assert found.amplitudes.size == count, z


ROUGH = SEDIMENTS['sand']  # medium sand's own roughness spectrum (w2, gamma2)


def coherent_part(
    sediment: Sediment, wavelength: float, radius: str = 'area'
) -> NDArray[np.float64]:
    """Each scatterer's ``exp(-2 k**2 sigma**2 sin**2 theta)``, worked in the world
    (``seabed_image_paths.rough_mirror``: the first Fresnel zone's area for the patch).
    ``radius='across'``: a control, the zone's width across (``r_F``) for its radius."""
    origin = POSE[:3, 3]
    p = WORLD
    image = p * np.array([1.0, 1.0, -1.0])
    sin = (H + p[:, 2]) / np.linalg.norm(image - origin, axis=1)
    bounce = origin + (image - origin) * (H / (H + p[:, 2]))[:, None]
    d1 = np.linalg.norm(bounce - origin, axis=1)
    d2 = np.linalg.norm(p - bounce, axis=1)
    # r_F**2 / sin for the area's radius; r_F**2 alone is sin times it (scale the legs so).
    legs = (d1, d2) if radius == 'area' else (d1 * sin, d2 * sin)
    return np.array(
        [rough_mirror(sediment, wavelength, *ends, s) for *ends, s in zip(*legs, sin, strict=True)]
    )


def test_a_rough_seabed_keeps_the_coherent_part_of_its_mirror() -> None:
    """Kirchhoff's coherent reflection: ``R exp(-2 k**2 sigma**2 sin**2 theta)`` a bounce."""
    _, _, amplitude = images(split=False, sediment=ROUGH)
    _, one, _, two = expected()
    f = coherent_part(ROUGH, WAVELENGTH)
    assert np.all((f > 0.2) & (f < 0.9))  # a clear, partial loss at 30 kHz
    model = np.concatenate([one * f, one * f, two * f**2])
    np.testing.assert_allclose(amplitude, model, rtol=1e-6)
    # Controls: the flat mirror (no factor), and the zone's width across for its radius.
    assert not np.allclose(amplitude, np.concatenate([one, one, two]), rtol=1e-2)
    g = coherent_part(ROUGH, WAVELENGTH, radius='across')
    assert not np.allclose(amplitude, np.concatenate([one * g, one * g, two * g**2]), rtol=1e-2)


def expected_flat() -> NDArray[np.complex128]:
    """The flat mirror's three amplitudes a scatterer, worked above (``expected``)."""
    _, one, _, two = expected()
    return np.concatenate([one, one, two])


def test_the_roughness_factor_limits() -> None:
    """No roughness (``w2`` 0): the flat mirror's weights exactly; a 600 kHz sand floor at
    these grazing angles (24-29 degrees, ``k sigma sin`` of several): no image left."""
    plain = images(split=False, sediment=with_overrides(ROUGH, spectral_strength=0.0))[2]
    np.testing.assert_allclose(plain, expected_flat(), rtol=1e-9)
    assert np.all(np.abs(plain) > 0.05)
    rough = images(split=False, sediment=ROUGH, wavelength=1500.0 / 600e3)[2]
    smooth = images(split=False, wavelength=1500.0 / 600e3)[2]
    assert np.all(np.abs(smooth) > 0.05)  # control: the flat mirror at 600 kHz is bright
    assert np.all(np.abs(rough) < 1e-6 * np.abs(smooth))
    assert np.all(coherent_part(ROUGH, 1500.0 / 600e3) < 1e-6)


def test_the_factor_and_the_rms_height_in_closed_form() -> None:
    """``exp(-2 k**2 sigma**2 sin**2 theta)`` at k = 100 rad/m, sigma = 1 cm, 30 degrees:
    ``exp(-0.5)``; the variance above 2 pi rad/m: ``2 pi w2 K**(2 - gamma2) / (gamma2 - 2)``
    against the spectrum integrated numerically."""
    factor = coherent_roughness_factor(100.0, 1e-4, math.radians(30.0))
    assert float(factor) == pytest.approx(math.exp(-0.5), rel=1e-12)
    assert float(factor) != pytest.approx(math.exp(-0.25), rel=1e-3)  # control: sigma, not 2
    low = 2.0 * math.pi
    w2, gamma2 = ROUGH.spectral_strength, ROUGH.spectral_exponent
    numeric = quad(lambda q: 2.0 * math.pi * q * w2 * q**-gamma2, low, np.inf)[0]
    assert float(roughness_variance(ROUGH, low)) == pytest.approx(numeric, rel=1e-8)
    assert float(roughness_variance(ROUGH, low)) != pytest.approx(numeric / (2.0 * math.pi))
