"""``realism.speckle_law``: the power of intensity a record stores and its looks, from two moments.

Closed forms: ``X`` gamma distributed with ``L`` looks has ``var(ln X) = psi'(L)`` and
``X**k`` the scintillation index ``G(L + 2k) G(L) / G(L + k)**2 - 1`` (one-look amplitude:
``4 / pi - 1`` = 0.273; one-look intensity: 1; ``L`` looks of intensity: ``1 / L``). Drawn
images of known ``k`` and ``L`` give them back; the control is the index alone, which
takes a one-look amplitude for an average of 3.7 looks of intensity.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.realism.speckle_law import scintillation_of, speckle_law


def test_the_index_of_a_power_of_gamma_intensity_is_the_closed_form() -> None:
    assert scintillation_of(0.5, 1.0) == pytest.approx(4.0 / math.pi - 1.0, rel=1e-12)
    assert scintillation_of(1.0, 1.0) == pytest.approx(1.0, rel=1e-12)
    assert scintillation_of(1.0, 3.0) == pytest.approx(1.0 / 3.0, rel=1e-12)
    assert scintillation_of(2.0, 1.0) == pytest.approx(24.0 / 4.0 - 1.0, rel=1e-12)  # E X^4


@pytest.mark.parametrize(('power', 'looks'), [(0.5, 1.0), (1.0, 1.0), (1.0, 3.0), (0.25, 2.0)])
def test_drawn_images_give_back_their_power_and_looks(power: float, looks: float) -> None:
    rng = np.random.default_rng(34)
    # a trend over range (10 dB across the image) stays out: each tile is about its own mean
    trend = 10.0 ** -np.linspace(0.0, 1.0, 512)[None, :]
    image = trend * rng.gamma(looks, 1.0 / looks, (256, 512)) ** power
    law = speckle_law(image)
    assert law.power == pytest.approx(power, rel=0.05)
    assert law.looks == pytest.approx(looks, rel=0.1)
    assert law.scintillation == pytest.approx(scintillation_of(power, looks), rel=0.05)


def test_the_index_alone_cannot_tell_amplitude_from_averaged_intensity() -> None:
    # Control: a one-look amplitude has the index of 3.7 looks of intensity; read with the
    # index alone (power 1, looks = 1 / index) it would be taken for an average.
    rng = np.random.default_rng(7)
    amplitude = np.sqrt(rng.exponential(1.0, (256, 512)))
    averaged = rng.gamma(3.66, 1.0 / 3.66, (256, 512))
    a, b = speckle_law(amplitude), speckle_law(averaged)
    assert a.scintillation == pytest.approx(b.scintillation, abs=0.02)
    assert a.power == pytest.approx(0.5, abs=0.05)
    assert b.power == pytest.approx(1.0, abs=0.08)
    assert a.log_variance - b.log_variance > 0.07  # what tells them apart


def test_an_image_of_zeros_is_refused_in_one_line() -> None:
    with pytest.raises(ConfigurationError, match=r'^speckle_law: no 16 x 16 tile'):
        speckle_law(np.zeros((32, 32)))
