"""Reading a serialized ``tf2_msgs/TFMessage`` into arrays (``ros/tf_reader.py``), no node.

The expected values are the message's own fields: what rclpy serialized is read back, names
and numbers, for any names (empty, ``/``-prefixed, non-ASCII) and any float. Bytes that are
no TFMessage (cut short, lengths past the end, too many transforms, not UTF-8, another
encapsulation) are refused with one line, never read past.
"""

from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np
import pytest
from fuzzing import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.ros

PROPERTY = settings(
    max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
NAMES = st.text(max_size=12).filter(lambda s: '\x00' not in s)
NUMBERS = st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)
TRANSFORM = st.tuples(
    NAMES,
    NAMES,
    st.integers(-(2**31), 2**31 - 1),
    st.integers(0, 2**32 - 1),
    st.tuples(*[NUMBERS] * 7),
)


def _message(transforms: list[tuple[str, str, int, int, tuple[float, ...]]]) -> Any:
    from geometry_msgs.msg import TransformStamped
    from tf2_msgs.msg import TFMessage

    message = TFMessage()
    for parent, child, sec, nanosec, values in transforms:
        t = TransformStamped(child_frame_id=child)
        t.header.frame_id = parent
        t.header.stamp.sec, t.header.stamp.nanosec = sec, nanosec
        v, q = t.transform.translation, t.transform.rotation
        v.x, v.y, v.z, q.x, q.y, q.z, q.w = values
        message.transforms.append(t)
    return message


def _bytes(message: Any) -> bytes:
    from rclpy.serialization import serialize_message

    return bytes(serialize_message(message))


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@PROPERTY
@given(st.lists(TRANSFORM, max_size=5))
def test_any_message_reads_back_as_rclpy_wrote_it(transforms: list[Any]) -> None:
    from nps_sonar_py.ros.tf_reader import read_tf_message

    batch = read_tf_message(_bytes(_message(transforms)))
    assert len(batch) == len(transforms)
    assert list(batch.parents) == [t[0].lstrip('/') for t in transforms]
    assert list(batch.children) == [t[1].lstrip('/') for t in transforms]
    assert batch.sec.tolist() == [t[2] for t in transforms]
    assert batch.nanosec.tolist() == [t[3] for t in transforms]
    numbers = np.concatenate((batch.translations, batch.rotations), axis=1).reshape(-1, 7)
    for row, t in zip(numbers.tolist(), transforms, strict=True):
        assert all(_same(a, b) for a, b in zip(row, t[4], strict=True)), (row, t[4])


def test_a_big_endian_message_reads_the_same() -> None:
    """The same transform written by hand in big-endian CDR (encapsulation 0x0000)."""
    from nps_sonar_py.ros.tf_reader import read_tf_message

    body = struct.pack('>I', 1)  # one transform, at offset 0 of the body
    body += struct.pack('>iII', 7, 9, 4) + b'map\x00'  # offsets 4..19
    body += struct.pack('>I', 5) + b'odom\x00'  # offsets 20..28
    body += b'\x00' * 3  # to offset 32, 8-aligned
    body += struct.pack('>7d', 1.0, -2.0, 3.5, 0.0, 0.0, 0.6, 0.8)
    batch = read_tf_message(b'\x00\x00\x00\x00' + body)
    assert (list(batch.parents), list(batch.children)) == (['map'], ['odom'])
    assert (batch.sec.tolist(), batch.nanosec.tolist()) == ([7], [9])
    assert batch.translations.tolist() == [[1.0, -2.0, 3.5]]
    assert batch.rotations.tolist() == [[0.0, 0.0, 0.6, 0.8]]


def _good() -> bytes:
    return _bytes(_message([('odom', 'base_link', 1, 2, (0.0,) * 6 + (1.0,))] * 2))


def _refusals() -> list[tuple[bytes, str]]:
    good = _good()
    count = struct.pack('<I', 10_001)
    return [
        (b'', '0 bytes are too short for a TFMessage'),
        (b'\x00\x07\x00\x00' + good[4:], 'encapsulation 0x0007 is not plain CDR'),
        (good[:4] + count + good[8:], 'transforms has 10001 entries, more than 10000'),
        (good[:4] + struct.pack('<I', 3) + good[8:], 'entries, more than'),
        (good[:-8], 'transforms[1].transform runs past the message'),
        (good[:16] + struct.pack('<I', 999) + good[20:], 'header.frame_id runs past'),
        (good[:20] + b'\xff' + good[21:], 'transforms[0].header.frame_id is not UTF-8'),
    ]


@pytest.mark.parametrize(('data', 'problem'), _refusals())
def test_bytes_that_are_no_tf_message_are_refused_in_one_line(data: bytes, problem: str) -> None:
    from nps_sonar_py.ros.tf_reader import MessageError, read_tf_message

    with pytest.raises(MessageError) as error:
        read_tf_message(data)
    assert problem in str(error.value)
    assert '\n' not in str(error.value)


@PROPERTY
@given(st.binary(max_size=300), st.integers(0, 300))
def test_any_bytes_give_a_batch_or_a_refusal(noise: bytes, cut: int) -> None:
    """Garbled tails and random bytes after a real header: never an exception but the refusal."""
    from nps_sonar_py.ros.tf_reader import MessageError, read_tf_message

    for data in (_good()[:cut] + noise, b'\x00\x01\x00\x00' + noise):
        try:
            batch = read_tf_message(data)
        except MessageError:
            continue
        assert batch.translations.shape == (len(batch), 3)
        assert batch.rotations.shape == (len(batch), 4)


@PROPERTY
@given(st.lists(TRANSFORM, min_size=1, max_size=4), st.data())
def test_a_reader_reuses_a_layout_only_where_it_holds(transforms: list[Any], data: Any) -> None:
    """A reader reads each message as a fresh read does: with the last one's names and
    numbers changed (same layout), a name changed in place (same length), or another count.
    """
    from nps_sonar_py.ros.tf_reader import TfReader, read_tf_message

    reader = TfReader()
    changed = [
        (t[0], t[1], data.draw(TRANSFORM)[2], t[3], data.draw(TRANSFORM)[4]) for t in transforms
    ]
    renamed = [(t[0][::-1], t[1].upper(), *t[2:]) for t in transforms]
    for message in (transforms, changed, renamed, transforms[:-1], transforms):
        raw = _bytes(_message(message))
        got, fresh = reader.read(raw), read_tf_message(raw)
        assert (list(got.parents), list(got.children)) == (
            list(fresh.parents),
            list(fresh.children),
        )
        assert got.sec.tolist() == fresh.sec.tolist()
        assert got.nanosec.tolist() == fresh.nanosec.tolist()
        for a, b in ((got.translations, fresh.translations), (got.rotations, fresh.rotations)):
            assert a.shape == b.shape
            assert all(map(_same, a.ravel().tolist(), b.ravel().tolist()))


BOUNDS = st.sampled_from([1e-6, 1e6, 5e-7, 2e6, 1e6 * (1 + 1e-15), 1e-6 * (1 - 1e-15), 0.0])


@PROPERTY
@given(st.lists(st.tuples(*[st.one_of(NUMBERS, BOUNDS)] * 7), min_size=1, max_size=4))
def test_the_checks_of_a_whole_message_agree_with_those_of_one_pose(
    rows: list[tuple[float, ...]],
) -> None:
    """The array checks of ``tf_message_problem`` and the one-pose ``pose_problem`` agree on
    each transform, at the bounds of the quaternion norm band too."""
    from geometry_msgs.msg import Point, Pose, Quaternion

    from nps_sonar_py.ros.message_checks import pose_problem, tf_message_problem
    from nps_sonar_py.ros.tf_reader import read_tf_message

    poses = [
        Pose(
            position=Point(x=r[0], y=r[1], z=r[2]),
            orientation=Quaternion(x=r[3], y=r[4], z=r[5], w=r[6]),
        )
        for r in rows
    ]
    bad = [k for k, pose in enumerate(poses) if pose_problem(pose) is not None]
    message = _message([('odom', f'frame_{k}', 1, 0, r) for k, r in enumerate(rows)])
    problem = tf_message_problem(read_tf_message(_bytes(message)))
    if not bad:
        assert problem is None
    else:
        expected = pose_problem(poses[bad[0]], f'transforms[{bad[0]}].transform')
        expected = expected.replace('.position', '.translation').replace(
            '.orientation', '.rotation'
        )
        assert problem == f"{expected} ('odom' -> 'frame_{bad[0]}')"
