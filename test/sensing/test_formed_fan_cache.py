"""A formed fan keeps each entity's scatterers in its own frame from ping to ping (issue 33).

``entity_scatterers.ScattererCache`` places an entity's scatterers once, in the entity's
frame, moves them by its pose each ping and places them anew when its mesh changes; it holds
them to a memory budget, emptied and refilled from the ping's lit triangles when full.
Checked on a real Open3D scene of a seabed of two large triangles (tiled by patches) and a
drum of small ones (its unhit triangles near hits lit too), each against a fresh sonar (a
cold cache) at the same scene:

* a still scene: the warm sonar's ping equals the fresh one's bit for bit, and its second
  ping placed no scatterer (the cache was used);
* a moved drum: its scatterers move with it (the warm ping equals the fresh one's, differs
  from before); control: meshes that report the drum's old pose (scatterers left in the
  world frame) give another ping than the fresh sonar's;
* a changed drum (another mesh, same triangle count): placed anew; control: a cache that
  keys on the entity alone, not its mesh (stale), gives another ping;
* a moved sonar (the last cast's near triangles remembered, ``EntityScatterers.lit_rows``):
  its ping is the fresh sonar's at the new pose bit for bit; control: a memory that never
  forgets (the first cast's lit triangles kept) gives another ping;
* a budget of 1.5 times one pose's lit scatterers: moved on, the cache is emptied once and
  holds the second ping's alone (as a fresh sonar's); the ping is the fresh sonar's bit for
  bit.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from coherent_scenes import chirp, lossless_echo, pitched, seabed_and_drum, sector

from nps_sonar_py.echo import entity_scatterers
from nps_sonar_py.echo.engine import formed_engine
from nps_sonar_py.echo.entity_scatterers import (
    EntityMesh,
    EntityScatterers,
    ScattererCache,
)
from nps_sonar_py.echo.formed_engine import FormedEngine
from nps_sonar_py.scene import Raycaster
from nps_sonar_py.sensing.multibeam import MultibeamSonar
from nps_sonar_py.transforms import transform_from_xyz_rpy

DRUM_AT = (8.0, 0.0, -2.5)


def scene(drum_radius: float = 0.4) -> Raycaster:
    """The seabed and a drum of ``drum_radius`` m standing on it at ``DRUM_AT``."""
    return seabed_and_drum(DRUM_AT, drum_radius)


def fan(x: float = 0.0, y: float = 0.0) -> MultibeamSonar:
    """64 beams over 30 degrees at 400 kHz, 2 to 14 m, at ``(x, y)``, pitched 15 degrees down."""
    echo = lossless_echo(2.0, 14.0, 200, beam_width=math.radians(1.0))
    half = math.radians(15.0)
    fan = sector(64, half, vertical_width=math.radians(20.0), rays_horizontal=1, rays_vertical=40)
    return MultibeamSonar(echo, fan, pitched(0.0, 15.0, x, y), coherent=chirp(1e-3, 30e3))


def engine(sonar: MultibeamSonar) -> FormedEngine:
    """The sonar's formed engine."""
    found = formed_engine(sonar.engine)
    assert found is not None
    return found


def test_a_still_scene_reuses_the_cache_bit_for_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    world = scene()
    placed = []
    real = entity_scatterers.surface_scatterers

    def counted(*args: object, **kwargs: object) -> object:
        placed.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(entity_scatterers, 'surface_scatterers', counted)
    sonar = fan()
    first = sonar.ping(world)
    assert placed  # the first ping placed the lit triangles' scatterers
    placed.clear()
    cached = sonar.ping(world)
    assert not placed  # the second took them from the cache
    assert np.array_equal(cached.profiles, first.profiles)
    assert np.array_equal(cached.profiles, fan().ping(world).profiles)
    assert cached.profiles.max() > 0.0


def test_moving_an_entity_moves_its_scatterers() -> None:
    world, frozen = scene(), scene()
    warm, control = fan(), fan()
    warm.ping(world)
    before = warm.ping(world)
    drum = frozen.entity_meshes(np.array([12]))[0]  # the drum's mesh and pose before
    real = frozen.entity_meshes

    def old_pose(ids: np.ndarray) -> tuple[EntityMesh, ...]:
        return tuple(
            EntityMesh(m.first, m.vertices, m.triangles, drum.pose) if m.first == 12 else m
            for m in real(ids)
        )

    frozen.entity_meshes = old_pose  # type: ignore[method-assign]
    x, y, z = DRUM_AT
    for moved in (world, frozen):
        moved.set_entity_pose('drum', transform_from_xyz_rpy((x, y + 0.3, z), (0, 0, 0)))
    after, fresh = warm.ping(world), fan().ping(world)
    assert np.array_equal(after.profiles, fresh.profiles)
    assert not np.array_equal(after.profiles, before.profiles)
    # Control: scatterers that stay where the drum stood are another ping.
    assert not np.array_equal(control.ping(frozen).profiles, fresh.profiles)


class _Stale(ScattererCache):
    """A cache keyed on the entity alone, blind to its mesh (the control)."""

    def entity(self, mesh: EntityMesh, density: float, seed: int) -> EntityScatterers:
        kept = self.entities.get(mesh.first)
        return kept if kept is not None else super().entity(mesh, density, seed)


def test_a_changed_mesh_places_its_scatterers_anew() -> None:
    before, changed = scene(0.4), scene(0.5)
    warm, stale = fan(), fan()
    engine(stale).scatterers = _Stale()
    for sonar in (warm, stale):
        sonar.ping(before)
    fresh = fan().ping(changed)
    assert np.array_equal(warm.ping(changed).profiles, fresh.profiles)
    assert not np.array_equal(warm.ping(changed).profiles, warm.ping(before).profiles)
    assert not np.array_equal(stale.ping(changed).profiles, fresh.profiles)


def test_a_full_cache_is_emptied_and_refilled_from_the_ping() -> None:
    world = scene()
    probe = fan()
    probe.ping(world)
    first = sum(e.bytes for e in engine(probe).scatterers.entities.values())
    small = fan()
    cache = engine(small).scatterers = ScattererCache(budget=3 * first // 2)
    small.ping(world)
    assert cache.emptied == 0
    small.set_pose(fan(x=-8.0).world_from_body)  # farther back: other triangles lit
    moved = small.ping(world)
    assert cache.emptied == 1
    fresh = fan(x=-8.0)
    assert np.array_equal(moved.profiles, fresh.ping(world).profiles)
    held = [e.bytes for e in engine(fresh).scatterers.entities.values()]
    assert sum(e.bytes for e in cache.entities.values()) == sum(held)  # this ping's alone


def test_a_moved_sonar_seeks_its_lit_triangles_anew(monkeypatch: pytest.MonkeyPatch) -> None:
    world = scene()
    warm = fan(2.0, 1.5)  # the drum at 6 m, aside: fewer of its triangles lit than from afar
    warm.ping(world)
    still = warm.ping(world)  # the same cast: its lit triangles remembered
    warm.set_pose(pitched(0.0, 15.0))
    moved, fresh = warm.ping(world), fan().ping(world)
    assert np.array_equal(moved.profiles, fresh.profiles)
    assert not np.array_equal(moved.profiles, still.profiles)
    # Control: lit triangles kept from the first cast whatever the sonar casts after.
    real = EntityScatterers.lit_rows
    kept: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def forever(
        self: EntityScatterers, tri: np.ndarray, points: np.ndarray, spacing: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        rows, hits = kept.setdefault(self.mesh.first, real(self, tri, points, spacing))
        return rows, np.minimum(hits, tri.size - 1)  # the old cast's hits held in range

    monkeypatch.setattr(EntityScatterers, 'lit_rows', forever)
    stale = fan(2.0, 1.5)
    stale.ping(world)
    stale.set_pose(pitched(0.0, 15.0))
    assert not np.array_equal(stale.ping(world).profiles, fresh.profiles)
