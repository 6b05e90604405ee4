"""One echo protocol, two engines: what every sonar calls once per ping.

A sonar casts its rays, puts what the cast gave into one ``Returns`` and hands it to its
engine, chosen once when the sonar is built (:func:`echo_engine`, from its settings); the
engine gives back one ``EchoRecord`` (``echo.records``): the image per beam and bin, the
rays' law binned (ranges, totals, hits, labels, confidence), and the complex baseband when
the engine forms one. No sonar asks which engine it has.

- ``IncoherentEngine``: the rays' intensities summed per bin (``model.py``), each return
  spread over its footprint where the sonar gives one, then smoothed by the pulse where the
  sonar asks for it (an echosounder's pulse window).
- ``CoherentEngine``: each returning ray a scatterer with phase (``coherent.py``); its image
  is the envelope's energy per bin (the pulse spreads each scatterer's echo, not a
  footprint). The law it bins for the ranges, totals, hits and labels is the incoherent
  engine's, footprints and all: what the rays return does not depend on how the image is
  formed, so both engines give the same ranges, totals and labels of a scene.

Both evaluate the law once per ping (``EchoModel.law``). What comes after the echo (the
imaging options, a device's display chain of gain, TVG and compression) is a stage that takes
the record; what comes before it (a cast wider than the beams, the surfaces' fixed
scatterers, a receive array forming the beams) enters through ``Returns`` and the engine's
construction, not through the sonars.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.echo.channel_echoes import ChannelEngine
from nps_sonar_py.echo.coherent import (
    Baseband,
    BasebandOf,
    CoherentConfig,
    CoherentModel,
    SampleGrid,
)
from nps_sonar_py.echo.config import EchoConfig
from nps_sonar_py.echo.formed_engine import FormedEngine, Pattern
from nps_sonar_py.echo.model import EchoModel
from nps_sonar_py.echo.records import Echoes, EchoRecord, ExtraReturns
from nps_sonar_py.echo.surface_echoes import LitSurfaces

__all__ = [
    'ArrayPatternEngine',
    'CoherentEngine',
    'ColumnBand',
    'EchoEngine',
    'IncoherentEngine',
    'NoBaseband',
    'Returns',
    'beam_coverage',
    'echo_engine',
    'formed_engine',
    'smooth',
]

F = NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class Returns:
    """What one ping's cast gives the echo: ``N`` beams of the model's ``n`` rays each.

    Attributes:
        ranges: (N, n) hit distance of each ray, m; inf on a miss.
        cos_incidence: (N, n) cosine of each hit's incidence.
        reflectivity: (N, n) or scalar Lambert coefficient of each hit (NaN on misses).
        origin: (3,) or (N n, 3) ray origins in the world, m.
        directions: (N n, 3) unit ray directions in the world.
        entity: (N, n) entity index of each hit, -1 on a miss, when labels are asked for.
        n_entities: the length of the label table ``entity`` indexes.
        extra: returns some rays add beside their own (multipath ghosts).
        footprint: the (N, n) slant extent of each return over its ray's cell, m, worked
            out when an engine spreads the returns (``EchoModel.echoes(spread=)``); ``None``
            for a sonar whose rays have no footprint.
        lit: the triangles the cast lit and the sensor's pose, for an engine over the
            surfaces' fixed scatterers (``formed_engine``, ``channel_echoes``), or one per
            sensor of an array of single beams; ``None`` from a caster that does not know
            its triangles.
    """

    ranges: NDArray[np.floating]
    cos_incidence: NDArray[np.floating]
    reflectivity: ArrayLike
    origin: NDArray[np.floating]
    directions: NDArray[np.floating]
    entity: NDArray[np.integer] | None = None
    n_entities: int = 0
    extra: ExtraReturns | None = None
    footprint: Callable[[], NDArray[np.floating]] | None = None
    lit: LitSurfaces | tuple[LitSurfaces, ...] | None = None


class EchoEngine(Baseband, Protocol):
    """The echo of a sonar's pings, one record per ping (module docstring).

    Its baseband's grid and noise as ``Baseband`` gives them.
    """

    model: EchoModel

    def ping(self, returns: Returns) -> EchoRecord:
        """The echo of one ping."""
        ...


class NoBaseband:
    """The grid and noise of an engine that forms no baseband: none, and no noise floor."""

    @property
    def grid(self) -> SampleGrid | None:
        """No baseband."""
        return None

    @property
    def noise_power(self) -> float:
        """No noise floor."""
        return 0.0


def smooth(profiles: F, m: int) -> F:
    """Each row's moving sum over a centred window of ``2 m + 1`` bins, over its width."""
    if m <= 0:
        return profiles
    padded = np.pad(profiles, ((0, 0), (m + 1, m)))
    total = np.cumsum(padded, axis=1)
    window: F = (total[:, 2 * m + 1 :] - total[:, : -2 * m - 1]) / (2 * m + 1)
    return np.maximum(window, 0.0)  # cumulative sums leave rounding below zero


class IncoherentEngine(NoBaseband):
    """The rays' intensities summed per beam and bin (``EchoModel``).

    Args:
        model: the law and the bins.
        pulse_bins: half-width in bins of the pulse window the image is smoothed by
            (``smooth``); 0: none.
    """

    def __init__(self, model: EchoModel, *, pulse_bins: int = 0) -> None:
        self.model = model
        self.pulse_bins = pulse_bins

    def ping(self, returns: Returns) -> EchoRecord:
        """The rays binned, each spread over its footprint where the sonar gives one."""
        footprint = returns.footprint
        echoes = self.model.echoes(
            returns.ranges,
            returns.cos_incidence,
            returns.reflectivity,
            entity=returns.entity,
            n_entities=returns.n_entities,
            extra=returns.extra,
            spread=None if footprint is None else footprint(),
        )
        image = smooth(echoes.intensity, self.pulse_bins)
        return EchoRecord(image, echoes.bin_edges, lambda: echoes)


@dataclass(frozen=True, eq=False)
class ColumnBand:
    """Some rows of every column of a fan's rays, heard through the array's pattern at them.

    Attributes:
        columns: the law and bins of those rows of one column.
        weights: (N, C) each beam's ``|AF|**2`` of each column at those rows' direction
            cosine (and the column's share of the fan).
        to_columns: turns a ping's (N, n) ray array into the (C, rows) arrays of the band.
    """

    columns: EchoModel
    weights: F
    to_columns: Callable[[NDArray[np.generic]], NDArray[np.generic]]


class ArrayPatternEngine(NoBaseband):
    """The incoherent image of a fan heard through its receive array's pattern.

    Each column of rays (one azimuth) is binned alone, band by band of its rows
    (``ColumnBand``: the rows whose direction cosines ``cos e sin a`` are close, a line
    array's beams being cones), with the vertical pattern; beam ``b`` hears a band of column
    ``c`` with the array's ``|AF(s_c - s_b)|**2``: every column into every beam, side lobes
    and all. With a transmit flat across the fan this is the two-way pattern of the formed
    fan (``formed_engine``), whose mean over scatterer seeds it is (``docs/beamforming.md``).
    The ranges, totals, hits and labels stay the rays' own law (``model``), as the other
    engines give them.

    Args:
        model: the fan's law and bins (its beams' rays).
        bands: the rows of the columns, each with its weights.
    """

    def __init__(self, model: EchoModel, bands: tuple[ColumnBand, ...]) -> None:
        self.model, self.bands = model, bands

    def ping(self, returns: Returns) -> EchoRecord:
        """Every band of every column binned, then heard by every beam through the pattern."""
        law = self.model.law(returns.ranges, returns.cos_incidence, returns.reflectivity)
        reflectivity = np.broadcast_to(law.reflectivity, law.ranges.shape)
        footprint = None if returns.footprint is None else np.asarray(returns.footprint())
        image: F = np.zeros((law.ranges.shape[0], self.model.bin_edges.size - 1))
        for band in self.bands:
            cols = band.to_columns
            column = band.columns.echoes(
                cols(law.ranges),
                cols(law.cos_incidence),
                cols(reflectivity),
                spread=None if footprint is None else cols(footprint),
            )
            image += band.weights @ column.intensity

        def binned() -> Echoes:
            return self.model.binned(
                law,
                entity=returns.entity,
                n_entities=returns.n_entities,
                extra=returns.extra,
                spread=footprint,
            )

        return EchoRecord(image, self.model.bin_edges, binned)


class CoherentEngine(BasebandOf):
    """The beams' complex baseband: over the fixed scatterers, or each ray a scatterer.

    A fan with a ``FormedEngine`` forms its beams by its array over the fixed scatterers of
    the surfaces its cast lit (``formed_engine.py``); a side-scan's ``ChannelEngine`` hears
    them with each channel's pattern (``channel_echoes.py``); the other kinds make each
    returning ray a scatterer with phase (``CoherentModel``).

    Args:
        model: the law and the bins (its law is the scatterers' intensities).
        coherent: the engine over the fixed scatterers, or the per-ray coherent model of
            the same beams.
    """

    coherent: CoherentModel | FormedEngine | ChannelEngine

    def __init__(
        self, model: EchoModel, coherent: CoherentModel | FormedEngine | ChannelEngine
    ) -> None:
        self.model = model
        self.coherent = coherent

    def ping(self, returns: Returns) -> EchoRecord:
        """The baseband of the ping; the rays' law binned as the incoherent engine does."""
        model = self.model
        law = model.law(returns.ranges, returns.cos_incidence, returns.reflectivity)

        def binned() -> Echoes:
            footprint = returns.footprint
            return model.binned(
                law,
                entity=returns.entity,
                n_entities=returns.n_entities,
                extra=returns.extra,
                spread=None if footprint is None else footprint(),
            )

        lit = returns.lit
        if isinstance(self.coherent, FormedEngine | ChannelEngine):
            if lit is None:
                raise ValueError(
                    'lit: the fixed scatterers need a caster that reports its triangles'
                )
            if isinstance(self.coherent, ChannelEngine):
                return self.coherent.ping(lit, binned)
            if isinstance(lit, tuple):
                raise ValueError('lit: a formed fan is one sensor')
            return self.coherent.ping(lit, binned)
        baseband = self.coherent.ping(
            law.intensities, law.ranges, returns.origin, returns.directions
        )
        return EchoRecord(
            baseband.intensity, model.bin_edges, binned, baseband, self.coherent.noise_power
        )


def formed_engine(
    engine: IncoherentEngine | CoherentEngine | ArrayPatternEngine,
) -> FormedEngine | None:
    """The formed fan's engine inside ``engine``, or ``None`` (incoherent, or per ray)."""
    if isinstance(engine, CoherentEngine) and isinstance(engine.coherent, FormedEngine):
        return engine.coherent
    return None


def beam_coverage(spacing: float, width: float) -> float:
    """The beam spacing over a beam's equivalent width, in (0, 1]; 1 for a beam of no width.

    The share of a beam's echo that is its own direction's (``line_array.leakage_matrix``).
    """
    return min(spacing / width, 1.0) if width > 0.0 else 1.0


def echo_engine(
    model: EchoModel,
    coherent: CoherentConfig | None,
    *,
    echo: EchoConfig | None = None,
    azimuths: ArrayLike | None = None,
    coverage: float = 1.0,
    pulse_bins: int = 0,
    pattern: Pattern | None = None,
) -> IncoherentEngine | CoherentEngine:
    """The engine of a sonar's settings: coherent when it has coherent settings, else incoherent.

    Args:
        model: the sonar's echo model (its rays, law and bins).
        coherent: the coherent settings, ``None`` for the incoherent engine.
        echo: the coherent model's echo configuration when not the model's (an
            echosounder's beams are as wide as the swath's across-track width).
        azimuths: the beams' axes, rad, for a receive array's leakage across beams
            (``CoherentModel``); ``None``: no leakage.
        coverage: the beam spacing over a beam's equivalent width, in (0, 1].
        pulse_bins: the incoherent engine's pulse window, half-width in bins.
        pattern: a fan's pattern at each scatterer (``formed_engine.Pattern``): its beams
            are then formed by its array over the fixed scatterers (``azimuths`` needed).

    Raises:
        ConfigurationError: a pulse, sampling or array the coherent model refuses.
    """
    if coherent is None:
        return IncoherentEngine(model, pulse_bins=pulse_bins)
    config = echo if echo is not None else model.config
    if pattern is not None and azimuths is not None:
        return CoherentEngine(model, FormedEngine(model, coherent, azimuths, pattern))
    return CoherentEngine(
        model, CoherentModel(coherent, config, azimuths=azimuths, coverage=coverage)
    )
