"""T11 and T12 of docs/physics.md#analytic-test-cases: absorption, sound speed, ping timing."""

from __future__ import annotations

import math

import pytest

from nps_sonar_py.echo import (
    Absorption,
    EchoConfig,
    Environment,
    Medium,
    absorption_db_per_m,
    francois_garrison,
    iso9613_air,
    min_ping_interval,
    sound_speed_air,
    sound_speed_water,
    thorp,
)
from nps_sonar_py.errors import ConfigurationError

# Regression pins: the reference's tables were computed from the same published formulas.


@pytest.mark.parametrize(
    ('frequency', 'temperature', 'salinity', 'db_per_km'),
    [
        (115e3, 10.0, 35.0, 37.6),
        (750e3, 10.0, 35.0, 222.4),
        (900e3, 10.0, 35.0, 299.5),
        (900e3, 10.0, 0.0, 251.7),  # fresh water
        (115e3, 20.0, 35.0, 45.3),
        (450e3, 20.0, 35.0, 134.8),
        (1200e3, 20.0, 35.0, 413.8),
        (38e3, 10.0, 35.0, 10.2),
    ],
)
def test_francois_garrison(
    frequency: float, temperature: float, salinity: float, db_per_km: float
) -> None:
    alpha = francois_garrison(
        frequency, temperature=temperature, salinity=salinity, depth=0.0, ph=8.0
    )
    assert alpha * 1e3 == pytest.approx(db_per_km, rel=0.01)


def test_francois_garrison_fresh_water_is_the_pure_water_term() -> None:
    t, f = 10.0, 900.0  # C, kHz
    a3 = 4.937e-4 - 2.59e-5 * t + 9.11e-7 * t**2 - 1.50e-8 * t**3
    fresh = francois_garrison(f * 1e3, temperature=t, salinity=0.0)
    assert fresh * 1e3 == pytest.approx(a3 * f * f, rel=1e-12)


def test_francois_garrison_depth_lowers_absorption() -> None:
    assert francois_garrison(115e3, depth=1000.0) < francois_garrison(115e3, depth=0.0)


@pytest.mark.parametrize(('frequency', 'db_per_km'), [(10e3, 1.19), (38e3, 12.0), (115e3, 37.7)])
def test_thorp(frequency: float, db_per_km: float) -> None:
    assert thorp(frequency) * 1e3 == pytest.approx(db_per_km, rel=0.01)


def test_thorp_formula_at_10_khz() -> None:
    f2 = 10.0**2
    expected = 0.0033 + 0.11 * f2 / (1 + f2) + 44 * f2 / (4100 + f2) + 3.0e-4 * f2
    assert thorp(10e3) * 1e3 == pytest.approx(expected, rel=1e-12)
    assert thorp(10e3, depth=1000.0) == pytest.approx(thorp(10e3) * (1 - 5.88264e-3), rel=1e-12)


@pytest.mark.parametrize(
    ('frequency', 'temperature', 'humidity', 'db_per_m'),
    [
        (40e3, 20.0, 50.0, 1.318),
        (10e3, 20.0, 50.0, 0.159),
        (40e3, 20.0, 20.0, 0.783),
        (40e3, 20.0, 80.0, 1.232),
        (40e3, 0.0, 50.0, 0.450),
        (42e3, 30.0, 50.0, 1.449),
    ],
)
def test_iso9613_air(
    frequency: float, temperature: float, humidity: float, db_per_m: float
) -> None:
    alpha = iso9613_air(
        frequency, temperature=temperature, relative_humidity=humidity, pressure=101.325
    )
    assert alpha == pytest.approx(db_per_m, rel=0.01)


def test_sound_speed() -> None:
    assert sound_speed_water(10.0, 35.0, 0.0) == pytest.approx(
        1412 + 3.21 * 10 + 1.19 * 35, rel=1e-15
    )
    assert sound_speed_water(10.0, 35.0, 100.0) - sound_speed_water(
        10.0, 35.0, 0.0
    ) == pytest.approx(1.67)
    assert sound_speed_air(20.0) == pytest.approx(331.3 * math.sqrt(1 + 20 / 273.15), rel=1e-15)
    assert sound_speed_air(20.0) == pytest.approx(343.2, abs=0.05)
    assert Environment(Medium.AIR, temperature=20.0).sound_speed == sound_speed_air(20.0)
    assert Environment().sound_speed == sound_speed_water(10.0, 35.0, 0.0)


def test_model_selection_and_fixed_value() -> None:
    water, air = Environment(), Environment(Medium.AIR, temperature=20.0)
    assert absorption_db_per_m(Absorption.AUTO, 115e3, water) == francois_garrison(115e3)
    assert absorption_db_per_m(Absorption.AUTO, 40e3, air) == iso9613_air(40e3)
    assert absorption_db_per_m(Absorption.THORP, 10e3, water) == thorp(10e3)
    assert absorption_db_per_m(Absorption.FIXED, 115e3, water, 0.0354) == 0.0354
    assert absorption_db_per_m(Absorption.NONE, 115e3, water, 0.0354) == 0.0
    assert (
        EchoConfig(absorption=Absorption.FIXED, fixed_absorption=0.0354).effective_absorption
        == 0.0354
    )
    in_water = r'absorption must be a model of water .*\(ISO 9613-1 is a model of air\)'
    with pytest.raises(ConfigurationError, match=in_water):
        absorption_db_per_m(Absorption.ISO_9613_1, 40e3, water)
    in_air = r'absorption must be a model of air .*\(thorp is a model of water\)'
    with pytest.raises(ConfigurationError, match=in_air):
        EchoConfig(absorption=Absorption.THORP, environment=air)


@pytest.mark.parametrize(
    ('max_range', 'sound_speed', 'seconds'),
    [
        (30.0, 1500.0, 0.0400),
        (50.0, 1500.0, 0.0667),
        (100.0, 1500.0, 0.133),
        (4.0, sound_speed_air(20.0), 0.0233),
    ],
)
def test_min_ping_interval(max_range: float, sound_speed: float, seconds: float) -> None:
    assert min_ping_interval(max_range, sound_speed) == pytest.approx(
        2 * max_range / sound_speed, rel=1e-15
    )
    assert min_ping_interval(max_range, sound_speed) == pytest.approx(seconds, rel=3e-3)


def test_ping360_revolution_and_config_timing() -> None:
    assert 400 * min_ping_interval(50.0, 1500.0) == pytest.approx(26.7, abs=0.05)
    assert 400 * min_ping_interval(2.0, 1500.0) == pytest.approx(1.07, abs=0.005)
    config = EchoConfig(max_range=30.0, sound_speed=1500.0)
    assert config.min_ping_interval == pytest.approx(0.040, rel=1e-12)
    air = EchoConfig(
        max_range=4.0, environment=Environment(Medium.AIR, temperature=20.0), frequency=40e3
    )
    assert air.speed_of_sound == sound_speed_air(20.0)
    assert air.min_ping_interval * 1e3 == pytest.approx(23.3, abs=0.05)
    assert air.wavelength * 1e3 == pytest.approx(8.58, abs=0.01)
