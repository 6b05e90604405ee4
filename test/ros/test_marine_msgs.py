"""marine_acoustic_msgs: the stand-in's type hashes and ``ros/marine.py``'s ProjectedSonarImage.

**Where the released hashes come from.** No published copy of marine_acoustic_msgs 2.1.0's
type hashes was found (no released ``share/marine_acoustic_msgs/msg/*.json``, bag schema,
rosbags type store or docs page holds them). ``RELEASED`` was therefore computed, apart from
colcon and rosidl, from the 2.1.0 tag's own ``.msg`` files (apl-ocean-engineering/marine_msgs,
commit 14bddb4) with the REP 2011 RIHS01 algorithm: the small implementation below (``rihs01``)
and, as a second one, rosbags' ``hash_rihs01``, which agreed on all eight. ``rihs01`` is first
checked against hashes the released ROS 2 wheels ship (``std_msgs/Header``,
``sensor_msgs/Range``, ``CameraInfo``, ``PointCloud2``). The built stand-in must then report
these hashes over DDS, and the repository's definitions must hash to them.

**Layout** (docs/marine.md): pixel ``(r, b)``, beam ``b`` at range ``ranges[r]``, at byte
``(r * beam_count + b) * itemsize``, little-endian; beam directions ``(0, -sin a, cos a)``
in the message's frame (z forward, x up). The decoding here uses numpy alone.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ros_helpers import NODE_START_TIMEOUT, Probe

from nps_sonar_py.ament import find_installed

pytestmark = pytest.mark.ros

PACKAGE = 'marine_acoustic_msgs'
DEFINITIONS = Path(__file__).resolve().parents[2] / 'scripts' / 'interfaces' / PACKAGE / 'msg'

#: RIHS01 of every message of marine_acoustic_msgs 2.1.0 (module docstring: how obtained).
RELEASED = {
    'DetectionFlag': 'RIHS01_233c78cf2cc8722d8372348d0bf5c3e34839baa3010f884a73e1d2ae35b9005c',
    'Dvl': 'RIHS01_77604ba1b113d1a39148d095ac2cb21540de83cff2bbc5443e06e25208afd421',
    'PingInfo': 'RIHS01_6158894db5c1e6738766228704e9b198001f58cf62b02aef41e04ae6a4f50989',
    'ProjectedSonarImage': (
        'RIHS01_e9d0b934ee8332c9f79e04c361de0793c165b2dee14f2c0d25c3227cd50d46f1'
    ),
    'RawSonarImage': 'RIHS01_668954b8ea9854ec5c25c3ebdbdd9d53452169c7e1e365cad5baf0dc56ac9607',
    'SonarDetections': 'RIHS01_2be9466b1dff9d71d6c8e21379e805805a5d315d899023961f183bc32182e60d',
    'SonarImageData': 'RIHS01_50fb28a428282c0c372a897399651836892fa13d8d56cb67bfeffac8803e58f7',
    'SonarRanges': 'RIHS01_f440f02f1adc9535848643a389997562f2672f1a74214c17970e1cf2a832343c',
}

# --- RIHS01 (REP 2011), from .msg text ----------------------------------------------------

#: type_description_interfaces/FieldType ids of the .msg primitive types.
_FIELD_TYPES = {
    'int8': 2, 'uint8': 3, 'int16': 4, 'uint16': 5, 'int32': 6, 'uint32': 7, 'int64': 8,
    'uint64': 9, 'float32': 10, 'float64': 11, 'char': 13, 'bool': 15, 'byte': 16,
    'string': 17, 'wstring': 18,
}  # fmt: skip
_NESTED = 1
_ARRAY, _BOUNDED_SEQUENCE, _UNBOUNDED_SEQUENCE = 48, 96, 144
_FIELD = re.compile(r'([\w/]+)(\[(<=)?(\d*)\])?\s+(\w+)\s*(.*)')


def _fields(text: str, package: str) -> list[dict[str, Any]]:
    """The hashed part of each field of a .msg (no constants, no defaults, no comments)."""
    fields = []
    for raw in text.splitlines():
        line = raw.split('#', 1)[0].strip()
        match = _FIELD.fullmatch(line)
        if not line:
            continue
        assert match, f'not a field: {line!r}'
        base, array_part, bounded, size, name, rest = match.groups()
        if rest.startswith('='):  # a constant
            continue
        if base in _FIELD_TYPES:
            type_id, nested = _FIELD_TYPES[base], ''
        else:
            parts = base.split('/')
            type_id = _NESTED
            nested = f'{package}/msg/{base}' if len(parts) == 1 else f'{parts[0]}/msg/{parts[-1]}'
        capacity = 0
        if array_part and bounded:
            type_id, capacity = type_id + _BOUNDED_SEQUENCE, int(size)
        elif array_part and size:
            type_id, capacity = type_id + _ARRAY, int(size)
        elif array_part:
            type_id += _UNBOUNDED_SEQUENCE
        fields.append(
            {
                'name': name,
                'type': {
                    'type_id': type_id,
                    'capacity': capacity,
                    'string_capacity': 0,
                    'nested_type_name': nested,
                },
            }
        )
    return fields


def rihs01(type_name: str, definitions: dict[str, str]) -> str:
    """REP 2011: sha256 of the type description (it and every type it refers to, sorted)."""
    described: dict[str, dict[str, Any]] = {}
    todo = [type_name]
    while todo:
        name = todo.pop()
        if name not in described:
            fields = _fields(definitions[name], name.split('/')[0])
            described[name] = {'type_name': name, 'fields': fields}
            todo += [
                f['type']['nested_type_name'] for f in fields if f['type']['nested_type_name']
            ]
    top = described.pop(type_name)
    document = {
        'type_description': top,
        'referenced_type_descriptions': [described[n] for n in sorted(described)],
    }
    text = json.dumps(document, separators=(', ', ': '))
    return 'RIHS01_' + hashlib.sha256(text.encode()).hexdigest()


def _installed_definitions(*packages: str) -> dict[str, str]:
    """The .msg files the ROS 2 wheels installed, by ``pkg/msg/Name``."""
    definitions = {}
    for package in packages:
        folder = find_installed(f'share/{package}/msg')
        assert folder is not None, package
        for path in folder.glob('*.msg'):
            definitions[f'{package}/msg/{path.stem}'] = path.read_text()
    return definitions


def _installed_hash(type_name: str) -> str:
    """The hash rosidl generated at build time (``share/pkg/msg/Name.json``)."""
    package, _, name = type_name.split('/')
    path = find_installed(f'share/{package}/msg/{name}.json')
    assert path is not None, type_name
    hashes = json.loads(path.read_text())['type_hashes']
    return str(next(h['hash_string'] for h in hashes if h['type_name'] == type_name))


def test_rihs01_gives_the_released_hashes_of_standard_messages() -> None:
    from rosbags.typesys import Stores, get_typestore

    definitions = _installed_definitions('builtin_interfaces', 'std_msgs', 'sensor_msgs')
    store = get_typestore(Stores.ROS2_KILTED)
    names = [f'sensor_msgs/msg/{n}' for n in ('Range', 'CameraInfo', 'PointCloud2')]
    for name in ['std_msgs/msg/Header', *names]:
        released = _installed_hash(name)
        assert released == store.hash_rihs01(name)  # the wheels' and rosbags' agree
        assert rihs01(name, definitions) == released, name


def test_the_repository_definitions_have_the_released_hashes() -> None:
    definitions = _installed_definitions('builtin_interfaces', 'std_msgs', 'geometry_msgs')
    definitions.update(
        {f'{PACKAGE}/msg/{p.stem}': p.read_text() for p in DEFINITIONS.glob('*.msg')}
    )
    ours = {p.stem for p in DEFINITIONS.glob('*.msg')}
    assert ours == set(RELEASED)
    for name, released in RELEASED.items():
        assert rihs01(f'{PACKAGE}/msg/{name}', definitions) == released, name


def test_the_built_stand_in_reports_the_released_hashes_over_dds(probe: Probe) -> None:
    """What another node sees: each type's hash from a publisher discovered over DDS."""
    import importlib

    module = importlib.import_module(f'{PACKAGE}.msg')
    built = {n for n in dir(module) if not n.startswith('_')}
    assert built == set(RELEASED)  # every message of the package, nothing else
    for name, released in RELEASED.items():
        assert _installed_hash(f'{PACKAGE}/msg/{name}') == released, name
    publishers = {
        n: probe.node.create_publisher(getattr(module, n), f'marine/{n}', 1) for n in RELEASED
    }
    seen = Probe()  # another participant: the hashes come through discovery
    try:
        end = time.monotonic() + NODE_START_TIMEOUT
        infos: dict[str, list[Any]] = {}
        while time.monotonic() < end and len(infos) < len(RELEASED):
            for name in RELEASED:
                found = seen.node.get_publishers_info_by_topic(f'/marine/{name}')
                if found:
                    infos[name] = found
            time.sleep(0.02)
        assert set(infos) == set(RELEASED), (
            f'not all publishers discovered in {NODE_START_TIMEOUT} s'
        )
        for name, released in RELEASED.items():
            (info,) = infos[name]
            assert info.topic_type == f'{PACKAGE}/msg/{name}'
            assert str(info.topic_type_hash) == released, name
    finally:
        seen.close()
        for publisher in publishers.values():
            probe.node.destroy_publisher(publisher)


# --- ProjectedSonarImage from ros/marine.py -----------------------------------------------

AZIMUTHS = np.radians([-30.0, -17.5, -4.0, 0.0, 6.0, 19.0, 30.0])  # not evenly spaced
RANGES = 0.5 + 0.1 * np.arange(11)  # bin centres
LOW, HIGH, SOURCE_LEVEL = -90.0, -30.0, 6.0


def _profiles() -> np.ndarray:
    """(beams, bins) linear intensities: levels across and beyond the dB window, and silence."""
    rng = np.random.default_rng(18)
    levels = rng.uniform(LOW - 20.0, HIGH + 10.0, size=(AZIMUTHS.size, RANGES.size))
    profiles = 10.0 ** ((levels - SOURCE_LEVEL) / 10.0)
    profiles[:, :2] = 0.0  # nothing before the first echo
    profiles[3, 5] = 10.0 ** ((LOW - 0.01 - SOURCE_LEVEL) / 10.0)  # just below the floor: 0
    profiles[4, 6] = 10.0 ** ((HIGH + 0.5 - SOURCE_LEVEL) / 10.0)  # above the top: saturated
    return profiles.astype(np.float32)


def _message(dtype: str, profiles: np.ndarray) -> Any:
    from std_msgs.msg import Header

    from nps_sonar_py.ros.marine import MarineImageFormat, projected_sonar_image

    return projected_sonar_image(
        Header(frame_id='sonar_acoustic'),
        AZIMUTHS,
        RANGES,
        profiles,
        frequency=900e3,
        sound_speed=1500.0,
        tx_beamwidth=math.radians(20.0),
        rx_beamwidth=math.radians(1.0),
        image_format=MarineImageFormat(dtype, LOW, HIGH),
        source_level=SOURCE_LEVEL,
    )


def _decode(message: Any) -> np.ndarray:
    """The (beams, bins) image of a ProjectedSonarImage, by the documented layout alone."""
    pixel = {0: '<u1', 2: '<u2', 4: '<u4', 8: '<f4'}[message.image.dtype]
    assert message.image.is_bigendian is False
    beams, ranges = message.image.beam_count, len(message.ranges)
    data = np.frombuffer(bytes(message.image.data), dtype=pixel)
    assert data.size == beams * ranges
    return data.reshape(ranges, beams).T  # range-major rows of beams


def _wire(message: Any) -> Any:
    """``message`` serialised to CDR and back, as it travels."""
    from marine_acoustic_msgs.msg import ProjectedSonarImage
    from rclpy.serialization import deserialize_message, serialize_message

    return deserialize_message(serialize_message(message), ProjectedSonarImage)


def test_a_float32_image_decodes_to_the_profiles_pixel_for_pixel() -> None:
    profiles = _profiles()
    message = _wire(_message('float32', profiles))
    assert message.image.dtype == 8  # SonarImageData.DTYPE_FLOAT32
    decoded = _decode(message)
    assert decoded.dtype == np.float32
    assert np.array_equal(decoded, profiles)


@pytest.mark.parametrize(
    ('dtype', 'code', 'bits'), [('uint8', 0, 8), ('UINT16', 2, 16), ('DTYPE_UINT32', 4, 32)]
)
def test_an_integer_image_decodes_to_the_db_formula(dtype: str, code: int, bits: int) -> None:
    profiles = _profiles()
    message = _wire(_message(dtype, profiles))
    assert message.image.dtype == code
    top = 2**bits - 1
    level = SOURCE_LEVEL + 10.0 * np.log10(
        np.where(profiles > 0, profiles, 1.0).astype(np.float64)
    )
    expected = np.rint((np.clip(level, LOW, HIGH) - LOW) / (HIGH - LOW) * top)
    expected[profiles <= 0] = 0
    decoded = _decode(message)
    assert decoded.tolist() == expected.astype(np.int64).tolist()
    assert decoded[3, 5] == 0  # below the floor
    assert decoded[4, 6] == top  # above the top
    assert np.all(decoded[:, :2] == 0)  # silent
    assert np.count_nonzero((decoded > 0) & (decoded < top)) > 10  # inside the window


def test_geometry_and_ping_info() -> None:
    message = _wire(_message('uint8', _profiles()))
    assert message.header.frame_id == 'sonar_acoustic'
    assert message.image.beam_count == AZIMUTHS.size
    assert np.array_equal(np.array(message.ranges), RANGES.astype(np.float32))
    directions = np.array([(d.x, d.y, d.z) for d in message.beam_directions])
    assert np.linalg.norm(directions, axis=1) == pytest.approx(np.ones(AZIMUTHS.size), abs=1e-12)
    # sonar_image_proc's azimuth, atan2(-y, z), is each beam's azimuth.
    assert np.arctan2(-directions[:, 1], directions[:, 2]) == pytest.approx(AZIMUTHS, abs=1e-12)
    # The acoustic frame turned back into the body frame (x forward, y left): (cos a, sin a, 0).
    from nps_sonar_py.ros.conversions import matrix_from_quaternion
    from nps_sonar_py.ros.marine import ACOUSTIC_FROM_BODY

    body = directions @ matrix_from_quaternion(*ACOUSTIC_FROM_BODY).T
    expected = np.stack([np.cos(AZIMUTHS), np.sin(AZIMUTHS), np.zeros(AZIMUTHS.size)], axis=1)
    assert body == pytest.approx(expected, abs=1e-12)
    info = message.ping_info
    assert (info.frequency, info.sound_speed) == (900e3, 1500.0)
    assert list(info.tx_beamwidths) == pytest.approx([math.radians(20.0)], rel=1e-6)
    assert list(info.rx_beamwidths) == pytest.approx([math.radians(1.0)], rel=1e-6)


@pytest.mark.parametrize('dtype', ['int16', 'FLOAT64', 'mono8', '', 8])
def test_an_image_dtype_not_of_the_four_is_one_line(dtype: Any) -> None:
    from nps_sonar_py.errors import ConfigurationError
    from nps_sonar_py.ros.marine import MarineImageFormat

    with pytest.raises(ConfigurationError) as refused:
        MarineImageFormat(dtype)
    text = str(refused.value)
    assert '\n' not in text
    assert 'uint8, uint16, uint32, float32' in text
    assert repr(dtype) in text


def test_a_bad_db_window_or_shape_is_refused() -> None:
    from nps_sonar_py.errors import ConfigurationError
    from nps_sonar_py.ros.marine import MarineImageFormat

    with pytest.raises(ConfigurationError, match='low < high'):
        MarineImageFormat('uint16', -30.0, -90.0)
    assert MarineImageFormat('float32', -30.0, -90.0).window() is None  # no window: linear
    with pytest.raises(ValueError, match='7 beams x 11 ranges, got shape \\(11, 7\\)'):
        _message('uint8', _profiles().T)
