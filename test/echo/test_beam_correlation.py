"""Speckle of formed beams over fixed scatterers: under motion, and across beams.

* A forward-looking fan at 400 kHz (wavelength 3.75 mm; an array of D = 128 wavelengths)
  over a flat seabed's fixed scatterers, moved forward and sideways by a quarter, one and
  ten wavelengths: the seabed image's intensity correlation stays at least 0.99 and 0.95
  (a move ``s`` across decorrelates the echoes as ``1 - 2 s / D``), and at ten wavelengths is
  within 0.1 of the brute-force fixed-scatterer computation of the same geometry. Control:
  scatterers redrawn (the "sparkling" of a model that draws them afresh) correlate near 0.
* An Oculus-like fan (beams 0.254 degrees apart, 0.96 degrees wide) over a diffuse scene:
  beams ``k`` apart correlate in intensity as ``|AF(du_k)|**2`` (0.83, 0.45, 0.13), within
  0.05 (van Cittert-Zernike: Goodman, *Statistical Optics*, 1985, ch. 5). Control: 0.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from beam_scenes import C, brute_force, seabed

from nps_sonar_py.echo.array_response import SteeredArray
from nps_sonar_py.echo.fixed_scatterers import default_density
from nps_sonar_py.echo.formed_beams import BeamFormer, BeamSetup
from nps_sonar_py.echo.pulse import Pulse, PulseKind

WAVELENGTH = C / 400e3
#: The fan's chirp: a 7.5 cm range cell.
BANDWIDTH = 10e3
ALTITUDE = 2.0


#: The array: 256 elements at half a wavelength, D = 128 wavelengths (0.4 degree beams).
ELEMENTS = 256


def fan() -> BeamSetup:
    """29 beams 0.25 degrees apart over +-3.5 degrees, 5.5 to 7.5 m."""
    beams = np.sin(np.radians(np.linspace(-3.5, 3.5, 29)))
    interval = C / (4.0 * BANDWIDTH)
    pulse = Pulse(PulseKind.CHIRP, 1e-3, BANDWIDTH)
    return BeamSetup(SteeredArray(ELEMENTS, 0.5), beams, pulse, C, 5.5, interval, 54, per_bin=2)


def seabed_echoes(points: np.ndarray, amplitudes: np.ndarray, moved: float) -> tuple:
    """Ranges, sines and echoes of seabed points seen from a sonar moved by ``moved`` m.

    The move is forward and sideways (x and y, 45 degrees); the seabed lies ``ALTITUDE``
    below; each echo ``xi sin(grazing) / r**2`` with the two-way carrier phase.
    """
    p = points - moved * np.array([math.sqrt(0.5), math.sqrt(0.5), 0.0])
    p[:, 2] += ALTITUDE
    r = np.linalg.norm(p, axis=1)
    a = amplitudes * (ALTITUDE / r) / r**2 * np.exp(-4j * math.pi * r / WAVELENGTH)
    return r, p[:, 1] / r, a


def correlation(one: np.ndarray, two: np.ndarray, lit: np.ndarray) -> float:
    """Intensity correlation of two images over the ``lit`` range bins, the trend removed.

    Each image is divided by ``one``'s mean over the beams in each bin, so that the fall of
    the seabed's echo with range does not count as correlation of the speckle.
    """
    trend = one[:, lit].mean(axis=0)
    a, b = one[:, lit] / trend, two[:, lit] / trend
    return float(np.corrcoef(a.ravel(), b.ravel())[0, 1])


@pytest.fixture(scope='module')
def ground() -> tuple[np.ndarray, np.ndarray]:
    """The seabed's fixed scatterers, 4 to a resolution cell at 5.5 m (the default)."""
    density = default_density(C / (2 * BANDWIDTH), math.radians(0.4), 5.5)
    bed = seabed((4.9, 7.6), (-0.6, 0.6), density, seed=3)
    return bed.positions, bed.amplitudes


def test_speckle_of_fixed_scatterers_survives_a_sub_wavelength_move(ground: tuple) -> None:
    setup = fan()
    former = BeamFormer(setup)
    points, xi = ground
    still = former.form(*seabed_echoes(points, xi, 0.0)).intensity
    rows = setup.start + setup.interval * setup.per_bin * (np.arange(still.shape[1]) + 0.5)
    lit = (rows > 5.6) & (rows < 7.4)
    quarter = former.form(*seabed_echoes(points, xi, WAVELENGTH / 4)).intensity
    one = former.form(*seabed_echoes(points, xi, WAVELENGTH)).intensity
    assert correlation(still, quarter, lit) >= 0.99
    assert correlation(still, one, lit) >= 0.95
    # The closed form of the move across: the echoes' correlation 1 - 2 s / D, squared.
    across = WAVELENGTH * math.sqrt(0.5) / (ELEMENTS * 0.5 * WAVELENGTH)
    assert correlation(still, one, lit) == pytest.approx((1 - 2 * across) ** 2, abs=0.02)
    # Ten wavelengths: as the brute-force sum of the same scatterers says, within 0.1.
    ten = former.form(*seabed_echoes(points, xi, 10 * WAVELENGTH)).intensity
    measured = correlation(still, ten, lit)
    brute = [
        np.abs(brute_force(setup, *seabed_echoes(points, xi, move))) ** 2
        for move in (0.0, 10 * WAVELENGTH)
    ]
    binned = [b.reshape(len(b), -1, setup.per_bin).sum(axis=2) for b in brute]
    assert measured == pytest.approx(correlation(*binned, lit), abs=0.1)
    assert measured < 0.95  # ten wavelengths is a visible change
    # Control: scatterers drawn afresh (another realisation) sparkle: near 0.
    redrawn = xi * np.exp(2j * math.pi * np.random.default_rng(0).random(xi.size))
    sparkle = former.form(*seabed_echoes(points, redrawn, WAVELENGTH / 4)).intensity
    assert abs(correlation(still, sparkle, lit)) < 0.2


def test_neighbouring_beams_correlate_as_the_array_factor_squared() -> None:
    """Oculus-like: 106 elements at half a wavelength (0.96 deg), beams 0.2544 deg apart."""
    array = SteeredArray(106, 0.5)
    angles = np.radians(0.2544 * (np.arange(41) - 20))
    interval = C / (2.0 * 2 * BANDWIDTH)
    pulse = Pulse(PulseKind.CHIRP, 1e-3, 2 * BANDWIDTH)
    setup = BeamSetup(array, np.sin(angles), pulse, C, 5.0, interval, 400, blank=False)
    former = BeamFormer(setup)
    rng = np.random.default_rng(5)
    images = []
    for _ in range(3):  # a diffuse scene: many scatterers, uniform in sine and range
        m = 60_000
        ranges = rng.uniform(4.0, 5.0 + interval * 400 + 1.0, m)
        sines = rng.uniform(-0.2, 0.2, m)
        a = rng.standard_normal(m) + 1j * rng.standard_normal(m)
        images.append(former.form(ranges, sines, a).intensity[:, 20:-20])
    stack = np.concatenate(images, axis=1)  # (beams, samples)
    for k, closed in zip((1, 2, 3), (0.83, 0.45, 0.13), strict=True):
        predicted = float(np.abs(array.response(np.sin(angles[20 + k]) - np.sin(angles[20]))) ** 2)
        assert predicted == pytest.approx(closed, abs=0.01)
        pairs = [np.corrcoef(stack[b], stack[b + k])[0, 1] for b in range(10, 30)]
        assert float(np.mean(pairs)) == pytest.approx(predicted, abs=0.05)
        # Control: independent beams (one draw per beam) would correlate at 0.
        assert abs(float(np.mean(pairs))) > 0.05


def scintillation(per_cell: float, seeds: int = 60) -> float:
    """Mean over the seabed's samples of ``<I**2> / <I>**2 - 1`` over seeds (each a new bed)."""
    setup = fan()
    former = BeamFormer(setup)
    density = default_density(C / (2 * BANDWIDTH), math.radians(0.4), 5.5, per_cell)
    images = []
    for seed in range(seeds):
        bed = seabed((4.9, 7.6), (-0.6, 0.6), density, seed=seed)
        baseband = former.form(*seabed_echoes(bed.positions, bed.amplitudes, 0.0)).baseband
        images.append(np.abs(baseband[5:24, 6:48]) ** 2)  # inside the lit seabed
    power = np.array(images)
    return float(np.mean(np.mean(power**2, axis=0) / np.mean(power, axis=0) ** 2 - 1.0))


def test_the_default_density_gives_fully_developed_speckle() -> None:
    """4 scatterers a cell (the default): scintillation index 1 within 0.05."""
    assert scintillation(4.0) == pytest.approx(1.0, abs=0.05)
    # Control: one scatterer a cell, the count's spread shows (measured 1.26).
    assert scintillation(1.0) > 1.15
