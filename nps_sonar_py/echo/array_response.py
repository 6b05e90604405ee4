"""The complex one-way response of a steered uniform line array, and the transmit pattern.

A line array of ``N`` elements at spacing ``d`` (wavelengths) along its axis, weighted by a
shading ``w_n`` and steered to the direction cosine ``s_b`` (``sin theta_b`` in the plane of
the fan), receives a plane wave of direction cosine ``s`` with the amplitude

    AF(s - s_b) = sum_n w_n exp(2 i pi d x_n (s - s_b)) / sum_n w_n,   x_n = n - (N - 1) / 2

(Van Trees, *Optimum Array Processing*, 2002, ch. 2 and 3; ``docs/beamforming.md``). It
depends on ``s - s_b`` only: shift-invariant in the sine of the angle, so beams over many
scatterers are a convolution in sine (``formed_beams.py``). In angle the main lobe widens as
``1 / cos theta_b``; unshaded its -3 dB width is ``0.886 / (N d)`` in sine and its first side
lobe -13.26 dB; shading lowers the side lobes and widens the main lobe (Harris 1978; Dolph
1946 for Chebyshev, Taylor 1955).

The transmit pattern of a forward-looking sonar is a wide fan from a short projector: the
one-way amplitude of a uniform rectangular aperture (:class:`Aperture`), sized from its -3 dB
widths across and along the fan.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from enum import Enum

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.signal import windows

__all__ = [
    'Aperture',
    'Shading',
    'SteeredArray',
    'fan_array_problem',
    'first_side_lobe_db',
    'half_power_sine_width',
]

#: Half-power point of ``sinc``: ``sinc(x)**2 = 1/2`` at ``x = 0.44295`` (``np.sinc`` units).
_SINC_HALF_POWER = 0.442946470689452


class Shading(Enum):
    """Element weighting: none, Hann, Hamming, Dolph-Chebyshev or Taylor."""

    NONE = 'none'
    HANN = 'hann'
    HAMMING = 'hamming'
    CHEBYSHEV = 'chebyshev'
    TAYLOR = 'taylor'


@dataclass(frozen=True)
class SteeredArray:
    """A uniform line array; its beams are steered by :meth:`response`'s offset.

    Attributes:
        elements: ``N`` >= 2.
        spacing: ``d`` in wavelengths (< 1 / (1 + |s_b|) for no grating lobe in the fan).
        shading: the element weights.
        side_lobe_db: design side-lobe level of Chebyshev and Taylor, dB below the peak (> 0).
        taylor_nbar: Taylor's ``n-bar``, the near side lobes held at the design level.
    """

    elements: int
    spacing: float = 0.5
    shading: Shading = Shading.NONE
    side_lobe_db: float = 30.0
    taylor_nbar: int = 4

    def __post_init__(self) -> None:
        if self.elements < 2:
            raise ValueError(f'elements: {self.elements} (an array needs at least 2)')
        if not 0.0 < self.spacing <= 100.0:
            raise ValueError(f'spacing: {self.spacing} wavelengths (must be in (0, 100])')
        if self.side_lobe_db <= 0.0:
            raise ValueError(f'side_lobe_db: {self.side_lobe_db} (must be > 0 dB below the peak)')

    @property
    def positions(self) -> NDArray[np.float64]:
        """(N,) element positions ``d x_n`` in wavelengths, centred on the array."""
        index = np.arange(self.elements, dtype=np.float64)
        return np.multiply(index - 0.5 * (self.elements - 1), self.spacing, dtype=np.float64)

    def weights(self) -> NDArray[np.float64]:
        """(N,) shading weights, peak 1 (Harris 1978; scipy's Chebyshev and Taylor)."""
        n, kind = self.elements, self.shading
        index = np.arange(n, dtype=np.float64)
        w: NDArray[np.float64]
        if kind is Shading.NONE:
            w = np.ones(n)
        elif kind is Shading.HANN:  # the form that does not zero the end elements
            w = 0.5 - 0.5 * np.cos(2.0 * math.pi * (index + 1.0) / (n + 1.0))
        elif kind is Shading.HAMMING:
            w = 0.54 - 0.46 * np.cos(2.0 * math.pi * index / (n - 1.0))
        if kind in (Shading.NONE, Shading.HANN, Shading.HAMMING):
            return w
        if kind is Shading.CHEBYSHEV:
            with warnings.catch_warnings():  # scipy warns about spectral analysis, not arrays
                warnings.simplefilter('ignore', UserWarning)
                w = windows.chebwin(n, self.side_lobe_db)
            peak: NDArray[np.float64] = w / w.max()
            return peak
        tapered: NDArray[np.float64] = windows.taylor(
            n, nbar=self.taylor_nbar, sll=self.side_lobe_db, norm=True
        )
        return tapered

    def response(self, offset: ArrayLike) -> NDArray[np.complex128]:
        """``AF`` at ``s - s_b`` = ``offset`` (any shape); 1 at 0 (module docstring)."""
        u = np.asarray(offset, dtype=np.float64)
        w = self.weights()
        phase = np.exp(2j * math.pi * np.multiply.outer(u, self.positions))
        out: NDArray[np.complex128] = phase @ (w / w.sum())
        return out

    def steered(self, direction_sine: ArrayLike, beam_sine: ArrayLike) -> NDArray[np.complex128]:
        """``AF`` of beams steered to ``beam_sine`` for waves from ``direction_sine``."""
        return self.response(np.subtract(direction_sine, beam_sine))

    def noise_gain(self) -> float:
        """``sum w**2 / (sum w)**2``: a beam's share of independent element noise."""
        w = self.weights()
        return float(np.sum(w**2) / np.sum(w) ** 2)


def half_power_sine_width(array: SteeredArray) -> float:
    """Full -3 dB width of the main lobe in sine (``0.886 / (N d)`` unshaded)."""
    top = 4.0 / (array.elements * array.spacing)
    u = np.linspace(0.0, top, 16385)
    power = np.abs(array.response(u)) ** 2
    i = int(np.argmax(power < 0.5))
    return float(
        2.0 * (u[i - 1] + (u[i] - u[i - 1]) * (power[i - 1] - 0.5) / (power[i - 1] - power[i]))
    )


def fan_array_problem(
    array: SteeredArray, sines: NDArray[np.float64], beam_width: float, *, given: bool
) -> str | None:
    """Why ``array`` cannot form a fan's beams at ``sines``, or ``None``.

    An array of ``given`` elements (``array_elements`` set) whose -3 dB width at broadside is
    over 1.1 times ``beam_width`` is too short for its beams; a spacing whose grating lobe
    (``1 / d`` from the main lobe in sine) falls inside the fan's span of sines is refused.
    """
    width = 2.0 * math.asin(min(1.0, 0.5 * half_power_sine_width(array)))
    if given and width > 1.1 * beam_width:
        return (
            f'array_elements: {array.elements} elements at {array.spacing:g} '
            f"wavelengths form {math.degrees(width):.3g} deg beams, wider than the beams' "
            f'{math.degrees(beam_width):.3g} deg (beam_width): the array is too short '
            'for its beams'
        )
    span = float(np.max(sines) - np.min(sines))
    if span >= 1.0 / array.spacing:
        return (
            f'array_spacing: {array.spacing:g} wavelengths puts a grating lobe inside '
            f'the fan (needs < {1.0 / span:.3g})'
        )
    return None


def first_side_lobe_db(array: SteeredArray) -> float:
    """Level of the first side lobe of ``|AF|**2`` beyond the first null, dB re the peak."""
    top = 8.0 / (array.elements * array.spacing)
    u = np.linspace(0.0, top, 32769)
    power = np.abs(array.response(u)) ** 2
    null = int(np.argmax(np.diff(power) > 0.0))
    return float(10.0 * np.log10(power[null:].max()))


@dataclass(frozen=True)
class Aperture:
    """A uniform rectangular aperture's one-way amplitude pattern, from its -3 dB widths.

    ``sinc(L_h sin(az)) sinc(L_v sin(el))`` with each length ``L = 0.443 / sin(w / 2)``
    wavelengths, so that the one-way intensity is 1/2 at half the width ``w``. A width of 0
    means omnidirectional in that plane (a point source).

    Attributes:
        horizontal_width: -3 dB full width across the fan (azimuth), rad.
        vertical_width: -3 dB full width in elevation, rad.
    """

    horizontal_width: float = 0.0
    vertical_width: float = 0.0

    def _length(self, width: float) -> float:
        return 0.0 if width <= 0.0 else _SINC_HALF_POWER / math.sin(0.5 * width)

    def amplitude(self, azimuth: ArrayLike, elevation: ArrayLike) -> NDArray[np.float64]:
        """One-way amplitude at ``azimuth``, ``elevation`` (rad, broadcast); 1 on the axis."""
        horizontal = np.sinc(self._length(self.horizontal_width) * np.sin(azimuth))
        vertical = np.sinc(self._length(self.vertical_width) * np.sin(elevation))
        out: NDArray[np.float64] = horizontal * vertical
        return out
