"""The dataset's sonar: a preset's settings, the spec's changes, the row's draws, as the node.

The settings are the ``scanning_sonar_node`` parameters (README, ``config/*.yaml``) of the
preset's kind: the records of its row of ``devices.kinds.KINDS`` (the fan's or the side-scan's,
the coherent model's included) and the scanning node's shared ones, read as the node reads them
(``records.read_records``: a node preset, ``sonar_preset``, gives its defaults; a value given
wins) and checked by them, and the sonar is made by the records' own builders
(``echo_config``, ``fan_config``, ``sidescan_config``, ``coherent_config``, ...), as
``devices.build_device`` makes it. What a sample draws (range, tilt, TVG, speckle, gain
noise, the noise seed, the water) is not a setting of the spec: :data:`DRAWN` names them.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.dataset.spec import Spec, SpecError
from nps_sonar_py.description.sensor_specs import SonarSpec
from nps_sonar_py.devices.kinds import KINDS
from nps_sonar_py.devices.kinds.multibeam import FanSettings
from nps_sonar_py.devices.kinds.sidescan import SidescanSettings
from nps_sonar_py.devices.presets import NO_PRESET, preset_settings
from nps_sonar_py.devices.settings import (
    BeamSettings,
    CoherentSettings,
    ImageSettings,
    ScanningSettings,
    renamed_problem,
)
from nps_sonar_py.errors import ConfigurationError, NpsSonarError
from nps_sonar_py.records import read_records
from nps_sonar_py.sensing.multibeam import MultibeamSonar
from nps_sonar_py.sensing.sidescan import SidescanSonar
from nps_sonar_py.transforms import transform_from_xyz_rpy

__all__ = [
    'DRAWN',
    'PRESET_SETTINGS',
    'SensorSettings',
    'check_sensor',
    'make_sonar',
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

#: Settings each sample draws, which the spec's ``sensor.settings`` may not set, and why.
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
}
#: The kind of each preset (a row of ``KINDS``).
_KIND = {'fls': 'multibeam', 'sidescan': 'sidescan'}
#: The scanning node's shared records a dataset's sonar reads.
_SHARED: tuple[type[Any], ...] = (ScanningSettings, BeamSettings, ImageSettings)
#: Settings of those records that make nothing in a dataset (ROS outputs, a sweep's sector).
_IGNORED = {
    'publish_baseband',
    'publish_image',
    'publish_image_polar',
    'publish_image_polar_db',
    'publish_labels',
    'publish_projected_image',
    'projected_image_dtype',
    'sweep_image_update',
    'publish_raw_image',
    'raw_image_dtype',
    'publish_waterfall',
    'image_encoding',
    # the fan's range window (the dataset's range is its own)
    'min_range',
    'max_range',
}
#: Settings a side-scan does not have (its fans are across track).
_NOT_SIDESCAN = {'min_angle', 'max_angle'}


@dataclass(frozen=True)
class SensorSettings:
    """The records of a dataset's sonar (before a sample's draws); ``fls`` or a side-scan."""

    fls: bool
    scanning: ScanningSettings
    beam: BeamSettings
    image: ImageSettings
    fan: FanSettings
    sidescan: SidescanSettings
    echo: CoherentSettings


def _records(preset: str) -> tuple[type[Any], ...]:
    """The records of a preset: the scanning node's shared ones, then its kind's own."""
    return (*_SHARED, *KINDS[_KIND[preset]].records)


def _allowed(preset: str) -> set[str]:
    names = {f.name for record in _records(preset) for f in dataclasses.fields(record)}
    return names - _IGNORED - (_NOT_SIDESCAN if preset == 'sidescan' else set())


def _node_preset(name: Any, spec: Spec) -> dict[str, Any]:
    """The settings node preset ``name`` gives (``devices/presets.py``); ``SpecError`` if none."""
    try:
        return preset_settings(name)
    except ConfigurationError as error:
        raise SpecError(
            str(error), file=spec.source, element='sensor.settings.sonar_preset'
        ) from None


def _read(preset: str, values: Mapping[str, Any], spec: Spec) -> dict[type[Any], Any]:
    """The preset's records of ``values``, as the node reads them; ``SpecError`` naming the key."""
    try:
        return {type(r): r for r in read_records(_records(preset), values)}
    except ConfigurationError as error:
        key = str(error).split(' ', 1)[0]
        given = spec.sensor.settings
        raise SpecError(
            str(error),
            file=spec.source,
            element=f'sensor.settings.{key}' if key in given else 'sensor.settings',
        ) from None


def sensor_settings(spec: Spec) -> SensorSettings:
    """The preset's settings with the spec's changes, checked; ``SpecError`` naming the key."""
    preset = spec.sensor.preset
    allowed = _allowed(preset)
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
    }
    records = _read(preset, values, spec)
    return SensorSettings(
        fls=preset == 'fls',
        scanning=records[ScanningSettings],
        beam=records[BeamSettings],
        image=records[ImageSettings],
        fan=records.get(FanSettings, FanSettings()),
        sidescan=records.get(SidescanSettings, SidescanSettings()),
        echo=records[CoherentSettings],
    )


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
    """The sample's sonar at ``pose`` (``ConfigurationError`` for settings it cannot have).

    ``entities``: the label table's length (labels on); ``truth``: the noise-free sonar of
    the shadow masks (no speckle, gain noise, imaging or multipath).
    """
    beam = sample_beam(settings, row, truth=truth)
    spec = SonarSpec(min=min_range, max=float(row['range']), radius=1.0)
    echo = beam.echo_config(spec)
    tvg: Any = 'none' if truth else row['tvg']  # the record checks it into a Tvg
    scanning = dataclasses.replace(settings.scanning, tvg=tvg)  # checked again: an enum
    imaging = scanning.imaging_config()
    if truth:
        imaging = dataclasses.replace(imaging, cell_speckle=False, side_lobe_db=None)
    multipath = beam.multipath_config()
    # The coherent model's settings (docs/coherent.md), its scatterers drawn per sample.
    coherent = None if truth else settings.echo.coherent_config()
    if coherent is not None:
        coherent = dataclasses.replace(coherent, scatterer_seed=int(row['noise_seed']))
    if settings.fls:
        return MultibeamSonar(
            echo,
            settings.fan.fan_config(scanning),
            pose,
            imaging=imaging,
            label_entities=entities,
            multipath=multipath,
            coherent=coherent,
        )
    tilt = math.radians(row['tilt'])
    sidescan = dataclasses.replace(settings.sidescan, sidescan_tilt=tilt)
    return SidescanSonar(
        echo,
        sidescan.sidescan_config(),
        pose,
        imaging=imaging,
        label_entities=entities,
        multipath=multipath,
        coherent=coherent,
    )


def check_sensor(spec: Spec) -> SensorSettings:
    """The sensor's settings, and a sonar built once at the ranges' ends: one line if not.

    A setting that only the built sonar refuses (a TVG over its limit at the far range, a
    side-scan that sees no seabed) is found before any sample runs.
    """
    settings = sensor_settings(spec)
    s = spec.sensor
    for far in {s.range.low, s.range.high}:
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
    return settings


def sensor_pose(
    row: Mapping[str, Any], ground: float, *, x: float = 0.0, pitched: bool
) -> NDArray[np.float64]:
    """World <- sensor: ``altitude`` above ``ground`` at ``(x, 0)``; ``pitched`` down by the tilt.

    A side-scan flies level (its fans are tilted by ``sidescan_tilt``).
    """
    pitch = math.radians(row['tilt']) if pitched else 0.0
    return transform_from_xyz_rpy([x, 0.0, ground + row['altitude']], [0.0, pitch, 0.0])
