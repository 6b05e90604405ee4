"""The scanning sonar node in mode echosounder over real DDS, above a flat seabed.

The transducer is at the world origin, its body frame the world's (x forward, z up); the
seabed's top face is the plane z = -D. Beam ``b`` points at ``a_b`` from nadir, positive to
port: with the axis detection (``detection_time: axis``) its two-way time is
``2 D / (C cos a_b)`` and its sounding ``(0, D tan a_b, -D)`` in the sensor frame, to float32.
The cloud's layout is the one ``ros/soundings.py`` documents: x, y, z, intensity float32 at
0, 4, 8, 12; beam uint16 at 16; quality uint8 at 18; 20 bytes a point.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ros_helpers import Probe, executable, exit_line, in_step, ros_args, running

pytestmark = pytest.mark.ros

D, C = 10.0, 1500.0
BEAMS, FIRST, LAST = 21, -1.0, 1.0
ANGLES = np.linspace(FIRST, LAST, BEAMS)
FLOAT32, UINT16, UINT8 = 7, 4, 2  # PointField datatypes


def scene(tmp_path: Path, width: float = 200.0) -> tuple[str, str]:
    robot = tmp_path / 'mbes.urdf'
    robot.write_text("""<robot name="mbes">
  <link name="base_link"/>
  <sensor name="mbes" type="sonar" update_rate="20">
    <parent link="base_link"/><origin rpy="-1.5707963267948966 0 -1.5707963267948966"/>
    <sonar min="0.5" max="30" radius="0.5"/>
  </sensor>
</robot>""")
    world = tmp_path / 'bed.world'
    world.write_text(f"""<world name="bed">
  <model name="bed"><robot name="bed"><link name="bed"><collision>
    <origin xyz="0 0 {-D - 0.1}"/><geometry><box size="200 {width} 0.2"/></geometry>
  </collision></link></robot></model>
</world>""")
    return str(robot), str(world)


def parameters(robot: str, world: str, **more: Any) -> dict[str, Any]:
    return {
        'robot_description_file': robot,
        'scene_file': world,
        'mode': 'echosounder',
        'swath_beams': BEAMS,
        'swath_min_angle': FIRST,
        'swath_max_angle': LAST,
        'rays_across_track': 15,
        'rays_along_track': 3,
        'detection_time': 'axis',
        'absorption': 'none',
        'sound_speed': C,
        'range_bins': 590,
        'pulse_duration': 2e-4,
        **more,
    }


def reliable() -> Any:
    from rclpy.qos import QoSProfile, ReliabilityPolicy

    return QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE)


def paired(probe: Probe, node: Any) -> tuple[Any, Any]:
    """The latest soundings cloud and the detections of the same ping."""
    window = in_step(probe, ('mbes/soundings', 'mbes/detections'), node)
    clouds, detections = window['mbes/soundings'], window['mbes/detections']
    stamp = max(set(clouds) & set(detections))
    return clouds[stamp], detections[stamp]


def test_soundings_and_detections_of_a_flat_seabed(tmp_path: Path, probe: Probe) -> None:
    from marine_acoustic_msgs.msg import DetectionFlag, SonarDetections
    from sensor_msgs.msg import PointCloud2

    probe.subscribe(PointCloud2, 'mbes/soundings', reliable())
    probe.subscribe(SonarDetections, 'mbes/detections', reliable())
    robot, world = scene(tmp_path)
    with running('scanning_sonar_node', parameters(robot, world)) as node:
        cloud, found = paired(probe, node)

    fields = [(f.name, f.offset, f.datatype, f.count) for f in cloud.fields]
    assert fields == [
        ('x', 0, FLOAT32, 1),
        ('y', 4, FLOAT32, 1),
        ('z', 8, FLOAT32, 1),
        ('intensity', 12, FLOAT32, 1),
        ('beam', 16, UINT16, 1),
        ('quality', 18, UINT8, 1),
    ]
    assert cloud.header.frame_id == 'mbes'
    assert (cloud.height, cloud.width, cloud.point_step) == (1, BEAMS, 20)
    assert cloud.row_step == 20 * BEAMS
    assert len(cloud.data) == 20 * BEAMS
    assert cloud.is_bigendian is False
    points = np.frombuffer(
        bytes(cloud.data),
        dtype=np.dtype(
            {
                'names': ['x', 'y', 'z', 'intensity', 'beam', 'quality'],
                'formats': ['<f4', '<f4', '<f4', '<f4', '<u2', 'u1'],
                'offsets': [0, 4, 8, 12, 16, 18],
                'itemsize': 20,
            }
        ),
    )
    assert points['beam'].tolist() == list(range(BEAMS))
    np.testing.assert_allclose(points['x'], 0.0, atol=1e-4)
    np.testing.assert_allclose(points['y'], D * np.tan(ANGLES), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(points['z'], -D, rtol=1e-5)
    assert np.all(points['quality'] == 2)
    assert np.all(points['intensity'] > 0.0)

    assert found.header.frame_id == 'mbes_frd'  # x forward, y starboard, z down
    np.testing.assert_allclose(found.two_way_travel_times, 2 * D / (C * np.cos(ANGLES)), rtol=1e-6)
    # The definition's rx angle is positive to starboard: the port-positive beam angle negated.
    np.testing.assert_allclose(found.rx_angles, -ANGLES, rtol=1e-6)
    assert list(found.tx_angles) == [0.0] * BEAMS
    assert list(found.tx_delays) == [0.0] * BEAMS
    np.testing.assert_allclose(found.intensities, points['intensity'], rtol=1e-6)
    assert [f.flag for f in found.flags] == [DetectionFlag.DETECT_OK] * BEAMS
    assert found.ping_info.sound_speed == pytest.approx(C)
    assert list(found.ping_info.rx_beamwidths) == pytest.approx([math.radians(1.0)])


def test_beams_off_the_seabed_are_flagged_and_left_out(tmp_path: Path, probe: Probe) -> None:
    from marine_acoustic_msgs.msg import DetectionFlag, SonarDetections
    from sensor_msgs.msg import PointCloud2

    probe.subscribe(PointCloud2, 'mbes/soundings', reliable())
    probe.subscribe(SonarDetections, 'mbes/detections', reliable())
    # a bed 20 m wide: the axes of the beams |a| >= 0.8 rad (D tan a > 10.29 m) miss it
    robot, world = scene(tmp_path, width=20.0)
    with running('scanning_sonar_node', parameters(robot, world)) as node:
        cloud, found = paired(probe, node)
    hit = np.abs(ANGLES) < 0.75
    beams = np.frombuffer(bytes(cloud.data), dtype='<u2').reshape(-1, 10)[:, 8]
    assert cloud.width == int(hit.sum())
    assert beams.tolist() == np.flatnonzero(hit).tolist()
    flags = np.array([f.flag for f in found.flags])
    assert np.all(flags[hit] == DetectionFlag.DETECT_OK)
    assert np.all(flags[~hit] == DetectionFlag.DETECT_BAD_SONAR)
    times = np.array(found.two_way_travel_times)
    assert np.all(np.isnan(times[~hit]))
    assert np.all(np.array(found.intensities)[~hit] == 0.0)


SURFACE, C0, G = 5.0, 1519.25, -0.15  # c(z) = 1520 - 0.15 z below a surface 5 m above


def arc_time(depression: np.ndarray) -> np.ndarray:
    """One-way time of the arc from the transducer to the bed D below, c = C0 + G (z - 5).

    ``cos b = p c``, ``dt = -db / (G cos b)``: ``t = (1/G) [ln tan(pi/4 + b/2)]_{b1}^{b0}``;
    straight down ``t = ln(c(D) / C0) / G``.
    """
    vertical = np.abs(depression - math.pi / 2) < 1e-12
    b0 = np.where(vertical, 1.0, depression)
    b1 = np.arccos(np.cos(b0) / C0 * (C0 + G * D))
    t = (np.log(np.tan(math.pi / 4 + b0 / 2)) - np.log(np.tan(math.pi / 4 + b1 / 2))) / G
    return np.where(vertical, math.log((C0 + G * D) / C0) / G, t)


@pytest.mark.parametrize('processing', [0.0, 1500.0])
def test_refraction_and_the_processing_speed(
    tmp_path: Path, probe: Probe, processing: float
) -> None:
    from marine_acoustic_msgs.msg import SonarDetections
    from sensor_msgs.msg import PointCloud2

    probe.subscribe(PointCloud2, 'mbes/soundings', reliable())
    probe.subscribe(SonarDetections, 'mbes/detections', reliable())
    robot, world = scene(tmp_path)
    water = {
        'sound_speed_profile': [0.0, 1520.0, 200.0, 1490.0],
        'sea_surface_z': SURFACE,
        'processing_sound_speed': processing,
    }
    with running('scanning_sonar_node', parameters(robot, world, **water)) as node:
        cloud, found = paired(probe, node)
    t = arc_time(math.pi / 2 - np.abs(ANGLES))
    np.testing.assert_allclose(found.two_way_travel_times, 2.0 * t, rtol=1e-6)
    z = np.frombuffer(bytes(cloud.data), dtype='<f4').reshape(-1, 5)[:, 2]
    if processing == 0.0:  # the true profile: the bed's depth
        np.testing.assert_allclose(z, -D, rtol=1e-5)
    else:  # straight rays at 1500 m/s: depth 1500 t cos a, a frown growing outwards
        np.testing.assert_allclose(z, -processing * t * np.cos(ANGLES), rtol=1e-5)
        assert abs(z[0] + D) > 0.01 * D


def test_bad_settings_stop_the_node_with_one_line(tmp_path: Path) -> None:
    robot, world = scene(tmp_path)
    command = [
        executable('scanning_sonar_node'),
        *ros_args(parameters(robot, world, processing_profile_file=str(tmp_path / 'none.csv'))),
    ]
    line = exit_line(command)
    assert 'none.csv' in line, line
    command = [
        executable('scanning_sonar_node'),
        *ros_args(parameters(robot, world, detection_threshold_db=3.0)),
    ]
    line = exit_line(command)
    assert 'detection_threshold_db' in line, line


@pytest.mark.parametrize(
    ('more', 'words'),
    [
        # A choice nobody checked was a 40-line ValueError traceback and status 1.
        ({'detection_time': 'peak'}, "detection_time must be amplitude or axis, got 'peak'"),
        # Accepted and never published, it misled: refused by the kind, naming its default.
        (
            {'publish_projected_image': True},
            'mode echosounder does not use publish_projected_image: ',
        ),
        # Multipath through a profile ended the node at its first ping (a TypeError).
        (
            {'sound_speed_profile': [0.0, 1520.0, 200.0, 1490.0], 'max_bounces': 1},
            'max_bounces > 0 cannot be combined with a sound-speed profile',
        ),
        # An old parameter file's name: refused with its new one, not ignored in silence.
        ({'pulse_length': 2e-4}, 'pulse_length is now called pulse_duration'),
    ],
    ids=['choice', 'unused', 'multipath-through-a-profile', 'old-name'],
)
def test_a_bad_choice_or_an_unused_setting_stops_the_node_with_one_line(
    tmp_path: Path, more: dict[str, object], words: str
) -> None:
    robot, world = scene(tmp_path)
    command = [executable('scanning_sonar_node'), *ros_args(parameters(robot, world, **more))]
    line = exit_line(command)
    assert words in line, line
