"""Soak: a sonar node pinging at 50 Hz for minutes while another node sends it bad and good input.

Starts ``sonar_node`` on the reference scene (``update_rate: 50``, ``pose_source:
odometry``) as ``ros2 run`` would, and from this process, for ``--seconds`` (default 120):

* publishes odometry at 20 Hz, one message in ten with a NaN, inf or huge field, the others
  moving the robot back and forth by a few centimetres;
* publishes a joint state with a NaN and a scene state with a huge twist every second;
* counts ``sonar/range`` and samples the node's resident memory (``/proc/<pid>/status``).

It prints the achieved rate and the missed pings (stamps expected at 50 Hz against received),
the largest gap between two received messages, and the resident memory after the warm-up
and at the end (its growth). The node must still be running at the end, and it is stopped
with SIGINT (exit status printed). Run inside the package's environment:

    scripts/run python benchmarks/soak.py [--seconds 600]

The figures depend on the machine; the questions are whether the node survives, keeps its
rate and its memory flat.
"""

from __future__ import annotations

import argparse
import itertools
import math
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ros_watch import TopicCounter, executable, spin_in_thread

RATE_HZ = 50.0
WARM_UP_S = 5.0


def rss_mib(pid: int) -> float:
    """Resident memory of a process, MiB (``VmRSS`` of ``/proc/<pid>/status``)."""
    for line in Path(f'/proc/{pid}/status').read_text().splitlines():
        if line.startswith('VmRSS:'):
            return int(line.split()[1]) / 1024.0
    return math.nan


def odometry(k: int) -> Any:
    """The k-th odometry message: one in ten bad (nan, inf, huge, zero quaternion)."""
    from nav_msgs.msg import Odometry

    message = Odometry()
    message.header.frame_id = 'world'
    pose = message.pose.pose
    pose.position.y = 0.05 * math.sin(0.1 * k)
    pose.orientation.w = 1.0
    if k % 10 == 9:
        kind = (k // 10) % 4
        if kind == 0:
            pose.position.x = math.nan
        elif kind == 1:
            pose.orientation.z = math.inf
        elif kind == 2:
            pose.position.y = 1e308
        else:
            pose.orientation.w = 0.0
    return message


def main() -> int:
    """Run the soak and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--seconds', type=float, default=120.0)
    options = parser.parse_args()
    if not (math.isfinite(options.seconds) and options.seconds > WARM_UP_S):
        parser.error(f'--seconds must be a number above {WARM_UP_S:g}')

    import rclpy
    from nav_msgs.msg import Odometry
    from rclpy.executors import SingleThreadedExecutor
    from sensor_msgs.msg import JointState, Range

    from nps_sonar import msg as nps_msg

    command = [
        executable('sonar_node'),
        '--ros-args',
        '-p',
        f'update_rate:={RATE_HZ}',
        '-p',
        'pose_source:=odometry',
        '-p',
        'marker_rate:=0.0',
    ]
    node_process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    rclpy.init()
    probe = rclpy.create_node('soak_probe')
    ranges = TopicCounter(probe, Range, 'sonar/range')
    odom = probe.create_publisher(Odometry, 'odom', 10)
    joints = probe.create_publisher(JointState, 'joint_states', 10)
    scene = probe.create_publisher(nps_msg.SceneState, 'scene_state', 10)
    executor = SingleThreadedExecutor()
    executor.add_node(probe)
    spinner = spin_in_thread(executor)

    start = time.monotonic()
    end = start + options.seconds
    rss_start = math.nan
    rss_peak = 0.0
    for k in itertools.count():
        now = time.monotonic()
        if now >= end or node_process.poll() is not None:
            break
        odom.publish(odometry(k))
        if k % 20 == 0:
            joints.publish(JointState(name=['any_joint'], position=[math.nan]))
            state = nps_msg.SceneState()
            entity = nps_msg.EntityState(model='cylinder')
            entity.pose.orientation.w = 1.0
            entity.twist.angular.z = 1e308
            state.entities = [entity]
            scene.publish(state)
        if math.isnan(rss_start) and now - start >= WARM_UP_S:
            rss_start = rss_mib(node_process.pid)
        if now - start >= WARM_UP_S:
            rss_peak = max(rss_peak, rss_mib(node_process.pid))
        time.sleep(0.05)
    alive = node_process.poll() is None
    rss_end = rss_mib(node_process.pid) if alive else math.nan
    node_process.send_signal(signal.SIGINT)
    try:
        _, stderr = node_process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        node_process.kill()
        _, stderr = node_process.communicate()
    rclpy.try_shutdown()
    spinner.join(timeout=5.0)
    executor.shutdown()
    probe.destroy_node()

    with ranges.lock:
        arrivals = [t for t in ranges.arrivals if t >= start + WARM_UP_S]
        pairs = zip(ranges.arrivals, ranges.stamps, strict=True)
        stamps = [s for t, s in pairs if t >= start + WARM_UP_S]
    window = (arrivals[-1] - arrivals[0]) if len(arrivals) > 1 else math.nan
    expected = round((stamps[-1] - stamps[0]) * RATE_HZ) + 1 if len(stamps) > 1 else 0
    gaps = [b - a for a, b in itertools.pairwise(arrivals)]
    print(
        f'sonar_node at {RATE_HZ:g} Hz for {options.seconds:g} s under bad input '
        f'(warm-up {WARM_UP_S:g} s excluded)'
    )
    print(f'  survived: {alive}; exit status after SIGINT: {node_process.returncode}')
    print(
        f'  received {len(arrivals)} Range messages, {len(arrivals) / window:.2f} per s; '
        f'missed pings {max(0, expected - len(stamps))} of {expected}'
    )
    print(f'  largest gap between messages: {max(gaps) * 1e3:.1f} ms' if gaps else '  no gaps')
    print(
        f'  resident memory: {rss_start:.1f} MiB after warm-up, {rss_end:.1f} MiB at the end '
        f'(growth {rss_end - rss_start:+.1f} MiB, peak {rss_peak:.1f} MiB)'
    )
    tracebacks = stderr.count('Traceback')
    print(f"  tracebacks in the node's output: {tracebacks}")
    return 0 if alive and node_process.returncode == 0 and tracebacks == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
