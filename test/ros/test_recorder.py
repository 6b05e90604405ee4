"""sonar_record over real DDS: a sonar node process publishing, the recorder process writing MCAP.

The bag is read back with rosbags alone. Expected values come from the geometry of the reference
scenario (DESIGN.md): the sonar at (2.1, 1.0, 1.0) looks along +y at a vertical cylinder of
radius 0.25 m centred on (2.1, 3.0), so the boresight meets it at 3.0 - 0.25 - 1.0 = 1.750 m,
the nearest point of the cylinder to the sonar, and nothing else in the tank is nearer along it.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import yaml
from ros_helpers import (
    NODE_START_TIMEOUT,
    Probe,
    executable,
    exit_lines,
    messages_after,
    running,
    stamped_after,
)
from rosbags.highlevel import AnyReader
from rosbags.rosbag2 import Reader

from nps_sonar_py.ament import find_installed

pytestmark = pytest.mark.ros

SONAR_Y, CYLINDER_Y, CYLINDER_RADIUS = 1.0, 3.0, 0.25
BORESIGHT_RANGE = CYLINDER_Y - CYLINDER_RADIUS - SONAR_Y  # 1.750 m
RATE = 20.0  # Hz
PINGS = 60  # pings published while the recorder listens
MCAP_MAGIC = b'\x89MCAP0\r\n'  # opens and closes every MCAP file (MCAP specification, "Magic")
EXPECTED_TYPES = {
    '/sonar/range': 'sensor_msgs/msg/Range',
    '/sonar/scan': 'sensor_msgs/msg/LaserScan',
    '/sonar/sonar_point': 'nps_sonar/msg/SonarPoint',
}


def rosidl_type_hash(msgtype: str) -> str:
    """The RIHS01 hash rosidl generated for ``pkg/msg/Name`` (``share/pkg/msg/Name.json``)."""
    package, _, name = msgtype.split('/')
    path = find_installed(f'share/{package}/msg/{name}.json')
    if path is None:
        raise FileNotFoundError(msgtype)
    hashes = json.loads(path.read_text())['type_hashes']
    return next(h['hash_string'] for h in hashes if h['type_name'] == msgtype)


class RecorderProcess:
    """``sonar_record`` running in a process of its own, its output collected by threads."""

    def __init__(self, bag: Path, *args: str) -> None:
        self.process = subprocess.Popen(
            [executable('sonar_record'), str(bag), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.out: list[str] = []
        self.err: list[str] = []
        self._threads = [
            threading.Thread(target=self._collect, args=(stream, lines), daemon=True)
            for stream, lines in ((self.process.stdout, self.out), (self.process.stderr, self.err))
        ]
        for thread in self._threads:
            thread.start()

    @staticmethod
    def _collect(stream, lines: list[str]) -> None:
        for line in stream:
            lines.append(line)

    def wait_recording(self, topics: list[str], timeout: float = NODE_START_TIMEOUT) -> float:
        """The monotonic time when the recorder has subscribed to every topic (it logs each one).

        Discovery of the publishers can take seconds (DDS announces participants periodically).
        """
        return self._wait_logged([f'recording {topic} (' for topic in topics], timeout)

    def wait_writing(self, topics: list[str], timeout: float = NODE_START_TIMEOUT) -> float:
        """The monotonic time when the recorder has written a first message of every topic.

        Subscribing is not receiving: the publisher matches the new subscription only when DDS
        discovery reaches it, which a loaded machine can delay by seconds.
        """
        self.wait_recording(topics, timeout)
        return self._wait_logged([f'{topic}: first message written' for topic in topics], timeout)

    def _wait_logged(self, lines: list[str], timeout: float) -> float:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            text = ''.join(self.err)
            if all(line in text for line in lines):
                return time.monotonic()
            if self.process.poll() is not None:
                pytest.fail(f'sonar_record exited with {self.process.returncode}: {text}')
            time.sleep(0.02)
        self.finish(signal.SIGINT, timeout=10.0)  # leave no recorder running
        pytest.fail(f'sonar_record did not log {lines} in {timeout} s: {"".join(self.err)}')

    def finish(
        self,
        signal_number: int | None = signal.SIGINT,
        timeout: float = 60.0,
    ) -> tuple[int, str, str]:
        """Send ``signal_number`` (None: it stops by itself); the exit status, stdout, stderr."""
        if signal_number is not None:
            self.process.send_signal(signal_number)
        try:
            self.process.wait(timeout=timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
        for thread in self._threads:
            thread.join(timeout=5)
        return self.process.returncode, ''.join(self.out), ''.join(self.err)


def stamp_ns(message) -> int:
    return message.header.stamp.sec * 10**9 + message.header.stamp.nanosec


def test_records_the_sonar_node_to_a_valid_mcap_bag(tmp_path: Path, receiver) -> None:
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import Range

    bag = tmp_path / 'sonar_bag'
    # The test's own record of what was published: reliable, as the recorder subscribes.
    reference = receiver(
        Range, 'sonar/range', QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
    )
    with running('sonar_node', {'update_rate': RATE}) as node:
        reference.wait_for(1, process=node)
        recorder = RecorderProcess(bag)  # the default topics
        recorder.wait_writing(list(EXPECTED_TYPES))
        messages_after(reference, PINGS)  # pings published while recording, however slowly
        status, out, err = recorder.finish()
        # A ping stamped after the recorder exited: the reliable reference, in order, has then
        # every ping the recorder got (the last of those may have reached the recorder first).
        stamped_after(reference, reference.topic, node, time.time_ns())
    assert status == 0, err
    assert 'Traceback' not in err

    # The files: a rosbag2 directory whose one storage file is an MCAP file, opened and closed.
    metadata = yaml.safe_load((bag / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    assert metadata['storage_identifier'] == 'mcap'
    assert metadata['version'] == 9
    (mcap,) = metadata['relative_file_paths']
    data = (bag / mcap).read_bytes()
    assert mcap.endswith('.mcap')
    assert data[:8] == MCAP_MAGIC
    assert data[-8:] == MCAP_MAGIC  # the footer is written: the bag was closed

    # Connections: the three topics with their types and the hashes rosidl gives those types.
    with Reader(bag) as reader:
        connections = {c.topic: c for c in reader.connections}
        assert {t: c.msgtype for t, c in connections.items()} == EXPECTED_TYPES
        for c in connections.values():
            assert c.digest == rosidl_type_hash(c.msgtype)
            assert c.msgdef.data  # the definition travels with the bag
        counts = {t: c.msgcount for t, c in connections.items()}
        assert reader.message_count == sum(counts.values())
    assert all(count >= PINGS // 2 for count in counts.values()), counts

    # Deserialized from the bag's own definitions (AnyReader checks them against the hashes).
    with AnyReader([bag]) as reader:
        received: dict[str, list] = {topic: [] for topic in EXPECTED_TYPES}
        for connection, timestamp, raw in reader.messages():
            received[connection.topic].append(
                (timestamp, reader.deserialize(raw, connection.msgtype))
            )
    stamps = {}
    for topic, entries in received.items():
        log_times = np.array([t for t, _ in entries])
        stamps[topic] = np.array([stamp_ns(m) for _, m in entries])
        assert np.all(np.diff(stamps[topic]) > 0), topic
        assert np.all(np.diff(log_times) >= 0), topic
        assert np.all(log_times >= stamps[topic]), (
            topic
        )  # received after it was stamped, on the same clock
        assert np.median(np.diff(stamps[topic])) == pytest.approx(1e9 / RATE, rel=0.1), topic
    # The three messages of a ping carry its one stamp:
    # where all topics were recorded, the stamps agree.
    low = max(t[0] for t in stamps.values())
    high = min(t[-1] for t in stamps.values())
    common = [set(t[(t >= low) & (t <= high)].tolist()) for t in stamps.values()]
    assert common[0] == common[1] == common[2]
    # No ping lost or doubled: between its first and last, the bag holds exactly the pings the
    # test's reliable subscription received.
    published = np.array(sorted(stamp_ns(m) for m in reference.messages))
    for topic, recorded in stamps.items():
        inside = published[(published >= recorded[0]) & (published <= recorded[-1])]
        assert recorded.tolist() == inside.tolist(), topic

    ranges = [m for _, m in received['/sonar/range']]
    assert [m.range for m in ranges] == pytest.approx([BORESIGHT_RANGE] * len(ranges), abs=1e-6)
    assert {m.radiation_type for m in ranges} == {0}  # ULTRASOUND
    assert {m.header.frame_id for m in ranges} == {'sonar'}
    scans = [m for _, m in received['/sonar/scan']]
    assert [float(m.ranges[0]) for m in scans] == pytest.approx(
        [BORESIGHT_RANGE] * len(scans), abs=1e-6
    )
    point = received['/sonar/sonar_point'][-1][1]
    assert point.range == pytest.approx(BORESIGHT_RANGE, abs=1e-6)
    assert float(point.profile.sum()) == pytest.approx(point.intensity, rel=1e-5)
    edges = np.linspace(point.min_range, point.max_range, point.profile.size + 1)
    first_echo = int(np.flatnonzero(point.profile > 0)[0])
    assert edges[first_echo] <= BORESIGHT_RANGE < edges[first_echo + 1]

    # The pictures, drawn after the bag was closed.
    for picture in ('profile.png', 'sweep.png'):
        assert (bag / picture).read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
        assert (bag / picture).stat().st_size > 10_000
    assert f'echogram of {counts["/sonar/sonar_point"]} pings on /sonar/sonar_point' in out


@pytest.mark.parametrize('signal_number', [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_recording_and_closes_the_bag(
    tmp_path: Path, receiver, signal_number: int
) -> None:
    from sensor_msgs.msg import Range

    bag = tmp_path / 'bag'
    ranges = receiver(Range, 'sonar/range')
    with running('sonar_node', {'update_rate': RATE}) as node:
        ranges.wait_for(1, process=node)
        # A relative topic without a type: resolved to /sonar/range, typed by its publisher.
        recorder = RecorderProcess(bag, '--topics', 'sonar/range')
        recorder.wait_writing(['/sonar/range'])  # the bag holds a message before the signal
        status, out, err = recorder.finish(signal_number)
    assert status == 0, err
    assert 'Traceback' not in err
    with Reader(bag) as reader:
        (connection,) = reader.connections
        assert (connection.topic, connection.msgtype) == ('/sonar/range', 'sensor_msgs/msg/Range')
        assert connection.msgcount > 0
    assert (bag / f'{bag.name}.mcap').read_bytes()[-8:] == MCAP_MAGIC
    assert 'no SonarPoint profile recorded' in out
    assert not (bag / 'sweep.png').exists()


def test_duration_stops_the_recorder_by_itself(tmp_path: Path) -> None:
    bag = tmp_path / 'bag'
    recorder = RecorderProcess(
        bag, '--topics', '/nobody/publishes:std_msgs/msg/String', '--duration', '1'
    )
    # No signal: it must exit by itself (finish fails if it is still running after the timeout,
    # which leaves a loaded machine a minute to start it).
    status, out, err = recorder.finish(None, timeout=60)
    assert status == 1, err  # nothing was recorded in the time given
    assert 'Traceback' not in err
    assert 'wrote' in out
    with Reader(bag) as reader:
        assert reader.connections == []  # no publisher was seen, so nothing was subscribed
    assert (bag / f'{bag.name}.mcap').read_bytes()[-8:] == MCAP_MAGIC


def test_bad_arguments_exit_with_one_line(tmp_path: Path) -> None:
    (tmp_path / 'exists').mkdir()
    cases = (
        ([str(tmp_path / 'exists')], 'exists already'),
        ([str(tmp_path / 'bag'), '--topics', '/x:not_a_type'], 'expected pkg/msg/Name'),
        ([str(tmp_path / 'bag'), '--topics', '/x:no_such_pkg/msg/Thing'], 'is not installed'),
        (
            [str(tmp_path / 'bag'), '--waterfall'],
            '--waterfall records the waterfall of --sidescan',
        ),
        ([str(tmp_path / 'bag'), '--sidescan', '/'], "--sidescan '/': expected the sensor name"),
        ([str(tmp_path / 'bag'), '--db-window', '-20', '-50'], 'expected finite LOW < HIGH'),
        (
            [str(tmp_path / 'bag'), '--side-by-side', 'a/b', '/l', '/r'],
            "--side-by-side 'a/b': NAME must be a file name",
        ),
    )
    lines = exit_lines([[executable('sonar_record'), *args] for args, _ in cases], timeout=60)
    for line, (_, words) in zip(lines, cases, strict=True):
        assert words in line


def test_a_scanning_sonar_is_drawn_as_a_fan(tmp_path: Path) -> None:
    from nps_sonar.msg import SonarPoint
    from nps_sonar_py.ros.bag_report import draw_report

    step = 0.25
    bag = tmp_path / 'bag'
    parameters = {
        'min_angle': -2 * step,
        'max_angle': 2 * step,
        'step': step,
        'range_estimator': 'nearest',
    }
    probe = Probe()
    try:
        probe.subscribe(SonarPoint, '/sonar/sonar_point')
        with running('scanning_sonar_node', parameters) as node:
            recorder = RecorderProcess(bag, '--topics', '/sonar/sonar_point:nps_sonar/SonarPoint')
            recorder.wait_writing(['/sonar/sonar_point'])
            # Two whole sweeps published while the recorder listens, however slowly they come.
            probe.wait('/sonar/sonar_point', 10, node)
            status, out, err = recorder.finish()
    finally:
        probe.close()
    assert status == 0, err
    with AnyReader([bag]) as reader:
        pings = [reader.deserialize(raw, c.msgtype) for c, _, raw in reader.messages()]
    assert f'fan of {len(pings)} pings on /sonar/sonar_point' in out
    azimuths = np.array([p.azimuth for p in pings])
    assert set(np.round(azimuths / step).astype(int).tolist()) == {-2, -1, 0, 1, 2}
    # Straight ahead the beam's nearest echo is the cylinder's nearest point, on the boresight.
    ahead = [p.range for p in pings if abs(p.azimuth) < 1e-6]
    assert ahead
    assert ahead == pytest.approx([BORESIGHT_RANGE] * len(ahead), abs=1e-6)
    report = draw_report(bag, tmp_path / 'again')  # redrawn from the bag, as --redraw does
    assert (report.topic, report.sweep_kind, report.pings) == (
        '/sonar/sonar_point',
        'fan',
        len(pings),
    )
    assert report.sweep.read_bytes() == (bag / 'sweep.png').read_bytes()  # drawn deterministically


def test_a_multibeam_ping_and_its_image_are_drawn(tmp_path: Path) -> None:
    """The wall x = D (``ranger_scenes.wall_scene``) seen by a fan, recorded and drawn."""
    import matplotlib.image
    from ranger_scenes import ACOUSTICS, D, wall_scene

    from nps_sonar.msg import MultibeamPing
    from nps_sonar_py.ros.bag_report import draw_report

    robot, world = wall_scene(tmp_path)
    bag = tmp_path / 'bag'
    parameters = {
        'robot_description_file': robot,
        'scene_file': world,
        'mode': 'multibeam',
        'beams': 21,
        'min_angle': -0.5,
        'max_angle': 0.5,
        'update_rate': 10.0,
        'publish_image': True,
        'image_resolution': 0.05,
        **ACOUSTICS,
    }
    probe = Probe()
    try:
        probe.subscribe(MultibeamPing, '/head/multibeam')
        with running('scanning_sonar_node', parameters) as node:
            recorder = RecorderProcess(bag, '--topics', '/head/multibeam', '/head/image')
            recorder.wait_writing(['/head/multibeam', '/head/image'])
            probe.wait('/head/multibeam', 3, node)  # published while the recorder listens
            status, out, err = recorder.finish()
    finally:
        probe.close()
    assert status == 0, err
    assert f'drew {bag / "multibeam.png"} (last ping on /head/multibeam)' in out
    picture = bag / 'image_head_image.png'
    assert f'drew {picture}' in out
    assert (bag / 'multibeam.png').read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
    # image_head_image.png is the last recorded image, pixel for pixel (mono8 grey levels).
    with AnyReader([bag]) as reader:
        (connection,) = [c for c in reader.connections if c.topic == '/head/image']
        raw = list(reader.messages(connections=[connection]))[-1][2]
        image = reader.deserialize(raw, connection.msgtype)
    pixels = np.frombuffer(bytes(image.data), dtype=np.uint8).reshape(image.height, image.width)
    grey = np.rint(matplotlib.image.imread(picture)[..., 0] * 255).astype(np.uint8)
    np.testing.assert_array_equal(grey, pixels)
    # Straight ahead (the middle column) the wall is D / 0.05 = 40 rows above the bottom row.
    assert int(np.argmax(pixels[:, image.width // 2])) == image.height - 1 - round(D / 0.05)
    report = draw_report(bag, tmp_path / 'again')
    assert report.profile is None  # no SonarPoint in this bag
    assert report.multibeam_topic == '/head/multibeam'
    assert report.images == (tmp_path / 'again' / 'image_head_image.png',)
