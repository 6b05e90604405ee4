"""Independent references for the formed-beams tests: closed forms and a brute-force sum.

Nothing here calls the FFT path of ``formed_beams``: the brute force sums every scatterer
into every beam through the array factor written out element by element, and through the
closed form of an LFM chirp's compressed pulse, ``R(t) = (1 - |t| / T) sinc(B t (1 - |t| / T))``
(the zero-Doppler cut of its ambiguity function; Richards 2005, ch. 4).
"""

from __future__ import annotations

import math

import numpy as np

from nps_sonar_py.echo.array_response import Shading, SteeredArray
from nps_sonar_py.echo.fixed_scatterers import Scatterers, surface_scatterers
from nps_sonar_py.echo.formed_beams import BeamSetup

C = 1500.0


def chirp_psf(t: np.ndarray, bandwidth: float, length: float) -> np.ndarray:
    """The unwindowed LFM chirp's compressed pulse at delays ``t`` (s), peak 1."""
    a = np.abs(t)
    return np.where(
        a < length, (1.0 - a / length) * np.sinc(bandwidth * t * (1.0 - a / length)), 0.0
    )


def psf_energy(bandwidth: float, length: float, rate: float) -> float:
    """``rate * integral R**2 dt``: a lone echo's energy over samples at ``rate``."""
    t = np.linspace(-length, length, 400_001)
    return float(rate * np.sum(chirp_psf(t, bandwidth, length) ** 2) * (t[1] - t[0]))


def element_factor(array: SteeredArray, offset: np.ndarray) -> np.ndarray:
    """``AF`` written out: ``sum_n w_n exp(2 i pi d x_n u) / sum w``, element by element.

    Unshaded arrays of more than 64 elements: the closed form (the Dirichlet kernel)
    ``sin(N pi d u) / (N sin(pi d u))`` instead, which is the same sum, faster.
    """
    if array.shading is Shading.NONE and array.elements > 64:
        psi = math.pi * array.spacing * np.asarray(offset, dtype=np.float64)
        small = np.abs(np.sin(psi)) < 1e-12
        ratio = np.sin(array.elements * psi) / (array.elements * np.where(small, 1.0, np.sin(psi)))
        return np.where(small, 1.0, ratio).astype(np.complex128)
    w = array.weights()
    x = array.spacing * (np.arange(array.elements) - 0.5 * (array.elements - 1))
    out = np.zeros(np.shape(offset), dtype=np.complex128)
    for weight, position in zip(w, x, strict=True):
        out += weight * np.exp(2j * math.pi * position * offset)
    return out / w.sum()


def brute_force(
    setup: BeamSetup, ranges: np.ndarray, sines: np.ndarray, amplitudes: np.ndarray
) -> np.ndarray:
    """(B, samples) ``sum_i a_i AF(s_i - s_b) R(t_j - 2 r_i / c)``, unit energy per echo."""
    pulse = setup.pulse
    t = 2.0 * (setup.ranges()[:, None] - ranges[None, :]) / setup.sound_speed
    psf = chirp_psf(t, pulse.bandwidth, pulse.length) / math.sqrt(
        psf_energy(pulse.bandwidth, pulse.length, setup.rate)
    )
    factor = element_factor(setup.array, sines[None, :] - setup.beam_sines[:, None])
    return np.einsum('bm,tm,m->bt', factor, psf, amplitudes)


def seabed(
    x: tuple[float, float], y: tuple[float, float], density: float, seed: int, cell: float = 0.25
) -> Scatterers:
    """Fixed scatterers of a flat seabed z = 0 over ``x`` by ``y`` (m), triangles of ``cell``."""
    xs = np.arange(x[0], x[1] - 1e-9, cell)
    ys = np.arange(y[0], y[1] - 1e-9, cell)
    gx, gy = (g.ravel() for g in np.meshgrid(xs, ys, indexing='ij'))
    corner = np.stack([gx, gy, np.zeros_like(gx)], axis=1)
    ex, ey = np.array([cell, 0.0, 0.0]), np.array([0.0, cell, 0.0])
    lower = np.stack([corner, corner + ex, corner + ex + ey], axis=1)
    upper = np.stack([corner, corner + ex + ey, corner + ey], axis=1)
    return surface_scatterers(np.concatenate([lower, upper]), density, seed)
