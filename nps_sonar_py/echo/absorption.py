"""Sound absorption and sound speed in sea water, fresh water and air, and the ping-rate limit.

All absorption functions return the *one-way* absorption in dB per metre; an echo from range
``r`` loses ``2 alpha r`` dB (``docs/physics.md#spreading-and-absorption``). Frequencies are in Hz,
temperatures in degrees Celsius, salinity in PSU, depth in metres, pressure in kPa.

Models and sources:

* Francois and Garrison 1982 (JASA 72(3):896 and 72(6):1879), as documented by the
  MB-System ``mbabsorption`` man page: sea water and, with salinity 0, fresh water;
  200 Hz to 1 MHz.
* Thorp, as given by Jensen et al. via the USML documentation (oalib): sea water at 4 C,
  35 ppt, pH 8; valid 100 Hz to 5 kHz but commonly stretched.
* ISO 9613-1:1993 (formulas via sengpielaudio.com): air; the standard's scope covers
  ultrasonic frequencies although its tables stop at 10 kHz.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.records import Record, setting

__all__ = [
    'Absorption',
    'Environment',
    'Medium',
    'absorption_db_per_m',
    'francois_garrison',
    'iso9613_air',
    'min_ping_interval',
    'sound_speed_air',
    'sound_speed_water',
    'thorp',
]

#: Reference temperature of ISO 9613-1, kelvin.
_ISO_T0 = 293.15
#: Triple-point temperature of water used by ISO 9613-1 for the vapour pressure, kelvin.
_ISO_T01 = 273.16
#: Reference atmospheric pressure of ISO 9613-1, kPa.
_ISO_PR = 101.325
#: Celsius to kelvin.
_KELVIN = 273.15


class Medium(Enum):
    """The medium sound travels in: it picks the sound-speed formula and ``AUTO`` absorption."""

    WATER = 'water'
    AIR = 'air'


class Absorption(Enum):
    """Absorption model; ``AUTO`` is Francois-Garrison in water and ISO 9613-1 in air."""

    AUTO = 'auto'
    NONE = 'none'
    FIXED = 'fixed'
    FRANCOIS_GARRISON = 'francois_garrison'
    THORP = 'thorp'
    ISO_9613_1 = 'iso_9613_1'


@dataclass(frozen=True)
class Environment(Record):
    """The medium's state, the inputs of the sound-speed and absorption formulas.

    Checked on creation by ``records.check_record`` (``environment.<field> must be ...``).

    Attributes:
        medium: water (sea or fresh: salinity 0) or air (a ``Medium`` member).
        temperature: degrees Celsius, above absolute zero (-273.15).
        salinity: PSU, >= 0 (water only; 0 is fresh water).
        depth: metres below the surface, >= 0 (water only).
        ph: acidity, in [0, 14] (water only; Francois-Garrison's boric-acid term).
        relative_humidity: percent, in [0, 100] (air only).
        pressure: ambient pressure in kPa, > 0 (air only).
    """

    members_only = True
    prefix = 'environment.'

    medium: Medium = setting(Medium.WATER, 'water or air')
    temperature: float = setting(10.0, 'degrees Celsius', -_KELVIN, above=True)
    salinity: float = setting(35.0, 'salinity [PSU]', 0.0)
    depth: float = setting(0.0, 'depth below the surface [m]', 0.0)
    ph: float = setting(8.0, 'acidity', 0.0, 14.0)
    relative_humidity: float = setting(50.0, 'relative humidity [percent]', 0.0, 100.0)
    pressure: float = setting(_ISO_PR, 'ambient pressure [kPa]', 0.0, above=True)

    @property
    def sound_speed(self) -> float:
        """Speed of sound in m/s: Francois-Garrison's formula in water, ISO's in air."""
        if self.medium is Medium.AIR:
            return sound_speed_air(self.temperature)
        return sound_speed_water(self.temperature, self.salinity, self.depth)


def sound_speed_water(
    temperature: float = 10.0, salinity: float = 35.0, depth: float = 0.0
) -> float:
    """Speed of sound in water, m/s: ``c = 1412 + 3.21 T + 1.19 S + 0.0167 z`` (Francois-Garrison).

    Args:
        temperature: degrees Celsius.
        salinity: PSU.
        depth: metres.

    >>> round(sound_speed_water(10.0, 35.0, 0.0), 2)
    1485.75
    """
    return 1412.0 + 3.21 * temperature + 1.19 * salinity + 0.0167 * depth


def sound_speed_air(temperature: float = 20.0) -> float:
    """Speed of sound in dry air in m/s, ``c = 331.3 sqrt(1 + T / 273.15)``.

    Args:
        temperature: degrees Celsius.

    >>> round(sound_speed_air(20.0), 1)
    343.2
    """
    return 331.3 * math.sqrt(1.0 + temperature / _KELVIN)


def min_ping_interval(max_range: float, sound_speed: float) -> float:
    """Shortest time in seconds between pings, the round trip to the maximum range: ``2 R / c``.

    Args:
        max_range: maximum range in metres.
        sound_speed: speed of sound in m/s.

    >>> round(min_ping_interval(30.0, 1500.0) * 1e3, 1)  # ms, a 30 m echosounder
    40.0
    """
    return 2.0 * max_range / sound_speed


def francois_garrison(
    frequency: float,
    *,
    temperature: float = 10.0,
    salinity: float = 35.0,
    depth: float = 0.0,
    ph: float = 8.0,
) -> float:
    """One-way absorption of sea or fresh water in dB/m, Francois-Garrison (1982) model.

    The sum of the boric-acid, magnesium-sulphate and pure-water relaxations, with the
    constants of the MB-System ``mbabsorption`` man page (8.86 in A1, which one open-source
    copy mistypes as 8.68). Valid from 200 Hz to 1 MHz, -2 to 22 C (pure-water term above
    20 C uses the second polynomial).

    Args:
        frequency: Hz.
        temperature: degrees Celsius.
        salinity: PSU; 0 gives fresh water.
        depth: metres.
        ph: acidity.

    >>> round(francois_garrison(115e3) * 1e3, 1)  # dB/km: Ping2 at 10 C, 35 PSU
    37.6
    """
    f = frequency * 1e-3  # kHz
    t = temperature
    c = sound_speed_water(temperature, salinity, depth)
    theta = 273.0 + t
    # (float ** float is typed Any, as a negative base gives a complex: these bases are > 0)
    a1: float = 8.86 / c * 10.0 ** (0.78 * ph - 5.0)
    f1: float = 2.8 * math.sqrt(salinity / 35.0) * 10.0 ** (4.0 - 1245.0 / theta)
    a2 = 21.44 * salinity / c * (1.0 + 0.025 * t)
    p2 = 1.0 - 1.37e-4 * depth + 6.2e-9 * depth**2
    f2: float = 8.17 * 10.0 ** (8.0 - 1990.0 / theta) / (1.0 + 0.0018 * (salinity - 35.0))
    if t <= 20.0:
        a3 = 4.937e-4 - 2.59e-5 * t + 9.11e-7 * t**2 - 1.50e-8 * t**3
    else:
        a3 = 3.964e-4 - 1.146e-5 * t + 1.45e-7 * t**2 - 6.5e-10 * t**3
    p3 = 1.0 - 3.83e-5 * depth + 4.9e-10 * depth**2
    f_sq = f * f
    boric = a1 * f1 * f_sq / (f1 * f1 + f_sq) if f1 > 0.0 else 0.0
    magnesium = a2 * p2 * f2 * f_sq / (f2 * f2 + f_sq)
    return (boric + magnesium + a3 * p3 * f_sq) * 1e-3


def thorp(frequency: float, *, depth: float = 0.0) -> float:
    """One-way absorption of sea water in dB/m, Thorp's formula.

    ``alpha = 0.0033 + 0.11 f^2/(1 + f^2) + 44 f^2/(4100 + f^2) + 3e-4 f^2`` dB/km with ``f``
    in kHz, times USML's depth factor ``1 - 5.88264e-6 z``. Valid 100 Hz to 5 kHz at
    4 C, 35 ppt, pH 8; well above that it overestimates (use Francois-Garrison).

    Args:
        frequency: Hz.
        depth: metres.

    >>> round(thorp(10e3) * 1e3, 2)  # dB/km
    1.19
    """
    f_sq = (frequency * 1e-3) ** 2
    alpha = 0.0033 + 0.11 * f_sq / (1.0 + f_sq) + 44.0 * f_sq / (4100.0 + f_sq) + 3.0e-4 * f_sq
    return alpha * (1.0 - 5.88264e-6 * depth) * 1e-3


def iso9613_air(
    frequency: float,
    *,
    temperature: float = 20.0,
    relative_humidity: float = 50.0,
    pressure: float = _ISO_PR,
) -> float:
    """One-way absorption of air in dB/m, ISO 9613-1:1993 (classical plus O2 and N2 relaxation).

    Args:
        frequency: Hz.
        temperature: degrees Celsius.
        relative_humidity: percent.
        pressure: ambient pressure in kPa.

    >>> round(iso9613_air(40e3), 3)  # an HC-SR04 at 20 C, 50 % RH
    1.318
    """
    t = temperature + _KELVIN
    p_rel = pressure / _ISO_PR
    t_rel = t / _ISO_T0
    # (float ** float is typed Any, as a negative base gives a complex: these bases are > 0)
    psat_rel: float = 10.0 ** (-6.8346 * (_ISO_T01 / t) ** 1.261 + 4.6151)
    h = relative_humidity * psat_rel / p_rel
    fr_o = p_rel * (24.0 + 4.04e4 * h * (0.02 + h) / (0.391 + h))
    fr_n: float = (
        p_rel * t_rel**-0.5 * (9.0 + 280.0 * h * math.exp(-4.170 * (t_rel ** (-1.0 / 3.0) - 1.0)))
    )
    f_sq = frequency * frequency
    classical = 1.84e-11 / p_rel * math.sqrt(t_rel)
    oxygen = 0.01275 * math.exp(-2239.1 / t) / (fr_o + f_sq / fr_o)
    nitrogen = 0.1068 * math.exp(-3352.0 / t) / (fr_n + f_sq / fr_n)
    relaxation: float = t_rel**-2.5 * (oxygen + nitrogen)
    return 8.686 * f_sq * (classical + relaxation)


def absorption_db_per_m(
    model: Absorption, frequency: float, environment: Environment, fixed: float = 0.0
) -> float:
    """One-way absorption in dB/m of the chosen model in this environment.

    Args:
        model: the absorption model; ``AUTO`` picks by ``environment.medium``.
        frequency: Hz.
        environment: temperature, salinity, etc.
        fixed: dB/m returned by ``Absorption.FIXED``.

    Raises:
        ConfigurationError: a water model in air or the air model in water.

    >>> round(absorption_db_per_m(Absorption.AUTO, 40e3, Environment(Medium.AIR, 20.0)), 3)
    1.318
    """
    env = environment
    if model is Absorption.AUTO:
        model = Absorption.ISO_9613_1 if env.medium is Medium.AIR else Absorption.FRANCOIS_GARRISON
    if model is Absorption.NONE:
        return 0.0
    if model is Absorption.FIXED:
        return fixed
    if model is Absorption.ISO_9613_1:
        if env.medium is not Medium.AIR:
            raise ConfigurationError(
                'absorption must be a model of water when the medium is water (ISO 9613-1 is a '
                f'model of air), got {model.value!r}'
            )
        return iso9613_air(
            frequency,
            temperature=env.temperature,
            relative_humidity=env.relative_humidity,
            pressure=env.pressure,
        )
    if env.medium is not Medium.WATER:
        raise ConfigurationError(
            f'absorption must be a model of air when the medium is air ({model.value} is a model '
            f'of water), got {model.value!r}'
        )
    if model is Absorption.THORP:
        return thorp(frequency, depth=env.depth)
    return francois_garrison(
        frequency, temperature=env.temperature, salinity=env.salinity, depth=env.depth, ph=env.ph
    )
