"""Echo intensity of one ping from the ray hits of a single-beam sonar or ultrasonic ranger.

The model (``docs/physics.md#the-model``, after Choi et al. 2021, Eqs. 3 and 7): a ray
``i`` at off-axis angle ``psi_i`` that stands for the solid angle ``dOmega_i`` and hits a
surface of Lambert coefficient ``mu_i`` at range ``r_i`` and incidence ``alpha_i`` returns

    I_i = B(psi_i)**n_way * mu_i * cos(alpha_i) * dOmega_i / r_i**2 * 10**(-2 a r_i / 10)

relative to the source intensity at 1 m (dimensionless once ``r`` is in metres), where ``B``
is the beam pattern (``beam.py``) and ``a`` the one-way absorption in dB/m
(``absorption.py``). ``cos(alpha)``, not ``cos**2``, is Lambert's ``mu cos**2(alpha) dS`` with
the ray footprint ``dS = r**2 dOmega / cos(alpha)``; ``1/r**2`` is two-way spherical spreading
of the ``1/r**4`` point-target law spread over the footprint. Weighting by ``dOmega`` makes
every output independent of the ray count.

Optional, for smooth surfaces in air (``Scattering.SPECULAR``): each ray returns
``mu_i K(alpha_i) dOmega_i / (2 r_i)**2`` (image source at ``2 r``), with ``mu`` read as the
power reflection coefficient ``|R|**2`` and ``K`` a von Mises-Fisher lobe about the surface
normal, normalised to 1 over the hemisphere. As the lobe narrows, a plane wall at distance
``D`` returns ``|R|**2 B(theta_n)**n_way / (2 D)**2``, ``theta_n`` the angle from the axis to
its normal (``docs/physics.md#specular-lobe``, test case T7). The lobe must span several rays.

Conventions, all documented on ``EchoConfig``:

* Range bins: ``n_bins`` equal bins from ``min_range`` to ``max_range``; a return at ``r`` goes
  to bin ``floor((r - min_range) / dr)``, ``r == max_range`` goes to the last bin, and ``r``
  outside ``[min_range, max_range]`` is dropped. A bin holds the SUM of its returns.
* A *return* is a ray inside the cast cone that hits something (finite range) and is not
  removed by the specular cut-off; the reflectivity plays no part in it.
* REP 117: no return in ``[min_range, max_range]`` gives ``+inf``; a return nearer than
  ``min_range`` gives ``-inf`` for every estimator.
* Reflectivity: ``mu`` per ray is the Lambert coefficient, usually
  ``reflectivity.lambert_from_retro`` of the hit object's ``laser_retro``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.background import beside
from nps_sonar_py.echo.beam import beam_intensity
from nps_sonar_py.echo.cell_spread import (
    CellGeometry,
    CellRamps,
    exact_cells,
    exact_pieces,
    grazing_parts,
    quadratic_ramps,
)
from nps_sonar_py.echo.config import (
    EchoConfig,
    RangeEstimator,
    Scattering,
)
from nps_sonar_py.echo.deposits import (
    DUMP_BINS,
    GUARD,
    WIDEST_BINS,
    Deposits,
    Layout,
    Ramps,
    box_ramps,
)
from nps_sonar_py.echo.labels import dominant_labels
from nps_sonar_py.echo.noise import coherent_speckle
from nps_sonar_py.echo.ray_cells import CHORD_WIDTHS, Pieces, RayCells, cell_pieces
from nps_sonar_py.echo.records import Echoes, ExtraReturns, Ping
from nps_sonar_py.records import refuse

__all__ = ['EchoModel', 'RayLaw', 'cos_incidence']

T = TypeVar('T', bound=np.generic)

#: An intensity loss of x dB is a factor 10**(-x / 10) = exp(-x ln(10) / 10).
_DB_TO_NEPER_INTENSITY = math.log(10.0) / 10.0

#: The range estimators that read the profile rather than the rays.
_PROFILE_ESTIMATORS = frozenset(
    {RangeEstimator.INTENSITY_WEIGHTED, RangeEstimator.FIRST_ABOVE_THRESHOLD}
)


def _filled(value: float | np.floating, dtype: np.dtype[T], size: int) -> NDArray[T]:
    """A read-only (size,) array of ``value``, to bound an array by (``np.fmin``, ``fmax``).

    numpy bounds an array by another array about five times as fast as by a scalar (its
    vectorised loops take no broadcast scalar); the same values either way. A cached block
    of the next power of two, sliced.
    """
    return _filled_block(float(value), dtype, 1 << max(size - 1, 0).bit_length())[:size]


@functools.lru_cache(maxsize=32)
def _filled_block(value: float, dtype: np.dtype[T], size: int) -> NDArray[T]:
    block: NDArray[T] = np.full(size, value, dtype=dtype)
    block.flags.writeable = False
    return block


def _drop_own(flat: NDArray[np.intp], m: int, taken: list[NDArray[np.intp]], dump: int) -> None:
    """Send the own deposits of the returns ``taken`` to the dump cells from ``dump``.

    Each return's two, ``flat[rows]`` and ``flat[m + rows]``, to the dump cells in turn:
    np.add.at's adds to one cell wait on one another.
    """
    for rows in taken:
        dumped = rows % DUMP_BINS
        dumped += dump
        flat[rows] = dumped
        flat[m + rows] = dumped


@dataclass(frozen=True, eq=False)
class RayLaw:
    """Each ray's echo of one ping by the law (``EchoModel.law``), with the rays it came from.

    Attributes:
        ranges, cos_incidence: (N, n) the rays' ranges (m) and incidence cosines, checked.
        reflectivity: (N, n) or scalar Lambert coefficients, checked.
        per_ray: (N, n) each ray's echo by the law, whatever became of the ray (NaN or
            anything on a miss: the binning drops those).
        returned: (N, n) the rays that return: a hit inside the cast cone and the specular
            cut-off, whatever its range.
    """

    ranges: NDArray[np.floating]
    cos_incidence: NDArray[np.floating]
    reflectivity: NDArray[np.floating]
    per_ray: NDArray[np.floating]
    returned: NDArray[np.bool_]

    @property
    def intensities(self) -> NDArray[np.floating]:
        """(N, n) each returning ray's echo, 0 for the others (the coherent model's input)."""
        out: NDArray[np.floating] = np.where(self.returned, self.per_ray, 0.0)
        return out


class EchoModel:
    """The echo model of one sensor configuration and one fixed ray pattern, built once.

    It precomputes the per-ray beam weight ``B(psi)**n_way dOmega`` and the bin layout, so
    that a ping is a few vectorised passes over the rays and one ``np.bincount``.
    :meth:`echoes` runs it over many beams that share the pattern (a multibeam fan, an array
    of sonars) in one pass: one flat ``bincount`` over ``beam * (n_bins + 1) + bin``;
    :meth:`ping` is its one-beam case.

    Args:
        config: the sensor configuration.
        off_axis: (n,) angle of each ray from the acoustic axis, radians, in [0, pi].
        solid_angle: (n,) solid angle each ray stands for, steradians, >= 0.
        pattern: (n,) beam weight of each ray in [0, 1], in place of ``B(off_axis)**n_way``
            (for example the pattern averaged over the ray's cell, or times a vertical
            pattern); ``None`` evaluates ``B(off_axis)**n_way``. ``off_axis`` still decides
            which rays are in the cast cone and in the -3 dB beam (``MEAN_IN_BEAM``).
        rng: random generator for the noise; by default ``default_rng(config.seed)``. The
            range-noise bias is drawn from it here, once, as gz-sensors does at load.
        cells: the angular cell of each ray (``ray_cells.RayCells``, a fan's): a spread
            return near an edge of the fan or the surface's normal is then placed by its
            whole cell, not by a box about its range (:meth:`echoes`).
        cell_height: the elevation height ``D`` of every ray's cell (a fan's rows), rad: a
            spread return is then laid over its cell's own interval with the echo law's
            density across it (``echo.cell_spread``), not evenly over a box about its range.

    Raises:
        ConfigurationError: the ray arrays are not (n,) finite arrays of valid values.

    >>> import math
    >>> from nps_sonar_py.echo import Absorption, BeamPattern
    >>> from nps_sonar_py.sensing.cone import cone_pattern
    >>> config = EchoConfig(beam_width=math.radians(25.0), pattern=BeamPattern.UNIFORM, n_way=1,
    ...                     absorption=Absorption.NONE, min_range=9.0, max_range=11.0, n_bins=20)
    >>> rays = cone_pattern(config.cast_half_angle, 10_000)
    >>> model = EchoModel(config, rays.off_axis, rays.solid_angle)
    >>> cos_psi = rays.directions[:, 0]  # a plane normal to the axis at 10 m: r = 10 / cos(psi)
    >>> echo = model.ping(10.0 / cos_psi, cos_psi, 1e-3)
    >>> round(echo.total * 1e6, 4)  # (pi / 2) (1 - cos(12.5 deg)**4) mu / R**2, times 1e6
    1.4372
    >>> echo.range, echo.confidence
    (10.0, 1.0)
    """

    def __init__(
        self,
        config: EchoConfig,
        off_axis: ArrayLike,
        solid_angle: ArrayLike,
        *,
        pattern: ArrayLike | None = None,
        rng: np.random.Generator | None = None,
        cells: RayCells | None = None,
        cell_height: float | None = None,
    ) -> None:
        if not isinstance(config, EchoConfig):
            refuse('config', 'must be an EchoConfig', config)
        psi = _ray_array('off_axis', off_axis)
        d_omega = _ray_array('solid_angle', solid_angle)
        if d_omega.shape != psi.shape:
            refuse('solid_angle', f'must have the shape of off_axis {psi.shape}', d_omega.shape)
        if not np.all((psi >= 0.0) & (psi <= math.pi)):
            refuse('off_axis', 'must be in [0, pi] radians', 'values outside')
        if not np.all(d_omega >= 0.0):
            refuse('solid_angle', 'must be >= 0 sr', 'negative values')
        if pattern is None:
            b = beam_intensity(config.pattern, psi, config.beam_width, config.n_way)
        else:
            b = _ray_array('pattern', pattern)
            if b.shape != psi.shape:
                refuse('pattern', f'must have the shape of off_axis {psi.shape}', b.shape)
            if not np.all((b >= 0.0) & (b <= 1.0)):
                refuse('pattern', 'must be in [0, 1]', 'values')
        self.config = config
        self.n_rays = int(psi.shape[0])
        in_cast = psi <= config.cast_half_angle
        self._in_cast: NDArray[np.bool_] | None = None if bool(in_cast.all()) else in_cast
        weight = b * d_omega
        weight[~in_cast] = 0.0
        self._beam_weight = weight
        # Summed with a mask, as in ``echoes``, so that a full cone gives a confidence of 1.
        self._beam_weight_total = float(np.sum(weight, where=in_cast))
        self._beam_solid_angle = np.where(in_cast & (psi <= 0.5 * config.beam_width), d_omega, 0.0)
        if config.scattering is Scattering.SPECULAR:
            kappa = config.specular_lobe_width**-2
            self._kappa = kappa
            # K(alpha) = kappa exp(kappa (cos alpha - 1)) / (2 pi (1 - exp(-kappa))) integrates
            # to 1 over the hemisphere; the image source sits at 2 r, hence the 1/4.
            self._factor = weight * (0.25 * kappa / (2.0 * math.pi * -math.expm1(-kappa)))
        else:
            self._factor = weight
        self._attenuation = 2.0 * config.effective_absorption * _DB_TO_NEPER_INTENSITY
        self._cos_critical = math.cos(config.critical_angle) if config.specular_cutoff else None
        edges = np.linspace(config.min_range, config.max_range, config.n_bins + 1)
        centres = 0.5 * (edges[:-1] + edges[1:])
        edges.flags.writeable = False
        centres.flags.writeable = False
        self.bin_edges: NDArray[np.float64] = edges
        self.bin_centres: NDArray[np.float64] = centres
        self._scale = config.n_bins / (config.max_range - config.min_range)
        self._rng = rng if rng is not None else np.random.default_rng(config.seed)
        self._bias = config.range_noise.draw_bias(self._rng) if config.range_noise.enabled else 0.0
        self._layouts: Layout | None = None  # the last N's
        if cells is not None and len(cells) != self.n_rays:
            refuse('cells', f'must describe the {self.n_rays} rays', len(cells))
        self._cells = cells
        refine_above = np.full(self.n_rays, 2.0, dtype=np.float32)
        if cells is not None:
            near = cells.near_normal_cos(CHORD_WIDTHS)
            refine_above = np.where(cells.edge, -1.0, near).astype(np.float32)
        self._refine_above = refine_above
        if cell_height is not None and not (math.isfinite(cell_height) and cell_height > 0.0):
            refuse('cell_height', 'must be finite and > 0 rad', cell_height)
        self._cell_height = cell_height

    def _layout(self, n_beams: int) -> Layout:
        """The flat layout of ``n_beams`` beams (``Layout``), built once for this ``N``.

        A sensor's beam count does not change between pings.
        """
        cached = self._layouts
        if cached is None or cached.n_beams != n_beams:
            n_bins = self.config.n_bins
            size = n_beams * self.n_rays
            offset = np.arange(0, n_beams * n_bins, n_bins, dtype=np.intp)
            dumps = np.arange(size, dtype=np.intp) % DUMP_BINS + n_beams * n_bins
            guarded = np.arange(n_beams, dtype=np.intp) * (n_bins + 2 * GUARD) + GUARD
            factor = np.tile(self._factor, n_beams)
            base = np.repeat(offset, self.n_rays) - dumps
            refine = np.tile(self._refine_above, n_beams)
            cached = Layout(
                n_beams, base, dumps, guarded, factor, factor.astype(np.float32), refine
            )
            self._layouts = cached
        return cached

    @property
    def range_bias(self) -> float:
        """The constant range-noise bias drawn at construction, m (0 without range noise)."""
        return self._bias

    @property
    def rng(self) -> np.random.Generator:
        """The model's random generator (seeded by ``config.seed``), for per-ping noise."""
        return self._rng

    def ping(
        self,
        ranges: ArrayLike,
        cos_incidence: ArrayLike,
        reflectivity: ArrayLike,
        rng: np.random.Generator | None = None,
        *,
        entity: ArrayLike | None = None,
        n_entities: int = 0,
        extra: ExtraReturns | None = None,
    ) -> Ping:
        """The echo of one ping from the hits of the model's rays: :meth:`echoes` of one beam.

        Args:
            ranges: (n,) hit distance of each ray, m; ``inf`` (or NaN) on a miss. float32 is
                kept as float32 in the per-ray passes.
            cos_incidence: (n,) cosine of the incidence angle, ``d . n`` with unoriented
                normals: its absolute value is used.
            reflectivity: (n,) or scalar Lambert coefficient ``mu`` of the surface hit, in
                [0, 1] (``SPECULAR``: power reflection coefficient); must be finite on hits,
                may be NaN on misses.
            rng: random generator for this ping's noise instead of the model's.
            entity: (n,) entity index of each ray's hit, -1 on a miss (``RayHits.entity``):
                the ping then carries ``labels`` (``echo.labels``).
            n_entities: the length of the label table ``entity`` indexes.
            extra: returns added to the same bins (multipath, :meth:`echoes`); beam 0.

        Returns:
            The ``Ping``.

        Raises:
            ValueError: an array does not have the shape (n,) of the model's rays.
        """
        shape = (self.n_rays,)
        r = self._per_ray('ranges', ranges, shape)
        cos = self._per_ray('cos_incidence', cos_incidence, shape)
        mu = self._reflectivity(reflectivity, shape)
        e = None if entity is None else np.asarray(entity).reshape(1, -1)
        row = mu if mu.ndim == 0 else mu[None]
        return self.echoes(
            r[None], cos[None], row, rng, entity=e, n_entities=n_entities, extra=extra
        ).beam(0)

    def echoes(
        self,
        ranges: ArrayLike,
        cos_incidence: ArrayLike,
        reflectivity: ArrayLike,
        rng: np.random.Generator | None = None,
        *,
        entity: ArrayLike | None = None,
        n_entities: int = 0,
        extra: ExtraReturns | None = None,
        spread: ArrayLike | None = None,
    ) -> Echoes:
        """The echoes of ``N`` beams sharing the model's rays, in one vectorised pass.

        Args:
            ranges: (N, n) hit distance of each beam's rays, m (see :meth:`ping`).
            cos_incidence: (N, n) cosine of the incidence angles.
            reflectivity: (N, n), (n,) or scalar Lambert coefficient (see :meth:`ping`).
            rng: random generator for this ping's noise instead of the model's. Noise is
                drawn for all beams at once: speckle for every return, then one gain per beam,
                then one range-noise value per beam with a finite range.
            entity: (N, n) entity index of each ray's hit, -1 on a miss: the echoes then
                carry ``labels`` (``echo.labels``).
            n_entities: the length of the label table ``entity`` indexes.
            extra: returns added to the same bins (multipath, ``ExtraReturns``); they count in
                the profile, its hits, totals, labels and the estimators that read the profile
                (``INTENSITY_WEIGHTED``, ``FIRST_ABOVE_THRESHOLD``), not in ``NEAREST``,
                ``MEAN_IN_BEAM`` or the confidence, which are the rays' own.
            spread: (N, n) slant extent ``e`` of each return, m: its echo (computed once,
                at ``r``) is spread evenly over ``[r - e/2, r + e/2]`` and deposited in the
                bins that interval overlaps, each taking the fraction of the interval inside
                it; a part outside the window is dropped, so a return just outside it still
                adds its share to the edge bin. ``e`` is held to ``[0, 64 bin widths]``; NaN
                and inf read as one bin width; ``e = 0`` bins as without ``spread``. With
                ``cells`` (the model's), the returns of edge cells and of cells near the
                normal are placed by their whole cell instead (``ray_cells``). ``hits`` then
                counts the returns whose interval overlaps a bin, and labels and speckle
                take each share as a return. Only the profile changes:
                ``NEAREST``, ``MEAN_IN_BEAM`` and the confidence read the rays' own ranges.

        Raises:
            ValueError: an array does not have the shape (N, n); ``extra`` with
                ``SPECULAR`` scattering.
        """
        r = np.asarray(ranges)
        if r.ndim != 2 or r.shape[1] != self.n_rays:
            msg = f'ranges: expected shape (N, {self.n_rays}), got {r.shape}'
            raise ValueError(msg)
        r = self._per_ray('ranges', r, r.shape)
        cos = self._per_ray('cos_incidence', cos_incidence, r.shape)
        mu = self._reflectivity(reflectivity, r.shape)
        e = None if entity is None else np.asarray(entity)
        if e is not None and e.shape != r.shape:
            msg = f'entity: expected shape {r.shape}, got {e.shape}'
            raise ValueError(msg)
        self._check_extra(extra)
        extent = None if spread is None else self._per_ray('spread', spread, r.shape)
        return self._echoes(r, cos, mu, rng, e, n_entities, extra, extent)

    def _echoes(
        self,
        r: NDArray[np.floating],
        cos_in: NDArray[np.floating],
        mu: NDArray[np.floating],
        rng: np.random.Generator | None,
        entity: NDArray[np.integer] | None = None,
        n_entities: int = 0,
        extra: ExtraReturns | None = None,
        spread: NDArray[np.floating] | None = None,
        *,
        per_ray: NDArray[np.floating] | None = None,
    ) -> Echoes:
        """The echoes of (N, n) rays: their deposits, one ``bincount``, the noise, the ranges.

        ``per_ray``: the rays' echoes by the law (:meth:`law`) when already evaluated.
        """
        cfg = self.config
        layout = self._layout(r.shape[0])
        # Spread returns are binned the same with labels or without (what is published never
        # changes what is measured): the labels come from deposits of their own.
        apart = spread is not None and entity is not None and not cfg.speckle
        # In place where it can be: each temporary is a pass over memory.
        with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
            if apart and per_ray is None:  # the law once for both sets of deposits
                factor = layout.factor32 if r.dtype == np.float32 else layout.factor
                per_ray = self._intensities(r, cos_in, factor.reshape(r.shape), mu)
            if spread is None:
                d = self._point_deposits(r, cos_in, mu, entity, layout, per_ray)
            else:
                own_entity = None if apart else entity
                d = self._spread_deposits(r, cos_in, mu, own_entity, spread, layout, per_ray)
        flat, weights, labelled = self._with_extra(d, extra)
        own = d.flat.size  # the rays' deposits; any extra ones after them count as hits
        generator = rng if rng is not None else self._rng  # drawn from only when noise is on
        intensity, labels = self._binned(d, flat, weights, labelled, n_entities, generator)
        if apart and spread is not None:  # the labels of the spread returns, from their pieces
            with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
                by_entity = self._spread_deposits(r, cos_in, mu, entity, spread, layout, per_ray)
            labels = self._labels(by_entity, *self._with_extra(by_entity, extra), n_entities)
        totals = intensity.sum(axis=1)
        size = d.dump + DUMP_BINS

        def count() -> NDArray[np.int64]:
            counted = d.counted()
            if counted is not None and own < flat.size:  # every extra deposit counts
                counted = np.concatenate((counted, np.ones(flat.size - own, dtype=np.bool_)))
            kept = flat if counted is None else flat[counted]
            if d.ramps is not None:  # the ramps' coverage, then a few point deposits
                counts = d.ramps.coverage()
                d.add_at(counts, kept, 1)
                return counts
            return d.bins_of(np.bincount(kept, minlength=size))

        def estimate() -> tuple[NDArray[np.float64], NDArray[np.float64]]:
            nearest, confidence, kept = d.stats()
            distance = np.where(
                nearest < cfg.min_range,
                -np.inf,
                self._estimate(r, kept, nearest, intensity, totals),
            )
            return distance, confidence

        hits_of = count
        if spread is None:  # now, while the beam statistics are worked out beside it
            hits = count()
            hits_of = lambda: hits  # noqa: E731
        return Echoes(
            intensity=intensity,
            bin_edges=self.bin_edges,
            bin_centres=self.bin_centres,
            totals=totals,
            source_level=cfg.source_level,
            labels=labels,
            _count_hits=hits_of,
            _beam_ranges=self._ranges_now_or_when_read(estimate, generator),
        )

    @staticmethod
    def _labels(
        d: Deposits,
        flat: NDArray[np.intp],
        weights: NDArray[np.floating],
        labelled: NDArray[np.integer] | None,
        n_entities: int,
    ) -> NDArray[np.uint16] | None:
        """The entity dominating each (beam, bin) cell of the deposits; None without entities."""
        if labelled is None:
            return None
        return dominant_labels(
            d.cells_of(flat), weights, labelled, d.n_beams, d.n_bins, n_entities
        )

    def _with_extra(
        self, d: Deposits, extra: ExtraReturns | None
    ) -> tuple[NDArray[np.intp], NDArray[np.floating], NDArray[np.integer] | None]:
        """The deposits' cells, weights and entities, any extra returns' after the rays'."""
        flat, weights, labelled = d.flat, d.weights, d.labelled
        if extra is not None and len(extra):
            extra_flat, extra_weight = self._extra(extra, d)
            flat = np.concatenate((flat, extra_flat))
            weights = np.concatenate((weights, extra_weight))
            if labelled is not None:
                other = extra.entity if extra.entity is not None else np.full(len(extra), -1)
                labelled = np.concatenate((labelled, other))
        return flat, weights, labelled

    def _binned(
        self,
        d: Deposits,
        flat: NDArray[np.intp],
        weights: NDArray[np.floating],
        labelled: NDArray[np.integer] | None,
        n_entities: int,
        generator: np.random.Generator,
    ) -> tuple[NDArray[np.float64], NDArray[np.uint16] | None]:
        """(N, n_bins) intensity of the deposits (with speckle and gain) and their labels.

        The labels are the physical echo's, before the speckle.
        """
        cfg = self.config
        size = d.dump + DUMP_BINS
        labels = None
        if d.ramps is not None:  # only without labels and speckle; np.add.at: no pass per bin
            intensity = d.ramps.profile()
            d.add_at(intensity, flat, weights)
        else:
            # With weights, bincount sums them (float64); numpy's stubs say intp whatever.
            weighted = cast('NDArray[np.float64]', np.bincount(flat, weights, size))
            weighted = weighted.astype(np.float64, copy=False)  # no deposit: int64 zeros
            labels = self._labels(d, flat, weights, labelled, n_entities)
            if cfg.speckle:
                kept_index = np.flatnonzero(flat < d.dump)  # every deposit kept, none dumped
                weighted = coherent_speckle(weights[kept_index], flat[kept_index], size, generator)
            intensity = d.bins_of(weighted)
        if cfg.gain_stddev > 0.0:
            gain = 1.0 + cfg.gain_stddev * generator.standard_normal(d.n_beams)
            intensity *= np.maximum(gain, 0.0)[:, None]
        return intensity, labels

    def _ranges_now_or_when_read(
        self,
        estimate: Callable[[], tuple[NDArray[np.float64], NDArray[np.float64]]],
        generator: np.random.Generator,
    ) -> Callable[[], tuple[NDArray[np.float64], NDArray[np.float64]]]:
        """The beams' (N,) ranges (m, REP 117) and confidence: ``estimate`` when read, or now.

        Now, not when read, with range noise or an estimator that reads the profile: the
        noise keeps its place in the generator's sequence, and an estimator reads the profile
        as it is now, not as a caller may have changed it.
        """
        cfg = self.config
        if not (cfg.range_noise.enabled or cfg.estimator in _PROFILE_ESTIMATORS):
            return estimate
        distance, confidence = estimate()
        if cfg.range_noise.enabled:
            # REP 117 holds after the noise too: a noisy reading below the window reads
            # -inf ("too close"), above it +inf ("nothing in range"), as the scanners do.
            distance = cfg.range_noise.apply_array(distance, self._bias, generator)
            distance[distance < cfg.min_range] = -np.inf
            distance[distance > cfg.max_range] = np.inf
        return lambda: (distance, confidence)

    def _extra(
        self, extra: ExtraReturns, d: Deposits
    ) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """Cells in ``d``'s layout (the first dump cell if dropped), intensities of ``extra``."""
        cfg = self.config
        n_bins = cfg.n_bins
        r = np.asarray(extra.range, dtype=np.float64)
        ray = np.asarray(extra.ray, dtype=np.intp)
        beam = np.asarray(extra.beam, dtype=np.intp)
        cos = np.abs(np.asarray(extra.cos_incidence, dtype=np.float64))
        with np.errstate(invalid='ignore', over='ignore', divide='ignore'):
            n_beams = d.n_beams
            kept = (r >= cfg.min_range) & (r <= cfg.max_range) & (beam >= 0) & (beam < n_beams)
            if self._in_cast is not None:
                kept &= self._in_cast[ray]
            if self._cos_critical is not None:
                kept &= cos >= self._cos_critical
            index = np.clip((r - cfg.min_range) * self._scale, 0, n_bins - 1)
            index = np.where(kept, index, 0.0).astype(np.intp)
            weight = self._factor[ray] * np.asarray(extra.gain, dtype=np.float64)
            weight *= np.asarray(extra.reflectivity, dtype=np.float64) * cos
            self._range_loss(weight, r)  # in place
        flat = np.where(kept, beam * d.stride + d.shift + index, d.dump)
        return flat, np.where(kept, weight, 0.0)

    def law(self, ranges: ArrayLike, cos_incidence: ArrayLike, reflectivity: ArrayLike) -> RayLaw:
        """Each ray's echo by the model's law (module docstring), evaluated once for a ping.

        What both echo engines start from (``echo.engine``): the incoherent one bins it
        (:meth:`binned`), the coherent one gives each returning ray its phase
        (:attr:`RayLaw.intensities`) and bins it for the ranges, hits and labels. Same
        arguments as :meth:`echoes` (ranges (N, n), float32 kept).
        """
        r = np.asarray(ranges)
        if r.ndim != 2 or r.shape[1] != self.n_rays:
            msg = f'ranges: expected shape (N, {self.n_rays}), got {r.shape}'
            raise ValueError(msg)
        r = self._per_ray('ranges', r, r.shape)
        cos = self._per_ray('cos_incidence', cos_incidence, r.shape)
        mu = self._reflectivity(reflectivity, r.shape)
        layout = self._layout(r.shape[0])
        factor = layout.factor32 if r.dtype == np.float32 else layout.factor
        with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
            returned = r < np.inf
            self._admit(returned, cos)
            per_ray = self._intensities(r, cos, factor.reshape(r.shape), mu)
        return RayLaw(r, cos, mu, per_ray, returned)

    def binned(
        self,
        law: RayLaw,
        rng: np.random.Generator | None = None,
        *,
        entity: ArrayLike | None = None,
        n_entities: int = 0,
        extra: ExtraReturns | None = None,
        spread: ArrayLike | None = None,
    ) -> Echoes:
        """:meth:`echoes` of ``law``'s rays (the law not evaluated again)."""
        e = None if entity is None else np.asarray(entity)
        if e is not None and e.shape != law.ranges.shape:
            msg = f'entity: expected shape {law.ranges.shape}, got {e.shape}'
            raise ValueError(msg)
        self._check_extra(extra)
        extent = None if spread is None else self._per_ray('spread', spread, law.ranges.shape)
        return self._echoes(
            law.ranges,
            law.cos_incidence,
            law.reflectivity,
            rng,
            e,
            n_entities,
            extra,
            extent,
            per_ray=law.per_ray,
        )

    def _check_extra(self, extra: ExtraReturns | None) -> None:
        """Refuse extra returns (multipath) unless the scattering is Lambert's."""
        if extra is not None and self.config.scattering is not Scattering.LAMBERT:
            msg = 'extra returns (multipath) need Lambert scattering'
            raise ValueError(msg)

    def ray_intensities(
        self, ranges: ArrayLike, cos_incidence: ArrayLike, reflectivity: ArrayLike
    ) -> NDArray[np.floating]:
        """(N, n) each ray's echo by the model's law, 0 where none returns (:meth:`law`).

        Every ray that hits something inside the cast cone and the specular cut-off,
        whatever its range (the coherent model windows the echoes itself, as its pulse
        spreads them); ``extra`` returns are not included.
        """
        return self.law(ranges, cos_incidence, reflectivity).intensities

    def _intensities(
        self,
        r: NDArray[np.floating],
        cos_in: NDArray[np.floating],
        factor: NDArray[np.floating],
        mu: NDArray[np.floating],
    ) -> NDArray[np.floating]:
        """Each return's echo, ``factor |cos| mu / r**2 exp(-2 a r)`` (module docstring).

        ``factor`` is the rays' ``B dOmega`` (with the specular lobe's constant), in the
        rays' shape; ``mu`` a scalar or that shape. Under the caller's errstate.
        """
        return self._range_loss(self._scattered(cos_in, factor, mu, r.dtype), r)

    def _scattered(
        self,
        cos_in: NDArray[np.floating],
        factor: NDArray[np.floating],
        mu: NDArray[np.floating],
        dtype: np.dtype[np.floating],
    ) -> NDArray[np.floating]:
        """``factor |cos| mu`` (or the specular lobe's), the part of the echo not in range."""
        cfg = self.config
        per_ray: NDArray[np.floating] = np.abs(cos_in).astype(
            np.result_type(dtype, cos_in), copy=False
        )
        if cfg.scattering is Scattering.SPECULAR:
            per_ray -= 1.0
            per_ray *= self._kappa
            np.exp(per_ray, out=per_ray)
        per_ray *= factor
        if mu.ndim and mu.dtype != per_ray.dtype:
            mu = mu.astype(per_ray.dtype)  # one cast instead of a mixed-type multiply
        per_ray *= mu
        return per_ray

    def _range_loss(
        self, per_ray: NDArray[np.floating], r: NDArray[np.floating]
    ) -> NDArray[np.floating]:
        """``per_ray / r**2 exp(-2 a r)`` in place: spreading and absorption to range ``r``.

        A return at zero range (``r**2`` below the smallest normal float: the ray starts on
        the surface it hits, a sonar touching a wall or inside a body) has no echo by the
        far-field law, which diverges there: 0, not inf (0 / 0, NaN, when its scattering is
        0), which would poison every bin a footprint or a ramp shares it with. It stays a
        return for the range (REP 117: nearer than ``min_range`` reads ``-inf``).
        """
        real = r.dtype.type
        scratch = r * r
        contact = scratch < real(np.finfo(r.dtype).tiny)
        with np.errstate(divide='ignore', invalid='ignore'):
            per_ray /= scratch
        if contact.any():
            per_ray[contact] = real(0.0)
        if self._attenuation > 0.0:
            np.multiply(r, real(-self._attenuation), out=scratch)
            per_ray *= np.exp(scratch, out=scratch)
        return per_ray

    def _returns(
        self, r: NDArray[np.floating], cos_in: NDArray[np.floating]
    ) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
        """Which rays return (module docstring), and which of those within the window."""
        cfg = self.config
        returned = r < np.inf  # hit something: NaN and inf are misses
        self._admit(returned, cos_in)
        return returned, returned & (r >= cfg.min_range) & (r <= cfg.max_range)

    def _admit(self, rays: NDArray[np.bool_], cos_in: NDArray[np.floating]) -> None:
        """Clear, in place, the rays outside the cast cone or past the specular cut-off."""
        if self._in_cast is not None:
            rays &= self._in_cast
        if self._cos_critical is not None:
            rays &= np.abs(cos_in) >= self._cos_critical

    def _point_deposits(
        self,
        r: NDArray[np.floating],
        cos_in: NDArray[np.floating],
        mu: NDArray[np.floating],
        entity: NDArray[np.integer] | None,
        layout: Layout,
        per_ray: NDArray[np.floating] | None = None,
    ) -> Deposits:
        """Every ray in its bin (``_bins``), the dropped ones in dump bins: ``N n`` deposits.

        ``per_ray``: the rays' echoes by the law when already evaluated (:meth:`law`).
        """
        cfg = self.config
        n_beams, n_bins = r.shape[0], cfg.n_bins
        returned, kept = self._returns(r, cos_in)
        # Beside the intensities: numpy releases the GIL in both; the bins first, as they
        # are needed first, then the beam statistics.
        bins = beside(r.size, lambda: self._bins(r, kept, layout))
        beam_stats = beside(r.size, lambda: self._beam_stats(r, returned, kept))
        if per_ray is None:
            factor = layout.factor32 if r.dtype == np.float32 else layout.factor
            per_ray = self._intensities(r, cos_in, factor.reshape(r.shape), mu)

        def stats() -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
            return (*beam_stats(), kept)

        return Deposits(
            flat=bins(),
            weights=per_ray.ravel(),
            labelled=None if entity is None else entity.ravel(),
            counted=lambda: None,
            n_beams=n_beams,
            n_bins=n_bins,
            stride=n_bins,
            shift=0,
            stats=stats,
        )

    def _spread_deposits(
        self,
        r: NDArray[np.floating],
        cos_in: NDArray[np.floating],
        mu: NDArray[np.floating],
        entity: NDArray[np.integer] | None,
        spread: NDArray[np.floating],
        layout: Layout,
        every: NDArray[np.floating] | None = None,
    ) -> Deposits:
        """Each live return spread over its interval: two deposits, near bin and next bin.

        ``every``: every ray's echo by the law when already evaluated (:meth:`law`).

        In bin units, ``u = e / dr``, the interval ``[a, a + u]`` with ``a = (r - r_min) / dr -
        u / 2``. Up to one bin wide (``_near_shares``): near bin ``k = floor(a)`` (``a ==
        n_bins``, a point at ``r_max``, in the last bin), its share ``min((k + 1 - a) / u, 1)``
        (a point interval: 1), the rest in bin ``k + 1``. Wider, or placed by its cell
        (``_refine``): one deposit per bin it covers (``_pieces``), after the others, or,
        without labels and speckle, a ramp (``_ramps``), in place of its two own; with
        ``cell_height``, by its cell (``_cell_spread``). Only the returns whose interval
        reaches the window are live, taken out by one index. A deposit outside the window
        (``k`` in ``[-2, n_bins + 1]``) lands in a guard bin and is dropped with it. A
        next-bin deposit with no share adds 0, not counted as a hit.
        """
        n_beams, n_bins = r.shape[0], self.config.n_bins
        real = r.dtype.type
        index, r_live, per_ray, live = self._live_returns(r, cos_in, mu, layout, spread, every)
        extent = spread.take(index)
        u = np.multiply(extent, real(self._scale), dtype=r.dtype)
        # Without labels or speckle, which take each piece as a return, the wide ones ramp.
        ramped = entity is None and not self.config.speckle
        refined, curved = self._placed(r_live, (index, live, cos_in), extent, u, ramped)
        wide = np.flatnonzero(u > real(1.0))
        wide_bins = u.take(wide)
        if wide.size and not (finite := wide_bins < real(np.inf)).all():  # inf: one bin
            wide, wide_bins = wide[finite], wide_bins[finite]
        pieces, wide, wide_bins = self._pieces(r_live, refined, wide, wide_bins, ramped)
        # Every live return takes its two own deposits, in place (no index of the live
        # returns); those the pieces and the ramps stand for are then dropped.
        m = r_live.size
        n_pieces = 0 if pieces is None else pieces.owner.size
        flat, weights, share = self._own_deposits(r_live, u, index, per_ray, n_pieces)
        taken = [wide] if pieces is None else [wide, pieces.owner]
        if curved is not None:
            taken.append(curved.taken)
        _drop_own(flat, m, taken, n_beams * (n_bins + 2 * GUARD))
        labelled = None if entity is None else np.tile(entity.take(index), 2)
        if pieces is not None:
            self._piece_deposits(pieces, index, per_ray, layout, (flat, weights), 2 * m)
            if labelled is not None and entity is not None:
                labelled = np.concatenate((labelled, entity.take(index.take(pieces.owner))))
        ramps = self._ramps(n_beams, (r_live, per_ray, index), (wide, wide_bins), curved)

        def stats() -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
            with np.errstate(invalid='ignore'):
                returned, kept = self._returns(r, cos_in)
            return (*self._beam_stats(r, returned, kept), kept)

        def counted() -> NDArray[np.bool_]:
            shared = share < real(1.0)
            return np.concatenate((np.ones(m, np.bool_), shared, np.ones(n_pieces, np.bool_)))

        return Deposits(
            flat=flat,
            weights=weights,
            labelled=labelled,
            counted=counted,
            n_beams=n_beams,
            n_bins=n_bins,
            stride=n_bins + 2 * GUARD,
            shift=GUARD,
            stats=stats,
            ramps=ramps,
        )

    def _placed(
        self,
        r_live: NDArray[np.floating],
        rays: tuple[NDArray[np.intp], NDArray[np.bool_], NDArray[np.floating]],
        extent: NDArray[np.floating],
        u: NDArray[np.floating],
        ramped: bool,
    ) -> tuple[Pieces | None, CellRamps | None]:
        """The live returns placed by their cells, and those left to curved ramps.

        ``rays``: the live returns' index, the (N, n) mask of them and every ray's cosine.
        Their widths ``u`` are set to 0 in place: they are not wide boxes.
        """
        index, live, cos_in = rays
        curved = None
        if self._cell_height is not None:
            refined, curved = self._cell_spread(r_live, extent, u, ramped)
        else:
            refined = self._refine(r_live, index, cos_in, live)
        real = u.dtype.type
        if refined is not None:
            u[refined.owner] = real(0.0)
        if curved is not None:
            u[curved.taken] = real(0.0)
        return refined, curved

    def _cell_spread(
        self,
        r_live: NDArray[np.floating],
        extent: NDArray[np.floating],
        u: NDArray[np.floating],
        ramped: bool,
    ) -> tuple[Pieces | None, CellRamps]:
        """The live returns placed by their cells (``cell_height``, ``echo.cell_spread``).

        Returns the pieces of those placed exactly and those left to quadratic ramps: the
        cells wider than a bin, the grazing ones cut into parts (none unless ``ramped``:
        labels and speckle take the pieces of a box); the others (at most a bin, finite
        footprints) keep their box.
        """
        height = self._cell_height
        assert height is not None
        real = u.dtype.type
        finite = np.flatnonzero(np.isfinite(extent) & (extent > real(0.0)))
        r = r_live.take(finite)
        tangent = extent.take(finite).astype(np.float64)
        tangent /= r
        tangent /= height
        exact = exact_cells(tangent, height)
        chosen = np.flatnonzero(exact)
        cells = CellGeometry.of(r[chosen], tangent[chosen], height, self._attenuation)
        parts = grazing_parts(cells) if ramped else np.zeros(chosen.size, dtype=np.intp)
        pieced, cut = np.flatnonzero(parts == 0), np.flatnonzero(parts)
        refined = None
        if pieced.size:
            cfg = self.config
            refined = exact_pieces(
                cells.take(pieced),
                finite.take(chosen.take(pieced)),
                min_range=cfg.min_range,
                scale=self._scale,
                n_bins=cfg.n_bins,
            )
        curved = np.flatnonzero(~exact & (u.take(finite) > real(1.0))) if ramped else finite[:0]
        return refined, CellRamps(
            finite[curved], tangent[curved], finite[chosen[cut]], cells.take(cut), parts[cut]
        )

    def _piece_deposits(
        self,
        pieces: Pieces,
        index: NDArray[np.intp],
        per_ray: NDArray[np.floating],
        layout: Layout,
        out: tuple[NDArray[np.intp], NDArray[np.float64]],
        start: int,
    ) -> None:
        """Write the pieces' bins and weights into ``out`` (flat, weights) from ``start``.

        A piece outside the window goes to a guard bin, dropped with it.
        """
        flat, weights = out
        bins = np.minimum(np.maximum(pieces.bin, -1), self.config.n_bins)
        beam = index.take(pieces.owner) // self.n_rays
        np.add(layout.guarded.take(beam), bins, out=flat[start:])
        np.multiply(per_ray.take(pieces.owner), pieces.fraction, out=weights[start:])

    def _own_deposits(
        self,
        r_own: NDArray[np.floating],
        u: NDArray[np.floating],
        index: NDArray[np.intp],
        echo: NDArray[np.floating],
        n_pieces: int,
    ) -> tuple[NDArray[np.intp], NDArray[np.float64], NDArray[np.floating]]:
        """The two deposits of each return ``p`` placed by its near bin (``_near_shares``).

        Args are (p,): range (m), width in bins, flat index in the (N, n) rays (sorted) and
        echo. Returns the (2 p + n_pieces,) cells (near bins, then next bins, then room for
        the pieces) and float64 weights (as bincount sums: float32 would cost one more pass
        there), and the (p,) near shares.
        """
        layout = self._layouts
        assert layout is not None
        k, share = self._near_shares(r_own, u)
        m = r_own.size
        flat = np.empty(2 * m + n_pieces, dtype=np.intp)
        # Each return's beam's first bin: the returns are in beam order (index is sorted).
        bounds = np.searchsorted(index, np.arange(layout.n_beams + 1) * self.n_rays)
        per_beam = bounds[1:] - bounds[:-1]
        flat[:m] = k  # a whole number
        flat[:m] += np.repeat(layout.guarded, per_beam)
        np.add(flat[:m], 1, out=flat[m : 2 * m])
        weights = np.empty(2 * m + n_pieces)
        np.multiply(echo, share, out=weights[:m])
        np.subtract(echo, weights[:m], out=weights[m : 2 * m])
        return flat, weights, share

    def _pieces(
        self,
        r_live: NDArray[np.floating],
        refined: Pieces | None,
        wide: NDArray[np.intp],
        wide_bins: NDArray[np.floating],
        ramped: bool,
    ) -> tuple[Pieces | None, NDArray[np.intp], NDArray[np.floating]]:
        """The live returns placed bin by bin (or None), and the wide ones left to ramp.

        Those of cells near an edge or the normal (``refined``, ``_refine``), then, unless
        ``ramped``, the other ones wider than a bin (``_wide_pieces``); ``owner`` indexes the
        live returns. Ramped, those wider ones are returned (their live indices and widths in
        bins) for :meth:`_ramps` instead (none otherwise).
        """
        parts = [] if refined is None else [refined]
        if wide.size and not ramped:
            parts.append(self._wide_pieces(r_live, wide_bins, wide))
            wide, wide_bins = wide[:0], wide_bins[:0]
        if len(parts) < 2:
            return (parts[0] if parts else None), wide, wide_bins
        joined = Pieces(
            *(
                np.concatenate([getattr(p, name) for p in parts])
                for name in ('owner', 'bin', 'fraction')
            )
        )
        return joined, wide, wide_bins

    def _ramps(
        self,
        n_beams: int,
        live: tuple[NDArray[np.floating], NDArray[np.floating], NDArray[np.intp]],
        wide: tuple[NDArray[np.intp], NDArray[np.floating]],
        cells: CellRamps | None,
    ) -> Ramps | None:
        """The ramps of the wide returns (boxes, order 1) or of a fan's cells (order 3).

        ``live``: the live returns' ranges, echoes and flat indices; ``wide``: the live
        indices of the wide ones and their widths ``> 1`` in bins (boxes about their ranges,
        ``deposits.box_ramps``, each shared between the bins it overlaps as ``_wide_pieces``
        would); ``cells``: a fan's cells (``cell_spread.quadratic_ramps``). None without any.
        """
        r_live, per_ray, index = live
        rows = wide[0] if cells is None or wide[0].size else cells.rows
        if not rows.size and (cells is None or not cells.cut_rows.size):
            return None
        cfg = self.config
        window = (cfg.min_range, self._scale, cfg.n_bins)
        r, echo = r_live.take(rows), per_ray.take(rows)
        beam = index.take(rows) // self.n_rays  # sorted, as index is
        if cells is None or wide[0].size:
            return box_ramps(r, wide[1], echo, beam, n_beams, window)
        assert self._cell_height is not None
        cut = cells.cut_rows
        return quadratic_ramps(
            r,
            cells.tangent,
            echo,
            beam,
            n_beams,
            height=self._cell_height,
            window=window,
            attenuation=self._attenuation,
            grazing=(cells.cut, cells.parts, per_ray.take(cut), index.take(cut) // self.n_rays),
        )

    def _live_returns(
        self,
        r: NDArray[np.floating],
        cos_in: NDArray[np.floating],
        mu: NDArray[np.floating],
        layout: Layout,
        spread: NDArray[np.floating],
        every: NDArray[np.floating] | None = None,
    ) -> tuple[NDArray[np.intp], NDArray[np.floating], NDArray[np.floating], NDArray[np.bool_]]:
        """The returns whose interval reaches the window, admitted (cast cone, cut-off).

        Within a bin of the window, or half their interval (at most ``WIDEST_BINS``, with
        ``cell_height`` 1.25 times it uncapped; NaN and inf: one bin) when that is more (the
        bounds against cached arrays, ``_filled``): a
        footprint wider than two bins just past the end of the window still lends the last
        bins their share.

        Returns their flat index in the (N, n) rays, their range (m) and echo
        (``_intensities``), (m,) each, and the (N, n) mask of them. Every ray's scattering
        ``factor |cos| mu`` is worked out (three vectorised passes, the misses' discarded),
        then one index picks the live ones: an index costs several such passes, and one of
        each input would take three; the range's loss is the live ones' alone.
        """
        cfg = self.config
        real = r.dtype.type
        bin_width = real(cfg.bin_width)
        # A fan's cells are not capped: their far end is up to 1.25 times farther than e / 2.
        cells = self._cell_height is not None
        if cells:
            reach = spread.astype(r.dtype)
            reach[reach == real(np.inf)] = bin_width  # inf reads as one bin
        else:
            widest = real(WIDEST_BINS) * bin_width
            bound = _filled(widest, r.dtype, r.size).reshape(r.shape)
            reach = np.minimum(spread, bound, dtype=r.dtype)
            reach[spread == real(np.inf)] = bin_width  # inf reads as one bin, not the cap
        reach *= real(0.625 if cells else 0.5)
        np.fmax(reach, _filled(bin_width, r.dtype, r.size).reshape(r.shape), out=reach)
        live = r >= real(cfg.min_range) - reach  # NaN is not live
        live &= r <= real(cfg.max_range) + reach  # nor inf
        self._admit(live, cos_in)
        index = np.flatnonzero(live)
        r_live = r.take(index)
        if every is not None:  # the law already evaluated (``law``)
            return index, r_live, every.take(index), live
        factor = (layout.factor32 if r.dtype == np.float32 else layout.factor).reshape(r.shape)
        per_ray = self._scattered(cos_in, factor, mu, r.dtype).take(index)
        return index, r_live, self._range_loss(per_ray, r_live), live

    def _near_shares(
        self, r_live: NDArray[np.floating], u: NDArray[np.floating]
    ) -> tuple[NDArray[np.floating], NDArray[np.floating]]:
        """(m,) near bin ``k`` (a whole number) and its share of each return's interval.

        The interval is ``u`` bins wide about the range, ``u`` clipped to [0, 1] in place (NaN
        and inf: one bin); the rest of the echo goes to bin ``k + 1``.
        """
        cfg = self.config
        real = r_live.dtype.type
        ones = _filled(1.0, u.dtype, u.size)
        np.fmin(u, ones, out=u)  # NaN and inf: one bin
        np.fmax(u, _filled(0.0, u.dtype, u.size), out=u)
        u += real(0.0)  # -0.0 (fmax keeps it against 0.0) to +0.0: x / -0.0 would be -inf
        if cfg.min_range:
            a = r_live - real(cfg.min_range)
            a *= real(self._scale)
        else:
            a = np.multiply(r_live, real(self._scale))  # the same rounding as (r - 0) * scale
        share = np.multiply(u, real(0.5))
        a -= share
        k = np.floor(a)
        k -= a == real(cfg.n_bins)  # k - 1 or k - 0: a bool subtracts as 1 or 0
        np.subtract(k, a, out=share)
        share += real(1.0)
        share /= u  # x / 0 -> inf -> 1 by fmin; 0 / 0 (a point at r_max) -> NaN -> 1
        np.fmin(share, ones, out=share)
        return k, share

    def _wide_pieces(
        self,
        r_live: NDArray[np.floating],
        wide_bins: NDArray[np.floating],
        wide: NDArray[np.intp],
    ) -> Pieces:
        """The pieces of the live returns ``wide``: one per bin the interval overlaps.

        Each interval is ``wide_bins`` > 1 bins wide (at most ``WIDEST_BINS``) about its
        return's range; a piece takes the part of the interval in its bin.
        """
        cfg = self.config
        width = np.minimum(wide_bins.astype(np.float64), WIDEST_BINS)
        centre = (r_live.take(wide).astype(np.float64) - cfg.min_range) * self._scale
        start, end = centre - 0.5 * width, centre + 0.5 * width
        first = np.floor(start)
        count = (np.ceil(end) - first).astype(np.intp)
        owner = np.repeat(np.arange(wide.size), count)
        offsets = np.arange(owner.size) - np.repeat(np.cumsum(count) - count, count)
        bins = first[owner] + offsets
        inside = np.minimum(end[owner], bins + 1.0) - np.maximum(start[owner], bins)
        return Pieces(wide[owner], bins.astype(np.intp), inside / width[owner])

    def _refine(
        self,
        r_live: NDArray[np.floating],
        index: NDArray[np.intp],
        cos_in: NDArray[np.floating],
        live: NDArray[np.bool_],
    ) -> Pieces | None:
        """The pieces of the returns of edge cells and cells near the normal, or None.

        Each is placed by its whole cell (``ray_cells.cell_pieces``). ``index`` is the live
        returns' flat index in the (N, n) rays, ``live`` their mask, ``cos_in`` every ray's.
        """
        cells = self._cells
        if cells is None:
            return None
        layout = self._layouts
        assert layout is not None
        special = np.abs(cos_in) >= layout.refine_above.reshape(cos_in.shape)
        special &= live
        rays = np.flatnonzero(special)
        if rays.size == 0:
            return None
        chosen = np.searchsorted(index, rays)  # their places among the live returns
        pieces = cell_pieces(
            r_live[chosen],
            cos_in.take(rays),
            rays % self.n_rays,
            cells,
            min_range=self.config.min_range,
            scale=self._scale,
            attenuation=self._attenuation,
            widest=int(WIDEST_BINS),
        )
        return Pieces(chosen[pieces.owner], pieces.bin, pieces.fraction)

    def _bins(
        self, r: NDArray[np.floating], kept: NDArray[np.bool_], layout: Layout
    ) -> NDArray[np.intp]:
        """The flat bin of every ray, ``beam * n_bins + bin``, in ray order.

        ``floor((r - r_min) / dr)``, ``r == r_max`` into the last bin; every ray not kept goes
        to a dump bin after the last beam's (``Layout.dumps``). No masked writes (slow on
        random masks): fmin and fmax also turn NaN and inf into valid bins, and the arithmetic
        then sends the dropped rays to the dump bins.
        """
        cfg = self.config
        n_bins = cfg.n_bins
        real = r.dtype.type
        scratch = r - real(cfg.min_range)
        scratch *= real(self._scale)
        np.fmin(scratch, n_bins - 1, out=scratch)
        np.fmax(scratch, 0, out=scratch)
        index = scratch.astype(np.intp)
        index += layout.base.reshape(r.shape)
        index *= kept
        index += layout.dumps.reshape(r.shape)
        flat: NDArray[np.intp] = index.ravel()
        return flat

    def _beam_stats(
        self, r: NDArray[np.floating], returned: NDArray[np.bool_], kept: NDArray[np.bool_]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(N,) nearest returned range (inf for none) and confidence of each beam.

        The confidence is the beam-weighted share of the rays kept. Runs beside the
        intensities (``background.beside``).
        """
        if self._in_cast is None and self._cos_critical is None:  # returned: r < inf
            with np.errstate(invalid='ignore'):
                nearest = np.fmin.reduce(r, axis=1).astype(np.float64)  # NaN (a miss) is skipped
            nearest[np.isnan(nearest)] = np.inf  # every ray NaN
        else:
            nearest = np.where(returned, r, np.inf).min(axis=1).astype(np.float64)
        total_weight = self._beam_weight_total
        if total_weight <= 0.0:
            return nearest, np.zeros(r.shape[0])
        # einsum, not @ (no BLAS threads right after a cast); a beam whose every ray
        # returned reads exactly 1 whatever the summation order.
        confidence = np.einsum('ij,j->i', kept, self._beam_weight) / total_weight
        in_cast = self._in_cast
        full = kept.all(axis=1) if in_cast is None else (kept == in_cast).all(axis=1)
        return nearest, np.where(full, 1.0, np.minimum(confidence, 1.0))

    def _estimate(
        self,
        r: NDArray[np.floating],
        kept: NDArray[np.bool_],
        nearest: NDArray[np.float64],
        intensity: NDArray[np.float64],
        totals: NDArray[np.float64],
    ) -> NDArray[np.float64]:
        """(N,) range of each beam by the configured estimator (before the too-close rule)."""
        cfg = self.config
        estimator = cfg.estimator
        if estimator is RangeEstimator.NEAREST:
            return np.where(nearest <= cfg.max_range, nearest, np.inf)
        with np.errstate(invalid='ignore', divide='ignore'):
            if estimator is RangeEstimator.MEAN_IN_BEAM:
                w = np.broadcast_to(self._beam_solid_angle, kept.shape)
                weight = np.sum(w, axis=1, where=kept)
                # inf * 0 on misses is masked out.
                mean = np.sum(r * w, axis=1, where=kept, dtype=np.float64) / weight
                return np.where(weight > 0.0, mean, np.inf)
            if estimator is RangeEstimator.INTENSITY_WEIGHTED:
                # einsum, not @: right after an Open3D cast, BLAS threads would wait for the cores.
                mean = np.einsum('ij,j->i', intensity, self.bin_centres) / totals
                return np.where(totals > 0.0, mean, np.inf)
            level = cfg.source_level + 10.0 * np.log10(intensity)
        above = (intensity > 0.0) & (level >= cfg.threshold_db)
        first = np.argmax(above, axis=1)
        return np.where(above.any(axis=1), self.bin_centres[first], np.inf)

    def _per_ray(
        self, name: str, values: ArrayLike, shape: tuple[int, ...]
    ) -> NDArray[np.floating]:
        array = np.asarray(values)
        if array.dtype != np.float32:
            array = array.astype(np.float64, copy=False)
        if array.shape != shape:
            msg = f'{name}: expected shape {_shape_text(shape)}, got {array.shape}'
            raise ValueError(msg)
        return array

    def _reflectivity(self, values: ArrayLike, shape: tuple[int, ...]) -> NDArray[np.floating]:
        mu = np.asarray(values)
        if mu.dtype != np.float32:
            mu = mu.astype(np.float64, copy=False)
        if mu.ndim != 0 and mu.shape not in (shape, shape[-1:]):
            expected = ' or '.join(_shape_text(s) for s in dict.fromkeys((shape, shape[-1:])))
            msg = f'reflectivity: expected a scalar or shape {expected}, got shape {mu.shape}'
            raise ValueError(msg)
        return mu


def _shape_text(shape: tuple[int, ...]) -> str:
    return f'({shape[0]},)' if len(shape) == 1 else str(shape)


def cos_incidence(directions: ArrayLike, normals: ArrayLike) -> NDArray[np.float64]:
    """Cosine of the incidence angle of each ray, ``|d . n|``, for unoriented unit normals.

    Args:
        directions: (n, 3) unit ray directions.
        normals: (n, 3) unit surface normals at the hits, either orientation (Open3D's
            ``primitive_normals``); rows of misses may hold anything.

    Returns:
        (n,) values in [0, 1].

    >>> cos_incidence([[1.0, 0.0, 0.0]], [[-0.6, 0.8, 0.0]]).tolist()
    [0.6]
    """
    d = np.asarray(directions)
    n = np.asarray(normals)
    cosine: NDArray[np.float64] = np.minimum(np.abs(np.einsum('ij,ij->i', d, n)), 1.0)
    return cosine


def _ray_array(name: str, values: ArrayLike) -> NDArray[np.float64]:
    try:
        array = np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        refuse(name, 'must be an array of numbers', type(values).__name__)
    if array.ndim != 1 or array.shape[0] < 1:
        refuse(name, 'must have shape (n,) with n >= 1', array.shape)
    if not np.all(np.isfinite(array)):
        refuse(name, 'must be finite', 'non-finite values')
    return array
