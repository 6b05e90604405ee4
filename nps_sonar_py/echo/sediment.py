"""Seabed sediments: Rayleigh reflection, Lambert's law and the APL-UW / Jackson backscatter.

The physics, in the package's words, is ``docs/seabed.md``; in short, for a grazing angle
``theta`` (from the mean plane, not from its normal):

* Lambert: ``S_b = 10 log10(mu) + 20 log10(sin theta)`` dB.
* Rayleigh reflection of a fluid sediment of density ratio ``a_rho``, sound-speed ratio
  ``nu`` and loss parameter ``delta`` (complex ratio ``a = nu / (1 + i delta)``):
  ``P = sqrt(a**-2 - cos**2 theta)``, ``Z = a_rho sin theta / P``, ``R = (Z - 1) / (Z + 1)``,
  loss ``-20 log10 |R|`` dB; the critical angle ``arccos(1 / nu)`` where ``nu > 1``.
* APL-UW / Jackson backscatter (APL-UW TR 9407, 1994; Jackson and Richardson, *High-Frequency
  Seafloor Acoustics*, 2007), fluid sediment: the interface roughness term in the small-slope
  approximation (which tends to the Kirchhoff result near normal incidence and to
  first-order perturbation theory at low grazing), for a power-law roughness spectrum
  ``W(K) = w2 K**-gamma2``; plus the sediment volume term (first-order perturbation in the
  density fluctuations, spectrum ``w3 / (K**2 + q0**2)**(gamma3 / 2)``), held under
  ``sigma_0 = 0.1`` as the model does. Lengths in metres, wavenumbers in rad/m.

The functions here evaluate the formulas at the frequency they are given, also above the
model's stated 10-100 kHz (the power-law spectra then extrapolated to the shorter Bragg
wavelengths, ``delta`` held: attenuation linear in frequency). The sensors do not ask for
that by default: ``echo.seabed.model_frequency`` holds the sonar's frequency to 10-100 kHz
unless the seabed sets ``extrapolate``; ``docs/seabed.md`` says why and what extrapolation
means at 600 kHz and 2.1 MHz.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import gamma, j1

from nps_sonar_py.records import Record, setting

__all__ = [
    'SEDIMENTS',
    'BackscatterTable',
    'Sediment',
    'backscatter_cross_section',
    'backscatter_table',
    'coherent_roughness_factor',
    'critical_angle',
    'facet_wavenumber',
    'lambert_strength_db',
    'reflection_coefficient',
    'reflection_loss_db',
    'roughness_cross_section',
    'roughness_variance',
    'slope_variance',
    'volume_cross_section',
    'with_overrides',
]

F = NDArray[np.float64]

#: The largest volume cross section the model lets through (its ``sigma_0``).
VOLUME_LIMIT = 0.1
#: Below this ``p`` the small-slope integral is its perturbation limit (relative error < 2e-4).
_PERTURBATION_P = 1e-4
#: The grazing angles of a sediment's table, degrees (0.25 degree steps).
TABLE_ANGLES = np.linspace(0.25, 90.0, 360)


@dataclass(frozen=True)
class Sediment(Record):
    """The fluid sediment parameters of the APL-UW / Jackson model (``docs/seabed.md``).

    Attributes:
        density_ratio: ``a_rho``, sediment density over the water's.
        sound_speed_ratio: ``nu``, sediment sound speed over the water's.
        loss_parameter: ``delta``, the imaginary part of the sediment's wavenumber over its
            real part.
        spectral_exponent: ``gamma2`` of the interface roughness spectrum, in (2, 4).
        spectral_strength: ``w2`` of that spectrum, m**(4 - gamma2).
        volume_exponent: ``gamma3`` of the volume fluctuation spectrum.
        volume_strength: ``w3`` of that spectrum, m**(3 - gamma3) (0: no volume
            scattering).
    """

    members_only = True
    prefix = 'sediment.'

    density_ratio: float = setting(1.845, 'sediment density over water density', 1.0, 5.0)
    sound_speed_ratio: float = setting(
        1.1782, 'sediment sound speed over water sound speed', 0.5, 5.0
    )
    loss_parameter: float = setting(0.01624, 'loss parameter delta', 0.0, 1.0)
    spectral_exponent: float = setting(3.25, 'roughness spectral exponent gamma2', 2.05, 3.95)
    spectral_strength: float = setting(1.406e-4, 'roughness spectral strength w2', 0.0, 1.0)
    volume_exponent: float = setting(3.0, 'volume spectral exponent gamma3', 2.0, 4.0)
    volume_strength: float = setting(3.59e-4, 'volume spectral strength w3', 0.0, 1.0)


def _row(rho: float, nu: float, delta: float, g2: float, w2: float, w3: float) -> Sediment:
    return Sediment(rho, nu, delta, g2, w2, 3.0, w3)


#: The named sediments (``docs/seabed.md`` gives each row's source). ``sand`` is medium sand.
SEDIMENTS: dict[str, Sediment] = {
    'medium_sand': _row(1.845, 1.1782, 0.01624, 3.25, 1.406e-4, 3.59e-4),
    'fine_sand': _row(1.451, 1.1072, 0.01602, 3.25, 8.6e-5, 3.54e-4),
    'coarse_sand': _row(2.231, 1.2503, 0.01638, 3.25, 2.2e-4, 3.62e-4),
    'silt': _row(1.149, 0.9873, 0.00386, 3.25, 1.64e-5, 4.269e-5),
    'mud': _row(1.147, 0.9849, 0.0027, 3.25, 1.0e-5, 2.6e-5),
    'gravel': _row(2.492, 1.337, 0.01705, 3.0, 1.8e-4, 3.77e-4),
    'cobble': _row(2.5, 1.8, 0.01374, 3.0, 2.5e-4, 1.52e-3),
    'rock': _row(2.5, 2.3, 0.00174, 3.0, 2.5e-4, 6.0e-5),
}
SEDIMENTS['sand'] = SEDIMENTS['medium_sand']


def lambert_strength_db(mu_db: float, grazing: ArrayLike) -> F:
    """Lambert's backscatter strength, dB: ``mu_db + 20 log10(sin theta)`` (theta in rad).

    >>> [round(float(s), 2) for s in lambert_strength_db(-27.0, np.radians([10, 30, 60]))]
    [-42.21, -33.02, -28.25]
    """
    return mu_db + 20.0 * np.log10(np.sin(np.asarray(grazing, dtype=np.float64)))


def _complex_ratio(sediment: Sediment) -> complex:
    """``a = nu / (1 + i delta)``: the sediment's complex sound-speed ratio."""
    return sediment.sound_speed_ratio / complex(1.0, sediment.loss_parameter)


def _vertical(sediment: Sediment, cos: F) -> NDArray[np.complex128]:
    """``P = sqrt(a**-2 - cos**2)``, the sediment's vertical wavenumber over the water's k."""
    return np.sqrt(_complex_ratio(sediment) ** -2 - cos.astype(np.complex128) ** 2)


def reflection_coefficient(sediment: Sediment, grazing: ArrayLike) -> NDArray[np.complex128]:
    """Rayleigh's plane-wave reflection coefficient ``R`` of the sediment at ``grazing`` rad."""
    theta = np.asarray(grazing, dtype=np.float64)
    impedance = sediment.density_ratio * np.sin(theta) / _vertical(sediment, np.cos(theta))
    return (impedance - 1.0) / (impedance + 1.0)


def reflection_loss_db(sediment: Sediment, grazing: ArrayLike) -> F:
    """Bottom reflection loss ``-20 log10 |R|``, dB, at ``grazing`` rad.

    >>> round(float(reflection_loss_db(SEDIMENTS['sand'], math.pi / 2)), 2)
    8.64
    """
    return -20.0 * np.log10(np.abs(reflection_coefficient(sediment, grazing)))


def critical_angle(sediment: Sediment) -> float:
    """Grazing angle below which a lossless sediment reflects totally, rad; NaN if ``nu <= 1``.

    >>> round(math.degrees(critical_angle(SEDIMENTS['sand'])), 2)
    31.92
    """
    nu = sediment.sound_speed_ratio
    return math.acos(1.0 / nu) if nu > 1.0 else math.nan


def roughness_variance(sediment: Sediment, lowest: ArrayLike) -> F:
    """The interface's height variance over wavenumbers above ``lowest`` rad/m, m**2.

    ``int W(K) d2K`` over ``|K| > K_L`` for the 2-D power-law spectrum ``W = w2 K**-gamma2``:
    ``2 pi w2 K_L**(2 - gamma2) / (gamma2 - 2)`` (it diverges as ``K_L -> 0``: a power law has
    no rms height of its own, only one over the scales a patch resolves). 0 when ``w2`` is 0.

    >>> round(float(roughness_variance(SEDIMENTS['sand'], 2.0 * math.pi)) ** 0.5 * 1e3, 2)
    8.43
    """
    gamma2 = sediment.spectral_exponent
    k_low = np.asarray(lowest, dtype=np.float64)
    return np.asarray(
        2.0 * math.pi * sediment.spectral_strength * k_low ** (2.0 - gamma2) / (gamma2 - 2.0)
    )


def facet_wavenumber(sediment: Sediment, vertical: ArrayLike) -> F:
    """The finest wavenumber that still tilts facets, rad/m, for a Bragg vector ``vertical``.

    Heights finer than ``K_u`` keep the mirrored phase within a radian (``q_z**2`` times
    their variance is 1, ``roughness_variance``): they ripple a facet without breaking it;
    longer scales tilt it (``docs/multipath.md``, "The diffuse part"). ``vertical``:
    ``q_z = 2 k sin theta``, rad/m. 0 when ``w2`` is 0 (no facets: a flat mirror).
    """
    gamma2 = sediment.spectral_exponent
    qz = np.asarray(vertical, dtype=np.float64)
    scale = 2.0 * math.pi * sediment.spectral_strength / (gamma2 - 2.0) * qz**2
    return np.asarray(scale ** (1.0 / (gamma2 - 2.0)))


def slope_variance(sediment: Sediment, lowest: ArrayLike, highest: ArrayLike) -> F:
    """The mean-square slope along one axis of the heights between two wavenumbers, rad/m.

    Half of ``int K**2 W(K) d2K`` over ``lowest < |K| < highest``: ``pi w2 (K_u**(4 - gamma2)
    - K_L**(4 - gamma2)) / (4 - gamma2)`` (the two axes share the isotropic slope); 0 where
    ``highest <= lowest``.

    >>> round(float(slope_variance(SEDIMENTS['sand'], 0.0, 1000.0)), 4)
    0.1047
    """
    power = 4.0 - sediment.spectral_exponent
    low = np.asarray(lowest, dtype=np.float64)
    high = np.maximum(np.asarray(highest, dtype=np.float64), low)
    return np.asarray(math.pi * sediment.spectral_strength * (high**power - low**power) / power)


def coherent_roughness_factor(wavenumber: float, variance: ArrayLike, grazing: ArrayLike) -> F:
    """The coherent part of a rough interface's reflection, over the flat one's (amplitude).

    Kirchhoff (Eckart 1953), Gaussian heights of variance ``sigma**2``: the mirrored wave
    takes the phase ``2 k h sin theta`` of the height ``h`` under it, whose mean over the
    heights is ``exp(-2 k**2 sigma**2 sin**2 theta)`` (``docs/multipath.md``). ``grazing`` in rad.
    """
    sin = np.sin(np.asarray(grazing, dtype=np.float64))
    return np.asarray(np.exp(-2.0 * wavenumber**2 * np.asarray(variance) * sin**2))


def _small_slope_integral(alpha: float, p: float) -> float:
    """``y = int_0^inf J0(u) exp(-p u**(2 alpha)) u du``, the small-slope integral.

    Integrated by parts (``u J0 = (u J1)'``) into ``2 alpha p int u**(2 alpha) J1(u)
    exp(-p u**(2 alpha)) du``, whose integrand starts as ``u**(2 alpha + 1)``: the trapezoid
    rule on it converges fast. Below ``_PERTURBATION_P`` its first-order limit
    ``p 2**(2 alpha + 1) Gamma(1 + alpha) / -Gamma(-alpha)`` (Weber's integral).
    """
    if p < _PERTURBATION_P:
        return float(p * 2.0 ** (2.0 * alpha + 1.0) * gamma(1.0 + alpha) / -gamma(-alpha))
    u_max = (40.0 / p) ** (1.0 / (2.0 * alpha))  # exp(-40): nothing left
    step = min(0.1, u_max / 4000.0)
    u = np.arange(0.0, u_max, step)
    power = u ** (2.0 * alpha)
    integrand = power * j1(u) * np.exp(-p * power)
    return float(2.0 * alpha * p * np.trapezoid(integrand, dx=step))


def roughness_cross_section(
    sediment: Sediment, grazing: ArrayLike, frequency: float, sound_speed: float = 1500.0
) -> F:
    """Interface roughness backscatter cross section (linear, per unit area and solid angle).

    The fluid small-slope approximation (module docstring, ``docs/seabed.md``); ``grazing``
    in rad, in (0, pi/2].
    """
    theta = np.atleast_1d(np.asarray(grazing, dtype=np.float64))
    k = 2.0 * math.pi * frequency / sound_speed
    cos, sin = np.cos(theta), np.sin(theta)
    a = _complex_ratio(sediment)
    rho = sediment.density_ratio
    r = reflection_coefficient(sediment, theta)
    q = 2.0 * k * np.sqrt(cos**2 + 0.25e-6)  # horizontal Bragg wavenumber, kept off 0
    q3 = 2.0 * k * sin
    alpha = sediment.spectral_exponent / 2.0 - 1.0
    structure = (
        2.0 * math.pi * sediment.spectral_strength * gamma(2.0 - alpha) * 2.0 ** (-2.0 * alpha)
    ) / (alpha * (1.0 - alpha) * gamma(1.0 + alpha))
    p = 0.5 * structure * q3**2 * q ** (-2.0 * alpha)
    cos_between = -(cos**2)  # k_i . k_s over k**2, backscatter
    coupling = -1.0 + cos_between * (1.0 - 1.0 / rho) + 1.0 / (a**2 * rho)
    vertical = -(rho - 1.0) * sin**2
    kernel = 0.5 * k**2 * (coupling * (1.0 + r) ** 2 + vertical * (1.0 - r) ** 2)
    y = np.array([_small_slope_integral(alpha, float(v)) for v in p])
    return np.asarray(np.abs(kernel) ** 2 / (2.0 * math.pi * q**2 * q3**2) * y)


def volume_cross_section(
    sediment: Sediment, grazing: ArrayLike, frequency: float, sound_speed: float = 1500.0
) -> F:
    """Sediment volume backscatter cross section as an interface one (linear), ``<= sigma_0``.

    ``pi k**3 a_rho**2 |T|**4 |a|**-4 W(q) / (2 Im P)`` with the two-way transmission
    ``T = sin theta (1 - R) / P`` and the Bragg vector ``(2 k cos theta, 2 k Re P)``; then
    ``1 / (1 / sigma_0 + 1 / sigma)`` (``docs/seabed.md``).
    """
    theta = np.atleast_1d(np.asarray(grazing, dtype=np.float64))
    if sediment.volume_strength == 0.0:
        return np.zeros(theta.shape)
    k = 2.0 * math.pi * frequency / sound_speed
    cos, sin = np.cos(theta), np.sin(theta)
    a = _complex_ratio(sediment)
    vertical = _vertical(sediment, cos)
    transmission = sin * (1.0 - reflection_coefficient(sediment, theta)) / vertical
    bragg = 4.0 * k**2 * cos**2 + (2.0 * k * vertical.real) ** 2 + (1e-3 * k) ** 2
    spectrum = sediment.volume_strength / bragg ** (sediment.volume_exponent / 2.0)
    sigma = (
        math.pi
        * k**3
        * sediment.density_ratio**2
        * np.abs(transmission) ** 4
        * abs(a) ** -4
        * spectrum
        / (2.0 * vertical.imag)
    )
    with np.errstate(divide='ignore'):
        return np.asarray(1.0 / (1.0 / VOLUME_LIMIT + 1.0 / sigma))


def backscatter_cross_section(
    sediment: Sediment, grazing: ArrayLike, frequency: float, sound_speed: float = 1500.0
) -> F:
    """The APL-UW / Jackson backscatter cross section, roughness plus volume, linear.

    ``10 log10`` of it is the backscatter strength in dB.
    """
    return roughness_cross_section(sediment, grazing, frequency, sound_speed) + (
        volume_cross_section(sediment, grazing, frequency, sound_speed)
    )


@dataclass(frozen=True, eq=False)
class BackscatterTable:
    """A sediment's backscatter cross section against grazing angle, tabulated once.

    Attributes:
        angles: (m,) grazing angles, rad, increasing.
        strength_db: (m,) the backscatter strength there, dB.
    """

    angles: F
    strength_db: F

    def cross_section(self, grazing: ArrayLike) -> F:
        """The cross section at ``grazing`` rad: linear in dB between the table's angles.

        Below the first angle it falls as ``sin**4`` (the perturbation and volume limits:
        both go as ``sin**4 theta`` at grazing incidence); 0 at 0.
        """
        theta = np.asarray(grazing, dtype=np.float64)
        level = np.interp(theta, self.angles, self.strength_db)
        first = self.angles[0]
        low = theta < first
        if np.any(low):
            with np.errstate(divide='ignore'):
                ratio = np.sin(np.maximum(theta, 0.0)) / math.sin(first)
                level = np.where(low, level + 40.0 * np.log10(ratio), level)
        return np.asarray(10.0 ** (level / 10.0))


@functools.lru_cache(maxsize=64)
def backscatter_table(
    sediment: Sediment, frequency: float, sound_speed: float = 1500.0
) -> BackscatterTable:
    """The :class:`BackscatterTable` of ``sediment`` at ``frequency`` Hz (cached)."""
    angles = np.radians(TABLE_ANGLES)
    sigma = backscatter_cross_section(sediment, angles, frequency, sound_speed)
    strength = 10.0 * np.log10(np.maximum(sigma, 1e-30))
    angles.flags.writeable = False
    strength.flags.writeable = False
    return BackscatterTable(angles, strength)


def with_overrides(base: Sediment, **values: float) -> Sediment:
    """``base`` with some parameters given (user-given sediments), checked."""
    return replace(base, **values)
