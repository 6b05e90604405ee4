"""Labels published or not, a fan over a seabed measures the same, with either engine.

The fan of ``coherent_scenes`` pitched down over a flat seabed: its grazing returns are wider
than a bin, the case where the incoherent engine ramps a spread return instead of cutting it
into pieces. With labels the profile, totals, ranges and hits are bit-identical to those
without; the labels themselves are the pieces' (``echo.labels``). Negative control: the
same fan with its footprints dropped (the coherent fan's old unlabelled rule) moves its
totals by about a per cent.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from coherent_scenes import fan_sonar
from test_sidescan import seabed_world

from nps_sonar_py.echo.coherent import CoherentConfig
from nps_sonar_py.scene import Raycaster, load_world
from nps_sonar_py.sensing.multibeam import MultibeamSonar


def labelled(sonar: MultibeamSonar) -> MultibeamSonar:
    return MultibeamSonar(
        sonar.echo, sonar.fan, sonar.world_from_body, coherent=sonar.coherent, label_entities=1
    )


@pytest.mark.parametrize('coherent', [None, CoherentConfig()], ids=['incoherent', 'coherent'])
def test_labels_change_nothing_measured(tmp_path: Path, coherent: CoherentConfig | None) -> None:
    caster = Raycaster(load_world(seabed_world(tmp_path)))
    plain = fan_sonar(coherent)
    without, with_labels = plain.ping(caster), labelled(plain).ping(caster)
    assert with_labels.labels is not None
    assert (with_labels.labels > 0).any()
    for name in ('profiles', 'totals', 'ranges', 'hits', 'confidence'):
        assert np.array_equal(getattr(without, name), getattr(with_labels, name)), name
    # Negative control: the law binned without the footprints is another.
    hits, ranges, _ = plain._cast(caster, plain.rays_per_beam)
    shape = (plain.fan.beams, plain.rays_per_beam)
    point = plain.model.echoes(
        ranges.reshape(shape),
        np.asarray(hits.cos_incidence).reshape(shape),
        np.asarray(hits.reflectivity).reshape(shape),
    )
    lit = point.totals > 0.0
    moved = np.abs(without.totals[lit] / point.totals[lit] - 1.0)
    assert moved.max() > 1e-3
