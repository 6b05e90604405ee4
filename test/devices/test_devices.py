"""Every device from one builder, behind one protocol, without ROS (``nps_sonar_py.devices``).

Expected ranges are the reference scenario's and the corridor's geometry (``reference_scene``,
``ranger_scenes``), worked out here, not read from the devices.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from device_kinds import robot_file, robot_of, setup_of
from ranger_scenes import CORRIDOR
from reference_scene import CYLINDER_CENTRE, CYLINDER_RADIUS, FACETING, SONAR

from nps_sonar_py.description import SensorType
from nps_sonar_py.devices import (
    Device,
    Family,
    FanRanger,
    Rig,
    ScannerRanger,
    Setup,
    SingleBeamSonar,
    SonarArray,
    SweepRanger,
    build_device,
    choose_sensor,
    load_robot_from,
    reference_world_file,
    robot_root_pose,
)
from nps_sonar_py.devices.kinds import ModeSettings, family_records
from nps_sonar_py.devices.kinds.echosounder import EchosounderSettings
from nps_sonar_py.devices.kinds.multibeam import FanSettings
from nps_sonar_py.devices.kinds.sweep import SweepSettings
from nps_sonar_py.devices.settings import (
    BeamSettings,
    GeometrySettings,
    ImageSettings,
    MotionSettings,
    OutputSettings,
    RangerSettings,
    RobotSettings,
    ScanningSettings,
    SelectionSettings,
    SensorSettings,
)
from nps_sonar_py.errors import ConfigurationError, DescriptionError
from nps_sonar_py.records import specs
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.echosounder import Detection

ROBOTS = Path(__file__).resolve().parents[2] / 'config' / 'robots'
#: The reference sonar sits at the world origin of its robot; its robot's root is placed here.
ORIGIN = robot_root_pose([0.0] * 6)


def reference_rig(**beam: object) -> Rig:
    setup = Setup(Family.SONAR, SensorSettings(), OutputSettings(), BeamSettings(**beam))  # type: ignore[arg-type]
    caster = Raycaster(load_world(reference_world_file()))
    return Rig(load_robot_from(RobotSettings()), setup, caster, ORIGIN)


def ranger_setup(**ranger: object) -> Setup:
    return Setup(
        Family.RANGER,
        SelectionSettings(),
        RangerSettings(**ranger),  # type: ignore[arg-type]
        GeometrySettings(),
        OutputSettings(),
        BeamSettings(medium='air', rays=50),
    )


def test_every_device_class_has_the_whole_protocol() -> None:
    members = {name for name in vars(Device) if not name.startswith('_')} | {'catch_up'}
    assert {'period', 'read', 'set_pose', 'reconfigure'} <= members
    for kind in (SingleBeamSonar, SonarArray, ScannerRanger, SweepRanger, FanRanger):
        missing = sorted(m for m in members if not hasattr(kind, m))
        assert not missing, (kind.__name__, missing)


def test_the_reference_sonar_is_a_single_beam_whose_boresight_meets_the_cylinder() -> None:
    rig = reference_rig(rays=1)
    assert isinstance(rig.device, SingleBeamSonar)
    reading = rig.read()
    # One ray, the boresight, along world +y from (2.1, 1.0): the cylinder's face is at
    # y = 3.0 - 0.25, within the 64-gon's faceting of the circle.
    expected = CYLINDER_CENTRE[1] - CYLINDER_RADIUS - SONAR[1]
    assert reading.ranges[0] == pytest.approx(expected, abs=FACETING + 1e-6)
    assert reading.pings[0].range == reading.ranges[0]


def test_moving_the_robot_moves_the_sonar() -> None:
    rig = reference_rig(rays=1)
    before = rig.read().ranges[0]
    # The root 0.5 m further along +y: the boresight's hit is 0.5 m nearer.
    rig.move(robot_root_pose([0.0, 0.5, 0.0, 0.0, 0.0, 0.0]), {})
    assert rig.read().ranges[0] == pytest.approx(before - 0.5, abs=1e-6)


def test_a_rebuilt_device_keeps_the_pose_and_takes_the_new_settings() -> None:
    rig = reference_rig(rays=1)
    rig.move(robot_root_pose([0.0, 0.5, 0.0, 0.0, 0.0, 0.0]), {})
    setup = rig.setup.replaced(BeamSettings(rays=7))
    rig.use(setup, rig.rebuilt(setup))
    assert rig.device.ranger_config().frequency == pytest.approx(15.0)  # the URDF's update_rate
    assert isinstance(rig.device, SingleBeamSonar)
    assert rig.device.n_rays == 7
    assert rig.read().ranges[0] == pytest.approx(
        CYLINDER_CENTRE[1] - CYLINDER_RADIUS - SONAR[1] - 0.5, abs=FACETING + 1e-6
    )


def test_a_ranger_setup_makes_a_scanner_of_a_ray_sensor_and_an_array_of_sonars() -> None:
    scanner_robot = robot_file('ranger_scanner.urdf')
    _, scanner = build_device(scanner_robot, ranger_setup())
    assert isinstance(scanner, ScannerRanger)
    ring = robot_file('sonar_ring.urdf')
    mount, array = build_device(ring, ranger_setup())
    assert isinstance(array, SonarArray)
    assert array.size == len(ring.sensors_of_type(SensorType.SONAR))
    assert mount.name == 'ranger'
    assert len(array.beams()) == array.size


def test_a_scanning_setup_makes_a_sweep_that_assembles_its_sweep() -> None:
    robot = robot_file('ranger_scanning_sonar.urdf')
    setup = Setup(
        Family.SCANNING,
        ScanningSettings(min_angle=-0.3, max_angle=0.3),
        SweepSettings(step=0.1),
        BeamSettings(rays=20),
    )
    caster = Raycaster(load_world(CORRIDOR))
    rig = Rig(robot, setup, caster, ORIGIN)
    device = rig.device
    assert isinstance(device, SweepRanger)
    assert device.catch_up
    assert device.cycle_length == 7  # -0.3, -0.2, ..., 0.3
    readings = [rig.read() for _ in range(device.cycle_length)]
    assert [r.sweep is None for r in readings] == [True] * 6 + [False]
    sweep = readings[-1].sweep
    assert sweep is not None
    np.testing.assert_array_equal(sweep.ranges, [r.ping.range for r in readings])
    assert [r.step.angle for r in readings] == pytest.approx(np.linspace(-0.3, 0.3, 7).tolist())
    device.restart()
    assert rig.read().step.position == 0


def test_a_multibeam_setup_makes_a_fan() -> None:
    robot = robot_file('ranger_scanning_sonar.urdf')
    setup = Setup(
        Family.SCANNING,
        ModeSettings('multibeam'),
        ScanningSettings(min_angle=-0.3, max_angle=0.3),
        FanSettings(beams=7),
        OutputSettings(update_rate=5.0),
    )
    _, fan = build_device(robot, setup)
    assert isinstance(fan, FanRanger)
    assert fan.period == pytest.approx(0.2)
    assert fan.ranger_config().angular_resolution == pytest.approx(0.1)


def test_a_setting_the_device_refuses_is_an_error_located_at_the_sensor() -> None:
    robot = robot_file('ranger_scanning_sonar.urdf')
    setup = Setup(
        Family.SCANNING,
        ModeSettings('multibeam'),
        ScanningSettings(min_angle=0.5, max_angle=0.2),
    )
    with pytest.raises(
        DescriptionError, match=r'<sensor name=.*max_angle \(0.2\) must be >= min_angle \(0.5\)'
    ):
        build_device(robot, setup)
    # A choice no device has is refused as its record is made (one check of every setting).
    with pytest.raises(
        ConfigurationError,
        match=r"^mode must be sweep, multibeam, sidescan or echosounder, got 'spiral'$",
    ):
        ModeSettings('spiral')


def test_a_urdf_rate_the_single_beam_sonar_refuses_is_located_at_its_sensor() -> None:
    """A URDF ``update_rate`` the description takes (up to 1e6 Hz) but a device does not."""
    source = (ROBOTS / 'reference_sonar.urdf').read_text()
    assert 'update_rate="15"' in source
    robot = load_robot_from(
        RobotSettings(robot_description=source.replace('update_rate="15"', 'update_rate="5000"'))
    )
    setup = Setup(Family.SONAR)
    with pytest.raises(DescriptionError) as refused:
        build_device(robot, setup)
    line = str(refused.value)
    assert line.startswith('<robot_description>:')
    assert line.endswith(
        '<sensor name="sonar">: update_rate: frequency must be in [0.0001, 1000] Hz, got 5000.0'
    )


@pytest.mark.parametrize('mode', ['multibeam', 'sweep'])
def test_a_label_table_over_the_entity_limit_is_refused_in_one_line(mode: str) -> None:
    """A mono16 label is 1 + the entity index: 65535 entities fit, 65536 do not."""
    robot = robot_file('ranger_scanning_sonar.urdf')
    setup = Setup(
        Family.SCANNING,
        ModeSettings(mode),
        ScanningSettings(min_angle=-0.3, max_angle=0.3),
        FanSettings(beams=7) if mode == 'multibeam' else SweepSettings(step=0.1),
        BeamSettings(rays=20) if mode == 'sweep' else BeamSettings(),
        ImageSettings(publish_image_polar=True, publish_labels=True),
    )
    _, device = build_device(robot, setup, entities=65535)
    assert device.sonar.label_entities == 65535  # type: ignore[attr-defined]
    with pytest.raises(DescriptionError) as refused:
        build_device(robot, setup, entities=65536)
    line = str(refused.value)
    assert '\n' not in line
    assert line.endswith(
        'labels: a label table of 65536 entities is over the limit of 65535 '
        '(a mono16 label is 1 + the entity index)'
    ), line
    # Without publish_labels, the sensor labels nothing, whatever the world holds.
    _, plain = build_device(robot, setup.replaced(ImageSettings()), entities=9)
    assert plain.sonar.label_entities is None  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ('mode', 'robot', 'own'),
    [
        ('sidescan', 'sidescan_sonar.urdf', 'raw_image and waterfall'),
        ('echosounder', 'echosounder.urdf', 'soundings and detections'),
    ],
)
def test_the_fan_images_are_refused_where_a_mode_has_images_of_its_own(
    mode: str, robot: str, own: str
) -> None:
    """Asked of a side-scan or an echosounder, they would never come: one line says so."""
    loaded = robot_file(robot)
    setup = Setup(
        Family.SCANNING,
        ModeSettings(mode),
        ImageSettings(publish_image=True, publish_labels=True),
    )
    with pytest.raises(DescriptionError) as refused:
        build_device(loaded, setup)
    line = str(refused.value)
    assert '\n' not in line
    assert line.endswith(
        f'mode {mode} does not use publish_image and publish_labels: it publishes its {own}, '
        'not the images of mode multibeam and sweep; set publish_image false, '
        'publish_labels false'
    ), line
    build_device(loaded, setup.replaced(ImageSettings()))  # accepted


@pytest.mark.parametrize(
    'imaging', [{'tvg': '20log'}, {'cell_speckle': True}, {'side_lobe_db': -30.0}]
)
def test_the_echosounder_refuses_the_image_options_its_detection_would_ignore(
    imaging: dict[str, object],
) -> None:
    loaded = robot_file('echosounder.urdf')
    setup = Setup(
        Family.SCANNING,
        ModeSettings('echosounder'),
        ScanningSettings(**imaging),  # type: ignore[arg-type]
    )
    with pytest.raises(DescriptionError) as refused:
        build_device(loaded, setup)
    line = str(refused.value)
    assert '\n' not in line
    [name] = imaging
    default = {'tvg': 'none', 'cell_speckle': 'false', 'side_lobe_db': '0'}[name]
    assert line.endswith(
        f'mode echosounder does not use {name}: it detects the bottom in the plain echo (they '
        f'shape the images of mode multibeam and sidescan); set {name} {default}'
    ), line


def test_setups_are_made_of_records_and_no_parameter_is_declared_twice() -> None:
    for family in Family:
        records = family_records(family)
        made = Setup(family, *(record() for record in records))
        assert [type(made[record]) for record in records] == list(records)
    every = {RobotSettings, MotionSettings}
    for family in Family:
        every |= set(family_records(family))
    names = [spec.name for record in every for spec in specs(record)]
    assert len(names) == len(set(names))


@pytest.mark.parametrize(
    'size', [(-0.1, 0.1, 0.1), (0.1, 0.1), (0.1, math.nan, 0.1), (math.inf,) * 3]
)
def test_an_element_size_that_is_no_size_is_refused(size: tuple[float, ...]) -> None:
    with pytest.raises(ConfigurationError, match='element_size must be three finite sizes >= 0'):
        GeometrySettings(element_size=size)


def test_an_error_at_a_sensor_of_a_xacro_robot_says_it_is_in_xacros_output() -> None:
    robot = robot_file('demo_robot.urdf.xacro')
    with pytest.raises(DescriptionError) as error:
        choose_sensor(robot, 'imu', SensorType.SONAR)
    message = str(error.value)
    assert 'demo_robot.urdf.xacro (xacro output):' in message
    assert message.endswith('<sensor name="imu">: is of type "imu", not "sonar"')


@pytest.mark.parametrize(
    ('mode', 'record', 'name', 'value', 'default'),
    [
        ('sidescan', ImageSettings, 'publish_projected_image', True, 'false'),
        ('echosounder', ImageSettings, 'publish_projected_image', True, 'false'),
        ('sweep', ImageSettings, 'publish_projected_image', True, 'false'),
        ('sidescan', BeamSettings, 'beam_width', 0.1, '0'),
        ('echosounder', BeamSettings, 'beam_width', 0.1, '0'),
        ('multibeam', ImageSettings, 'sweep_image_update', 'step', 'sweep'),
    ],
)
def test_a_setting_a_kind_does_not_use_is_refused_in_one_line(
    mode: str, record: type[Any], name: str, value: object, default: str
) -> None:
    """Accepted and never used, it would mislead: each kind refuses its family's others."""
    robot = robot_of(mode)
    setup = setup_of(mode).replaced(ModeSettings(mode), record(**{name: value}))
    with pytest.raises(DescriptionError) as refused:
        build_device(robot, setup)
    line = str(refused.value)
    assert '\n' not in line
    assert f': mode {mode} does not use {name}: ' in line, line
    assert line.endswith(f'; set {name} {default}'), line
    build_device(robot, setup.replaced(record()))  # the default: accepted


@pytest.mark.parametrize(
    ('mode', 'record', 'name', 'value'),
    [
        ('multibeam', ImageSettings, 'publish_projected_image', True),
        ('sweep', ImageSettings, 'sweep_image_update', 'step'),
        ('multibeam', BeamSettings, 'beam_width', 0.1),
    ],
)
def test_the_kind_that_uses_a_setting_takes_it(
    mode: str, record: type[Any], name: str, value: object
) -> None:
    """The negative control of the refusals above: the same setting where it is used."""
    setup = setup_of(mode).replaced(ModeSettings(mode), record(**{name: value}))
    _, device = build_device(robot_of(mode), setup)
    assert type(device).__name__ == {'multibeam': 'FanRanger', 'sweep': 'SweepRanger'}[mode]


def test_every_choice_is_checked_by_the_record_in_one_line() -> None:
    """``detection_time`` was a string whose choices nobody checked: ``peak`` ended the node."""
    with pytest.raises(ConfigurationError) as refused:
        EchosounderSettings(detection_time='peak')  # type: ignore[arg-type]
    assert str(refused.value) == "detection_time must be amplitude or axis, got 'peak'"
    assert EchosounderSettings(detection_time='axis').detection_time is Detection.AXIS  # type: ignore[arg-type]
