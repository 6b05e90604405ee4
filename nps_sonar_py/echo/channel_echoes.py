"""The coherent echo of transducers that are one beam each, over the fixed scatterers.

A side-scan's port and starboard channels are each one transducer, one beam: no array forms
beams across them. Each channel hears the scatterers fixed on the surfaces its cast lit
(``surface_echoes.py``, the same scatterers a formed fan hears), through its own pattern:
scatterer ``j`` at the true range ``r_j`` with the amplitude

    a_j = xi_j sqrt(I_j P_j) exp(2 i k r_j),

``xi_j`` its fixed unit complex Gaussian, ``I_j`` its area's law (``surface_echoes``:
``mu cos(alpha)**2 A / r**4`` with absorption; ``mu`` the reflectivity of the ray that sees
it, :class:`SeenSurfaces`, so a seabed's law follows its grazing angle), ``P_j`` the
channel's two-way pattern at its direction. The channel's baseband after the matched filter
is ``sum_j a_j R(t - 2 r_j / c)``, deposited by the pulse's table
(``CoherentModel.scatterer_ping``), with the receiver's noise and the bins' energy as the
per-ray model has them. The mean over scatterer seeds is the incoherent image with the same
pattern (``docs/coherent.md``). With ``seabed_images`` (the default) the scatterers of objects
over a seabed are also heard by their images in it (``seabed_images.py``), where the
lighting says what lies below them (:attr:`LitSurfaces.seabed`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo.coherent import BasebandOf, CoherentConfig, CoherentModel
from nps_sonar_py.echo.entity_scatterers import ScattererCache
from nps_sonar_py.echo.fixed_scatterers import default_density
from nps_sonar_py.echo.model import EchoModel
from nps_sonar_py.echo.records import Echoes, EchoRecord
from nps_sonar_py.echo.seabed_images import Images, Looks, seabed_images
from nps_sonar_py.echo.surface_echoes import LitEchoes, LitSurfaces, lit_echoes

__all__ = ['ChannelEngine', 'ChannelPattern', 'SeenSurfaces', 'channel_density']

#: The channel that hears each scatterer (m, 3 in the sensor frame) and its two-way pattern.
ChannelPattern = Callable[[NDArray[np.float64]], tuple[NDArray[np.intp], NDArray[np.float64]]]


@dataclass(frozen=True, eq=False)
class SeenSurfaces(LitSurfaces):
    """What a cast lit, each scatterer taking the reflectivity of the ray that sees it.

    A seabed's law (``seabed.seabed_reflectivity``: its sediment's backscatter at the
    grazing angle, its ripples and texture) is handed ray by ray in the hits' reflectivity;
    a triangle's one value (``lit_echoes``'s, from one of its hits) would hold a whole
    seabed's swath at one grazing angle. So ``reflectivity`` is 1 on every ray here, and
    ``seen_reflectivity(body, r)`` gives each scatterer (m, 3 in the sensor's frame, at
    ranges (m,)) the reflectivity of the ray whose cell holds its direction: NaN where that
    ray hit nothing (the scatterer is then not heard).
    """

    seen_reflectivity: Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.float64]]


def channel_density(config: CoherentConfig, model: EchoModel, beam_width: float) -> float:
    """Scatterers per m2: ``scatterer_density``, or 4 in a resolution cell.

    The cell ``c / (2 B) x r w`` at a quarter of the range window or its near end if farther
    (``fixed_scatterers.default_density``; ``w`` the channel's -3 dB width along track).
    """
    if config.scatterer_density > 0.0:
        return config.scatterer_density
    echo = model.config
    reference = max(echo.min_range, 0.25 * echo.max_range)
    resolution = config.transmitted.resolution(echo.speed_of_sound)
    return default_density(resolution, beam_width, reference)


class ChannelEngine(BasebandOf):
    """Channels of one beam each over the fixed scatterers of the lit surfaces.

    Args:
        model: the law and the bins (the ranges, totals, hits and labels).
        config: the coherent settings (pulse, sampling, density, seed, noise).
        pattern: each scatterer's channel and that channel's two-way pattern there.
        channels: how many channels the ping has.
        beam_width: a channel's -3 dB width across its resolution cell, rad (the default
            density's).

    Raises:
        ConfigurationError: a pulse or sampling the coherent model refuses.
    """

    coherent: CoherentModel

    def __init__(
        self,
        model: EchoModel,
        config: CoherentConfig,
        pattern: ChannelPattern,
        channels: int,
        beam_width: float,
    ) -> None:
        self.model, self.config, self.pattern, self.channels = model, config, pattern, channels
        self.coherent = CoherentModel(config, model.config)
        self.density = channel_density(config, model, beam_width)
        self._absorption = model.config.effective_absorption
        self.scatterers = ScattererCache()  # each entity's, in its frame, from ping to ping

    def farthest(self) -> float:
        """The farthest range an echo reaches the samples from, m: the window and the pulse."""
        echo = self.model.config
        return echo.max_range + self.config.pulse_duration * echo.speed_of_sound

    def ping(
        self, lit: LitSurfaces | tuple[LitSurfaces, ...], binned: Callable[[], Echoes]
    ) -> EchoRecord:
        """The record of one ping: every channel's baseband, the law binned when read.

        ``lit``: what the cast lit, in one sensor's frame, or one per sensor (an array of
        single beams): sensor ``k``'s channels are then offset by ``k``.
        """
        beams, ranges, amplitudes = [], [], []
        for k, part in enumerate(lit if isinstance(lit, tuple) else (lit,)):  # per sensor
            seabed = part.seabed
            mirrored = self.config.seabed_images and seabed is not None
            echoes = lit_echoes(
                part,
                self.density,
                self.config.scatterer_seed,
                self._absorption,
                self.scatterers,
                objects=mirrored,
            )
            channel, weight = self.pattern(echoes.positions)
            keep = np.flatnonzero(weight > 0.0)
            body = echoes.positions[keep]
            r = np.sqrt(np.einsum('ij,ij->i', body, body))
            weight = weight[keep]
            if isinstance(part, SeenSurfaces):
                weight *= np.nan_to_num(part.seen_reflectivity(body, r), nan=0.0)
            beams.append(channel[keep] + k)
            ranges.append(r)
            amplitudes.append(echoes.amplitudes[keep] * np.sqrt(weight))
            if mirrored and isinstance(part, SeenSurfaces) and seabed is not None:
                images = self._images(part, seabed, echoes)
                beams.append(images.channels + k)
                ranges.append(images.ranges)
                amplitudes.append(images.amplitudes)
        coherent = self.coherent.scatterer_ping(
            np.concatenate(beams),
            np.concatenate(ranges),
            np.concatenate(amplitudes),
            self.channels,
        )
        return EchoRecord(
            coherent.intensity, self.model.bin_edges, binned, coherent, self.noise_power
        )

    def _images(self, part: SeenSurfaces, seabed: Looks, echoes: LitEchoes) -> Images:
        """The echoes of the objects' scatterers' images in the seabed (``seabed_images``)."""
        rows, normals = echoes.objects or (np.zeros(0, dtype=np.intp), np.zeros((0, 3)))
        body = echoes.positions[rows]
        r = np.sqrt(np.einsum('ij,ij->i', body, body))
        mu = np.nan_to_num(part.seen_reflectivity(body, r), nan=0.0)
        direct = echoes.amplitudes[rows] * np.sqrt(mu)
        return seabed_images(
            part.world_from_sensor,
            seabed,
            (body, normals, direct),
            self.pattern,
            (self._absorption, self.model.config.wavelength),
        )
