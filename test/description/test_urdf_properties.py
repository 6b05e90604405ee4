"""Laws for all inputs: valid sensors survive a write and read back; damaged files fail cleanly."""

from __future__ import annotations

import contextlib
import math
import re
from pathlib import Path

import numpy as np
import xacro
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from nps_sonar_py.description import (
    MAX_SCAN_RAYS,
    CameraSpec,
    ContactSpec,
    DescriptionError,
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
    SensorType,
    SonarSpec,
    parse_robot,
    sensor_to_xml,
)
from nps_sonar_py.transforms import transform_from_xyz_rpy

ROBOTS = Path(__file__).resolve().parents[2] / 'config' / 'robots'
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def finite(low: float, high: float) -> st.SearchStrategy[float]:
    return st.floats(low, high, allow_nan=False, allow_infinity=False)


WORDS = st.text(
    alphabet='abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./',
    min_size=1,
    max_size=16,
)

noises = st.builds(
    Noise,
    type=st.sampled_from(NoiseType),
    mean=finite(-10, 10),
    stddev=finite(0, 10),
    bias_mean=finite(-10, 10),
    bias_stddev=finite(0, 10),
    precision=finite(0, 10),
)


@st.composite
def scan_axes(draw: st.DrawFn, budget: int = MAX_SCAN_RAYS) -> ScanAxis:
    """An axis of at most ``budget`` samples and rays."""
    low = draw(finite(-math.pi, math.pi))
    samples = draw(st.integers(1, min(100_000, budget)))
    return ScanAxis(
        samples=samples,
        resolution=draw(finite(1e-3, min(100, budget / samples))),
        min_angle=low,
        max_angle=low + draw(finite(0, 2 * math.pi)),
    )


@st.composite
def ray_specs(draw: st.DrawFn) -> RaySpec:
    """A ray sensor within the limits: at most MAX_SCAN_RAYS rays and readings per scan."""
    horizontal = draw(scan_axes())
    vertical = draw(scan_axes(MAX_SCAN_RAYS // max(horizontal.rays, horizontal.samples)))
    return RaySpec(horizontal, vertical, draw(ranges()), draw(noises))


@st.composite
def ranges(draw: st.DrawFn) -> RangeSpec:
    low = draw(finite(0, 100))
    return RangeSpec(low, low + draw(finite(1e-3, 1000)), draw(st.none() | finite(0, 1)))


@st.composite
def sonars(draw: st.DrawFn) -> SonarSpec:
    low = draw(finite(0, 100))
    return SonarSpec(low, low + draw(finite(1e-3, 1000)), draw(finite(1e-3, 100)))


@st.composite
def cameras(draw: st.DrawFn) -> CameraSpec:
    near = draw(finite(1e-3, 10))
    return CameraSpec(
        width=draw(st.integers(1, 10_000)),
        height=draw(st.integers(1, 10_000)),
        format=draw(WORDS),
        hfov=draw(finite(1e-3, 2 * math.pi)),
        near=near,
        far=near + draw(finite(0, 1000)),
    )


SPECS: dict[SensorType, st.SearchStrategy[object]] = {
    SensorType.CAMERA: cameras(),
    SensorType.RAY: ray_specs(),
    SensorType.IMU: st.builds(ImuSpec, noises, noises),
    SensorType.MAGNETOMETER: st.builds(MagnetometerSpec, noises),
    SensorType.GPS: st.builds(GpsSpec, noises, noises),
    SensorType.FORCE_TORQUE: st.builds(
        ForceTorqueSpec,
        st.sampled_from(ForceTorqueFrame),
        st.sampled_from(MeasureDirection),
    ),
    SensorType.CONTACT: st.builds(ContactSpec, st.none() | WORDS),
    SensorType.SONAR: sonars(),
    SensorType.RFIDTAG: st.just(RfidTagSpec()),
    SensorType.RFID: st.just(RfidSpec()),
}

GAZEBO = '<gazebo><plugin name="p" filename="libp.so"><topic>t</topic></plugin></gazebo>'


@st.composite
def sensors(draw: st.DrawFn) -> Sensor:
    sensor_type = draw(st.sampled_from(SensorType))
    xyz = draw(st.tuples(finite(-100, 100), finite(-100, 100), finite(-100, 100)))
    rpy = draw(
        st.tuples(finite(-math.pi, math.pi), finite(-math.pi, math.pi), finite(-math.pi, math.pi))
    )
    return Sensor(
        name=draw(WORDS),
        type=sensor_type,
        id=draw(st.none() | WORDS),
        update_rate=draw(st.none() | finite(1e-3, 1e4)),
        parent_link=draw(st.sampled_from(['base', 'arm'])),
        origin=transform_from_xyz_rpy(xyz, rpy),
        spec=draw(SPECS[sensor_type]),
        gazebo=draw(st.sampled_from([None, GAZEBO])),
    )


def canonical(xml: str | None) -> str | None:
    return None if xml is None else etree.canonicalize(xml, strip_text=True)


@SETTINGS
@given(sensors())
def test_sensor_round_trip(sensor: Sensor):
    text = (
        '<robot name="r"><link name="base"/><link name="arm"/><joint name="j" type="fixed">'
        '<parent link="base"/>'
        f'<child link="arm"/></joint>{sensor_to_xml(sensor)}</robot>'
    )
    (again,) = parse_robot(text).sensors
    assert again.spec == sensor.spec
    assert (again.name, again.type, again.id, again.update_rate, again.parent_link) == (
        sensor.name,
        sensor.type,
        sensor.id,
        sensor.update_rate,
        sensor.parent_link,
    )
    np.testing.assert_allclose(again.origin, sensor.origin, rtol=0, atol=1e-9)
    assert canonical(again.gazebo) == canonical(sensor.gazebo)


# --- damaged files ----------------------------------------------------------------------------

ALL_TYPES = ''.join(
    f'<sensor name="{t.value}" type="{t.value}" update_rate="5"><parent link="base_link"/>'
    f'<origin xyz="0 0 1"/></sensor>'
    for t in SensorType
    if t is not SensorType.CAMERA
)
DOCUMENTS = [
    (ROBOTS / 'reference_sonar.urdf').read_text(),
    xacro.process_file(str(ROBOTS / 'demo_robot.urdf.xacro')).toprettyxml(indent='  '),
    (ROBOTS / 'reference_sonar.urdf').read_text().replace('</robot>', f'{ALL_TYPES}</robot>'),
]
TOKENS = [
    '<',
    '>',
    '/>',
    '"',
    '=',
    '&',
    '&amp;',
    '&bogus;',
    '-',
    '0',
    '-1',
    'nan',
    'inf',
    '1e999',
    '1e308',
    'x',
    '</sensor>',
    '<sensor name="n" type="ray">',
    '<link name="base_link"/>',
    '<parent link="sonar_link"/>',
    '<joint name="l" type="floating"><parent link="sonar_link"/><child link="base_link"/></joint>',
    '<xacro:include filename="x"/>',
    '\x00',
    '\ud800',
    '\u00e9',
    '<![CDATA[x]]>',
    '<!-- c -->',
    '<?pi x?>',
    '<!DOCTYPE robot [<!ENTITY e "1">]>',
    '${x}',
    '$(arg y)',
]
NUMBER = re.compile(r'-?\d+(?:\.\d+)?(?:e-?\d+)?')
ATTRIBUTE = re.compile(r'(name|link|type|reference|filename)="[^"]*"')


@st.composite
def damaged(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(DOCUMENTS))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(['delete', 'insert', 'number', 'attribute', 'line']))
        at = draw(st.integers(0, len(text)))
        if op == 'delete':
            text = text[:at] + text[at + draw(st.integers(1, 40)) :]
        elif op == 'insert':
            token = draw(st.sampled_from(TOKENS) | st.text(max_size=6))
            text = text[:at] + token + text[at:]
        elif op == 'number':
            numbers = list(NUMBER.finditer(text))
            if numbers:
                m = draw(st.sampled_from(numbers))
                new = draw(
                    st.sampled_from(
                        ['-1', '0', 'nan', 'inf', '1e999', '', 'abc', '2.5', '-0.0', '9' * 30]
                    )
                )
                text = text[: m.start()] + new + text[m.end() :]
        elif op == 'attribute':
            found = list(ATTRIBUTE.finditer(text))
            if found:
                m = draw(st.sampled_from(found))
                value = draw(
                    st.sampled_from(
                        ['base_link', 'sonar_link', 'mast_link', 'sonar', 'ray', 'x', '']
                    )
                )
                text = f'{text[: m.start()]}{m.group(1)}="{value}"{text[m.end() :]}'
        else:
            lines = text.split('\n')
            i = draw(st.integers(0, len(lines) - 1))
            if draw(st.booleans()):
                lines.insert(i, lines[i])
            else:
                del lines[i]
            text = '\n'.join(lines)
    return text


@SETTINGS
@given(damaged())
def test_damaged_files_load_or_raise_description_error_only(text: str):
    try:
        robot = parse_robot(text)
        for link in robot.links:
            robot.link_transform(link)
        for sensor in robot.sensors:
            robot.sensor_transform(sensor.name)
    except DescriptionError as err:
        message = str(err)
    else:
        message = ''
    assert '\n' not in message


@SETTINGS
@given(st.text(max_size=200) | st.binary(max_size=200))
def test_arbitrary_input_raises_description_error_only(data: str | bytes):
    with contextlib.suppress(DescriptionError):
        parse_robot(data)
