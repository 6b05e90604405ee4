"""The pinging devices' one ``reconfigure`` (``devices/pinging.py``): what a rebuild keeps.

A Ranger request changes the range window, the bin width and the ping rate (and, for a fan
or a swath, the beam axes). Everything else the sonar was built with (its pose, image
options, label table, multipath, processing profile, ...) must be the old sonar's: each
argument of its constructor is read back by name, so an argument a sonar gains later is
checked too.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import numpy as np
import pytest
from device_kinds import build

from nps_sonar_py.devices.pinging import PingingRanger
from nps_sonar_py.echo.array_response import SteeredArray
from nps_sonar_py.echo.profile_effects import ImagingConfig, Tvg
from nps_sonar_py.echo.sound_speed import SoundSpeedProfile
from nps_sonar_py.sensing.multipath import MultipathConfig
from nps_sonar_py.transforms import transform_from_xyz_rpy

IMAGING = ImagingConfig(Tvg.LOG20, cell_speckle=True, side_lobe_db=-30.0)
MULTIPATH = MultipathConfig(max_bounces=1, sea_surface_z=5.0, surface_loss_db=2.0)
#: Per sonar: the field holding its beams, and keyword arguments that are not the defaults.
NOT_DEFAULT: dict[str, tuple[str, dict[str, Any]]] = {
    'multibeam': (
        'fan',
        {
            'imaging': IMAGING,
            'label_entities': 3,
            'multipath': MULTIPATH,
            'array_pattern': SteeredArray(64, 0.5),
        },
    ),
    'sidescan': ('config', {'imaging': IMAGING, 'label_entities': 3, 'multipath': MULTIPATH}),
    'echosounder': (
        'swath',
        {'processing': SoundSpeedProfile.constant(1490.0), 'surface_z': 4.0},
    ),
}
POSE = transform_from_xyz_rpy((1.0, -2.0, 3.0), (0.1, 0.2, 0.3))


def device_of(kind: str) -> PingingRanger[Any]:
    """The device of ``kind``, its sonar remade with the keywords of ``NOT_DEFAULT``, placed."""
    device = build(kind)
    assert isinstance(device, PingingRanger)
    beams, keywords = NOT_DEFAULT[kind]
    old = device.sonar
    device.sonar = type(old)(old.echo, getattr(old, beams), POSE, **keywords)
    return device


def same(a: object, b: object) -> bool:
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return a is b or a == b


@pytest.mark.parametrize('kind', sorted(NOT_DEFAULT))
def test_a_new_window_keeps_every_other_argument_of_the_sonar(kind: str) -> None:
    device = device_of(kind)
    old = device.sonar
    config = device.ranger_config()
    near, far = config.min_range, config.max_range / 2  # half the window: the rate still holds
    wanted = dataclasses.replace(config, max_range=far, range_resolution=(far - near) / 50)
    assert device.reconfigure(wanted) is None
    new = device.sonar
    assert new is not old
    assert (new.echo.min_range, new.echo.max_range, new.echo.n_bins) == (near, far, 50)
    assert new.echo == dataclasses.replace(old.echo, max_range=far, n_bins=50)
    arguments = [name for name in inspect.signature(type(new)).parameters if name != 'echo']
    kept = [name for name in arguments if same(getattr(new, name), getattr(old, name))]
    assert kept == arguments
    np.testing.assert_array_equal(new.world_from_body, POSE)


@pytest.mark.parametrize('kind', ['multibeam', 'echosounder'])
def test_new_beam_axes_keep_every_other_argument_of_the_sonar(kind: str) -> None:
    device = device_of(kind)
    old = device.sonar
    beams, keywords = NOT_DEFAULT[kind]
    wanted = dataclasses.replace(
        device.ranger_config(), min_angle=-0.2, max_angle=0.2, angular_resolution=0.1
    )
    assert device.reconfigure(wanted) is None
    new = device.sonar
    axes = getattr(new, beams)
    assert (axes.beams, axes.min_angle, axes.max_angle) == (5, -0.2, 0.2)
    assert axes == dataclasses.replace(getattr(old, beams), beams=5, min_angle=-0.2, max_angle=0.2)
    for name, value in keywords.items():
        assert getattr(new, name) is value, name
    np.testing.assert_array_equal(new.world_from_body, POSE)


def test_a_refused_request_keeps_the_sonar() -> None:
    device = device_of('echosounder')
    old, config = device.sonar, device.ranger_config()
    # 0.4 rad is not a whole number of 0.3 rad steps.
    odd = dataclasses.replace(config, min_angle=-0.2, max_angle=0.2, angular_resolution=0.3)
    assert device.reconfigure(odd) == (
        'the span 0.4 is not a whole number of angular_resolution steps (0.3)'
    )
    assert device.sonar is old
    assert device.ranger_config() == config
