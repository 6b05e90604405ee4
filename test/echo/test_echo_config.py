"""Validation of the echo configuration records: an invalid value names its field and why."""

from __future__ import annotations

import dataclasses
import doctest
import math
import re

import numpy as np
import pytest

import nps_sonar_py.echo
from nps_sonar_py.echo import (
    Absorption,
    BeamPattern,
    CastLimit,
    EchoConfig,
    EchoModel,
    Environment,
    Medium,
    NoiseType,
    RangeEstimator,
    RangeNoise,
    Scattering,
    absorption,
    beam,
    model,
    noise,
    reflectivity,
)
from nps_sonar_py.errors import ConfigurationError


@pytest.mark.parametrize(
    ('field', 'value', 'reason'),
    [
        ('beam_width', 0.0, r'a finite number in \[1e-06, 3.14\]'),
        ('beam_width', math.pi, r'a finite number in \[1e-06, 3.14\]'),
        ('beam_width', math.nan, 'a finite number'),
        ('beam_width', '25', 'a finite number'),
        ('pattern', 'cosine', 'piston, gaussian'),
        ('n_way', 3, r'an integer in \[1, 2\]'),
        ('n_way', True, r'an integer in \[1, 2\]'),
        ('cast_limit', 0.0, r'half_power or first_null or a finite number in \[1e-06, 1.5708\]'),
        ('cast_limit', 2.0, r'half_power or first_null or a finite number in \[1e-06, 1.5708\]'),
        ('cast_limit', 'side_lobes', 'half_power or first_null'),
        ('min_range', -1.0, 'a finite number >= 0'),
        ('min_range', -1e-9, 'a finite number >= 0'),
        ('max_range', 0.5, r'> min_range \(0.5\)'),
        ('max_range', math.inf, 'a finite number'),
        ('n_bins', 0, 'an integer >= 1'),
        ('n_bins', 2.5, 'an integer >= 1'),
        ('frequency', -1.0, r'a finite number in \[1, 1e\+08\]'),
        ('environment', 'sea', 'an? Environment'),
        ('sound_speed', 0.0, r'None or a finite number in \[1, 10000\]'),
        ('absorption', 'francois', 'auto'),
        ('fixed_absorption', -0.1, r'a finite number in \[0, 1000\]'),
        ('scattering', 'glossy', 'lambert or specular'),
        ('specular_lobe_width', 0.0, r'a finite number in \(0, 0.785398\]'),
        ('specular_cutoff', 1, 'true or false'),
        ('critical_angle', 2.0, r'a finite number in \(0, 1.5708\]'),
        ('source_level', math.inf, 'a finite number'),
        ('estimator', 'median', 'nearest'),
        ('threshold_db', math.inf, '-inf or a finite number'),
        ('threshold_db', 'high', '-inf or a finite number'),
        ('range_noise', 0.01, 'a RangeNoise'),
        ('speckle', 'yes', 'true or false'),
        ('gain_stddev', -0.1, r'a finite number in \[0, 10\]'),
        ('seed', -1, 'None or an integer'),
        ('seed', 1.5, 'None or an integer'),
    ],
)
def test_invalid_echo_config(field: str, value: object, reason: str) -> None:
    with pytest.raises(
        ConfigurationError, match=rf'^{field} must be {reason}.*, got {re_escape(value)}$'
    ):
        EchoConfig(**{field: value})  # type: ignore[arg-type]


def re_escape(value: object) -> str:
    return re.escape(repr(value))


def test_threshold_nan_is_rejected() -> None:
    with pytest.raises(ConfigurationError, match='threshold_db must be -inf or a finite number'):
        EchoConfig(threshold_db=math.nan)


def test_first_null_needs_a_null() -> None:
    message = (
        'cast_limit must be an angle in radians: the gaussian pattern of this width has no null'
    )
    with pytest.raises(ConfigurationError, match=message):
        EchoConfig(pattern=BeamPattern.GAUSSIAN, cast_limit=CastLimit.FIRST_NULL)
    with pytest.raises(
        ConfigurationError,
        match=r'cast_limit must be an angle in radians: the piston pattern .* has no null',
    ):
        EchoConfig(beam_width=math.radians(170.0), cast_limit=CastLimit.FIRST_NULL)


@pytest.mark.parametrize(
    ('field', 'value', 'reason'),
    [
        ('medium', 'oil', 'must be water or air'),
        ('temperature', -300.0, r'must be a finite number > -273.15'),
        ('salinity', -1.0, 'must be a finite number >= 0'),
        ('depth', -5.0, 'must be a finite number >= 0'),
        ('ph', 15.0, r'must be a finite number in \[0, 14\]'),
        ('relative_humidity', 101.0, r'must be a finite number in \[0, 100\]'),
        ('pressure', 0.0, 'must be a finite number > 0'),
        ('temperature', math.nan, 'must be a finite number'),
    ],
)
def test_invalid_environment(field: str, value: object, reason: str) -> None:
    with pytest.raises(ConfigurationError, match=rf'^environment\.{field} {reason}'):
        Environment(**{field: value})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ('kwargs', 'message'),
    [
        ({'type': 'uniform'}, 'range_noise.type must be none, gaussian'),
        ({'stddev': -0.1}, 'range_noise.stddev must be a finite number >= 0'),
        ({'bias_stddev': -0.1}, 'range_noise.bias_stddev must be a finite number >= 0'),
        ({'precision': -0.1}, 'range_noise.precision must be a finite number >= 0'),
        ({'mean': math.inf}, 'range_noise.mean must be a finite number'),
        (
            {'type': NoiseType.GAUSSIAN_QUANTIZED},
            'range_noise.precision must be > 0 for type gaussian_quantized',
        ),
    ],
)
def test_invalid_range_noise(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigurationError, match=f'^{message}'):
        RangeNoise(**kwargs)


@pytest.mark.parametrize(
    ('make', 'message'),
    [
        (lambda: EchoConfig(pattern='sinc'), 'pattern must be piston'),
        (lambda: EchoConfig(cast_limit='first_null'), 'cast_limit must be half_power'),
        (lambda: EchoConfig(absorption='thorp'), 'absorption must be auto'),
        (lambda: EchoConfig(scattering='specular'), 'scattering must be lambert'),
        (lambda: EchoConfig(estimator='mean_in_beam'), 'estimator must be nearest'),
        (lambda: Environment(medium='water'), 'environment.medium must be water or air'),
        (lambda: RangeNoise(type='gaussian'), 'range_noise.type must be none, gaussian'),
    ],
)
def test_string_values_are_refused(make: object, message: str) -> None:
    """Settings reach the core as enum members (devices/settings.py); a string is a mistake."""
    with pytest.raises(ConfigurationError, match=f'^{message}.* member\\), got '):
        make()  # type: ignore[operator]


def test_enum_members_are_kept() -> None:
    """The negative control of the test above: the members themselves are taken as they are."""
    config = EchoConfig(
        pattern=BeamPattern.SINC,
        cast_limit=CastLimit.FIRST_NULL,
        absorption=Absorption.THORP,
        scattering=Scattering.SPECULAR,
        estimator=RangeEstimator.MEAN_IN_BEAM,
        environment=Environment(medium=Medium.WATER),
        range_noise=RangeNoise(type=NoiseType.GAUSSIAN, stddev=1),
    )
    assert config.pattern is BeamPattern.SINC
    assert config.cast_limit is CastLimit.FIRST_NULL
    assert config.absorption is Absorption.THORP
    assert config.scattering is Scattering.SPECULAR
    assert config.estimator is RangeEstimator.MEAN_IN_BEAM
    assert config.environment.medium is Medium.WATER
    assert config.range_noise.type is NoiseType.GAUSSIAN
    assert config.range_noise.stddev == 1.0
    assert isinstance(config.range_noise.stddev, float)


def test_defaults_and_derived_values() -> None:
    config = EchoConfig()
    assert config.beam_width == pytest.approx(math.radians(25.0))
    assert config.pattern is BeamPattern.PISTON
    assert config.n_way == 2
    assert config.cast_half_angle == config.beam_width / 2  # the 3 dB gate (docs/physics.md)
    assert (config.min_range, config.max_range, config.n_bins) == (0.5, 30.0, 200)
    assert config.bin_width == pytest.approx(29.5 / 200)
    assert config.effective_absorption * 1e3 == pytest.approx(37.6, rel=0.01)  # AUTO in water: FG
    assert config.speed_of_sound == pytest.approx(1485.75)
    assert EchoConfig(sound_speed=1500.0).speed_of_sound == 1500.0
    assert EchoConfig(cast_limit=0.3).cast_half_angle == 0.3
    first_null = EchoConfig(cast_limit=CastLimit.FIRST_NULL).cast_half_angle
    assert first_null == pytest.approx(math.radians(30.87), abs=1e-4)
    assert config.critical_angle == math.pi / 8
    assert not config.specular_cutoff
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.n_bins = 3  # type: ignore[misc]
    derived = dataclasses.replace(config, environment=Environment(temperature=20.0))
    assert derived.speed_of_sound > config.speed_of_sound  # derived again, not frozen at creation


@pytest.mark.parametrize(
    ('off_axis', 'solid_angle', 'message'),
    [
        ([], [], r'off_axis must have shape \(n,\) with n >= 1'),
        ([[0.1]], [[0.1]], r'off_axis must have shape \(n,\) with n >= 1'),
        ([0.1, np.nan], [0.1, 0.1], 'off_axis must be finite'),
        ([0.1, -0.1], [0.1, 0.1], r'off_axis must be in \[0, pi\] radians'),
        ([0.1, 0.2], [0.1], r'solid_angle must have the shape of off_axis \(2,\)'),
        ([0.1, 0.2], [0.1, -0.1], 'solid_angle must be >= 0 sr'),
        (['a'], [0.1], 'off_axis must be an array of numbers'),
    ],
)
def test_invalid_ray_pattern(off_axis: list, solid_angle: list, message: str) -> None:
    with pytest.raises(ConfigurationError, match=f'^{message}'):
        EchoModel(EchoConfig(), off_axis, solid_angle)


def test_ping_checks_shapes() -> None:
    model_ = EchoModel(EchoConfig(), [0.0, 0.1], [0.1, 0.1])
    with pytest.raises(ValueError, match=r'ranges: expected shape \(2,\), got \(3,\)'):
        model_.ping([1.0, 2.0, 3.0], [1.0, 1.0], 1.0)
    with pytest.raises(ValueError, match=r'cos_incidence: expected shape \(2,\), got \(1,\)'):
        model_.ping([1.0, 2.0], [1.0], 1.0)
    message = r'reflectivity: expected a scalar or shape \(2,\), got shape \(3,\)'
    with pytest.raises(ValueError, match=message):
        model_.ping([1.0, 2.0], [1.0, 1.0], [1.0, 1.0, 1.0])
    with pytest.raises(ConfigurationError, match='config must be an EchoConfig'):
        EchoModel({'beam_width': 0.4}, [0.0], [0.1])  # type: ignore[arg-type]


@pytest.mark.parametrize('module', [absorption, beam, model, noise, reflectivity])
def test_docstring_examples_run(module: object) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)  # type: ignore[arg-type]
    assert result.attempted > 0
    assert result.failed == 0


def test_public_api_is_exported() -> None:
    for name in nps_sonar_py.echo.__all__:
        assert hasattr(nps_sonar_py.echo, name), name
    assert nps_sonar_py.echo.DEFAULT_LAMBERT == 1e-3
