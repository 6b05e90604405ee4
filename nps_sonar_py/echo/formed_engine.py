"""The coherent engine of a fan: its beams formed by a line array over the fixed scatterers.

A forward-looking sonar sends one pulse over its fan; its receive array hears the echoes of
the scatterers fixed on the surfaces the cast lit (``surface_echoes.py``), each element's
signal is matched-filtered with the receiver's noise added before the filter, and the beams
are the shaded sums over the elements (``formed_beams.py``; ``docs/beamforming.md``). The
rays no longer carry the echo: they find the lit triangles (and, for the ranges, totals and
labels, stay the law's, binned as the incoherent engine bins them).

Each scatterer's intensity is its area's law times the sonar's own pattern at it (the
fan's: its vertical pattern both ways, the transmit flat across the fan); the receive
array's ``|AF|**2`` comes from the beam former, so the mean of the image over scatterer
seeds is the incoherent image with the two-way pattern ``pattern |AF|**2``.

With ``seabed_images`` (the default) the scatterers of objects over a seabed are also heard
by their images in it (``seabed_images.py``): each path by one or two bounces a
scatterer-like echo at the range it is heard at, with its weight and the vertical pattern on
each leg, arriving from the direction of its last leg (the scatterer, or its image): the
array steers to that direction, so the two one-bounce paths are heard in the beams of the
scatterer's and of its image's bearing (``docs/multipath.md``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.echo.array_response import (
    Shading,
    SteeredArray,
    fan_array_problem,
    half_power_sine_width,
)
from nps_sonar_py.echo.coherent import (
    CoherentConfig,
    CoherentPing,
    SampleGrid,
    coherent_problem,
    sample_grid,
)
from nps_sonar_py.echo.config import EchoConfig
from nps_sonar_py.echo.entity_scatterers import ScattererCache
from nps_sonar_py.echo.fixed_scatterers import default_density
from nps_sonar_py.echo.formed_beams import BeamFormer, BeamSetup, form_beams
from nps_sonar_py.echo.model import EchoModel
from nps_sonar_py.echo.pulse import PulseWindow
from nps_sonar_py.echo.records import Echoes, EchoRecord
from nps_sonar_py.echo.seabed_images import Looks, seabed_images
from nps_sonar_py.echo.sonar_equation import noise_intensity
from nps_sonar_py.echo.surface_echoes import LitEchoes, LitSurfaces, lit_echoes
from nps_sonar_py.errors import ConfigurationError

__all__ = ['FormedEngine', 'Pattern', 'fan_array', 'formed_density']

#: The receive pattern's shadings by the ``array_window`` setting's names.
_SHADINGS = {
    PulseWindow.NONE: Shading.NONE,
    PulseWindow.HANN: Shading.HANN,
    PulseWindow.HAMMING: Shading.HAMMING,
}
#: Pattern of each scatterer (m, 3 in the sensor frame; its range, m) in [0, 1], the array's
#: aside.
Pattern = Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.float64]]


def fan_array(config: CoherentConfig, beam_width: float) -> SteeredArray:
    """The fan's receive array of ``array_elements`` at ``array_spacing``.

    0 elements: the fewest whose -3 dB width is at most ``beam_width`` at broadside,
    ``ceil(0.886 / (d w))``.

    Raises:
        ConfigurationError: an ``array_window`` the array has no shading for.
    """
    shading = _SHADINGS.get(config.array_window)
    if shading is None:
        raise ConfigurationError(
            f'array_window: {config.array_window.value} is no shading of a formed fan '
            '(none, hann or hamming)'
        )
    elements = config.array_elements or max(
        2, math.ceil(0.886 / (config.array_spacing * beam_width))
    )
    return SteeredArray(elements, config.array_spacing, shading)


def formed_density(config: CoherentConfig, echo: EchoConfig, array: SteeredArray) -> float:
    """Scatterers per m2: ``scatterer_density``, or the default.

    The default: 4 in a resolution cell ``c / (2 B) x r w`` at a quarter of the range window
    or its near end if farther (``fixed_scatterers.default_density``; ``w`` the array's -3 dB
    width at broadside).
    """
    if config.scatterer_density > 0.0:
        return config.scatterer_density
    width = 2.0 * math.asin(min(1.0, 0.5 * half_power_sine_width(array)))
    reference = max(echo.min_range, 0.25 * echo.max_range)
    return default_density(config.transmitted.resolution(echo.speed_of_sound), width, reference)


class FormedEngine:
    """Beams formed by a line array over the fixed scatterers of the lit surfaces.

    Args:
        model: the law and the bins (the ranges, totals, hits and labels).
        config: the coherent settings (pulse, sampling, array, density, seed, noise).
        azimuths: (N,) the beams' axes, rad, about the sensor's z (sines along its y).
        pattern: the sonar's pattern at each scatterer, both ways, the receive array's aside.

    Raises:
        ConfigurationError: a pulse, sampling or array the coherent model refuses.
    """

    def __init__(
        self, model: EchoModel, config: CoherentConfig, azimuths: ArrayLike, pattern: Pattern
    ) -> None:
        echo = model.config
        sines = np.sin(np.asarray(azimuths, dtype=np.float64))
        problem = coherent_problem(config, echo, sines.size)
        if problem:
            raise ConfigurationError(problem)
        self.model, self.config, self.pattern = model, config, pattern
        self._grid = sample_grid(config, echo)
        self.array = fan_array(config, echo.beam_width)
        problem = fan_array_problem(
            self.array, sines, echo.beam_width, given=bool(config.array_elements)
        )
        if problem:
            raise ConfigurationError(problem)
        self.density = formed_density(config, echo, self.array)
        pulse = config.transmitted
        noise = 0.0
        if config.noise:
            # The sonar equation's noise over the band, per element before the array's gain.
            power = noise_intensity(config.receiver_noise, echo.source_level, pulse.bandwidth)
            noise = power / pulse.effective_bandwidth / self.array.noise_gain()
        grid = self._grid
        setup = BeamSetup(
            self.array,
            sines,
            pulse,
            echo.speed_of_sound,
            grid.start,
            grid.interval,
            grid.count,
            grid.per_bin,
            noise_density=noise,
        )
        self.former = BeamFormer(setup)
        # A stored bin's noise: ``per_bin`` samples' worth, the band's share of it over the
        # echo's (``matched_filter.bin_intensity``).
        former = self.former
        self._noise_power = (
            former.noise_per_sample() * grid.per_bin * former.noise_share / former.share
        )
        self.rng = np.random.default_rng(echo.seed)
        self._absorption = echo.effective_absorption
        self.scatterers = ScattererCache()  # each entity's, in its frame, from ping to ping

    def farthest(self) -> float:
        """The farthest range an echo reaches the samples from, m: the window and the pulse."""
        echo = self.model.config
        return echo.max_range + self.config.pulse_duration * echo.speed_of_sound

    def main_lobe_sine(self) -> float:
        """Half the main lobe's width to its first null, in sine.

        ``1 / (N d)`` unshaded, ``2 / (N d)`` shaded (Hann, Hamming): how far past the outer
        beams the cast must reach for every beam to hear its whole main lobe.
        """
        array = self.array
        nulls = 1.0 if array.shading is Shading.NONE else 2.0
        return nulls / (array.elements * array.spacing)

    @property
    def grid(self) -> SampleGrid | None:
        """The baseband's sample grid."""
        return self._grid

    @property
    def noise_power(self) -> float:
        """The mean noise power per bin of a beam, linear (0: none)."""
        return self._noise_power

    def echoes(self, lit: LitSurfaces) -> CoherentPing:
        """The formed beams of the scatterers on the lit surfaces (and their seabed images)."""
        seabed = lit.seabed if self.config.seabed_images else None
        echoes = lit_echoes(
            lit,
            self.density,
            self.config.scatterer_seed,
            self._absorption,
            self.scatterers,
            heard=self._heard,
            objects=seabed is not None,
        )
        assert echoes.ranges is not None
        positions, amplitudes, ranges = echoes.positions, echoes.amplitudes, echoes.ranges
        if seabed is not None:
            seen, heard, at = self._images(lit, seabed, echoes)
            positions = np.concatenate([positions, seen])
            amplitudes = np.concatenate([amplitudes, heard])
            ranges = np.concatenate([ranges, at])
        formed = form_beams(
            self.former,
            positions,
            amplitudes,
            self.model.config.wavelength,
            rng=self.rng,
            ranges=ranges,
        )
        return CoherentPing(formed.intensity, formed.baseband, self._grid)

    def _images(
        self, lit: LitSurfaces, seabed: Looks, echoes: LitEchoes
    ) -> tuple[NDArray[np.float64], NDArray[np.complex128], NDArray[np.float64]]:
        """The objects' scatterers' image paths (``seabed_images``): where, amplitude, range.

        Each path placed where it seems to come from: in its arrival direction, at the range
        it is heard at (so the beam former steers to it and delays it there). The direct
        amplitudes without the pattern ``lit_echoes`` put in (it is above 0 on those heard).
        """
        assert echoes.ranges is not None
        rows, normals = echoes.objects or (np.zeros(0, dtype=np.intp), np.zeros((0, 3)))
        body, r = echoes.positions[rows], echoes.ranges[rows]
        direct = echoes.amplitudes[rows] / np.sqrt(self.pattern(body, r))
        images = seabed_images(
            lit.world_from_sensor,
            seabed,
            (body, normals, direct),
            self._one,
            (self._absorption, self.model.config.wavelength),
        )
        keep = np.flatnonzero(images.amplitudes != 0.0)
        arrivals, at = images.arrivals[keep], images.ranges[keep]
        unit = arrivals / np.sqrt(np.einsum('ij,ij->i', arrivals, arrivals))[:, None]
        return unit * at[:, None], images.amplitudes[keep], at

    def _one(self, body: NDArray[np.float64]) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """The fan as one channel (its array forms the beams): each point's pattern there."""
        r = np.sqrt(np.einsum('ij,ij->i', body, body))
        return np.zeros(r.size, dtype=np.intp), self.pattern(body, r)

    def _heard(self, body: NDArray[np.float64], r: NDArray[np.float64]) -> NDArray[np.float64]:
        """Each scatterer's pattern (``body`` (m, 3), ``r`` its range), 0 outside the grid.

        What the beam former would drop (``BeamFormer.span``) is dropped before the law.
        """
        weight = self.pattern(body, r)
        near, far = self.former.span
        weight[(r <= near) | (r >= far)] = 0.0
        return weight

    def ping(self, lit: LitSurfaces, binned: Callable[[], Echoes]) -> EchoRecord:
        """The record of one ping: the formed beams, the law binned when read."""
        coherent = self.echoes(lit)
        return EchoRecord(
            coherent.intensity, self.model.bin_edges, binned, coherent, self._noise_power
        )
