"""The dataset's sonar: a preset's kind, built by that kind's own builder, as the node builds it.

A preset renders a row of ``devices.kinds.KINDS`` (``fls``: ``multibeam``, ``sidescan``). Its
settings are the ``scanning_sonar_node`` parameters of that kind: the scanning node's shared
records and the kind's own (the coherent model's included), read as the node reads them
(``records.read_records``: a node preset, ``sonar_preset``, gives its defaults; a value given
wins) and checked by them and by ``Kind.check`` (another mode's setting is refused). A spec
may set any of them but what the dataset sets itself: :data:`DRAWN` (what a sample draws or
the spec gives elsewhere: range, tilt, TVG, speckle, noise, seeds, water) and :data:`OUTPUTS`
(the node's publishing switches). Each sample's sonar is made by the kind's ``sonar``
builder (the one ``devices.build_device`` puts on a robot) from those records with the
sample's draws, its range window and its pose.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.dataset.sequence import check_track
from nps_sonar_py.dataset.spec import VARIED, Spec, SpecError
from nps_sonar_py.description.sensor_specs import SonarSpec
from nps_sonar_py.devices.kinds import (
    FAMILY_RECORDS,
    KINDS,
    Family,
    Kind,
    ModeSettings,
    Setup,
    family_kinds,
    family_records,
)
from nps_sonar_py.devices.kinds.multibeam import FanSettings
from nps_sonar_py.devices.kinds.sidescan import SidescanSettings
from nps_sonar_py.devices.presets import NO_PRESET, preset_settings
from nps_sonar_py.devices.settings import (
    BeamSettings,
    CoherentSettings,
    EchoModelChoice,
    GeometrySettings,
    ImageSettings,
    OutputSettings,
    ScanningSettings,
    renamed_problem,
)
from nps_sonar_py.devices.settings import SensorSettings as MountSettings
from nps_sonar_py.errors import ConfigurationError, NpsSonarError
from nps_sonar_py.records import read_records, specs
from nps_sonar_py.sensing.multibeam import MultibeamSonar
from nps_sonar_py.sensing.sidescan import SidescanSonar
from nps_sonar_py.transforms import transform_from_xyz_rpy

__all__ = [
    'DRAWN',
    'OUTPUTS',
    'PRESET_SETTINGS',
    'SensorSettings',
    'block_length',
    'cached_settings',
    'check_sensor',
    'drawn_settings',
    'make_sonar',
    'sample_settings',
    'sensor_pose',
    'sensor_settings',
]

#: Each preset's settings (parameter names as the node's).
PRESET_SETTINGS: dict[str, dict[str, Any]] = {
    # A forward-looking multibeam of the 900 kHz, 130 degree class (BlueView M900-130).
    'fls': {
        'beams': 128,
        'min_angle': math.radians(-65.0),
        'max_angle': math.radians(65.0),
        'vertical_beam_width': math.radians(20.0),
        'rays_horizontal': 2,
        'rays_vertical': 384,
        'beam_width': math.radians(1.0),
        'frequency': 900e3,
        'range_bins': 192,
        'image_db_min': -65.0,
        'image_db_max': -20.0,
    },
    # A 450 kHz side-scan: config/sidescan_sonar.yaml's fans, fewer bins, a 128-line block.
    'sidescan': {
        'frequency': 450e3,
        'range_bins': 500,
        'sidescan_rays_along': 1,
        'waterfall_lines': 128,
        'waterfall_samples': 500,
        'waterfall_line_spacing': 0.25,
        'ground_range': False,
        'image_db_min': -60.0,
        'image_db_max': -20.0,
    },
}

#: What a dataset sets itself, per sample or once, which the spec's ``sensor.settings`` may
#: not set: each setting and where the spec gives it instead.
DRAWN = {
    'mode': 'sensor.preset',
    'tvg': 'processing.tvg',
    'speckle': 'processing.speckle',
    'gain_stddev': 'processing.gain_stddev',
    'seed': 'the run seed',
    'sound_speed_profile': 'water',
    'sound_speed_profile_file': 'water',
    'sea_surface_z': 'water.sensor_depth',
    'depth': 'water.sensor_depth',
    'max_bounces': 'water.multipath',
    'sidescan_tilt': 'sensor.tilt',
    'scatterer_seed': 'the run seed',
    'echo_model': 'sensor.echo_model',
    'min_range': 'sensor.min_range',
    'max_range': 'sensor.range',
}
#: The node's output switches and formats: a dataset writes its own files (docs/datasets.md).
OUTPUTS = (
    'publish_baseband',
    'publish_image',
    'publish_image_polar',
    'publish_image_polar_db',
    'publish_labels',
    'publish_projected_image',
    'publish_raw_image',
    'publish_waterfall',
    'projected_image_dtype',
    'raw_image_dtype',
    'image_encoding',
)
#: The kind (a row of ``KINDS``) each preset renders.
_KIND = {'fls': 'multibeam', 'sidescan': 'sidescan'}
#: The records of a scanning node a dataset does not read: it has no robot, no mount, no rate
#: and writes its own files (each sample's pose is ``sensor_pose``'s).
_NOT_READ = (MountSettings, ModeSettings, GeometrySettings, OutputSettings)


@dataclass(frozen=True)
class SensorSettings:
    """A dataset's sonar before a sample's draws: its kind and the node's records of it."""

    kind: Kind
    setup: Setup

    @property
    def fls(self) -> bool:
        """Whether the sonar is the forward-looking fan (else a side-scan)."""
        return self.kind.name == 'multibeam'

    @property
    def scanning(self) -> ScanningSettings:
        """The sector and image shaping."""
        return self.setup[ScanningSettings]

    @property
    def beam(self) -> BeamSettings:
        """The echo's settings."""
        return self.setup[BeamSettings]

    @property
    def image(self) -> ImageSettings:
        """The images' settings."""
        return self.setup[ImageSettings]

    @property
    def fan(self) -> FanSettings:
        """The fan's beams (defaults for a side-scan)."""
        return self.setup[FanSettings]

    @property
    def sidescan(self) -> SidescanSettings:
        """The side-scan's channels (defaults for a fan)."""
        return self.setup[SidescanSettings]

    @property
    def echo(self) -> CoherentSettings:
        """The echo model's settings."""
        return self.setup[CoherentSettings]


def _records(kind: Kind) -> tuple[type[Any], ...]:
    """The records a dataset reads: the scanning node's shared ones it uses, then the kind's."""
    shared = FAMILY_RECORDS[Family.SCANNING]
    return (*(r for r in shared if r not in _NOT_READ), *kind.records)


def _allowed(kind: Kind) -> set[str]:
    """The settings a spec may set: its records' minus what the dataset sets itself."""
    names = {s.name for record in _records(kind) for s in specs(record)}
    return names - set(DRAWN) - set(OUTPUTS)


def _node_preset(name: Any, spec: Spec) -> dict[str, Any]:
    """The settings node preset ``name`` gives (``devices/presets.py``); ``SpecError`` if none."""
    try:
        return preset_settings(name)
    except ConfigurationError as error:
        raise SpecError(
            str(error), file=spec.source, element='sensor.settings.sonar_preset'
        ) from None


def _failed(error: ConfigurationError, spec: Spec) -> SpecError:
    """``error`` at the setting it names first, if the spec gives it, else ``sensor.settings``.

    A record's line starts with the setting; a kind's refusal names it after ``does not use``.
    """
    given = spec.sensor.settings
    words = str(error).split(':', 1)[0].replace(',', ' ').split()
    key = next((w for w in words if w in given), '')
    element = f'sensor.settings.{key}' if key else 'sensor.settings'
    return SpecError(str(error), file=spec.source, element=element)


def _setup(kind: Kind, values: Mapping[str, Any], spec: Spec) -> Setup:
    """The kind's records of ``values``, read and checked as the node's; ``SpecError`` if not."""
    try:
        setup = Setup(Family.SCANNING, *read_records(_records(kind), values))
        family = family_kinds(Family.SCANNING)
        kind.check(setup, family_records(Family.SCANNING), family)
        kind.budget(setup)
    except ConfigurationError as error:
        raise _failed(error, spec) from None
    return setup


def sensor_settings(spec: Spec) -> SensorSettings:
    """The preset's settings with the spec's changes, checked; ``SpecError`` naming the key."""
    preset = spec.sensor.preset
    kind = KINDS[_KIND[preset]]
    allowed = _allowed(kind)
    for key in spec.sensor.settings:
        path = f'sensor.settings.{key}'
        if key in DRAWN:
            raise SpecError(
                f'is drawn per sample: set it in {DRAWN[key]}', file=spec.source, element=path
            )
        if renamed := renamed_problem(key):
            raise SpecError(renamed, file=spec.source, element=path)
        if key not in allowed:
            raise SpecError(
                f'not a setting of the {preset} preset (docs/datasets.md)',
                file=spec.source,
                element=path,
            )
    # A node preset named in the settings gives its figures over the dataset preset's.
    supplied = _node_preset(spec.sensor.settings.get('sonar_preset', NO_PRESET), spec)
    values: dict[str, Any] = {
        **{k: v for k, v in PRESET_SETTINGS[preset].items() if k not in supplied},
        'echo_model': spec.sensor.echo_model,
        **spec.sensor.settings,
        # the range window is the sample's (sensor.min_range, sensor.range), not a preset's
        'min_range': 0.0,
        'max_range': 0.0,
    }
    return SensorSettings(kind, _setup(kind, values, spec))


#: The settings of the last spec :func:`cached_settings` was asked about (one spec a run).
_CACHED: list[tuple[Spec, SensorSettings]] = []


def cached_settings(spec: Spec) -> SensorSettings:
    """:func:`sensor_settings` of ``spec``, read once a process for equal specs.

    Equal, not only the same object: each Ray task gets its own copy of the run's spec, and
    a worker process reads the settings once for all its tasks (about 10 ms each; comparing
    specs costs tens of microseconds).
    """
    if not _CACHED or (_CACHED[0][0] is not spec and _CACHED[0][0] != spec):
        _CACHED[:] = [(spec, sensor_settings(spec))]
    return _CACHED[0][1]


def block_length(settings: SensorSettings) -> float:
    """A side-scan block's length along the track, m (0 for a fan): a sequence's step."""
    if settings.fls:
        return 0.0
    s = settings.sidescan
    return float(s.waterfall_lines * (s.waterfall_line_spacing or 0.25))


def _base_values(settings: SensorSettings) -> dict[str, float]:
    """The values of the settings a spec may draw (``spec.VARIED``) before any draw."""
    return {
        'frequency': settings.beam.frequency,
        'beams': settings.fan.beams if settings.fls else 0,
        'range_bins': settings.beam.range_bins,
        'image_db_min': settings.image.image_db_min,
        'image_db_max': settings.image.image_db_max,
    }


def drawn_settings(
    spec: Spec, settings: SensorSettings, uniforms: Mapping[str, float]
) -> dict[str, Any]:
    """The sample's values of the varied settings from one uniform number each in ``[0, 1)``.

    A setting not drawn keeps its value (a side-scan's ``beams``: 0); a count is uniform over
    the integers of ``[low, high]``.
    """
    values: dict[str, Any] = _base_values(settings)
    for name, draw in spec.sensor.vary.items():
        u = uniforms[name]
        if VARIED[name][2]:
            first, last = math.ceil(draw.low), math.floor(draw.high)
            values[name] = min(first + int(u * (last - first + 1)), last)
        else:
            values[name] = draw.low + (draw.high - draw.low) * u
    return values


def sample_settings(settings: SensorSettings, row: Mapping[str, Any]) -> SensorSettings:
    """``settings`` with the sample's frequency, beams, range bins and display window."""
    if 'frequency' not in row:  # a row drawn before these were drawn: the spec's own
        return settings
    beam = dataclasses.replace(
        settings.beam, frequency=float(row['frequency']), range_bins=int(row['range_bins'])
    )
    image = dataclasses.replace(
        settings.image,
        image_db_min=float(row['image_db_min']),
        image_db_max=float(row['image_db_max']),
    )
    setup = settings.setup.replaced(beam, image)
    if settings.fls:
        setup = setup.replaced(dataclasses.replace(settings.fan, beams=int(row['beams'])))
    return SensorSettings(settings.kind, setup)


def _profile(row: Mapping[str, Any], bottom: float) -> tuple[float, ...]:
    """Flat ``depth, speed`` pairs of the row's sound-speed profile down past ``bottom`` m.

    Empty for ``isovelocity``: straight rays at ``surface_speed``.
    """
    c0, g = row['surface_speed'], row['gradient']
    deep = bottom + 50.0
    if row['profile'] == 'isovelocity':
        return ()
    if row['profile'] == 'gradient':
        return (0.0, c0, deep, c0 + g * deep)
    top, drop = row['thermocline_depth'], row['thermocline_drop']
    return (0.0, c0, top, c0, top + 10.0, c0 - drop, max(deep, top + 20.0), c0 - drop)


def sample_beam(
    settings: SensorSettings, row: Mapping[str, Any], *, truth: bool = False
) -> BeamSettings:
    """The beam settings of a sample: its noise and water; ``truth``: noise-free, no ghosts."""
    surface_z = row['altitude'] + row['sensor_depth']  # the seabed's mean level is z = 0
    return dataclasses.replace(
        settings.beam,
        speckle=bool(row['speckle']) and not truth,
        gain_stddev=0.0 if truth else row['gain_stddev'],
        seed=int(row['noise_seed']),
        sound_speed=float(row['surface_speed']) if row['profile'] == 'isovelocity' else 0.0,
        sound_speed_profile=_profile(row, surface_z),
        sea_surface_z=surface_z,
        depth=float(row['sensor_depth']),
        max_bounces=1 if row['multipath'] and not truth else 0,
    )


def make_sonar(
    settings: SensorSettings,
    row: Mapping[str, Any],
    pose: NDArray[np.float64],
    *,
    min_range: float,
    entities: int | None,
    truth: bool = False,
) -> MultibeamSonar | SidescanSonar:
    """The sample's sonar at ``pose``, by its kind's builder (``ConfigurationError`` if none).

    ``entities``: the label table's length (labels on); ``truth``: the noise-free sonar of
    the shadow masks (no speckle, gain noise, imaging, multipath or coherent model).
    """
    tvg: Any = 'none' if truth else row['tvg']  # the record checks it into a Tvg
    scanning = dataclasses.replace(settings.scanning, tvg=tvg)
    echo = dataclasses.replace(settings.echo, scatterer_seed=int(row['noise_seed']))
    if truth:
        scanning = dataclasses.replace(scanning, cell_speckle=False, side_lobe_db=0.0)
        echo = dataclasses.replace(echo, echo_model=EchoModelChoice.INCOHERENT)
    setup = settings.setup.replaced(sample_beam(settings, row, truth=truth), scanning, echo)
    if not settings.fls:  # a side-scan flies level, its fans tilted (sensor_pose)
        tilt = math.radians(row['tilt'])
        setup = setup.replaced(dataclasses.replace(settings.sidescan, sidescan_tilt=tilt))
    window = SonarSpec(min=min_range, max=float(row['range']), radius=1.0)
    build = settings.kind.sonar
    assert build is not None  # every preset's kind has one (_KIND)
    made: MultibeamSonar | SidescanSonar = build(setup, window, pose, entities)
    return made


def check_sensor(spec: Spec) -> SensorSettings:
    """The sensor's settings, and a sonar built once at the ranges' ends: one line if not.

    A setting that only the built sonar refuses (a TVG over its limit at the far range, a
    side-scan that sees no seabed) is found before any sample runs; so is a sequence's track
    too long for one seabed.
    """
    base = sensor_settings(spec)
    s = spec.sensor
    for far, corner in ((s.range.low, 0.0), (s.range.high, 1.0 - 1e-12)):
        drawn = drawn_settings(spec, base, dict.fromkeys(s.vary, corner))
        settings = sample_settings(base, drawn)
        row = {
            'range': far,
            'altitude': s.altitude.low,
            'sensor_depth': spec.water.sensor_depth.low,
            'speckle': False,
            'gain_stddev': 0.0,
            'noise_seed': 0,
            'profile': 'isovelocity',
            'surface_speed': 1500.0,
            'gradient': 0.0,
            'thermocline_depth': 10.0,
            'thermocline_drop': 0.0,
            'multipath': False,
            'tilt': s.tilt.low,
            'tvg': '40log',
        }
        try:
            make_sonar(settings, row, np.eye(4), min_range=s.min_range, entities=2, truth=True)
            for tvg in spec.tvg.choices:
                row['tvg'] = tvg
                make_sonar(settings, row, np.eye(4), min_range=s.min_range, entities=2)
        except NpsSonarError as error:
            raise SpecError(str(error), file=spec.source, element='sensor') from None
    check_track(spec, block_length(base))
    return base


def sensor_pose(
    row: Mapping[str, Any], ground: float, *, x: float = 0.0, pitched: bool
) -> NDArray[np.float64]:
    """World <- sensor: ``altitude`` above ``ground``, ``x`` m ahead of the sample's place.

    The place: ``sensor_x``, ``sensor_y`` (m) heading ``sensor_yaw`` (degrees from +x; all 0
    but in a sequence, ``dataset/sequence.py``); ``pitched`` down by the tilt. A side-scan
    flies level (its fans are tilted by ``sidescan_tilt``).
    """
    pitch = math.radians(row['tilt']) if pitched else 0.0
    yaw = math.radians(row.get('sensor_yaw', 0.0))
    centre = (
        row.get('sensor_x', 0.0) + x * math.cos(yaw),
        row.get('sensor_y', 0.0) + x * math.sin(yaw),
        ground + row['altitude'],
    )
    return transform_from_xyz_rpy(list(centre), [0.0, pitch, yaw])
