"""A side-scan sonar: a port and a starboard fan, each narrow along track and wide across it.

Geometry (body frame, REP 103: x forward = along track, y left = port, z up). A ray of
channel ``s`` (``+1`` port, ``-1`` starboard) at along-track angle ``a`` and depression
``delta`` (below horizontal, in the across-track plane) points along

    d = (sin a, s cos a cos delta, -cos a sin delta),

spherical coordinates about the x axis, so a cell ``[a0, a1] x [delta0, delta1]`` stands for
the exact solid angle ``(sin a1 - sin a0)(delta1 - delta0)``: the echo model's sums do not
depend on the ray counts. Each channel's axis is ``a = 0``, ``delta = tilt``.

* Along track: ``rays_along`` columns across the cast width ``2 * cast_half_angle`` of the
  echo model run with ``beam_width = horizontal_width`` (``echo.cast_limit`` applies to it;
  ``echo.beam_width`` itself is not used), pattern ``echo.pattern``.
* Across track: depressions from ``delta_top = min(tilt + vertical_width / 2, pi / 2)``, or
  ``pi / 2`` with ``cast_to_nadir`` (the fan stops at nadir: rays past it would look to the
  other side) up to
  ``delta_end = max(tilt - vertical_width / 2, asin(min_altitude / max_range))`` (a shallower
  ray reaches the seabed beyond ``max_range`` whenever the sensor flies above
  ``min_altitude``; above that line nothing is seen), pattern ``vertical_pattern`` of width
  ``vertical_width`` about ``tilt``.

Ray placement across track (row cell edges, built once). On a flat bottom at altitude ``h`` a
ray of depression ``delta`` hits at slant range ``r = h / sin(delta)``. Each bin of width
``dr`` must get at least ``rays_per_bin = k`` ray cells at every altitude in
``[min_altitude, max_altitude]``:

* steep rays, ``sin(delta) >= max_altitude / max_range``: edges uniform in ``csc(delta)``,
  step ``dr / (k max_altitude)``; uniform in slant range at every altitude, at most
  ``dr / k`` apart up to ``max_altitude``;
* shallow rays: edges uniform in ``ln sin(delta)``, step ``dr / (k max_range)``; a cell then
  spans ``r dr / (k max_range) <= dr / k`` of slant range at any altitude.

That is ``rows = ceil(max_altitude (csc(delta*) - csc(delta_top)) k / dr) +
ceil(ln(sin(delta*) / sin(delta_end)) k max_range / dr)``, with ``sin(delta*) =
max_altitude / max_range`` clipped to the fan, about ``k n_bins (1 + ln(max_altitude /
min_altitude))`` rows, and ``rays_per_channel = rays_along * rows`` (``sidescan_rows``).

Each ray's echo is spread over the slant-range interval its cell covers, ``e = r tan(alpha)
d_delta`` about its range ``r`` (``alpha`` the incidence, exact to first order on a plane
sloping across track), split between the bins it overlaps in proportion to the overlap: the
model computes each ray's echo once and deposits its shares in its one binning pass
(``EchoModel.echoes(spread=)``). The cells of the fan's first and last rows and those near the
surface's normal (nadir) are placed by their whole cell (``EchoModel(cells=)``,
``echo.ray_cells``). A flat seabed profile then converges with a few rays per bin, and an
edge (first return, a shadow) stays sharp to the bin. ``hits`` counts the rays whose interval
overlaps a bin.

The two channels are two beams of one ``echo.EchoModel.echoes`` pass, so an asymmetric scene
gives different channels, and shadows come from the cast. The imaging options
(``echo.profile_effects``: TVG, cell speckle; side-lobe leakage is port-starboard
cross-talk) apply to the profiles after the model. ``docs/sidescan.md``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo import BeamPattern, EchoConfig, EchoModel, beam_intensity
from nps_sonar_py.echo.channel_echoes import ChannelEngine
from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.engine import CoherentEngine, Returns, echo_engine
from nps_sonar_py.echo.labels import label_problem
from nps_sonar_py.echo.profile_effects import (
    ImagingConfig,
    Tvg,
    apply_imaging,
    tvg_gain,
    tvg_problem,
)
from nps_sonar_py.echo.ray_cells import FanPattern, fan_cells
from nps_sonar_py.echo.records import EchoRecord
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.records import Record, setting
from nps_sonar_py.sensing.altitude import AltitudeSource, BottomTrack, altimeter
from nps_sonar_py.sensing.caster import SurfaceCaster
from nps_sonar_py.sensing.multibeam import cell_means
from nps_sonar_py.sensing.multipath import MultipathConfig, multipath_problem
from nps_sonar_py.sensing.posed_rays import PosedRays
from nps_sonar_py.sensing.sidescan_lighting import SidescanLighting

__all__ = [
    'MAX_SIDESCAN_BINS',
    'MAX_SIDESCAN_RAYS',
    'SidescanConfig',
    'SidescanPing',
    'SidescanSonar',
    'sidescan_problem',
    'sidescan_rows',
]

#: Most range bins per channel (the issue asks for at least 4000).
MAX_SIDESCAN_BINS = 65_536
#: Most rays per ping, both channels together.
MAX_SIDESCAN_RAYS = 4_000_000
#: Most ray columns along track.
_MAX_ALONG = 1_000
#: Most rays per bin.
_MAX_PER_BIN = 1_000
#: Most pings a bottom track's median runs over.
MAX_BOTTOM_TRACK_PINGS = 1_000


@dataclass(frozen=True)
class SidescanConfig(Record):
    """The two fans of a side-scan sonar, checked on creation (``nps_sonar_py.records``).

    The bounds below are the side-scan's settings' too (``devices/kinds/sidescan.py`` declares
    its parameters with them): one declaration, one check, one message format.

    Attributes:
        horizontal_width: one-way -3 dB along-track width, rad.
        vertical_width: one-way -3 dB across-track width, rad.
        tilt: depression of each transducer axis below horizontal, rad.
        rays_along: ray columns along track per channel.
        rays_per_bin: ray cells per slant-range bin at least, on a flat seabed at any altitude
            in ``[min_altitude, max_altitude]``.
        min_altitude: lowest altitude the ray placement serves, m; also sets the shallowest
            ray, ``asin(min_altitude / max_range)``.
        max_altitude: highest altitude the placement serves, m, >= min_altitude.
        vertical_pattern: one-way across-track pattern (``BeamPattern`` or its value), about
            ``tilt``; ``SINC`` (default): a line array.
        cast_to_nadir: cast the across-track fan down to nadir, the rays past the pattern's
            -3 dB edge weighted by the pattern: a real transducer hears the seabed under it
            through its pattern's skirt (``docs/sidescan.md``). On by default; off: the fan
            stops at the edge and the seabed is dark from the altitude ``h`` to
            ``h / sin(tilt + vertical_width / 2)``, a nadir gap no real side-scan shows.
        altitude: where each ping's altitude (its ground ranges) comes from
            (``sensing.altitude``): ``BOTTOM_TRACK`` (default), the median seabed level of the
            last ``bottom_track_pings`` first returns, or ``ALTIMETER``, the vertical distance
            to the surface straight below.
        bottom_track_pings: pings the bottom track's median runs over (1: each ping's own).
    """

    horizontal_width: float = setting(
        math.radians(1.0), 'along-track -3 dB width [rad]', 1e-4, math.radians(30.0)
    )
    vertical_width: float = setting(
        math.radians(50.0),
        'across-track -3 dB width [rad]',
        math.radians(1.0),
        math.radians(170.0),
    )
    tilt: float = setting(
        math.radians(20.0),
        "depression of each fan's axis below the horizontal [rad]",
        1e-3,
        0.5 * math.pi - 1e-3,
    )
    rays_along: int = setting(3, 'ray columns along track', 1, _MAX_ALONG)
    rays_per_bin: int = setting(1, 'ray cells per slant-range bin at least', 1, _MAX_PER_BIN)
    min_altitude: float = setting(
        2.0, 'lowest altitude the ray placement serves [m]', 0.01, 10000.0
    )
    max_altitude: float = setting(
        30.0, 'highest altitude the ray placement serves [m]', 0.01, 10000.0
    )
    vertical_pattern: BeamPattern = setting(BeamPattern.SINC, 'one-way pattern across track')
    cast_to_nadir: bool = setting(
        True,
        "cast the across-track fan down to nadir, weighted by the pattern's skirt past its "
        '-3 dB edge (off: the fan stops at the edge)',
    )
    altitude: AltitudeSource = setting(
        AltitudeSource.BOTTOM_TRACK,
        "where each ping's altitude (its ground ranges) comes from: bottom_track (the median "
        'seabed level of the last bottom_track_pings first returns) or altimeter (the '
        'vertical distance to the surface straight below)',
    )
    bottom_track_pings: int = setting(
        15,
        "pings the bottom track's median seabed level runs over (1: each ping's own first return)",
        1,
        MAX_BOTTOM_TRACK_PINGS,
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.max_altitude < self.min_altitude:
            raise ConfigurationError(
                f'max_altitude ({self.max_altitude:g}) must be >= min_altitude '
                f'({self.min_altitude:g})'
            )


def _fan_limits(echo: EchoConfig, config: SidescanConfig) -> tuple[float, float]:
    """Depressions ``(delta_top, delta_end)`` of the fan, rad.

    Raises:
        ConfigurationError: there is no fan (why, in one line).
    """
    if config.min_altitude >= echo.max_range:
        msg = (
            f'min_altitude ({config.min_altitude:g} m) must be < max_range ({echo.max_range:g} m)'
        )
        raise ConfigurationError(msg)
    edge = math.inf if config.cast_to_nadir else config.tilt + 0.5 * config.vertical_width
    top = min(edge, 0.5 * math.pi)
    end = max(
        config.tilt - 0.5 * config.vertical_width, math.asin(config.min_altitude / echo.max_range)
    )
    if not end < top:
        msg = (
            f'the fan (depressions up to {math.degrees(top):.3g} deg) never reaches the seabed '
            f'within max_range above min_altitude (needs > {math.degrees(end):.3g} deg)'
        )
        raise ConfigurationError(msg)
    return top, end


@dataclass(frozen=True)
class _RowPlan:
    """The fan's depressions (rad) and its row counts: csc-uniform, then log-uniform."""

    top: float
    star: float
    end: float
    n_csc: int
    n_log: int

    @property
    def rows(self) -> int:
        return self.n_csc + self.n_log

    def row_of(self, sine: NDArray[np.float64]) -> NDArray[np.intp]:
        """The row whose cell holds each depression ``asin(sine)``, clipped to the fan.

        By the edges' own spacing, uniform in ``csc`` then in ``ln sin``: a point on an edge
        may fall in either of its rows (rounding).
        """
        sin_top, sin_star, sin_end = (math.sin(x) for x in (self.top, self.star, self.end))
        csc_step = (1.0 / sin_star - 1.0 / sin_top) / max(self.n_csc, 1)
        log_step = math.log(sin_star / sin_end) / max(self.n_log, 1)
        with np.errstate(divide='ignore', invalid='ignore'):
            steep = (1.0 / sine - 1.0 / sin_top) / max(csc_step, 1e-300)
            shallow = self.n_csc + np.log(sin_star / sine) / max(log_step, 1e-300)
        row = np.nan_to_num(np.where(sine >= sin_star, steep, shallow), posinf=self.rows)
        found: NDArray[np.intp] = np.clip(np.floor(row), 0, self.rows - 1).astype(np.intp)
        return found

    def edges(self) -> NDArray[np.float64]:
        """(rows + 1,) depressions of the row cell edges, steepest first, rad."""
        parts = []
        if self.n_csc > 0:
            csc = np.linspace(1.0 / math.sin(self.top), 1.0 / math.sin(self.star), self.n_csc + 1)
            parts.append(np.arcsin(np.minimum(1.0 / csc, 1.0)))
        if self.n_log > 0:
            logs = np.linspace(
                math.log(math.sin(self.star)), math.log(math.sin(self.end)), self.n_log + 1
            )
            edges = np.arcsin(np.exp(logs))
            parts.append(edges[1:] if parts else edges)
        out = np.concatenate(parts)
        out[0], out[-1] = self.top, self.end  # arcsin(1 / csc) rounds
        return out


def _row_plan(echo: EchoConfig, config: SidescanConfig) -> _RowPlan:
    """The fan and its row counts (module docstring).

    Raises:
        ConfigurationError: there is no fan (``_fan_limits``).
    """
    top, end = _fan_limits(echo, config)
    k, dr = config.rays_per_bin, echo.bin_width
    # The depression where the csc spacing at max_altitude meets the log spacing.
    star = math.asin(min(config.max_altitude / echo.max_range, 1.0))
    star = min(max(star, end), top)
    n_csc = math.ceil((1.0 / math.sin(star) - 1.0 / math.sin(top)) * config.max_altitude * k / dr)
    n_log = math.ceil(math.log(math.sin(star) / math.sin(end)) * k * echo.max_range / dr)
    return _RowPlan(top, star, end, max(n_csc, 0), max(n_log, 0))


def sidescan_rows(echo: EchoConfig, config: SidescanConfig) -> int:
    """Ray rows per channel of this configuration (module docstring), computed, not built.

    Raises:
        ConfigurationError: the fan never reaches the seabed within ``max_range``.
    """
    return _row_plan(echo, config).rows


@dataclass(frozen=True, eq=False)
class SidescanPing:
    """The echoes of one side-scan ping: row 0 port, row 1 starboard.

    Attributes:
        profiles: (2, n_bins) linear intensity per slant-range bin (``echo.min_range`` to
            ``max_range``, ``echo.n_bins`` bins), relative to the source at 1 m, after the
            imaging options (TVG, speckle). Bins before the first return are 0.
        bin_edges: (n_bins + 1,) slant-range bin edges, m (read-only, shared).
        altitude: the altitude the ground ranges take, m (``SidescanConfig.altitude``): the
            bottom track's (the median seabed level under the sonar over the last pings, each
            the vertical drop ``r (-d_z)`` to the nearest return of either channel, ``d`` its
            world direction: the altitude over a flat seabed whatever the attitude) or the
            altimeter's (the vertical distance straight down); NaN when nothing returned yet.
        labels: (2, n_bins) uint16 labels (``echo.labels``) or None.
        hits: (2, n_bins) rays whose echo interval overlaps each bin, counted when first read
            (the node publishes none); only a ping the sonar made has them.
        echo: the ping's echo record (``echo.engine``), before the imaging options: its
            ``coherent`` baseband (port and starboard) with the coherent engine.
    """

    profiles: NDArray[np.float64]
    bin_edges: NDArray[np.float64]
    altitude: float
    labels: NDArray[np.uint16] | None = None
    _count_hits: Callable[[], NDArray[np.int64]] | None = field(default=None, repr=False)
    echo: EchoRecord | None = None

    @property
    def hits(self) -> NDArray[np.int64]:
        """(2, n_bins) rays whose echo interval overlaps each bin (``Echoes.hits``)."""
        if self._count_hits is None:
            msg = 'this side-scan ping was not made by a sonar: it has no hit counts'
            raise ValueError(msg)
        return self._count_hits()


class SidescanSonar(PosedRays):
    """Port and starboard fans, their rays built once and cast together each ping.

    Args:
        echo: the echo model's configuration (``beam_width`` is replaced by the config's
            ``horizontal_width``; the range window and bins are each channel's).
        config: the fans.
        world_from_body: (4, 4) pose of the body frame (x forward, y port, z up) in the world.
        imaging: the image options (``echo.profile_effects``), off by default.
        label_entities: the length of the label table: every ping then carries ``labels``.
        multipath: ghost echoes (``sensing.multipath``), off by default. A ghost is heard in
            the channel on whose side (body y) it arrives, with that fan's one-way pattern;
            ghosts are binned whole, not spread over a footprint as the direct echoes are.
        coherent: the coherent engine's settings (``echo.engine``: each ray a point
            scatterer, the pulse spreading it; no line array across the two channels);
            ``None`` (default): the incoherent engine. Multipath ghosts are not in the
            coherent profiles; objects' images in the seabed are (``seabed_images``).

    Raises:
        ConfigurationError: more than ``MAX_SIDESCAN_BINS`` bins or ``MAX_SIDESCAN_RAYS``
            rays (refused before anything is allocated), a fan that never reaches the seabed,
            a TVG over its limit, a label table over its limit (one line each).
    """

    def __init__(
        self,
        echo: EchoConfig,
        config: SidescanConfig,
        world_from_body: NDArray[np.float64],
        *,
        imaging: ImagingConfig | None = None,
        label_entities: int | None = None,
        multipath: MultipathConfig | None = None,
        coherent: CoherentConfig | None = None,
    ) -> None:
        self.imaging = imaging if imaging is not None else ImagingConfig()
        self.label_entities = label_entities
        self.multipath = multipath if multipath is not None else MultipathConfig()
        problem = sidescan_problem(echo, config) or multipath_problem(echo, self.multipath)
        if problem is None:
            problem = tvg_problem(self.imaging.tvg, echo.max_range, echo.effective_absorption)
        if problem is None and label_entities is not None:
            problem = label_problem(label_entities)
        if problem:
            raise ConfigurationError(problem)
        echo = dataclasses.replace(echo, beam_width=config.horizontal_width)
        self.echo = echo
        self.config = config
        self._plan = _row_plan(echo, config)
        rows = self._plan.edges()
        self.row_edges = rows
        rows.flags.writeable = False
        half = echo.cast_half_angle
        na = config.rays_along
        columns = np.linspace(-half, half, na + 1)
        along = 0.5 * (columns[:-1] + columns[1:])
        depression = 0.5 * (rows[:-1] + rows[1:])
        nd = depression.size
        d_delta = rows[:-1] - rows[1:]  # > 0: steepest first
        solid = np.diff(np.sin(columns))[None, :] * d_delta[:, None]  # (nd, na)
        horizontal = cell_means(
            echo.pattern, config.horizontal_width, echo.n_way, columns, cosine=True
        )
        vertical = cell_means(
            config.vertical_pattern, config.vertical_width, echo.n_way, rows - config.tilt
        )
        weight = np.clip(vertical[:, None] * horizontal[None, :], 0.0, 1.0).ravel()
        off_axis = np.broadcast_to(np.abs(along)[None, :], (nd, na)).ravel()
        n = nd * na
        self.rays_per_channel = n
        self.coherent = coherent
        cells = fan_cells(
            rows,
            columns,
            FanPattern(config.vertical_pattern, config.vertical_width, config.tilt, echo.n_way),
            FanPattern(echo.pattern, config.horizontal_width, 0.0, echo.n_way),
            vertical,
            horizontal,
        )
        self.model = EchoModel(echo, off_axis, solid.ravel(), pattern=weight, cells=cells)
        self.bottom_track = BottomTrack(config.bottom_track_pings)
        self.engine = echo_engine(self.model, None)
        # Per ray, its cell's depression width: the footprint is r tan(alpha) of it.
        self._d_delta = np.broadcast_to(d_delta[:, None], (nd, na)).ravel().astype(np.float32)
        self._spread = np.empty((2, n), dtype=np.float32)  # rewritten each ping
        self._gain = (
            tvg_gain(self.imaging.tvg, self.model.bin_centres, echo.effective_absorption)
            if self.imaging.tvg is not Tvg.NONE
            else None
        )
        a = along[None, :]
        e = depression[:, None]
        body = np.empty((2, nd, na, 3))
        for channel, side in enumerate((1.0, -1.0)):  # two channels, not a ray loop
            body[channel, :, :, 0] = np.sin(a)
            body[channel, :, :, 1] = side * np.cos(a) * np.cos(e)
            body[channel, :, :, 2] = -np.cos(a) * np.sin(e)
        self.body_rays = body.reshape(-1, 3)
        self.body_rays.flags.writeable = False
        self._lighting = self._coherent(coherent, columns)
        # Multipath: each ray's one-way pattern at its own direction in its own channel.
        self._ray_pattern = self._one_way(self.body_rays)[1]
        self.set_pose(world_from_body)

    def _one_way(self, body: NDArray[np.float64]) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """The channel (0 port, 1 starboard) on each body direction's side, and its pattern.

        The one-way pattern of that fan there; 0 outside its cast (along) and rows (across).
        """
        echo, config, rows = self.echo, self.config, self.row_edges  # rows: steepest first
        channel = np.where(body[:, 1] >= 0.0, 0, 1).astype(np.intp)
        along = np.arcsin(np.clip(body[:, 0], -1.0, 1.0))
        depression = np.arctan2(-body[:, 2], np.abs(body[:, 1]))
        slack = 1e-9
        inside = (
            (np.abs(along) <= echo.cast_half_angle * (1.0 + slack))
            & (depression <= rows[0] + slack)
            & (depression >= rows[-1] - slack)
        )
        at = np.flatnonzero(inside)  # the pattern only there: most points of a lobe miss it
        pattern = np.zeros(body.shape[0])
        pattern[at] = beam_intensity(
            echo.pattern, np.abs(along[at]), config.horizontal_width, 1
        ) * beam_intensity(
            config.vertical_pattern, np.abs(depression[at] - config.tilt), config.vertical_width, 1
        )
        return channel, pattern

    def _coherent(
        self,
        coherent: CoherentConfig | None,
        columns: NDArray[np.float64],
    ) -> SidescanLighting | None:
        """With coherent settings: the engine over the fixed scatterers, and its lighting."""
        if coherent is None:
            return None
        channels = ChannelEngine(
            self.model, coherent, self._two_way, 2, self.config.horizontal_width
        )
        self.engine = CoherentEngine(self.model, channels)
        return SidescanLighting(
            columns, self.row_edges, self._plan.row_of, self.body_rays, channels.farthest()
        )

    def _two_way(self, body: NDArray[np.float64]) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """The channel on each body point's side and its pattern there, ``n_way`` times.

        Worked out only for the points that may lie in the cast along the track (a generous
        bound on ``|x| / |p|``): a rough seabed's lobe puts most of its points outside it.
        """
        channel = np.where(body[:, 1] >= 0.0, 0, 1).astype(np.intp)
        pattern = np.zeros(body.shape[0])
        half = self.echo.cast_half_angle * (1.0 + 1e-6)
        bound = math.sin(half) * (1.0 + 1e-9) if half < 0.5 * math.pi else math.inf
        size = np.sqrt(np.einsum('ij,ij->i', body, body))
        near = np.flatnonzero(~(np.abs(body[:, 0]) > bound * size))  # NaN too
        channel[near], one_way = self._one_way(body[near] / size[near, None])
        pattern[near] = one_way**self.echo.n_way
        return channel, pattern

    def _hear_body(
        self, ray: NDArray[np.intp], body: NDArray[np.float64]
    ) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """The channel on the side body directions ``body`` arrive from, and its pattern."""
        del ray  # heard by direction, whichever channel sent the ray
        return self._one_way(body)

    @property
    def min_ping_interval(self) -> float:
        """Shortest time between pings, the two-way travel time ``2 max_range / c``, s.

        A ping rate above ``1 / min_ping_interval`` would ping before the last echo is back
        (``EchoConfig.min_ping_interval``; the device refuses it).
        """
        return self.echo.min_ping_interval

    def ping(self, caster: SurfaceCaster) -> SidescanPing:
        """Cast both channels' rays at once and run the echo model over them in one pass.

        Not reentrant: each return's footprint is written into a buffer of the sonar.
        """
        # Pattern ray i of a channel is the model's column i.
        hits, ranges, extra = self._cast(caster, self.rays_per_channel)
        r = np.asarray(ranges, dtype=np.float32).reshape(2, -1)
        cos = np.asarray(hits.cos_incidence, dtype=np.float32).reshape(2, -1)
        entity = None
        if self.label_entities is not None:
            entity = hits.entity.reshape(2, -1)
        altitude = self._altitude(r.ravel(), caster)
        record = self.engine.ping(
            Returns(
                r,
                cos,
                np.asarray(hits.reflectivity).reshape(2, -1),
                self.origin,
                self.directions,
                entity=entity,
                n_entities=self.label_entities or 0,
                extra=extra,
                footprint=lambda: self._footprint(r, cos),
                lit=None
                if self._lighting is None
                else self._lighting.lit(
                    hits, ranges, self.world_from_body, self.directions, caster
                ),
            )
        )
        profiles = record.intensity
        if self.imaging.enabled:
            profiles = apply_imaging(profiles, self.imaging, self._gain, self.model.rng)
        labels = None if entity is None else record.law.labels  # after: as the law defers
        return SidescanPing(
            profiles, self.model.bin_edges, altitude, labels, lambda: record.law.hits, record
        )

    def _footprint(self, r: NDArray[np.float32], cos: NDArray[np.float32]) -> NDArray[np.float32]:
        """(2, n) slant extent of each return, ``e = r tan(alpha) d_delta``, m (module docstring).

        ``cos`` is the caster's ``|cos|`` (``SurfaceCaster``). float32, in the sonar's buffer;
        misses and grazing returns give inf or NaN, which the model reads as one bin width.
        """
        e = self._spread
        with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
            np.multiply(cos, cos, out=e)
            np.subtract(np.float32(1.0), e, out=e)
            np.sqrt(e, out=e)
            e /= cos  # tan(alpha)
            e *= self._d_delta
            e *= r
        return e

    def altitude_problem(self, altitude: float) -> str | None:
        """Why a ping at this altitude misses part of its window, or None.

        Below ``min_altitude`` the fan's shallowest ray, ``asin(min_altitude / max_range)``,
        meets a flat seabed short of ``max_range`` and the far bins stay dark; at any other
        altitude the profile is the flat seabed's integral to within 0.2 %
        (``docs/sidescan.md#edges-nadir-and-the-first-return``).
        """
        config, echo = self.config, self.echo
        if not (math.isfinite(altitude) and altitude < config.min_altitude):
            return None
        reach = altitude / math.sin(float(self.row_edges[-1]))
        if reach >= echo.max_range:
            return None
        return (
            f'altitude {altitude:.3g} m is below sidescan_min_altitude '
            f'({config.min_altitude:g} m): the fan meets the seabed only out to {reach:.3g} m '
            f'of the {echo.max_range:g} m window'
        )

    def _altitude(self, r: NDArray[np.float32], caster: SurfaceCaster) -> float:
        """The ping's altitude, m (``SidescanPing.altitude``, ``sensing.altitude``); NaN: none.

        Bottom track: the median seabed level of the last pings' vertical drops to their
        nearest return; altimeter: the distance straight down.
        """
        if self.config.altitude is AltitudeSource.ALTIMETER:
            return altimeter(caster, self.origin)
        drop = math.nan
        if r.size:
            i = int(np.argmin(r))
            if math.isfinite(r[i]):
                drop = float(-r[i] * self.directions[i, 2])
        return self.bottom_track.update(float(self.origin[2]), drop)


def sidescan_problem(echo: EchoConfig, config: SidescanConfig) -> str | None:
    """Why this side-scan cannot be built (bins, rays, a fan that sees no seabed), or ``None``."""
    if echo.n_bins > MAX_SIDESCAN_BINS:
        return f'n_bins must be <= {MAX_SIDESCAN_BINS} per channel, got {echo.n_bins}'
    try:
        plan = _row_plan(echo, config)
    except ConfigurationError as error:
        return str(error)
    rays = 2 * config.rays_along * plan.rows
    if rays > MAX_SIDESCAN_RAYS:
        return (
            f'{rays} rays per ping (2 channels x {config.rays_along} columns x '
            f'{plan.rows} rows) is over the limit of {MAX_SIDESCAN_RAYS}; '
            'fewer rays_per_bin or bins, or a narrower altitude band'
        )
    return None
