"""A run-time change of a sonar node's settings reaches its output (``DeviceNode._apply_pending``).

After an accepted change the node makes a new output of the new device and switches; it must
publish on the publishers of the one it replaces (``ros/context.Publishers``), not on new ones
beside them. Over real DDS: a switch turned off stops its topic from the next ping on, and
turned on again resumes it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from ros_helpers import nanoseconds, running, set_parameters, stamped_after

pytestmark = pytest.mark.ros


@pytest.fixture
def sonar_node() -> Iterator[Any]:
    """A sonar node of 100 rays in this process, not spinning: the test makes its calls."""
    import rclpy
    from rclpy.parameter import Parameter

    from nps_sonar_py.ros.sonar_node import SonarNode

    context = rclpy.context.Context()
    rclpy.init(context=context)
    node = None
    try:
        node = SonarNode(context=context, parameter_overrides=[Parameter('rays', value=100)])
        yield node
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.shutdown(context=context)


def test_a_new_output_serves_the_new_device_on_the_old_publishers(sonar_node: Any) -> None:
    from rclpy.parameter import Parameter

    node = sonar_node
    before, publishers = node.outputs, list(node.publishers)
    results = node.set_parameters(
        [Parameter('rays', value=200), Parameter('publish_scan', value=False)]
    )
    assert all(r.successful for r in results), [r.reason for r in results]
    node.tick()  # applies the change, then pings and publishes
    assert node.outputs is not before
    # A single beam's outputs: its messages, then its baseband (ros/outputs.py, PARTS).
    (after, baseband), (old, _) = node.outputs.parts, before.parts
    assert after.device is node.rig.device
    assert after.device.n_rays == 200
    assert not after.topics.publish_scan
    assert after.range is old.range
    assert after.scan is old.scan
    assert after.sonar_point is old.sonar_point
    assert baseband.device is node.rig.device
    assert list(node.publishers) == publishers


def test_a_switch_changed_at_run_time_stops_and_resumes_its_topic(receiver) -> None:
    from sensor_msgs.msg import LaserScan, Range

    ranges = receiver(Range, 'sonar/range')
    scans = receiver(LaserScan, 'sonar/scan')
    with running('sonar_node', {'rays': 100, 'update_rate': 20.0}) as node:
        scans.wait_for(1, process=node)
        result = set_parameters(ranges, '/sonar', {'publish_scan': False})
        assert result[0].successful, result[0].reason
        # The change applies at the next ping: every ping stamped after the answer came is
        # without its scan, however many older ones were still on their way.
        off = time.time_ns()
        stamped_after(ranges, ranges.topic, node, off, count=5)
        with scans.lock:
            late = [s for s in scans.messages if nanoseconds(s.header.stamp) >= off]
        assert late == []  # a scan and a range of one ping share its stamp

        result = set_parameters(ranges, '/sonar', {'publish_scan': True})
        assert result[0].successful, result[0].reason
        # a scan read before the switch went off may still be on its way: skip those
        resumed = stamped_after(scans, scans.topic, node, off, count=2)
        assert all(nanoseconds(s.header.stamp) > off for s in resumed)
        assert node.poll() is None
