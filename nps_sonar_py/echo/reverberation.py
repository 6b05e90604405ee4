"""What a record holds where the seabed does not echo: volume reverberation, noise, fill.

Levels on the echo model's scale (intensity relative to the source at 1 m, a range bin
holding the SUM of its returns; ``docs/seabed.md#the-water-column-and-shadows``):

* Volume reverberation of a bin of width ``dr`` at range ``r`` (Urick, *Principles of
  Underwater Sound*, 3rd ed. 1983, ch. 8): the water of the beam's equivalent two-way solid
  angle ``Psi`` in the bin, ``V = Psi r**2 dr``, scatters ``s_v = 10**(Sv / 10)`` per unit
  volume, so ``I_v = s_v Psi dr / r**2 10**(-2 a r / 10)``. The sonar equation's
  ``RL = SL - 40 log r - 2 a r + Sv + 10 log(Psi r**2 c tau / 2)`` is the same with the
  pulse's extent ``c tau / 2`` for the bin's ``dr``.
* Receiver noise: ``echo.sonar_equation.noise_intensity`` per bin.
* Multipath fill: the seabed's echo reaching a shadow by one bounce off the sea surface,
  lowered by the surface's reflection loss and by the beam pattern toward the mirrored
  path: ``I_m = I_seabed 10**(-(L_surface + G_pattern) / 10)``.

A shadow's fill is their sum (:func:`shadow_fill`), the water column's is the volume
reverberation plus the noise: what the display chain adds to the echo, before its gain.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.echo.beam import BeamPattern, beam_intensity

__all__ = [
    'SV_CLEAR_DB',
    'SV_COASTAL_DB',
    'equivalent_solid_angle',
    'fan_solid_angle',
    'multipath_fill',
    'shadow_fill',
    'surface_bounce',
    'volume_reverberation',
]

F = NDArray[np.float64]

#: Volume scattering strength of clear open water at high frequency, dB re 1/m (Urick ch. 8:
#: -80 to -100 dB outside scattering layers).
SV_CLEAR_DB = -90.0
#: Of coastal, shallow water with plankton and suspended sediment, dB re 1/m (-60 to -75 dB).
SV_COASTAL_DB = -70.0


def equivalent_solid_angle(pattern: BeamPattern, beam_width: float, n_way: int = 2) -> float:
    """``Psi = 2 pi int_0^pi B(psi)**n_way sin(psi) dpsi``, sr, of an axially symmetric beam.

    Midpoint rule on 20,000 steps (the patterns are smooth but for ``UNIFORM``'s edge).

    >>> round(equivalent_solid_angle(BeamPattern.UNIFORM, math.pi, 1), 4)  # a hemisphere
    6.2832
    """
    steps = 20_000
    psi = (np.arange(steps) + 0.5) * (math.pi / steps)
    weight = beam_intensity(pattern, psi, beam_width, n_way)
    return float(2.0 * math.pi * np.sum(weight * np.sin(psi)) * (math.pi / steps))


def fan_solid_angle(horizontal_width: float, vertical_width: float) -> float:
    """``Psi`` of a fan beam with Gaussian two-way patterns of these -3 dB one-way widths, sr.

    ``int exp(-8 ln2 (a / w)**2) da = w sqrt(pi / (8 ln 2))`` each way, small angles.
    """
    return horizontal_width * vertical_width * math.pi / (8.0 * math.log(2.0))


def volume_reverberation(
    ranges: ArrayLike,
    bin_width: ArrayLike,
    sv_db: float,
    solid_angle: float,
    absorption_db_per_m: float = 0.0,
) -> F:
    """(n,) the volume reverberation of range bins at ``ranges`` (m), module docstring.

    Args:
        ranges: the bins' centres, m, > 0.
        bin_width: the bins' width ``dr`` (or the pulse's extent ``c tau / 2``), m: one, or
            one per bin.
        sv_db: the water's volume scattering strength ``Sv``, dB re 1/m.
        solid_angle: the beam's equivalent two-way solid angle ``Psi``, sr.
        absorption_db_per_m: the one-way absorption ``a``, dB/m.
    """
    r = np.asarray(ranges, dtype=np.float64)
    width = np.asarray(bin_width, dtype=np.float64)
    spreading = 10.0 ** (sv_db / 10.0) * solid_angle * width / (r * r)
    return np.asarray(spreading * 10.0 ** (-2.0 * absorption_db_per_m * r / 10.0))


def multipath_fill(seabed: ArrayLike, surface_loss_db: float, pattern_db: float) -> F:
    """The one-bounce fill ``seabed 10**(-(L_surface + G_pattern) / 10)`` (module docstring).

    Args:
        seabed: the seabed's echo at the mirrored path's range, per bin (linear).
        surface_loss_db: the sea surface's reflection loss, dB, >= 0 (calm: about 0).
        pattern_db: the two-way beam pattern's loss toward the mirrored path, dB, >= 0.
    """
    factor = 10.0 ** (-(surface_loss_db + pattern_db) / 10.0)
    return np.asarray(np.asarray(seabed, dtype=np.float64) * factor)


def surface_bounce(
    depth: float,
    altitude: float,
    max_range: float,
    tilt: float,
    vertical_width: float,
    pattern: BeamPattern,
    surface_loss_db: float = 0.0,
) -> tuple[float, float]:
    """``(earliest range m, loss dB)`` of the seabed's one-bounce echo off the sea surface.

    The path goes up to the surface, down to the seabed and straight back (the other order
    is the same). Unfolded in the surface, a seabed point at horizontal distance ``x`` is
    ``2 depth + altitude`` above the sonar on the bounce leg and ``altitude`` below it on the
    direct one, so the echo arrives at range ``r = (sqrt(x**2 + (2 depth + altitude)**2) +
    sqrt(x**2 + altitude**2)) / 2``: from ``depth + altitude`` (x = 0) on. Its leg leaves at
    elevation ``atan((2 depth + altitude) / x)``, lowest (nearest the beam) at the window's
    end, ``max_range``; there the one-way pattern of a beam tilted ``tilt`` down is
    ``B(tilt + elevation)``: the loss is ``surface_loss_db - 10 log10 B`` (the direct leg near
    the axis). A path behind the transducer's face (off axis 90 degrees or more) or later than
    ``max_range`` is lost: ``inf``. ``surface_loss_db``: 0 for a calm sea (a flat
    pressure-release surface reflects with ``R = -1``).
    """
    up, down = 2.0 * depth + altitude, altitude
    earliest = depth + altitude
    if max_range <= earliest:
        return earliest, math.inf
    # the x at which the path's range is max_range: r(x) increases, bisect it
    low, high = 0.0, 2.0 * max_range
    for _ in range(60):
        x = 0.5 * (low + high)
        if 0.5 * (math.hypot(x, up) + math.hypot(x, down)) < max_range:
            low = x
        else:
            high = x
    off_axis = tilt + math.atan2(up, low)
    if off_axis >= 0.5 * math.pi:
        return earliest, math.inf
    weight = float(beam_intensity(pattern, np.array([off_axis]), vertical_width, 1)[0])
    if weight <= 0.0:
        return earliest, math.inf
    return earliest, surface_loss_db - 10.0 * math.log10(weight)


def shadow_fill(noise: float, volume: ArrayLike, multipath: ArrayLike = 0.0) -> F:
    """(n,) what a shadow (or the water column) holds: noise + volume + multipath, per bin."""
    return np.asarray(noise + np.asarray(volume, dtype=np.float64) + np.asarray(multipath))
