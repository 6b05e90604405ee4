"""The sonar's echo over real DDS: SonarPoint and the one-element LaserScan on the reference scene.

The expected echo is computed here from the model of ``docs/physics.md#the-model`` on the
analytic cylinder: per ray of the documented cone,
``I_i = B(psi_i)**2 mu cos(alpha_i) dOmega / r_i**2 10**(-2 a r_i / 10)`` with the piston
pattern B = (2 J1(x)/x)**2, x = ka sin(psi), ka = 1.61634 / sin(theta_bw / 2), and the
cylinder's outward normal for alpha. The scene's cylinder is a 64-gon, so normals differ
from the circle's by up to pi/64: intensities are compared to 1 %, ranges to the faceting.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from reference_scene import (
    CONE_HALF_ANGLE as BETA,  # the URDF cone: the -3 dB beam and the cast cone
)
from reference_scene import FACETING, MAX_RANGE, MIN_RANGE, SONAR, cylinder_hits, world_directions
from ros_helpers import messages_after, running, set_parameters, stamped_after
from scipy.special import j1

from nps_sonar_py.sensing import cone_pattern

pytestmark = pytest.mark.ros

N_RAYS = 2000
ABSORPTION = 0.5  # dB/m, one way, set as a fixed absorption so the test states it
BINS = 200
PARAMETERS = {
    'rays': N_RAYS,
    'absorption': 'fixed',
    'absorption_db_per_m': ABSORPTION,
    'update_rate': 20.0,
}


def analytic_echo() -> dict[str, np.ndarray]:
    """Per-ray range, off-axis angle and intensity of the cone on the analytic cylinder."""
    pattern = cone_pattern(BETA, N_RAYS)
    d = world_directions(N_RAYS)
    r, normal = cylinder_hits(SONAR, d)
    cos_alpha = np.abs(np.einsum('ij,ij->i', d, normal))
    psi = pattern.off_axis
    ka = 1.61634 / math.sin(BETA)
    x = ka * np.sin(psi)
    with np.errstate(invalid='ignore', divide='ignore'):
        piston = np.where(x > 1e-12, (2 * j1(x) / x) ** 2, 1.0)
    mu = 255 / 255  # the cylinder's laser_retro 255 read as a perfect Lambertian reflector
    intensity = (
        piston**2 * mu * cos_alpha * pattern.solid_angle / r**2 * 10 ** (-2 * ABSORPTION * r / 10)
    )
    return {'r': r, 'psi': psi, 'intensity': intensity, 'solid_angle': pattern.solid_angle}


@pytest.fixture(scope='module')
def expected() -> dict[str, np.ndarray]:
    return analytic_echo()


def test_sonar_point_and_scan_on_the_reference_scene(receiver, expected) -> None:
    from sensor_msgs.msg import LaserScan

    from nps_sonar.msg import SonarPoint

    points = receiver(SonarPoint, 'sonar/sonar_point')
    scans = receiver(LaserScan, 'sonar/scan')
    with running('sonar_node', PARAMETERS) as node:
        point = points.wait_for(2, process=node)[-1]
        scan = scans.wait_for(2, process=node)[-1]

    total = expected['intensity'].sum()
    assert point.range == pytest.approx(1.750, abs=1e-6)
    assert point.range_estimator == SonarPoint.RANGE_NEAREST
    assert point.intensity == pytest.approx(total, rel=0.01)
    assert point.intensity_db == pytest.approx(10 * math.log10(total), abs=0.05)
    assert point.confidence == pytest.approx(1.0)  # the cylinder fills the beam
    assert point.rays == N_RAYS
    assert (point.min_range, point.max_range) == pytest.approx((MIN_RANGE, MAX_RANGE), rel=1e-6)
    assert point.beam_width == pytest.approx(2 * BETA, rel=1e-6)
    assert point.cast_half_angle == pytest.approx(BETA, rel=1e-6)
    assert point.bin_width == pytest.approx((MAX_RANGE - MIN_RANGE) / BINS, rel=1e-6)
    assert len(point.profile) == len(point.hits) == BINS
    assert sum(point.hits) == N_RAYS
    assert sum(point.profile) == pytest.approx(point.intensity, rel=1e-5)
    # The hits lie between 1.75 m and the farthest ray's range, in the bins that cover them.
    occupied = np.flatnonzero(np.asarray(point.hits))
    first = math.floor((1.75 - MIN_RANGE) / point.bin_width)
    last = math.floor((expected['r'].max() - MIN_RANGE) / point.bin_width)
    assert occupied.min() == first
    assert occupied.max() <= last + 1

    assert len(scan.ranges) == len(scan.intensities) == 1
    assert scan.ranges[0] == pytest.approx(point.range, abs=1e-6)
    assert scan.intensities[0] == pytest.approx(point.intensity, rel=1e-6)
    assert scan.angle_min == pytest.approx(-BETA, rel=1e-6)
    assert scan.angle_max == pytest.approx(BETA, rel=1e-6)
    assert scan.angle_increment == pytest.approx(2 * BETA, rel=1e-6)
    assert scan.scan_time == pytest.approx(1 / 20.0, rel=1e-6)
    assert (scan.range_min, scan.range_max) == pytest.approx((MIN_RANGE, MAX_RANGE), rel=1e-6)
    assert scan.header.frame_id == point.header.frame_id == 'sonar'


def test_range_estimators_changed_at_run_time(receiver, expected) -> None:
    from nps_sonar.msg import SonarPoint

    points = receiver(SonarPoint, 'sonar/sonar_point')
    r, intensity, solid_angle = expected['r'], expected['intensity'], expected['solid_angle']
    bin_width = (MAX_RANGE - MIN_RANGE) / BINS
    with running('sonar_node', PARAMETERS) as node:
        points.wait_for(1, process=node)

        results = set_parameters(points, '/sonar', {'range_estimator': 'mean_in_beam'})
        assert results[0].successful, results[0].reason
        point = stamped_after(points, points.topic, node, time.time_ns())[0]
        assert point.range_estimator == SonarPoint.RANGE_MEAN_IN_BEAM
        # every ray is inside the -3 dB half width here: the solid-angle weighted mean range
        assert point.range == pytest.approx(np.average(r, weights=solid_angle), abs=FACETING)

        set_parameters(points, '/sonar', {'range_estimator': 'intensity_weighted'})
        point = stamped_after(points, points.topic, node, time.time_ns())[0]
        index = np.floor((r - MIN_RANGE) / bin_width).astype(int)
        centres = MIN_RANGE + (np.arange(BINS) + 0.5) * bin_width
        profile = np.bincount(index, weights=intensity, minlength=BINS)
        assert point.range == pytest.approx(
            np.average(centres, weights=profile), abs=0.01 * bin_width
        )

        set_parameters(points, '/sonar', {'range_estimator': 'first_above_threshold'})
        point = stamped_after(points, points.topic, node, time.time_ns())[0]
        assert point.range == pytest.approx(centres[index.min()], abs=1e-5)


def test_an_invalid_change_is_refused_and_the_node_keeps_its_settings(receiver, expected) -> None:
    from nps_sonar.msg import SonarPoint

    points = receiver(SonarPoint, 'sonar/sonar_point')
    with running('sonar_node', PARAMETERS) as node:
        before = points.wait_for(1, process=node)[-1]
        refused = set_parameters(points, '/sonar', {'medium': 'mud'})
        assert not refused[0].successful
        assert 'medium' in refused[0].reason
        # each value alone is valid; together they are not (a Gaussian beam has no null)
        refused = set_parameters(
            points,
            '/sonar',
            {'beam_pattern': 'gaussian', 'cast_limit': 'first_null'},
            atomic=True,
        )
        assert not refused[0].successful
        assert 'no null' in refused[0].reason
        after = messages_after(points, 2)[-1]
        assert node.poll() is None
    assert after.intensity == pytest.approx(before.intensity, rel=1e-6)
    assert after.beam_width == pytest.approx(before.beam_width, rel=1e-9)


def test_outputs_switch_off(receiver) -> None:
    from sensor_msgs.msg import LaserScan, Range

    ranges = receiver(Range, 'sonar/range')
    scans = receiver(LaserScan, 'sonar/scan')
    with running('sonar_node', {**PARAMETERS, 'publish_scan': False}) as node:
        ranges.wait_for(5, process=node)
    assert scans.messages == []
