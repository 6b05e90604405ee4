"""A flat seabed at z = 0, alone or with boxes on it, for tests that compare a sonar's bins with
a closed-form integral or place a target where the geometry says; and the side-scan echo the
side-scan tests cast on it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig
from nps_sonar_py.scene import Raycaster, load_world


def box_model(name: str, mu: float, xyz: tuple[float, float, float], size: str) -> str:
    """The world file's model ``name``: a box of ``size`` (``"x y z"`` m) centred at ``xyz``,
    of reflectivity ``mu``."""
    x, y, z = xyz
    return f'''<model name="{name}" reflectivity="{mu}"><robot name="{name}"><link name="{name}">
  <collision><origin xyz="{x} {y} {z}"/><geometry><box size="{size}"/></geometry></collision>
</link></robot></model>'''


def seabed_file(path: Path, mu: float, *models: str) -> Path:
    """Writes ``path``: a 400 m square slab of reflectivity ``mu`` whose top face is z = 0
    (the model ``seabed``), and ``models`` (``box_model``'s) after it."""
    seabed = box_model('seabed', mu, (0, 0, -0.5), '400 400 1')
    path.write_text(f'<world name="seabed">\n{seabed}{"".join(models)}</world>')
    return path


def flat_seabed(folder: Path, mu: float) -> Raycaster:
    """A caster of the seabed alone (``seabed_file``), written to ``folder/flat.world``."""
    return Raycaster(load_world(str(seabed_file(folder / 'flat.world', mu))))


def seabed_fixture(mu: float) -> Callable[[pytest.TempPathFactory], Raycaster]:
    """A module-scoped fixture of the seabed alone (``flat_seabed``, reflectivity ``mu``),
    cast once for a module's tests: ``seabed = seabed_fixture(0.01)`` at a module's top."""

    @pytest.fixture(scope='module')
    def seabed(tmp_path_factory: pytest.TempPathFactory) -> Raycaster:
        return flat_seabed(tmp_path_factory.mktemp('seabed'), mu)

    return seabed


def sidescan_echo(
    max_range: float, n_bins: int, min_range: float = 0.0, **rest: Any
) -> EchoConfig:
    """The side-scan tests' echo: 400 kHz, the two-way piston pattern along track, a fixed
    0.01 dB/m absorption, ``n_bins`` bins from ``min_range`` to ``max_range`` m; ``rest``:
    any ``EchoConfig`` field, these included."""
    settings: dict[str, Any] = {
        'pattern': BeamPattern.PISTON,
        'n_way': 2,
        'absorption': Absorption.FIXED,
        'fixed_absorption': 0.01,
        'min_range': min_range,
        'max_range': max_range,
        'n_bins': n_bins,
        'frequency': 400e3,
    }
    return EchoConfig(**(settings | rest))
