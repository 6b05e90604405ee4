"""Draw the README's coherent pictures: the incoherent and the coherent image side by side.

* ``docs/images/coherent_sidescan.png``: the side-scan of ``config/worlds/sidescan_survey.sdf``
  towed along +x 10 m above the seabed (as ``scripts/demo --sidescan``), a ground-range
  waterfall line every 0.25 m over 75 m: left the incoherent model, right the coherent one
  (a 15 kHz chirp, the noise floor of the sonar equation).
* ``docs/images/coherent_fan.png``: a forward-looking multibeam over the same world (128
  beams over 90 degrees, 1 degree wide, 240 ray rows over 20 degrees, 0.5 to 40 m in 400
  bins, pitched 15 degrees down, the box ahead), its Cartesian image: left incoherent,
  right coherent (a 7.5 kHz chirp, its 102-element line array, the noise floor).

No ROS: the same core the nodes run (``sensing``, ``echo``). Both images in dB over 60 dB
below their strongest pixel. Run: ``scripts/run python scripts/coherent_pictures.py [DIR]``.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig
from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.echo.line_array import LineArray
from nps_sonar_py.echo.pulse import Pulse, PulseKind
from nps_sonar_py.echo.sonar_equation import ReceiverNoise
from nps_sonar_py.plots import draw_image
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.images import CartesianImager, SectorGeometry
from nps_sonar_py.sensing.multibeam import FanConfig, MultibeamSonar
from nps_sonar_py.sensing.sidescan import SidescanConfig, SidescanSonar
from nps_sonar_py.sensing.waterfall import Waterfall, WaterfallConfig
from nps_sonar_py.transforms import transform_from_xyz_rpy

ROOT = Path(__file__).resolve().parents[1]
WORLD = ROOT / 'config' / 'worlds' / 'sidescan_survey.sdf'
NOISE = ReceiverNoise(enabled=True, spectrum_level=45.0, directivity_index=25.0)
#: Grey columns between the two images.
GAP = 6


def sidescan_waterfalls(caster: Raycaster) -> list[NDArray[np.float32]]:
    """The incoherent and the coherent ground-range waterfall of the tow (module docstring)."""
    echo = EchoConfig(
        pattern=BeamPattern.PISTON,
        min_range=0.5,
        max_range=50.0,
        n_bins=1000,
        frequency=450e3,
        absorption=Absorption.AUTO,
        source_level=210.0,
    )
    coherent = CoherentConfig.of(pulse=Pulse(PulseKind.CHIRP, 5e-3, 15e3), noise=NOISE)
    images = []
    for model in (None, coherent):
        sonar = SidescanSonar(echo, SidescanConfig(), np.eye(4), coherent=model)
        waterfall = Waterfall(WaterfallConfig(lines=300, samples=300, ground_range=True))
        for x in np.arange(300) * 0.25:
            pose = transform_from_xyz_rpy([x - 20.0, 0.0, 10.0], [0.0, 0.0, 0.0])
            sonar.set_pose(pose)
            waterfall.add(sonar.ping(caster), pose[:3, 3])
        images.append(waterfall.image())
    return images


def fan_images(caster: Raycaster) -> list[NDArray[np.float32]]:
    """The incoherent and the coherent Cartesian image of the forward-looking fan."""
    echo = EchoConfig(
        beam_width=math.radians(1.0),
        min_range=0.5,
        max_range=40.0,
        n_bins=400,
        frequency=900e3,
        absorption=Absorption.AUTO,
        source_level=210.0,
    )
    fan = FanConfig(beams=128, min_angle=-math.pi / 4, max_angle=math.pi / 4, rays_vertical=240)
    elements = math.ceil(0.886 / (0.5 * echo.beam_width))
    coherent = CoherentConfig.of(
        pulse=Pulse(PulseKind.CHIRP, 2e-3, 7.5e3), array=LineArray(elements, 0.5), noise=NOISE
    )
    pose = transform_from_xyz_rpy([-8.0, 12.0, 8.0], [0.0, math.radians(15.0), 0.3])
    geometry = SectorGeometry(
        128, -math.pi / 4, fan.spacing, echo.beam_width, echo.min_range, echo.max_range, 400
    )
    imager = CartesianImager(geometry, 0.08, max_pixels=4_000_000)
    images = []
    for model in (None, coherent):
        sonar = MultibeamSonar(echo, fan, pose, coherent=model)
        ping = sonar.ping(caster)
        image = imager.image(np.asarray(ping.profiles, dtype=np.float32))
        images.append(np.nan_to_num(np.asarray(image, dtype=np.float32)))
    return images


def side_by_side(left: NDArray[np.float32], right: NDArray[np.float32]) -> NDArray[np.float32]:
    """The two images in one, a gap of the floor between them (in the images' dB scale)."""
    gap = np.zeros((left.shape[0], GAP), dtype=np.float32)
    return np.hstack((left, gap, right))


def main() -> int:
    """Write both pictures into the given folder (docs/images by default)."""
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / 'docs' / 'images'
    caster = Raycaster(load_world(str(WORLD)))
    sides = sidescan_waterfalls(caster)
    draw_image(folder / 'coherent_sidescan.png', side_by_side(*sides), '32FC1', dynamic_range=60)
    fans = fan_images(caster)
    draw_image(folder / 'coherent_fan.png', side_by_side(*fans), '32FC1', dynamic_range=60)
    print(f'wrote {folder}/coherent_sidescan.png and coherent_fan.png')
    return 0


if __name__ == '__main__':
    sys.exit(main())
