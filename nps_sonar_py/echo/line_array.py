"""The receive line array of a fan: its array factor and the leakage of echoes across beams.

A uniform line array of ``N`` elements at spacing ``d``, weighted by a window ``w_n`` and
steered to ``theta_b``, receives a plane wave from ``theta`` with the amplitude

    AF_b(theta) = sum_n w_n exp(i k d x_n (sin theta - sin theta_b)) / sum_n w_n,

``x_n = n - (N - 1) / 2`` (``docs/coherent.md#the-array``). Unweighted,
``|AF| = |sin(N psi / 2) / (N sin(psi / 2))|`` with ``psi = k d (sin theta - sin theta_b)``:
-3 dB full width ``0.886 lambda / (N d)`` in ``sin theta`` and a first side lobe of
-13.26 dB (Harris 1978). Windows trade a wider main lobe for lower side lobes.

The fan's rays already give each beam its main lobe (the echo model's beam pattern); the
array adds what those rays cannot: the echoes of other directions heard through the side
lobes, the arcs a strong target draws across a forward-looking image. :func:`leakage_matrix`
gives the amplitude each beam hears of every other beam's echo: ``AF_b(theta_b')`` outside
the main lobe of ``b`` (beyond its first null), 0 inside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.echo.pulse import PulseWindow, window
from nps_sonar_py.records import Record, setting

__all__ = ['LineArray', 'array_problem', 'leakage_matrix']

#: Points per main-lobe width of the grid the widths and nulls are measured on.
_GRID = 2048


@dataclass(frozen=True)
class LineArray(Record):
    """A uniform line array, checked on creation (``nps_sonar_py.records``).

    Attributes:
        elements: ``N``.
        spacing: ``d`` in wavelengths.
        window: the element weighting (``PulseWindow``'s choices).
    """

    elements: int = setting(128, 'elements of the receive line array', 2, 100_000)
    spacing: float = setting(0.5, 'element spacing [wavelengths]', 0.01, 100.0)
    window: PulseWindow = setting(
        PulseWindow.NONE, 'element weighting: none, hann, hamming or tukey'
    )

    def weights(self) -> NDArray[np.float64]:
        """(N,) element weights, the window sampled at the element centres."""
        x = (np.arange(self.elements) + 0.5) / self.elements - 0.5
        return window(self.window, x)

    def factor(self, offset: ArrayLike) -> NDArray[np.complex128]:
        """``AF`` at ``sin theta - sin theta_b`` = ``offset`` (any shape); 1 at 0."""
        u = np.asarray(offset, dtype=np.float64)
        w = self.weights()
        x = np.arange(self.elements) - 0.5 * (self.elements - 1)
        step = np.exp(2j * math.pi * self.spacing * u)  # one element further along
        term = np.exp(2j * math.pi * self.spacing * x[0] * u)
        out = np.zeros(u.shape, dtype=np.complex128)
        for weight in w:  # a loop over the elements, each a pass over all offsets
            out += weight * term
            term *= step
        result: NDArray[np.complex128] = out / w.sum()
        return result

    def _scan(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``|AF|**2`` on a fine grid of offsets from 0 to 4 / (N d), and the grid."""
        top = 4.0 / (self.elements * self.spacing)
        u = np.linspace(0.0, top, 4 * _GRID + 1)
        return u, np.abs(self.factor(u)) ** 2

    def half_power_width(self) -> float:
        """Full -3 dB width of the main lobe in ``sin theta``."""
        u, power = self._scan()
        return 2.0 * _crossing(u, power)

    def first_null(self) -> float:
        """Offset in ``sin theta`` of the first minimum of ``|AF|`` (the main lobe's edge)."""
        u, power = self._scan()
        rising = np.flatnonzero(np.diff(power) > 0.0)
        return float(u[rising[0]]) if rising.size else float(u[-1])


def _crossing(u: NDArray[np.float64], power: NDArray[np.float64]) -> float:
    """The first ``u`` where ``power`` falls to 1/2 (linear interpolation)."""
    i = int(np.argmax(power < 0.5))
    return float(u[i - 1] + (u[i] - u[i - 1]) * (power[i - 1] - 0.5) / (power[i - 1] - power[i]))


def array_problem(array: LineArray, beam_width: float, azimuths: ArrayLike) -> str | None:
    """Why this array cannot form these beams (rad), or ``None``.

    Too short: its -3 dB width at broadside is more than 10 % over ``beam_width``. Too
    sparse: a grating lobe (``|sin theta - sin theta_b| = 1 / d``) falls inside the fan.
    """
    width = math.degrees(math.asin(min(array.half_power_width() / 2.0, 1.0)) * 2.0)
    wanted = math.degrees(beam_width)
    if width > 1.1 * wanted:
        return (
            f'array_elements: {array.elements} elements at {array.spacing:g} wavelengths '
            f"form {width:.3g} deg beams, wider than the beams' {wanted:.3g} deg (beam_width; "
            "an echosounder's across_track_width): the array is too short for its beams"
        )
    sines = np.sin(np.asarray(azimuths, dtype=np.float64))
    span = float(sines.max() - sines.min()) if sines.size else 0.0
    if span >= 1.0 / array.spacing:
        return (
            f'array_spacing: {array.spacing:g} wavelengths puts a grating lobe inside the fan '
            f'(needs < {1.0 / span:.3g})'
        )
    return None


def leakage_matrix(
    array: LineArray, azimuths: ArrayLike, coverage: float
) -> NDArray[np.complex64]:
    """(N, N) amplitude beam ``b`` (row) hears of beam ``b'``'s echo (column), complex64.

    ``AF_b(theta_b')`` where ``|sin theta_b' - sin theta_b|`` is beyond the first null, 0
    inside (the rays' own main lobe), times ``sqrt(coverage)``: ``coverage`` is the beam
    spacing over the equivalent width of a beam's pattern (``integral B**n_way dtheta``),
    the share of a beam's echo that is its own direction's, as neighbouring beams' rays
    overlap and each direction is heard in ``1 / coverage`` beams.
    """
    sines = np.sin(np.asarray(azimuths, dtype=np.float64))
    offset = sines[None, :] - sines[:, None]
    amplitude = array.factor(offset) * math.sqrt(coverage)
    amplitude[np.abs(offset) < array.first_null()] = 0.0
    return amplitude.astype(np.complex64)
