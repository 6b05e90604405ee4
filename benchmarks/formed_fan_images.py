"""Forward-looking images before and after the fan formed its beams (issue 33).

Draws ``docs/images/formed_fan.png``: a 400 kHz fan of 256 beams over 60 degrees (0.96
degree beams: a 106-element half-wavelength array, a 30 kHz chirp) over two scenes, point
targets in open water and a flat seabed with two objects, each ping by main's per-ray
coherent model (each ray a scatterer; the array's leakage of the 256 strongest cells) and by
the formed fan (the surfaces' fixed scatterers, the array's beams, pulse compression:
``docs/beamforming.md``), in dB over 50 dB below each image's peak.

Run: ``scripts/run python benchmarks/formed_fan_images.py [OUT.png]``. Prints the scatterers
per square metre the formed fan used and its ping time.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nps_sonar_py.echo import Absorption, EchoConfig
from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.engine import echo_engine
from nps_sonar_py.echo.formed_engine import FormedEngine
from nps_sonar_py.echo.pulse import Pulse, PulseKind
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.multibeam import FanConfig, MultibeamSonar
from nps_sonar_py.transforms import transform_from_xyz_rpy

ROOT = Path(__file__).resolve().parents[1]
TARGETS = [(6.0, -12.0), (9.0, 0.0), (9.3, 1.0), (12.0, 20.0), (15.0, -25.0)]  # (m, deg)


def world(folder: Path, seabed: bool) -> Raycaster:
    """Spheres of 5 cm radius at ``TARGETS`` on the fan's axis; or a seabed and two objects."""
    if seabed:  # (name, range m, azimuth deg, geometry, height of its centre m, reflectivity)
        objects = [
            ('seabed', 0.0, 0.0, '<box size="400 400 1"/>', -0.5, 0.01),
            ('box', 8.0, -10.0, '<box size="1 1 1"/>', 0.5, 0.5),
            ('drum', 12.0, 12.0, '<cylinder radius="0.4" length="1.2"/>', 0.6, 0.5),
        ]
    else:
        objects = [
            (f't{k}', r, a, '<sphere radius="0.05"/>', 3.0 - r * math.tan(math.radians(12.0)), 0.5)
            for k, (r, a) in enumerate(TARGETS)
        ]
    models = []
    for name, r, a, shape, z, mu in objects:
        x, y = r * math.cos(math.radians(a)), r * math.sin(math.radians(a))
        models.append(
            f'<model name="{name}" reflectivity="{mu}"><robot name="{name}"><link name="l">'
            f'<collision><origin xyz="{x} {y} {z}"/><geometry>{shape}</geometry></collision>'
            '</link></robot></model>'
        )
    path = folder / ('seabed.world' if seabed else 'targets.world')
    path.write_text(f'<world name="w">{"".join(models)}</world>')
    return Raycaster(load_world(str(path)))


def sonar() -> MultibeamSonar:
    """The fan 3 m over the seabed, pitched 12 degrees down."""
    echo = EchoConfig(
        beam_width=math.radians(0.96),
        min_range=1.0,
        max_range=18.0,
        n_bins=680,
        frequency=400e3,
        absorption=Absorption.NONE,
    )
    fan = FanConfig(
        beams=256,
        min_angle=-math.radians(30.0),
        max_angle=math.radians(30.0),
        rays_vertical=48,
        vertical_width=math.radians(20.0),
    )
    coherent = CoherentConfig.of(pulse=Pulse(PulseKind.CHIRP, 1e-3, 30e3), array_elements=106)
    pose = transform_from_xyz_rpy([0.0, 0.0, 3.0], [0.0, math.radians(12.0), 0.0])
    return MultibeamSonar(echo, fan, pose, coherent=coherent)


def before(formed: MultibeamSonar) -> MultibeamSonar:
    """The same fan with main's engine: each ray a scatterer, leakage of the strongest cells."""
    per_ray = sonar()
    fan = per_ray.fan
    per_ray.engine = echo_engine(
        per_ray.model,
        formed.coherent,
        azimuths=per_ray.azimuths,
        coverage=min(1.0, fan.spacing / per_ray.echo.beam_width),
    )
    return per_ray


def draw(axis: plt.Axes, fan: MultibeamSonar, profiles: np.ndarray, title: str) -> None:
    """The ping in the horizontal plane (x ahead, y to port), dB over 50 dB."""
    step = 0.5 * fan.fan.spacing
    azimuths = np.concatenate([fan.azimuths - step, [fan.azimuths[-1] + step]])
    a, r = np.meshgrid(azimuths, fan.model.bin_edges, indexing='ij')
    with np.errstate(divide='ignore'):
        level = 10.0 * np.log10(profiles)
    top = np.nanmax(level[np.isfinite(level)])
    axis.pcolormesh(
        -r * np.sin(a),
        r * np.cos(a),
        level,
        vmin=top - 50.0,
        vmax=top,
        cmap='gray',
        shading='flat',
    )
    axis.set_aspect('equal')
    axis.set_title(title, fontsize=9)
    axis.set_xticks([])
    axis.set_yticks([])
    axis.set_facecolor('black')


def main() -> int:
    """Draw the four pings (module docstring)."""
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / 'docs' / 'images' / 'formed_fan.png'
    folder = Path('/tmp') / 'formed_fan_images'
    folder.mkdir(exist_ok=True)
    figure, axes = plt.subplots(2, 2, figsize=(9, 8), facecolor='white')
    formed = sonar()
    engine = formed.engine.coherent if hasattr(formed.engine, 'coherent') else None
    assert isinstance(engine, FormedEngine)
    old = before(formed)
    for row, seabed in enumerate((False, True)):
        scene = world(folder, seabed)
        start = time.perf_counter()
        after = formed.ping(scene).profiles
        took = time.perf_counter() - start
        name = 'seabed and two objects' if seabed else 'point targets'
        draw(axes[row, 0], old, old.ping(scene).profiles, f'{name}: before (per ray)')
        draw(axes[row, 1], formed, after, f'{name}: after (formed beams)')
        print(f'{name}: formed ping {took:.2f} s')
    figure.tight_layout()
    figure.savefig(out, dpi=90)
    print(f'density={engine.density:.0f} per m2 elements={engine.array.elements} wrote {out}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
