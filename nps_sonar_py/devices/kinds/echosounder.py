"""The bathymetric multibeam echosounder (``mode: echosounder``): a swath of soundings.

Its settings (:class:`EchosounderSettings`: the swath, the bottom detector, the processing
profile), its device (:class:`EchosounderRanger`: a reading is one ping, every beam's
detection and sounding; the Ranger configuration's angles are the swath's beam axes, their
spacing sets the beam count), its builder, and what it publishes: ``PointCloud2`` soundings,
``SonarDetections`` and ``RangerData`` (``ros/outputs.py``, part ``echosounder``), and with
the coherent model (``CoherentSettings``) its baseband (part ``baseband``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from nps_sonar_py.description import Robot
from nps_sonar_py.devices.interface import (
    BasebandBeams,
    BasebandFrame,
    RangerConfig,
    steps_problem,
)
from nps_sonar_py.devices.kinds.base import PER_RAY_SCATTERERS, Built, Family, Kind, Setup, Unused
from nps_sonar_py.devices.memory import Size, echo_sizes
from nps_sonar_py.devices.pinging import PingingRanger, beam_axes
from nps_sonar_py.devices.sensors import located, reading_rate, scanning_sonar_mount
from nps_sonar_py.devices.settings import (
    IMAGE_OUTPUTS,
    BeamSettings,
    CoherentSettings,
    GeometrySettings,
    OutputSettings,
    SensorSettings,
)
from nps_sonar_py.echo import EchoConfig
from nps_sonar_py.echo.sound_speed import SoundSpeedProfile, read_profile_file
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.records import Record, in_setting_names, same_as, setting
from nps_sonar_py.sensing.caster import SurfaceCaster
from nps_sonar_py.sensing.echosounder import Detection, Echosounder, EchosounderPing, SwathConfig

__all__ = ['KIND', 'EchosounderRanger', 'EchosounderSettings']


@dataclass(frozen=True)
class EchosounderSettings(Record):
    """``mode: echosounder``: the swath, the bottom detector and the processing profile.

    :meth:`swath_config` builds the core's ``SwathConfig``; :meth:`processing_profile` the
    profile soundings are computed with (``None``: the water's own). docs/echosounder.md.
    """

    swath_beams: int = same_as(SwathConfig, 'beams', 'echosounder: number of beams')
    swath_min_angle: float = same_as(
        SwathConfig, 'min_angle', 'echosounder: first beam from nadir [rad], positive to port'
    )
    swath_max_angle: float = same_as(
        SwathConfig, 'max_angle', 'echosounder: last beam from nadir [rad]'
    )
    across_track_width: float = same_as(
        SwathConfig, 'across_width', 'echosounder: beam width across track, -3 dB one-way [rad]'
    )
    along_track_width: float = same_as(
        SwathConfig, 'along_width', 'echosounder: beam width along track, -3 dB one-way [rad]'
    )
    rays_across_track: int = same_as(
        SwathConfig, 'rays_across', 'echosounder: ray columns across a beam'
    )
    rays_along_track: int = same_as(
        SwathConfig, 'rays_along', 'echosounder: ray rows along a beam'
    )
    detection_threshold_db: float = same_as(
        SwathConfig,
        'threshold_db',
        'echosounder: detection keeps the first run of bins within this of the peak [dB], < 0',
    )
    detection_min_bins: int = same_as(
        SwathConfig,
        'min_bins',
        'echosounder: fewer bins in a detection make its quality low (1)',
    )
    detection_time: Detection = same_as(
        SwathConfig,
        'detection',
        'echosounder: amplitude (weighted centre of the first strong return) or axis (its hit)',
    )
    processing_sound_speed: float = setting(
        0.0,
        'echosounder: constant speed the soundings are computed with [m/s]; 0: the true profile',
        1300.0,
        1800.0,
        zero=True,
    )
    processing_profile_file: str = setting(
        '', "echosounder: sound-speed profile file the soundings are computed with; '': the true"
    )
    publish_soundings: bool = setting(True, 'echosounder: <device>/soundings, PointCloud2')
    publish_detections: bool = setting(
        True, 'echosounder: <device>/detections, marine_acoustic_msgs/SonarDetections'
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        in_setting_names(lambda: self.swath_config(SwathConfig().pulse_duration), _SWATH_NAMES)

    def swath_config(self, pulse_duration: float) -> SwathConfig:
        """The core's swath, its window ``pulse_duration`` s long; ``ConfigurationError`` if bad.

        Names: the scanning node's parameters share one namespace with the multibeam's
        (``beams``, ``min_angle``, ``max_angle``, ``rays_horizontal``, ...) and the detector's
        with the echo model's (``threshold_db``), so they say whose they are; ``SwathConfig``
        holds one swath and its detector, and drops that (``_SWATH_NAMES``: ``swath_beams`` ->
        ``beams``, ``across_track_width`` -> ``across_width``, ``detection_time`` ->
        ``detection``, ...). The pulse is ``CoherentSettings.pulse_duration``, one setting whatever
        the echo model.
        """
        return SwathConfig(
            beams=self.swath_beams,
            min_angle=self.swath_min_angle,
            max_angle=self.swath_max_angle,
            across_width=self.across_track_width,
            along_width=self.along_track_width,
            rays_across=self.rays_across_track,
            rays_along=self.rays_along_track,
            threshold_db=self.detection_threshold_db,
            min_bins=self.detection_min_bins,
            detection=self.detection_time,
            pulse_duration=pulse_duration,
        )

    def processing_profile(self) -> SoundSpeedProfile | None:
        """The processing profile: a file, a constant speed, or ``None`` (the true one)."""
        if self.processing_profile_file and self.processing_sound_speed:
            raise ConfigurationError(
                'give processing_profile_file or processing_sound_speed, not both'
            )
        if self.processing_profile_file:
            return read_profile_file(self.processing_profile_file)
        if self.processing_sound_speed:
            return SoundSpeedProfile.constant(self.processing_sound_speed)
        return None


#: ``SwathConfig`` field -> the setting that sets it (:meth:`EchosounderSettings.swath_config`).
_SWATH_NAMES = {
    'beams': 'swath_beams',
    'min_angle': 'swath_min_angle',
    'max_angle': 'swath_max_angle',
    'across_width': 'across_track_width',
    'along_width': 'along_track_width',
    'rays_across': 'rays_across_track',
    'rays_along': 'rays_along_track',
    'threshold_db': 'detection_threshold_db',
    'min_bins': 'detection_min_bins',
    'detection': 'detection_time',
}


class EchosounderRanger(PingingRanger[Echosounder]):
    """An echosounder as a Ranger device of one element; a reading pings every beam."""

    #: An echosounder's baseband is in the FRD frame, at its detections' angles.
    baseband_frame = BasebandFrame.FRD

    def baseband_beams(self, reading: EchosounderPing) -> BasebandBeams:
        """The beams at minus their angles from nadir; tx along track, rx across."""
        swath = self.sonar.swath
        return BasebandBeams(-reading.angles, swath.along_width, swath.across_width)

    def read(self, caster: SurfaceCaster) -> EchosounderPing:
        """One ping of every beam."""
        return self.sonar.ping(caster)

    def ranger_config(self) -> RangerConfig:
        """The configuration in Ranger terms (angles from nadir about +x)."""
        s, e = self.sonar.swath, self.sonar.echo
        spacing = (s.max_angle - s.min_angle) / (s.beams - 1) if s.beams > 1 else 0.0
        return RangerConfig(
            s.min_angle,
            s.max_angle,
            spacing,
            e.min_range,
            e.max_range,
            e.bin_width,
            self.frequency,
        )

    def _angles_problem(self, config: RangerConfig) -> str | None:
        """Beam axes: their spacing sets the beam count (``SwathConfig`` bounds the count)."""
        _, problem = steps_problem(config)
        return problem

    def _rebuilt(self, echo: EchoConfig, config: RangerConfig) -> Echosounder:
        """The swath of the new axes."""
        old, axes = self.sonar, beam_axes(config)
        swath = dataclasses.replace(
            old.swath, beams=axes.beams, min_angle=axes.min_angle, max_angle=axes.max_angle
        )
        return Echosounder(
            echo,
            swath,
            old.world_from_body,
            processing=old.processing,
            surface_z=old.surface_z,
            multipath=old.multipath,
            coherent=old.coherent,
        )


def build(robot: Robot, setup: Setup, _entities: int) -> Built:
    """The swath, its detector and processing profile (``InputError`` for a bad file)."""
    sensor, mount = scanning_sonar_mount(robot, setup[SensorSettings], setup[GeometrySettings])
    geometry = mount.geometry({})
    beam, settings = setup[BeamSettings], setup[EchosounderSettings]
    # One pulse_duration: the incoherent model's profile window, the coherent model's pulse
    # (which spreads the echo itself: its engine applies no window).
    pulse = setup[CoherentSettings]
    coherent = pulse.coherent_config()

    def make() -> EchosounderRanger:
        echo = beam.echo_config(sensor.sonar)
        sonar = Echosounder(
            echo,
            settings.swath_config(pulse.pulse_duration),
            geometry.pose,
            processing=settings.processing_profile(),
            surface_z=beam.sea_surface_z,
            multipath=beam.multipath_config(),
            coherent=coherent,
        )
        rate = reading_rate(setup[OutputSettings], sensor)
        return EchosounderRanger(
            sonar, geometry, frequency=rate, limits=(echo.min_range, echo.max_range)
        )

    return mount, located(sensor, make)


def sizes(setup: Setup) -> tuple[Size, ...]:
    """A ping's rays and cells (``Kind.sizes``)."""
    swath = setup[EchosounderSettings]
    beams, across, along = swath.swath_beams, swath.rays_across_track, swath.rays_along_track
    return echo_sizes(
        (f'swath_beams {beams}', beams),
        (
            f'swath_beams {beams} x rays_across_track {across} x rays_along_track {along}',
            beams * across * along,
        ),
        setup[BeamSettings].range_bins,
        coherent=setup[CoherentSettings].is_coherent,
    )


KIND = Kind(
    name='echosounder',
    family=Family.SCANNING,
    summary='a bathymetric swath',
    device=EchosounderRanger,
    build=build,
    records=(EchosounderSettings, CoherentSettings),
    outputs=('echosounder', 'baseband'),
    sizes=sizes,
    unused=(
        Unused(('rays',), 'its rays per beam are rays_across_track x rays_along_track'),
        Unused(
            IMAGE_OUTPUTS,
            'it publishes its soundings and detections, not the images of mode multibeam and '
            'sweep',
        ),
        Unused(
            ('tvg', 'cell_speckle', 'side_lobe_db'),
            'it detects the bottom in the plain echo (they shape the images of mode multibeam '
            'and sidescan)',
        ),
        Unused(
            ('publish_projected_image', 'sweep_image_update'),
            "it publishes its soundings and detections (those are modes multibeam and sweep's)",
        ),
        Unused(
            ('beam_width',),
            "its beams' widths are across_track_width and along_track_width",
        ),
        PER_RAY_SCATTERERS,
    ),
)
