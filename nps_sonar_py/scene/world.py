"""The world model: entities (a model's triangles and surface values) and their scene state.

A :class:`World` holds one :class:`Entity` per model, in the order of its file, and the
:class:`~nps_sonar_py.scene.scene_state.SceneState` that places them; it resolves each
entity's parent frame (``world``, another model, or one of its links) and orders parents
before their children. It is read from a scene file (:mod:`nps_sonar_py.scene.scene_file`)
or a Gazebo SDF world (:mod:`nps_sonar_py.scene.sdf`); :func:`nps_sonar_py.scene.load_world`
picks the reader.

Surface values per triangle: ``reflectivity``, the Lambert coefficient the echo model uses
(``echo.reflectivity.lambert_coefficient`` of what the file gives), and ``retro``, Gazebo's
``laser_retro`` as read, which a ray sensor reports as its intensity (``docs/scene.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.echo.reflectivity import DEFAULT_LAMBERT
from nps_sonar_py.echo.seabed import Seabed
from nps_sonar_py.errors import SceneError
from nps_sonar_py.scene.reflectivity_map import SurfaceMaps
from nps_sonar_py.scene.scene_state import (
    FRAME_SEPARATOR,
    WORLD_FRAME,
    EntityState,
    SceneState,
    split_frame,
)
from nps_sonar_py.scene.tessellation import Triangles

__all__ = ['Entity', 'World']


@dataclass(frozen=True, eq=False)  # arrays: compare fields with numpy
class Entity:
    """A model's surface in the frame of its root link.

    Attributes:
        name: the model's name in the world; unique, not ``world``, without ``::``.
        surface: triangles of all its links at zero joint positions, in metres, entity frame.
        reflectivity: (k,) Lambert coefficient of each triangle, in [0, 1]; a scalar given
            to the constructor applies to all.
        links: (4, 4) transform link -> entity frame of each link, for
            ``<parent frame="m::link">``.
        source: the file the model was read from, if any.
        retro: (k,) Gazebo ``laser_retro`` of each triangle as read, finite and >= 0, not
            clipped; 0 (Gazebo's default) where the file gives none. A scalar applies to all.
        maps: the reflectivity maps of its triangles, or None (none has one): where a map
            covers a triangle, the raycaster takes mu from it instead of ``reflectivity``;
            ``surface.uvs`` place them.
        seabed: the model's seabed (sediment, texture, ripples; ``docs/seabed.md``), or
            None: its surfaces keep the Lambert law of ``reflectivity``.

    """

    name: str
    surface: Triangles
    reflectivity: NDArray[np.float64] = field(default_factory=lambda: np.array(DEFAULT_LAMBERT))
    links: Mapping[str, NDArray[np.float64]] = field(default_factory=dict)
    source: str | None = None
    retro: NDArray[np.float64] = field(default_factory=lambda: np.array(0.0))
    maps: SurfaceMaps | None = None
    seabed: Seabed | None = None

    def __post_init__(self) -> None:
        if self.maps is not None and (
            self.maps.which.shape != (len(self.surface),)
            or self.surface.uvs is None
            or self.surface.uvs.shape != (self.surface.vertices.shape[0], 2)
        ):
            msg = f'entity {self.name!r}: maps need one index per triangle and uvs per vertex'
            raise ValueError(msg)
        mu = self._per_triangle(self.reflectivity)
        if not np.all((mu >= 0.0) & (mu <= 1.0)):
            msg = f'entity {self.name!r}: reflectivity must be in [0, 1]'
            raise ValueError(msg)
        retro = self._per_triangle(self.retro)
        if not np.all((retro >= 0.0) & np.isfinite(retro)):
            msg = f'entity {self.name!r}: retro must be finite and >= 0'
            raise ValueError(msg)
        object.__setattr__(self, 'reflectivity', mu)
        object.__setattr__(self, 'retro', retro)
        object.__setattr__(self, 'links', MappingProxyType(dict(self.links)))

    def _per_triangle(self, values: NDArray[np.float64]) -> NDArray[np.float64]:
        """``values`` as a read-only (k,) float64 array, one per triangle."""
        array = np.broadcast_to(np.asarray(values, dtype=np.float64), (len(self.surface),)).copy()
        array.flags.writeable = False
        return array


@dataclass(frozen=True, eq=False)  # arrays: compare fields with numpy
class World:
    """Entities and the scene state that places them; the parent frames are resolved here.

    Attributes:
        name: the world's name (the ``<scene_state scene>`` must match it).
        entities: the entities, in the order of the file; an entity's index is its id.
        scene_state: the states; an entity it does not name stands still at the origin.
        source: the scene file, if any, for error messages.
        states: (derived) the state of each entity, in entity order.
        parents: (derived) index of each entity's parent entity, -1 for the world.
        attachments: (derived) (k, 4, 4) transform parent frame -> parent entity's frame
            (a link's pose in its entity; identity for ``world`` and a root).
        order: (derived) entity indices with every parent before its children.

    Raises:
        SceneError: a state for an unknown model, an unknown parent frame, a cycle of
            parents, or a scene name that is not the world's.

    """

    name: str
    entities: tuple[Entity, ...]
    scene_state: SceneState
    source: str | None = None
    states: tuple[EntityState, ...] = field(init=False, repr=False)
    parents: NDArray[np.int64] = field(init=False, repr=False)
    attachments: NDArray[np.float64] = field(init=False, repr=False)
    order: tuple[int, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, 'entities', tuple(self.entities))
        names = [e.name for e in self.entities]
        index = {name: i for i, name in enumerate(names)}
        for i, entity in enumerate(self.entities):
            if entity.name == WORLD_FRAME or FRAME_SEPARATOR in entity.name or not entity.name:
                problem = f'model name {entity.name!r} is reserved or contains {FRAME_SEPARATOR!r}'
                raise SceneError(
                    problem, file=self.source, element=f'<model name="{entity.name}">'
                )
            if index[entity.name] != i:
                raise SceneError(
                    f'two models named {entity.name!r}', file=self.source, element='<world>'
                )
        state_file = self.scene_state.source or self.source
        if self.scene_state.scene != self.name:
            problem = (
                f'scene={self.scene_state.scene!r} is not the name of this world, {self.name!r}'
            )
            raise SceneError(
                problem, file=state_file, line=self.scene_state.line, element='<scene_state>'
            )
        for state in self.scene_state.entities:
            if state.model not in index:
                problem = f'no model named {state.model!r} (models: {", ".join(names) or "none"})'
                raise SceneError(
                    problem, file=state_file, line=state.line, element=_state_label(state)
                )
        states = tuple(self.scene_state.entity(n) or EntityState(n) for n in names)
        parents = np.full(len(names), -1, dtype=np.int64)
        attachments = np.tile(np.eye(4), (len(names), 1, 1))
        for i, state in enumerate(states):
            model, link = split_frame(state.frame)
            if model is None:
                continue
            where = _state_label(state)
            if model not in index:
                problem = f'unknown parent frame {state.frame!r}: no model named {model!r}'
                raise SceneError(problem, file=state_file, line=state.line, element=where)
            parent = self.entities[index[model]]
            if link is not None:
                if link not in parent.links:
                    known = ', '.join(parent.links) or 'none'
                    problem = f'unknown parent frame {state.frame!r}: model {model!r}'
                    problem += f' has no link {link!r} ({known})'
                    raise SceneError(problem, file=state_file, line=state.line, element=where)
                attachments[i] = parent.links[link]
            parents[i] = index[model]
        order = _parents_first(parents, names, states, state_file)
        parents.flags.writeable = False
        attachments.flags.writeable = False
        object.__setattr__(self, 'states', states)
        object.__setattr__(self, 'parents', parents)
        object.__setattr__(self, 'attachments', attachments)
        object.__setattr__(self, 'order', order)

    @property
    def time_stamp(self) -> float:
        """Time in seconds at which the scene state holds."""
        return self.scene_state.time_stamp

    @property
    def entity_names(self) -> tuple[str, ...]:
        """Names of the entities; index ``i`` is the id a raycast reports."""
        return tuple(e.name for e in self.entities)

    @property
    def frames(self) -> dict[str, str]:
        """The parent frame each entity is placed in, by name (an update cannot change it)."""
        return {state.model: state.frame for state in self.states}

    def index(self, name: str) -> int:
        """Index of the entity ``name``; KeyError if there is none."""
        for i, entity in enumerate(self.entities):
            if entity.name == name:
                return i
        msg = f'no entity named {name!r} in world {self.name!r}'
        raise KeyError(msg)

    def moving(self) -> NDArray[np.bool_]:
        """(k,) whether each entity's world pose changes with time (its twist or an ancestor's)."""
        moves = np.zeros(len(self.entities), dtype=bool)
        for i in self.order:
            moves[i] = self.states[i].moves or (self.parents[i] >= 0 and moves[self.parents[i]])
        return moves

    def poses(
        self,
        time: float | None = None,
        *,
        overrides: Mapping[int, NDArray[np.float64]] | None = None,
        states: Mapping[int, tuple[EntityState, float]] | None = None,
    ) -> NDArray[np.float64]:
        """(k, 4, 4) transforms entity -> world at ``time`` seconds (default: the time stamp).

        ``overrides`` maps entity indices to a fixed entity -> world transform that replaces
        the one from its state; its children follow it. ``states`` maps entity indices to a
        newer state (same parent frame) and the scene time at which it holds.
        """
        t = self.time_stamp if time is None else float(time)
        overrides = overrides or {}
        states = states or {}
        poses = np.zeros((len(self.entities), 4, 4))
        for i in self.order:  # one small matrix product per entity, not per triangle
            if i in overrides:
                poses[i] = overrides[i]
                continue
            state, since = states.get(i, (self.states[i], self.time_stamp))
            local = state.pose(t - since)
            parent = self.parents[i]
            poses[i] = local if parent < 0 else poses[parent] @ self.attachments[i] @ local
        return poses


def _state_label(state: EntityState) -> str:
    return f'<entity_state model="{state.model}">'


def _parents_first(
    parents: NDArray[np.int64],
    names: Sequence[str],
    states: Sequence[EntityState],
    file: str | None,
) -> tuple[int, ...]:
    """Entity indices ordered parents first; a cycle of parents is a SceneError."""
    order: list[int] = []
    done = np.zeros(len(names), dtype=bool)
    for start in range(len(names)):
        chain: list[int] = []
        i = start
        while i >= 0 and not done[i]:
            if i in chain:
                cycle = ' -> '.join(names[j] for j in [*chain[chain.index(i) :], i])
                problem = f'parent frames form a cycle: {cycle}'
                raise SceneError(
                    problem, file=file, line=states[i].line, element=_state_label(states[i])
                )
            chain.append(i)
            i = int(parents[i])
        for j in reversed(chain):
            done[j] = True
            order.append(j)
    return tuple(order)
