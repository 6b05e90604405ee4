"""The coherent echo model in the scanning node over real DDS (docs/coherent.md).

A side-scan (mode sidescan) over the flat seabed and box of ``test_sidescan_node`` with
``echo_model: coherent`` and ``publish_baseband: true``: ``<device>/baseband`` carries the
complex baseband, decoded here by its documented layout (float32 pairs, sample-major: the real
then the imaginary part of sample ``j`` of beam ``b`` at byte ``8 (j beam_count + b)``); the
energy of its samples per range bin is the raw image's intensity (``raw_image_dtype
float32``, linear), and a static scene gives the same baseband every ping.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from ros_helpers import Probe, executable, exit_line, ros_args, running, set_parameters
from test_sidescan_node import BINS, MAX_RANGE, MIN_RANGE, C, decode, parameters, reliable, world

from nps_sonar_py.echo.matched_filter import bin_intensity

pytestmark = pytest.mark.ros


def coherent(scene: str, **more: Any) -> dict[str, Any]:
    """The side-scan of ``test_sidescan_node`` with the coherent model, no speckle option."""
    chosen: dict[str, Any] = {
        'speckle': False,
        'echo_model': 'coherent',
        'publish_baseband': True,
        'raw_image_dtype': 'float32',
        'bandwidth': 15e3,  # c / (2 B) = 5 cm, about half a bin: two samples per bin
    }
    return parameters(scene, **{**chosen, **more})


def baseband(message: Any) -> np.ndarray:
    """The ``(samples, beams)`` complex samples of a baseband image, by the documented layout."""
    assert message.image.dtype == 8  # DTYPE_FLOAT32
    assert message.image.is_bigendian is False
    data = np.frombuffer(bytes(message.image.data), dtype='<f4')
    assert data.size == 2 * message.samples_per_beam * message.image.beam_count
    pairs = data.reshape(message.samples_per_beam, message.image.beam_count, 2)
    return pairs[..., 0] + 1j * pairs[..., 1]


def test_baseband_layout_energy_and_a_still_scene(tmp_path: Path, probe: Probe) -> None:
    from marine_acoustic_msgs.msg import RawSonarImage

    probe.subscribe(RawSonarImage, 'sidescan/baseband', reliable())
    probe.subscribe(RawSonarImage, 'sidescan/raw_image', reliable())
    with running('scanning_sonar_node', coherent(world(tmp_path))) as node:
        bases = probe.wait('sidescan/baseband', 4, node)
        raws = probe.wait('sidescan/raw_image', 4, node)
    first = bases[0]
    assert first.header.frame_id == 'sidescan_frd'  # as the raw image
    assert list(first.rx_angles) == pytest.approx(list(raws[-1].rx_angles))
    assert first.image.beam_count == 2
    per_bin = first.samples_per_beam // BINS
    assert per_bin * BINS == first.samples_per_beam
    spacing = (MAX_RANGE - MIN_RANGE) / BINS / per_bin
    assert first.sample_rate == pytest.approx(C / (2 * spacing), rel=1e-6)
    # A still scene: every ping is the same, so any raw image goes with any baseband.
    raw = raws[-1]
    samples = baseband(first)
    # Each bin stores the output in the bin rate's band at its centre, over the share of the
    # pulse's energy in that band (docs/coherent.md#the-stored-sample): one factor for all,
    # the filter's integral of |H|**2, half the bin rate, over the chirp's flat band (the
    # kept lobes spread it a little). The bins are the compressed pulse filtered whole, the
    # samples it cut at its support: read through the filter, they differ from the bins by
    # the cut's share of the speckle (about 8 % in the norm over a floor, 0.1 % in the mean).
    stored = bin_intensity(samples.T, per_bin).T
    image = decode(raw)
    lit = (stored > 1e-6 * stored.max()) & (image > 0.0)
    share = float(np.median(stored[lit] / image[lit]))
    assert share == pytest.approx(0.5 * C / (2.0 * spacing * per_bin) / 15e3, rel=0.15)
    assert float(np.linalg.norm(stored / share - image) / np.linalg.norm(image)) < 0.15
    assert stored.max() > 0.0
    # Control: the energy of a bin's samples (the model before issue 34) is no stored sample,
    # even scaled as the bins are above (by its median ratio to the image; 0.58 here).
    sums = (np.abs(samples) ** 2).reshape(BINS, per_bin, -1).sum(axis=1)
    fit = float(np.median(sums[lit] / image[lit]))
    assert float(np.linalg.norm(sums / fit - image) / np.linalg.norm(image)) > 0.3
    # A static scene and pose: every ping's baseband is the same, bit for bit.
    assert all(bytes(b.image.data) == bytes(first.image.data) for b in bases[1:])
    # The speckle is there: the seabed's samples scatter (an incoherent profile is smooth).
    seabed = np.abs(samples[:, 1]) ** 2
    lit = seabed[seabed > 0.0]
    assert float(np.std(lit[len(lit) // 2 :]) / np.mean(lit[len(lit) // 2 :])) > 0.5


def test_a_chirp_wider_than_the_carrier_is_refused_in_one_line(tmp_path: Path) -> None:
    command = [
        executable('scanning_sonar_node'),
        *ros_args(coherent(world(tmp_path), frequency=100e3, bandwidth=300e3)),
    ]
    line = exit_line(command)
    assert 'bandwidth' in line
    assert 'wider than the carrier' in line


def test_seabed_images_not_a_bool_stops_the_node_and_is_read_only_at_run_time(
    tmp_path: Path, probe: Probe
) -> None:
    """``seabed_images`` given as a string in a parameter file stops the node in one line
    naming it; while the node runs, a change (false, or a string) is refused with the reason
    and the node pings on with it on (the control: the same file with ``true`` runs)."""
    from marine_acoustic_msgs.msg import RawSonarImage

    def parameter_file(value: object) -> list[str]:
        path = tmp_path / 'images.yaml'
        values = coherent(world(tmp_path), seabed_images=value)
        path.write_text(yaml.safe_dump({'/**': {'ros__parameters': values}}))
        return ['--ros-args', '--params-file', str(path)]

    line = exit_line([executable('scanning_sonar_node'), *parameter_file('yes')])
    assert 'seabed_images' in line, line
    probe.subscribe(RawSonarImage, 'sidescan/raw_image', reliable())
    with running('scanning_sonar_node', extra=parameter_file(True)[1:]) as node:
        probe.wait('sidescan/raw_image', 1, node)
        results = [
            set_parameters(probe, 'scanning_sonar', {'seabed_images': value})[0]
            for value in (False, 'no')
        ]
        count = probe.count('sidescan/raw_image')
        probe.wait('sidescan/raw_image', count + 2, node)  # still pinging
    for result in results:
        assert not result.successful
        assert 'seabed_images' in result.reason, result.reason
        assert '\n' not in result.reason
