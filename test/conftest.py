"""Test session setup: an own ROS domain, discovery on this host, ROS tests never skipped in CI.

Tests marked ``ros`` need the colcon-built messages (``scripts/test`` builds them and sets
``NPS_REQUIRE_ROS=1``). Run by plain ``pytest`` without that build they are skipped with the
reason; under ``scripts/test`` (and so in CI) a missing build is an error, not a skip.
"""

from __future__ import annotations

import os
import random
import socket

import pytest

# The domain lock follows ROS's domain_coordinator: a TCP port bound on the loopback per
# domain id (32768 + id) for as long as the session runs, so parallel sessions never share.
_DOMAIN_PORT_BASE = 32768


def _reserve_domain() -> tuple[int, socket.socket]:
    ids = list(range(1, 101))
    random.shuffle(ids)
    for domain_id in ids:
        lock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            lock.bind(('127.0.0.1', _DOMAIN_PORT_BASE + domain_id))
        except OSError:
            lock.close()
            continue
        return domain_id, lock
    msg = 'no free ROS_DOMAIN_ID in 1..100'
    raise RuntimeError(msg)


_DOMAIN_ID, _DOMAIN_LOCK = _reserve_domain()
# Set before any rclpy.init: the middleware reads them when a participant is created, and
# the node processes the tests start inherit them.
os.environ['ROS_DOMAIN_ID'] = str(_DOMAIN_ID)
os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
os.environ.setdefault('RMW_IMPLEMENTATION', 'rmw_fastrtps_cpp')


def _ros_missing() -> str | None:
    try:
        import rclpy  # noqa: F401

        from nps_sonar.msg import SonarPoint  # noqa: F401
    except ImportError as error:
        return f'the ROS 2 environment is not set up ({error}); run scripts/test, which builds it'
    return None


def _shared_set_up(item: pytest.Item) -> tuple[str, ...]:
    """Where the module- or session-scoped fixtures ``item`` uses are defined (their node ids).

    Those of pytest itself (defined at the root, '') and the ROS domain (a per-session fact)
    do not count: they are no set-up worth sharing.
    """
    info = getattr(item, '_fixtureinfo', None)
    if info is None:
        return (item.nodeid.split('::')[0],)
    return tuple(
        sorted(
            {
                definition.baseid
                for definitions in info.name2fixturedefs.values()
                for definition in definitions
                if definition.scope != 'function'
                and definition.baseid
                and definition.argname != 'ros_domain_id'
            }
        )
    )


#: Seconds a test takes, about, by module: those far from their folder's (``_cost``), each
#: test's mean once the tests in ``TEST_COSTS`` are set apart. From a whole-suite
#: ``--durations=0`` run on the idle machine (set-up, call and tear-down).
MODULE_COSTS = {
    'test/dataset/test_dataset_runs.py': 2.5,  # Ray runs started and killed
    'test/sensing/test_scatterer_texture.py': 3.5,  # Monte Carlo over 40 renders
    'test/sensing/test_formed_fan.py': 1.0,
    'test/test_background.py': 2.0,
    'test/echo/test_seabed_diffuse.py': 1.5,  # closed forms on a grid of a million points
    # Its benchmark starts when collection ends and runs beside the session's tests
    # (test/realism/conftest.py): it takes both sessions' cores alike.
    'test/realism/test_realism_benchmark.py': 0.05,
}
#: Seconds the dearest tests take (each parametrisation), by test function, idle. The local
#: Ray tests' are the idle run's times the ratio measured since, back to back, for the local
#: Ray without a ``runtime_env`` (``dataset/distributed.py``): 0.92, 0.93 and 0.73.
TEST_COSTS = {
    'test_two_ray_workers_make_the_same_files_beside_another_ray': 33.6,
    'test_the_readme_coherent_demo_draws_both_pictures': 26.7,
    'test_a_ray_cluster_joined_by_address_makes_the_same_files_in_batches': 22.3,
    'test_a_ray_run_killed_mid_batch_resumes_to_the_same_files': 14.4,
    'test_mypy_passes': 11.2,
    'test_a_batch_whose_worker_dies_twice_is_made_again_sample_by_sample': 10.6,
}
#: Seconds a node test takes (it starts a node and waits for it), and any other test.
NODE_TEST_COST, TEST_COST = 2.5, 0.05


def _cost(item: pytest.Item) -> float:
    """About how long ``item`` keeps its session busy, s (``TEST_COSTS``, ``MODULE_COSTS``)."""
    module = item.nodeid.split('::')[0]
    function = item.nodeid.split('::')[-1].split('[')[0]
    default = NODE_TEST_COST if module.startswith('test/ros/') else TEST_COST
    return TEST_COSTS.get(function, MODULE_COSTS.get(module, default))


def _keep_shard(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With ``NPS_TEST_SHARD=i/n`` (``scripts/test`` runs n sessions at once), keep shard i.

    The tests sharing a module- or session-scoped set-up go together (it is made once, in one
    session); these groups are dealt out dearest first (``_cost``), each to the shard with the
    least so far, so that the sessions end together. Every test is in exactly one shard; every
    session deals the same collection the same way.
    """
    shard = os.environ.get('NPS_TEST_SHARD')
    if not shard:
        return
    index, count = (int(part) for part in shard.split('/'))
    # Union-find over the set-ups: two tests sharing one are in one group.
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        while parent.setdefault(name, name) != name:
            name = parent[name]
        return name

    keys = []
    for item in items:
        names = _shared_set_up(item) or (item.nodeid,)
        for name in names[1:]:
            parent[root(name)] = root(names[0])
        keys.append(names[0])
    costs: dict[str, float] = {}
    for item, key in zip(items, keys, strict=True):
        costs[root(key)] = costs.get(root(key), 0.0) + _cost(item)
    loads, shard_of = [0.0] * count, {}
    for group in sorted(costs, key=lambda g: -costs[g]):  # stable: equals in collection order
        shard_of[group] = loads.index(min(loads))
        loads[shard_of[group]] += costs[group]
    kept, dropped = [], []
    for item, key in zip(items, keys, strict=True):
        (kept if shard_of[root(key)] == index else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep this session's shard; skip ``ros`` tests, saying why, only where the build is
    absent and not required."""
    _keep_shard(config, items)
    reason = _ros_missing()
    if reason is None:
        return
    if os.environ.get('NPS_REQUIRE_ROS') == '1':
        raise pytest.UsageError(f'NPS_REQUIRE_ROS=1 but {reason}')
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if 'ros' in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope='session')
def ros_domain_id() -> int:
    """The ROS_DOMAIN_ID of this test session."""
    return _DOMAIN_ID
