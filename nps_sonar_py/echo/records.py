"""What the echo returns (``EchoRecord``, ``Ping``, ``Echoes``) and what it takes beside the rays.

``EchoRecord`` is what an echo engine (``echo.engine``) gives a sonar for one ping, whichever
the engine; ``Echoes`` is the incoherent law binned over many beams at once (the record's
``law``), ``Ping`` the echo of one beam, ``ExtraReturns`` the returns some rays add beside
their own (multipath ghosts).

The units and conventions are those of ``echo.model`` (intensities relative to the source at
1 m, ranges in metres, REP 117 for the scalar range).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo.coherent import CoherentPing

__all__ = ['EchoRecord', 'Echoes', 'ExtraReturns', 'Ping']


@dataclass(frozen=True)
class Ping:
    """The echo of one ping.

    Attributes:
        intensity: (n_bins,) float64 sum of the returns in each range bin, linear, relative to
            the source intensity at 1 m.
        hits: (n_bins,) int64 number of returns in each bin.
        bin_edges: (n_bins + 1,) float64 bin edges from ``min_range`` to ``max_range``, m
            (read-only, shared between pings).
        bin_centres: (n_bins,) float64 bin centres, m (read-only, shared).
        total: sum of ``intensity``, linear.
        range: scalar range in m, REP 117: ``+inf`` no echo, ``-inf`` too close.
        confidence: fraction, in [0, 1], of the pattern-weighted cast solid angle
            ``sum(B**n_way dOmega)`` whose rays returned from inside ``[min_range, max_range]``.
            1 when a target fills the cast cone, 0 when nothing is in range; it does not depend
            on range, reflectivity or noise.
        source_level: SL in dB that ``level`` and ``total_level`` add.
        labels: (n_bins,) uint16 label of each bin (``echo.labels``: 1 + the index of the
            dominant entity, 0 for none) when the ping was given the rays' entities, else None.
    """

    intensity: NDArray[np.float64]
    hits: NDArray[np.int64]
    bin_edges: NDArray[np.float64]
    bin_centres: NDArray[np.float64]
    total: float
    range: float
    confidence: float
    source_level: float
    labels: NDArray[np.uint16] | None = None

    @property
    def level(self) -> NDArray[np.float64]:
        """(n_bins,) echo level per bin in dB, ``SL + 10 log10(I_k)``; ``-inf`` for empty bins."""
        with np.errstate(divide='ignore'):
            return self.source_level + 10.0 * np.log10(self.intensity)

    @property
    def total_level(self) -> float:
        """Echo level of the whole ping in dB, ``SL + 10 log10(total)``; ``-inf`` when silent."""
        return self.source_level + 10.0 * math.log10(self.total) if self.total > 0.0 else -math.inf


@dataclass(frozen=True, eq=False)
class Echoes:
    """The echoes of one ping of ``N`` beams that share one ray pattern: row ``j`` is beam ``j``.

    The fields are those of ``Ping`` with a leading beam axis (``Ping`` is one row of it).
    ``hits``, ``ranges`` and ``confidence`` are worked out when first read (a side-scan reads
    none of them), except that the ranges are worked out with the ping when range noise is on
    (so that its draw keeps its place in the generator's sequence) or the estimator reads the
    profile (``INTENSITY_WEIGHTED``, ``FIRST_ABOVE_THRESHOLD``: so that a caller changing
    ``intensity`` later cannot change them).

    Attributes:
        intensity: (N, n_bins) float64 sum of the returns per beam and range bin, linear.
        bin_edges: (n_bins + 1,) float64 bin edges, m (read-only, shared).
        bin_centres: (n_bins,) float64 bin centres, m (read-only, shared).
        totals: (N,) sum of each beam's ``intensity``.
        source_level: SL in dB.
        labels: (N, n_bins) uint16 labels (``Ping.labels``), or None.
        hits: (N, n_bins) int64 number of returns per beam and bin.
        ranges: (N,) scalar range of each beam, m, REP 117.
        confidence: (N,) each beam's confidence, in [0, 1] (``Ping.confidence``).
    """

    intensity: NDArray[np.float64]
    bin_edges: NDArray[np.float64]
    bin_centres: NDArray[np.float64]
    totals: NDArray[np.float64]
    source_level: float
    _count_hits: Callable[[], NDArray[np.int64]] = field(repr=False)
    _beam_ranges: Callable[[], tuple[NDArray[np.float64], NDArray[np.float64]]] = field(repr=False)
    labels: NDArray[np.uint16] | None = None

    @functools.cached_property
    def hits(self) -> NDArray[np.int64]:
        """(N, n_bins) int64 number of returns per beam and bin."""
        return self._count_hits()

    @functools.cached_property
    def _ranges_and_confidence(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return self._beam_ranges()

    @property
    def ranges(self) -> NDArray[np.float64]:
        """(N,) scalar range of each beam, m, REP 117."""
        return self._ranges_and_confidence[0]

    @property
    def confidence(self) -> NDArray[np.float64]:
        """(N,) each beam's confidence, in [0, 1] (``Ping.confidence``)."""
        return self._ranges_and_confidence[1]

    def __len__(self) -> int:
        return int(self.totals.shape[0])

    def beam(self, j: int) -> Ping:
        """The ``Ping`` of beam ``j``."""
        return _beam_ping(self, j, self.intensity[j], float(self.totals[j]))


@dataclass(frozen=True, eq=False)
class ExtraReturns:
    """Returns some rays add beside their own echo (multipath ghosts): flat arrays of shape (m,).

    Return ``i`` carries the energy of pattern ray ``ray[i]`` and is heard in beam ``beam[i]``
    at the equivalent range ``range[i]`` (half its path length, ``docs/multipath.md``). Its
    intensity is the model's law at that range, scaled by ``gain``::

        factor(ray) * gain * mu * |cos| / range**2 * 10**(-2 a range / 10)

    with ``factor`` the ray's ``B**n_way dOmega``: ``gain`` holds every path-specific factor
    (receive-pattern ratio, reflection losses, spreading correction). Lambert scattering only.

    Attributes:
        ray: index of the ray in the model's pattern, in [0, n).
        beam: beam the return is heard in, in [0, N).
        range: equivalent range, m; outside the window (or not finite) it is dropped.
        gain: >= 0, multiplies the ray's weight.
        reflectivity: Lambert coefficient ``mu`` of the scatterer.
        cos_incidence: the Lambert cosine of the scatterer.
        entity: entity index of the scatterer, -1 for none (labels), or ``None``.
    """

    ray: NDArray[np.intp]
    beam: NDArray[np.intp]
    range: NDArray[np.float64]
    gain: NDArray[np.float64]
    reflectivity: NDArray[np.float64]
    cos_incidence: NDArray[np.float64]
    entity: NDArray[np.int64] | None = None

    def __len__(self) -> int:
        return int(self.range.shape[0])


@dataclass(frozen=True, eq=False)
class EchoRecord:
    """The echo of one ping of ``N`` beams, as either engine gives it (``echo.engine``).

    One record whichever the engine: a sonar reads its image from ``intensity``, its ranges,
    hits, labels and confidence from ``law`` (the rays' law binned, each ray a point return
    or spread over its footprint by the incoherent engine), and the complex baseband from
    ``coherent`` when the engine forms one. Stages after the echo (the imaging options today;
    a device's display chain: gain, TVG, compression) take the record and leave it as it is.

    Attributes:
        intensity: (N, n_bins) float64 the image per beam and range bin, linear, relative to
            the source at 1 m: the incoherent engine's sums, or the coherent engine's
            envelope energy.
        bin_edges: (n_bins + 1,) float64 bin edges, m (read-only, shared).
        coherent: the coherent engine's ping (``CoherentPing``: the complex baseband per
            beam and its sample grid); ``None`` from the incoherent engine.
        noise_power: the receiver's mean noise power per bin in ``intensity``, linear
            (0: no noise floor).
    """

    intensity: NDArray[np.float64]
    bin_edges: NDArray[np.float64]
    _law: Callable[[], Echoes] = field(repr=False)
    coherent: CoherentPing | None = None
    noise_power: float = 0.0

    @functools.cached_property
    def law(self) -> Echoes:
        """The rays' law binned (``Echoes``): ranges, totals, hits, labels, confidence.

        Worked out when first read where the engine can defer it (a side-scan without
        labels reads none of it).
        """
        return self._law()

    @functools.cached_property
    def totals(self) -> NDArray[np.float64]:
        """(N,) each beam's image total, ``intensity.sum(axis=1)``."""
        totals: NDArray[np.float64] = self.intensity.sum(axis=1)
        return totals

    def __len__(self) -> int:
        return int(self.intensity.shape[0])

    def beam(self, j: int) -> Ping:
        """Beam ``j``'s ``Ping``: the image's row and total, the law's range, hits and labels."""
        return _beam_ping(self.law, j, self.intensity[j], float(self.totals[j]))


def _beam_ping(law: Echoes, j: int, intensity: NDArray[np.float64], total: float) -> Ping:
    """Beam ``j``'s ``Ping`` of ``intensity`` and ``total``, with ``law``'s range, hits, labels."""
    return Ping(
        intensity=intensity,
        hits=law.hits[j],
        bin_edges=law.bin_edges,
        bin_centres=law.bin_centres,
        total=total,
        range=float(law.ranges[j]),
        confidence=float(law.confidence[j]),
        source_level=law.source_level,
        labels=None if law.labels is None else law.labels[j],
    )
