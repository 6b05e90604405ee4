"""The multibeam imaging sonar (``mode: multibeam``): a fan of beams per ping.

Its settings are the fan's beams, its range window and the preset of a real sensor they may
come from (:class:`FanSettings`, ``devices/presets.py``), the scanning node's sector
(``ScanningSettings``: ``min_angle``, ``max_angle``, and the image shaping) and images
(``ImageSettings``). ``fan_pattern`` chooses the incoherent model's horizontal pattern: the
rays' own (``beam_pattern``) or the receive line array's ``|AF|**2`` of the coherent settings'
``array_*`` (the coherent fan's mean image, ``docs/beamforming.md``). A reading is one ping of
every beam. It publishes ``LaserScan``,
``MultibeamPing``, ``RangerData``, the switched-on images and ``ProjectedSonarImage``
(``ros/outputs.py``, part ``multibeam``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.description import Robot, SonarSpec
from nps_sonar_py.devices.display import DisplaySettings, display_stage
from nps_sonar_py.devices.interface import (
    MAX_RANGE,
    BasebandBeams,
    BasebandFrame,
    RangerConfig,
    steps_problem,
)
from nps_sonar_py.devices.kinds.base import PER_RAY_SCATTERERS, Built, Family, Kind, Setup, Unused
from nps_sonar_py.devices.memory import (
    Size,
    cell_size,
    echo_sizes,
    image_size,
    line_array_sizes,
)
from nps_sonar_py.devices.pinging import PingingRanger, beam_axes
from nps_sonar_py.devices.presets import NO_PRESET, preset_names, preset_settings
from nps_sonar_py.devices.sensors import located, reading_rate, scanning_sonar_mount
from nps_sonar_py.devices.settings import (
    BeamSettings,
    CoherentSettings,
    GeometrySettings,
    ImageSettings,
    OutputSettings,
    ScanningSettings,
    SensorSettings,
)
from nps_sonar_py.echo import BeamPattern, EchoConfig
from nps_sonar_py.echo.array_response import SteeredArray, fan_array_problem
from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.formed_engine import fan_array
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.records import Record, choice_text, same_as, setting
from nps_sonar_py.sensing.caster import SurfaceCaster
from nps_sonar_py.sensing.images import SectorGeometry
from nps_sonar_py.sensing.multibeam import (
    BeamSpacing,
    FanConfig,
    FanPing,
    MultibeamSonar,
    bearings_problem,
    fan_problem,
)

__all__ = ['KIND', 'FanPattern', 'FanRanger', 'FanSettings']


class FanPattern(StrEnum):
    """The incoherent fan's horizontal pattern: its rays' own, or its receive array's."""

    RAYS = 'rays'
    ARRAY = 'array'


def _preset_text() -> str:
    """``sonar_preset``'s description, its choices read from the table of presets."""
    return (
        'multibeam: a real sonar whose public figures give the other settings their defaults '
        f'(docs/presets.md): {choice_text(preset_names())}; parameters given win over it'
    )


@dataclass(frozen=True)
class FanSettings(Record):
    """The fan's beams and range window (``mode: multibeam``); :meth:`fan_config`: the core's fan.

    ``sonar_preset`` supplies the defaults of the other settings (``records.SettingSpec``'s
    ``supplies``; ``devices/presets.py``). ``min_range`` and ``max_range`` 0 take the URDF
    ``<sonar>``'s.
    """

    sonar_preset: str = setting(
        NO_PRESET, _preset_text, choices=preset_names, supplies=preset_settings
    )
    min_range: float = setting(
        0.0,
        'multibeam: near end of the range window [m]; 0: the URDF <sonar> min',
        1e-6,
        MAX_RANGE,
        zero=True,
    )
    max_range: float = setting(
        0.0,
        'multibeam: far end of the range window [m]; 0: the URDF <sonar> max',
        1e-6,
        MAX_RANGE,
        zero=True,
    )
    beams: int = same_as(FanConfig, 'beams', 'multibeam: number of beams')
    vertical_beam_width: float = same_as(
        FanConfig, 'vertical_width', 'multibeam: vertical extent of a beam [rad]'
    )
    rays_horizontal: int = same_as(
        FanConfig, 'rays_horizontal', 'multibeam: ray columns across a beam'
    )
    rays_vertical: int = same_as(FanConfig, 'rays_vertical', 'multibeam: ray rows across a beam')
    vertical_pattern: BeamPattern = same_as(
        FanConfig,
        'vertical_pattern',
        'multibeam: one-way pattern across the elevation, its -3 dB width vertical_beam_width: '
        'uniform (flat), piston, gaussian, sinc or sinc_dave',
    )
    vertical_cast: float = same_as(
        FanConfig,
        'vertical_cast',
        'multibeam: elevation extent cast [rad], at least vertical_beam_width: the rows past '
        "its -3 dB edges heard through vertical_pattern's skirt both ways; 0: "
        'vertical_beam_width alone (a knife edge)',
    )
    beam_spacing: BeamSpacing = same_as(
        FanConfig,
        'beam_spacing',
        'multibeam: the beam axes from min_angle to max_angle evenly in angle (angle; the '
        "LaserScan's angles) or evenly in its sine (sine: as a line array steers its beams, "
        "the Oculus presets' bearings; LaserScan then carries their mean step, MultibeamPing's "
        'azimuths and the images the true ones)',
    )
    bearings: tuple[float, ...] = same_as(
        FanConfig,
        'bearings',
        'multibeam: the beam axes as a table [rad, REP 103], one per beam, strictly increasing, '
        "within min_angle..max_angle (a device's own table); empty: beam_spacing",
    )
    fan_pattern: FanPattern = setting(
        FanPattern.RAYS,
        "multibeam, incoherent model: the beams' horizontal pattern, rays (each beam its own "
        "rays' beam_pattern) or array (every beam hears the whole fan through the receive line "
        "array's two-way |AF|^2 of array_elements, array_spacing, array_window: the coherent "
        "fan's mean image, docs/beamforming.md)",
    )

    def range_window(self, echo: EchoConfig) -> EchoConfig:
        """``echo`` (the URDF ``<sonar>``'s window) with the ends these settings give."""
        return dataclasses.replace(
            echo,
            min_range=self.min_range or echo.min_range,
            max_range=self.max_range or echo.max_range,
        )

    def fan_config(self, sector: ScanningSettings) -> FanConfig:
        """The fan across ``sector``; ``ConfigurationError`` if impossible.

        Names: ``vertical_beam_width`` -> ``vertical_width``: the parameter says it is the
        beam's (a node has a ``beam_width`` too); ``FanConfig`` holds only beams. The others
        are the core field's names.
        """
        return FanConfig(
            beams=self.beams,
            min_angle=sector.min_angle,
            max_angle=sector.max_angle,
            vertical_width=self.vertical_beam_width,
            rays_horizontal=self.rays_horizontal,
            rays_vertical=self.rays_vertical,
            vertical_pattern=self.vertical_pattern,
            vertical_cast=self.vertical_cast,
            beam_spacing=self.beam_spacing,
            bearings=self.bearings,
        )


def receive_array(setup: Setup, echo: EchoConfig, fan: FanConfig) -> SteeredArray | None:
    """The array ``fan_pattern: array`` hears the fan through, ``None`` for ``rays``.

    The coherent fan's array of the same settings (``formed_engine.fan_array``), refused as
    it refuses it (given elements too few for the beams, a grating lobe in the fan; the sonar
    refuses one beam, ``multibeam.pattern_problem``); ``ConfigurationError`` (one line) with
    the coherent model too, whose beams the array forms already.
    """
    if setup[FanSettings].fan_pattern is FanPattern.RAYS:
        return None
    settings = setup[CoherentSettings]
    if settings.is_coherent:
        raise ConfigurationError(
            "fan_pattern array is the incoherent model's: the coherent fan's beams are formed "
            'by its array already; set fan_pattern rays or echo_model incoherent'
        )
    config = CoherentConfig(
        array_elements=settings.array_elements,
        array_spacing=settings.array_spacing,
        array_window=settings.array_window,
    )
    array = fan_array(config, echo.beam_width)
    given = settings.array_elements > 0  # too few elements for the beams: refused
    problem = fan_array_problem(array, np.sin(fan.azimuths()), echo.beam_width, given=given)
    if problem:
        raise ConfigurationError(problem)
    return array


class FanRanger(PingingRanger[MultibeamSonar]):
    """A multibeam sonar as a Ranger device of one element; a reading pings every beam."""

    #: A fan's baseband is in the acoustic frame: ``rx_angles`` minus the REP 103 azimuths.
    baseband_frame = BasebandFrame.ACOUSTIC

    def baseband_beams(self, reading: FanPing) -> BasebandBeams:
        """The fan's beams, at minus their azimuths; tx the vertical width, rx a beam's."""
        fan = self.sonar.fan
        return BasebandBeams(-reading.azimuths, fan.vertical_width, self.echo.beam_width)

    def read(self, caster: SurfaceCaster) -> FanPing:
        """One ping of every beam."""
        return self.sonar.ping(caster)

    def ranger_config(self) -> RangerConfig:
        """The configuration in Ranger terms."""
        f, e = self.sonar.fan, self.sonar.echo
        return RangerConfig(
            f.min_angle,
            f.max_angle,
            f.spacing,
            e.min_range,
            e.max_range,
            e.bin_width,
            self.frequency,
        )

    def image_geometry(self) -> SectorGeometry:
        """The geometry of a ping's images: the fan's beam axes and the range bins."""
        return self.sonar.image_geometry()

    def _angles_problem(self, config: RangerConfig) -> str | None:
        """Beam axes: their spacing sets the beam count, within what a fan may hold.

        A fan of a table of bearings keeps its axes (the table is a parameter, read at start).
        """
        fan, now = self.sonar.fan, self.ranger_config()
        axes = (config.min_angle, config.max_angle, config.angular_resolution)
        if fan.bearings and axes != (now.min_angle, now.max_angle, now.angular_resolution):
            return (
                'the beam axes are the bearings table (parameter bearings, read at start): '
                'a Ranger configuration cannot change min_angle, max_angle or angular_resolution'
            )
        intervals, problem = steps_problem(config)
        return (
            problem
            or fan_problem(intervals + 1, config.min_angle, config.max_angle)
            or bearings_problem(
                intervals + 1, config.min_angle, config.max_angle, fan.beam_spacing, ()
            )
        )

    def _rebuilt(self, echo: EchoConfig, config: RangerConfig) -> MultibeamSonar:
        """The fan of the new axes."""
        old, axes = self.sonar, beam_axes(config)
        fan = dataclasses.replace(
            old.fan, beams=axes.beams, min_angle=axes.min_angle, max_angle=axes.max_angle
        )
        return MultibeamSonar(
            echo,
            fan,
            old.world_from_body,
            imaging=old.imaging,
            label_entities=old.label_entities,
            multipath=old.multipath,
            coherent=old.coherent,
            array_pattern=old.array_pattern,
        )


def sonar(
    setup: Setup, window: SonarSpec, pose: NDArray[np.float64], labels: int | None
) -> MultibeamSonar:
    """The fan of ``setup`` at ``pose``, in ``window``'s range unless ``FanSettings`` sets it."""
    beam, sector = setup[BeamSettings], setup[ScanningSettings]
    echo = setup[FanSettings].range_window(beam.echo_config(window))
    fan = setup[FanSettings].fan_config(sector)
    if fan.beams == 1 and setup[CoherentSettings].is_coherent:  # a ray cone's echo
        problem = PER_RAY_SCATTERERS.problem('multibeam', setup, (CoherentSettings,))
        if problem:
            raise ConfigurationError(f'{problem} (beams 1)')
    return MultibeamSonar(
        echo,
        fan,
        pose,
        imaging=sector.imaging_config(),
        label_entities=labels,
        multipath=beam.multipath_config(),
        coherent=setup[CoherentSettings].coherent_config(),
        array_pattern=receive_array(setup, echo, fan),
    )


def build(robot: Robot, setup: Setup, entities: int) -> Built:
    """The fan across the sector (``entities``: the label table's length, with labels)."""
    sensor, mount = scanning_sonar_mount(robot, setup[SensorSettings], setup[GeometrySettings])
    geometry = mount.geometry({})
    labels = entities if setup[ImageSettings].publish_labels else None

    def make() -> FanRanger:
        fan = sonar(setup, sensor.sonar, geometry.pose, labels)
        echo = fan.echo
        rate = reading_rate(setup[OutputSettings], sensor)
        ranger = FanRanger(fan, geometry, frequency=rate, limits=(echo.min_range, echo.max_range))
        ranger.display = display_stage(setup)
        return ranger

    return mount, located(sensor, make)


def sizes(setup: Setup) -> tuple[Size, ...]:
    """A ping's rays and cells, its line array's leakage, an image at its largest."""
    fan, coherent = setup[FanSettings], setup[CoherentSettings]
    bins = setup[BeamSettings].range_bins
    rays = fan.beams * fan.rays_horizontal * fan.rays_vertical
    elements = coherent.array_elements if coherent.is_coherent else 0
    names = (
        f'beams {fan.beams} x rays_horizontal {fan.rays_horizontal} x rays_vertical '
        f'{fan.rays_vertical}'
    )
    return (
        *echo_sizes(
            (f'beams {fan.beams}', fan.beams),
            (names, rays),
            bins,
            coherent=coherent.is_coherent,
        ),
        *line_array_sizes(fan.beams, bins, elements, coherent.leak_cells),
        *pattern_sizes(fan, bins),
        image_size(setup[ImageSettings].image_max_pixels),
    )


def pattern_sizes(fan: FanSettings, bins: int) -> tuple[Size, ...]:
    """``fan_pattern: array``: the weights and a ping's column profiles.

    Each beam's weight of every column in each band of its rows (at most one a row:
    ``multibeam.cone_bands``).
    """
    if fan.fan_pattern is FanPattern.RAYS:
        return ()
    columns = fan.beams * fan.rays_horizontal
    names = f'beams {fan.beams} x rays_horizontal {fan.rays_horizontal}'
    return (
        Size(
            f'{names} x beams {fan.beams} x rays_vertical {fan.rays_vertical} with fan_pattern '
            'array',
            "the array pattern's weights at most",
            fan.beams * columns * fan.rays_vertical,
            8,
        ),
        cell_size(f'{names} x range_bins {bins} with fan_pattern array', columns * bins, False),
    )


KIND = Kind(
    name='multibeam',
    family=Family.SCANNING,
    summary='a fan of beams per ping',
    device=FanRanger,
    build=build,
    records=(FanSettings, CoherentSettings, DisplaySettings),
    outputs=('multibeam', 'display', 'baseband'),
    sonar=sonar,
    sizes=sizes,
    unused=(
        Unused(('rays',), 'its rays per beam are rays_horizontal x rays_vertical'),
        Unused(
            ('sweep_image_update',),
            "its images are of each ping (sweep_image_update is mode sweep's)",
        ),
    ),
)
