"""The side-scan sonar (``mode: sidescan``): port and starboard fans and their waterfall.

Its settings (:class:`SidescanSettings`), its device (:class:`SidescanRanger`: a reading is
one ping of both channels with where the sonar was, which the waterfall needs to space its
lines along track), its builder and what it publishes: ``RangerData``, ``RawSonarImage``
per ping and the waterfall ``Image`` per new line (``ros/outputs.py``, part ``sidescan``).

In Ranger terms (``docs/ranger.md``) the device has two beams, starboard at -pi/2 and port
at +pi/2 about the body's z (``angular_resolution`` pi, fixed), a slant-range window and bin
width, and a ping rate no faster than the two-way travel time to ``max_range``.

Its along-track width is ``sidescan_horizontal_beam_width``: the node's ``beam_width`` (a
cone's) is refused in this mode rather than silently replaced (docs/sidescan.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.description import Robot, SonarSpec
from nps_sonar_py.devices.display import DisplaySettings, display_stage
from nps_sonar_py.devices.interface import (
    BasebandBeams,
    BasebandFrame,
    RangerConfig,
    RangerGeometry,
)
from nps_sonar_py.devices.kinds.base import FIXED_SCATTERERS, Built, Family, Kind, Setup, Unused
from nps_sonar_py.devices.memory import PIXEL_BYTES, Size, cell_size, image_size
from nps_sonar_py.devices.pinging import PingingRanger
from nps_sonar_py.devices.sensors import located, reading_rate, scanning_sonar_mount
from nps_sonar_py.devices.settings import (
    IMAGE_OUTPUTS,
    LINE_ARRAY,
    BeamSettings,
    CoherentSettings,
    GeometrySettings,
    ImageSettings,
    OutputSettings,
    ProjectedImageDtype,
    ScanningSettings,
    SensorSettings,
)
from nps_sonar_py.echo import BeamPattern, EchoConfig
from nps_sonar_py.echo.records import EchoRecord
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.records import Record, in_setting_names, same_as, setting
from nps_sonar_py.sensing.altitude import AltitudeSource
from nps_sonar_py.sensing.caster import SurfaceCaster
from nps_sonar_py.sensing.images import size_problem
from nps_sonar_py.sensing.sidescan import SidescanConfig, SidescanPing, SidescanSonar
from nps_sonar_py.sensing.waterfall import Waterfall, WaterfallConfig

__all__ = ['KIND', 'SIDESCAN_ANGLES', 'SidescanRanger', 'SidescanReading', 'SidescanSettings']


#: The images of modes multibeam and sweep, which a side-scan or an echosounder never makes.
@dataclass(frozen=True)
class SidescanSettings(Record):
    """The side-scan sonar (``mode: sidescan``): its port and starboard fans and the waterfall.

    Body frame x forward, y left (port), z up. Each side is a fan narrow along track
    (``sidescan_horizontal_beam_width``) and wide across it (``sidescan_vertical_beam_width``),
    its axis depressed by ``sidescan_tilt`` below the horizontal. Each bound is the core's
    (``SidescanConfig``, ``WaterfallConfig``: ``same_as``); :meth:`sidescan_config` and
    :meth:`waterfall_config` build them and map the names.
    """

    sidescan_horizontal_beam_width: float = same_as(
        SidescanConfig,
        'horizontal_width',
        "sidescan: along-track -3 dB width of each side's fan [rad]",
    )
    sidescan_vertical_beam_width: float = same_as(
        SidescanConfig,
        'vertical_width',
        "sidescan: across-track -3 dB width of each side's fan [rad]",
    )
    sidescan_tilt: float = same_as(
        SidescanConfig,
        'tilt',
        "sidescan: depression of each fan's axis below the horizontal [rad]",
    )
    sidescan_rays_along: int = same_as(
        SidescanConfig,
        'rays_along',
        'sidescan: ray columns along track across the horizontal beam width',
    )
    sidescan_rays_per_bin: int = same_as(
        SidescanConfig,
        'rays_per_bin',
        'sidescan: ray cells per slant-range bin at least, on a flat seabed at any altitude in '
        'sidescan_min_altitude..sidescan_max_altitude',
    )
    sidescan_min_altitude: float = same_as(
        SidescanConfig,
        'min_altitude',
        'sidescan: lowest altitude the ray placement serves [m] (also the shallowest ray, '
        'asin(min_altitude / max_range))',
    )
    sidescan_max_altitude: float = same_as(
        SidescanConfig, 'max_altitude', 'sidescan: highest altitude the ray placement serves [m]'
    )
    sidescan_vertical_pattern: BeamPattern = same_as(
        SidescanConfig,
        'vertical_pattern',
        'sidescan: one-way pattern across track, its -3 dB width sidescan_vertical_beam_width: '
        'uniform, piston, gaussian, sinc or sinc_dave',
    )
    sidescan_cast_to_nadir: bool = same_as(
        SidescanConfig,
        'cast_to_nadir',
        'sidescan: cast each fan down to nadir, the rays past its -3 dB edge weighted by the '
        "vertical pattern's skirt (the seabed heard from the altitude on, as real side-scans "
        'show); false: the fan stops at its edge, dark from the altitude to '
        'altitude / sin(sidescan_tilt + sidescan_vertical_beam_width / 2)',
    )
    sidescan_altitude: AltitudeSource = same_as(
        SidescanConfig,
        'altitude',
        "sidescan: where each ping's altitude (the waterfall's ground ranges) comes from: "
        'bottom_track (the median seabed level of the last sidescan_bottom_track_pings first '
        'returns, robust to objects) or altimeter (the vertical distance straight down)',
    )
    sidescan_bottom_track_pings: int = same_as(
        SidescanConfig,
        'bottom_track_pings',
        "sidescan: pings the bottom track's median seabed level runs over (1: each ping's own "
        'first return)',
    )
    waterfall_lines: int = same_as(
        WaterfallConfig, 'lines', 'sidescan: rows of the waterfall image (newest at the top)'
    )
    waterfall_samples: int = same_as(
        WaterfallConfig,
        'samples',
        'sidescan: waterfall pixels per side (image width 2 x this, nadir in the middle)',
    )
    waterfall_line_spacing: float = same_as(
        WaterfallConfig,
        'line_spacing',
        'sidescan: metres travelled along track per waterfall line; 0: a line per ping',
    )
    ground_range: bool = same_as(
        WaterfallConfig,
        'ground_range',
        'sidescan: waterfall in ground range (flat bottom, altitude: sidescan_altitude) '
        'instead of slant range; raw_image stays slant',
    )
    publish_raw_image: bool = setting(
        True,
        'sidescan: publish <device>/raw_image, marine_acoustic_msgs/RawSonarImage per ping '
        '(beam 0 port, 1 starboard; docs/marine.md), in the frame <frame>_frd',
    )
    raw_image_dtype: ProjectedImageDtype = setting(
        ProjectedImageDtype.FLOAT32,
        'sidescan raw_image samples: float32 (linear intensity) or uint8, uint16, uint32 (dB '
        'over image_db_min..image_db_max)',
    )
    publish_waterfall: bool = setting(
        True,
        'sidescan: publish <device>/waterfall, sensor_msgs/Image per new line (image_encoding, '
        'image_db_min..image_db_max)',
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        in_setting_names(self.sidescan_config, _FAN_NAMES)

    def sidescan_config(self) -> SidescanConfig:
        """The two fans (``sensing.sidescan.SidescanConfig``); ``ConfigurationError``.

        Names (``_FAN_NAMES``): the parameters carry ``sidescan_`` (a node has a
        ``beam_width``, a ``vertical_beam_width`` and a ``vertical_pattern`` of its multibeam
        too) and say ``beam_width``; the core's fields drop both:
        ``sidescan_horizontal_beam_width`` -> ``horizontal_width``,
        ``sidescan_vertical_beam_width`` -> ``vertical_width``, the others ``sidescan_<field>``
        -> ``<field>``.
        """
        return SidescanConfig(
            horizontal_width=self.sidescan_horizontal_beam_width,
            vertical_width=self.sidescan_vertical_beam_width,
            tilt=self.sidescan_tilt,
            rays_along=self.sidescan_rays_along,
            rays_per_bin=self.sidescan_rays_per_bin,
            min_altitude=self.sidescan_min_altitude,
            max_altitude=self.sidescan_max_altitude,
            vertical_pattern=self.sidescan_vertical_pattern,
            cast_to_nadir=self.sidescan_cast_to_nadir,
            altitude=self.sidescan_altitude,
            bottom_track_pings=self.sidescan_bottom_track_pings,
        )

    def waterfall_config(self) -> WaterfallConfig:
        """The waterfall (``sensing.waterfall.WaterfallConfig``); ``ConfigurationError``.

        Names: the parameters say ``waterfall_`` (the scanning node has ``lines`` of nothing
        else, but ``samples`` and ``line_spacing`` alone would not say whose);
        ``waterfall_<field>`` -> ``<field>``; ``ground_range`` is the core's name.
        """
        return WaterfallConfig(
            lines=self.waterfall_lines,
            samples=self.waterfall_samples,
            ground_range=self.ground_range,
            line_spacing=self.waterfall_line_spacing,
        )


#: ``SidescanConfig`` field -> the setting that sets it (:meth:`SidescanSettings.sidescan_config`).
_FAN_NAMES = {
    'horizontal_width': 'sidescan_horizontal_beam_width',
    'vertical_width': 'sidescan_vertical_beam_width',
    'tilt': 'sidescan_tilt',
    'rays_along': 'sidescan_rays_along',
    'rays_per_bin': 'sidescan_rays_per_bin',
    'min_altitude': 'sidescan_min_altitude',
    'max_altitude': 'sidescan_max_altitude',
    'vertical_pattern': 'sidescan_vertical_pattern',
    'cast_to_nadir': 'sidescan_cast_to_nadir',
    'altitude': 'sidescan_altitude',
    'bottom_track_pings': 'sidescan_bottom_track_pings',
}

#: The two beams in Ranger terms, (min_angle, max_angle): starboard and port about body z.
SIDESCAN_ANGLES = (-math.pi / 2, math.pi / 2)


@dataclass(frozen=True, eq=False)
class SidescanReading:
    """One ping of both channels, where the sonar was (m), and the waterfall if it grew.

    ``waterfall`` is the device's waterfall when this ping added a line to it, else ``None``.
    """

    ping: SidescanPing
    position: NDArray[np.float64]
    waterfall: Waterfall | None = None

    @property
    def echo(self) -> EchoRecord | None:
        """The ping's echo record (``echo.engine``)."""
        return self.ping.echo

    @property
    def ranges(self) -> NDArray[np.float64]:
        """(2,) per channel (port, starboard) the slant range of its first bin with an echo, m.

        ``inf``: a channel that heard nothing.
        """
        edges = np.asarray(self.ping.bin_edges, dtype=np.float64)
        occupied = np.asarray(self.ping.profiles) > 0.0
        first: NDArray[np.float64] = np.where(
            occupied.any(axis=1), edges[np.argmax(occupied, axis=1)], np.inf
        )
        return first

    @property
    def intensities(self) -> NDArray[np.float64]:
        """(2,) per channel its total intensity (the sum of its profile)."""
        totals: NDArray[np.float64] = np.asarray(self.ping.profiles, dtype=np.float64).sum(axis=1)
        return totals


#: Bytes per pixel of a waterfall while it is kept and published (float32 lines, the float32
#: image, float64 dB levels, the pixels and the message's copy).
WATERFALL_BYTES = 4 + 4 + 8 + 2 + 2


class SidescanRanger(PingingRanger[SidescanSonar]):
    """A side-scan sonar as a Ranger device of one element; a reading pings both channels.

    It keeps the waterfall of its pings (``waterfall``): it starts empty, and again when an
    accepted SetConfig moves the window its samples span (:meth:`line_window`); one that keeps
    the window (a new rate or bin width) keeps the lines (docs/sidescan.md, Waterfall).

    Raises:
        ConfigurationError: the ping rate (``PingingRanger``), or a waterfall larger than
            ``max_pixels`` or the memory available (one line, nothing allocated).
    """

    def __init__(
        self,
        sonar: SidescanSonar,
        geometry: RangerGeometry,
        *,
        frequency: float,
        limits: tuple[float, float] | None = None,
        waterfall: WaterfallConfig | None = None,
        max_pixels: int = 2**31 - 1,
    ) -> None:
        super().__init__(sonar, geometry, frequency=frequency, limits=limits)
        config = waterfall or WaterfallConfig()
        problem = size_problem(
            'waterfall', config.lines, 2 * config.samples, WATERFALL_BYTES, max_pixels
        )
        if problem:
            raise ConfigurationError(problem)
        self.waterfall = Waterfall(config)
        self._window = self.line_window()

    def line_window(self) -> tuple[float, float]:
        """The range a waterfall line spans, m: ground 0..max_range, or the slant window."""
        echo = self.sonar.echo
        return (0.0 if self.waterfall.ground_range else echo.min_range, echo.max_range)

    #: A side-scan's baseband is in the FRD frame, port then starboard.
    baseband_frame = BasebandFrame.FRD

    def baseband_beams(self, reading: SidescanReading) -> BasebandBeams:
        """Port and starboard at their axes' angles across track; tx along, rx across."""
        del reading  # the two channels do not move
        config = self.sonar.config
        across = 0.5 * math.pi - config.tilt
        return BasebandBeams(
            np.array([-across, across]), config.horizontal_width, config.vertical_width
        )

    def read(self, caster: SurfaceCaster) -> SidescanReading:
        """One ping of both channels, with the position it was taken at, into the waterfall."""
        position = self.sonar.world_from_body[:3, 3].copy()
        ping = self.sonar.ping(caster)
        window = self.line_window()
        if window != self._window:  # the old lines' samples are at other ranges
            self.waterfall.clear()
            self._window = window
        added = self.waterfall.add(ping, position)
        return SidescanReading(ping, position, self.waterfall if added else None)

    def ranger_config(self) -> RangerConfig:
        """The configuration in Ranger terms (module docstring)."""
        e = self.sonar.echo
        low, high = SIDESCAN_ANGLES
        return RangerConfig(
            low, high, high - low, e.min_range, e.max_range, e.bin_width, self.frequency
        )

    def _angles_problem(self, config: RangerConfig) -> str | None:
        """The two beams' angles are fixed (``SIDESCAN_ANGLES``, ``angular_resolution`` pi)."""
        low, high = SIDESCAN_ANGLES
        angles = (config.min_angle, config.max_angle, config.angular_resolution)
        if not np.allclose(angles, (low, high, high - low), rtol=0.0, atol=1e-6):
            return (
                'a side-scan has two fixed beams: min_angle -pi/2 (starboard), max_angle pi/2 '
                '(port), angular_resolution pi'
            )
        return None

    def _beams_of(self, config: RangerConfig) -> int:
        """Its two channels, whatever the request (its angles are fixed)."""
        return 2

    def _rebuilt(self, echo: EchoConfig, config: RangerConfig) -> SidescanSonar:
        """The same fans with the new range window and bins."""
        old = self.sonar
        return SidescanSonar(
            echo,
            old.config,
            old.world_from_body,
            imaging=old.imaging,
            label_entities=old.label_entities,
            multipath=old.multipath,
            coherent=old.coherent,
        )


def sonar(
    setup: Setup, window: SonarSpec, pose: NDArray[np.float64], labels: int | None
) -> SidescanSonar:
    """Both channels' fans of ``setup`` at ``pose``, in ``window``'s range."""
    beam = setup[BeamSettings]
    return SidescanSonar(
        beam.echo_config(window),
        setup[SidescanSettings].sidescan_config(),
        pose,
        imaging=setup[ScanningSettings].imaging_config(),
        label_entities=labels,
        multipath=beam.multipath_config(),
        coherent=setup[CoherentSettings].coherent_config(),
    )


def build(robot: Robot, setup: Setup, _entities: int) -> Built:
    """Both channels' fans, pinging at the node's rate."""
    sensor, mount = scanning_sonar_mount(robot, setup[SensorSettings], setup[GeometrySettings])
    geometry = mount.geometry({})

    def make() -> SidescanRanger:
        channels = sonar(setup, sensor.sonar, geometry.pose, None)
        echo = channels.echo
        rate = reading_rate(setup[OutputSettings], sensor)
        ranger = SidescanRanger(
            channels,
            geometry,
            frequency=rate,
            limits=(echo.min_range, echo.max_range),
            waterfall=setup[SidescanSettings].waterfall_config(),
            max_pixels=setup[ImageSettings].image_max_pixels,
        )
        ranger.display = display_stage(setup)
        return ranger

    return mount, located(sensor, make)


def sizes(setup: Setup) -> tuple[Size, ...]:
    """Its two channels' cells, its waterfall and an image at its largest (``Kind.sizes``).

    Its rays follow from its geometry (``sidescan_rows``), bounded by ``MAX_SIDESCAN_RAYS``.
    """
    side = setup[SidescanSettings]
    lines, samples = side.waterfall_lines, side.waterfall_samples
    waterfall = Size(
        f'waterfall_lines {lines} x waterfall_samples {samples}',
        'the waterfall',
        lines * 2 * samples,
        PIXEL_BYTES,
    )
    bins = setup[BeamSettings].range_bins
    coherent = setup[CoherentSettings].is_coherent
    return (
        cell_size(f'2 channels x range_bins {bins}', 2 * bins, coherent),
        waterfall,
        image_size(setup[ImageSettings].image_max_pixels),
    )


KIND = Kind(
    name='sidescan',
    family=Family.SCANNING,
    summary='port and starboard fans and a waterfall',
    device=SidescanRanger,
    build=build,
    records=(SidescanSettings, CoherentSettings, DisplaySettings),
    outputs=('sidescan', 'display', 'baseband'),
    sonar=sonar,
    sizes=sizes,
    unused=(
        FIXED_SCATTERERS,
        Unused(
            ('min_angle', 'max_angle'),
            'its two channels look to starboard and port, across track (their spread is '
            'sidescan_vertical_beam_width)',
        ),
        Unused(
            ('rays',),
            'its rays per channel are set by sidescan_rays_along and sidescan_rays_per_bin',
        ),
        Unused(
            IMAGE_OUTPUTS,
            'it publishes its raw_image and waterfall, not the images of mode multibeam and sweep',
        ),
        Unused(
            ('publish_projected_image', 'sweep_image_update'),
            "it publishes its raw_image and waterfall (those are modes multibeam and sweep's)",
        ),
        Unused(
            ('beam_width',),
            'its along-track width is sidescan_horizontal_beam_width, its across-track width '
            'sidescan_vertical_beam_width',
        ),
        Unused(
            LINE_ARRAY,
            "its two channels are not a fan's beams: no line array leaks across them",
        ),
    ),
)
