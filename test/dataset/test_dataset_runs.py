"""The same files wherever the samples run: in-process without Ray, on a local Ray of two
workers, one sample a task or in batches, on a Ray cluster joined by address, and after a run
killed midway (in-process, or on Ray in the middle of its batches) is resumed; a sample that
fails is retried and recorded, and the run goes on.

Ray really starts here (never skipped): for ``--workers 2`` (the command's own local Ray) and
as a head node the command joins, each with 2 CPUs, no dashboard and a small object store.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from dataset_runs import (
    FLS_SPEC,
    REPO,
    RayHead,
    command,
    dataset_files,
    environment,
    free_port,
    ray_head,
    run_cli,
    write_spec,
)
from refusals import command_line

from nps_sonar_py.background import CORES_VARIABLE
from nps_sonar_py.dataset import Outcome, read_manifest
from nps_sonar_py.dataset.distributed import MAX_BATCH, Batches, _inherited

#: Longest wait for a process to reach a state, s (a loaded 2-core machine).
DEADLINE = 300.0


def _same_files(reference: Path, out: Path) -> None:
    expected, got = dataset_files(reference), dataset_files(out)
    assert sorted(got) == sorted(expected)
    differing = [name for name in expected if expected[name] != got[name]]
    assert not differing, differing
    link = Path('obb', 'images')  # the one link, made by the driver
    assert os.readlink(out / link) == os.readlink(reference / link) == '../images'


def test_one_worker_runs_in_this_process_without_ray(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, FLS_SPEC)
    code = (
        'import sys\n'
        'from nps_sonar_py.dataset.cli import main\n'
        f'status = main([{str(spec)!r}, {str(tmp_path / "out")!r}, "--samples", "1", "--quiet"])\n'
        'print("ray imported:", "ray" in sys.modules)\n'
        'sys.exit(status)\n'
    )
    result = subprocess.run(
        [sys.executable, '-c', code],
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        check=False,
        env=environment(),
    )
    assert result.returncode == 0, result.stderr
    assert 'ray imported: False' in result.stdout
    assert json.loads((tmp_path / 'out' / 'run.json').read_text())['workers'] == 1


@pytest.fixture(scope='module')
def other_ray() -> Iterator[RayHead]:
    """Another Ray on this machine, for the module's tests."""
    with ray_head() as head:
        yield head


def _answers(address: str) -> bool:
    host, _, port = address.rpartition(':')
    with socket.socket() as probe:
        probe.settimeout(30.0)
        return probe.connect_ex((host, int(port))) == 0


def test_two_ray_workers_make_the_same_files_beside_another_ray(
    fls_reference: Path, other_ray: RayHead, tmp_path: Path
) -> None:
    out = tmp_path / 'out'
    env = {**environment(), 'RAY_ADDRESS': other_ray.address, 'RAY_TMPDIR': other_ray.tmpdir}
    spec = fls_reference.parent / 'spec.yaml'
    result = run_cli(spec, out, '--samples', '6', '--workers', '2', env=env)
    assert result.returncode == 0, result.stderr
    assert 'Started a local Ray instance' in result.stderr  # its own, not the other one
    assert 'Traceback' not in result.stderr
    _same_files(fls_reference, out)
    run = json.loads((out / 'run.json').read_text())
    assert (run['workers'], run['made'], run['batch']) == (2, 6, 0)
    assert 1 <= run['tasks'] <= 6
    recorded = Path(other_ray.tmpdir) / 'ray' / 'ray_current_cluster'
    assert recorded.read_text().strip() == other_ray.address  # the other Ray undisturbed
    assert _answers(other_ray.address)


def _dead_address_file(folder: Path) -> dict[str, str]:
    """An environment whose Ray address file names a Ray that is gone (nothing listens)."""
    recorded = folder / 'ray' / 'ray_current_cluster'
    recorded.parent.mkdir(parents=True)
    recorded.write_text(f'127.0.0.1:{free_port()}\n')
    env = environment()
    env.pop('RAY_ADDRESS', None)
    return {**env, 'RAY_TMPDIR': str(folder)}


@pytest.mark.parametrize('address', ['dead', 'not-an-address'])
def test_an_address_where_no_ray_answers_is_one_line_and_leaves_no_folder(
    tmp_path: Path, address: str
) -> None:
    spec = write_spec(tmp_path, FLS_SPEC)
    env = _dead_address_file(tmp_path / 'tmp')
    given = f'127.0.0.1:{free_port()}' if address == 'dead' else 'nowhere'
    out = tmp_path / 'out'
    result = run_cli(spec, out, '--samples', '2', '--address', given, env=env, timeout=300)
    line = command_line(result.returncode, result.stderr, 1)
    assert f'--address {given}: ' in line
    expected = 'must be host:port' if address == 'not-an-address' else 'no Ray cluster answers'
    assert expected in line
    assert not out.exists()  # the same command can be given again


def test_a_ray_cluster_joined_by_address_makes_the_same_files_in_batches(
    fls_reference: Path, other_ray: RayHead, tmp_path: Path
) -> None:
    out = tmp_path / 'out'
    spec = fls_reference.parent / 'spec.yaml'
    result = run_cli(
        spec, out, '--samples', '6', '--address', other_ray.address, '--batch', '4', '--quiet'
    )
    assert result.returncode == 0, result.stderr
    _same_files(fls_reference, out)  # as one process made them
    run = json.loads((out / 'run.json').read_text())
    assert (run['address'], run['batch'], run['tasks']) == (other_ray.address, 4, 2)


def _wait_for(path: Path, process: subprocess.Popen[str]) -> None:
    end = time.monotonic() + DEADLINE
    while not path.exists():
        assert process.poll() is None, 'the run ended before it made its first sample'
        assert time.monotonic() < end, f'no {path} after {DEADLINE} s'
        time.sleep(0.05)


@pytest.mark.parametrize('signum', [signal.SIGKILL, signal.SIGTERM], ids=['SIGKILL', 'SIGTERM'])
def test_a_run_killed_midway_resumes_to_the_same_files(
    fls_reference: Path, tmp_path: Path, signum: int
) -> None:
    out = tmp_path / 'out'
    spec = fls_reference.parent / 'spec.yaml'
    run = subprocess.Popen(
        command(spec, out, '--samples', '6', '--quiet'),
        stderr=subprocess.PIPE,
        text=True,
        env=environment(),
    )
    _wait_for(out / 'records' / '000000.json', run)
    run.send_signal(signum)
    _, stderr = run.communicate(timeout=DEADLINE)
    if signum == signal.SIGKILL:
        assert run.returncode == -signal.SIGKILL
    else:  # stopped cleanly after the sample in hand, saying so
        assert run.returncode == 128 + signal.SIGTERM, stderr
        assert 'stopped by a signal' in stderr
        assert 'Traceback' not in stderr
    assert not (out / 'manifest.parquet').exists()  # it was midway
    made_before = len(list((out / 'records').glob('*.json')))
    assert 1 <= made_before < 6
    result = run_cli(spec, out, '--samples', '6', '--resume', '--quiet')
    assert result.returncode == 0, result.stderr
    assert f'{made_before} made before' in result.stderr
    _same_files(fls_reference, out)


#: The test spec with 16 times the rays: samples long enough (about 0.3 s each on an idle
#: machine) that a run of two batches of three is signalled while both are under way.
SLOW_SPEC = FLS_SPEC.replace('rays_vertical: 48', 'rays_vertical: 768')


@pytest.fixture(scope='module')
def slow_reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """:data:`SLOW_SPEC`'s dataset of 6 samples, made in-process (its spec beside it)."""
    folder = tmp_path_factory.mktemp('slow')
    spec = write_spec(folder, SLOW_SPEC)
    result = run_cli(spec, folder / 'out', '--samples', '6', '--quiet')
    assert result.returncode == 0, result.stderr
    return folder / 'out'


def _kill_session(session: int) -> None:
    """SIGKILL every process of ``session`` at once, as a job's are killed (its cgroup, its
    container), until none lives; remove the local Ray's folder they name (``/tmp/nps_ray_*``).

    Ray's workers are in process groups of their own, in the session of the command.
    """
    folders: set[str] = set()
    end = time.monotonic() + DEADLINE
    while True:
        alive = []
        for entry in Path('/proc').iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if os.getsid(int(entry.name)) != session:
                    continue
                stat = (entry / 'stat').read_text()
                arguments = (entry / 'cmdline').read_bytes().decode(errors='replace')
            except OSError:  # gone meanwhile
                continue
            if stat.rpartition(')')[2].split()[0] == 'Z':  # dead, not yet reaped
                continue
            folders.update(re.findall(r'/tmp/nps_ray_[A-Za-z0-9_]+', arguments))
            alive.append(int(entry.name))
            os.kill(int(entry.name), signal.SIGKILL)
        if not alive:
            break
        assert time.monotonic() < end, f'processes of the run still alive: {alive}'
        time.sleep(0.05)
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


def _started_run(spec: Path, out: Path) -> subprocess.Popen[str]:
    """The command on a local Ray of two workers, six samples in two batches of three, once
    it has made its first sample. In a session of its own: Ray's processes (the workers) are
    found and killed by it. Its environment names a Ray that is gone in Ray's address file
    (beside ``out``): the local Ray must not look for it."""
    run = subprocess.Popen(
        command(spec, out, '--samples', '6', '--workers', '2', '--batch', '3', '--quiet'),
        stderr=subprocess.PIPE,
        text=True,
        env=_dead_address_file(out.parent / 'tmp'),
        start_new_session=True,
    )
    _wait_for(out / 'records' / '000000.json', run)
    return run


@pytest.mark.parametrize('signum', [signal.SIGKILL, signal.SIGTERM], ids=['SIGKILL', 'SIGTERM'])
def test_a_ray_run_killed_mid_batch_resumes_to_the_same_files(
    slow_reference: Path, tmp_path: Path, signum: int
) -> None:
    """Two tasks of three samples start at once, and the run is stopped when the first sample
    is made: every process of it killed at once (the driver, its Ray and the workers, each in
    the middle of its batch), or SIGTERM to the command (it stops its Ray and says so in one
    line, as the command says: no traceback, no stack dump of Ray's). Resumed in batches of
    two, the files are those of one process.
    """
    out = tmp_path / 'out'
    spec = slow_reference.parent / 'spec.yaml'
    run = _started_run(spec, out)
    if signum == signal.SIGKILL:
        _kill_session(run.pid)
    else:
        run.send_signal(signum)
    _, stderr = run.communicate(timeout=DEADLINE)
    if signum == signal.SIGKILL:
        assert run.returncode == -signal.SIGKILL
    else:
        assert run.returncode == 128 + signal.SIGTERM, stderr
        assert stderr.splitlines()[-1].startswith('sonar_dataset: stopped by a signal'), stderr
        assert 'Traceback' not in stderr
        assert 'SIGTERM received' not in stderr  # Ray's C++ stack dump
    assert not (out / 'manifest.parquet').exists()
    made_before = len(list((out / 'records').glob('*.json')))
    assert 1 <= made_before < 6  # a batch of three was cut short
    resumed = ('--resume', '--workers', '2', '--batch', '2', '--quiet')
    result = run_cli(spec, out, '--samples', '6', *resumed)
    assert result.returncode == 0, result.stderr
    assert f'{6 - made_before} samples made, {made_before} made before' in result.stderr
    _same_files(slow_reference, out)
    run_json = json.loads((out / 'run.json').read_text())
    assert run_json['tasks'] == (6 - made_before + 1) // 2  # the samples left, two a task


def _making(session: int) -> set[int]:
    """The Ray workers of ``session`` running a task of samples (``ray::write_batch``)."""
    found = set()
    for entry in Path('/proc').iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ours = os.getsid(int(entry.name)) == session
            if ours and (entry / 'cmdline').read_bytes().startswith(b'ray::write_batch'):
                found.add(int(entry.name))
        except OSError:  # gone meanwhile
            continue
    return found


def _environment(pid: int) -> list[bytes]:
    """The environment process ``pid`` started with, one ``NAME=value`` an item."""
    return (Path('/proc', str(pid), 'environ')).read_bytes().split(b'\0')


def test_a_batch_whose_worker_dies_twice_is_made_again_sample_by_sample(
    slow_reference: Path, tmp_path: Path
) -> None:
    """The workers of two batches of three are killed once the first sample is made, then
    the workers of Ray's second run of them: the samples not reported are each made again
    by a task of their own, and the run ends with every sample once and the same files.
    Every worker making samples was started keeping to one core (``NPS_SONAR_CORES=1``)."""
    out = tmp_path / 'out'
    spec = slow_reference.parent / 'spec.yaml'
    run = _started_run(spec, out)
    killed: set[int] = set()
    end = time.monotonic() + DEADLINE
    # Four runs of a batch: each batch's first, then Ray's second. Counted by workers, not by
    # sweeps: on a loaded machine one batch's worker may start a sweep after the other's.
    while len(killed) < 4:
        if not (found := _making(run.pid) - killed):
            assert run.poll() is None, 'the run ended before its workers were killed'
            assert time.monotonic() < end, f'{len(killed)} of 4 batch runs seen in time'
            time.sleep(0.01)
            continue
        for pid in found:
            assert b'NPS_SONAR_CORES=1' in _environment(pid)
            os.kill(pid, signal.SIGKILL)
        killed |= found
    _, stderr = run.communicate(timeout=DEADLINE)
    assert run.returncode == 0, stderr
    _same_files(slow_reference, out)
    made = json.loads((out / 'run.json').read_text())
    assert (made['made'], made['failed']) == (6, 0)  # each sample once
    assert made['tasks'] > 2  # the two batches, and samples made again alone


def _sized(batches: Batches, seconds: float, made: int, first: int) -> int:
    """The size of the next task after ``made`` samples of ``seconds`` each."""
    for _ in range(made):
        batches.learn(Outcome(0, {}, seconds=seconds))
    return batches.size(first)


def test_a_task_takes_about_a_second_of_samples_and_fewer_near_the_end() -> None:
    # Worked by hand: 0.25 s samples, 2 CPUs, 1000 samples: 1 s is 4 samples.
    assert Batches(2, 1000).size(0) == 1  # nothing made yet: one sample a task
    assert _sized(Batches(2, 1000), 0.25, 3, 10) == 4
    assert _sized(Batches(2, 1000), 2.0, 3, 10) == 1  # samples over a second: one a task
    assert _sized(Batches(2, 1000), 0.001, 3, 10) == MAX_BATCH
    # Near the end, the samples left over 2 x 2: 11 left -> 2, 7 -> 1, 3 -> 1.
    assert [_sized(Batches(2, 1000), 0.25, 3, first) for first in (989, 993, 997)] == [2, 1, 1]
    assert _sized(Batches(2, 1000, fixed=7), 0.25, 3, 997) == 7  # --batch: as given
    # Control: without the end's limit the last tasks would take four samples.
    assert _sized(Batches(2, 10**9), 0.25, 3, 997) == 4


def test_the_local_rays_environment_is_this_processs_only_while_it_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What a local Ray's processes inherit (``WORKER_ENVIRONMENT``) is set for its start and
    undone after: a value given before comes back, one not given is removed."""
    monkeypatch.setenv(CORES_VARIABLE, '3')
    monkeypatch.delenv('NPS_TEST_UNSET', raising=False)
    child = [sys.executable, '-c', f'import os; print(os.environ["{CORES_VARIABLE}"])']
    with _inherited({CORES_VARIABLE: '1', 'NPS_TEST_UNSET': 'x'}):
        started = subprocess.run(child, capture_output=True, text=True, check=True).stdout
        assert os.environ['NPS_TEST_UNSET'] == 'x'
    assert started.strip() == '1'  # a process started in the block inherits it
    assert os.environ[CORES_VARIABLE] == '3'
    assert 'NPS_TEST_UNSET' not in os.environ
    # Control: a process started after the block does not.
    after = subprocess.run(child, capture_output=True, text=True, check=True).stdout
    assert after.strip() == '3'


def test_a_failed_sample_is_retried_recorded_and_the_run_goes_on(tmp_path: Path) -> None:
    broken = tmp_path / 'broken.obj'
    broken.write_text('this is not a mesh\n')
    spec = write_spec(
        tmp_path,
        FLS_SPEC.split('objects:')[0]
        + 'objects:\n  - {kind: box, count: 1, x: [4, 8], y: [-3, 3]}\n'
        + '  - {kind: mesh, class: debris, count: [0, 1], file: broken.obj, x: [4, 8]}\n',
    )
    out = tmp_path / 'out'
    result = run_cli(spec, out, '--samples', '5', '--quiet')
    assert result.returncode == 0, result.stderr
    rows = read_manifest(out / 'manifest.parquet')
    with_mesh = ['"kind": "mesh"' in row['objects'] for row in rows]
    assert any(with_mesh)
    assert not all(with_mesh)  # the seed gives both kinds of sample
    for row, mesh in zip(rows, with_mesh, strict=True):
        assert row['status'] == ('failed' if mesh else 'ok')
        if mesh:
            assert 'broken.obj' in row['error']
            assert not (out / 'images' / f'{row["id"]}.png').exists()
    assert 'Failed samples' in (out / 'README.md').read_text()
    assert f'{sum(with_mesh)} failed' in result.stderr


def test_ten_million_samples_start_at_once_and_stop_on_sigint(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, FLS_SPEC)
    out = tmp_path / 'out'
    run = subprocess.Popen(
        command(spec, out, '--samples', '10000000', '--quiet'),
        stderr=subprocess.PIPE,
        text=True,
        env=environment(),
    )
    _wait_for(out / 'records' / '000000.json', run)  # not after drawing ten million rows
    run.send_signal(signal.SIGINT)
    _, stderr = run.communicate(timeout=DEADLINE)
    assert run.returncode == 128 + signal.SIGINT, stderr
    assert 'of 10000000 samples made; --resume goes on' in stderr


def test_a_run_in_which_every_sample_failed_exits_1(tmp_path: Path) -> None:
    (tmp_path / 'broken.obj').write_text('this is not a mesh\n')
    spec = write_spec(
        tmp_path,
        FLS_SPEC.split('objects:')[0]
        + 'objects:\n  - {kind: mesh, class: debris, count: 1, file: broken.obj, x: [4, 8]}\n',
    )
    result = run_cli(spec, tmp_path / 'out', '--samples', '2', '--quiet')
    assert result.returncode == 1, result.stderr
    assert '0 samples made, 0 made before, 2 failed' in result.stderr


def test_only_the_distributed_runner_imports_ray() -> None:
    package = REPO / 'nps_sonar_py'
    importing = sorted(
        str(path.relative_to(REPO))
        for path in package.rglob('*.py')
        if any(
            line.strip().startswith(('import ray', 'from ray'))
            for line in path.read_text().splitlines()
        )
    )
    assert importing == ['nps_sonar_py/dataset/distributed.py']
