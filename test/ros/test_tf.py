"""TF out and in: sensor frames on /tf_static, the robot on /tf, and pose_source tf.

Out: ``ros/tf.py``; in: ``ros/tf_reader.py`` reads, ``devices/transform_buffer.py`` keeps.

Expected transforms come from the URDF by hand. A sensor's ``<origin>`` is its optical frame
(z forward); the body frame (x forward) published is ``origin @ (optical <- body)``. With
``rpy = (-pi/2, 0, -pi/2 + a)``, ``Rz(-pi/2) Rx(-pi/2)`` is exactly the optical-to-body turn
(optical z -> x, x -> -y, y -> -z), so the body frame is the link's frame turned by ``Rz(a)``:
quaternion ``(0, 0, sin(a/2), cos(a/2))`` at the origin's ``xyz``.

Ranges come from the reference scene (``reference_scene.py``): the sonar at (2.1, 1.0, 1.0) in
base_link looks along +y at the cylinder's face 1.75 m ahead; moving the robot by ``dy`` along
+y reads ``1.75 - dy`` (one ray, the boresight; the cylinder's 64-gon has a vertex there).
"""

from __future__ import annotations

import math
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ros_helpers import (
    NODE_START_TIMEOUT,
    NodeLog,
    Probe,
    executable,
    exit_line,
    first_such,
    nanoseconds,
    publishing,
    running,
)

pytestmark = pytest.mark.ros

#: The hash of ROS 2's own tf2_msgs/msg/TFMessage (``ros2 topic info -v /tf`` on any Jazzy,
#: Kilted or Rolling system); the stand-in built by scripts/env.sh must have it.
TF_MESSAGE_HASH = 'RIHS01_e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087'

ONE_RAY = {'rays': 1, 'update_rate': 20.0}
YAW = 0.3
SENSOR_XYZ = (0.1, -0.2, 0.3)
TURNED_SENSOR = f"""<?xml version="1.0"?>
<robot name="turned">
  <link name="base_link"/>
  <link name="mast"/>
  <joint name="mast_joint" type="fixed">
    <parent link="base_link"/><child link="mast"/>
    <origin xyz="0 0 0.5"/>
  </joint>
  <sensor name="sonar" type="sonar" update_rate="20">
    <parent link="mast"/>
    <origin xyz="{' '.join(map(str, SENSOR_XYZ))}" rpy="{-math.pi / 2} 0 {-math.pi / 2 + YAW}"/>
    <sonar><min>0.1</min><max>7</max><radius>0.5</radius></sonar>
  </sensor>
</robot>
"""


def _qos(static: bool, *, listener: bool = False) -> Any:
    """tf2's QoS: of a broadcaster, or of a listener (a static one keeps 100, not 1)."""
    from nps_sonar_py.ros.tf import STATIC_LISTENER_QOS, STATIC_QOS, TF_QOS

    if static:
        return STATIC_LISTENER_QOS if listener else STATIC_QOS
    return TF_QOS


def _transform(parent: str, child: str, sec: float, xyz=(0.0, 0.0, 0.0), q=(0, 0, 0, 1)) -> Any:
    from geometry_msgs.msg import TransformStamped

    t = TransformStamped(child_frame_id=child)
    t.header.frame_id = parent
    t.header.stamp.sec, t.header.stamp.nanosec = int(sec), round((sec % 1) * 1e9)
    v, r = t.transform.translation, t.transform.rotation
    v.x, v.y, v.z = (float(c) for c in xyz)
    r.x, r.y, r.z, r.w = (float(c) for c in q)
    return t


def _tf(*transforms: Any) -> Any:
    from tf2_msgs.msg import TFMessage

    return TFMessage(transforms=list(transforms))


def _batch(*transforms: Any) -> Any:
    """The transforms as a node reads them off the wire: serialized, then read as arrays."""
    from rclpy.serialization import serialize_message

    from nps_sonar_py.ros.tf_reader import read_tf_message

    return read_tf_message(serialize_message(_tf(*transforms)))


# --- the stand-in tf2_msgs -------------------------------------------------------------------


def test_tf_message_is_ros_2s_own_type() -> None:
    """Same definition, same type hash as the real tf2_msgs (rosbags' Jazzy and Kilted stores)."""
    import json

    import tf2_msgs
    from rosbags.typesys import Stores, get_typestore

    for store in (Stores.ROS2_JAZZY, Stores.ROS2_KILTED):
        assert get_typestore(store).hash_rihs01('tf2_msgs/msg/TFMessage') == TF_MESSAGE_HASH
    share = Path(tf2_msgs.__file__).resolve()
    while not (share / 'share').is_dir():  # up from site-packages to the install prefix
        share = share.parent
    described = json.loads((share / 'share/tf2_msgs/msg/TFMessage.json').read_text())
    hashes = {h['type_name']: h['hash_string'] for h in described['type_hashes']}
    assert hashes['tf2_msgs/msg/TFMessage'] == TF_MESSAGE_HASH


def test_interface_templates_are_not_packages_for_colcon_or_rosdep() -> None:
    interfaces = Path(__file__).resolve().parents[2] / 'scripts' / 'interfaces'
    assert (interfaces / 'COLCON_IGNORE').is_file()
    names = {p.name for p in interfaces.rglob('*')}
    assert not names & {'package.xml', 'CMakeLists.txt', 'setup.py', 'Cargo.toml'}
    text = (interfaces / 'tf2_msgs' / 'msg' / 'TFMessage.msg').read_text()
    assert text.split('\n')[0] == 'geometry_msgs/TransformStamped[] transforms'


# --- the frames of a device, without DDS ----------------------------------------------------


def _ranger_frames(sensors: str, element_poses: tuple[float, ...] = ()) -> dict[Any, Any]:
    """``(parent, child) -> transform`` of a ranger device on config/robots/sonar_ring.urdf."""
    from nps_sonar_py.description import load_robot
    from nps_sonar_py.devices import Family, Setup, build_device
    from nps_sonar_py.devices.settings import (
        BeamSettings,
        GeometrySettings,
        OutputSettings,
        RangerSettings,
        SelectionSettings,
    )
    from nps_sonar_py.ros.tf import sensor_frames

    robot = load_robot(Path(__file__).resolve().parents[2] / 'config/robots/sonar_ring.urdf')
    setup = Setup(
        Family.RANGER,
        SelectionSettings(sensors),
        RangerSettings(element_poses=element_poses),
        GeometrySettings(),
        OutputSettings(),
        BeamSettings(),
    )
    mount, device = build_device(robot, setup)
    return {(f.parent, f.child): f.transform for f in sensor_frames(mount, device.geometry)}


def _yawed(x: float, y: float, z: float, yaw: float) -> np.ndarray:
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s, 0, x], [s, c, 0, y], [0, 0, 1, z], [0, 0, 0, 1]])


def test_frames_of_a_sonar_ring_and_of_one_sonar_with_elements() -> None:
    """sonar_ring.urdf: ring_KK at radius 0.2 m and yaw KK pi/8 on ring_link, 1 m above base_link.

    The ring's frame ``ranger`` is at the sonars' centroid, the ring's centre: (0, 0, 1) in
    base_link, unturned.
    """
    frames = _ranger_frames('ring_*')
    expected = {
        ('ring_link', f'ring_{k:02d}'): _yawed(
            0.2 * math.cos(k * math.pi / 8), 0.2 * math.sin(k * math.pi / 8), 0.0, k * math.pi / 8
        )
        for k in range(16)
    }
    expected['base_link', 'ranger'] = _yawed(0.0, 0.0, 1.0, 0.0)
    assert set(frames) == set(expected)
    for key, transform in expected.items():
        assert frames[key] == pytest.approx(transform, abs=1e-9), key
    # an array of one <sensor>: its frame bears the sensor's name; the element's frame wins
    assert set(_ranger_frames('ring_04')) == {('ring_link', 'ring_04')}
    # one sonar as an array: the elements hang from its body frame at their poses
    frames = _ranger_frames(
        'ring_04', (0.0, 0.1, 0.0, 0.0, 0.0, 0.5, 0.0, -0.1, 0.0, 0.0, 0.0, -0.5)
    )
    assert set(frames) == {
        ('ring_link', 'ring_04'),
        ('ring_04', 'ring_04_0'),
        ('ring_04', 'ring_04_1'),
    }
    assert frames['ring_link', 'ring_04'] == pytest.approx(
        _yawed(0.0, 0.2, 0.0, math.pi / 2), abs=1e-9
    )
    assert frames['ring_04', 'ring_04_0'] == pytest.approx(_yawed(0.0, 0.1, 0.0, 0.5))
    assert frames['ring_04', 'ring_04_1'] == pytest.approx(_yawed(0.0, -0.1, 0.0, -0.5))


# --- the buffer, without DDS -----------------------------------------------------------------


def test_buffer_interpolates_along_a_chain_as_tf2_and_holds_the_nearest() -> None:
    from nps_sonar_py.devices.transform_buffer import TransformBuffer

    buffer = TransformBuffer()
    buffer.add(_batch(_transform('map', 'odom', 0.0, (0.0, 0.0, 1.0))), static=True)
    half = (0.0, 0.0, math.sin(math.pi / 4), math.cos(math.pi / 4))  # +pi/2 about z
    buffer.add(_batch(_transform('odom', 'base', 10.0, (0.0, 0.0, 0.0))), static=False)
    buffer.add(_batch(_transform('odom', 'base', 12.0, (2.0, 0.0, 0.0), half)), static=False)
    # Half way in time, as tf2: the translation half way, (1, 0, 0) in odom, and the rotation
    # half way along the arc, pi/4 about z; odom sits 1 m above map.
    matrix, lag = buffer.lookup('map', 'base', 11 * 10**9)
    assert lag == 0.0
    angle = math.pi / 4
    assert matrix[:3, :3] == pytest.approx(
        np.array(
            [
                [math.cos(angle), -math.sin(angle), 0],
                [math.sin(angle), math.cos(angle), 0],
                [0, 0, 1],
            ]
        ),
        abs=1e-12,
    )
    assert matrix[:3, 3] == pytest.approx((1.0, 0.0, 1.0), abs=1e-12)
    # a quarter of the way: x 0.5 and pi/8 (slerp, not a linear mix of the quaternions)
    quarter, _ = buffer.lookup('map', 'base', 10_500_000_000)
    assert quarter[:3, 3] == pytest.approx((0.5, 0.0, 1.0), abs=1e-12)
    assert math.atan2(quarter[1, 0], quarter[0, 0]) == pytest.approx(math.pi / 8, abs=1e-12)
    # base in map is the inverse way round: base <- map
    inverse, _ = buffer.lookup('base', 'map', 11 * 10**9)
    assert inverse @ matrix == pytest.approx(np.eye(4), abs=1e-12)
    # past the newest stamp: the newest, and the lag says by how much
    matrix, lag = buffer.lookup('map', 'base', 12_750_000_000)
    assert matrix[:3, 3] == pytest.approx((2.0, 0.0, 1.0), abs=1e-12)
    assert lag == pytest.approx(0.75, abs=1e-9)
    # before the oldest: the oldest, as far from it
    matrix, lag = buffer.lookup('map', 'base', 9 * 10**9)
    assert matrix[:3, 3] == pytest.approx((0.0, 0.0, 1.0), abs=1e-12)
    assert lag == pytest.approx(1.0, abs=1e-9)


def test_buffer_joins_two_branches_at_their_common_ancestor() -> None:
    from nps_sonar_py.devices.transform_buffer import TransformBuffer

    buffer = TransformBuffer()
    quarter = (0.0, 0.0, math.sin(math.pi / 4), math.cos(math.pi / 4))  # +pi/2 about z
    buffer.add(
        _batch(
            _transform('map', 'odom', 0.0, (10.0, 0.0, 0.0), quarter),
            _transform('odom', 'base', 0.0, (1.0, 0.0, 0.0)),
            _transform('map', 'buoy', 0.0, (0.0, 5.0, 0.0)),
        ),
        static=True,
    )
    # base in map: odom turned a quarter at (10, 0, 0), base 1 m along odom's x: (10, 1, 0)
    matrix, _ = buffer.lookup('buoy', 'base', 0)
    assert matrix[:3, 3] == pytest.approx((10.0, -4.0, 0.0), abs=1e-12)  # (10, 1) - (0, 5)
    assert matrix[:3, :3] == pytest.approx(
        np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]), abs=1e-12
    )


def test_buffer_names_what_is_missing_and_takes_a_new_parent() -> None:
    from nps_sonar_py.devices.transform_buffer import TransformBuffer

    buffer = TransformBuffer()
    with pytest.raises(LookupError, match="no frame 'map' on /tf or /tf_static"):
        buffer.lookup('map', 'base', 0)
    buffer.add(_batch(_transform('odom', 'base', 1.0, (1.0, 0.0, 0.0))), static=False)
    buffer.add(_batch(_transform('map', 'other', 1.0)), static=False)
    with pytest.raises(LookupError, match="no chain of transforms joins 'map' and 'base'"):
        buffer.lookup('map', 'base', 10**9)
    # base now hangs from map: its history under odom is gone
    buffer.add(_batch(_transform('/map', 'base', 2.0, (0.0, 3.0, 0.0))), static=False)
    matrix, _ = buffer.lookup('map', 'base', 10**9)
    assert matrix[:3, 3] == pytest.approx((0.0, 3.0, 0.0))
    with pytest.raises(LookupError, match="no frame 'odom'"):  # nothing names it any more
        buffer.lookup('odom', 'base', 10**9)


def test_buffer_refuses_a_loop_of_transforms() -> None:
    from nps_sonar_py.devices.transform_buffer import TransformBuffer

    buffer = TransformBuffer()
    buffer.add(
        _batch(
            _transform('map', 'odom', 1.0, (1.0, 0.0, 0.0)),
            _transform('odom', 'base', 1.0, (2.0, 0.0, 0.0)),
        ),
        static=False,
    )
    matrix, _ = buffer.lookup('map', 'base', 10**9)
    assert matrix[:3, 3] == pytest.approx((3.0, 0.0, 0.0))
    buffer.add(_batch(_transform('base', 'map', 1.0)), static=False)  # map now hangs from base
    with pytest.raises(LookupError, match='loop: base -> odom -> map -> base'):
        buffer.lookup('map', 'base', 10**9)


def test_buffer_keeps_a_bounded_window() -> None:
    from nps_sonar_py.devices import transform_buffer as tf

    buffer = tf.TransformBuffer(buffer_seconds=1.0)
    for k in range(tf.MAX_SAMPLES + 50):  # 1 ms apart: the count bounds them, not the time
        buffer.add(_batch(_transform('odom', 'base', 5.0 + k * 1e-3, (k, 0.0, 0.0))), static=False)
    frame = buffer._frames['base']
    assert len(frame.times) == tf.MAX_SAMPLES
    assert frame.poses[0][0] == 50.0
    buffer.add(_batch(_transform('odom', 'base', 100.0, (-1.0, 0.0, 0.0))), static=False)
    assert frame.times == [100 * 10**9]  # all older than 1 s before the newest went
    dropped = buffer.add(_batch(_transform('odom', 'base', 50.0)), static=False)  # too old
    assert (dropped.old, dropped.new_frames, dropped.future) == (1, 0, 0)
    assert frame.times == [100 * 10**9]


def test_buffer_drops_stamps_far_ahead_of_the_clock_and_forgets_them_on_a_jump_back() -> None:
    from nps_sonar_py.devices.transform_buffer import TransformBuffer

    buffer = TransformBuffer(buffer_seconds=10.0)
    buffer.add(_batch(_transform('map', 'odom', 0.0)), static=True)
    now = 100 * 10**9
    far = _transform('odom', 'base', 2e9, (50.0, 0.0, 0.0))  # a stamp in the year 2033
    near = _transform('odom', 'base', 100.0, (1.0, 0.0, 0.0))
    dropped = buffer.add(_batch(far, near), static=False, now_ns=now)
    assert (dropped.future, dropped.old) == (1, 0)
    matrix, lag = buffer.lookup('map', 'base', now)
    assert (matrix[0, 3], lag) == (1.0, 0.0)
    # a simulation reset: time starts again at 0, the old samples would be the newest
    buffer.forget_after(10**9)
    buffer.add(
        _batch(_transform('odom', 'base', 1.0, (7.0, 0.0, 0.0))), static=False, now_ns=10**9
    )
    matrix, _ = buffer.lookup('map', 'base', 10**9)
    assert matrix[0, 3] == 7.0  # and the static map -> odom stayed
    # another node sharing the buffer sees the same jump: the new run's sample stays
    buffer.forget_after(10**9)
    assert buffer._frames['base'].times == [10**9]


def test_a_full_buffer_makes_room_from_frames_gone_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    from nps_sonar_py.devices import transform_buffer as tf

    monkeypatch.setattr(tf, 'MAX_FRAMES', 3)
    buffer = tf.TransformBuffer(buffer_seconds=1.0)
    buffer.add(_batch(_transform('map', 'odom', 0.0)), static=True)
    buffer.add(_batch(*(_transform('odom', f'junk{k}', 5.0) for k in range(2))), static=False)
    dropped = buffer.add(_batch(_transform('odom', 'base', 5.5)), static=False)
    assert dropped.new_frames == 1  # full, and every /tf frame was heard from within 1 s
    buffer.add(_batch(_transform('odom', 'junk0', 7.0)), static=False)  # junk1 is now 2 s old
    dropped = buffer.add(_batch(_transform('odom', 'base', 7.0, (4.0, 0.0, 0.0))), static=False)
    assert not dropped
    assert set(buffer._frames) == {'odom', 'junk0', 'base'}  # the static frame stays
    matrix, _ = buffer.lookup('map', 'base', 7 * 10**9)
    assert matrix[0, 3] == 4.0


def test_a_message_of_many_frames_costs_a_chain_not_all_pairs() -> None:
    """One message of 10,000 frames (the most a message may hold): a lookup walks one chain.

    A manager of all-pairs path tables (pytransform3d's, used before) took seconds and gigabytes.
    Here the lookup must see only the frames it walks through, which a frame table that
    raises on any other key shows without timing anything.
    """
    from nps_sonar_py.devices import transform_buffer as tf

    buffer = tf.TransformBuffer()
    many = [_transform(f'p{k}', f'c{k}', 1.0) for k in range(9_999)]
    buffer.add(_batch(*many, _transform('odom', 'base', 1.0, (2.0, 0.0, 0.0))), static=False)
    assert len(buffer._frames) == 10_000

    class OnlyTheChain(dict):  # type: ignore[type-arg]
        def get(self, key: str, default: Any = None) -> Any:
            assert key in ('base', 'odom'), f'the lookup read frame {key!r}'
            return super().get(key, default)

    buffer._frames = OnlyTheChain(buffer._frames)
    matrix, _ = buffer.lookup('odom', 'base', 10**9)
    assert matrix[0, 3] == 2.0


@pytest.mark.parametrize('world_frame', ['base_link', '/base_link', ''])
def test_the_world_frame_is_not_the_root_link(probe: Probe, world_frame: str) -> None:
    from nps_sonar_py.devices.settings import MotionSettings
    from nps_sonar_py.errors import ConfigurationError
    from nps_sonar_py.ros.motion import Motion

    settings = MotionSettings(pose_source='tf', world_frame=world_frame)
    with pytest.raises(ConfigurationError) as error:
        Motion(probe.node, settings, world_from_root=np.eye(4), root_link='base_link')
    assert str(error.value) == (
        "world_frame must name a TF frame other than the root link 'base_link', "
        f'got {world_frame!r}'
    )


# --- TF out, over DDS ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ('parameters', 'reason'),
    [
        (
            ['frame_id:=/sonar'],
            "'/sonar' cannot be a sensor frame: a ROS 2 frame id has no leading",
        ),
        (
            ['frame_id:=base_link'],
            "'base_link' cannot be a sensor frame: it is a link of the URDF: a transform from "
            "'sonar_link' would re-parent it",
        ),
        (
            ['frame_id:=odom', 'pose_source:=odometry'],
            "'odom' cannot be a sensor frame: it is the world_frame",
        ),
    ],
)
def test_a_sensor_frame_that_would_break_the_tf_tree_exits_with_one_line(
    parameters: list[str], reason: str
) -> None:
    command = [executable('sonar_node'), '--ros-args']
    for parameter in parameters:
        command += ['-p', parameter]
    assert reason in exit_line(command)


def _wait_matched(probe: Probe, publisher: Any, process: Any) -> None:
    deadline = time.monotonic() + NODE_START_TIMEOUT
    while publisher.get_subscription_count() < 1:
        assert time.monotonic() < deadline, 'the node did not subscribe'
        assert process.poll() is None, process.communicate()[1]
        time.sleep(0.02)


def test_sensor_frame_on_tf_static_for_a_late_subscriber(tmp_path: Path, probe: Probe) -> None:
    from rclpy.qos import DurabilityPolicy, ReliabilityPolicy
    from sensor_msgs.msg import Range
    from tf2_msgs.msg import TFMessage

    robot = tmp_path / 'turned.urdf'
    robot.write_text(TURNED_SENSOR)
    probe.subscribe(Range, 'sonar/range')
    parameters = {
        **ONE_RAY,
        'robot_description_file': str(robot),
        'pose_source': 'pose',
        'publish_tf': False,  # switched off: no /tf though the node moves the robot
    }
    with running('sonar_node', parameters) as node:
        probe.wait('sonar/range', 1, node)  # the node is up and has published its frames
        probe.subscribe(TFMessage, '/tf_static', _qos(True, listener=True))  # late: kept for it
        (message,) = probe.wait('/tf_static', 1, node, timeout=NODE_START_TIMEOUT)
        infos = probe.node.get_publishers_info_by_topic('/tf_static')
        assert probe.node.get_publishers_info_by_topic('/tf') == []
    (frame,) = message.transforms
    assert (frame.header.frame_id, frame.child_frame_id) == ('mast', 'sonar')
    t, q = frame.transform.translation, frame.transform.rotation
    assert (t.x, t.y, t.z) == pytest.approx(SENSOR_XYZ, abs=1e-12)
    assert (q.x, q.y, q.z, q.w) == pytest.approx(
        (0.0, 0.0, math.sin(YAW / 2), math.cos(YAW / 2)), abs=1e-12
    )
    (info,) = infos
    assert info.qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL
    assert info.qos_profile.reliability == ReliabilityPolicy.RELIABLE
    assert str(info.topic_type_hash) == TF_MESSAGE_HASH


def _tf_stamps_once_in(
    probe: Probe, wanted: set[int], process: Any, timeout: float = NODE_START_TIMEOUT
) -> set[int]:
    """The stamps (ns) of the /tf messages received, once they hold ``wanted`` or timed out."""
    deadline = time.monotonic() + timeout
    while True:
        with probe.lock:
            stamps = {nanoseconds(m.transforms[0].header.stamp) for m in probe.received['/tf']}
        if wanted <= stamps or time.monotonic() > deadline:
            return stamps
        assert process.poll() is None, process.communicate()[1]
        time.sleep(0.02)


def test_odometry_goes_out_on_tf_at_the_reading_time(probe: Probe) -> None:
    from nav_msgs.msg import Odometry
    from sensor_msgs.msg import Range
    from tf2_msgs.msg import TFMessage

    probe.subscribe(Range, 'sonar/range')
    probe.subscribe(TFMessage, '/tf', _qos(static=False))
    odometry = Odometry()
    odometry.pose.pose.position.x, odometry.pose.pose.position.y = 0.5, -0.25
    yaw = 0.4
    odometry.pose.pose.orientation.z = math.sin(yaw / 2)
    odometry.pose.pose.orientation.w = math.cos(yaw / 2)
    parameters = {
        **ONE_RAY,
        'pose_source': 'odometry',
        'world_frame': 'map',
        'publish_tf_static': False,  # switched off
    }
    with (
        running('sonar_node', parameters) as node,
        publishing(probe, Odometry, 'odom', lambda: odometry),
    ):
        moved = first_such(
            probe,
            '/tf',
            node,
            lambda m: m.transforms[0].transform.translation.x != 0.0,
        )
        ranges = probe.wait('sonar/range', 2, node)
        # /tf is another subscription: a reading's /tf may come after the reading
        tf_stamps = _tf_stamps_once_in(probe, {nanoseconds(r.header.stamp) for r in ranges}, node)
        assert probe.node.get_publishers_info_by_topic('/tf_static') == []
    (frame,) = moved.transforms
    assert (frame.header.frame_id, frame.child_frame_id) == ('map', 'base_link')
    t, q = frame.transform.translation, frame.transform.rotation
    assert (t.x, t.y, t.z) == pytest.approx((0.5, -0.25, 0.0), abs=1e-12)
    assert (q.x, q.y, q.z, q.w) == pytest.approx(
        (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2)), abs=1e-12
    )
    # stamped with a reading's time: each reading has its /tf at the same stamp
    assert {nanoseconds(r.header.stamp) for r in ranges} <= tf_stamps


def test_robot_sensors_publish_each_sensor_frame_and_the_root_link_once(probe: Probe) -> None:
    """The demo robot (config/robots/demo_robot.urdf.xacro) in one process.

    sonar and front_scanner have the optical origin ``rpy (-pi/2, 0, -pi/2)`` at their links'
    origins: their body frames are the links' frames. rear_ranger (Gazebo form) has
    ``<pose>0.05 0 0 0 0 0</pose>``, x forward already: 0.05 m along rear_link's x.
    """
    from tf2_msgs.msg import TFMessage

    probe.subscribe(TFMessage, '/tf_static', _qos(True, listener=True))
    probe.subscribe(TFMessage, '/tf', _qos(False))
    parameters = {'pose_source': 'odometry', 'world_frame': 'world'}
    with running('robot_sensors_node', parameters) as node:
        static = probe.wait('/tf_static', 3, node, timeout=NODE_START_TIMEOUT)
        (root,) = probe.wait('/tf', 1, node)[0].transforms
        tf_nodes = [i.node_name for i in probe.node.get_publishers_info_by_topic('/tf')]
        static_nodes = [i.node_name for i in probe.node.get_publishers_info_by_topic('/tf_static')]
    assert sorted(static_nodes) == ['front_scanner', 'rear_ranger', 'sonar']
    assert len(tf_nodes) == 1
    frames = {(t.header.frame_id, t.child_frame_id): t for m in static for t in m.transforms}
    offsets = {
        ('pan_link', 'sonar'): 0.0,
        ('laser_link', 'front_scanner'): 0.0,
        ('rear_link', 'rear_ranger'): 0.05,
    }
    assert set(frames) == set(offsets)
    for key, x in offsets.items():
        t, q = frames[key].transform.translation, frames[key].transform.rotation
        assert (t.x, t.y, t.z, q.x, q.y, q.z, q.w) == pytest.approx(
            (x, 0, 0, 0, 0, 0, 1), abs=1e-12
        ), key
    assert (root.header.frame_id, root.child_frame_id) == ('world', 'base_link')
    t, q = root.transform.translation, root.transform.rotation
    assert (t.x, t.y, t.z, q.x, q.y, q.z, q.w) == (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)


# --- TF in, over DDS -------------------------------------------------------------------------


#: A sonar following base_link in map from TF, on sim time.
TF_IN_SIM_TIME = {**ONE_RAY, 'use_sim_time': True, 'pose_source': 'tf', 'world_frame': 'map'}


def _tf_publishers(probe: Probe) -> tuple[Any, Any, Any]:
    """Publishers of ``/tf``, ``/tf_static`` (tf2's QoS) and ``/clock`` (best effort)."""
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from rosgraph_msgs.msg import Clock
    from tf2_msgs.msg import TFMessage

    tf = probe.node.create_publisher(TFMessage, '/tf', _qos(static=False))
    static = probe.node.create_publisher(TFMessage, '/tf_static', _qos(static=True))
    clock = probe.node.create_publisher(
        Clock, '/clock', QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT)
    )
    return tf, static, clock


def _clock(seconds: float) -> Any:
    from builtin_interfaces.msg import Time
    from rosgraph_msgs.msg import Clock

    return Clock(clock=Time(sec=int(seconds), nanosec=round((seconds % 1) * 1e9)))


def _acked(*publishers: Any) -> None:
    """Wait until the node's reliable subscriptions have received every message of ``publishers``.

    Held at 99.5 s, time moves on only then: the transforms are in before the ``/clock``
    messages that move time into their range (a lost sample's repair could take longer).
    """
    from rclpy.duration import Duration

    for publisher in publishers:
        assert publisher.wait_for_all_acked(Duration(seconds=NODE_START_TIMEOUT)), 'not acked'


def _ticker(
    clock: Any,
    now: list[float],
    stop: threading.Event,
    *,
    until: float = math.inf,
    hold_at: float = math.inf,
    release: threading.Event | None = None,
    paced_by: tuple[Probe, str] | None = None,
) -> threading.Thread:
    """A thread stepping sim time ``now[0]`` by 0.05 s every 30 ms on ``/clock`` until ``stop``.

    It stops at ``until``, and from ``hold_at`` on waits for ``release`` before each step.
    ``paced_by=(probe, topic)``: from the first reading on ``topic`` on, each step also waits
    until the node has read at the step before (a message stamped there), so that a node a
    loaded machine slows down still reads at every step of the clock instead of falling behind
    it.
    """

    def caught_up(probe: Probe, topic: str, seconds: float) -> bool:
        with probe.lock:
            got = probe.received[topic]
            if not got:
                return True  # not reading yet: nothing to keep pace with
            return nanoseconds(got[-1].header.stamp) >= round((seconds - 0.05) * 1e9) - 10**6

    def tick() -> None:
        while not stop.is_set() and now[0] < until:
            if now[0] >= hold_at and release is not None:
                release.wait()
            now[0] = round(now[0] + 0.05, 2)
            clock.publish(_clock(now[0]))
            stop.wait(0.03)
            if paced_by is not None:
                end = time.monotonic() + NODE_START_TIMEOUT  # then on: the checks will tell
                while not (stop.is_set() or caught_up(*paced_by, now[0])):
                    if time.monotonic() > end:
                        break
                    stop.wait(0.005)

    return threading.Thread(target=tick, daemon=True)


def test_pose_source_tf_interpolates_warns_and_keeps_the_last_good_pose(probe: Probe) -> None:
    """Sim time: the robot's base_link in map (map -> odom static, odom -> base_link on /tf).

    odom -> base_link moves from y = 0 at t = 100 s to y = 0.5 at t = 101 s, so the sonar reads
    ``1.75 - 0.5 (t - 100)`` at a reading at ``t`` in [100, 101], 1.75 before (none yet, or
    the first held) and 1.25 after (the newest held, stale past 101.5 s).
    """
    from sensor_msgs.msg import Range

    probe.subscribe(Range, 'sonar/range')
    tf, static, clock = _tf_publishers(probe)
    now = [99.0]
    stop, sent = threading.Event(), threading.Event()

    # the readings from 99.55 s on come after the transforms
    ticker = _ticker(
        clock,
        now,
        stop,
        until=103.0,
        hold_at=99.5,
        release=sent,
        paced_by=(probe, 'sonar/range'),
    )
    with running('sonar_node', TF_IN_SIM_TIME) as node:
        log = NodeLog(node)
        _wait_matched(probe, tf, node)
        _wait_matched(probe, clock, node)  # sim time advances only once it hears /clock
        _wait_matched(probe, static, node)
        # Started: its timer exists before time moves, or time held at hold_at would never
        # reach its first tick.
        log.wait_for('sonar "sonar": 20 Hz')
        ticker.start()
        first_such(probe, 'sonar/range', node, lambda m: m.range > 0.0)  # before any TF
        static.publish(_tf(_transform('map', 'odom', 0.0, (0.0, 0.0, 0.1))))
        tf.publish(_tf(_transform('odom', 'base_link', 100.0)))
        tf.publish(_tf(_transform('odom', 'base_link', 101.0, (0.0, 0.5, 0.0))))
        _acked(static, tf)  # the node holds them before time moves past 99.5 s
        sent.set()
        first_such(probe, 'sonar/range', node, lambda m: m.header.stamp.sec >= 101)
        bad = _transform('odom', 'base_link', 101.2, (0.0, math.nan, 0.0))
        tf.publish(_tf(_transform('odom', 'other', 101.2), bad))
        first_such(probe, 'sonar/range', node, lambda m: m.header.stamp.sec >= 102)
        log.wait_for("pose_source tf: no pose of 'base_link' in 'map': no frame 'map'")
        log.wait_for('ignored a message on /tf: transforms[1].transform.translation.y is nan')
        log.wait_for("the pose of 'base_link' in 'map' is stale: a transform of its chain is")
        stop.set()
        sent.set()
        ticker.join(timeout=5)
        with probe.lock:
            readings = list(probe.received['sonar/range'])
        assert log.stop() == 0
    stamps = np.array([nanoseconds(m.header.stamp) * 1e-9 for m in readings])
    ranges = np.array([m.range for m in readings])
    expected = 1.75 - 0.5 * np.clip(stamps - 100.0, 0.0, 1.0)
    assert ranges == pytest.approx(expected, abs=1e-5)  # float32 ranges
    inside = (stamps > 100.0) & (stamps < 101.0)
    assert inside.sum() >= 3, stamps  # readings between the two stamps were interpolated
    assert stamps.max() >= 102.0


def test_pose_source_tf_clears_its_buffer_when_sim_time_jumps_back(probe: Probe) -> None:
    """A simulation reset: the clock goes from 100 s back to 5 s, as tf2_ros the node forgets.

    base_link is at y = 0 at 100 s (range 1.75) and at y = 0.5 from 5 s on (range 1.25). Kept,
    the 100 s sample would make the 5 s one too old for the buffer (10 s), and the sonar would
    read 1.75 on. The node must not publish the root link on /tf: TF is its input here.
    """
    from sensor_msgs.msg import Range

    probe.subscribe(Range, 'sonar/range')
    tf, static, clock = _tf_publishers(probe)
    now = [100.0]
    stop = threading.Event()

    ticker = _ticker(clock, now, stop)
    with running('sonar_node', TF_IN_SIM_TIME) as node:
        log = NodeLog(node)
        _wait_matched(probe, tf, node)
        _wait_matched(probe, clock, node)  # sim time advances only once it hears /clock
        _wait_matched(probe, static, node)
        static.publish(_tf(_transform('map', 'odom', 0.0, (0.0, 0.0, 0.1))))
        tf.publish(_tf(_transform('odom', 'base_link', 100.0)))
        ticker.start()
        first_such(probe, 'sonar/range', node, lambda m: m.header.stamp.sec >= 100)
        publishers = probe.node.get_publishers_info_by_topic('/tf')
        assert {info.node_name for info in publishers} == {probe.node.get_name()}
        now[0] = 5.0  # the reset
        log.wait_for('time jumped back')
        tf.publish(_tf(_transform('odom', 'base_link', 5.0, (0.0, 0.5, 0.0))))
        after = first_such(
            probe, 'sonar/range', node, lambda m: m.header.stamp.sec < 100 and m.range < 1.5
        )
        stop.set()
        ticker.join(timeout=5)
        assert log.stop() == 0
    assert after.range == pytest.approx(1.25, abs=1e-5)


def test_robot_sensors_read_tf_through_one_subscription(probe: Probe) -> None:
    """The demo robot in one process, pose_source tf: one /tf subscriber, and every sensor moves.

    rear_ranger's middle ray looks along base_link's -x from 0.35 m behind it; with base_link
    at x = 1 and then x = 2 in map (the box room's frame, its west wall the plane x = -3), that
    ray reads 3.65 m and then 1 m more. It reads the buffer the first sensor (sonar) fills: the
    process holds one subscription to /tf and one to /tf_static.
    """
    from sensor_msgs.msg import LaserScan

    tf, static, _ = _tf_publishers(probe)
    probe.subscribe(LaserScan, 'rear_ranger/scan')
    parameters = {'pose_source': 'tf', 'world_frame': 'map'}
    with running('robot_sensors_node', parameters) as node:
        _wait_matched(probe, tf, node)
        _wait_matched(probe, static, node)
        scan = 'rear_ranger/scan'
        # before any transform: the robot at its fixed pose, base_link at x = 0 (the node may
        # read there before the first transform comes, so 'near' waits for the move away)
        start = first_such(probe, scan, node, lambda m: 0.0 < m.ranges[1] < 5.0).ranges[1]
        static.publish(_tf(_transform('map', 'base_link', 0.0, (1.0, 2.0, 0.5))))
        near = first_such(probe, scan, node, lambda m: m.ranges[1] > start + 0.5).ranges[1]
        static.publish(_tf(_transform('map', 'base_link', 0.0, (2.0, 2.0, 0.5))))
        far = first_such(probe, scan, node, lambda m: m.ranges[1] > near + 0.5).ranges[1]
        # every sensor node is up and reading by now: its subscriptions were discovered
        subscribers = {
            topic: sorted(i.node_name for i in probe.node.get_subscriptions_info_by_topic(topic))
            for topic in ('/tf', '/tf_static')
        }
        assert NodeLog(node).stop() == 0
    assert subscribers == {'/tf': ['sonar'], '/tf_static': ['sonar']}
    assert near - start == pytest.approx(1.0, abs=0.011)  # ranges in steps of 0.01 m
    assert far - near == pytest.approx(1.0, abs=0.011)


def test_a_message_of_ten_thousand_frames_does_not_stop_the_readings(probe: Probe) -> None:
    """A /tf message of 9,991 transforms moves the robot; the sonar reads on (issue 21).

    With map -> odom and the node's own sensor frames on /tf_static, the buffer then holds
    nearly the 10,000 frames it keeps, so that no frame is refused. Wall-clock time: messages
    of odom -> base_link at y = 0.3 (or 0.6) and 9,990 other frames,
    stamped now. The reading after the first reads ``1.75 - 0.3``; after each message,
    readings keep coming (counted, not timed), and the last one moves the robot again, so
    every message was taken whole. Read raw (``ros/tf_reader.py``), each costs the node about
    a tenth of what rclpy's deserialisation did (``benchmarks/bench_tf_message.py``).
    """
    from sensor_msgs.msg import Range

    probe.subscribe(Range, 'sonar/range')
    tf, static, _ = _tf_publishers(probe)
    others = [(f'link_{k}', (0.001 * k, 0.0, 0.0)) for k in range(9_990)]

    def big(dy: float) -> Any:
        now = probe.node.get_clock().now().nanoseconds * 1e-9
        base = _transform('odom', 'base_link', now, (0.0, dy, 0.0))
        return _tf(base, *(_transform('base_link', name, now, xyz) for name, xyz in others))

    parameters = {**ONE_RAY, 'pose_source': 'tf', 'world_frame': 'map'}
    with running('sonar_node', parameters) as node:
        log = NodeLog(node)
        _wait_matched(probe, tf, node)
        _wait_matched(probe, static, node)
        static.publish(_tf(_transform('map', 'odom', 0.0)))
        tf.publish(big(0.3))
        moved = first_such(probe, 'sonar/range', node, lambda m: m.range < 1.75 - 0.2)
        for dy in (0.3, 0.3, 0.3, 0.6):
            tf.publish(big(dy))
            probe.wait('sonar/range', 3, node)  # the sonar reads on after each
        last = first_such(probe, 'sonar/range', node, lambda m: m.range < 1.75 - 0.5)
        assert log.stop() == 0
    assert moved.range == pytest.approx(1.75 - 0.3, abs=1e-5)
    assert last.range == pytest.approx(1.75 - 0.6, abs=1e-5)
    assert 'ignored' not in log.text()
