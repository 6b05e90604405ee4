"""Numbers of a robot description keep the bounds of scene files and messages (limits.py).

A pose read from a URDF (a joint's, a shape's or a sensor's ``<origin>``, a Gazebo sensor's
``<pose>``) has its coordinates within ``MAX_POSITION`` (1e6 m) and its angles within
``MAX_ANGLE`` (1e3 rad); an ``update_rate`` lies in [``MIN_RATE``, ``MAX_RATE``] (1e-6 to
1e6 Hz); scan angles within ``MAX_ANGLE``; noise values within ``MAX_NOISE`` (1e6); a sensor
name has no white space or control character (it names frames and topics). Each refusal is
one line naming the file, line and element, as ``docs/description.md`` says.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from one_line import check_one_line
from urdf_snippets import ray, robot

from nps_sonar_py.description import (
    MAX_NOISE,
    DescriptionError,
    FieldError,
    Joint,
    JointType,
    Noise,
    ScanAxis,
    Sensor,
    SensorType,
    SonarSpec,
    parse_robot,
)
from nps_sonar_py.limits import MAX_ANGLE, MAX_POSITION, MAX_RATE, MIN_RATE


def joint(origin: str) -> str:
    """A fixed joint base -> c; ``origin`` is on line 5."""
    return robot(
        '<link name="c"/>\n<joint name="j" type="fixed"><parent link="base"/><child link="c"/>\n'
        f'{origin}</joint>'
    )


def sonar(attributes: str = '', inner: str = '') -> str:
    """A proposal-form sonar <sensor ...> on line 3; ``inner`` is on line 5."""
    return robot(
        f'<sensor name="s" type="sonar"{attributes}>\n<parent link="base"/>\n{inner}</sensor>'
    )


def gazebo(inner: str, name: str = 'g', kind: str = 'sonar') -> str:
    """A Gazebo-form sensor: <sensor> on line 4, ``inner`` from line 5."""
    return robot(
        f'<gazebo reference="base">\n<sensor name="{name}" type="{kind}">\n{inner}'
        '</sensor>\n</gazebo>'
    )


def shape(geometry: str, origin: str = '') -> str:
    """A link "v", fixed to the base, whose <collision> is on line 4."""
    return robot(
        f'<link name="v">\n<collision>{origin}<geometry>{geometry}</geometry></collision></link>'
        '<joint name="v" type="fixed"><parent link="base"/><child link="v"/></joint>'
    )


J = '<joint name="j"><origin>'
RAY = '<sensor name="l"><ray>'

# (case id, URDF text, expected str(error)); the text is read as 'robot.urdf'.
CASES = [
    (
        'joint origin x 1e300',
        joint('<origin xyz="1e300 0 0"/>'),
        f'robot.urdf:5: {J}: xyz="1e300 0 0": must be <= 1000000, got 1e+300',
    ),
    (
        'joint origin y -2e6',
        joint('<origin xyz="0 -2e6 0"/>'),
        f'robot.urdf:5: {J}: xyz="0 -2e6 0": must be >= -1000000, got -2000000.0',
    ),
    (
        'joint origin yaw 1e308',
        joint('<origin rpy="0 0 1e308"/>'),
        f'robot.urdf:5: {J}: rpy="0 0 1e308": must be <= 1000, got 1e+308',
    ),
    (
        'shape origin 1e7',
        shape('<sphere radius="1"/>', '<origin xyz="1e7 0 0"/>'),
        'robot.urdf:4: <link name="v"><collision><origin>: xyz="1e7 0 0": must be <= 1000000, '
        'got 10000000.0',
    ),
    (
        'sensor origin 1e300',
        sonar(inner='<origin xyz="0 0 1e300"/>\n'),
        'robot.urdf:5: <sensor name="s"><origin>: xyz="0 0 1e300": must be <= 1000000, got 1e+300',
    ),
    (
        'gazebo pose x 1e300',
        gazebo('<pose>1e300 0 0 0 0 0</pose>\n'),
        'robot.urdf:5: <sensor name="g"><pose>: x y z: must be <= 1000000, got 1e+300',
    ),
    (
        'gazebo pose yaw 1e6 degrees',
        gazebo('<pose degrees="true">0 0 0 0 0 1e6</pose>\n'),
        'robot.urdf:5: <sensor name="g"><pose>: roll pitch yaw (rad): must be <= 1000, '
        f'got {math.radians(1e6)!r}',
    ),
    (
        'update_rate 1e12',
        sonar(' update_rate="1e12"'),
        'robot.urdf:3: <sensor name="s">: update_rate="1e12": must be <= 1000000, '
        'got 1000000000000.0',
    ),
    (
        'update_rate 1e-12',
        sonar(' update_rate="1e-12"'),
        'robot.urdf:3: <sensor name="s">: update_rate="1e-12": must be >= 1e-06, got 1e-12',
    ),
    (
        'update_rate subnormal',
        sonar(' update_rate="5e-324"'),
        'robot.urdf:3: <sensor name="s">: update_rate="5e-324": must be >= 1e-06, got 5e-324',
    ),
    (
        'gazebo update_rate 1e12',
        gazebo('<update_rate>1e12</update_rate>\n'),
        'robot.urdf:5: <sensor name="g"><update_rate>: must be <= 1000000, got 1000000000000.0',
    ),
    (
        'name with a space',
        robot('<sensor name="a b" type="sonar">\n<parent link="base"/>\n</sensor>'),
        'robot.urdf:3: <sensor name="a b">: name: \'a b\' has white space or a control '
        "character; it names the sensor's frame and topics",
    ),
    (
        'name with a newline',
        robot('<sensor name="a&#10;b" type="sonar">\n<parent link="base"/>\n</sensor>'),
        'robot.urdf:3: <sensor name="a\\nb">: name: \'a\\nb\' has white space or a control '
        "character; it names the sensor's frame and topics",
    ),
    (
        'gazebo name with a tab',
        gazebo('', name='g&#9;1'),
        'robot.urdf:4: <sensor name="g\\t1">: name: \'g\\t1\' has white space or a control '
        "character; it names the sensor's frame and topics",
    ),
    (
        'gazebo ray name with a trailing space',
        gazebo('', name='g ', kind='gpu_lidar'),
        'robot.urdf:4: <sensor name="g ">: name: \'g \' has white space or a control '
        "character; it names the sensor's frame and topics",
    ),
    (
        'scan min_angle -1e308',
        ray('<horizontal min_angle="-1e308"/>\n'),
        f'robot.urdf:6: {RAY}<horizontal>: min_angle: must be >= -1000, got -1e+308',
    ),
    (
        'scan max_angle 1e4',
        ray('<vertical>\n<max_angle>1e4</max_angle></vertical>\n'),
        f'robot.urdf:7: {RAY}<vertical><max_angle>: max_angle: must be <= 1000, got 10000.0',
    ),
    (
        'noise mean 1e308',
        ray('<noise type="gaussian" mean="1e308"/>\n'),
        f'robot.urdf:6: {RAY}<noise>: mean: must be <= 1000000, got 1e+308',
    ),
    (
        'noise stddev 1e300',
        ray('<noise type="gaussian" stddev="1e300"/>\n'),
        f'robot.urdf:6: {RAY}<noise>: stddev: must be <= 1000000, got 1e+300',
    ),
    (
        'noise bias_mean -1e300',
        ray('<noise type="gaussian" bias_mean="-1e300"/>\n'),
        f'robot.urdf:6: {RAY}<noise>: bias_mean: must be >= -1000000, got -1e+300',
    ),
    (
        'noise precision 1e300',
        ray('<noise type="gaussian_quantized" precision="1e300"/>\n'),
        f'robot.urdf:6: {RAY}<noise>: precision: must be <= 1000000, got 1e+300',
    ),
]


@pytest.mark.parametrize(('text', 'expected'), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_number_beyond_its_bound_is_one_located_line(text: str, expected: str) -> None:
    with pytest.raises(DescriptionError) as info:
        parse_robot(text, source='robot.urdf')
    assert check_one_line(info.value, 'robot.urdf', expected.rpartition(': ')[2]) == expected


def test_the_bounds_are_those_of_scene_files_and_messages() -> None:
    assert (MAX_POSITION, MAX_ANGLE, MIN_RATE, MAX_RATE, MAX_NOISE) == (1e6, 1e3, 1e-6, 1e6, 1e6)


def test_values_at_the_bounds_load() -> None:
    at = joint('<origin xyz="1e6 -1e6 0" rpy="1000 -1000 0"/>')
    origin = parse_robot(at).joints['j'].origin
    assert origin[:3, 3].tolist() == [1e6, -1e6, 0.0]
    for rate in ('1e-6', '1e6'):
        assert parse_robot(sonar(f' update_rate="{rate}"')).sensor('s').update_rate == float(rate)
    axis = parse_robot(ray('<horizontal min_angle="-1000" max_angle="1000"/>\n')).sensor('l')
    assert (axis.ray.horizontal.min_angle, axis.ray.horizontal.max_angle) == (-1000.0, 1000.0)
    noise = parse_robot(ray('<noise type="gaussian" mean="-1e6" stddev="1e6"/>\n')).sensor('l')
    assert (noise.ray.noise.mean, noise.ray.noise.stddev) == (-1e6, 1e6)
    placed = parse_robot(shape('<sphere radius="1"/>', '<origin xyz="0 0 -1e6"/>'))
    assert placed.links['v'].collisions[0].origin[2, 3] == -1e6


def test_an_axis_of_huge_components_is_normalised_without_overflow() -> None:
    """``1e300 1e300 0``: its norm overflows float64, its direction is (1, 1, 0) / sqrt 2."""
    text = robot(
        '<link name="c"/><joint name="j" type="revolute"><parent link="base"/><child link="c"/>'
        '<axis xyz="1e300 1e300 0"/><limit lower="-1" upper="1"/></joint>'
    )
    axis = parse_robot(text).joints['j'].axis
    np.testing.assert_allclose(axis, [math.sqrt(0.5), math.sqrt(0.5), 0.0], rtol=1e-15)


# --- objects built in code keep the same bounds ------------------------------------------------


def far(x: float) -> np.ndarray:
    pose = np.eye(4)
    pose[0, 3] = x
    return pose


CODE_CASES = [
    (
        'joint origin 1e300',
        lambda: Joint('j', JointType.FIXED, 'a', 'b', far(1e300)),
        'origin: translation [1e+300, 0.0, 0.0]: must be <= 1000000, got 1e+300',
    ),
    (
        'sensor origin -1e7',
        lambda: Sensor('s', SensorType.SONAR, None, None, 'a', far(-1e7), SonarSpec()),
        'origin: translation [-10000000.0, 0.0, 0.0]: must be >= -1000000, got -10000000.0',
    ),
    (
        'sensor update_rate 1e12',
        lambda: Sensor('s', SensorType.SONAR, None, 1e12, 'a', np.eye(4), SonarSpec()),
        'update_rate: must be <= 1000000, got 1000000000000.0',
    ),
    (
        'sensor name with a newline',
        lambda: Sensor('a\nb', SensorType.SONAR, None, None, 'a', np.eye(4), SonarSpec()),
        "name: 'a\\nb' has white space or a control character; it names the sensor's frame "
        'and topics',
    ),
    (
        'scan angle 1e308',
        lambda: ScanAxis(min_angle=-1e308),
        'min_angle: must be >= -1000, got -1e+308',
    ),
    ('noise mean 1e308', lambda: Noise(mean=1e308), 'mean: must be <= 1000000, got 1e+308'),
]


@pytest.mark.parametrize(
    ('make', 'expected'), [c[1:] for c in CODE_CASES], ids=[c[0] for c in CODE_CASES]
)
def test_objects_built_in_code_keep_the_bounds(make: object, expected: str) -> None:
    with pytest.raises(FieldError) as info:
        make()  # type: ignore[operator]
    assert str(info.value) == expected
