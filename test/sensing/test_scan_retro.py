"""A surface's ``laser_retro`` reaches the ray sensor as written, and the echo model clipped.

One ray from the origin along +x meets a wall whose face is the plane x = D head-on. Gazebo's
ray sensors report the ``laser_retro`` of the surface hit as their intensity, unbounded; this
package's echo model reads it as the Lambert coefficient ``mu = min(retro / 255, 1)``
(``echo/reflectivity.py``). So the expected values are the numbers written in each world:
``intensity: retro`` gives the retro itself, ``RayHits.reflectivity`` its coefficient, and
``intensity: echo`` the echo term ``255 mu cos(0) / D**2``.

Each reader of a world is tried (a scene file's ``<model retro>``, a URDF shape's and a
link's ``<laser_retro>``, an SDF shape's), on a static and on a moving entity (each has its
own lookup in the raycaster), and on an entity whose triangles differ (a per-triangle lookup).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nps_sonar_py.description import ScanAxis
from nps_sonar_py.echo.reflectivity import DEFAULT_LAMBERT
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.scan import IntensityMode, ScanConfig, Scanner

D = 2.0
WALL = f'<origin xyz="{D + 0.1} 0 0"/><geometry><box size="0.2 10 10"/></geometry>'
#: A box behind the sensor, in the same entity, with another retro: the entity's triangles
#: then differ, and the raycaster looks each hit's values up per triangle.
BEHIND = '<origin xyz="-20 0 0"/><geometry><box size="1 1 1"/></geometry>'


def _scene_file(model: str, collision: str = '', extra: str = '', state: str = '') -> str:
    return f"""<world name="w">
  <model name="wall" {model}><robot name="wall">
    <link name="wall"><collision>{WALL}{collision}</collision></link>{extra}
  </robot></model>{state}
</world>"""


MOVING = (
    '<scene_state scene="w" time_stamp="0"><entity_state model="wall"><parent frame="world"/>'
    '<twist linear="0 0 1e-9"/></entity_state></scene_state>'
)
TWO_LINKS = (
    '<link name="behind"><collision>' + BEHIND + '<laser_retro>7</laser_retro></collision></link>'
    '<joint name="j" type="fixed"><parent link="wall"/><child link="behind"/></joint>'
)
SDF = f"""<sdf version="1.9"><world name="w"><model name="wall"><static>true</static>
  <link name="wall"><collision name="c">
    <pose>{D + 0.1} 0 0 0 0 0</pose><geometry><box><size>0.2 10 10</size></box></geometry>
    <laser_retro>{{retro}}</laser_retro>
  </collision></link></model></world></sdf>"""

# (case id, file name, world text, retro the ray sensor reads, Lambert mu the echo reads)
CASES = [
    ('model-retro-1000', 'w.world', _scene_file('retro="1000"'), 1000.0, 1.0),
    (
        'shape-laser-retro-1000',
        'w.world',
        _scene_file('', '<laser_retro>1000</laser_retro>'),
        1000.0,
        1.0,
    ),
    (
        'link-laser-retro-1000',
        'w.world',
        _scene_file('', extra='<gazebo reference="wall"><laser_retro>1000</laser_retro></gazebo>'),
        1000.0,
        1.0,
    ),
    ('moving-retro-1000', 'w.world', _scene_file('retro="1000"', state=MOVING), 1000.0, 1.0),
    (
        'per-triangle-retro-1000',
        'w.world',
        _scene_file('', '<laser_retro>1000</laser_retro>', TWO_LINKS),
        1000.0,
        1.0,
    ),
    (
        'moving-per-triangle-retro-1000',
        'w.world',
        _scene_file('', '<laser_retro>1000</laser_retro>', TWO_LINKS, MOVING),
        1000.0,
        1.0,
    ),
    ('sdf-laser-retro-1000', 'w.sdf', SDF.format(retro='1000'), 1000.0, 1.0),
    ('sdf-laser-retro-100', 'w.sdf', SDF.format(retro='100'), 100.0, 100.0 / 255.0),
    ('model-retro-51', 'w.world', _scene_file('retro="51"'), 51.0, 0.2),
    # This package's own reflectivity is the echo's alone: no laser_retro, Gazebo's 0.
    ('reflectivity-only', 'w.world', _scene_file('reflectivity="0.3"'), 0.0, 0.3),
    ('nothing-given', 'w.world', _scene_file(''), 0.0, DEFAULT_LAMBERT),
    (
        'reflectivity-and-retro',
        'w.world',
        _scene_file('reflectivity="0.3" retro="1000"'),
        1000.0,
        0.3,
    ),
]


def _one_ray(intensity: IntensityMode) -> Scanner:
    config = ScanConfig(horizontal=ScanAxis(), max_range=30.0, intensity=intensity)
    return Scanner(config, np.eye(4))


@pytest.mark.parametrize(
    ('name', 'text', 'retro', 'mu'),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_the_scanner_reads_the_retro_as_written_and_the_echo_its_clipped_coefficient(
    tmp_path: Path, name: str, text: str, retro: float, mu: float
) -> None:
    path = tmp_path / name
    path.write_text(text)
    caster = Raycaster(load_world(path))
    hits = caster.cast(np.zeros(3), np.array([[1.0, 0.0, 0.0]]))
    assert hits.ranges[0] == pytest.approx(D, rel=1e-6)
    assert hits.retro[0] == retro
    assert hits.reflectivity[0] == pytest.approx(mu, rel=1e-12)
    reading = _one_ray(IntensityMode.RETRO).scan(caster)
    assert reading.intensities.ravel().tolist() == [retro]
    echo = _one_ray(IntensityMode.ECHO).scan(caster)
    assert echo.intensities.ravel()[0] == pytest.approx(255.0 * mu / D**2, rel=1e-5)


def test_a_miss_reads_no_retro(tmp_path: Path) -> None:
    path = tmp_path / 'w.world'
    path.write_text(_scene_file('retro="1000"'))
    caster = Raycaster(load_world(path))
    hits = caster.cast(np.zeros(3), np.array([[-1.0, 0.0, 0.0]]))
    assert np.isnan(hits.retro[0])
    assert np.isnan(hits.reflectivity[0])
    backwards = np.diag([-1.0, -1.0, 1.0, 1.0])  # turned half a turn about z: along -x
    scanner = Scanner(ScanConfig(horizontal=ScanAxis(), max_range=30.0), backwards)
    assert scanner.scan(caster).intensities.ravel().tolist() == [0.0]
