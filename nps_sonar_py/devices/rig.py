"""A device on a robot in a world: what a node moves, reads and reconfigures.

The robot's root link sits at ``world_from_root`` in the world; its joints move the device
through its :class:`RobotMount`. The rig casts into one ``caster`` (the world's raycaster,
which the sensors of one process may share), bent by the water's sound-speed profile when
the setup's ``BeamSettings`` give one (:func:`medium_caster`, the one place that wraps it).
No rclpy here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.description import Robot
from nps_sonar_py.devices.build import build_device
from nps_sonar_py.devices.interface import Device
from nps_sonar_py.devices.kinds import Setup
from nps_sonar_py.devices.mount import RobotMount
from nps_sonar_py.devices.settings import BeamSettings
from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.sensing.caster import SurfaceCaster
from nps_sonar_py.sensing.multipath import THROUGH_A_PROFILE
from nps_sonar_py.sensing.refraction import PlacedScene, RefractingCaster, scene_bounds
from nps_sonar_py.sensing.seabed_caster import seabed_caster

__all__ = ['Rig', 'medium_caster']


def medium_caster(caster: SurfaceCaster, beam: BeamSettings) -> SurfaceCaster:
    """``caster``, or a :class:`RefractingCaster` around it when ``beam`` gives a profile.

    A world with seabeds is first wrapped in a ``SeabedCaster`` at the beam's frequency and
    sound speed (``sensing.seabed_caster``: the seabed law's one hook; ``docs/seabed.md``).

    A scene's raycaster also gives the box its entities are in, so that only the chords
    that can meet them are cast.

    Raises ``InputError`` (file and row) or ``ConfigurationError`` for a profile that
    cannot be used, or one given with multipath (``max_bounces`` > 0).
    """
    profile = beam.water_profile()
    speed = beam.sound_speed or beam.environment().sound_speed
    seabed = seabed_caster(caster, beam.frequency, speed)
    if profile is None:
        return seabed
    if beam.max_bounces > 0:
        raise ConfigurationError(THROUGH_A_PROFILE)
    bounds = scene_bounds(caster) if isinstance(caster, PlacedScene) else None
    return RefractingCaster(seabed, profile, surface_z=beam.sea_surface_z, bounds=bounds)


class Rig:
    """One device mounted on a robot, placed in a world.

    Args:
        robot: the robot carrying the device.
        setup: the settings the device is built from (``devices/build.py``).
        caster: the world's raycaster (straight rays; ``raycaster`` keeps it, ``caster`` is
            what the device reads through).
        world_from_root: (4, 4) pose of the robot's root link in the world.
        entities: the number of the world's entities (the label table of a labelling sensor).
    """

    def __init__(
        self,
        robot: Robot,
        setup: Setup,
        caster: SurfaceCaster,
        world_from_root: NDArray[np.float64],
        *,
        entities: int = 0,
    ) -> None:
        self.robot = robot
        self.entities = entities
        self.raycaster = caster
        self.caster = medium_caster(caster, setup[BeamSettings])
        self._next_caster: tuple[Setup, SurfaceCaster] | None = None
        self.setup = setup
        self.mount: RobotMount
        self.device: Device[Any]
        self.mount, self.device = build_device(robot, setup, entities=entities)
        self.world_from_root = np.asarray(world_from_root, dtype=np.float64)
        self.joints: dict[str, float] = {}
        self.mount.place(self.device, self.world_from_root, self.joints)

    def move(self, world_from_root: NDArray[np.float64], joints: Mapping[str, float]) -> bool:
        """Move the robot: its root link and its joints; whether the device's geometry changed."""
        self.world_from_root = np.asarray(world_from_root, dtype=np.float64)
        self.joints = dict(joints)
        return self.mount.place(self.device, self.world_from_root, self.joints)

    def read(self) -> Any:
        """One reading of the device where the robot holds it now."""
        return self.device.read(self.caster)

    def rebuilt(self, setup: Setup) -> tuple[RobotMount, Device[Any]]:
        """A device of ``setup`` where this one is, not yet in use (raises if refused)."""
        mount, device = build_device(self.robot, setup, entities=self.entities)
        mount.place(device, self.world_from_root, self.joints)
        if (
            setup[BeamSettings] != self.setup[BeamSettings]
        ):  # a new medium: its profile is read (or refused) now
            self._next_caster = (setup, medium_caster(self.raycaster, setup[BeamSettings]))
        return mount, device

    def use(self, setup: Setup, built: tuple[RobotMount, Device[Any]]) -> None:
        """Read with ``built`` (from :meth:`rebuilt`) from now on."""
        if setup[BeamSettings] != self.setup[BeamSettings]:
            pending = self._next_caster
            ready = pending is not None and pending[0] is setup
            self.caster = (
                pending[1]
                if pending is not None and ready
                else medium_caster(self.raycaster, setup[BeamSettings])
            )
        self._next_caster = None
        self.setup = setup
        self.mount, self.device = built
        self.mount.place(self.device, self.world_from_root, self.joints)
