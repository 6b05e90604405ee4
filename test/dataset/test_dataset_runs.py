"""The same files wherever the samples run: in-process without Ray, on a local Ray of two
workers, on a Ray cluster joined by address, and after a run killed midway is resumed; a
sample that fails is retried and recorded, and the run goes on.

Ray really starts here (never skipped): once for ``--workers 2`` (the command's own local
Ray) and once as a head node the command joins, each with 2 CPUs, no dashboard and a small
object store.
"""

from __future__ import annotations

import json
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from dataset_runs import (
    FLS_SPEC,
    REPO,
    command,
    dataset_files,
    environment,
    run_cli,
    write_spec,
)

from nps_sonar_py.dataset import read_manifest

#: Longest wait for a process to reach a state, s (a loaded 2-core machine).
DEADLINE = 300.0


def _same_files(reference: Path, out: Path) -> None:
    expected, got = dataset_files(reference), dataset_files(out)
    assert sorted(got) == sorted(expected)
    differing = [name for name in expected if expected[name] != got[name]]
    assert not differing, differing


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


def test_two_ray_workers_make_the_same_files(fls_reference: Path, tmp_path: Path) -> None:
    out = tmp_path / 'out'
    result = run_cli(fls_reference.parent / 'spec.yaml', out, '--samples', '6', '--workers', '2')
    assert result.returncode == 0, result.stderr
    assert 'Started a local Ray instance' in result.stderr  # it did run on Ray
    _same_files(fls_reference, out)
    run = json.loads((out / 'run.json').read_text())
    assert (run['workers'], run['made']) == (2, 6)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope='module')
def ray_head() -> Iterator[str]:
    """A Ray head node of 2 CPUs on this host (``ray start --head --block``); its address."""
    port = _free_port()
    temporary = tempfile.mkdtemp(prefix='nps_ray_', dir='/tmp')  # short: Ray's socket paths
    head = subprocess.Popen(
        [
            sys.executable, '-m', 'ray.scripts.scripts', 'start', '--head', '--block',
            f'--port={port}', '--num-cpus=2', '--include-dashboard=false',
            f'--object-store-memory={200 * 2**20}', '--disable-usage-stats',
            f'--temp-dir={temporary}', '--node-ip-address=127.0.0.1',
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=environment(),
    )  # fmt: skip
    assert head.stdout is not None
    lines = []
    for line in head.stdout:  # the head says when it is up
        lines.append(line)
        if 'Ray runtime started' in line:
            break
    else:
        pytest.fail('ray start --head ended before it started:\n' + ''.join(lines))
    try:
        yield f'127.0.0.1:{port}'
    finally:
        head.send_signal(signal.SIGTERM)  # --block: it stops the processes it started
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()
        shutil.rmtree(temporary, ignore_errors=True)


def test_a_ray_cluster_joined_by_address_makes_the_same_files(
    fls_reference: Path, ray_head: str, tmp_path: Path
) -> None:
    out = tmp_path / 'out'
    spec = fls_reference.parent / 'spec.yaml'
    result = run_cli(spec, out, '--samples', '6', '--address', ray_head, '--quiet')
    assert result.returncode == 0, result.stderr
    _same_files(fls_reference, out)
    assert json.loads((out / 'run.json').read_text())['address'] == ray_head


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
