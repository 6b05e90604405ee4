"""A bathymetric multibeam echosounder: beams across track, a bottom detection and a sounding each.

Geometry (body frame, x forward, y left, z up, REP 103): beam ``j`` points at the angle
``a_j`` from nadir in the vertical y-z plane, a right-handed turn about +x of the nadir
``(0, 0, -1)``: ``(0, sin a, -cos a)``, so a positive angle looks to port (+y) and a flat
seabed ``D`` below is met at ``y = D tan a``. Angles run evenly from ``min_angle`` to
``max_angle``. Each beam is narrow both ways: a grid of ``rays_across x rays_along`` rays at
the cell centres of ``[-across_width / 2, across_width / 2]`` about its axis in that plane and
``[-along_width / 2, along_width / 2]`` out of it, a ray at ``(phi, psi)`` pointing along
``(sin psi, cos psi sin phi, -cos psi cos phi)`` with the solid angle of its cell
``d_phi (sin psi_hi - sin psi_lo)``; its weight is ``echo.pattern`` of each width (the one-way
-3 dB widths), cell-averaged as in ``sensing.multibeam``. The rays are built once per
configuration; the world directions are read-only so that the raycaster reuses them.

A ping casts every beam's rays and each beam's axis ray in one cast, runs the echo model over
all beams in one pass (``echo.EchoModel.echoes``) and detects the bottom in each profile
(:func:`detect_bottom`, ``docs/echosounder.md``). With the coherent model (``echo.coherent``)
the profiles are instead the energy per bin of each beam's complex envelope: speckle, the
pulse's range resolution, the receive line array's leakage across the swath's beams and the
noise floor of the sonar equation, the detection running on them. The detection's two-way time is
``2 r / c_ref``: ``r`` the detected (equivalent) range, ``c_ref`` the caster's reference speed
(``RefractingCaster``: the speed at the transducer; a straight caster: the echo model's).
``Detection.AXIS`` instead takes the axis ray's own travel time (the hit's exact time, an
ideal detector). Soundings come from that time and the beam's angle through a *processing*
profile (``ray_trace.sounding``); by default the medium's own, so that a wrong one shows the
refraction artefact.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from enum import Enum, IntEnum

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo import EchoConfig, EchoModel, ExtraReturns, beam_intensity
from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.engine import (
    CoherentEngine,
    IncoherentEngine,
    Returns,
    beam_coverage,
    echo_engine,
)
from nps_sonar_py.echo.ray_trace import sounding
from nps_sonar_py.echo.records import EchoRecord
from nps_sonar_py.echo.sound_speed import SoundSpeedProfile
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.records import Record, setting
from nps_sonar_py.sensing.caster import Bending, RayHits, SurfaceCaster
from nps_sonar_py.sensing.multibeam import cell_means
from nps_sonar_py.sensing.multipath import MultipathConfig, multipath_problem
from nps_sonar_py.sensing.posed_rays import PosedRays

__all__ = [
    'MAX_SOUNDER_BEAMS',
    'BottomDetections',
    'Detection',
    'Echosounder',
    'EchosounderPing',
    'Quality',
    'SwathConfig',
    'detect_bottom',
]

F = NDArray[np.float64]

#: Most beams of an echosounder (the ``beams`` setting's bound).
MAX_SOUNDER_BEAMS = 1024
#: Largest beam angle from nadir, rad (beams must point below the horizontal).
MAX_BEAM_ANGLE = math.radians(85.0)


class Detection(Enum):
    """Where a beam's two-way time comes from.

    * ``AMPLITUDE``: the amplitude-weighted centre of the echo around its peak
      (:func:`detect_bottom`), resolved by the range bins, as a sonar does.
    * ``AXIS``: the travel time of the beam's axis ray hit (exact; an ideal detector, the
      reference for the processing chain).
    """

    AMPLITUDE = 'amplitude'
    AXIS = 'axis'


class Quality(IntEnum):
    """A beam's detection quality (``uint8``): none, low or good (``docs/echosounder.md``)."""

    NONE = 0  #: no echo in the range window
    LOW = 1  #: fewer than ``min_bins`` bins in the detection, or the echo cut by the window
    GOOD = 2


#: Most rays per ping.
MAX_SOUNDER_RAYS = 4_000_000
#: Chance that a beam hearing only the receiver's noise detects it (``detect_bottom``).
FALSE_ALARM = 1e-4


@dataclass(frozen=True)
class SwathConfig(Record):
    """The beams of an echosounder and its detector, checked on creation.

    The bounds below are the echosounder's settings' too (``devices/kinds/echosounder.py``
    declares its parameters with them: one declaration, one check, one message format).

    Attributes:
        beams: number of beams.
        min_angle, max_angle: angles from nadir of the first and last beam axes, rad,
            positive to port (+y); one beam points at their middle.
        across_width: one-way -3 dB width of a beam across track (in the swath plane), rad.
        along_width: one-way -3 dB width along track (the transmit width), rad.
        rays_across, rays_along: rays across each width.
        threshold_db: the detection keeps the bins within this many dB of the peak, < 0.
        min_bins: fewer bins in a detection make it ``Quality.LOW``.
        detection: ``Detection`` (or its string value).
        pulse_duration: the transmitted pulse's length, s: each incoherent profile is
            smoothed by a centred window of ``2 m + 1`` bins,
            ``m = round(c pulse_duration / 4 / bin_width)`` (the
            pulse's range resolution ``c tau / 2``), as a matched filter spreads an echo.
    """

    beams: int = setting(256, 'number of beams', 1, MAX_SOUNDER_BEAMS)
    min_angle: float = setting(
        math.radians(-60.0),
        'first beam from nadir [rad], positive to port',
        -MAX_BEAM_ANGLE,
        MAX_BEAM_ANGLE,
    )
    max_angle: float = setting(
        math.radians(60.0), 'last beam from nadir [rad]', -MAX_BEAM_ANGLE, MAX_BEAM_ANGLE
    )
    across_width: float = setting(
        math.radians(1.0),
        'beam width across track, -3 dB one-way [rad]',
        1e-4,
        math.radians(30.0),
    )
    along_width: float = setting(
        math.radians(1.0),
        'beam width along track, -3 dB one-way [rad]',
        1e-4,
        math.radians(30.0),
    )
    rays_across: int = setting(5, 'ray columns across a beam', 1, 1000)
    rays_along: int = setting(5, 'ray rows along a beam', 1, 1000)
    threshold_db: float = setting(
        -10.0,
        'the detection keeps the first run of bins within this of the peak [dB], < 0',
        -200.0,
        -1e-3,
    )
    min_bins: int = setting(3, 'fewer bins in a detection make its quality low (1)', 1, 100_000)
    detection: Detection = setting(
        Detection.AMPLITUDE,
        'amplitude (weighted centre of the first strong return) or axis (its hit)',
    )
    pulse_duration: float = setting(
        100e-6, 'pulse length [s]: the profile window c tau / 2', 0.0, 0.1
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        problem = None
        if self.min_angle > self.max_angle:
            problem = f'max_angle ({self.max_angle:g}) must be >= min_angle ({self.min_angle:g})'
        elif self.beams > 1 and self.min_angle == self.max_angle:
            problem = f'max_angle must be > min_angle for {self.beams} beams'
        elif self.beams * self.rays_across * self.rays_along > MAX_SOUNDER_RAYS:
            problem = f'more than {MAX_SOUNDER_RAYS} rays per ping'
        if problem:
            raise ConfigurationError(problem)

    def angles(self) -> F:
        """(beams,) angle of each beam axis from nadir, rad, positive to port."""
        if self.beams == 1:
            return np.array([0.5 * (self.min_angle + self.max_angle)])
        return np.linspace(self.min_angle, self.max_angle, self.beams)


@dataclass(frozen=True, eq=False)
class BottomDetections:
    """One detection per beam (:func:`detect_bottom`).

    Attributes:
        ranges: (N,) amplitude-weighted centre of the detection's bins, m; nan: none.
        intensities: (N,) sum of the profile over the detection's bins, linear; 0: none.
        bins: (N,) bins in the detection; 0: none.
        quality: (N,) uint8 ``Quality``.
    """

    ranges: F
    intensities: F
    bins: NDArray[np.int64]
    quality: NDArray[np.uint8]


def detect_bottom(
    profiles: F, centres: F, threshold_db: float, min_bins: int, noise: float = 0.0
) -> BottomDetections:
    """The bottom in each beam's profile: the amplitude-weighted centre of its first strong return.

    The bins kept are the first contiguous run of bins whose intensity is at least
    ``10**(threshold_db / 10)`` times the profile's peak: the earliest echo within the
    threshold of the strongest, so that a later echo (a multipath ghost, the surface-bottom
    multiple) never takes the detection from the seabed echo before it, even a stronger one.
    Quality: ``NONE`` when a profile is empty, ``LOW`` when fewer than ``min_bins`` bins are
    kept or the run touches either end of the window (the echo is cut), else ``GOOD``.
    ``noise``: the mean noise power ``N`` per bin (the coherent model's floor); a peak under
    ``N ln(n_bins / FALSE_ALARM)`` is ``NONE`` too: noise alone, exponential per bin (or
    less spread, with several samples a bin), passes that in a beam with a chance under
    ``FALSE_ALARM`` (``P(max > t) <= n_bins exp(-t / N)``), a constant false alarm rate.
    """
    nb = profiles.shape[1]
    top = profiles.max(axis=1)
    above = profiles >= (top * 10.0 ** (threshold_db / 10.0))[:, None]
    index = np.arange(nb)[None, :]
    lo = np.argmax(above, axis=1)  # the first bin within the threshold
    hi = np.where(~above & (index > lo[:, None]), index, nb).min(axis=1) - 1
    run = (index >= lo[:, None]) & (index <= hi[:, None])
    weights = np.where(run, profiles, 0.0)
    total = weights.sum(axis=1)
    found = top > noise * math.log(nb / FALSE_ALARM)
    with np.errstate(invalid='ignore', divide='ignore'):
        centre = np.einsum('ij,j->i', weights, centres) / total
    count = np.where(found, hi - lo + 1, 0).astype(np.int64)
    cut = (lo == 0) | (hi == nb - 1)
    quality = np.where(
        found, np.where((count < min_bins) | cut, Quality.LOW, Quality.GOOD), Quality.NONE
    ).astype(np.uint8)
    return BottomDetections(
        np.where(found, centre, np.nan), np.where(found, total, 0.0), count, quality
    )


@dataclass(frozen=True, eq=False)
class EchosounderPing:
    """The detections and soundings of one ping, beam by beam (beam ``j`` at ``angles[j]``).

    Attributes:
        angles: (N,) beam angles from nadir, rad (the receive angles; transmit is 0: one
            transmit fan along the swath plane).
        two_way_time: (N,) two-way travel time of each detection, s; nan: none.
        intensities: (N,) the detection's intensity, linear; 0: none.
        quality: (N,) uint8 ``Quality``.
        points: (N, 3) soundings in the sensor's body frame, m; nan rows: none.
        world_points: (N, 3) the same in the world, m.
        profiles: (N, n_bins) each beam's echo after the pulse window, linear.
        bin_edges: (n_bins + 1,) m.
        sound_speed: the reference speed ``c_ref`` of the two-way times, m/s.
        echo: the ping's echo record (``echo.engine``: every beam's baseband with the
            coherent engine; its intensities are ``profiles``).
    """

    angles: F
    two_way_time: F
    intensities: F
    quality: NDArray[np.uint8]
    points: F
    world_points: F
    profiles: F
    bin_edges: F
    sound_speed: float
    echo: EchoRecord | None = None

    @property
    def detected(self) -> NDArray[np.bool_]:
        """(N,) beams with a sounding."""
        return np.asarray(np.isfinite(self.points).all(axis=1))

    @property
    def ranges(self) -> F:
        """(N,) slant range of each detection at the reference speed, ``c t / 2``, m; inf: none."""
        ranges: F = np.nan_to_num(0.5 * self.sound_speed * self.two_way_time, nan=np.inf)
        return ranges


class Echosounder(PosedRays):
    """A swath of narrow beams, their rays built once and cast together each ping.

    Args:
        echo: the echo model's configuration (its pattern shapes both widths).
        swath: the beams and the detector.
        world_from_body: (4, 4) pose of the sensor's body frame.
        processing: the profile soundings are computed with; ``None``: the medium's (the
            caster's profile, or straight rays through a straight caster).
        surface_z: world z of the sea surface for a processing profile read through a
            straight caster (a ``RefractingCaster`` gives its own).
        multipath: ghost echoes (``sensing.multipath``), off by default. A ghost is heard in
            the beam whose axis is nearest in angle from nadir (across track) to the direction
            it arrives from, with that beam's one-way pattern there (0 outside its cast); the
            axis rays carry none. The detection takes the first strong return
            (:func:`detect_bottom`), so a ghost after the seabed echo does not move it.
        coherent: the coherent engine's settings (``echo.engine``) for the profiles
            instead of the incoherent sums and the pulse window: the swath's beams are the
            receive line array's (``CoherentConfig.array_elements``), steered to the beam
            angles, its -3 dB width held to ``across_width``; multipath ghosts are not in its
            profiles. ``None`` (default): the incoherent engine.

    Raises:
        ConfigurationError: multipath with specular scattering; a pulse, sampling or array
            the coherent model refuses (one line, nothing built).
    """

    def __init__(
        self,
        echo: EchoConfig,
        swath: SwathConfig,
        world_from_body: F,
        *,
        processing: SoundSpeedProfile | None = None,
        surface_z: float = 0.0,
        multipath: MultipathConfig | None = None,
        coherent: CoherentConfig | None = None,
    ) -> None:
        self.multipath = multipath if multipath is not None else MultipathConfig()
        problem = multipath_problem(echo, self.multipath)
        if problem:
            raise ConfigurationError(problem)
        self.echo = echo
        self.swath = swath
        self.processing = processing
        self.surface_z = float(surface_z)
        na, nl = swath.rays_across, swath.rays_along
        across = np.linspace(-0.5, 0.5, na + 1) * swath.across_width
        along = np.linspace(-0.5, 0.5, nl + 1) * swath.along_width
        phi = 0.5 * (across[:-1] + across[1:])
        psi = 0.5 * (along[:-1] + along[1:])
        solid = np.diff(across)[None, :] * np.diff(np.sin(along))[:, None]  # (nl, na)
        w_across = cell_means(echo.pattern, swath.across_width, echo.n_way, across)
        w_along = cell_means(echo.pattern, swath.along_width, echo.n_way, along, cosine=True)
        weight = (w_along[:, None] * w_across[None, :]).ravel()
        # The grid is the cast: every ray is inside it (off-axis 0 for the model's cut).
        self.model = EchoModel(
            echo, np.zeros(na * nl), solid.ravel(), pattern=np.clip(weight, 0.0, 1.0)
        )
        self.rays_per_beam = na * nl
        self.pulse_bins = round(echo.speed_of_sound * swath.pulse_duration / 4.0 / echo.bin_width)
        self.angles = swath.angles()
        self.angles.flags.writeable = False
        self.coherent = coherent
        self.engine = _swath_engine(
            self.model, coherent, swath, float(np.sum(w_across)), self.pulse_bins
        )
        a = (self.angles[:, None, None] + phi[None, None, :]) * np.ones((1, nl, 1))
        p = np.broadcast_to(psi[None, :, None], a.shape)
        grid = np.stack((np.sin(p), np.cos(p) * np.sin(a), -np.cos(p) * np.cos(a)), axis=-1)
        axes = np.stack(
            (np.zeros_like(self.angles), np.sin(self.angles), -np.cos(self.angles)), axis=-1
        )
        # Beam rays first (beam-major), then one axis ray per beam.
        self.body_rays = np.concatenate((grid.reshape(-1, 3), axes))
        # Multipath: each beam ray's one-way pattern at its own direction in its own beam.
        beam_of_ray = np.repeat(np.arange(swath.beams), na * nl)
        self._ray_pattern = self._one_way(beam_of_ray, grid.reshape(-1, 3))
        self.set_pose(world_from_body)

    def _one_way(self, beam: NDArray[np.intp], body: F) -> F:
        """One-way pattern of beam ``beam`` in body directions ``body``; 0 outside its cast.

        A direction ``(sin psi, cos psi sin phi, -cos psi cos phi)`` is ``phi - a_j`` across
        from beam ``j``'s axis and ``psi`` along: ``echo.pattern`` of each width there.
        """
        swath, pattern = self.swath, self.echo.pattern
        across = np.arctan2(body[:, 1], -body[:, 2]) - self.angles[beam]
        along = np.arcsin(np.clip(body[:, 0], -1.0, 1.0))
        slack = 1.0 + 1e-9
        inside = (np.abs(across) <= 0.5 * swath.across_width * slack) & (
            np.abs(along) <= 0.5 * swath.along_width * slack
        )
        b = beam_intensity(
            pattern, np.where(inside, np.abs(across), 0.0), swath.across_width, 1
        ) * beam_intensity(pattern, np.where(inside, np.abs(along), 0.0), swath.along_width, 1)
        return np.where(inside, b, 0.0)

    def _hear_body(self, ray: NDArray[np.intp], body: F) -> tuple[NDArray[np.intp], F]:
        """The beam nearest across track to body directions ``body``, and its one-way pattern."""
        del ray  # heard by direction, whichever beam sent the ray
        swath = self.swath
        if swath.beams == 1:
            beam = np.zeros(body.shape[0], dtype=np.intp)
        else:
            angle = np.arctan2(body[:, 1], -body[:, 2])
            step = (angle - swath.min_angle) * (
                (swath.beams - 1) / (swath.max_angle - swath.min_angle)
            )
            beam = np.clip(np.rint(step), 0, swath.beams - 1).astype(np.intp)
        return beam, self._one_way(beam, body)

    def ping(self, caster: SurfaceCaster) -> EchosounderPing:
        """Cast, form every beam's echo in one pass, detect the bottom, compute the soundings."""
        n = self.swath.beams
        split = n * self.rays_per_beam
        hits, cut, extra = self._cast(caster, self.rays_per_beam, ghost_rays=split)
        ranges = np.asarray(cut, dtype=np.float64)
        c_ref = float(hits.reference_speed(self.echo.speed_of_sound)[0])
        record = self._echo(hits, ranges[:split].reshape(n, -1), extra)
        profiles = record.intensity
        found = detect_bottom(
            profiles,
            self.model.bin_centres,
            self.swath.threshold_db,
            self.swath.min_bins,
            record.noise_power,
        )
        quality = found.quality
        if self.swath.detection is Detection.AXIS:
            axis_range = ranges[split:]
            one_way = hits.travel_time(c_ref)[split:]
            in_window = (axis_range >= self.echo.min_range) & (axis_range <= self.echo.max_range)
            time = np.where(in_window, 2.0 * one_way, np.nan)
            quality = np.where(in_window, quality, Quality.NONE).astype(np.uint8)
        else:
            time = 2.0 * found.ranges / c_ref
        time = np.where(quality > Quality.NONE, time, np.nan)
        world = self._soundings(hits.bending, time, c_ref)
        inverse = np.linalg.inv(self.world_from_body)
        body = np.einsum('ij,nj->ni', inverse[:3, :3], world) + inverse[:3, 3]
        return EchosounderPing(
            self.angles,
            time,
            np.where(quality > Quality.NONE, found.intensities, 0.0),
            quality,
            body,
            world,
            profiles,
            self.model.bin_edges,
            c_ref,
            record,
        )

    def _echo(self, hits: RayHits, ranges: F, extra: ExtraReturns | None) -> EchoRecord:
        """The engine's echo of every beam.

        The incoherent sums (with the ghosts) smoothed by the pulse window, or the coherent
        envelope's energy per bin (its pulse spreads it).
        """
        count = ranges.size
        cos = np.asarray(hits.cos_incidence)[:count].reshape(ranges.shape)
        mu = np.asarray(hits.reflectivity)[:count].reshape(ranges.shape)
        return self.engine.ping(
            Returns(ranges, cos, mu, self.origin, self.directions[:count], extra=extra)
        )

    def _soundings(self, bending: Bending | None, time: F, c_ref: float) -> F:
        """(N, 3) world soundings from two-way times along the beam axes' world directions.

        ``bending``: how the caster bent the rays (its profile and sea surface), ``None`` for
        straight rays.
        """
        n = self.swath.beams
        axes = self.directions[n * self.rays_per_beam :]
        medium = None if bending is None else bending.profile
        profile = self.processing if self.processing is not None else medium
        if profile is None:  # the medium is straight-ray water of speed c_ref
            straight: F = self.origin + axes * (0.5 * c_ref * time)[:, None]
            return straight
        surface = self.surface_z if bending is None else bending.surface_z
        source_depth = max(surface - float(self.origin[2]), 0.0)
        depression = np.arcsin(np.clip(-axes[:, 2], -1.0, 1.0))
        flat = np.hypot(axes[:, 0], axes[:, 1])
        heading = axes[:, :2] / np.where(flat > 0.0, flat, 1.0)[:, None]
        ok = np.isfinite(time)
        world = np.full((n, 3), np.nan)
        if not ok.any():
            return world
        depth, offset = sounding(profile, source_depth, depression[ok], time[ok])
        world[ok, :2] = self.origin[:2] + heading[ok] * offset[:, None]
        world[ok, 2] = surface - depth
        return world


def _swath_engine(
    model: EchoModel,
    config: CoherentConfig | None,
    swath: SwathConfig,
    across_sum: float,
    pulse_bins: int,
) -> IncoherentEngine | CoherentEngine:
    """The echo engine of a swath; a coherent one's beams a fan across track of a line array.

    The array is steered to the beam angles from nadir and its -3 dB width is held to
    ``across_width`` (the echo configuration's ``beam_width`` is the fan's width there);
    ``across_sum``: the sum of the rays' across-track pattern weights, so that the beams'
    equivalent width is ``across_sum across_width / rays_across`` (``line_array``). The
    incoherent engine smooths by the pulse window of ``pulse_bins``.
    """
    beams = swath.beams
    spacing = (swath.max_angle - swath.min_angle) / (beams - 1) if beams > 1 else 0.0
    width = across_sum * swath.across_width / swath.rays_across
    return echo_engine(
        model,
        config,
        echo=dataclasses.replace(model.config, beam_width=swath.across_width),
        azimuths=swath.angles() if beams > 1 else None,
        coverage=beam_coverage(spacing, width),
        pulse_bins=pulse_bins,
    )
