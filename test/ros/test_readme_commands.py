"""README commands run as written: each launch configuration's line, and the coherent demo.

Each ``scripts/run`` line of a launch configuration (``test/test_device_choices.py`` checks
them against the launch files) runs from the repository's root, as a reader would type it,
until its node's first ``RangerData`` (the Ranger devices) or ``Range`` (the sonar, the demo
robot) arrives. The README's ``scripts/demo --coherent`` line runs with a shorter
``--duration`` and draws both its pictures.
"""

from __future__ import annotations

import re
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import matplotlib.image
import numpy as np
import pytest
import yaml
from ros_helpers import STOP_TIMEOUT
from test_device_choices import REPOSITORY, readme_rows
from test_launch_configurations import _wait_for_topic

from nps_sonar_py.ros.bag_report import SIDE_BY_SIDE_GAP

pytestmark = pytest.mark.ros


@contextmanager
def _started(command: str) -> Iterator[subprocess.Popen[str]]:
    words = shlex.split(command)
    process = subprocess.Popen(
        words, cwd=REPOSITORY, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.communicate(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()


@pytest.mark.parametrize('configuration', sorted(readme_rows()))
def test_the_readme_line_starts_the_node(receiver, configuration: str) -> None:
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import Range

    from nps_sonar.msg import RangerData

    ranger = 'device:=' in configuration
    message_type, type_name = (
        (RangerData, 'nps_sonar/msg/RangerData') if ranger else (Range, 'sensor_msgs/msg/Range')
    )
    probe = receiver(Clock, '/unused_probe')  # a node to look at the graph with
    with _started(readme_rows()[configuration]) as node:
        topic = _wait_for_topic(probe, type_name, node)
        message = receiver(message_type, topic).wait_for(1, process=node)[-1]
        assert node.poll() is None
    assert len(message.ranges) > 0 if ranger else message.range > 0.0


#: The demo's README line is run this long (s) after the tow starts (the four nodes' start-up,
#: 8 to 17 s here, is not counted): some 50 m of tow, about 100 waterfall lines of the 200.
SHORT_DURATION = '20'


def _readme_demo_line(option: str) -> list[str]:
    """The words of the README's ``scripts/demo <option>`` line, without its comment."""
    for line in (REPOSITORY / 'README.md').read_text().splitlines():
        if line.startswith(f'scripts/demo {option} '):
            return shlex.split(line.partition('#')[0])
    raise AssertionError(f'README.md has no line `scripts/demo {option} ...`')


def _with(words: list[str], option: str, value: str) -> list[str]:
    """``words`` with the value after ``option`` replaced by ``value``."""
    at = words.index(option)
    return [*words[: at + 1], value, *words[at + 2 :]]


def _db_per_level(parameters: str) -> float:
    """dB per grey level of the mono8 images of a parameter file (its image_db window)."""
    values = yaml.safe_load((REPOSITORY / 'config' / parameters).read_text())
    values = values['/**']['ros__parameters']
    return (values['image_db_max'] - values['image_db_min']) / 255.0


def _halves(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """The grey levels (0..255) of a side-by-side picture's left and right images."""
    grey = np.rint(matplotlib.image.imread(path)[:, :, 0] * 255.0)
    width = (grey.shape[1] - SIDE_BY_SIDE_GAP) // 2
    assert 2 * width + SIDE_BY_SIDE_GAP == grey.shape[1]
    assert not grey[:, width : width + SIDE_BY_SIDE_GAP].any()  # the black gap
    return grey[:, :width], grey[:, width + SIDE_BY_SIDE_GAP :]


def _scintillation(
    incoherent: np.ndarray, image: np.ndarray, db_per_level: float, block: int = 8
) -> tuple[float, int]:
    """``<I^2> / <I>^2 - 1`` of ``image`` over the flat seabed, and the pixels it took.

    The flat seabed: the ``block`` x ``block`` squares where every incoherent pixel lies
    15 dB above the window's floor and 10 dB under its top (no object, shadow or edge; a
    speckled pixel of such a mean is clipped with a chance under 3 % below, 5e-5 above).
    Each pixel's intensity is divided by the incoherent mean of its square, so the slow
    changes of the seabed's level do not count.
    """
    low, high = 15.0 / db_per_level, 255.0 - 10.0 / db_per_level
    rows, columns = (n // block * block for n in incoherent.shape)

    def squares(grey: np.ndarray) -> np.ndarray:
        cut = grey[:rows, :columns].reshape(rows // block, block, columns // block, block)
        return cut.transpose(0, 2, 1, 3).reshape(rows // block, columns // block, block * block)

    flat_squares = squares(incoherent)
    flat = ((flat_squares >= low) & (flat_squares <= high)).all(axis=-1)
    intensity = 10.0 ** (squares(image)[flat] * db_per_level / 10.0)
    reference = 10.0 ** (flat_squares[flat] * db_per_level / 10.0)
    normalised = intensity / reference.mean(axis=-1, keepdims=True)
    return float(np.mean(normalised**2) / np.mean(normalised) ** 2 - 1.0), normalised.size


def test_the_readme_coherent_demo_draws_both_pictures(tmp_path: Path) -> None:
    """``scripts/demo --coherent`` as the README has it, shorter: both pictures, speckled.

    Fully developed speckle has exponential intensity: scintillation index 1 (Goodman 2007);
    the incoherent image, sums of intensities, is smooth over the same squares (index near 0).
    """
    words = _with(_readme_demo_line('--coherent'), '--duration', SHORT_DURATION)
    words = _with(words, '--record', str(tmp_path / 'coherent'))
    done = subprocess.run(
        words, cwd=REPOSITORY, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert 'achieved pings/s over the tow: /incoherent/sidescan' in done.stdout
    # The waterfall is complete: a line every 0.5 m of the tow, none left empty (a side-scan
    # falling behind slows the tow instead).
    towed = float(re.search(r'towed ([\d.]+) m in', done.stdout).group(1))
    assert towed > 10.0, done.stdout[-2000:]
    for name, parameters in (
        ('coherent_fan.png', 'forward_looking_sonar.yaml'),
        ('coherent_sidescan.png', 'sidescan_sonar.yaml'),
    ):
        incoherent, coherent = _halves(tmp_path / 'coherent' / name)
        assert incoherent.shape[0] > 100
        if name == 'coherent_sidescan.png':  # rows of the tow (last image: one may be missed)
            for half in (incoherent, coherent):
                filled = int(half.any(axis=1).sum())
                assert filled >= int(towed / 0.5) - 3, (name, filled, towed)
        lit = (incoherent > 0) | (coherent > 0)
        assert np.mean(incoherent[lit] != coherent[lit]) > 0.5, name
        db_per_level = _db_per_level(parameters)
        index, pixels = _scintillation(incoherent, coherent, db_per_level)
        assert pixels > 2000, name
        assert index == pytest.approx(1.0, abs=0.15), name
        # Negative control: the incoherent image over the same squares.
        smooth, _ = _scintillation(incoherent, incoherent, db_per_level)
        assert smooth < 0.2, name


def test_the_demo_exits_1_when_a_sonar_sent_nothing() -> None:
    """The demo's towfish with ``--duration`` (its status is ``scripts/demo``'s): a side-scan
    and a fan that never publish (no node runs them) make status 1, and it says which."""
    tow = [sys.executable, '-m', 'nps_sonar_py.ros.demo_tow', '--duration', '2', '--wait', '2']
    done = subprocess.run(
        [*tow, '--sidescan', '/absent/sidescan', '--fan', '/absent/fls/image'],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert 'nothing received from /absent/sidescan, /absent/fls/image' in done.stdout
    assert 'not towed: the sonars did not start' in done.stdout
    assert 'waiting for /absent/sidescan' in done.stdout
