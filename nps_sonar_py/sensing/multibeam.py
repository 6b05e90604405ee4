"""A multibeam fan: N beams across a horizontal sector, all in one ping, each with an echo profile.

Geometry (body frame, x forward, REP 103): beam ``j`` points at azimuth ``a_j`` about +z,
from ``min_angle`` to ``max_angle``: evenly spaced in angle (``beam_spacing`` ``angle``, the
default: the ``LaserScan`` angles), evenly in the sine of the angle (``sine``: the bearings a
line array steers its beams to by phases, as a real multibeam's beamformer does), or at an
explicit table ``bearings``. Each beam is a fan: narrow in azimuth, ``vertical_width`` tall
in elevation. Each beam is a grid of rays built once: ``rays_horizontal`` columns across the
cast width ``2 * echo.cast_half_angle`` about its axis and ``rays_vertical`` rows across
``[-cast / 2, cast / 2]`` (``FanConfig.cast_width``: ``vertical_width``, or ``vertical_cast``
when set), at cell centres. A ray's solid angle is its cell's, ``d_a (sin e_hi - sin e_lo)``,
so the echo model's sums stay independent of the ray counts.

Beam pattern: the horizontal pattern is ``echo.pattern`` of the horizontal one-way -3 dB
width ``echo.beam_width``, a function of the ray's horizontal angle from the beam axis; the
vertical pattern is ``fan.vertical_pattern`` of the one-way -3 dB width ``vertical_width``
(``UNIFORM`` by default: flat, as Stonefish and DAVE leave it), a function of the elevation.
Each ray carries the product of both, each raised to ``echo.n_way`` and *averaged over the
ray's cell* (Gauss-Legendre, ``_NODES`` points per cell, elevation weighted by ``cos e``)
rather than taken at the cell's centre: a few columns then integrate the pattern closely
for targets that vary slowly across a cell (with the midpoint rule, 3 columns of the
two-way piston over its -3 dB width read 2 % high; averaged, within 0.01 %). The vertical cast
spans ``vertical_width`` by default: its -3 dB width, as the horizontal one does. With
``vertical_cast`` wider, the rows past the -3 dB edges carry the vertical pattern's skirt (its
main lobe's flanks and side lobes, both ways): a real transducer hears a seabed through them
nearer than its axis meets it, as the side-scan's ``cast_to_nadir`` does across track
(``docs/echo.md``). A ``UNIFORM`` pattern has no skirt: a wider cast hears nothing more.

Footprints: a ray's echo is spread over the slant-range interval its cell covers,
``e = r |t . n| / |d . n| d_e`` about its range (``t`` the ray's elevation tangent, ``n`` the
surface normal, ``d_e`` the cell's height): where the rows land more than a bin apart (far
along a seabed, ``r tan(alpha) d_e`` over a bin) a whole echo per bin would leave bins dark,
the ring moire of a Cartesian image. The echo model (``EchoModel(cell_height=d_e)``,
``echo.cell_spread``) lays each return over its cell's own interval on the plane it hit with
the echo law's density across it (``docs/echo.md``), not as a flat box about its range.

One ping casts all beams at once and runs the echo model over all of them in one pass
(``echo.EchoModel.echoes``); the imaging options (``echo.profile_effects``: time-varied gain,
speckle per cell, side-lobe leakage) then apply to the profiles. A gain law over
``echo.profile_effects.TVG_MAX_DB`` at ``max_range`` is refused when the sonar is built.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo import BeamPattern, EchoConfig, EchoModel, beam_intensity
from nps_sonar_py.echo.array_response import SteeredArray, fan_array_problem
from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.engine import (
    ArrayPatternEngine,
    CoherentEngine,
    ColumnBand,
    IncoherentEngine,
    Returns,
    echo_engine,
    formed_engine,
)
from nps_sonar_py.echo.labels import label_problem
from nps_sonar_py.echo.profile_effects import (
    ImagingConfig,
    Tvg,
    apply_imaging,
    tvg_gain,
    tvg_problem,
)
from nps_sonar_py.echo.records import EchoRecord
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.records import Record, check_record, setting
from nps_sonar_py.sensing.caster import RayHits, SurfaceCaster
from nps_sonar_py.sensing.fan_lighting import FanLighting, edge_azimuths
from nps_sonar_py.sensing.images import SectorGeometry
from nps_sonar_py.sensing.multipath import MultipathConfig, multipath_problem
from nps_sonar_py.sensing.posed_rays import PosedRays
from nps_sonar_py.sensing.scan import scan_directions

__all__ = [
    'MAX_BEAMS',
    'BeamSpacing',
    'FanConfig',
    'FanPing',
    'MultibeamSonar',
    'bearings_problem',
    'cell_means',
    'cone_bands',
    'pattern_problem',
]

#: Most beams of a fan (the bound of the ``beams`` setting too).
MAX_BEAMS = 100_000
#: Gauss-Legendre points per ray cell for the cell-averaged beam pattern.
_NODES = 16


class BeamSpacing(StrEnum):
    """How a fan's beam axes are spaced from ``min_angle`` to ``max_angle``.

    ``ANGLE``: evenly in angle. ``SINE``: evenly in ``sin(angle)``, as a line array steers its
    beams by phases (its beams are then the same pattern shifted in sine, docs/beamforming.md).
    """

    ANGLE = 'angle'
    SINE = 'sine'


@dataclass(frozen=True)
class FanConfig(Record):
    """The fan of a multibeam sonar, validated on creation (``ConfigurationError``).

    Attributes:
        beams: number of beams, >= 1.
        min_angle: azimuth of the first beam's axis, rad.
        max_angle: azimuth of the last beam's axis, rad, >= min_angle (one beam: their middle;
            more than one: > min_angle, as beams on one axis would make an empty image).
        vertical_width: the one-way -3 dB width of ``vertical_pattern`` across the elevation,
            rad, in (0, pi); the elevation extent cast unless ``vertical_cast`` is set.
        rays_horizontal: ray columns across a beam's cast width, >= 1.
        rays_vertical: ray rows across the elevation extent cast, >= 1.
        vertical_pattern: one-way intensity pattern across the elevation (``BeamPattern`` or
            its string value); ``UNIFORM`` (default) is flat.
        vertical_cast: full elevation extent cast, rad: 0 (default) casts the -3 dB
            ``vertical_width`` alone (a knife edge); wider, at least ``vertical_width``, casts
            the rows past the edges too, weighted by ``vertical_pattern``'s skirt both ways
            (what a real transducer hears there). ``rays_vertical`` rows span the cast.
        beam_spacing: the beam axes evenly in angle (``ANGLE``, default) or in its sine
            (``SINE``; the sector within +-90 degrees); see :class:`BeamSpacing`.
        bearings: an explicit table of the beam axes, rad (REP 103): ``beams`` of them,
            strictly increasing, within ``[min_angle, max_angle]``; it wins over
            ``beam_spacing``. Empty (default): ``beam_spacing``'s axes.
    """

    beams: int = setting(64, 'number of beams', 1, MAX_BEAMS)
    min_angle: float = -math.pi / 4
    max_angle: float = math.pi / 4
    vertical_width: float = setting(
        math.radians(20.0), 'vertical extent of a beam [rad]', 1e-6, math.pi
    )
    rays_horizontal: int = setting(3, 'ray columns across a beam', 1, 10_000)
    rays_vertical: int = setting(24, 'ray rows across a beam', 1, 10_000)
    vertical_pattern: BeamPattern = setting(BeamPattern.UNIFORM, 'one-way elevation pattern')
    vertical_cast: float = setting(
        0.0,
        "elevation extent cast, past the -3 dB width through the vertical pattern's skirt "
        '[rad] (0: the vertical width)',
        0.0,
        math.pi,
    )
    beam_spacing: BeamSpacing = setting(
        BeamSpacing.ANGLE, 'beam axes evenly in angle or in its sine (a line array steers so)'
    )
    bearings: tuple[float, ...] = setting(
        (),
        'the beam axes [rad], increasing, within min_angle..max_angle; empty: beam_spacing',
        longest=MAX_BEAMS,
    )

    def __post_init__(self) -> None:
        check_record(self)  # each field's bounds, declared once (the settings' too)
        problem = fan_problem(self.beams, self.min_angle, self.max_angle) or bearings_problem(
            self.beams, self.min_angle, self.max_angle, self.beam_spacing, self.bearings
        )
        if problem is None and 0.0 < self.vertical_cast < self.vertical_width:
            problem = (
                f'vertical_cast ({self.vertical_cast!r} rad) must be 0 or at least '
                f'vertical_width ({self.vertical_width!r} rad)'
            )
        if problem is None and self.beams * self.rays_horizontal * self.rays_vertical > 4_000_000:
            problem = 'more than 4000000 rays per ping'
        if problem:
            raise ConfigurationError(problem)

    @property
    def cast_width(self) -> float:
        """Full elevation extent the rows span, rad: ``vertical_cast``, or the -3 dB width."""
        return self.vertical_cast if self.vertical_cast > 0.0 else self.vertical_width

    @property
    def spacing(self) -> float:
        """Mean angle between neighbouring beam axes, rad (0 for one beam).

        The exact spacing when the axes are even in angle (a ``LaserScan``'s increment).
        """
        return (self.max_angle - self.min_angle) / (self.beams - 1) if self.beams > 1 else 0.0

    @property
    def scan_step(self) -> float:
        """The mean step from the first beam axis to the last, rad (0 for one beam).

        A ``LaserScan``'s ``angle_increment``: with ``angle_min`` the first axis its last angle
        is the last axis, for a table that starts or ends inside the sector too (``spacing``
        spans ``min_angle`` to ``max_angle``).
        """
        if self.beams == 1:
            return 0.0
        if self.bearings:
            return (self.bearings[-1] - self.bearings[0]) / (self.beams - 1)
        return self.spacing

    @property
    def uniform(self) -> bool:
        """Whether the beam axes are evenly spaced in angle (``spacing`` apart)."""
        if self.beams == 1:
            return True
        return not self.bearings and (self.beam_spacing is BeamSpacing.ANGLE or self.beams == 2)

    def azimuths(self) -> NDArray[np.float64]:
        """(beams,) azimuth of each beam's axis, rad: the table, or even in angle or sine."""
        if self.bearings:
            return np.array(self.bearings, dtype=np.float64)
        if self.beams == 1:
            return np.array([0.5 * (self.min_angle + self.max_angle)])
        if self.beam_spacing is BeamSpacing.SINE:
            sines = np.linspace(math.sin(self.min_angle), math.sin(self.max_angle), self.beams)
            return np.arcsin(sines)
        return np.linspace(self.min_angle, self.max_angle, self.beams)


def fan_problem(beams: int, min_angle: float, max_angle: float) -> str | None:
    """Why these beam axes are impossible, or ``None``.

    The beam count's own bounds are ``FanConfig.beams``' (declared once, checked by its record).
    """
    if not (math.isfinite(min_angle) and math.isfinite(max_angle)):
        return f'min_angle and max_angle must be finite, got {min_angle!r} and {max_angle!r}'
    if max_angle < min_angle:
        return f'max_angle ({max_angle!r}) must be >= min_angle ({min_angle!r})'
    if beams > 1 and max_angle == min_angle:
        # Spacing 0: every beam on one axis, and a Cartesian image with no pixel inside.
        return f'max_angle must be > min_angle for {beams} beams, got both {max_angle!r}'
    if max_angle - min_angle >= 2.0 * math.pi:
        return f'the fan must span less than a full turn, got {max_angle - min_angle!r} rad'
    return None


def bearings_problem(
    beams: int,
    min_angle: float,
    max_angle: float,
    spacing: BeamSpacing,
    bearings: tuple[float, ...],
) -> str | None:
    """Why these beam axes (``FanConfig.beam_spacing``, ``bearings``) are impossible, or ``None``.

    A table (finite: its record checks): ``beams`` bearings, strictly increasing, within
    ``[min_angle, max_angle]``.
    Sine spacing: the sector within +-90 degrees, where the sine increases with the angle.
    """
    if bearings:
        if len(bearings) != beams:  # before the table is built: its size is the first check
            return f'bearings: {len(bearings)} bearings for {beams} beams (one per beam)'
        table = np.asarray(bearings, dtype=np.float64)
        slack = 1e-9 * max(1.0, abs(min_angle), abs(max_angle))
        if np.any(np.diff(table) <= 0.0):
            return 'bearings: must be strictly increasing'
        first, last = float(table[0]), float(table[-1])
        if first < min_angle - slack or last > max_angle + slack:
            return (
                f'bearings: {first!r}..{last!r} rad is outside the field of view '
                f'min_angle..max_angle ({min_angle!r}..{max_angle!r} rad)'
            )
        return None
    if spacing is BeamSpacing.SINE and max(abs(min_angle), abs(max_angle)) > 0.5 * math.pi:
        return (
            'beam_spacing sine needs min_angle and max_angle within +-pi/2, got '
            f'{min_angle!r} and {max_angle!r} rad'
        )
    return None


def cone_bands(
    elevations: NDArray[np.float64], widest: float, array: SteeredArray
) -> list[NDArray[np.intp]]:
    """The rows of a column (``elevations``, rad) in bands of nearly equal ``cos e``.

    A line array hears the direction cosine ``cos e sin a``: within a band, ``cos e`` times
    the fan's ``widest`` ``|sin a|`` spans at most a fiftieth of the array's main lobe to its
    first null, ``1 / (N d)`` in sine (a flat fan, or a fan at broadside: one band). A
    coarser band moves energy across beams at the fan's sides: at a tenth, a range row of
    the inner beams of a fan of +-23 degrees lost 1 %.
    """
    step = 0.02 / (array.elements * array.spacing) / max(widest, 1e-12)
    key = np.floor((1.0 - np.cos(elevations)) / step).astype(np.int64)
    return [np.flatnonzero(key == k) for k in np.unique(key)]


def pattern_problem(array: SteeredArray, fan: FanConfig, echo: EchoConfig) -> str | None:
    """Why a fan cannot be heard through ``array``'s pattern, or ``None``.

    One beam has no array across beams; a grating lobe inside the fan is refused as the
    formed fan refuses it (``fan_array_problem``).
    """
    if fan.beams == 1:
        return 'fan_pattern array needs beams across a fan: one beam has no array across beams'
    return fan_array_problem(array, np.sin(fan.azimuths()), echo.beam_width, given=False)


def beam_cells(azimuths: NDArray[np.float64]) -> NDArray[np.float64]:
    """(N,) the azimuth each of at least two beam axes stands for, rad.

    The mean of the gaps to its neighbours, the outer beams their one gap (even axes: the
    spacing).
    """
    cells: NDArray[np.float64] = np.gradient(azimuths)
    return cells


def within_azimuths(body: NDArray[np.float64], low: float, high: float) -> NDArray[np.bool_]:
    """Whether directions ``body`` (m, 3) are ahead (``x > 0``) within azimuths ``[low, high]``.

    By the tangents while both are within 89 degrees (no angle per direction), else by angle.
    """
    x, y = body[:, 0], body[:, 1]
    if max(abs(low), abs(high)) < math.radians(89.0):
        ahead: NDArray[np.bool_] = (x > 0.0) & (y >= x * math.tan(low)) & (y <= x * math.tan(high))
        return ahead
    azimuth = np.arctan2(y, x)
    return (x > 0.0) & (azimuth >= low) & (azimuth <= high)


def _band_of_columns(
    beams: int, nv: int, nh: int, rows: NDArray[np.intp]
) -> Callable[[NDArray[np.generic]], NDArray[np.generic]]:
    """(N, nv nh) ray arrays to the (N nh, rows) arrays of the band ``rows`` of each column."""

    def to_columns(rays: NDArray[np.generic]) -> NDArray[np.generic]:
        by_row = rays.reshape(beams, nv, nh)[:, rows, :].transpose(0, 2, 1)
        return np.ascontiguousarray(by_row).reshape(beams * nh, rows.size)

    return to_columns


def cell_means(
    pattern: BeamPattern,
    width: float,
    n_way: int,
    edges: NDArray[np.float64],
    *,
    cosine: bool = False,
) -> NDArray[np.float64]:
    """Mean of ``B(|x|)**n_way`` over each cell ``[edges[i], edges[i + 1]]`` of angles x, rad.

    ``cosine`` weights the mean by ``cos x`` (solid angle across elevation). Gauss-Legendre
    with ``_NODES`` points per cell.
    """
    nodes, weights = np.polynomial.legendre.leggauss(_NODES)
    lo, hi = edges[:-1, None], edges[1:, None]
    x = 0.5 * (lo + hi) + 0.5 * (hi - lo) * nodes[None, :]
    w = weights[None, :] * (np.cos(x) if cosine else 1.0)
    b = beam_intensity(pattern, np.abs(x), width, n_way)
    means: NDArray[np.float64] = np.sum(b * w, axis=1) / np.sum(w, axis=1)
    return means


@dataclass(frozen=True, eq=False)
class FanPing:
    """The echoes of one multibeam ping, beam by beam (beam ``j`` at ``azimuths[j]``).

    ``ranges``, ``totals`` and ``confidence`` are the echo model's; ``profiles`` are the
    image, after the imaging options (``echo.profile_effects``: leakage, speckle, gain), so
    ``profiles.sum(axis=1) == totals`` only while those are off.

    Attributes:
        azimuths: (N,) beam axes, rad.
        ranges: (N,) range of each beam by the echo model's estimator, m, REP 117.
        totals: (N,) total intensity of each beam, linear, relative to the source at 1 m.
        confidence: (N,) the echo model's confidence per beam, 0..1.
        profiles: (N, n_bins) intensity per range bin, linear, after the imaging options.
        hits: (N, n_bins) returning rays per bin.
        bin_edges: (n_bins + 1,) m.
        labels: (N, n_bins) uint16 label per beam and bin (``echo.labels``: 1 + the index of
            the entity whose echo dominates, 0 for none), from the echo before the imaging
            options; None unless the sonar was built with ``label_entities``.
        echo: the ping's echo record (``echo.engine``), before the imaging options: its
            ``coherent`` baseband with the coherent engine.
    """

    azimuths: NDArray[np.float64]
    ranges: NDArray[np.float64]
    totals: NDArray[np.float64]
    confidence: NDArray[np.float64]
    profiles: NDArray[np.float64]
    hits: NDArray[np.int64]
    bin_edges: NDArray[np.float64]
    labels: NDArray[np.uint16] | None = None
    echo: EchoRecord | None = None


class MultibeamSonar(PosedRays):
    """N fan-shaped beams, their rays built once and cast together each ping.

    Args:
        echo: the echo model's configuration; ``beam_width`` is the horizontal width of a beam.
        fan: the beams.
        world_from_body: (4, 4) pose of the sensor's body frame (x forward) in the world.
        imaging: the image options (``echo.profile_effects``), off by default.
        label_entities: the length of the label table (the world's entities): every ping
            then carries ``labels``; ``None`` (default): no labels.
        multipath: ghost echoes (``sensing.multipath``), off by default. A ghost is heard in
            the beam whose axis is nearest in azimuth to the direction it arrives from.
        coherent: the coherent engine's settings (``echo.engine``); ``None`` (default): the
            incoherent engine. The ranges, totals, confidence, hits and labels are the law's
            (each return spread over its footprint by the incoherent engine, a point
            scatterer for the coherent one); multipath ghosts are not in the coherent
            profiles.
        array_pattern: the incoherent engine's horizontal pattern: this receive array's
            ``|AF|**2``, every column of rays heard by every beam (``ArrayPatternEngine``: the
            formed fan's mean image), in place of the rays' piston pattern; ``None``
            (default): the rays'. Not with ``coherent``.

    Raises:
        ConfigurationError: a time-varied gain over ``TVG_MAX_DB`` at ``echo.max_range``;
            a label table over the entity limit (``echo.labels.label_problem``); multipath
            with specular scattering; a pulse, sampling or array the coherent model refuses;
            an ``array_pattern`` over one beam or with a grating lobe in the fan.
    """

    def __init__(
        self,
        echo: EchoConfig,
        fan: FanConfig,
        world_from_body: NDArray[np.float64],
        *,
        imaging: ImagingConfig | None = None,
        label_entities: int | None = None,
        multipath: MultipathConfig | None = None,
        coherent: CoherentConfig | None = None,
        array_pattern: SteeredArray | None = None,
    ) -> None:
        self.echo = echo
        self.fan = fan
        self.array_pattern = array_pattern
        self.imaging = imaging if imaging is not None else ImagingConfig()
        self.label_entities = label_entities
        self.multipath = multipath if multipath is not None else MultipathConfig()
        # Checked first: nothing is built for a gain law whose gain would overflow.
        problem = self._problem(array_pattern)
        if problem:
            raise ConfigurationError(problem)
        half = echo.cast_half_angle
        nh, nv = fan.rays_horizontal, fan.rays_vertical
        d_a = 2.0 * half / nh
        columns = np.linspace(-half, half, nh + 1)  # cell edges across the beam
        offsets = 0.5 * (columns[:-1] + columns[1:])
        rows = np.linspace(-0.5, 0.5, nv + 1) * fan.cast_width
        elevations = 0.5 * (rows[:-1] + rows[1:])
        solid = d_a * np.diff(np.sin(rows))  # (nv,)
        horizontal = cell_means(echo.pattern, echo.beam_width, echo.n_way, columns)
        vertical = cell_means(
            fan.vertical_pattern, fan.vertical_width, echo.n_way, rows, cosine=True
        )
        off_axis = np.broadcast_to(np.abs(offsets)[None, :], (nv, nh)).ravel()
        solid_angle = np.broadcast_to(solid[:, None], (nv, nh)).ravel()
        weight = (vertical[:, None] * horizontal[None, :]).ravel()
        self.model = EchoModel(
            echo,
            off_axis,
            solid_angle,
            pattern=np.clip(weight, 0.0, 1.0),
            cell_height=fan.cast_width / nv,
        )
        self.rays_per_beam = nv * nh
        self.azimuths = fan.azimuths()
        self.azimuths.flags.writeable = False
        self.coherent = coherent
        # More than one beam: formed by the array (coherent); one: a ray cone's.
        several = self.azimuths if fan.beams > 1 else None
        self.engine: IncoherentEngine | CoherentEngine | ArrayPatternEngine = echo_engine(
            self.model, coherent, azimuths=several, pattern=self._scatterer_pattern
        )
        if array_pattern is not None and coherent is None:
            self.engine = self._array_engine(array_pattern, offsets, elevations, solid, vertical)
        self._reach = (-math.pi, math.pi)  # the transmit's azimuths: a formed fan's own below
        self._lighting = self._fan_lighting(offsets, elevations, d_a)
        gain = self.imaging.tvg is not Tvg.NONE
        self._gain = (
            tvg_gain(self.imaging.tvg, self.model.bin_centres, echo.effective_absorption)
            if gain
            else None
        )
        # (beams, nv * nh, 3): every beam's grid at its own azimuth, in the body frame.
        azimuth = (self.azimuths[:, None] + offsets[None, :]).ravel()
        grid = scan_directions(azimuth, elevations).reshape(nv, fan.beams, nh, 3)
        self.body_rays = np.ascontiguousarray(grid.transpose(1, 0, 2, 3)).reshape(-1, 3)
        # Each ray's elevation tangent d(direction) / d(elevation), for its footprint.
        tangent = scan_directions(azimuth, elevations + 0.5 * math.pi).reshape(
            nv, fan.beams, nh, 3
        )
        self._body_tangents = np.ascontiguousarray(tangent.transpose(1, 0, 2, 3)).reshape(-1, 3)
        self._cell_height = np.float32(fan.cast_width / nv)
        # Multipath: each ray's one-way pattern at its own direction in its own beam.
        beam_of_ray = np.repeat(np.arange(fan.beams), nv * nh)
        self._ray_pattern = self._one_way(beam_of_ray, self.body_rays)
        self.set_pose(world_from_body)

    def _problem(self, array_pattern: SteeredArray | None) -> str | None:
        """Why these settings make no sonar (the class docstring's ``Raises``), or ``None``."""
        echo = self.echo
        problem = tvg_problem(self.imaging.tvg, echo.max_range, echo.effective_absorption)
        if problem is None and self.label_entities is not None:
            problem = label_problem(self.label_entities)
        problem = problem or multipath_problem(echo, self.multipath)
        if problem is None and array_pattern is not None:
            problem = pattern_problem(array_pattern, self.fan, echo)
        return problem

    def _fan_lighting(
        self, offsets: NDArray[np.float64], elevations: NDArray[np.float64], d_a: float
    ) -> FanLighting | None:
        """A formed fan's lighting (``FanLighting``), ``None`` for the other engines.

        Its cast reaches past its outer beams to their main lobes' first nulls; so does its
        transmit (``_reach``, the azimuths the scatterers are lit within).
        """
        formed = formed_engine(self.engine)
        if formed is None:
            return None
        low, high = float(self.azimuths[0]), float(self.azimuths[-1])
        half = self.echo.cast_half_angle
        outer = edge_azimuths(low, high, half, d_a, formed.main_lobe_sine())
        columns = np.concatenate([self.azimuths + offsets[0], self.azimuths + offsets[-1], outer])
        self._reach = (float(columns.min()) - 0.5 * d_a, float(columns.max()) + 0.5 * d_a)
        return FanLighting(
            self.azimuths[:, None] + offsets[None, :],
            outer,
            elevations,
            d_a,
            self.fan.cast_width / elevations.size,
            formed.farthest(),
        )

    def _array_engine(
        self,
        array: SteeredArray,
        offsets: NDArray[np.float64],
        elevations: NDArray[np.float64],
        solid: NDArray[np.float64],
        vertical: NDArray[np.float64],
    ) -> ArrayPatternEngine:
        """The incoherent engine with ``array``'s pattern (``ArrayPatternEngine``).

        A column of rays: one azimuth ``a`` (``offsets`` about each beam's axis), its rows at
        ``elevations`` with their ``solid`` angles and ``vertical`` pattern. Beam ``b`` hears
        a ray with ``|AF(cos e sin a - sin a_b)|**2`` (the direction cosine along the array:
        its beams are cones), the rows grouped in bands of nearly equal ``cos e``
        (:func:`cone_bands`), each heard at its mean.
        """
        nv, nh, beams = solid.size, offsets.size, self.fan.beams
        azimuth = (self.azimuths[:, None] + offsets[None, :]).ravel()
        sines = np.sin(azimuth)
        # Each column stands for its share of the fan, its beam's cell (the spacing, for even
        # axes) over nh (its cell d_a = 2 half / nh when the beams' casts just tile the fan):
        # overlapping casts would count each direction twice.
        share = np.repeat(beam_cells(self.azimuths), nh) / (2.0 * self.echo.cast_half_angle)
        bands = []
        for rows in cone_bands(elevations, float(np.max(np.abs(sines))), array):
            pattern = np.clip(vertical[rows], 0.0, 1.0)
            columns = EchoModel(
                self.echo,
                np.zeros(rows.size),
                solid[rows],
                pattern=pattern,
                cell_height=self.fan.cast_width / nv,
                rng=self.model.rng,
            )
            power = solid[rows] * pattern + 1e-300
            cosine = float(np.sum(power * np.cos(elevations[rows])) / np.sum(power))
            af = array.steered(cosine * sines[None, :], np.sin(self.azimuths)[:, None])
            weights = share * np.abs(af) ** 2
            bands.append(ColumnBand(columns, weights, _band_of_columns(beams, nv, nh, rows)))
        return ArrayPatternEngine(self.model, tuple(bands))

    def _scatterer_pattern(
        self, body: NDArray[np.float64], r: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """The fan's pattern at scatterers ``body`` (m, 3; ``r`` their ranges), the array's aside.

        The vertical pattern both ways (``n_way``) inside the cast (``FanConfig.cast_width``);
        the transmit flat across the fan's casts (out to the outer beams' first nulls, as the
        lit columns reach), nothing beyond: otherwise the seabed the lighting happens to hold
        past the fan (as far as the rays' spacing from the hits) would be heard through the
        side lobes, 1 % of a grazing seabed's energy.
        """
        fan, echo = self.fan, self.echo
        elevation = np.abs(np.arcsin(np.clip(body[:, 2] / r, -1.0, 1.0)))
        inside = (elevation <= 0.5 * fan.cast_width) & within_azimuths(body, *self._reach)
        vertical = beam_intensity(fan.vertical_pattern, elevation, fan.vertical_width, echo.n_way)
        return np.where(inside, vertical, 0.0)

    def image_geometry(self) -> SectorGeometry:
        """The geometry of a ping's images: the beam axes and the range bins."""
        fan = self.fan
        return SectorGeometry.of_beams(
            fan.beams,
            float(self.azimuths[0]),
            fan.scan_step,
            self.echo,
            bearings=None if fan.uniform else tuple(self.azimuths.tolist()),
        )

    def set_pose(self, world_from_body: NDArray[np.float64]) -> None:
        """Place the sensor (``PosedRays.set_pose``) and its rays' elevation tangents."""
        super().set_pose(world_from_body)
        rotation = self.world_from_body[:3, :3]
        tangents = np.einsum('ij,nj->ni', rotation, self._body_tangents)
        self._tangents = tangents.astype(np.float32)

    def _footprint(
        self, r: NDArray[np.floating], hits: RayHits, shape: tuple[int, int]
    ) -> NDArray[np.float32]:
        """(N, n) slant extent of each return over its cell's height, m (module docstring).

        ``e = r |t . n| d_e / |d . n|``: the cell ``d_e`` tall about ray ``d`` (unit
        elevation tangent ``t``) meets a surface of normal ``n`` at ranges ``p / (d' . n)``,
        whose derivative along ``t`` is ``-r (t . n) / (d . n)``. Only the height: the boxes
        of a column of rays then tile its ranges; widened by the cell's azimuthal extent
        they would overlap by a part of a row and ripple. float32; misses and grazing
        returns give inf or NaN, which the echo model reads as one bin width.
        """
        normals = np.asarray(hits.normals, dtype=np.float32)
        e: NDArray[np.float32] = np.einsum('ij,ij->i', self._tangents, normals)
        with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
            np.abs(e, out=e)
            e /= np.asarray(hits.cos_incidence, dtype=np.float32)
            e *= self._cell_height
            e *= r.ravel()
        return e.reshape(shape)

    def _one_way(self, beam: NDArray[np.intp], body: NDArray[np.float64]) -> NDArray[np.float64]:
        """One-way pattern of beam ``beam`` in body directions ``body``; 0 outside its cast."""
        echo, fan = self.echo, self.fan
        offset = np.angle(np.exp(1j * (np.arctan2(body[:, 1], body[:, 0]) - self.azimuths[beam])))
        elevation = np.arcsin(np.clip(body[:, 2], -1.0, 1.0))
        inside = (np.abs(offset) <= echo.cast_half_angle * (1.0 + 1e-9)) & (
            np.abs(elevation) <= 0.5 * fan.cast_width * (1.0 + 1e-9)
        )
        across = np.where(inside, np.abs(offset), 0.0)
        up = np.where(inside, np.abs(elevation), 0.0)
        pattern = beam_intensity(echo.pattern, across, echo.beam_width, 1) * beam_intensity(
            fan.vertical_pattern, up, fan.vertical_width, 1
        )
        return np.where(inside, pattern, 0.0)

    def _hear_body(
        self, ray: NDArray[np.intp], body: NDArray[np.float64]
    ) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """The beam nearest in azimuth to body directions ``body``, and its one-way pattern."""
        del ray  # a fan hears by direction, whichever beam sent the ray
        azimuth = np.arctan2(body[:, 1], body[:, 0])
        fan = self.fan
        if fan.beams == 1:
            beam = np.zeros(azimuth.shape, dtype=np.intp)
        else:
            centre = 0.5 * (fan.min_angle + fan.max_angle)
            relative = np.angle(np.exp(1j * (azimuth - centre))) + centre
            middles = 0.5 * (self.azimuths[1:] + self.azimuths[:-1])
            beam = np.searchsorted(middles, relative).astype(np.intp)
        return beam, self._one_way(beam, body)

    def ping(self, caster: SurfaceCaster) -> FanPing:
        """Cast every beam's rays at once; the engine's echo of all beams in one pass.

        Each return's footprint (:meth:`_footprint`) is offered to the engine, which spreads
        the return over it if its physics does (the incoherent engine) whatever is
        published.
        """
        hits, ranges, extra = self._cast(caster, self.rays_per_beam)
        shape = (self.fan.beams, self.rays_per_beam)
        labelled = self.label_entities is not None
        r = ranges.reshape(shape)
        record = self.engine.ping(
            Returns(
                r,
                np.asarray(hits.cos_incidence).reshape(shape),
                np.asarray(hits.reflectivity).reshape(shape),  # NaN on misses: dropped
                self.origin,
                self.directions,
                entity=hits.entity.reshape(shape) if labelled else None,
                n_entities=self.label_entities or 0,
                extra=extra,
                footprint=lambda: self._footprint(r, hits, shape),
                lit=None
                if self._lighting is None
                else self._lighting.lit(caster, hits, self.world_from_body, self.directions),
            )
        )
        law = record.law  # before the imaging options: both draw from the model's generator
        profiles = record.intensity
        if self.imaging.enabled:
            profiles = apply_imaging(profiles, self.imaging, self._gain, self.model.rng)
        return FanPing(
            self.azimuths,
            law.ranges,
            law.totals,
            law.confidence,
            profiles,
            law.hits,
            self.model.bin_edges,
            law.labels,
            record,
        )
