"""The shards ``scripts/test`` runs at once (``NPS_TEST_SHARD=i/n``, ``test/conftest.py``).

Each test must be in exactly one shard, and the tests sharing a session- or module-scoped
fixture in the same one (else it is made twice). Checked by collecting a small test tree
under this suite's own ``conftest.py``: a session fixture of a sub-folder's conftest used by
tests of two modules, and a module fixture. Dealt one by one without regard to fixtures, the
first and fourth test of ``test_a.py`` (both users of the session fixture) would land in
different shards.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).resolve().parent / 'conftest.py'

SUB_CONFTEST = """
import pytest

@pytest.fixture(scope='session')
def shared_session():
    return 1
"""
TEST_A = """
import pytest

@pytest.fixture(scope='module')
def shared_module():
    return 2

def test_0(shared_session): pass
def test_1(shared_module): pass
def test_2(): pass
def test_3(shared_session): pass
def test_4(shared_module): pass
def test_5(): pass
"""
TEST_B = """
def test_0(): pass
def test_1(shared_session): pass
def test_2(): pass
def test_3(): pass
"""
SESSION_USERS = ('sub/test_a.py::test_0', 'sub/test_a.py::test_3', 'sub/test_b.py::test_1')
MODULE_USERS = ('sub/test_a.py::test_1', 'sub/test_a.py::test_4')


def collected(tree: Path, shard: str | None) -> list[str]:
    """The node ids pytest keeps of ``tree`` in ``shard`` (None: without shards)."""
    environment = {k: v for k, v in os.environ.items() if k != 'NPS_TEST_SHARD'}
    environment['PYTEST_DISABLE_PLUGIN_AUTOLOAD'] = '1'  # hypothesis's, dash's: seconds each
    if shard is not None:
        environment['NPS_TEST_SHARD'] = shard
    command = [sys.executable, '-m', 'pytest', '-p', 'no:cacheprovider', '--collect-only', '-q']
    result = subprocess.run(
        [*command, '--rootdir', str(tree), str(tree)],
        cwd=tree,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return [line for line in result.stdout.splitlines() if line.startswith('sub/')]


def test_each_test_is_in_one_shard_and_a_shared_fixture_in_one(tmp_path: Path) -> None:
    shutil.copy(CONFTEST, tmp_path / 'conftest.py')
    (tmp_path / 'sub').mkdir()
    (tmp_path / 'sub' / 'conftest.py').write_text(SUB_CONFTEST)
    (tmp_path / 'sub' / 'test_a.py').write_text(TEST_A)
    (tmp_path / 'sub' / 'test_b.py').write_text(TEST_B)
    whole = collected(tmp_path, None)
    assert len(whole) == 10, whole
    shards = [collected(tmp_path, f'{i}/2') for i in range(2)]
    assert all(shards), shards  # both get work
    assert sorted(shards[0] + shards[1]) == sorted(whole), shards  # none lost, none twice
    for users in (SESSION_USERS, MODULE_USERS):
        holding = {i for i, shard in enumerate(shards) for user in users if user in shard}
        assert len(holding) == 1, (users, shards)
