"""Sonar datasets: labelled images from randomised scenes, in one process or on Ray.

A spec (``spec.py``; its YAML read with bounded work, ``spec_yaml.py``; refused when its
samples could not show what it asks for, ``validity.py``) says what to draw; each sample's
values are drawn from the run's seed and its index alone (``draw.py``) and make its world
(``seabed.py``, ``objects.py``), its sonar (``sensor.py``, the node's settings records) and
its images and masks (``sample.py``), how much of each object is hidden (``occlusion.py``);
``boxes.py`` and ``files.py`` turn them into files, ``work.py`` is the unit of work that
makes and writes a sample in-process or on Ray (``distributed.py``, the one module that
imports Ray), ``run.py`` and ``assemble.py`` write the dataset's own files into a folder
checked and locked by ``folder.py``, ``cli.py`` is ``sonar_dataset``. No rclpy.
``docs/datasets.md``.
"""

from nps_sonar_py.dataset.assemble import read_manifest
from nps_sonar_py.dataset.draw import draw_row
from nps_sonar_py.dataset.run import RunSummary, run_dataset
from nps_sonar_py.dataset.spec import Spec, SpecError, load_spec, parse_spec
from nps_sonar_py.dataset.work import Outcome, make_sample

__all__ = [
    'Outcome',
    'RunSummary',
    'Spec',
    'SpecError',
    'draw_row',
    'load_spec',
    'make_sample',
    'parse_spec',
    'read_manifest',
    'run_dataset',
]
