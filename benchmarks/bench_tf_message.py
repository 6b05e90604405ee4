"""What one large ``/tf`` message costs a sensor node, against one sonar ping, in one run.

For messages of 3, 4,000, 10,000 and 12,000 transforms (10,000 is the most a message may
hold; 12,000 is refused), each a new stamp of the same frames, it prints the median time of:

* ``receive``: what the node does with the bytes before the check: ``ros/tf_reader.py``
  reads them into arrays (before the fix: rclpy's deserialisation into message objects);
* ``check``: ``message_checks.tf_message_problem``;
* ``add``: the check and ``TransformBuffer.add`` into a buffer that holds these frames
  already;
* ``total``: all three, as one message costs the node's executor;
* ``rclpy``: rclpy's deserialisation of the same bytes, for comparison (what the node paid
  before it subscribed raw);
* ``lookup``: the root link in the world frame (a chain of 3) in a buffer of those frames;

and the ratio of ``total`` to one ping of the default sonar (500 rays, ``rig.read``, timed in
the same run): while a message is read the timer waits, so a ratio of 10 holds a 15 Hz sonar
up for about ten pings' worth of time; and ``total`` in periods of a 15 Hz sonar (1 or more:
the message costs the node at least one ping). Run it in the project's environment:
``scripts/run python benchmarks/bench_tf_message.py [--repeat N]``.

Measured on the 2-core development machine (shared, so the absolute times wander; compare
within a run), 10,000 transforms:

=========================  =========  ========  ========  =========  ==========  =======
                           receive    check     add       total      rclpy       periods
=========================  =========  ========  ========  =========  ==========  =======
before (rclpy objects)     304 ms     30 ms     77 ms     408 ms     (= receive)  6.1
after (raw, layout kept)   2.8 ms     8.3 ms    32 ms     43 ms      583 ms      0.64
=========================  =========  ========  ========  =========  ==========  =======

Before, a 15 Hz sonar lost about six pings to each such message (the issue's drop to ~5 Hz);
after, under one period, about 14 times less than rclpy's deserialisation alone in the same
run. 4,000 transforms: 217 ms (3.3 periods) before, 16 ms (0.25) after. 12,000 transforms
are refused on their count before anything is read: 366 ms before (rclpy built them all
first), 0.005 ms after. What is left is ``add``: a short step per transform that stores
it. A later run on a busier machine (one ping 0.28 ms instead of 0.18): total 55 ms against
rclpy's 1,242 ms, 0.83 periods.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from geometry_msgs.msg import TransformStamped
from rclpy.serialization import deserialize_message, serialize_message
from tf2_msgs.msg import TFMessage
from timing import median_time, median_times

from nps_sonar_py.devices import Family, Rig, Setup, load_robot_from, reference_world_file
from nps_sonar_py.devices.build import robot_root_pose
from nps_sonar_py.devices.settings import (
    BeamSettings,
    OutputSettings,
    RobotSettings,
    SensorSettings,
)
from nps_sonar_py.devices.transform_buffer import TransformBatch, TransformBuffer
from nps_sonar_py.ros.heap import keep_heap
from nps_sonar_py.ros.message_checks import tf_message_problem
from nps_sonar_py.ros.tf_reader import MessageError, TfReader
from nps_sonar_py.scene import Raycaster, load_world

SIZES = (3, 4_000, 10_000, 12_000)
#: The sonar rate of the issue's report, Hz.
PING_RATE = 15.0


def tf_message(n: int, sec: int) -> bytes:
    """``n >= 2`` transforms stamped ``sec``, serialized, as a large TF tree sends them.

    map -> odom -> base_link, and ``n - 2`` frames hanging from base_link.
    """
    names = [('map', 'odom'), ('odom', 'base_link')]
    names += [('base_link', f'link_{k}') for k in range(n - 2)]
    transforms = []
    for parent, child in names:
        t = TransformStamped(child_frame_id=child)
        t.header.frame_id = parent
        t.header.stamp.sec = sec
        t.transform.translation.x = 0.5
        t.transform.rotation.w = 1.0
        transforms.append(t)
    return bytes(serialize_message(TFMessage(transforms=transforms)))


def message_times(n: int, repeat: int, ping: Callable[[], object]) -> dict[str, float]:
    """Median times of each stage for messages of ``n`` transforms, with a ping interleaved."""
    stream = itertools.cycle([tf_message(n, sec) for sec in range(1, repeat + 3)])
    buffer = TransformBuffer(buffer_seconds=1e6)  # every stamp in the window
    data = next(stream)
    batch: TransformBatch | None = None
    reader = TfReader()  # as a node's subscription holds one

    def receive() -> None:
        nonlocal data, batch
        data = next(stream)
        try:
            batch = reader.read(data)
        except MessageError:  # too many transforms: refused before they are read
            batch = None

    def check() -> None:
        if batch is not None:
            tf_message_problem(batch)

    def add() -> None:
        if batch is not None and tf_message_problem(batch) is None:
            buffer.add(batch, static=False)

    def total() -> None:
        receive()
        add()

    receive()
    add()

    def lookup() -> None:
        with contextlib.suppress(LookupError):  # (a refused message leaves the buffer empty)
            buffer.lookup('map', 'base_link', 10**9)

    return median_times(
        {
            'receive': receive,
            'check': check,
            'add': add,
            'total': total,
            'lookup': lookup,
            'rclpy': lambda: deserialize_message(data, TFMessage),
            'ping': ping,
        },
        repeat,
    )


def main() -> int:
    """Print the stage times per message size and their ratio to one ping."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=7)
    options = parser.parse_args()
    keep_heap()
    raycaster = Raycaster(load_world(reference_world_file()))
    setup = Setup(Family.SONAR, SensorSettings(), OutputSettings(), BeamSettings(rays=500))
    rig = Rig(load_robot_from(RobotSettings()), setup, raycaster, robot_root_pose([0.0] * 6))
    t_ping = median_time(rig.read, options.repeat * 10)
    print(f'one ping of the default sonar (500 rays): {t_ping * 1e3:.3f} ms')
    print(
        f'{"transforms":>10} {"receive":>10} {"check":>10} {"add":>10} {"total":>10} '
        f'{"lookup":>10} {"rclpy":>10} {"total/ping":>10} {"periods":>8}'
    )
    for n in SIZES:
        t = message_times(n, options.repeat, rig.read)
        print(
            f'{n:>10} '
            + ' '.join(
                f'{t[k] * 1e3:>8.3f}ms'
                for k in ('receive', 'check', 'add', 'total', 'lookup', 'rclpy')
            )
            + f' {t["total"] / t["ping"]:>10.1f} {t["total"] * PING_RATE:>8.2f}'
        )
    return 0


if __name__ == '__main__':
    sys.exit(main())
