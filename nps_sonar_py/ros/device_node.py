"""The node every simulated device runs in: what the sonar, ranger and scanning-sonar nodes share.

A :class:`DeviceNode` declares its parameters from its settings records, reads the robot
and the world (or shares another node's), builds its device with the core builder
(``devices/build.py``) and then, on a timer:

1. brings the world and the robot to the reading's time (``ros/motion.py``: scene time,
   robot pose, joints, scene-state updates);
2. reads the device once (``Device.read``);
3. publishes the reading (``ros/outputs.py``, by the kind of device) and, at
   ``marker_rate``, each sonar beam and its hits as ``visualization_msgs/Marker`` on
   ``<element>/markers``;

and, at ``diagnostics_rate``, its achieved rate on ``/diagnostics`` (``ros/diagnostics.py``).
Its sensor frames go once to ``/tf_static`` and, while it moves the robot from odometry or
pose messages, the root link's pose to ``/tf`` at each reading (``ros/tf.py``).

With ``use_sim_time`` the timer runs on ``/clock`` and nothing is read before ``/clock``
arrives. A device whose readings must all be taken (the steps of a sweep, ``catch_up``) is
read on a schedule ``t0 + k * period``: a tick takes every reading that is due, each stamped
with its own time; more than a cycle behind, the schedule slips (a throttled warning says
so). Other devices are read once per tick, stamped with the tick's time.

Every device serves the Ranger services (``ros/services.py``). The output and the
diagnostics get of the node only its :class:`~nps_sonar_py.ros.context.OutputContext`, made
here once; after new settings are applied, the output is made anew of them and of the
device (keeping its publishers). A subclass says only what is
particular to it: the family of kinds its device is one of (:attr:`FAMILY`, whose records
are its parameters with those of every node), any settings records of its own
(:attr:`EXTRA_RECORDS`) and whether run-time settings may change (:attr:`RECONFIGURABLE`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import NDArray
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.time import Time
from visualization_msgs.msg import Marker

from nps_sonar_py.description import Robot
from nps_sonar_py.devices import Family, Rig, Setup, load_robot_from, robot_root_pose
from nps_sonar_py.devices.kinds import family_records
from nps_sonar_py.devices.settings import MotionSettings, OutputSettings, RobotSettings
from nps_sonar_py.errors import NpsSonarError
from nps_sonar_py.ros.context import OutputContext, Publishers
from nps_sonar_py.ros.conversions import beam_markers
from nps_sonar_py.ros.diagnostics import Diagnostics
from nps_sonar_py.ros.entity_tf import tf_entity_frames
from nps_sonar_py.ros.motion import (
    MESSAGE_POSE_SOURCES,
    Motion,
    SceneStart,
    SharedTf,
    guard_sim_clock,
)
from nps_sonar_py.ros.names import check_topics, device_topics
from nps_sonar_py.ros.outputs import Output, outputs_for
from nps_sonar_py.ros.params import Settings, declare_settings, read_settings, supplied_line
from nps_sonar_py.ros.qos import publisher_qos
from nps_sonar_py.ros.robot_topic import listen
from nps_sonar_py.ros.services import RangerServices
from nps_sonar_py.ros.sim_time import SimTimeWatch
from nps_sonar_py.ros.tf import TfOutput, check_frames, sensor_frames
from nps_sonar_py.scene import load_world

if TYPE_CHECKING:
    from nps_sonar_py.scene.raycaster import Raycaster

__all__ = ['COMMON_RECORDS', 'MIN_TICK', 'DeviceNode']

#: Settings records of every device node.
COMMON_RECORDS: tuple[type[Any], ...] = (RobotSettings, OutputSettings, MotionSettings)
#: Shortest timer period of a catch-up schedule; readings due in between run together, s.
MIN_TICK = 0.01


class DeviceNode(Node):
    """One simulated device on a robot in a world, read on a timer and published.

    ``robot``, ``raycaster``, ``scene_start`` and ``shared_tf`` are shared by the sensors of one
    process (``robot_sensors_node``); by default the node reads its own files. ``root_tf``: whether
    this node may publish the robot's root link on ``/tf`` (one node of a process does).
    ``kwargs`` go to ``rclpy.node.Node`` (``context``, ``parameter_overrides``, ...).
    """

    #: The family of kinds this node runs (``devices/kinds``): their records are its parameters.
    FAMILY: ClassVar[Family]
    #: Settings records of the node's own, beside those of every node and of its setup.
    EXTRA_RECORDS: ClassVar[tuple[type[Any], ...]] = ()
    #: Whether the run-time settings may change while the node runs (else SetConfig only).
    RECONFIGURABLE: ClassVar[bool] = False
    #: The robot and the world when the settings name none (share-directory files).
    DEFAULT_ROBOT: ClassVar[str] = 'config/robots/reference_sonar.urdf'
    DEFAULT_SCENE: ClassVar[str] = 'config/worlds/reference_tank.world'

    @classmethod
    def records(cls) -> tuple[type[Any], ...]:
        """The settings records whose fields are this node's parameters, in declaration order."""
        records = list(COMMON_RECORDS)
        for record in (*family_records(cls.FAMILY), *cls.EXTRA_RECORDS):
            if record not in records:
                records.append(record)
        return tuple(records)

    def __init__(
        self,
        node_name: str,
        *,
        robot: Robot | None = None,
        raycaster: Raycaster | None = None,
        scene_start: SceneStart | None = None,
        shared_tf: SharedTf | None = None,
        root_tf: bool = True,
        **kwargs: Any,
    ) -> None:
        guard_sim_clock()  # before the node subscribes to /clock
        super().__init__(node_name, **kwargs)
        supplied = declare_settings(self, self.records(), runtime=self.RECONFIGURABLE)
        self.settings = read_settings(self, self.records())
        robot, world_from_root = self._make_rig(robot, raycaster)
        output = self.settings[OutputSettings]
        self._make_outputs(output)
        self._make_motion(robot, world_from_root, scene_start, shared_tf, root_tf)
        self._marker_period = 1.0 / output.marker_rate if output.marker_rate > 0.0 else None
        self._next_marker = float('-inf')
        if self._marker_period is not None:
            for beam in self.rig.device.beams():
                self.output_publishers(Marker, f'{beam.frame}/markers')
        self._pending: tuple[Settings, Any] | None = None
        self._t0: int | None = None
        self._next = 0
        self.timer: Any = None
        self._restart()
        self.sim_time = SimTimeWatch(self, on_jump=self._restart)  # /clock: a wait, a jump
        if self.RECONFIGURABLE:
            self.add_on_set_parameters_callback(self._on_set_parameters)
        if supplied:
            self.get_logger().info(supplied_line(self, self.records(), supplied))
        self.get_logger().info(self.describe())

    def _make_rig(
        self, robot: Robot | None, raycaster: Raycaster | None
    ) -> tuple[Robot, NDArray[np.float64]]:
        """The robot, the world and the rig of the settings, the topics checked.

        Returns the robot and its root's pose in the world.
        """
        # discovery of a robot_description publisher goes on while the world loads
        topic = listen(self, self.settings[RobotSettings]) if robot is None else None
        where = self.settings[RobotSettings].with_defaults(self.DEFAULT_ROBOT, self.DEFAULT_SCENE)
        world_from_root = robot_root_pose(where.robot_pose)
        if raycaster is None:
            # Open3D is imported here, once the settings and robot are good: a node stopped by
            # a bad input exits without its second of import (scene/__init__.py)
            from nps_sonar_py.scene.raycaster import Raycaster

            world = load_world(where.scene_file)
            # entities following /tf get their own scenes up front: a first pose rebuilds nothing
            _, following = tf_entity_frames(self.settings[MotionSettings], world)
            raycaster = Raycaster(world, dynamic=following)
        if robot is None:
            robot = (topic.robot() if topic else None) or load_robot_from(where)
        self.raycaster = raycaster
        self.rig = Rig(
            robot,
            self.setup(self.settings),
            raycaster,
            world_from_root,
            entities=len(raycaster.entity_names),
        )
        check_topics(  # before any publisher, subscription or service is made
            self,
            device_topics(
                (self.settings[r] for r in self.records()),
                self.rig.mount.name,
                (beam.frame for beam in self.rig.device.beams()),
            ),
        )
        return robot, world_from_root

    def _make_outputs(self, output: OutputSettings) -> None:
        """The publishers, the Ranger services, the outputs and the diagnostics."""
        self.output_publishers = Publishers(
            self, publisher_qos(output.qos_reliability, output.qos_depth)
        )
        self.ranger_services = RangerServices(
            self,
            self.rig,
            intensities=output.intensities,
            on_change=self._restart,
            refusal=lambda: self.outputs.refusal(),
        )
        self.output_context = OutputContext(
            name=self.rig.mount.name,
            frame=self.rig.device.geometry.device_frame,
            node_name=self.get_fully_qualified_name(),
            publisher=self.output_publishers,
            logger=self.get_logger(),
            state=self.ranger_services,
        )
        self.outputs: Output = outputs_for(self.rig.device, self.output_context, self.settings)
        diagnostics_rate = output.diagnostics_rate
        self.diagnostics = Diagnostics(
            self.output_context, lambda: self.rig.device.period, enabled=diagnostics_rate > 0.0
        )
        if diagnostics_rate > 0.0:
            self.create_timer(
                1.0 / diagnostics_rate, lambda: self.diagnostics.publish(self.get_clock().now())
            )

    def _make_motion(
        self,
        robot: Robot,
        world_from_root: NDArray[np.float64],
        scene_start: SceneStart | None,
        shared_tf: SharedTf | None,
        root_tf: bool,
    ) -> None:
        """The robot's motion and the frames out on /tf and /tf_static, checked."""
        output, motion = self.settings[OutputSettings], self.settings[MotionSettings]
        self.motion = Motion(
            self,
            motion,
            world_from_root=world_from_root,
            root_link=robot.root_link,
            start=scene_start,
            shared_tf=shared_tf,
            world=self.raycaster.world,
            joints=robot.joints,
        )
        frames = sensor_frames(self.rig.mount, self.rig.device.geometry) + self.outputs.frames()
        check_frames(frames, robot.links, self.motion.world_frame)
        self.tf = TfOutput(
            self,
            frames,
            static=output.publish_tf_static,
            root=root_tf and output.publish_tf and motion.pose_source in MESSAGE_POSE_SOURCES,
        )

    def setup(self, settings: Settings) -> Setup:
        """The device's setup from the node's settings: its family's records."""
        return Setup(self.FAMILY, *(settings[r] for r in family_records(self.FAMILY)))

    def describe(self) -> str:
        """One line on the device (its output's), logged at start and after a change."""
        return self.outputs.describe()

    # --- run-time settings ---------------------------------------------------------------------

    def _on_set_parameters(self, parameters: list[Parameter]) -> SetParametersResult:
        """Validate a change as a whole (by building its device); apply it before the next read."""
        changes = {p.name: p.value for p in parameters}
        try:
            settings = read_settings(self, self.records(), changes)
            setup = self.setup(settings)
            built = self.rig.rebuilt(setup) if setup != self.rig.setup else None
        except NpsSonarError as error:
            return SetParametersResult(successful=False, reason=str(error))
        self._pending = (settings, (setup, built))
        return SetParametersResult(successful=True)

    def _apply_pending(self) -> None:
        pending, self._pending = self._pending, None
        if pending is None:
            return
        settings, (setup, built) = pending
        if settings == self.settings:
            return
        self.settings = settings
        if built is not None:
            period = self.rig.device.period
            self.rig.use(setup, built)
            self.ranger_services.refresh()
            if self.rig.device.period != period:
                self._restart()
        self.outputs = outputs_for(self.rig.device, self.output_context, self.settings)
        self.get_logger().info(self.describe())

    # --- the schedule ----------------------------------------------------------------------------

    def _restart(self) -> None:
        """(Re)start reading: at start-up, after a SetConfig or a power switch."""
        device = self.rig.device
        device.restart()
        self.diagnostics.rates.restart()
        self._t0, self._next = None, 0
        tick = max(device.period, MIN_TICK) if device.catch_up else device.period
        if self.timer is not None and abs(self.timer.timer_period_ns - tick * 1e9) < 1.0:
            return
        if self.timer is not None:
            self.destroy_timer(self.timer)
        self.timer = self.create_timer(tick, self.tick)

    def tick(self) -> None:
        """Take the reading (or, for a catch-up device, every reading) that is due by now."""
        self._apply_pending()
        if not self.ranger_services.powered:
            self._t0 = None
            return
        now = self.get_clock().now()
        if now.nanoseconds == 0:  # sim time without /clock yet: time is not initialised
            return
        device = self.rig.device
        if not device.catch_up:
            self._read_at(now)
            return
        period_ns = device.period * 1e9
        if self._t0 is None:
            device.restart()
            self._t0, self._next = now.nanoseconds, 0
        due = int((now.nanoseconds - self._t0) // period_ns) + 1
        if due - self._next > device.cycle_length:
            self.get_logger().warning(
                'slower than real time: the reading schedule slips', throttle_duration_sec=5.0
            )
            self._t0 = now.nanoseconds - round(self._next * period_ns)
            due = self._next + 1
        clock_type = now.clock_type
        while self._next < due:
            # Integer nanoseconds: a float stamp near 1.8e18 ns would be off by hundreds of ns.
            stamp = self._t0 + round(self._next * period_ns)
            self._read_at(Time(nanoseconds=stamp, clock_type=clock_type))
            self._next += 1

    def _read_at(self, now: Time) -> None:
        """Move the world and the robot to ``now``, read the device once, publish."""
        start = time.perf_counter()
        self.motion.apply(now, self.raycaster, self._move_robot)
        reading = self.rig.read()
        stamp = now.to_msg()
        self.tf.publish_root(
            self.motion.world_frame, self.rig.robot.root_link, self.rig.world_from_root, stamp
        )
        self.outputs.publish(reading, stamp)
        seconds = now.nanoseconds * 1e-9
        self._publish_markers(seconds, stamp)
        self.diagnostics.rates.record(seconds, time.perf_counter() - start)

    def _move_robot(self, world_from_root: Any, joints: dict[str, float]) -> None:
        if self.rig.move(world_from_root, joints):
            self.ranger_services.refresh()

    def _publish_markers(self, seconds: float, stamp: Any) -> None:
        """Each sonar beam and its last hits, at ``marker_rate``, on ``<element>/markers``."""
        if self._marker_period is None or seconds < self._next_marker:
            return
        self._next_marker = seconds + self._marker_period
        for beam in self.rig.device.beams():
            publisher = self.output_publishers(Marker, f'{beam.frame}/markers')
            for marker in beam_markers(beam, stamp=stamp):
                publisher.publish(marker)
