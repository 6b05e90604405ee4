"""The range law read from a side-scan's seabed, on synthetic records of a known TVG."""

from __future__ import annotations

import numpy as np
import pytest

from nps_sonar_py.echo.display import Tvg
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.realism.range_law import nearest_tvg, range_law

RANGES = (np.arange(1024) + 0.5) * (30.0 / 1024)


def _record(exponent: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Speckled seabed after a TVG ``n log r + 2 alpha r``, altitude 2.7-11.4 m along the line.

    Its level is ``(n - 30) log r`` (spreading, absorption and footprint left by the TVG)
    plus a steep law of grazing angle (the seabed and the vertical pattern), worked by hand.
    """
    rng = np.random.default_rng(seed)
    altitude = np.concatenate((np.linspace(11.4, 4.5, 230), np.linspace(4.5, 2.7, 230)))
    grazing = np.arcsin(np.clip(altitude[:, None] / RANGES[None, :], 0.0, 1.0))
    angle_law = np.sin(grazing) ** 3 * np.exp(-(((grazing - 0.4) / 0.5) ** 2))
    mean = RANGES[None, :] ** ((exponent - 30.0) / 10.0) * angle_law
    return mean * rng.exponential(1.0, mean.shape), altitude


@pytest.mark.parametrize('exponent', [20.0, 30.0, 40.0])
def test_the_tvg_exponent_is_recovered_whatever_the_angle_law(exponent: float) -> None:
    image, altitude = _record(exponent, 34)
    law = range_law(image, RANGES, altitude)
    assert law.exponent == pytest.approx(exponent, abs=1.5)
    # the range factor is (n - 30) log r about its mean
    expected = (exponent - 30.0) * np.log10(law.ranges)
    assert law.level_db == pytest.approx(expected - expected.mean(), abs=1.0)
    assert law.residual_db < 1.0
    if exponent != 30.0:
        assert nearest_tvg(law.exponent).exponent == exponent / 10.0
    # control: the level pooled over grazing angles against range alone carries the angle
    # law (low grazing at far range) and misses the exponent by far
    centres, pooled = [], []
    for low in range(4, 29):
        band = (low <= RANGES) & (low + 1 > RANGES)
        centres.append(low + 0.5)
        pooled.append(10.0 * np.log10(image[:, band].mean()))
    naive = 30.0 + 10.0 * np.polyfit(10.0 * np.log10(centres), pooled, 1)[0]
    assert abs(naive - exponent) > 10.0


def test_too_few_cells_are_refused() -> None:
    image, altitude = _record(20.0, 36)
    with pytest.raises(ConfigurationError, match=r'range law: .* range cells'):
        range_law(image[:5], RANGES, altitude[:5])


def test_the_nearest_device_law() -> None:
    assert nearest_tvg(23.8) is Tvg.SPREAD_20
    assert nearest_tvg(36.0) is Tvg.SPREAD_40
    assert nearest_tvg(4.0) is Tvg.NONE
