"""An update of a world's scene state (a ``SceneState`` message) is applied whole or not at all.

``update_problem`` is the check; each case changes one thing of a good update and expects the
problem word for word. The world: ``tank`` (links ``floor`` and ``walls``) and ``target`` in the
world frame, ``tag`` on ``tank::walls``.
"""

from __future__ import annotations

import numpy as np
import pytest

from nps_sonar_py.scene import Entity, EntityState, SceneState, World
from nps_sonar_py.scene.scene_state import update_problem
from nps_sonar_py.scene.tessellation import box_triangles


@pytest.fixture(scope='module')
def world() -> World:
    walls = np.eye(4)
    walls[2, 3] = 1.0
    tank = Entity(
        'tank', box_triangles([4.0, 4.0, 0.1]), links={'floor': np.eye(4), 'walls': walls}
    )
    target = Entity('target', box_triangles([0.5, 0.5, 0.5]))
    tag = Entity('tag', box_triangles([0.1, 0.1, 0.1]))
    placed = SceneState(
        'tank_world', 0.0, (EntityState('tag', 'tank::walls'), EntityState('target'))
    )
    return World('tank_world', (tank, target, tag), placed)


GOOD = (EntityState('target'), EntityState('tag', 'tank::walls'))

# (case id, scene named, states, problem or None)
CASES = [
    ('good', 'tank_world', GOOD, None),
    ('empty-scene-matches-any', '', GOOD, None),
    ('no-states', 'tank_world', (), None),
    ('an-unplaced-model', '', (EntityState('tank'),), None),  # the file left it at the origin
    (
        'another-scene',
        'harbour',
        GOOD,
        "scene 'harbour' is not this world, 'tank_world'",
    ),
    (
        'an-unknown-model',
        '',
        (*GOOD, EntityState('ghost')),
        "entities[2].model 'ghost' is no model of world 'tank_world'",
    ),
    (
        'another-parent-frame',
        '',
        (EntityState('target'), EntityState('tag', 'world')),
        "entities[1].parent_frame 'world' is not 'tank::walls', the frame that places 'tag'",
    ),
]


@pytest.mark.parametrize(
    ('scene', 'states', 'problem'), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_an_update_is_checked_against_the_world(
    world: World, scene: str, states: tuple[EntityState, ...], problem: str | None
) -> None:
    assert update_problem(scene, states, world=world.name, frames=world.frames) == problem


def test_the_world_gives_each_entity_its_parent_frame(world: World) -> None:
    assert world.frames == {'tank': 'world', 'target': 'world', 'tag': 'tank::walls'}
