"""A model's seabed in a world file: ``sediment="silt"`` or a ``<seabed>`` element.

Both world readers share it (``scene_file``: ``<model sediment="...">`` or a ``<seabed>``
child of ``<model>``; ``sdf``: an ``<nps:seabed>`` child of a top-level ``<model>``). The
element's attributes are the :class:`~nps_sonar_py.echo.seabed.Seabed` settings
(``docs/seabed.md``)::

    <seabed sediment="sand" ripple_wavelength="0.6" ripple_height="0.08"
            ripple_direction="0.5" texture_shape="10 3 60 12"/>
    <seabed sediment="silt" loss_parameter="0.005"/>   <!-- a named row, one value given -->
    <seabed model="lambert" lambert_db="-27" texture_shape=""/>

``sediment`` names a row of ``echo.sediment.SEDIMENTS`` (default ``sand``), whose parameters
any of ``density_ratio``, ``sound_speed_ratio``, ``loss_parameter``, ``spectral_exponent``,
``spectral_strength``, ``volume_exponent``, ``volume_strength`` replace; the row's texture
is kept unless ``texture_shape`` is given (empty: none). A bad value is one located line.
"""

from __future__ import annotations

import dataclasses
import math

from nps_sonar_py.echo.seabed import BackscatterModel, Seabed, named_seabed
from nps_sonar_py.echo.sediment import Sediment
from nps_sonar_py.errors import ConfigurationError, SceneError
from nps_sonar_py.xml_input import Element, NumberError, parse_number, raise_at

__all__ = ['SEABED_ATTRIBUTES', 'read_seabed', 'seabed_of_name']

_SEDIMENT_FIELDS = tuple(f.name for f in dataclasses.fields(Sediment))
_NUMBERS = ('lambert_db', 'texture_patch', 'ripple_wavelength', 'ripple_height')
#: Every attribute a ``<seabed>`` takes.
SEABED_ATTRIBUTES = (
    'sediment',
    'model',
    'texture_shape',
    'texture_seed',
    'ripple_direction',
    'extrapolate',
    *_NUMBERS,
    *_SEDIMENT_FIELDS,
)


def seabed_of_name(element: Element, name: str, file: str | None) -> Seabed:
    """The named sediment's seabed, or a located ``SceneError``."""
    try:
        return named_seabed(name.strip())
    except ConfigurationError as err:
        raise_at(SceneError, element, str(err), file=file)


def _number(element: Element, key: str, text: str, file: str | None) -> float:
    try:
        value = parse_number(text)
    except NumberError:
        value = math.nan
    if not math.isfinite(value):
        raise_at(SceneError, element, f'{key}={text!r} must be a finite number', file=file)
    return value


def read_seabed(element: Element, file: str | None) -> Seabed:
    """The :class:`Seabed` a ``<seabed>`` element gives (module docstring)."""
    for key in element.attrib:
        if str(key) not in SEABED_ATTRIBUTES:
            expected = ', '.join(sorted(SEABED_ATTRIBUTES))
            problem = f'unknown attribute {key!r} (expected one of: {expected})'
            raise_at(SceneError, element, problem, file=file)
    base = seabed_of_name(element, element.get('sediment', 'sand'), file)
    given = {
        k: _number(element, k, v, file)
        for k, v in element.attrib.items()
        if k in (*_NUMBERS, *_SEDIMENT_FIELDS, 'ripple_direction', 'texture_seed')
    }
    changes: dict[str, object] = {k: v for k, v in given.items() if k not in _SEDIMENT_FIELDS}
    if 'texture_seed' in changes:
        changes['texture_seed'] = int(given['texture_seed'])
    model = element.get('model')
    if model is not None:
        choices = [m.value for m in BackscatterModel]
        if model.strip() not in choices:
            raise_at(SceneError, element, f'model={model!r} must be one of {choices}', file=file)
        changes['model'] = BackscatterModel(model.strip())
    extrapolate = element.get('extrapolate')
    if extrapolate is not None:
        if extrapolate.strip() not in ('true', 'false'):
            raise_at(
                SceneError,
                element,
                f'extrapolate={extrapolate!r} must be true or false',
                file=file,
            )
        changes['extrapolate'] = extrapolate.strip() == 'true'
    shape = element.get('texture_shape')
    if shape is not None:
        changes['texture_shape'] = tuple(
            _number(element, 'texture_shape', part, file) for part in shape.split()
        )
    try:
        sediment = dataclasses.replace(
            base.sediment, **{k: v for k, v in given.items() if k in _SEDIMENT_FIELDS}
        )
        return dataclasses.replace(base, sediment=sediment, **changes)  # type: ignore[arg-type]
    except ConfigurationError as err:
        raise_at(SceneError, element, str(err), file=file)
