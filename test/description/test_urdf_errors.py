"""Each way a description can be unusable: one DescriptionError (file, line, element, problem)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from urdf_snippets import robot, sonar

from nps_sonar_py.description import DescriptionError, load_robot, parse_robot


def error_of(text: str, source: str = '<robot_description>') -> DescriptionError:
    with pytest.raises(DescriptionError) as info:
        parse_robot(text, source=source)
    return info.value


# (case id, document, line, element, problem regex)
CASES = [
    (
        'malformed',
        '<robot name="r">\n<link name="a">\n</robot>',
        3,
        None,
        r'malformed XML: .*mismatch',
    ),
    ('empty', '', 1, None, r'malformed XML'),
    (
        'root',
        '<model name="m"/>',
        1,
        '<model name="m">',
        r'root element is <model>, expected <robot>',
    ),
    ('no links', '<robot name="r"/>', 1, '<robot name="r">', r'no <link>'),
    ('robot name', '<robot>\n<link name="a"/></robot>', 1, '<robot>', r'missing attribute name'),
    (
        'sensor name',
        robot('<sensor type="sonar"><parent link="base"/></sensor>'),
        3,
        '<sensor>',
        r'missing attribute name',
    ),
    (
        'sensor type',
        robot('<sensor name="s"><parent link="base"/></sensor>'),
        3,
        '<sensor name="s">',
        r'missing attribute type',
    ),
    (
        'unknown type',
        robot('<sensor name="s" type="lidar"><parent link="base"/></sensor>'),
        3,
        '<sensor name="s">',
        r"unknown sensor type 'lidar'; expected one of camera, ray, .*rfid",
    ),
    (
        'no parent',
        robot('<sensor name="s" type="sonar"/>'),
        3,
        '<sensor name="s">',
        r'missing <parent>',
    ),
    (
        'parent link',
        robot('<sensor name="s" type="sonar"><parent/></sensor>'),
        3,
        '<sensor name="s"><parent>',
        r'missing attribute link',
    ),
    (
        'unknown parent',
        robot('<sensor name="s" type="sonar">\n<parent link="mast"/></sensor>'),
        4,
        '<sensor name="s"><parent>',
        r"unknown link 'mast'",
    ),
    (
        'not a number',
        robot(sonar('\n<max>abc</max>')),
        6,
        '<sensor name="s"><sonar><max>',
        r"'abc' is not a number",
    ),
    (
        'nan',
        robot(sonar('<max>nan</max>')),
        5,
        '<sensor name="s"><sonar><max>',
        r"'nan' is not a number",
    ),
    (
        'inf',
        robot(sonar('<max>1e999</max>')),
        5,
        '<sensor name="s"><sonar><max>',
        r"'1e999' is not a finite",
    ),
    (
        'underscore',
        robot(sonar('<max>1_0</max>')),
        5,
        '<sensor name="s"><sonar><max>',
        r"'1_0' is not a number",
    ),
    (
        'attribute nan',
        robot(sonar('', attrs=' update_rate="NaN"')),
        3,
        '<sensor name="s">',
        r'update_rate="NaN": \'NaN\' is not a number',
    ),
    (
        'negative radius',
        robot(sonar('<radius>-0.5</radius>')),
        5,
        '<sensor name="s"><sonar><radius>',
        r'radius: must be > 0, got -0.5',
    ),
    (
        'negative min',
        robot(sonar('<min>-1</min>')),
        5,
        '<sensor name="s"><sonar><min>',
        r'min: must be >= 0',
    ),
    (
        'negative rate',
        robot(sonar('', attrs=' update_rate="-1"')),
        3,
        '<sensor name="s">',
        r'must be >= 0',
    ),
    (
        'max < min',
        robot(sonar('<min>0.5</min>\n<max>0.1</max>')),
        6,
        '<sensor name="s"><sonar><max>',
        r'max: must be > min \(0.5\), got 0.1',
    ),
    (
        'max == min',
        robot(sonar('<min>2</min><max>2</max>')),
        5,
        '<sensor name="s"><sonar><max>',
        r'must be > min',
    ),
    (
        'max < default min',
        robot('<sensor name="s" type="sonar">\n<parent link="base"/>\n<sonar max="0"/></sensor>'),
        5,
        '<sensor name="s"><sonar>',
        r'max: must be > 0, got 0.0',
    ),
    (
        'typo element',
        robot(sonar('<maxx>7</maxx>')),
        5,
        '<sensor name="s"><sonar><maxx>',
        r'unknown element <maxx> in <sonar>; expected <max>, <min>, <radius>',
    ),
    (
        'typo attribute',
        robot('<sensor name="s" type="sonar"><parent link="base"/><sonar mx="7"/></sensor>'),
        3,
        '<sensor name="s"><sonar>',
        r'unknown attribute mx; expected max, min, radius',
    ),
    (
        'sensor attribute',
        robot('<sensor name="s" type="sonar" rate="1"><parent link="base"/></sensor>'),
        3,
        '<sensor name="s">',
        r'unknown attribute rate',
    ),
    (
        'both forms',
        robot(sonar('<max>7</max>').replace('<sonar>', '<sonar max="7">')),
        5,
        '<sensor name="s"><sonar><max>',
        r'max given both as attribute and as element',
    ),
    (
        'twice',
        robot(sonar('<max>7</max><max>8</max>')),
        5,
        '<sensor name="s"><sonar><max>',
        r'<max> given more than once',
    ),
    (
        'wrong child',
        robot('<sensor name="s" type="sonar">\n<parent link="base"/>\n<ray/></sensor>'),
        5,
        '<sensor name="s"><ray>',
        r'<ray> does not belong in a sonar sensor',
    ),
    (
        'unknown child',
        robot('<sensor name="s" type="sonar"><parent link="base"/><plugin/></sensor>'),
        3,
        '<sensor name="s"><plugin>',
        r'unknown element <plugin>',
    ),
    (
        'camera missing',
        robot('<sensor name="c" type="camera"><parent link="base"/></sensor>'),
        3,
        '<sensor name="c">',
        r'missing <camera>',
    ),
    (
        'camera image',
        robot('<sensor name="c" type="camera"><parent link="base"/><camera/></sensor>'),
        3,
        '<sensor name="c"><camera>',
        r'missing <image>',
    ),
    (
        'camera width',
        robot(
            '<sensor name="c" type="camera"><parent link="base"/><camera><image height="1" '
            'format="rgb8" hfov="1" near="0.1" far="10"/></camera></sensor>'
        ),
        3,
        '<sensor name="c"><camera><image>',
        r'missing width \(attribute or element\)',
    ),
    (
        'far < near',
        robot(
            '<sensor name="c" type="camera"><parent link="base"/><camera>'
            '<image width="2" height="1" '
            'format="rgb8" hfov="1" near="1" far="0.5"/></camera></sensor>'
        ),
        3,
        '<sensor name="c"><camera><image>',
        r'far: must be >= near \(1.0\), got 0.5',
    ),
    (
        'width fraction',
        robot(
            '<sensor name="c" type="camera"><parent link="base"/><camera>'
            '<image width="2.5" height="1" '
            'format="rgb8" hfov="1" near="1" far="2"/></camera></sensor>'
        ),
        3,
        '<sensor name="c"><camera><image>',
        r'width="2.5": \'2.5\' is not an integer',
    ),
    (
        'angles',
        robot(
            '<sensor name="l" type="ray"><parent link="base"/><ray>\n<scan>'
            '<horizontal min_angle="1" '
            'max_angle="-1"/></scan></ray></sensor>'
        ),
        4,
        '<sensor name="l"><ray><scan><horizontal>',
        r'max_angle: must be >= min_angle \(1.0\), got -1.0',
    ),
    (
        'samples',
        robot(
            '<sensor name="l" type="ray"><parent link="base"/><ray><horizontal>'
            '<samples>0</samples>'
            '</horizontal></ray></sensor>'
        ),
        3,
        '<sensor name="l"><ray><horizontal><samples>',
        r'samples: must be >= 1, got 0',
    ),
    (
        'range',
        robot(
            '<sensor name="l" type="ray"><parent link="base"/><ray><range min="5" max="1"/></ray>'
            '</sensor>'
        ),
        3,
        '<sensor name="l"><ray><range>',
        r'max: must be > min \(5.0\)',
    ),
    (
        'scan twice',
        robot(
            '<sensor name="l" type="ray"><parent link="base"/><ray><horizontal/><scan>'
            '<horizontal/></scan></ray></sensor>'
        ),
        3,
        '<sensor name="l"><ray><scan><horizontal>',
        r'horizontal given twice',
    ),
    (
        'noise type',
        robot(
            '<sensor name="m" type="magnetometer"><parent link="base"/><magnetometer>'
            '<noise stddev="1"/></magnetometer></sensor>'
        ),
        3,
        '<sensor name="m"><magnetometer><noise>',
        r'missing type',
    ),
    (
        'noise choice',
        robot(
            '<sensor name="m" type="magnetometer"><parent link="base"/><magnetometer>'
            '<noise type="pink"/></magnetometer></sensor>'
        ),
        3,
        '<sensor name="m"><magnetometer><noise>',
        r"'pink' is not one of none, gaussian, gaussian_quantized",
    ),
    (
        'negative stddev',
        robot(
            '<sensor name="i" type="imu"><parent link="base"/><imu><gyro><noise><type>gaussian'
            '</type><stddev>-1</stddev></noise></gyro></imu></sensor>'
        ),
        3,
        '<sensor name="i"><imu><gyro><noise><stddev>',
        r'stddev: must be >= 0',
    ),
    (
        'direction',
        robot(
            '<sensor name="f" type="force_torque"><parent link="base"/><force_torque '
            'measure_direction="up"/></sensor>'
        ),
        3,
        '<sensor name="f"><force_torque>',
        r"'up' is not one of parent_to_child, child_to_parent",
    ),
    (
        'duplicate sensor',
        robot(
            '<sensor name="s" type="rfid"><parent link="base"/></sensor>\n'
            '<sensor name="s" type="rfid"><parent link="base"/></sensor>'
        ),
        4,
        '<sensor name="s">',
        r"sensor 's' defined twice \(first on line 3\)",
    ),
    (
        'duplicate link',
        robot('<link name="base"/>'),
        3,
        '<link name="base">',
        r"link 'base' defined twice",
    ),
    (
        'joint unknown child',
        robot('<joint name="j1" type="fixed"><parent link="base"/>\n<child link="arm"/></joint>'),
        4,
        '<joint name="j1"><child>',
        r"unknown link 'arm'",
    ),
    (
        'joint unknown parent',
        robot(
            '<link name="arm"/><joint name="j1" type="fixed"><parent link="bse"/>'
            '<child link="arm"/></joint>'
        ),
        3,
        '<joint name="j1"><parent>',
        r"unknown link 'bse'",
    ),
    (
        'joint type',
        robot(
            '<link name="a"/><joint name="j1" type="hinge"><parent link="base"/><child link="a"/>'
            '</joint>'
        ),
        3,
        '<joint name="j1">',
        r"unknown joint type 'hinge'",
    ),
    (
        'joint limit',
        robot(
            '<link name="a"/><joint name="j1" type="revolute"><parent link="base"/>'
            '<child link="a"/></joint>'
        ),
        3,
        '<joint name="j1">',
        r'missing <limit>',
    ),
    (
        'limit order',
        robot(
            '<link name="a"/><joint name="j1" type="prismatic"><parent link="base"/>'
            '<child link="a"/>'
            '<limit lower="1" upper="0"/></joint>'
        ),
        3,
        '<joint name="j1"><limit>',
        r'upper: must be >= lower',
    ),
    (
        'zero axis',
        robot(
            '<link name="a"/><joint name="j1" type="continuous"><parent link="base"/>'
            '<child link="a"/>'
            '<axis xyz="0 0 0"/></joint>'
        ),
        3,
        '<joint name="j1"><axis>',
        r'axis must not be zero',
    ),
    (
        'two parents',
        robot(
            '<link name="a"/><link name="b"/>\n'
            '<joint name="j1" type="fixed"><parent link="base"/><child link="b"/></joint>\n'
            '<joint name="j2" type="fixed"><parent link="a"/><child link="b"/></joint>\n'
            '<joint name="j3" type="fixed"><parent link="base"/><child link="a"/></joint>'
        ),
        5,
        '<joint name="j2">',
        r"link 'b' has two parents: joint 'j1' \(line 4\)",
    ),
    (
        'loop',
        robot(
            '<link name="a"/><link name="b"/>\n'
            '<joint name="j1" type="fixed"><parent link="a"/><child link="b"/></joint>\n'
            '<joint name="j2" type="fixed"><parent link="b"/><child link="a"/></joint>'
        ),
        None,
        '<joint name="j',
        r'kinematic loop: (a -> b -> a|b -> a -> b)',
    ),
    (
        'self joint',
        robot('<joint name="j1" type="fixed"><parent link="base"/><child link="base"/></joint>'),
        3,
        '<joint name="j1">',
        r"joins link 'base' to itself",
    ),
    ('two roots', robot('<link name="a"/>'), 1, '<robot name="r">', r'2 root links \(base, a\)'),
    (
        'mimic',
        robot(
            '<link name="a"/><joint name="j1" type="continuous"><parent link="base"/>'
            '<child link="a"/>'
            '<mimic joint="j9"/></joint>'
        ),
        3,
        '<joint name="j1">',
        r"<mimic> names unknown joint 'j9'",
    ),
    (
        'box',
        robot(
            '<link name="a">\n<visual><geometry><box size="1 -1 1"/></geometry></visual></link>'
        ),
        4,
        '<link name="a"><visual><geometry><box>',
        r'size: must be >= 0, got -1.0',
    ),
    (
        'box words',
        robot('<link name="a"><visual><geometry><box size="1 1"/></geometry></visual></link>'),
        3,
        '<link name="a"><visual><geometry><box>',
        r'size="1 1": expected 3 numbers, got 2',
    ),
    (
        'cylinder',
        robot(
            '<link name="a"><collision><geometry><cylinder radius="-1" length="1"/></geometry>'
            '</collision></link>'
        ),
        3,
        '<link name="a"><collision><geometry><cylinder>',
        r'radius="-1": must be >= 0',
    ),
    (
        'capsule',
        robot(
            '<link name="a"><visual><geometry><capsule radius="1" length="1"/></geometry></visual>'
            '</link>'
        ),
        3,
        '<link name="a"><visual><geometry><capsule>',
        r'unknown geometry <capsule>',
    ),
    (
        'no geometry',
        robot('<link name="a"><visual/></link>'),
        3,
        '<link name="a"><visual>',
        r'missing <geometry>',
    ),
    (
        'origin',
        robot(
            '<link name="a"><visual><origin xyz="0 x 0"/><geometry><sphere radius="1"/></geometry>'
            '</visual></link>'
        ),
        3,
        '<link name="a"><visual><origin>',
        r'xyz="0 x 0": \'x\' is not a number',
    ),
    (
        'retro',
        robot('<gazebo reference="base"><laser_retro>-5</laser_retro></gazebo>'),
        3,
        '<gazebo reference="base"><laser_retro>',
        r'must be >= 0, got -5.0',
    ),
    (
        'reflectivity',
        robot(
            '<link name="a"><collision><geometry><sphere radius="1"/></geometry><nps_sonar '
            'reflectivity="1.5"/></collision></link>'
        ),
        3,
        '<link name="a"><collision><nps_sonar>',
        r'reflectivity="1.5": must be <= 1, got 1.5',
    ),
    (
        'retro reference',
        robot('<gazebo reference="nowhere"><laser_retro>5</laser_retro></gazebo>'),
        3,
        '<gazebo reference="nowhere">',
        r"laser_retro or nps_sonar for unknown link 'nowhere'",
    ),
    (
        'gazebo link',
        robot('<gazebo reference="mast"><sensor name="g" type="sonar"/></gazebo>'),
        3,
        '<gazebo reference="mast">',
        r"unknown link 'mast'",
    ),
    (
        'gazebo no reference',
        robot('<gazebo><sensor name="g" type="ray"/></gazebo>'),
        3,
        '<gazebo>',
        r'needs <gazebo reference="link">',
    ),
    (
        'gazebo value',
        robot(
            '<gazebo reference="base"><sensor name="g" type="ray"><ray><range><max>far</max>'
            '</range></ray></sensor></gazebo>'
        ),
        3,
        '<sensor name="g"><ray><range><max>',
        r"'far' is not a number",
    ),
    (
        'gazebo pose',
        robot(
            '<gazebo reference="base"><sensor name="g" type="sonar"><pose>0 0 0</pose></sensor>'
            '</gazebo>'
        ),
        3,
        '<sensor name="g"><pose>',
        r'expected 6 numbers, got 3',
    ),
    (
        'gazebo relative',
        robot(
            '<gazebo reference="base"><sensor name="g" type="sonar"><pose relative_to="x">'
            '0 0 0 0 0 0</pose></sensor></gazebo>'
        ),
        3,
        '<sensor name="g"><pose>',
        r'relative_to="x"',
    ),
    (
        'sensor in link',
        robot('<link name="a">\n<sensor name="s" type="sonar"><parent link="a"/></sensor></link>'),
        4,
        '<sensor name="s">',
        r'a <sensor> belongs in <robot> or in <gazebo reference="link">',
    ),
    (
        'xacro',
        '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">\n<link name="a"/>\n'
        '<xacro:property name="p" value="1"/></robot>',
        3,
        '<robot name="r"><xacro:property name="p">',
        r'unexpanded xacro element',
    ),
]


@pytest.mark.parametrize(
    ('text', 'line', 'element', 'problem'), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_error_names_file_line_element_and_problem(
    text: str, line: int | None, element: str | None, problem: str
):
    err = error_of(text, source='robot.urdf')
    assert err.file == 'robot.urdf'
    if line is not None:
        assert err.line == line
    if element is not None:
        assert err.element is not None
        assert err.element.startswith(element)
    assert re.search(problem, err.problem), err.problem
    message = str(err)
    assert '\n' not in message
    assert message.startswith(f'robot.urdf:{err.line}: ' if err.line else 'robot.urdf: ')
    assert message.endswith(err.problem)


def test_message_format_is_one_line_file_line_element_problem():
    err = error_of(robot(sonar('<min>0.5</min>\n<max>0.1</max>')), source='tank.urdf')
    assert (
        str(err) == 'tank.urdf:6: <sensor name="s"><sonar><max>: max: must be > min (0.5), got 0.1'
    )


@pytest.mark.parametrize('breaking', ['\n', '\r', '\x0b', '\x1c', '\x85', '\u2028', '\u2029'])
def test_every_input_error_is_one_line_whatever_its_parts_hold(breaking: str):
    """str.splitlines() breaks at each of these: the message escapes them all, in every part."""
    from nps_sonar_py.errors import InputError

    err = InputError(
        f'bad{breaking}value', file=f'a{breaking}.urdf', line=3, element=f'<x{breaking}>'
    )
    message = str(err)
    assert len(message.splitlines()) == 1
    assert message.startswith('a\\')  # the file name, escaped as Python would write it
    assert message.count('\\') == 3


def test_attribute_form_errors_name_the_attribute():
    err = error_of(
        robot('<sensor name="s" type="sonar"><parent link="base"/><sonar max="x7"/></sensor>')
    )
    assert err.problem == 'max="x7": \'x7\' is not a number'


def test_unicode_that_cannot_be_encoded_is_a_description_error():
    with pytest.raises(DescriptionError, match='not valid Unicode'):
        parse_robot(robot('<link name="\ud800"/>'))


def test_missing_file(tmp_path: Path):
    missing = tmp_path / 'none.urdf'
    with pytest.raises(DescriptionError, match='cannot read') as info:
        load_robot(missing)
    assert info.value.file == str(missing)


def test_file_errors_name_the_file(tmp_path: Path):
    path = tmp_path / 'bad.urdf'
    path.write_text(robot(sonar('<radius>-1</radius>')))
    with pytest.raises(DescriptionError) as info:
        load_robot(path)
    assert str(info.value).startswith(f'{path}:5: <sensor name="s"><sonar><radius>: ')


def test_xacro_errors_name_the_file(tmp_path: Path):
    path = tmp_path / 'bad.urdf.xacro'
    path.write_text(
        '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro"><link name="$(arg nope)"/>'
        '</robot>'
    )
    with pytest.raises(DescriptionError, match=r'xacro failed: .*nope') as info:
        load_robot(path)
    assert info.value.file == str(path)


def test_xacro_output_errors_name_the_xacro_file(tmp_path: Path):
    path = tmp_path / 'bad.urdf.xacro'
    path.write_text(
        '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
        '<xacro:arg name="m" default="1"/>'
        '<link name="a"/><sensor name="s" type="sonar"><parent link="a"/><sonar max="$(arg m)"/>'
        '</sensor>'
        '</robot>',
    )
    with pytest.raises(DescriptionError, match=r'max: must be > 0') as info:
        load_robot(path, xacro_args={'m': '-2'})
    assert info.value.file == f'{path} (xacro output)'
    assert info.value.line is not None


def test_xacro_args_for_a_plain_urdf_are_refused(tmp_path: Path):
    path = tmp_path / 'plain.urdf'
    path.write_text(robot(''))
    with pytest.raises(DescriptionError, match=r'not \.xacro'):
        load_robot(path, xacro_args={'a': '1'})


def test_unknown_sensor_and_link_lookups():
    r = parse_robot(robot(''))
    with pytest.raises(DescriptionError, match="no sensor 'sonar'"):
        r.sensor('sonar')
    with pytest.raises(DescriptionError, match="no link 'mast'"):
        r.link_transform('mast')
