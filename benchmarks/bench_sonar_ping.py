"""Rays per second of a whole sonar ping against Open3D's ``cast_rays`` alone, in one run.

For 1e3 to 1e6 rays per ping, on the reference scene (tank and cylinder), it prints the
median time of:

* ``open3d``: ``RaycastingScene.cast_rays`` on the same rays, prebuilt scene (the baseline);
* ``cast``: ``Raycaster.cast`` (the baseline plus ranges, normals, incidence, reflectivity);
* ``echo``: the intensity model on those hits (``EchoModel.ping``);
* ``messages``: Range, one-element LaserScan and SonarPoint built from the ping;
* ``ping``: all of it, as the node does per timer tick;

with rays per second of the whole ping and the ratios ``ping / open3d`` and
``echo / open3d`` (the goals: a whole ping at 1e5 and 1e6 rays costs at most 1.5 times the
raw cast, and the intensity stage no more than the raycast). The stages of one size are
timed in turn, interleaved, so that a load that comes and goes on the machine weighs on
each alike. Then the time per ping of the default sonar (500 rays). Run it in the
project's environment: ``scripts/run python benchmarks/bench_sonar_ping.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import open3d as o3d  # the baseline is Open3D alone
from builtin_interfaces.msg import Time

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from raw_cast import open3d_rays, world_scene
from timing import median_time, median_times

from nps_sonar_py.devices import (
    Family,
    Rig,
    Setup,
    SingleBeamSonar,
    load_robot_from,
    reference_world_file,
)
from nps_sonar_py.devices.build import robot_root_pose
from nps_sonar_py.devices.settings import (
    BeamSettings,
    OutputSettings,
    RobotSettings,
    SensorSettings,
)
from nps_sonar_py.ros.conversions import range_message, single_beam_scan, sonar_point_message
from nps_sonar_py.ros.heap import keep_heap
from nps_sonar_py.scene import Raycaster, load_world


def sonar_rig(n_rays: int, raycaster: Raycaster) -> Rig:
    """The reference sonar, with ``n_rays`` per ping, in ``raycaster``'s world."""
    setup = Setup(Family.SONAR, SensorSettings(), OutputSettings(), BeamSettings(rays=n_rays))
    return Rig(load_robot_from(RobotSettings()), setup, raycaster, robot_root_pose([0.0] * 6))


def stage_times(
    raycaster: Raycaster,
    scene: o3d.t.geometry.RaycastingScene,
    stamp: Time,
    n_rays: int,
    repeat: int,
) -> tuple[float, float, float, float, float]:
    """Median times of open3d, cast, echo, messages and the whole ping, with ``n_rays`` per ping.

    A function of its own so that the timed closures bind this size's device, rays and hits,
    not the loop variables of the caller (ruff B023).
    """
    rig = sonar_rig(n_rays, raycaster)
    device = rig.device
    assert isinstance(device, SingleBeamSonar)
    origins, directions = device._origins, device._directions
    rays = open3d_rays(origins, directions)
    hits = raycaster.cast(origins, directions)
    ping = device.model.ping(hits.ranges, hits.cos_incidence, hits.reflectivity)

    def messages() -> None:
        echo = device.echo
        range_message(
            ping.range,
            field_of_view=device.field_of_view,
            min_range=echo.min_range,
            max_range=echo.max_range,
            stamp=stamp,
            frame_id='sonar',
        )
        single_beam_scan(ping, echo, stamp=stamp, frame_id='sonar', scan_time=0.1)
        sonar_point_message(ping, echo, stamp=stamp, frame_id='sonar', rays=n_rays)

    def whole() -> None:
        rig.read()
        messages()

    t = median_times(
        {
            'open3d': lambda: scene.cast_rays(rays),
            'cast': lambda: raycaster.cast(origins, directions),
            'echo': lambda: device.model.ping(hits.ranges, hits.cos_incidence, hits.reflectivity),
            'messages': messages,
            'ping': whole,
        },
        repeat,
    )
    t_o3d, t_cast, t_echo, t_msg, t_ping = (
        t['open3d'],
        t['cast'],
        t['echo'],
        t['messages'],
        t['ping'],
    )
    return t_o3d, t_cast, t_echo, t_msg, t_ping


def main() -> int:
    """Print the table of stage times per ray count, then the default sonar's time per ping."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=15)
    options = parser.parse_args()
    keep_heap()  # as the nodes do (ros/startup.run_node): no page faults per ping

    raycaster = Raycaster(load_world(reference_world_file()))
    scene = world_scene(raycaster.world)
    stamp = Time(sec=1, nanosec=0)

    print(
        f'{"rays":>9} {"open3d":>9} {"cast":>9} {"echo":>9} {"messages":>9} {"ping":>9} '
        f'{"rays/s":>10} {"ping/o3d":>9} {"echo/o3d":>9}'
    )
    for n_rays in (1_000, 10_000, 100_000, 1_000_000):
        t_o3d, t_cast, t_echo, t_msg, t_ping = stage_times(
            raycaster, scene, stamp, n_rays, options.repeat
        )
        print(
            f'{n_rays:>9} {t_o3d * 1e3:>7.2f}ms {t_cast * 1e3:>7.2f}ms {t_echo * 1e3:>7.2f}ms '
            f'{t_msg * 1e3:>7.2f}ms {t_ping * 1e3:>7.2f}ms {n_rays / t_ping:>10.3g} '
            f'{t_ping / t_o3d:>9.2f} {t_echo / t_o3d:>9.2f}'
        )

    rig = sonar_rig(500, raycaster)
    t_default = median_time(rig.read, options.repeat * 10)
    print(
        f'default sonar (500 rays): {t_default * 1e3:.3f} ms per ping, '
        f'{1 / t_default:.0f} pings/s possible'
    )
    return 0


if __name__ == '__main__':
    sys.exit(main())
