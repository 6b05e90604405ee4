"""A flat seabed at z = 0 for tests that compare a sonar's bins with a closed-form integral."""

from __future__ import annotations

from pathlib import Path

from nps_sonar_py.scene import Raycaster, load_world


def flat_seabed(folder: Path, mu: float) -> Raycaster:
    """A caster of one 400 m square box of reflectivity ``mu`` whose top face is z = 0."""
    path = folder / 'flat.world'
    path.write_text(f'''<world name="seabed">
<model name="seabed" reflectivity="{mu}"><robot name="seabed"><link name="seabed"><collision>
  <origin xyz="0 0 -0.5"/><geometry><box size="400 400 1"/></geometry></collision></link>
</robot></model></world>''')
    return Raycaster(load_world(str(path)))
