"""Sensors of both forms: every type of the proposal, fields, defaults, and Gazebo's form."""

from __future__ import annotations

import math

import numpy as np
import pytest
from lxml import etree

from nps_sonar_py.description import (
    DEFAULT_RAY_MAX_RANGE,
    CameraSpec,
    ContactSpec,
    ForceTorqueFrame,
    ForceTorqueSpec,
    GpsSpec,
    ImuSpec,
    MagnetometerSpec,
    MeasureDirection,
    Noise,
    NoiseType,
    RangeSpec,
    RaySpec,
    RfidSpec,
    RfidTagSpec,
    ScanAxis,
    Sensor,
    SensorForm,
    SensorType,
    SonarSpec,
    parse_robot,
    sensor_to_xml,
)


def one_sensor(body: str, *, links: str = '') -> Sensor:
    robot = parse_robot(f'<robot name="r"><link name="base"/>{links}{body}</robot>')
    assert len(robot.sensors) == 1
    return robot.sensors[0]


def urdf_sensor(type_: str, inner: str = '', attrs: str = '') -> Sensor:
    return one_sensor(
        f'<sensor name="s" type="{type_}"{attrs}><parent link="base"/>{inner}</sensor>'
    )


def test_attributes_and_defaults():
    s = urdf_sensor('sonar')
    assert (s.name, s.type, s.id, s.update_rate, s.parent_link) == (
        's',
        SensorType.SONAR,
        None,
        None,
        'base',
    )
    assert s.form is SensorForm.URDF
    assert s.gazebo is None
    np.testing.assert_array_equal(s.origin, np.eye(4))
    assert s.sonar == SonarSpec(min=0.0, max=1.0, radius=0.5)
    assert s.line == 1
    assert s.source == '<robot_description>'


def test_id_and_update_rate():
    s = urdf_sensor('rfid', attrs=' id="front-3" update_rate="12.5"')
    assert s.id == 'front-3'
    assert s.update_rate == 12.5


def test_update_rate_zero_means_every_cycle():
    assert urdf_sensor('rfid', attrs=' update_rate="0"').update_rate is None


def test_origin_is_the_optical_frame_relative_to_the_parent():
    s = urdf_sensor('sonar', '<origin xyz="1 2 3" rpy="0 0 1.5707963267948966"/>')
    np.testing.assert_allclose(s.origin[:3, 3], [1.0, 2.0, 3.0])
    # yaw +90 deg: the optical x axis (right) becomes the parent's +y
    np.testing.assert_allclose(s.origin[:3, 0], [0.0, 1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(s.origin[:3, 2], [0.0, 0.0, 1.0], atol=1e-12)


def test_body_origin_is_x_forward():
    s = urdf_sensor('sonar', '<origin rpy="-1.5707963267948966 0 -1.5707963267948966"/>')
    # optical z = parent x
    np.testing.assert_allclose(s.origin[:3, 2], [1.0, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(s.body_origin, np.eye(4), atol=1e-12)


@pytest.mark.parametrize(
    'inner',
    [
        '<sonar><min>0.1</min><max>7</max><radius>0.5</radius></sonar>',
        '<sonar min="0.1" max="7" radius="0.5"/>',
        '<sonar min="0.1"><max> 7 </max><radius>0.5</radius></sonar>',
    ],
    ids=['elements', 'attributes', 'mixed'],
)
def test_sonar_forms(inner: str):
    assert urdf_sensor('sonar', inner).sonar == SonarSpec(min=0.1, max=7.0, radius=0.5)


def test_camera():
    s = urdf_sensor(
        'camera',
        '<camera><image width="640" height="480" format="rgb8" hfov="1.047" near="0.1" far="100"/>'
        '</camera>',
    )
    assert s.camera == CameraSpec(640, 480, 'rgb8', 1.047, 0.1, 100.0)
    element_form = urdf_sensor(
        'camera',
        '<camera><image><width>640</width><height>480</height><format>rgb8</format>'
        '<hfov>1.047</hfov>'
        '<near>0.1</near><far>100</far></image></camera>',
    )
    assert element_form.camera == s.camera


def test_camera_far_may_equal_near():
    s = urdf_sensor(
        'camera',
        '<camera><image width="1" height="1" format="mono8" hfov="1" near="2" far="2"/></camera>',
    )
    assert s.camera.far == s.camera.near == 2.0


def test_ray_defaults():
    s = urdf_sensor('ray')
    assert s.ray == RaySpec(
        ScanAxis(1, 1.0, 0.0, 0.0),
        ScanAxis(1, 1.0, 0.0, 0.0),
        RangeSpec(0.0, DEFAULT_RAY_MAX_RANGE),
    )
    assert s.ray.range.resolution is None
    assert s.ray.noise == Noise(NoiseType.NONE)


def test_ray_all_fields_with_and_without_scan():
    inner = (
        '<horizontal samples="640" resolution="0.5" min_angle="-2" max_angle="2"/>'
        '<vertical><samples>16</samples><min_angle>-0.26</min_angle><max_angle>0.26</max_angle>'
        '</vertical>'
    )
    tail = (
        '<range><min>0.08</min><max>10</max><resolution>0.01</resolution></range>'
        '<noise><type>gaussian</type><mean>0.001</mean><stddev>0.01</stddev></noise>'
    )
    flat = urdf_sensor('ray', f'<ray>{inner}{tail}</ray>').ray
    scan = urdf_sensor('ray', f'<ray><scan>{inner}</scan>{tail}</ray>').ray
    assert flat == scan
    assert flat.horizontal == ScanAxis(640, 0.5, -2.0, 2.0)
    assert flat.vertical == ScanAxis(16, 1.0, -0.26, 0.26)
    assert flat.range == RangeSpec(0.08, 10.0, 0.01)
    assert flat.noise == Noise(NoiseType.GAUSSIAN, mean=0.001, stddev=0.01)


def test_noise_all_fields():
    s = urdf_sensor(
        'magnetometer',
        '<magnetometer>'
        '<noise type="gaussian_quantized" mean="-1" stddev="2" bias_mean="3" bias_stddev="4" '
        'precision="0.5"/></magnetometer>',
    )
    assert s.magnetometer == MagnetometerSpec(
        Noise(NoiseType.GAUSSIAN_QUANTIZED, -1.0, 2.0, 3.0, 4.0, 0.5)
    )


def test_imu_gps_and_defaults():
    gaussian = Noise(NoiseType.GAUSSIAN, stddev=0.2)
    imu = urdf_sensor('imu', '<imu><gyro><noise type="gaussian" stddev="0.2"/></gyro></imu>')
    assert imu.imu == ImuSpec(gyro_noise=gaussian, acceleration_noise=Noise())
    gps = urdf_sensor(
        'gps',
        '<gps><velocity_sensing><noise type="gaussian" stddev="0.2"/></velocity_sensing></gps>',
    )
    assert gps.gps == GpsSpec(position_noise=Noise(), velocity_noise=gaussian)
    assert urdf_sensor('imu').imu == ImuSpec()


def test_force_torque():
    assert urdf_sensor('force_torque').force_torque == ForceTorqueSpec(
        ForceTorqueFrame.CHILD,
        MeasureDirection.CHILD_TO_PARENT,
    )
    s = urdf_sensor(
        'force_torque',
        '<force_torque><frame>sensor</frame><measure_direction>parent_to_child</measure_direction>'
        '</force_torque>',
    )
    assert s.force_torque == ForceTorqueSpec(
        ForceTorqueFrame.SENSOR, MeasureDirection.PARENT_TO_CHILD
    )


def test_contact_rfid_rfidtag():
    assert urdf_sensor(
        'contact', '<contact><collision>bumper</collision></contact>'
    ).contact == ContactSpec('bumper')
    assert urdf_sensor('contact').contact == ContactSpec(None)
    assert urdf_sensor('rfid', '<rfid/>').rfid == RfidSpec()
    assert urdf_sensor('rfidtag').rfidtag == RfidTagSpec()


def test_gazebo_child_is_kept_raw():
    s = urdf_sensor(
        'sonar', '<gazebo><plugin name="p" filename="libp.so"><topic>t</topic></plugin></gazebo>'
    )
    assert s.gazebo is not None
    kept = etree.fromstring(s.gazebo)
    assert kept.tag == 'gazebo'
    assert kept.find('plugin/topic').text == 't'


def test_typed_spec_of_another_type_is_an_attribute_error():
    s = urdf_sensor('sonar')
    with pytest.raises(AttributeError, match="'s' is a sonar sensor, not ray"):
        _ = s.ray
    assert getattr(s, 'camera', None) is None


def test_every_type_is_listed():
    body = ''.join(
        f'<sensor name="{t.value}" type="{t.value}"><parent link="base"/></sensor>'
        for t in SensorType
        if t is not SensorType.CAMERA
    )
    robot = parse_robot(f'<robot name="r"><link name="base"/>{body}</robot>')
    assert [s.type for s in robot.sensors] == [t for t in SensorType if t is not SensorType.CAMERA]
    assert robot.sensors_of_type(SensorType.SONAR) == (robot.sensor('sonar'),)


# --- Gazebo's form ---------------------------------------------------------------------------


def gazebo_sensor(inner: str, *, type_: str = 'ray', reference: str = 'base') -> Sensor:
    return one_sensor(
        f'<gazebo reference="{reference}"><sensor name="g" type="{type_}">{inner}</sensor>'
        '</gazebo>'
    )


def test_gazebo_ray_as_written_by_gazebo_users():
    s = gazebo_sensor(
        '<always_on>true</always_on><update_rate>15</update_rate><visualize>false</visualize>'
        '<pose>0 0 0 0 0 0</pose>'
        '<ray><scan><horizontal><samples>3</samples><resolution>1</resolution>'
        '<min_angle>-0.1</min_angle>'
        '<max_angle>0.1</max_angle></horizontal></scan>'
        '<range><min>0.1</min><max>7</max><resolution>0.01</resolution></range>'
        '<noise><type>gaussian</type><mean>0</mean><stddev>0.005</stddev></noise></ray>'
        '<plugin name="x" filename="libgazebo_ros_ray_sensor.so"/>',
    )
    assert s.type is SensorType.RAY
    assert s.form is SensorForm.GAZEBO
    assert s.update_rate == 15.0
    assert s.parent_link == 'base'
    assert s.ray.horizontal == ScanAxis(3, 1.0, -0.1, 0.1)
    assert s.ray.range == RangeSpec(0.1, 7.0, 0.01)
    assert s.ray.noise == Noise(NoiseType.GAUSSIAN, stddev=0.005)
    assert s.gazebo is not None
    assert 'libgazebo_ros_ray_sensor.so' in s.gazebo


@pytest.mark.parametrize(
    ('type_', 'child'), [('gpu_ray', 'ray'), ('lidar', 'lidar'), ('gpu_lidar', 'ray')]
)
def test_gazebo_ray_like_types_are_rays(type_: str, child: str):
    s = gazebo_sensor(f'<{child}><range><max>3</max></range></{child}>', type_=type_)
    assert s.type is SensorType.RAY
    assert s.ray.range.max == 3.0


def test_gazebo_sonar_and_defaults():
    s = gazebo_sensor('<sonar><min>0.2</min><max>5</max><radius>1</radius></sonar>', type_='sonar')
    assert s.sonar == SonarSpec(0.2, 5.0, 1.0)
    assert gazebo_sensor('', type_='sonar').sonar == SonarSpec()
    assert gazebo_sensor('<update_rate>0</update_rate>', type_='sonar').update_rate is None


def test_gazebo_pose_is_turned_into_the_optical_frame():
    # SDF sensor frames are x forward: with yaw +90 deg the sensor looks along the link's +y.
    s = gazebo_sensor(f'<pose>1 2 3 0 0 {math.pi / 2}</pose>', type_='sonar')
    np.testing.assert_allclose(s.origin[:3, 3], [1.0, 2.0, 3.0])
    np.testing.assert_allclose(s.origin[:3, 2], [0.0, 1.0, 0.0], atol=1e-12)  # optical z: forward
    # optical x: right of +y is +x
    np.testing.assert_allclose(s.origin[:3, 0], [1.0, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(s.origin[:3, 1], [0.0, 0.0, -1.0], atol=1e-12)  # optical y: down


def test_gazebo_pitch_and_degrees():
    # pitch +0.5 rad tilts the x-forward axis down (REP 103): forward = (cos 0.5, 0, -sin 0.5)
    radians = gazebo_sensor('<pose>0 0 0 0 0.5 0</pose>', type_='sonar')
    np.testing.assert_allclose(
        radians.origin[:3, 2], [math.cos(0.5), 0.0, -math.sin(0.5)], atol=1e-12
    )
    degrees = gazebo_sensor(
        f'<pose degrees="true">0 0 0 0 {math.degrees(0.5)} 0</pose>', type_='sonar'
    )
    np.testing.assert_allclose(degrees.origin, radians.origin, atol=1e-12)


def test_gazebo_types_not_read_are_listed_not_parsed():
    robot = parse_robot(
        '<robot name="r"><link name="base"/><gazebo reference="base">'
        '<sensor name="cam" type="camera">'
        '<camera><horizontal_fov>1</horizontal_fov></camera></sensor></gazebo></robot>',
    )
    assert robot.sensors == ()
    assert len(robot.unread_sensors) == 1
    unread = robot.unread_sensors[0]
    assert (unread.name, unread.type, unread.reference, unread.line) == (
        'cam',
        'camera',
        'base',
        1,
    )


def test_sensor_names_are_unique_across_forms():
    with pytest.raises(Exception, match="sensor 's' defined twice"):
        parse_robot(
            '<robot name="r"><link name="base"/><sensor name="s" type="sonar">'
            '<parent link="base"/></sensor>'
            '<gazebo reference="base"><sensor name="s" type="sonar"/></gazebo></robot>',
        )


def test_sensors_keep_file_order_across_forms():
    robot = parse_robot(
        '<robot name="r"><link name="base"/><gazebo reference="base">'
        '<sensor name="a" type="sonar"/></gazebo>'
        '<sensor name="b" type="sonar"><parent link="base"/></sensor>'
        '<gazebo reference="base"><sensor name="c" type="ray"/></gazebo></robot>',
    )
    assert [s.name for s in robot.sensors] == ['a', 'b', 'c']


def test_sensor_to_xml_reads_back_equal():
    s = urdf_sensor(
        'ray',
        '<origin xyz="0.1 -0.2 0.3" rpy="0.4 -0.5 0.6"/><ray>'
        '<horizontal samples="9" min_angle="-1" max_angle="1"/>'
        '<range min="0.2" max="30" resolution="0.001"/><noise type="gaussian" stddev="0.02"/>'
        '</ray>',
        attrs=' id="7" update_rate="40"',
    )
    again = one_sensor(sensor_to_xml(s))
    assert again.spec == s.spec
    assert (again.name, again.type, again.id, again.update_rate, again.parent_link) == (
        s.name,
        s.type,
        s.id,
        s.update_rate,
        s.parent_link,
    )
    np.testing.assert_allclose(again.origin, s.origin, atol=1e-12)


def test_specs_check_themselves_when_built_in_code():
    with pytest.raises(ValueError, match=r'max: must be > min \(2.0\), got 1.0'):
        SonarSpec(min=2.0, max=1.0)
    with pytest.raises(ValueError, match='spec: a sonar sensor needs a SonarSpec'):
        Sensor('s', SensorType.SONAR, None, None, 'base', np.eye(4), RaySpec())
    with pytest.raises(ValueError, match='origin: rotation part is not a rotation matrix'):
        Sensor(
            's', SensorType.SONAR, None, None, 'base', np.diag([2.0, 1.0, 1.0, 1.0]), SonarSpec()
        )


def test_sensors_are_immutable_values():
    s = urdf_sensor('sonar', '<origin xyz="1 0 0"/>')
    with pytest.raises(ValueError, match='read-only'):
        s.origin[0, 3] = 5.0
    assert s == urdf_sensor('sonar', '<origin xyz="1 0 0"/>')
    assert s != urdf_sensor('sonar', '<origin xyz="2 0 0"/>')
    assert hash(s) == hash(urdf_sensor('sonar', '<origin xyz="1 0 0"/>'))
