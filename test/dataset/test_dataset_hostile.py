"""Hostile specs and folders: each one line, ``nps_sonar: ...``, a non-zero status, no traceback.

The inputs that escaped as tracebacks, hung or ran silently (issue 36): wrong types in a spec,
``min_range`` at the range, nesting 20,000 deep, YAML alias bombs, impossible geometry, mesh
files outside the spec's folder; ``OUT`` as a file, a FIFO, ``/dev/null``, under a file, a
symbolic link loop, uncreatable, unwritable, on a full disk (a file size limit: writes fail
with ``EFBIG`` as with ``ENOSPC``), locked by another run; ``--resume`` over truncated or
non-UTF-8 records and over folders where the dataset's files belong. The command's ``main``
runs in this process for most (its handlers put back after), the installed executable for
those that need a process of its own. A fuzz test draws specs from the spec's own keys and
values of every YAML type, and folders of every kind, asserting the same shape.
"""

from __future__ import annotations

import fcntl
import os
import resource
import shutil
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from dataset_runs import REPO, run_cli, write_spec
from fuzzing import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from refusals import Refusal, changes, command_line, each, whole

from nps_sonar_py.dataset.cli import main
from nps_sonar_py.dataset.sensor import check_sensor
from nps_sonar_py.dataset.spec import parse_spec
from nps_sonar_py.dataset.spec_yaml import MAX_DEPTH
from nps_sonar_py.dataset.validity import check_meshes, check_spec
from nps_sonar_py.errors import InputError, error_line

#: A small good spec: a sample takes a fraction of a second.
GOOD = """\
seed: 1
sensor:
  preset: fls
  settings: {beams: 16, range_bins: 32, rays_vertical: 24, image_resolution: 0.2}
  range: 10
  altitude: 3
objects:
  - {kind: box, count: 1, x: [4, 8], y: [-3, 3]}
"""


def _bomb(levels: int) -> str:
    """A YAML alias bomb: 9 ** ``levels`` values from ``levels`` short lines."""
    lines = ['a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1]']
    for k in range(1, levels):
        lines.append(f'a{k}: &a{k} [' + ', '.join([f'*a{k - 1}'] * 9) + ']')
    return '\n'.join(lines) + f'\nseed: *a{levels - 1}\n'


#: (id: the change of the good spec, old to new, or the whole spec; words of the line)
SPECS = changes(
    GOOD,
    {
        'kind-a-list': ('kind: box', 'kind: [box]', 'objects[0].kind: must be one of'),
        'min-range-at-range': (
            'range: 10',
            'range: 10\n  min_range: 10',
            'sensor.min_range: 10 m must be below the range',
        ),
        'settings-value-a-list': ('beams: 16', 'beams: [16]', 'settings.beams'),
        'setting-a-word': ('image_resolution: 0.2', 'image_resolution: abc', 'got'),
        'preset-a-list': ('preset: fls', 'preset: [fls]', 'sensor.preset: must be'),
        'family-a-mapping': ('', 'seabed: {family: {a: 1}}\n', 'seabed.family: must be one of'),
        'seed-binary': ('seed: 1', 'seed: !!binary aGVsbG8=', 'seed: must be'),
        'seed-a-date': ('seed: 1', 'seed: 2001-12-14', 'seed: must be'),
        'range-nan': ('range: 10', 'range: .nan', 'sensor.range: must be finite'),
        'objects-beyond-the-range': (
            'x: [4, 8]',
            'x: 500',
            'objects[0]: every position drawn is at least 500 m from the sensor',
        ),
        'mesh-outside-the-folder': (
            'kind: box,',
            'kind: mesh, file: ../../../../../../etc/passwd,',
            'objects[0].file: ',
        ),
    },
) | whole(
    {
        'object-not-a-mapping': ('objects: [1]\n', 'objects[0].kind: must be one of'),
        'nested-20000-deep': ('seed: ' + '[' * 20000 + ']' * 20000 + '\n', 'nested deeper than'),
        'mapping-nested-deep': ('a: ' + '{a: ' * 5000 + '1' + '}' * 5000 + '\n', 'nested deeper'),
        'alias-bomb': (_bomb(9), 'values with its aliases expanded'),
        'python-object': ('seed: !!python/object:os.system [ls]\n', 'not valid YAML'),
        'sidescan-above-its-range': (
            'sensor: {preset: sidescan, range: 40, altitude: 60}\n',
            'sensor.altitude: up to 60 m, at or above the range (lowest 40 m)',
        ),
    }
)


#: ``main`` run in this process: its status and stderr.
Run = Callable[..., tuple[int, str]]


@pytest.fixture
def in_process(capsys: pytest.CaptureFixture[str]) -> Iterator[Run]:
    """Run ``main`` here: its status and stderr; the signal handlers it sets put back."""
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

    def run(*arguments: str | Path) -> tuple[int, str]:
        capsys.readouterr()
        status = main([str(a) for a in arguments])
        return status, capsys.readouterr().err

    yield run
    for signum, handler in handlers.items():
        signal.signal(signum, handler)


@each(SPECS)
def test_a_hostile_spec_is_one_line(in_process: Run, tmp_path: Path, refusal: Refusal) -> None:
    spec = write_spec(tmp_path / 'specs', refusal.text())
    out = tmp_path / 'out'
    line = command_line(*in_process(spec, out, '--samples', '1', '--quiet'))
    assert refusal.words in line, line
    assert not out.exists()


def test_a_mesh_outside_the_spec_folder_is_read_from_a_folder_allowed(
    in_process: Run, tmp_path: Path
) -> None:
    meshes = tmp_path / 'meshes'
    meshes.mkdir()
    (meshes / 'm.obj').write_text('this is not a mesh\n')
    spec = write_spec(
        tmp_path / 'specs', GOOD.replace('kind: box,', 'kind: mesh, file: ../meshes/m.obj,')
    )
    line = command_line(*in_process(spec, tmp_path / 'a', '--samples', '1', '--quiet'))
    assert '--mesh-folder' in line
    status, stderr = in_process(
        spec, tmp_path / 'b', '--samples', '1', '--quiet', '--mesh-folder', meshes
    )  # allowed, read, and not a mesh: the sample fails, and so the run
    assert status == 1, stderr
    assert '0 samples made, 0 made before, 1 failed' in stderr


def _folders(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / 'a-file').write_text('mine')
    os.mkfifo(tmp_path / 'a-fifo')
    (tmp_path / 'loop').symlink_to(tmp_path / 'loop')
    return {
        'a-file': tmp_path / 'a-file',
        'a-fifo': tmp_path / 'a-fifo',
        'dev-null': Path('/dev/null'),
        'under-a-file': tmp_path / 'a-file' / 'out',
        'symlink-loop': tmp_path / 'loop',
        'uncreatable': Path('/proc/nps_sonar_out'),
        'unwritable': Path('/proc/self/fdinfo'),
        'name-too-long': tmp_path / ('x' * 300),
    }


@pytest.mark.parametrize(
    'kind',
    [
        'a-file',
        'a-fifo',
        'dev-null',
        'under-a-file',
        'symlink-loop',
        'uncreatable',
        'unwritable',
        'name-too-long',
    ],
)
def test_an_unusable_output_folder_is_one_line(in_process: Run, tmp_path: Path, kind: str) -> None:
    spec = write_spec(tmp_path / 'specs', GOOD)
    out = _folders(tmp_path)[kind]
    line = command_line(*in_process(spec, out, '--samples', '1', '--quiet'))
    assert line.startswith(f'nps_sonar: {str(out)[:40]}'), line
    assert (tmp_path / 'a-file').read_text() == 'mine'


def test_a_folder_another_run_holds_is_refused(in_process: Run, tmp_path: Path) -> None:
    spec = write_spec(tmp_path / 'specs', GOOD)
    out = tmp_path / 'out'
    out.mkdir()
    held = os.open(out, os.O_RDONLY | os.O_DIRECTORY)  # as a running sonar_dataset holds it
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        line = command_line(*in_process(spec, out, '--samples', '1', '--quiet'))
    finally:
        os.close(held)
    assert 'another sonar_dataset run is writing in it' in line
    status, stderr = in_process(spec, out, '--samples', '1', '--quiet')  # released: it runs
    assert status == 0, stderr


@pytest.fixture(scope='module')
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished dataset of two samples of :data:`GOOD`."""
    folder = tmp_path_factory.mktemp('made')
    spec = write_spec(folder, GOOD)
    result = run_cli(spec, folder / 'out', '--samples', '2', '--quiet')
    assert result.returncode == 0, result.stderr
    return folder


def _damage(out: Path, how: str) -> None:
    record = out / 'records' / '000001.json'
    if how == 'truncated-record':
        record.write_bytes(record.read_bytes()[:10])
    elif how == 'non-utf8-record':
        record.write_bytes(b'\xff\xfe{')
    elif how == 'obb-images-a-file':
        link = out / 'obb' / 'images'
        if link.is_symlink():
            link.unlink()
        else:
            shutil.rmtree(link)
        link.write_text('')
    else:
        name = {'manifest-a-folder': 'manifest.parquet', 'spec-a-folder': 'spec.yaml'}[how]
        (out / name).unlink()
        (out / name).mkdir()


@pytest.mark.parametrize('how', ['truncated-record', 'non-utf8-record'])
def test_resume_remakes_a_broken_record(
    in_process: Run, made: Path, tmp_path: Path, how: str
) -> None:
    out = tmp_path / 'out'
    shutil.copytree(made / 'out', out)
    _damage(out, how)
    status, stderr = in_process(made / 'spec.yaml', out, '--samples', '2', '--quiet', '--resume')
    assert status == 0, stderr
    assert '1 samples made, 1 made before' in stderr
    assert (out / 'records' / '000001.json').read_bytes() == (
        made / 'out' / 'records' / '000001.json'
    ).read_bytes()


@pytest.mark.parametrize('how', ['manifest-a-folder', 'spec-a-folder'])
def test_resume_refuses_a_folder_in_a_file_place(
    in_process: Run, made: Path, tmp_path: Path, how: str
) -> None:
    out = tmp_path / 'out'
    shutil.copytree(made / 'out', out)
    _damage(out, how)
    line = command_line(*in_process(made / 'spec.yaml', out, '--samples', '2', '--resume'))
    assert 'in it is not a file' in line


def test_resume_refuses_a_file_where_the_obb_images_link_goes(
    in_process: Run, made: Path, tmp_path: Path
) -> None:
    out = tmp_path / 'out'
    shutil.copytree(made / 'out', out, symlinks=True)
    assert os.readlink(out / 'obb' / 'images') == '../images'  # as the run made it
    _damage(out, 'obb-images-a-file')
    line = command_line(*in_process(made / 'spec.yaml', out, '--samples', '2', '--resume'))
    assert 'obb/images in it is not a link to ../images' in line


def test_a_full_disk_is_one_line(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, GOOD)

    def small_files() -> None:  # writes beyond 3000 bytes fail (EFBIG), as on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000))

    result = run_cli(spec, tmp_path / 'out', '--samples', '2', '--quiet', preexec_fn=small_files)
    line = command_line(result.returncode, result.stderr, 1)
    assert line.endswith('File too large'), line


# --- fuzz ---------------------------------------------------------------------------------------

_KEYS = st.sampled_from(
    [
        'seed', 'sensor', 'preset', 'settings', 'range', 'min_range', 'altitude', 'tilt',
        'heading', 'seabed', 'family', 'cell', 'flat', 'rocky', 'reflectivity', 'objects',
        'kind', 'count', 'x', 'y', 'file', 'class', 'water', 'profile', 'multipath',
        'processing', 'tvg', 'speckle', 'beams', 'echo_model', 'burial', 'length',
    ]
)  # fmt: skip
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(['fls', 'sidescan', 'box', 'mesh', 'flat', '20log', 'coherent', '../x.obj']),
)
_TREES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=5),
    max_leaves=25,
)


def _shape(line: str) -> None:
    assert '\n' not in line
    assert line.startswith('nps_sonar: ')


@settings(max_examples=examples(150), deadline=None)
@given(
    tree=st.dictionaries(_KEYS, _TREES, max_size=6), extra=st.sampled_from(['', 'deep', 'bomb'])
)
def test_fuzzed_specs_are_one_line_or_usable(tree: dict[str, Any], extra: str) -> None:
    text = yaml.safe_dump(tree, allow_unicode=True)
    if extra == 'deep':
        text += 'zz: ' + '[' * (MAX_DEPTH + 5) + ']' * (MAX_DEPTH + 5) + '\n'
    elif extra == 'bomb':
        text = _bomb(7) + text.replace('seed:', 'seed_:')  # 9 ** 7 values, over the bound
    refused: InputError | None = None
    try:  # what the command does before its first sample
        spec = parse_spec(text, source='fuzz.yaml', base=REPO)
        check_meshes(spec, [REPO])
        check_spec(spec)
        check_sensor(spec)
    except InputError as error:
        refused = error
    if refused is None:
        assert extra == ''  # too deep or too many values is never usable
    else:
        _shape(f'nps_sonar: {error_line(refused)}')
        assert str(refused).startswith('fuzz.yaml')


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    parts=st.lists(
        st.sampled_from(['a-file', 'a-fifo', 'loop', 'new', 'x' * 200, '..', '.', 'dev']),
        min_size=1,
        max_size=4,
    )
)
def test_fuzzed_output_folders_are_one_line_or_made(
    in_process: Run, tmp_path: Path, parts: list[str]
) -> None:
    base = tmp_path / 'fz'
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir()
    spec = write_spec(base / 'spec', GOOD)
    (base / 'a-file').write_text('mine')
    os.mkfifo(base / 'a-fifo')
    (base / 'loop').symlink_to(base / 'loop')
    (base / 'dev').symlink_to('/dev/null')
    out = base.joinpath(*parts)
    status, stderr = in_process(spec, out, '--samples', '1', '--quiet')
    if status == 0:
        assert (out / 'manifest.parquet').is_file()
    else:
        _shape(command_line(status, stderr, status))
        assert status in (1, 2)
    assert (base / 'a-file').read_text() == 'mine'
