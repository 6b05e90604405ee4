"""Axially symmetric beam patterns of single-beam transducers, parameterised by beam width.

Conventions (``docs/physics.md#beam-patterns``):

* ``b(psi)`` is the one-way *pressure* directivity and ``B = b**2`` the one-way *intensity*
  pattern, with ``B(0) = 1``. A transducer that transmits and receives weighs an echo by
  ``B**2`` (``n_way = 2``).
* ``beam_width`` is the full angle between the one-way -3 dB points, in radians, so that
  ``B(beam_width / 2) = 0.5`` for every pattern (the DAVE sinc up to its small-angle error).
* ``psi`` is the angle of a ray from the acoustic axis, in radians.

The patterns:

* ``PISTON``: circular piston in a baffle, ``B = (2 J1(x) / x)**2`` with ``x = ka sin(psi)``
  and ``ka = 1.61634 / sin(beam_width / 2)`` (Eargle, "Off-axis response of a piston in a
  large baffle"). The right default for single-beam transducers.
* ``GAUSSIAN``: ``B = exp(-4 ln 2 (psi / beam_width)**2)``; no side lobes, no null.
* ``SINC``: line array or one axis of a rectangular piston, ``B = (sin(u) / u)**2`` with
  ``u = pi (L / lambda) sin(psi)`` and the exact ``L / lambda = 0.44295 / sin(beam_width / 2)``
  (Beranek and Mellow 2019, *Acoustics: Sound Fields, Transducers and Vibration*).
* ``SINC_DAVE``: the same with DAVE's small-angle ``L / lambda = 0.884 / beam_width``
  (Choi et al. 2021, Eqs. 18-22); ``B(beam_width / 2)`` is 0.5016 for a 2 degree beam.
* ``UNIFORM``: ``B = 1`` inside ``beam_width / 2`` and 0 outside (the hard cone of the
  analytic tests, section 6).
"""

from __future__ import annotations

import math
from enum import Enum

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    'DAVE_SINC_FACTOR',
    'PISTON_FIRST_NULL_X',
    'PISTON_HALF_POWER_X',
    'SINC_HALF_POWER_U',
    'BeamPattern',
    'beam_intensity',
    'first_null_half_angle',
    'piston_diameter',
    'piston_ka',
]

#: x with (2 J1(x) / x)**2 = 1/2: the one-way -3 dB point of a circular piston
#: (scipy ``brentq`` on ``scipy.special.j1``; ``docs/physics.md#beam-patterns`` gives 1.61634).
PISTON_HALF_POWER_X = 1.6163399483106482

#: First zero of J1, the first null of a circular piston (``scipy.special.jn_zeros(1, 1)``).
PISTON_FIRST_NULL_X = 3.8317059702075125

#: u with (sin(u) / u)**2 = 1/2: the one-way -3 dB point of a line array
#: (scipy ``brentq``; ``u / pi = 0.44295``, ``docs/physics.md#beam-patterns``).
SINC_HALF_POWER_U = 1.3915573782515103

#: DAVE's ``L / lambda = 0.884 / beam_width`` (Choi et al. 2021, Eq. 22; nps_uw_multibeam_sonar).
DAVE_SINC_FACTOR = 0.884

_FOUR_LN2 = 4.0 * math.log(2.0)


class BeamPattern(Enum):
    """One-way intensity pattern of the transducer; see the module docstring for each form."""

    PISTON = 'piston'
    GAUSSIAN = 'gaussian'
    SINC = 'sinc'
    SINC_DAVE = 'sinc_dave'
    UNIFORM = 'uniform'


def piston_ka(beam_width: float) -> float:
    """Wavenumber times radius of the circular piston whose one-way -3 dB full width is given.

    ``ka = 1.61634 / sin(beam_width / 2)`` (``docs/physics.md#beam-patterns``).

    Args:
        beam_width: one-way -3 dB full beam width in radians, in (0, pi).

    >>> round(piston_ka(math.radians(25.0)), 3)  # Blue Robotics Ping2
    7.468
    """
    return PISTON_HALF_POWER_X / math.sin(0.5 * beam_width)


def piston_diameter(beam_width: float, frequency: float, sound_speed: float) -> float:
    """Diameter in metres of the circular piston of this beam width, ``D = 2 a = ka lambda / pi``.

    Args:
        beam_width: one-way -3 dB full beam width in radians, in (0, pi).
        frequency: carrier frequency in Hz.
        sound_speed: speed of sound in m/s.

    >>> round(1e3 * piston_diameter(math.radians(25.0), 115e3, 1500.0), 1)  # Ping2, in mm
    31.0
    """
    return piston_ka(beam_width) * sound_speed / frequency / math.pi


def beam_intensity(
    pattern: BeamPattern, off_axis: ArrayLike, beam_width: float, n_way: int = 1
) -> NDArray[np.float64]:
    """Beam weight ``B(psi)**n_way`` of rays at off-axis angles ``psi``: 1 on the axis.

    Args:
        pattern: the one-way intensity pattern.
        off_axis: angles of the rays from the acoustic axis, radians, in [0, pi/2].
        beam_width: one-way -3 dB full beam width, radians, in (0, pi).
        n_way: 1 for the one-way pattern, 2 for transmit and receive on the same transducer.

    Returns:
        float64 array of the shape of ``off_axis``, in [0, 1].

    >>> w = beam_intensity(BeamPattern.PISTON, [0.0, math.radians(12.5)], math.radians(25.0), 2)
    >>> [round(float(v), 6) for v in w]
    [1.0, 0.25]
    """
    psi = np.asarray(off_axis, dtype=np.float64)
    half = 0.5 * beam_width
    if pattern is BeamPattern.UNIFORM:
        one_way = (psi <= half).astype(np.float64)
    elif pattern is BeamPattern.GAUSSIAN:
        one_way = np.exp(-_FOUR_LN2 * (psi / beam_width) ** 2)
    elif pattern is BeamPattern.PISTON:
        # here, not at the top: scipy.special costs a node 0.2 s to import, and one that
        # stops on a bad input never draws a beam
        from scipy.special import j1

        x = piston_ka(beam_width) * np.sin(psi)
        safe = np.where(x == 0.0, 1.0, x)
        one_way = np.where(x == 0.0, 1.0, (2.0 * j1(safe) / safe) ** 2)
    elif pattern is BeamPattern.SINC or pattern is BeamPattern.SINC_DAVE:
        # np.sinc(t) = sin(pi t) / (pi t), so t = u / pi = (L / lambda) sin(psi).
        one_way = np.sinc(_length_over_wavelength(pattern, beam_width) * np.sin(psi)) ** 2
    else:  # pragma: no cover - the Enum is closed
        msg = f'unknown beam pattern {pattern!r}'
        raise ValueError(msg)
    return one_way**n_way if n_way != 1 else one_way


def first_null_half_angle(pattern: BeamPattern, beam_width: float) -> float:
    """Off-axis angle in radians of the first null of the pattern, or ``inf`` if it has none.

    Casting rays out to this angle instead of the -3 dB half width keeps 0.84-0.89 of the
    one-way and 0.997 of the two-way pattern energy of a uniform scene (piston,
    ``docs/physics.md#the-model``, the cast cone). ``UNIFORM`` returns its edge ``beam_width / 2``;
    ``GAUSSIAN`` and beams too wide to have a null before 90 degrees return ``inf``.

    Args:
        pattern: the one-way intensity pattern.
        beam_width: one-way -3 dB full beam width, radians, in (0, pi).

    >>> round(math.degrees(first_null_half_angle(BeamPattern.PISTON, math.radians(25.0))), 2)
    30.87
    """
    if pattern is BeamPattern.UNIFORM:
        return 0.5 * beam_width
    if pattern is BeamPattern.GAUSSIAN:
        return math.inf
    if pattern is BeamPattern.PISTON:
        sin_null = PISTON_FIRST_NULL_X / piston_ka(beam_width)
    else:  # sinc: u = pi
        sin_null = 1.0 / _length_over_wavelength(pattern, beam_width)
    return math.asin(sin_null) if sin_null <= 1.0 else math.inf


def _length_over_wavelength(pattern: BeamPattern, beam_width: float) -> float:
    if pattern is BeamPattern.SINC_DAVE:
        return DAVE_SINC_FACTOR / beam_width
    return SINC_HALF_POWER_U / math.pi / math.sin(0.5 * beam_width)
