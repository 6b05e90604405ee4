"""What a kind of device is: the contract every module of ``devices/kinds`` fills in.

A :class:`Kind` is one row of the ``KINDS`` table (``devices/kinds/__init__.py``): its name,
the node :class:`Family` that runs it, the settings records of its own, its builder, the
device class the builder makes, the outputs it offers (the ROS layer's converters by name,
``ros/outputs.py``), and the settings of its family it does not use (refused when set, one
line). A :class:`Setup` is the settings a device is built from: the records of its node, by
class. No rclpy here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.description import Robot, SensorType, SonarSpec
from nps_sonar_py.devices.interface import Device
from nps_sonar_py.devices.memory import Size, budget_problem
from nps_sonar_py.devices.mount import RobotMount
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.records import Record, plain, specs

__all__ = [
    'FIXED_SCATTERERS',
    'PER_RAY_SCATTERERS',
    'Built',
    'Family',
    'Kind',
    'Setup',
    'SonarBuilder',
    'Unused',
]

R = TypeVar('R')
#: What a builder returns: the device on its mount.
Built = tuple[RobotMount, Device[Any]]


class Family(StrEnum):
    """The node that runs a kind, and how it picks one of its kinds.

    ``sonar``: its one kind; ``ranger``: by the type of the sensors it selects (``<sensor
    type="ray">`` or ``"sonar"``); ``scanning``: by the ``mode`` setting.
    """

    SONAR = 'sonar'
    RANGER = 'ranger'
    SCANNING = 'scanning'


class Setup:
    """The settings records a device is built from, one per record class: ``setup[BeamSettings]``.

    A record the setup was not given is its defaults. Equal setups build equal devices (a node
    compares them to skip a rebuild).
    """

    def __init__(self, family: Family, *records: Record) -> None:
        self.family = family
        self._records: dict[type[Any], Any] = {type(r): r for r in records}

    def __getitem__(self, record: type[R]) -> R:
        if record not in self._records:
            self._records[record] = record()
        found: R = self._records[record]
        return found

    def replaced(self, *records: Record) -> Setup:
        """A copy of this setup with ``records`` in place of those of their classes."""
        return Setup(self.family, *self._records.values(), *records)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Setup)
            and self.family == other.family
            and self._records == other._records
        )

    def __hash__(self) -> int:
        return hash((self.family, tuple(self._records.values())))

    def __repr__(self) -> str:
        return f'Setup({self.family.value}, {", ".join(map(repr, self._records.values()))})'


#: A kind's core sonar from its settings, a range window (a URDF ``<sonar>``'s or a dataset
#: sample's), a pose (world <- sensor) and the label table's length (``None``: no labels).
SonarBuilder = Callable[[Setup, SonarSpec, NDArray[np.float64], int | None], Any]


@dataclass(frozen=True)
class Unused:
    """Settings of its family's records a kind does not use, and what it does instead.

    Set to anything but their defaults, they are refused with one line:
    ``mode <kind> does not use <names>: <why>; set <name> <default>, ...``.
    """

    settings: tuple[str, ...]
    why: str

    def problem(self, kind: str, setup: Setup, records: Iterable[type[Record]]) -> str | None:
        """Why ``setup`` asks ``kind`` for one of these settings, or ``None``."""
        defaults = {s.name: s.default for r in records for s in specs(r)}
        values = {s.name: getattr(setup[r], s.name) for r in records for s in specs(r)}
        asked = [n for n in self.settings if values[n] != defaults[n]]
        if not asked:
            return None
        resets = ', '.join(f'{n} {_text(defaults[n])}' for n in asked)
        names = ' and '.join([', '.join(asked[:-1]), asked[-1]] if len(asked) > 1 else asked)
        return f'mode {kind} does not use {names}: {self.why}; set {resets}'


#: ``scatterer_density`` in the kinds whose coherent echoes are their rays' hits, not the
#: surfaces' fixed scatterers (``docs/coherent.md``; only a formed fan has those).
PER_RAY_SCATTERERS = Unused(
    ('scatterer_density',),
    "its coherent echoes take each ray's hit as a scatterer (speckle_cell): only a formed fan "
    '(mode multibeam, more than one beam), the side-scan, the sweep and the single beam place '
    'fixed scatterers on the surfaces',
)

#: ``speckle_cell`` in the kinds whose coherent echoes come from the surfaces' fixed
#: scatterers (the side-scan, the sweep, the single beam: ``echo.channel_echoes``).
FIXED_SCATTERERS = Unused(
    ('speckle_cell',),
    "its coherent echoes come from the surfaces' fixed scatterers (scatterer_density), not "
    "from cells about each ray's hit",
)


def _text(value: Any) -> str:
    """A default as a user writes it: ``false``, ``none``, ``0``."""
    shown = plain(value)
    if isinstance(shown, bool):
        return 'true' if shown else 'false'
    return f'{shown:g}' if isinstance(shown, float) else str(shown)


@dataclass(frozen=True)
class Kind:
    """One kind of device: a row of ``KINDS``.

    Attributes:
        name: the kind's name (a scanning node's ``mode``).
        family: the node that runs it.
        summary: a few words on it, for the ``mode`` setting's description.
        device: the class its builder makes (the ROS layer finds the kind of a device by it).
        build: ``build(robot, setup, entities)``: the device on its mount; raises
            ``DescriptionError`` or ``ConfigurationError``.
        records: its own settings records (its node's parameters too).
        outputs: the outputs it offers, by name (``ros/outputs.py`` ``PARTS``), in order.
        sensor: the ``<sensor>`` type it is made of (a ranger node picks its kind by it).
        unused: its family's settings it does not use (refused when set).
        sonar: its core sonar without a robot (``SonarBuilder``), which ``build`` puts on
            its mount and a dataset renders with (``dataset/sensor.py``); ``None`` for a
            kind no dataset renders.
        sizes: the allocations its settings size (``Size``), held to ``MAX_DEVICE_BYTES``
            before it is built (:meth:`budget`).
    """

    name: str
    family: Family
    summary: str
    device: type[Any]
    build: Callable[[Robot, Setup, int], Built]
    records: tuple[type[Record], ...] = ()
    outputs: tuple[str, ...] = ()
    sensor: SensorType = SensorType.SONAR
    unused: tuple[Unused, ...] = ()
    sonar: SonarBuilder | None = None
    sizes: Callable[[Setup], tuple[Size, ...]] = lambda _: ()

    def budget(self, setup: Setup) -> None:
        """Refuse (``ConfigurationError``, one line) settings whose memory is over the budget."""
        problem = budget_problem(self.sizes(setup))
        if problem:
            raise ConfigurationError(problem)

    def check(
        self,
        setup: Setup,
        family_records: tuple[type[Record], ...],
        family: tuple[Kind, ...] = (),
    ) -> None:
        """Refuse (``ConfigurationError``, one line) a setting of ``setup`` this kind ignores.

        Its family's shared settings it names in ``unused``, and every setting of the records
        that are another kind's of ``family`` alone (a new kind's are refused by the others
        with no edit to them).
        """
        for unused in (*self._others(family), *self.unused):
            problem = unused.problem(self.name, setup, family_records)
            if problem:
                raise ConfigurationError(problem)

    def _others(self, family: tuple[Kind, ...]) -> list[Unused]:
        """The settings of the records only other kinds of ``family`` have, by kind."""
        rows = []
        for other in family:
            own = [r for r in other.records if r not in self.records]
            names = tuple(s.name for r in own for s in specs(r))
            if other is not self and names:
                rows.append(Unused(names, f"they are mode {other.name}'s settings"))
        return rows
