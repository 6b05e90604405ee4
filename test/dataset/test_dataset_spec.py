"""A spec that cannot be used is one line naming the file and the key; the shipped specs load.

Each bad spec changes one key of a good one; the command prints the same line (``nps_sonar:
<file>: <key>: <problem>``) and exits 2, as the nodes do, from ``python -m`` and from the
installed executable.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
from dataset_runs import FLS_SPEC, REPO, SIDESCAN_SPEC, run_cli, write_spec
from refusals import Refusal, changes, command_line, each, refused_in_one_line

from nps_sonar_py.dataset import draw_row, load_spec, parse_spec
from nps_sonar_py.dataset.sensor import cached_settings, check_sensor, make_sonar
from nps_sonar_py.dataset.validity import check_spec
from nps_sonar_py.sensing.multibeam import MultibeamSonar

#: (id: the change of the good spec, old to new, and words of the line)
BAD = changes(
    FLS_SPEC,
    {
        'unknown-key': (
            '  altitude: [2, 3]',
            '  altitud: [2, 3]',
            'spec.yaml: sensor.altitud: unknown key; known: preset, echo_model',
        ),
        'unknown-top-key': ('', 'colour: red\n', 'spec.yaml: colour: unknown key'),
        'low-above-high': (
            'tilt: [15, 25]',
            'tilt: [25, 15]',
            'spec.yaml: sensor.tilt: must be finite with low <= high, got [25, 15]',
        ),
        'out-of-bounds': (
            'burial: [0, 0.5]',
            'burial: [0, 1.5]',
            'spec.yaml: objects[2].burial: must be within [0, 1], got [0, 1.5]',
        ),
        'unknown-kind': (
            'kind: tyre',
            'kind: anchor',
            'spec.yaml: objects[3].kind: must be one of box, pipe, mine, tyre, wreck, drum, '
            'chain, cage, crab_trap, propeller, effigy, debris, mesh',
        ),
        'size-of-another-kind': (
            'kind: tyre,',
            'kind: tyre, beam: 2,',
            'spec.yaml: objects[3].beam: unknown key',
        ),
        'missing-mesh': (
            'kind: tyre,',
            'kind: mesh, file: meshes/nowhere.obj,',
            'spec.yaml: objects[3].file: no such mesh file:',
        ),
        'drawn-setting': (
            'beams: 24,',
            'beams: 24, tvg: 20log,',
            'spec.yaml: sensor.settings.tvg: is drawn per sample: set it in processing.tvg',
        ),
        'bad-setting': (
            'beams: 24,',
            'beams: 0,',
            'spec.yaml: sensor.settings.beams: beams must be an integer in [1, 100000], got 0',
        ),
        'not-a-setting': (
            'beams: 24,',
            'beamz: 24,',
            'spec.yaml: sensor.settings.beamz: not a setting of the fls preset',
        ),
        'old-name': (
            'beams: 24,',
            'beams: 24, pulse_length: 0.001,',
            'spec.yaml: sensor.settings.pulse_length: pulse_length is now called pulse_duration',
        ),
        'coherent-with-speckle': (
            'preset: fls',
            'preset: fls\n  echo_model: coherent',
            'spec.yaml: processing.speckle: the coherent model makes its own speckle',
        ),
        'unknown-echo-model': (
            'preset: fls',
            'preset: fls\n  echo_model: exact',
            "spec.yaml: sensor.echo_model: must be incoherent or coherent, got 'exact'",
        ),
        'multipath-with-a-profile': (
            'sensor_depth: [5, 15]',
            'sensor_depth: [5, 15]\n  multipath: true',
            'spec.yaml: water.multipath: multipath needs straight rays',
        ),
        'bad-choice': (
            'tvg: [20log, 40log]',
            'tvg: [20log, 30log]',
            'spec.yaml: processing.tvg: must be one of none, 20log, 40log (or a list of them), '
            "got '30log'",
        ),
        'not-yaml': ('seed: 28', 'seed: [28', 'spec.yaml:'),
        'another-modes-setting': (
            'beams: 24,',
            'beams: 24, sweep_image_update: step,',
            'spec.yaml: sensor.settings.sweep_image_update: mode multibeam does not use '
            'sweep_image_update',
        ),
        'a-node-output': (
            'beams: 24,',
            'beams: 24, publish_image: true,',
            'spec.yaml: sensor.settings.publish_image: not a setting of the fls preset',
        ),
        'image-over-the-memory-budget': (  # 2e8 pixels of 16 bytes (devices/memory.py)
            'beams: 24,',
            'beams: 24, image_max_pixels: 200000000,',
            'spec.yaml: sensor.settings.image_max_pixels: image_max_pixels 200000000: an image at '
            'its largest would need 2.98 GiB',
        ),
        'fan-over-the-memory-budget': (  # 20000 x 5000 cells of 32 bytes
            'beams: 24, range_bins: 64',
            'beams: 20000, range_bins: 5000',
            "spec.yaml: sensor.settings.beams: beams 20000 x range_bins 5000: a ping's profiles "
            'would need 2.98 GiB',
        ),
        'the-range-window': (
            'beams: 24,',
            'beams: 24, max_range: 20.0,',
            'spec.yaml: sensor.settings.max_range: is drawn per sample: set it in sensor.range',
        ),
    },
) | changes(
    SIDESCAN_SPEC,
    {
        'a-sector-in-a-side-scan': (
            'settings: {',
            'settings: {max_angle: 0.5, ',
            'spec.yaml: sensor.settings.max_angle: mode sidescan does not use max_angle',
        ),
    },
)


@each(BAD)
def test_a_bad_spec_is_one_line_naming_its_key(tmp_path: Path, refusal: Refusal) -> None:
    spec = write_spec(tmp_path, refusal.text())
    refused_in_one_line(lambda: check_sensor(load_spec(spec)), refusal.words)


def test_a_spec_may_name_a_node_preset_and_set_the_coherent_settings(tmp_path: Path) -> None:
    """The dataset reads the node's records (issue 32): a node preset gives its figures, a
    value given wins, and the coherent model's settings are the spec's to set."""
    text = FLS_SPEC.replace(
        'beams: 24,', 'beams: 24, sonar_preset: oculus_m750d, bandwidth: 20000.0,'
    )
    settings = check_sensor(load_spec(write_spec(tmp_path, text)))
    assert settings.beam.frequency == 750e3  # the preset's (docs/presets.md)
    assert settings.fan.beams == 24  # given: wins over the preset
    assert settings.echo.bandwidth == 2e4
    plain = check_sensor(load_spec(write_spec(tmp_path, FLS_SPEC)))
    assert plain.beam.frequency != 750e3  # control: without the preset, the fls preset's
    assert plain.echo.bandwidth != 2e4


def test_the_sonar_is_built_by_its_kinds_builder_with_a_coherent_array(tmp_path: Path) -> None:
    """A coherent setting of the kind (the receive array) reaches the sample's sonar, built by
    the kind's builder (``KINDS['multibeam'].sonar``, issue 32: one composition root), with
    the sample's scatterer seed; control: the noise-free sonar of the masks is incoherent."""
    text = FLS_SPEC.replace('preset: fls', 'preset: fls\n  echo_model: coherent').replace(
        'beams: 24,', 'beams: 24, array_elements: 128,'
    )
    text = text.replace('speckle: [false, true]', 'speckle: false')
    spec = load_spec(write_spec(tmp_path, text))
    settings = check_sensor(spec)
    row = draw_row(spec, 0)
    sonar = make_sonar(settings, row, np.eye(4), min_range=0.5, entities=None)
    assert isinstance(sonar, MultibeamSonar)
    assert sonar.coherent is not None
    assert sonar.coherent.array_elements == 128
    assert sonar.coherent.scatterer_seed == row['noise_seed']  # the sample's, not the spec's
    truth = make_sonar(settings, row, np.eye(4), min_range=0.5, entities=None, truth=True)
    assert truth.coherent is None  # control: the masks' sonar is incoherent


@pytest.mark.parametrize('case', ['unknown-key', 'missing-mesh'])
def test_the_command_says_it_in_one_line_and_exits_2(tmp_path: Path, case: str) -> None:
    spec = write_spec(tmp_path, BAD[case].text())
    result = run_cli(spec, tmp_path / 'out', '--samples', '2', timeout=120)
    assert len(result.stderr.splitlines()) == 1, result.stderr  # not even a blank line
    assert BAD[case].words in command_line(result.returncode, result.stderr)
    assert not (tmp_path / 'out').exists()


def test_an_output_folder_in_use_is_refused_without_resume(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, FLS_SPEC)
    (tmp_path / 'out').mkdir()
    (tmp_path / 'out' / 'mine.txt').write_text('keep me')
    result = run_cli(spec, tmp_path / 'out', '--samples', '2', timeout=120)
    assert result.returncode == 2
    assert 'is not empty: give --resume' in result.stderr
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.ros
def test_the_installed_sonar_dataset_says_it_in_one_line(tmp_path: Path) -> None:
    from ros_helpers import executable, exit_line

    spec = write_spec(tmp_path, BAD['unknown-key'].text())
    line = exit_line(
        [executable('sonar_dataset'), str(spec), str(tmp_path / 'out'), '--samples', '1']
    )
    assert BAD['unknown-key'].words in line


@pytest.mark.parametrize('name', ['fls_demo.yaml', 'sidescan_demo.yaml'])
def test_the_shipped_specs_load_and_draw(name: str) -> None:
    spec = load_spec(REPO / 'config' / 'datasets' / name)
    check_spec(spec)  # nothing impossible in them
    check_sensor(spec)
    row = draw_row(spec, 0)
    assert row['id'] == '000000'
    assert spec.classes


def test_a_sample_draws_the_same_values_whatever_else_runs() -> None:
    spec = parse_spec(FLS_SPEC, source='spec.yaml')
    later = draw_row(spec, 5)
    assert [draw_row(spec, i) for i in range(6)][5] == later
    assert draw_row(spec, 4) != later
    other = parse_spec(FLS_SPEC.replace('seed: 28', 'seed: 29'), source='spec.yaml')
    assert draw_row(other, 5) != later


def test_the_sonar_settings_are_read_once_a_process_for_equal_specs() -> None:
    """A Ray task gets its own copy of the run's spec (unpickled): its worker reads the
    settings once for all its tasks. Control: a spec with other sonar settings reads its
    own (96 beams, not 24)."""
    spec = parse_spec(FLS_SPEC)
    settings = cached_settings(spec)
    assert cached_settings(pickle.loads(pickle.dumps(spec))) is settings
    other = parse_spec(FLS_SPEC.replace('beams: 24', 'beams: 96'))
    assert (settings.fan.beams, cached_settings(other).fan.beams) == (24, 96)
