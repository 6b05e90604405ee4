"""A 1080-sample scanner at 40 Hz and a 16-sonar ring at 20 Hz together on the reference scene.

Starts two ``ranger_node`` processes as ``ros2 run`` would (the colcon-built executables),
both in the reference tank (``config/worlds/reference_tank.world``):

* ``config/robots/ranger_scanner.urdf``: 1080 readings over 270 degrees at 40 Hz, placed where
  the reference sonar is (2.1, 1.0, 1.0), looking along +y; publishes ``laser/scan``;
* ``config/robots/sonar_ring.urdf``: 16 sonars (200 rays each) on a ring at (1.2, 4.8, 1.0),
  20 Hz; publishes ``ring_KK/range`` and ``ring/ranger``.

A subscriber here counts ``laser/scan`` and ``ring/ranger`` over a window after a warm-up and
prints, per node, the rate achieved (received messages and header stamps) against the
rate asked, and the CPU share of its process (user + system time from ``/proc``, as a
percentage of one core). Run inside the package's environment:

    source scripts/env.sh && nps_setup && python benchmarks/bench_ranger.py [--seconds 10]

The numbers depend on the machine; the pass/fail question is whether both rates hold.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ros_watch import TopicCounter, executable, spin_in_thread

REPOSITORY = Path(__file__).resolve().parents[1]
TICKS = os.sysconf('SC_CLK_TCK')


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far, s (``/proc/<pid>/stat`` fields 14 and 15)."""
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def ros_args(parameters: dict[str, Any]) -> list[str]:
    """The ``--ros-args -p name:=value ...`` giving a node ``parameters`` on its command line."""
    args = ['--ros-args']
    for name, value in parameters.items():
        text = (
            '[' + ', '.join(repr(float(v)) for v in value) + ']'
            if isinstance(value, list)
            else str(value)
        )
        args += ['-p', f'{name}:={text}']
    return args


def main() -> int:
    """Run both devices, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        '--seconds', type=float, default=10.0, help='measuring window, s (default 10)'
    )
    parser.add_argument(
        '--warmup', type=float, default=3.0, help='seconds ignored after both publish'
    )
    options = parser.parse_args()
    os.environ.setdefault('ROS_DOMAIN_ID', str(random.randint(101, 199)))
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')

    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from sensor_msgs.msg import LaserScan

    from nps_sonar.msg import RangerData

    world = str(REPOSITORY / 'config' / 'worlds' / 'reference_tank.world')
    devices = {
        'scanner': (
            {
                'robot_description_file': str(
                    REPOSITORY / 'config' / 'robots' / 'ranger_scanner.urdf'
                ),
                'scene_file': world,
                'robot_pose': [2.1, 1.0, 0.0, 0.0, 0.0, 1.5707963267948966],
            },
            LaserScan,
            'laser/scan',
            40.0,
            '1080 readings',
        ),
        'sonar ring': (
            {
                'robot_description_file': str(
                    REPOSITORY / 'config' / 'robots' / 'sonar_ring.urdf'
                ),
                'scene_file': world,
                'robot_pose': [1.2, 4.8, 0.0, 0.0, 0.0, 0.0],
                'sensors': 'ring_*',
                'device_name': 'ring',
                'rays': 200,
            },
            RangerData,
            'ring/ranger',
            20.0,
            '16 elements x 200 rays',
        ),
    }
    rclpy.init()
    node = rclpy.create_node('bench_ranger')
    counters = {
        name: TopicCounter(node, msg_type, topic)
        for name, (_, msg_type, topic, _, _) in devices.items()
    }
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    spinning = spin_in_thread(executor)
    processes = {
        name: subprocess.Popen(
            [executable('ranger_node'), *ros_args(parameters)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, (parameters, *_rest) in devices.items()
    }
    try:
        deadline = time.monotonic() + 60.0
        while any(not c.arrivals for c in counters.values()):
            for name, process in processes.items():
                if process.poll() is not None:
                    sys.exit(f'{name} exited: {process.communicate()[1].strip()}')
            if time.monotonic() > deadline:
                sys.exit('no messages within 60 s')
            time.sleep(0.05)
        time.sleep(options.warmup)
        start = time.monotonic()
        cpu_start = {name: cpu_seconds(p.pid) for name, p in processes.items()}
        time.sleep(options.seconds)
        end = time.monotonic()
        cpu = {name: cpu_seconds(p.pid) - cpu_start[name] for name, p in processes.items()}
    finally:
        for process in processes.values():
            process.send_signal(2)
        for process in processes.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        rclpy.try_shutdown()
        spinning.join(timeout=5.0)
        executor.shutdown(timeout_sec=1.0)
        node.destroy_node()

    cores = os.cpu_count() or 1
    wall = end - start
    print(f'reference tank, {wall:.1f} s window after {options.warmup:g} s warm-up, {cores} cores')
    print(
        f'{"device":<12} {"what":<24} {"asked":>7} {"received":>9} {"stamped":>8} '
        f'{"CPU % of a core":>16}'
    )
    total = 0.0
    for name, (_, _, _, asked, what) in devices.items():
        received, stamped = counters[name].window(start, end)
        share = 100.0 * cpu[name] / wall
        total += share
        print(
            f'{name:<12} {what:<24} {asked:>5.1f}Hz {received:>7.2f}Hz {stamped:>6.2f}Hz '
            f'{share:>15.1f}%'
        )
    print(f'both nodes: {total:.1f} % of one core, {total / cores:.1f} % of the machine')
    return 0


if __name__ == '__main__':
    sys.exit(main())
