"""Import Open3D without its Dash web viewer: the package never draws with Plotly or Dash.

``import open3d`` imports ``open3d.visualization.draw_plotly``, which imports Dash and with it
Flask, Werkzeug, IPython and requests. That is about 0.35 s of CPU of the 0.9 s Open3D costs
to import, and half a second more while the process exits; every node process pays it at
start and at exit, and the test suite starts some 150 of them. :func:`without_dash` puts a
stand-in ``dash`` module in ``sys.modules`` for the time of the import and takes it out after:
``draw_plotly`` binds ``html``, ``dcc`` and ``Dash`` to names that raise :class:`ImportError`,
saying why, when used; a later ``import dash`` in the same process gets the real Dash.
If Dash is already imported, nothing is changed.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

__all__ = ['without_dash']

_WHY = (
    "Open3D's draw_plotly is not available in this process: nps_sonar imported Open3D "
    'without Dash (nps_sonar_py/scene/open3d_import.py)'
)


class _Missing:
    """What ``draw_plotly`` gets for ``html``, ``dcc`` and ``Dash``: any use raises."""

    def __getattr__(self, name: str) -> NoReturn:
        raise ImportError(_WHY)

    def __call__(self, *args: object, **kwargs: object) -> NoReturn:
        raise ImportError(_WHY)


@contextmanager
def without_dash() -> Iterator[None]:
    """For the block: ``import dash`` gives a stand-in whose every name raises when used."""
    if 'dash' in sys.modules:
        yield
        return
    stand_in = types.ModuleType('dash', _WHY)
    for name in ('html', 'dcc', 'Dash'):
        setattr(stand_in, name, _Missing())
    sys.modules['dash'] = stand_in
    try:
        yield
    finally:
        if sys.modules.get('dash') is stand_in:
            del sys.modules['dash']
