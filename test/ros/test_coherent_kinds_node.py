"""``<device>/baseband`` of the sweep, the single beam and the echosounder over real DDS.

Each node runs the coherent model (``echo_model: coherent``, ``publish_baseband: true``) and
publishes, per ping (a sweep: per step), a ``RawSonarImage`` decoded here by the layout of
docs/coherent.md: float32 pairs, sample-major (``samples x beams x (re, im)``), ``sample_rate``
``c / (2 delta)``. Closed form checked against the same ping's other message: the energy of a
bin's samples, ``sum |s|^2``, is the bin's intensity (the sweep's and the single beam's
``SonarPoint.profile``); for the echosounder, the first run of bins within
``detection_threshold_db`` of the peak (docs/echosounder.md) sums to the detection's
intensity and its energy-weighted centre ``r`` gives the two-way time ``2 r / c``. The bins
hold the compressed pulse filtered whole, the samples the pulse cut at its support
(docs/coherent.md#the-stored-sample): the samples read through the filter give the bins
but for the cut's share, a few per cent.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ranger_scenes import ACOUSTICS, MAX_RANGE, C, wall_scene
from ros_helpers import Probe, in_step, running
from test_coherent_node import baseband, reliable
from test_echosounder_node import ANGLES, BEAMS
from test_echosounder_node import parameters as sounder_parameters
from test_echosounder_node import scene as sounder_scene
from test_projected_image import first_static, latched, rotation_of

from nps_sonar_py.echo.matched_filter import bin_intensity, pulse_share
from nps_sonar_py.echo.pulse import Pulse, PulseKind, kernel_table

pytestmark = pytest.mark.ros

BINS = ACOUSTICS['range_bins']  # 1900 bins of 5 mm over 0.5 .. 10 m
PER_BIN = 2
COHERENT = {
    'echo_model': 'coherent',
    'publish_baseband': True,
    'bandwidth': 30e3,  # c / (2 B) = 2.5 cm
    'sample_rate': C / (2.0 * (MAX_RANGE - 0.5) / BINS / PER_BIN),  # two samples a bin
}


def by_stamp(probe: Probe, topics: tuple[str, str], node: Any) -> list[tuple[Any, Any]]:
    """Pairs of messages of the same ping (same stamp) on the two topics."""
    window = in_step(probe, topics, node)
    first, second = window[topics[0]], window[topics[1]]
    return [(first[s], second[s]) for s in sorted(set(first) & set(second))]


def axes_in_body(message: Any, static: Any, parent: str) -> np.ndarray:
    """``(beams, 3)`` beam axes ``(sin tx, sin rx, cos rx cos tx)`` turned into ``parent``.

    By the message's frame on ``/tf_static`` (a rotation under ``parent``).
    """
    frames = {t.child_frame_id: t for t in static.transforms}
    frame = frames[message.header.frame_id]
    assert frame.header.frame_id == parent
    tx, rx = np.asarray(message.tx_angles), np.asarray(message.rx_angles)
    axes = np.stack([np.sin(tx), np.sin(rx), np.cos(rx) * np.cos(tx)], axis=1)
    turned: np.ndarray = axes @ rotation_of(frame.transform.rotation).T
    return turned


def bin_energy(message: Any, bins: int, pulse: Pulse) -> np.ndarray:
    """``(beams, bins)`` each bin's stored sample of the samples, by the documented layout.

    The output in the bin rate's band at the bin's centre, over the share of ``pulse``'s
    energy in that band (docs/coherent.md#the-stored-sample).
    """
    samples = baseband(message)  # (samples, beams)
    per_bin = message.samples_per_beam // bins
    assert per_bin * bins == message.samples_per_beam
    share = pulse_share(kernel_table(pulse, 1.0 / message.sample_rate), per_bin)
    return bin_intensity(samples.T, per_bin, share)


def check_single_beam(message: Any, point: Any, azimuth: float) -> None:
    """One beam at ``azimuth`` in ``head_acoustic``; its bins' energy is the point's profile."""
    assert message.header.frame_id == 'head_acoustic'
    assert message.image.beam_count == 1
    assert message.samples_per_beam == PER_BIN * BINS
    assert message.sample_rate == pytest.approx(COHERENT['sample_rate'], rel=1e-6)
    assert message.sample0 == round(0.5 / ((MAX_RANGE - 0.5) / BINS / PER_BIN))
    assert list(message.rx_angles) == pytest.approx([-azimuth], abs=1e-6)
    energy = bin_energy(message, BINS, Pulse(PulseKind.CHIRP, 1e-3, COHERENT['bandwidth']))[0]
    profile = np.asarray(point.profile, dtype=np.float64)
    assert profile.max() > 0.0
    # The profile is the compressed pulse filtered whole, the samples it cut at its support
    # (docs/coherent.md#the-stored-sample): the samples read through the filter differ by
    # the cut's share.
    assert float(np.linalg.norm(energy - profile) / np.linalg.norm(profile)) < 0.05
    assert float(energy.sum()) == pytest.approx(point.intensity, rel=0.02)
    # Negative control: the energy of a bin's first sample alone is not the profile, by the
    # measure and bound of the check above.
    alone = np.abs(baseband(message)[::PER_BIN, 0]) ** 2
    assert float(np.linalg.norm(alone - profile) / np.linalg.norm(profile)) > 0.05


def head_pings(
    tmp_path: Path, probe: Probe, node_name: str, **more: Any
) -> tuple[list[tuple[Any, Any]], Any]:
    """The (``head/baseband``, ``head/sonar_point``) pairs of ``node_name`` over the wall
    scene (2000 rays, coherent, ``more`` parameters besides) and its first static transforms."""
    from marine_acoustic_msgs.msg import RawSonarImage
    from tf2_msgs.msg import TFMessage

    from nps_sonar.msg import SonarPoint

    probe.subscribe(RawSonarImage, 'head/baseband', reliable())
    probe.subscribe(SonarPoint, 'head/sonar_point', reliable())
    probe.subscribe(TFMessage, '/tf_static', latched())
    robot, world = wall_scene(tmp_path)
    parameters = {
        'robot_description_file': robot,
        'scene_file': world,
        **more,
        'rays': 2000,
        **ACOUSTICS,
        **COHERENT,
    }
    with running(node_name, parameters) as node:
        pairs = by_stamp(probe, ('head/baseband', 'head/sonar_point'), node)
        static = first_static(probe, node)
    return pairs, static


def test_a_sweep_publishes_each_step_s_beam(tmp_path: Path, probe: Probe) -> None:
    pairs, static = head_pings(
        tmp_path,
        probe,
        'scanning_sonar_node',
        min_angle=-math.pi / 6,
        max_angle=math.pi / 6,
        step=math.radians(15.0),
    )
    for message, point in pairs:
        check_single_beam(message, point, point.azimuth)
        # The beam's axis is the head's: (cos h, sin h, 0) in the sonar's body frame.
        head = point.azimuth
        np.testing.assert_allclose(
            axes_in_body(message, static, 'head'),
            [[math.cos(head), math.sin(head), 0.0]],
            atol=1e-6,
        )
    assert len({round(point.azimuth, 6) for _, point in pairs}) > 1  # the head turned


def test_a_single_beam_publishes_its_beam(tmp_path: Path, probe: Probe) -> None:
    pairs, static = head_pings(tmp_path, probe, 'sonar_node')
    for message, point in pairs:
        check_single_beam(message, point, 0.0)
    # Its axis is the sonar's x.
    axes = axes_in_body(pairs[0][0], static, 'head')
    np.testing.assert_allclose(axes, [[1.0, 0.0, 0.0]], atol=1e-9)
    # A static scene: every ping the same, bit for bit.
    assert all(bytes(m.image.data) == bytes(pairs[0][0].image.data) for m, _ in pairs)


def first_run(energy: np.ndarray, threshold_db: float) -> tuple[np.ndarray, np.ndarray]:
    """Per beam, the mask of the first contiguous bins within ``threshold_db`` of the peak."""
    above = energy >= energy.max(axis=1, keepdims=True) * 10.0 ** (threshold_db / 10.0)
    first = np.argmax(above, axis=1)
    run = np.zeros_like(above)
    for beam, start in enumerate(first):
        end = start
        while end + 1 < above.shape[1] and above[beam, end + 1]:
            end += 1
        run[beam, start : end + 1] = True
    return run, first


def test_an_echosounder_publishes_every_beam(tmp_path: Path, probe: Probe) -> None:
    from marine_acoustic_msgs.msg import RawSonarImage, SonarDetections
    from tf2_msgs.msg import TFMessage

    probe.subscribe(RawSonarImage, 'mbes/baseband', reliable())
    probe.subscribe(SonarDetections, 'mbes/detections', reliable())
    probe.subscribe(TFMessage, '/tf_static', latched())
    robot, world = sounder_scene(tmp_path)
    bins = 590  # 5 cm over the sensor's 0.5 .. 30 m
    parameters = sounder_parameters(
        robot,
        world,
        detection_time='amplitude',
        bandwidth=15e3,
        sample_rate=C / (2.0 * 0.025),  # two samples a bin
        echo_model='coherent',
        publish_baseband=True,
    )
    with running('scanning_sonar_node', parameters) as node:
        pairs = by_stamp(probe, ('mbes/baseband', 'mbes/detections'), node)
        static = first_static(probe, node)
    message, found = pairs[-1]
    # Beam j's axis is (0, sin a_j, -cos a_j) in the sensor frame (docs/echosounder.md).
    expected = np.stack([np.zeros(BEAMS), np.sin(ANGLES), -np.cos(ANGLES)], axis=1)
    np.testing.assert_allclose(axes_in_body(message, static, 'mbes'), expected, atol=1e-6)
    assert message.header.frame_id == 'mbes_frd'  # as the detections
    assert message.image.beam_count == BEAMS
    assert message.samples_per_beam == 2 * bins
    assert message.sample_rate == pytest.approx(C / (2.0 * 0.025), rel=1e-6)
    assert list(message.rx_angles) == pytest.approx(list(found.rx_angles), abs=1e-6)
    assert list(message.rx_angles) == pytest.approx(list(-ANGLES), abs=1e-6)
    energy = bin_energy(message, bins, Pulse(PulseKind.CHIRP, 2e-4, 15e3))
    run, _ = first_run(energy, -10.0)
    intensity = np.where(run, energy, 0.0).sum(axis=1)
    # The samples read through the filter are the profiles but for the pulse's cut (above):
    # here, the chirp's band the bin rate, 2 % on the median beam, up to 15 %.
    found_intensity = np.asarray(found.intensities)
    error = np.abs(intensity / found_intensity - 1.0)
    centres = 0.5 + (np.arange(bins) + 0.5) * 0.05
    r = np.where(run, energy, 0.0) @ centres / intensity
    times = np.asarray(found.two_way_travel_times)
    assert float(np.median(error)) < 0.05
    assert float(error.max()) < 0.25
    np.testing.assert_allclose(times, 2.0 * r / C, rtol=1e-3)
    # Control: the centres one bin (5 cm) off are rejected by that bound.
    assert not np.allclose(times, 2.0 * (r + 0.05) / C, rtol=1e-3, atol=0.0)
    # Negative control: the strongest bin's energy alone is not the detection's intensity.
    alone = np.abs(energy.max(axis=1) / found_intensity - 1.0)
    assert float(np.median(alone)) > 0.2  # 0.47
