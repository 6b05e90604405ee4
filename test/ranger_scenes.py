"""Scenes and robots of the ranger and scanning sonar node tests; geometry for expected values.

The box room's inner faces are x = -3, 5; y = -2, 4; z = 0, 3 (laser_retro 40, 80, 120, 160,
200, 240); the corridor's walls are y = -1.0, 1.5 and its floor z = 0. A sonar's range is the
nearest intersection of its documented cone (``sensing.cone``) with those planes. The wall
scene puts a sonar at the origin in front of a wall whose face is the plane x = D.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from nps_sonar_py.sensing.cone import cone_pattern

WORLDS = Path(__file__).resolve().parents[1] / 'config' / 'worlds'
BOX_ROOM = str(WORLDS / 'box_room.world')
CORRIDOR = str(WORLDS / 'corridor.world')
LOW, HIGH = np.array([-3.0, -2.0, 0.0]), np.array([5.0, 4.0, 3.0])
RETRO_LOW, RETRO_HIGH = np.array([40.0, 120.0, 200.0]), np.array([80.0, 160.0, 240.0])
LASER_XYZ, LASER_YAW = np.array([0.5, 0.7, 1.2]), 0.3
OPTICAL = '-1.5707963267948966 0 -1.5707963267948966'  # optical z along the link's +x
FLOAT32 = 3e-6
PLANAR = (
    '<horizontal samples="541" min_angle="-2.356194490192345" max_angle="2.356194490192345"/>'
    '<range min="0.2" max="30"/>'
)


# --- the box room and a scanner in it ---------------------------------------------------------


def room_hits(origin: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distance to the nearest face, its retro, and the gap to the next face (corner proximity)."""
    with np.errstate(divide='ignore', invalid='ignore'):
        t = np.where(d > 0, (HIGH - origin) / d, np.where(d < 0, (LOW - origin) / d, np.inf))
    axis = np.argmin(t, axis=1)
    rows = np.arange(d.shape[0])
    retro = np.where(d[rows, axis] > 0, RETRO_HIGH[axis], RETRO_LOW[axis])
    ordered = np.sort(t, axis=1)
    return t[rows, axis], retro, ordered[:, 1] - ordered[:, 0]


def directions(azimuth: np.ndarray, elevation: float = 0.0, yaw: float = LASER_YAW) -> np.ndarray:
    """World unit vectors at ``azimuth`` (+ ``yaw``) about +z, ``elevation`` above the xy plane."""
    a = np.asarray(azimuth) + yaw
    e = elevation
    return np.column_stack(
        (np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.full(a.shape, math.sin(e)))
    )


def scanner_robot(tmp_path: Path, ray: str, rate: float = 20.0) -> str:
    """A robot with a ray sensor at LASER_XYZ, yawed by LASER_YAW, with the given <ray> body."""
    x, y, z = LASER_XYZ
    path = tmp_path / 'scanner.urdf'
    path.write_text(f'''<robot name="scanner">
  <link name="base_link"/><link name="laser_link"/>
  <joint name="mount" type="fixed"><parent link="base_link"/><child link="laser_link"/>
    <origin xyz="{x} {y} {z}" rpy="0 0 {LASER_YAW}"/></joint>
  <sensor name="laser" type="ray" update_rate="{rate}">
    <parent link="laser_link"/><origin rpy="{OPTICAL}"/>
    <ray>{ray}</ray>
  </sensor>
</robot>''')
    return str(path)


# --- the corridor and sonar rings in it -------------------------------------------------------

RING_HEIGHT, RING_RADIUS, RING_BETA, SONAR_MAX = 1.0, 0.2, math.radians(15.0), 5.0
SONAR = f'<sonar min="0.1" max="{SONAR_MAX}" radius="{SONAR_MAX * math.tan(RING_BETA)!r}"/>'


def ring_robot(tmp_path: Path, count: int = 8) -> str:
    """A ring of ``count`` sonars ring_K at RING_HEIGHT, looking outwards.

    They are separate <sensor> elements.
    """
    sensors = []
    for k in range(count):
        yaw = 2 * math.pi * k / count
        sensors.append(
            f'<sensor name="ring_{k}" type="sonar" update_rate="10"><parent link="base_link"/>'
            f'<origin xyz="{RING_RADIUS * math.cos(yaw)!r} '
            f'{RING_RADIUS * math.sin(yaw)!r} {RING_HEIGHT}" '
            f'rpy="-1.5707963267948966 0 {yaw - math.pi / 2!r}"/>{SONAR}</sensor>'
        )
    path = tmp_path / 'ring.urdf'
    path.write_text(f'<robot name="ring"><link name="base_link"/>{"".join(sensors)}</robot>')
    return str(path)


def one_sonar_robot(tmp_path: Path) -> str:
    """One sonar at RING_HEIGHT above base_link, looking along +x."""
    path = tmp_path / 'one_sonar.urdf'
    path.write_text(f'''<robot name="one"><link name="base_link"/>
  <sensor name="sonar" type="sonar" update_rate="10"><parent link="base_link"/>
    <origin xyz="0 0 {RING_HEIGHT}" rpy="{OPTICAL}"/>{SONAR}</sensor></robot>''')
    return str(path)


def corridor_range(world_from_element: np.ndarray, n_rays: int) -> float:
    """The corridor range of a ring sonar at ``world_from_element`` (inf beyond SONAR_MAX)."""
    d = cone_pattern(RING_BETA, n_rays).directions @ world_from_element[:3, :3].T
    p = world_from_element[:3, 3]
    with np.errstate(divide='ignore'):
        t = np.stack(
            [
                np.where(d[:, 1] > 0, (1.5 - p[1]) / d[:, 1], np.inf),
                np.where(d[:, 1] < 0, (-1.0 - p[1]) / d[:, 1], np.inf),
                np.where(d[:, 2] < 0, -p[2] / d[:, 2], np.inf),
            ]
        )
    nearest = float(t.min())
    return nearest if nearest <= SONAR_MAX else math.inf


# --- a wall in front of a scanning sonar ------------------------------------------------------

D = 2.0
WALL_BETA = math.radians(1.0)
MAX_RANGE = 10.0
C = 1500.0
ACOUSTICS = {
    'beam_pattern': 'uniform',
    'n_way': 1,
    'absorption': 'none',
    'sound_speed': C,
    'range_bins': 1900,
}


#: The multibeam fan of the image tests (``ros/test_sonar_images.py``,
#: ``ros/test_projected_image.py``): ``BEAMS`` beams from ``FIRST`` to ``LAST`` rad, range bins
#: from ``MIN_RANGE`` to ``MAX_RANGE`` m, images from ``DB_LOW`` to ``DB_HIGH`` dB.
MIN_RANGE, BINS = 0.5, ACOUSTICS['range_bins']
BEAMS, FIRST, LAST = 31, -0.6, 0.6
SPACING = (LAST - FIRST) / (BEAMS - 1)
DB_LOW, DB_HIGH = -90.0, -30.0


def image_fan(robot: str, world: str, **more: Any) -> dict[str, Any]:
    """The scanning sonar node's parameters of that fan (beams of 1.5 by 10 degrees, 3 by 11
    rays each, 20 Hz) on ``robot`` in ``world``; ``more``: other parameters, or these changed."""
    return {
        'robot_description_file': robot,
        'scene_file': world,
        'mode': 'multibeam',
        'beams': BEAMS,
        'min_angle': FIRST,
        'max_angle': LAST,
        'beam_width': math.radians(1.5),
        'vertical_beam_width': math.radians(10.0),
        'rays_horizontal': 3,
        'rays_vertical': 11,
        'update_rate': 20.0,
        'image_db_min': DB_LOW,
        'image_db_max': DB_HIGH,
        **ACOUSTICS,
        **more,
    }


def wall_scene(tmp_path: Path) -> tuple[str, str]:
    """A sonar at the origin (body frame = base_link) and a wall whose face is x = D."""
    world = tmp_path / 'wall.world'
    world.write_text(f'''<world name="wall"><model name="wall" retro="255"><robot name="wall">
  <link name="wall"><collision>
    <origin xyz="{D + 0.1} 0 0"/><geometry><box size="0.2 100 100"/></geometry>
  </collision></link>
</robot></model></world>''')
    robot = tmp_path / 'sonar.urdf'
    radius = MAX_RANGE * math.tan(WALL_BETA)
    robot.write_text(f'''<robot name="head"><link name="base_link"/>
  <sensor name="head" type="sonar"><parent link="base_link"/><origin rpy="{OPTICAL}"/>
    <sonar min="0.5" max="{MAX_RANGE}" radius="{radius!r}"/></sensor></robot>''')
    return str(robot), str(world)
