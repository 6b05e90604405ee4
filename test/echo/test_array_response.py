"""The steered line array against closed forms (docs/beamforming.md#the-array), with controls.

The widths and side lobes are measured as a sonar shows them: point targets through the
formed beams (``formed_beams.BeamFormer``), each target at its own range so that one ping
sweeps many angles; the closed forms are Van Trees' and Harris's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from beam_scenes import C

from nps_sonar_py.echo.array_response import (
    Aperture,
    Shading,
    SteeredArray,
    first_side_lobe_db,
    half_power_sine_width,
)
from nps_sonar_py.echo.formed_beams import BeamFormer, BeamSetup
from nps_sonar_py.echo.pulse import Pulse, PulseKind

BANDWIDTH = 20e3
PULSE = Pulse(PulseKind.CHIRP, 1e-3, BANDWIDTH)
#: The swept targets' pulse: a CW of 0.1 ms compresses to a triangle of +-7.5 cm and no side
#: lobes, so targets SPACING apart in range do not meet.
CW = Pulse(PulseKind.CW, 1e-4)
SPACING = 0.5


def swept_response(array: SteeredArray, beam_deg: float, angles_deg: np.ndarray) -> np.ndarray:
    """``|y|**2`` of the beam steered to ``beam_deg`` for a unit target at each angle.

    Target ``k`` sits at range ``2 + k SPACING``; the beam's peak sample near that range is
    its response to target ``k`` (targets on sample centres, so the peak is sampled).
    """
    interval = C / (4.0 / CW.length)
    # On sample centres: each target's compressed peak falls on a sample.
    ranges = interval * np.rint((2.0 + SPACING * np.arange(angles_deg.size)) / interval)
    samples = int((ranges[-1] + 1.0) / interval)
    setup = BeamSetup(
        array, np.sin(np.radians([beam_deg])), CW, C, 0.0, interval, samples, blank=False
    )
    beam = (
        np.abs(
            BeamFormer(setup)
            .form(ranges, np.sin(np.radians(angles_deg)), np.ones(ranges.size))
            .baseband[0]
        )
        ** 2
    )
    at = np.rint(ranges / interval).astype(int)
    window = at[:, None] + np.arange(-3, 4)
    return beam[window].max(axis=1)


def sweep_angles(array: SteeredArray, steer: float) -> np.ndarray:
    """121 angles, degrees, over 1.2 times the expected -3 dB width each side of ``steer``."""
    half = (
        1.2
        * math.degrees(0.886 / (array.elements * array.spacing))
        / math.cos(math.radians(steer))
    )
    return steer + np.linspace(-half, half, 121)


def half_power_width(angles: np.ndarray, power: np.ndarray) -> float:
    """-3 dB width in degrees of a beam's ``power`` swept over ``angles``."""
    power = power / power.max()
    above = np.flatnonzero(power >= 0.5)
    lo, hi = above[0], above[-1]
    left = np.interp(0.5, [power[lo - 1], power[lo]], [angles[lo - 1], angles[lo]])
    right = np.interp(0.5, [power[hi + 1], power[hi]], [angles[hi + 1], angles[hi]])
    return float(right - left)


def measured_width(array: SteeredArray, steer: float) -> float:
    """-3 dB width in degrees of the beam at ``steer`` degrees, from a swept target."""
    angles = sweep_angles(array, steer)
    return half_power_width(angles, swept_response(array, steer, angles))


def test_the_width_widens_as_one_over_cos_of_the_steering() -> None:
    """Broadside 0.886 lambda / (N d); at 50 degrees that over cos 50, within 3 %."""
    array = SteeredArray(64, 0.5)
    ahead = measured_width(array, 0.0)
    assert ahead == pytest.approx(math.degrees(2 * math.asin(0.886 / (64 * 0.5) / 2)), rel=0.03)
    widening = pytest.approx(1.0 / math.cos(math.radians(50.0)), rel=0.03)
    assert measured_width(array, 50.0) / ahead == widening
    # Control: a beam of fixed angular width (rays in a cone), the broadside beam turned to
    # 50 degrees, through the same sweep and measure: it does not widen, and is rejected.
    angles = sweep_angles(array, 50.0)
    turned = half_power_width(angles, swept_response(array, 0.0, angles - 50.0))
    assert turned / ahead != widening


def first_null_response(array: SteeredArray) -> np.ndarray:
    """The broadside beam's power at u = 0, 0.6, 0.9 and 1 times the first null of N 0.5."""
    null = 1.0 / (64 * 0.5)
    angles = np.degrees(np.arcsin(np.array([0.0, 0.6 * null, 0.9 * null, null])))
    power = swept_response(array, 0.0, angles)
    return power / power[0]


def test_the_main_lobe_runs_to_its_first_null() -> None:
    """Beyond the -3 dB half width the beam still hears, down to 0 at u = 1 / (N d)."""
    expected = np.sinc(np.array([0.6, 0.9])) ** 2  # |sin(N pi d u) / (N sin(pi d u))|**2
    power = first_null_response(SteeredArray(64, 0.5))
    assert power[1:3] == pytest.approx(expected, rel=0.05)
    assert power[3] < 1e-3
    # Control: the array with the wrong spacing (a quarter wavelength: its null twice as far)
    # through the same sweep is rejected on both counts.
    wrong = first_null_response(SteeredArray(64, 0.25))
    assert wrong[1:3] != pytest.approx(expected, rel=0.05)
    assert wrong[3] > 0.1


def test_an_unshaded_array_first_side_lobe_is_13_26_db_for_a_point() -> None:
    """A point target's highest side lobe across fine beams: -13.26 dB, every ping the same."""
    array = SteeredArray(48, 0.5)
    beams = np.sin(np.radians(np.linspace(-12.0, 12.0, 961)))
    setup = BeamSetup(array, beams, PULSE, C, 4.0, C / (4 * BANDWIDTH), 128, blank=False)
    former = BeamFormer(setup)
    image = (
        np.abs(former.form(np.array([5.0]), np.array([0.05]), np.array([1.0 + 0j])).baseband) ** 2
    )
    across = image.max(axis=1)
    peak = int(np.argmax(across))
    width = 1.0 / (48 * 0.5)
    outside = np.abs(beams - beams[peak]) > width
    level = 10 * math.log10(across[outside].max() / across[peak])
    assert level == pytest.approx(-13.26, abs=0.5)
    again = (
        np.abs(former.form(np.array([5.0]), np.array([0.05]), np.array([1.0 + 0j])).baseband) ** 2
    )
    assert np.array_equal(image, again)  # deterministic
    # Control: a Hamming-shaded array's image does not show -13.26 dB.
    shaded = BeamFormer(
        BeamSetup(
            SteeredArray(48, 0.5, Shading.HAMMING),
            beams,
            PULSE,
            C,
            4.0,
            C / (4 * BANDWIDTH),
            128,
            blank=False,
        )
    )
    other = (
        np.abs(shaded.form(np.array([5.0]), np.array([0.05]), np.array([1.0 + 0j])).baseband) ** 2
    ).max(axis=1)
    beyond = np.abs(beams - beams[peak]) > 2.0 * width  # Hamming's first null: 2 / (N d)
    assert 10 * math.log10(other[beyond].max() / other[peak]) < -30.0


@pytest.mark.parametrize(
    ('shading', 'closed_form', 'tolerance'),
    [
        (Shading.NONE, -13.26, 0.1),  # sinc (Harris 1978, Table 1: -13 dB)
        (Shading.HANN, -31.47, 0.5),  # Harris: -32 dB
        (Shading.HAMMING, -42.68, 1.5),  # Harris: -43 dB
        (Shading.CHEBYSHEV, -40.0, 0.1),  # Dolph: every side lobe at the design level
        (Shading.TAYLOR, -35.0, 0.7),  # Taylor: the first n-bar - 1 near the design level
    ],
)
def test_shading_lowers_the_side_lobes_as_its_closed_form_says(
    shading: Shading, closed_form: float, tolerance: float
) -> None:
    design = 40.0 if shading is Shading.CHEBYSHEV else 35.0
    array = SteeredArray(64, 0.5, shading, side_lobe_db=design)
    assert first_side_lobe_db(array) == pytest.approx(closed_form, abs=tolerance)
    # Control: the unshaded level is not the shaded closed form, nor the reverse.
    if shading is not Shading.NONE:
        assert first_side_lobe_db(SteeredArray(64, 0.5)) != pytest.approx(
            closed_form, abs=tolerance
        )


def test_shading_widens_the_main_lobe() -> None:
    """-3 dB widths in sine times N d: 0.886 unshaded, 1.44 Hann, 1.30 Hamming (Harris 1978)."""
    widths = {
        s: half_power_sine_width(SteeredArray(256, 0.5, s)) * 128
        for s in (Shading.NONE, Shading.HANN, Shading.HAMMING)
    }
    assert widths[Shading.NONE] == pytest.approx(0.886, rel=0.01)
    assert widths[Shading.HANN] == pytest.approx(1.44, rel=0.02)
    assert widths[Shading.HAMMING] == pytest.approx(1.30, rel=0.02)
    assert widths[Shading.NONE] != pytest.approx(1.30, rel=0.02)  # control


def test_the_transmit_aperture_is_half_power_at_half_its_width() -> None:
    """One-way amplitude 1 on the axis and 1/sqrt(2) at half of each -3 dB width."""
    tx = Aperture(math.radians(60.0), math.radians(12.0))
    assert tx.amplitude(0.0, 0.0) == pytest.approx(1.0)
    assert tx.amplitude(math.radians(30.0), 0.0) == pytest.approx(math.sqrt(0.5), rel=1e-6)
    assert tx.amplitude(0.0, math.radians(6.0)) == pytest.approx(math.sqrt(0.5), rel=1e-6)
    assert tx.amplitude(0.0, math.radians(6.0)) != pytest.approx(0.5, rel=0.05)  # not two-way
