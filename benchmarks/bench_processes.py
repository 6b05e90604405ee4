r"""The demo robot's sensors in one process or in one process each: CPU, memory, start-up, rates.

Two arrangements of the same three sensors of ``config/robots/demo_robot.urdf.xacro`` in the
box room (``config/demo_robot.yaml``: the robot's pose, 500 sonar rays), each at its URDF rate
(sonar 10 Hz, front_scanner 20 Hz with 181 readings, rear_ranger 15 Hz with 3):

* one process: ``robot_sensors_node``, which reads the robot and the world once and hosts
  the three nodes in one executor, casting into one raycaster;
* one process per sensor: ``sonar_node`` (``sensor: sonar``) and two ``ranger_node``
  (``sensors: front_scanner`` / ``rear_ranger``), each reading the files and building its own
  raycaster; the node names and topics are the same.

A subscriber here receives ``sonar/range``, ``front_scanner/scan`` and ``rear_ranger/scan``.
Per arrangement it reports the start-up time (from starting the processes to a first
message on every topic), the rates achieved over a window after a warm-up, the CPU seconds
per wall second of all its processes (user + system, psutil; 1.0 = one core busy), and the
resident memory (RSS) and unique memory (USS, not shared with other processes) summed over
them; then the ratios separate / together of the same run. Arrangements alternate when
``--repeats`` > 1 and the figures are medians; ``--rays`` loads the sonar (one GIL per
process: one process runs the pings one after the other). Run inside the package's environment:

    source scripts/env.sh && nps_setup && \
        python benchmarks/bench_processes.py [--seconds 10] [--rays 500]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import psutil
import yaml
from ros_watch import TopicCounter, executable, spin_in_thread

REPOSITORY = Path(__file__).resolve().parents[1]
CONFIG = REPOSITORY / 'config' / 'demo_robot.yaml'
ROBOT = REPOSITORY / 'config' / 'robots' / 'demo_robot.urdf.xacro'
SCENE = REPOSITORY / 'config' / 'worlds' / 'box_room.world'
#: topic -> (message type name, rate asked in Hz)
TOPICS = {
    'sonar/range': ('Range', 10.0),
    'front_scanner/scan': ('LaserScan', 20.0),
    'rear_ranger/scan': ('LaserScan', 15.0),
}


def arrangements(rays: int) -> dict[str, list[list[str]]]:
    """Command lines of each arrangement: the same parameters, robot, world and node names."""
    files = [
        '--ros-args',
        '--params-file',
        str(CONFIG),
        '-p',
        f'robot_description_file:={ROBOT}',
        '-p',
        f'scene_file:={SCENE}',
        '-p',
        f'rays:={rays}',
    ]
    return {
        'one process': [[executable('robot_sensors_node'), *files]],
        'one per sensor': [
            [executable('sonar_node'), *files, '-p', 'sensor:=sonar', '-r', '__node:=sonar'],
            [
                executable('ranger_node'),
                *files,
                '-p',
                'sensors:=front_scanner',
                '-r',
                '__node:=front_scanner',
            ],
            [
                executable('ranger_node'),
                *files,
                '-p',
                'sensors:=rear_ranger',
                '-r',
                '__node:=rear_ranger',
            ],
        ],
    }


@dataclass
class Run:
    """What one arrangement did in one run."""

    startup: float  # s, from Popen to a first message on every topic
    rates: dict[str, float]  # Hz received
    cpu: float  # CPU seconds per wall second, all its processes
    rss: float  # MiB, summed
    uss: float  # MiB, summed


def measure(
    commands: list[list[str]],
    counters: dict[str, TopicCounter],
    seconds: float,
    warmup: float,
) -> Run:
    """Start ``commands``, wait for every topic, warm up, measure over ``seconds``, stop them."""
    begin = time.monotonic()
    processes = [
        subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for c in commands
    ]
    try:
        deadline = begin + 60.0
        while any(c.since(begin) == 0 for c in counters.values()):
            for process in processes:
                if process.poll() is not None:
                    sys.exit(
                        f'{Path(process.args[0]).name} exited: {process.communicate()[1].strip()}'
                    )
            if time.monotonic() > deadline:
                sys.exit('no message on every topic within 60 s')
            time.sleep(0.01)
        startup = time.monotonic() - begin
        time.sleep(warmup)
        watched = [psutil.Process(p.pid) for p in processes]
        start = time.monotonic()
        cpu_start = sum(sum(w.cpu_times()[:2]) for w in watched)
        time.sleep(seconds)
        end = time.monotonic()
        cpu = sum(sum(w.cpu_times()[:2]) for w in watched) - cpu_start
        memory = [w.memory_full_info() for w in watched]
    finally:
        for process in processes:
            process.send_signal(2)
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
    mib = 1024.0 * 1024.0
    return Run(
        startup=startup,
        rates={t: c.rate(start, end) for t, c in counters.items()},
        cpu=cpu / (end - start),
        rss=sum(m.rss for m in memory) / mib,
        uss=sum(m.uss for m in memory) / mib,
    )


def main() -> int:
    """Run both arrangements, alternating, and print the figures and their ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        '--seconds', type=float, default=10.0, help='measuring window, s (default 10)'
    )
    parser.add_argument(
        '--warmup',
        type=float,
        default=2.0,
        help='seconds ignored after every topic publishes (default 2)',
    )
    parser.add_argument(
        '--repeats', type=int, default=1, help='runs of each arrangement, alternating'
    )
    parser.add_argument(
        '--rays',
        type=int,
        default=0,
        help='sonar rays per ping; default: config/demo_robot.yaml (500)',
    )
    options = parser.parse_args()
    robot = yaml.safe_load(CONFIG.read_text())['/**']['ros__parameters']
    rays = options.rays or robot['rays']
    os.environ.setdefault('ROS_DOMAIN_ID', str(random.randint(101, 199)))
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')

    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from sensor_msgs import msg as sensor_msgs

    rclpy.init()
    node = rclpy.create_node('bench_processes')
    counters = {
        topic: TopicCounter(node, getattr(sensor_msgs, kind), topic)
        for topic, (kind, _) in TOPICS.items()
    }
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    spinning = spin_in_thread(executor)
    runs: dict[str, list[Run]] = {name: [] for name in arrangements(rays)}
    try:
        for _ in range(options.repeats):
            for name, commands in arrangements(rays).items():
                runs[name].append(measure(commands, counters, options.seconds, options.warmup))
                time.sleep(1.0)  # let the stopped processes leave the DDS graph
    finally:
        rclpy.try_shutdown()
        spinning.join(timeout=5.0)
        executor.shutdown(timeout_sec=1.0)
        node.destroy_node()

    def median(name: str, field: str) -> float:
        return statistics.median(getattr(r, field) for r in runs[name])

    def rate(name: str, topic: str) -> float:
        return statistics.median(r.rates[topic] for r in runs[name])

    print(
        f'demo robot in the box room, {rays} sonar rays; {options.seconds:g} s window after '
        f'{options.warmup:g} s warm-up, {options.repeats} run(s) each; {os.cpu_count()} cores, '
        f'{psutil.virtual_memory().total / 2**30:.1f} GiB'
    )
    header = ''.join(
        f'{t.split("/")[0] + f" {asked:g} Hz":>22}' for t, (_, asked) in TOPICS.items()
    )
    print(f'{"arrangement":<16}{header}{"CPU s/s":>9}{"RSS MiB":>9}{"USS MiB":>9}{"start s":>9}')
    for name in runs:
        rates = ''.join(f'{rate(name, t):>19.2f} Hz' for t in TOPICS)
        print(
            f'{name:<16}{rates}{median(name, "cpu"):>9.3f}{median(name, "rss"):>9.0f}'
            f'{median(name, "uss"):>9.0f}{median(name, "startup"):>9.2f}'
        )
    together, apart = 'one process', 'one per sensor'
    ratios = {
        field: median(apart, field) / median(together, field)
        for field in ('cpu', 'rss', 'uss', 'startup')
    }
    print(
        f'one per sensor / one process: CPU {ratios["cpu"]:.2f}x, RSS {ratios["rss"]:.2f}x, '
        f'USS {ratios["uss"]:.2f}x, start-up {ratios["startup"]:.2f}x'
    )
    return 0


if __name__ == '__main__':
    sys.exit(main())
