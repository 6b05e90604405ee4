"""The dataset spec: a YAML file read into frozen records, each value checked with its key.

A value that is drawn per sample is written as a number (fixed), ``[low, high]`` (uniform) or
a list of words or booleans (one drawn, each equally likely): :class:`Draw`. A problem is one
line, ``<file>: <key path>: <problem>`` (``InputError``), e.g.
``fls.yaml: objects[1].burial: must be within [0, 1], got [0.2, 1.5]``. ``docs/datasets.md``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nps_sonar_py.dataset.spec_yaml import load_tree
from nps_sonar_py.devices.settings import EchoModelChoice
from nps_sonar_py.errors import InputError, one_line
from nps_sonar_py.input_files import file_problem, read_input_file
from nps_sonar_py.scene.meshes import MAX_MESH_BYTES

__all__ = [
    'ECHO_MODELS',
    'OBJECT_KINDS',
    'PRESETS',
    'SEABED_FAMILIES',
    'Draw',
    'ObjectSpec',
    'ReflectivitySpec',
    'SeabedSpec',
    'SensorSpec',
    'SequenceSpec',
    'Spec',
    'SpecError',
    'WaterSpec',
    'load_spec',
    'parse_spec',
]

#: The sensor presets (``dataset/sensor.py`` holds their settings).
PRESETS = ('fls', 'sidescan')
#: The echo models a spec may name (``docs/coherent.md`` for ``coherent``).
ECHO_MODELS = tuple(m.value for m in EchoModelChoice)
#: The seabed families (``dataset/seabed.py``).
SEABED_FAMILIES = ('flat', 'ripples', 'sand_waves', 'rocky')
#: The object kinds of the library (``dataset/objects.py``) and the sizes each one draws.
OBJECT_KINDS: dict[str, dict[str, tuple[float, float]]] = {
    'box': {'length': (1.0, 3.0), 'width': (0.5, 1.5), 'height': (0.5, 1.5)},
    'pipe': {'radius': (0.15, 0.5), 'length': (5.0, 20.0)},
    'mine': {'radius': (0.25, 0.5), 'length': (1.0, 2.5)},
    'tyre': {'radius': (0.4, 0.8), 'tube': (0.12, 0.25)},
    'wreck': {'length': (8.0, 15.0), 'beam': (2.5, 4.5), 'height': (1.5, 3.0)},
    # dataset/shapes.py; ``blades`` a count (rounded), ``shape`` picks a fragment
    'drum': {'radius': (0.28, 0.3), 'height': (0.85, 0.9)},
    'chain': {'link': (0.1, 0.3), 'length': (2.0, 8.0)},
    'cage': {'length': (0.6, 1.2), 'width': (0.4, 0.8), 'height': (0.3, 0.6), 'bar': (0.01, 0.03)},
    'crab_trap': {'radius': (0.35, 0.5), 'height': (0.25, 0.4), 'bar': (0.008, 0.015)},
    'propeller': {'diameter': (0.6, 2.0), 'blades': (3.0, 5.0)},
    'effigy': {'length': (1.5, 1.9)},
    'debris': {'length': (0.1, 0.8), 'width': (0.05, 0.5), 'height': (0.02, 0.2), 'shape': (0, 1)},
    'mesh': {'scale': (1.0, 1.0)},
}
#: Settings a spec may draw per sample (``sensor.vary``): each one's bounds, and whether it is
#: a count (drawn uniformly, then rounded to the nearest integer).
VARIED: dict[str, tuple[float, float, bool]] = {
    'frequency': (1e3, 1e7, False),
    'beams': (1, 4096, True),
    'range_bins': (2, 8192, True),
    'image_db_min': (-300.0, 100.0, False),
    'image_db_max': (-300.0, 100.0, False),
}
#: How objects are placed: in the sensor's view (``dataset/placement.py``) or at ``x``, ``y``.
PLACES = ('view', 'xy')
#: The kinds of sequence: pings along a straight track, or towards the first object.
SEQUENCES = ('track', 'approach')
#: Sound-speed profile families (``dataset/water.py``).
PROFILES = ('isovelocity', 'gradient', 'thermocline')


#: Largest spec file read, bytes.
MAX_SPEC_BYTES = 2**20


class SpecError(InputError):
    """A dataset spec that cannot be used: ``<file>: <key>: <problem>``, one line."""


@dataclass(frozen=True)
class Draw:
    """A value drawn per sample: ``low == high`` fixed, else uniform; or one of ``choices``."""

    low: float = 0.0
    high: float = 0.0
    choices: tuple[Any, ...] = ()

    @property
    def fixed(self) -> bool:
        """Whether every sample gets the same value."""
        return len(self.choices) == 1 if self.choices else self.low == self.high


@dataclass(frozen=True)
class SensorSpec:
    """The sonar: a preset with its settings overridden, and the pose drawn per sample.

    ``settings``: the ``scanning_sonar_node`` parameters the preset changes (the README's
    names), checked by the settings records. Angles in degrees, distances in metres.
    """

    preset: str
    echo_model: EchoModelChoice
    settings: Mapping[str, Any]
    min_range: float
    range: Draw
    altitude: Draw
    tilt: Draw
    heading: Draw
    #: The settings drawn per sample (:data:`VARIED`), by name.
    vary: Mapping[str, Draw] = field(default_factory=dict)


@dataclass(frozen=True)
class ReflectivitySpec:
    """The seabed's Lambert coefficient: sand with patches of mud and rock."""

    sand: Draw = Draw(0.3, 0.4)
    mud: Draw = Draw(0.05, 0.12)
    rock: Draw = Draw(0.7, 0.9)
    mud_fraction: Draw = Draw(0.0, 0.4)
    rock_fraction: Draw = Draw(0.0, 0.25)
    patch_size: Draw = Draw(4.0, 12.0)


@dataclass(frozen=True)
class SeabedSpec:
    """The seabed: a family drawn per sample, its parameters, the grid cell and reflectivity."""

    family: Draw = Draw(choices=SEABED_FAMILIES)
    cell: float = 0.25
    parameters: Mapping[str, Mapping[str, Draw]] = field(default_factory=dict)
    reflectivity: ReflectivitySpec = ReflectivitySpec()


@dataclass(frozen=True)
class ObjectSpec:
    """Objects of one kind: how many, their sizes, burial, place and pose, drawn per sample.

    ``place``: ``view`` (somewhere the sonar sees, ``dataset/placement.py``; ``x``, ``y`` are
    then two uniform numbers that pick the place) or ``xy``: ``x``, ``y`` the position in the
    sensor's frame on the seabed (x ahead along the heading, y to port), m; ``yaw``, degrees;
    ``burial``: the fraction of the height below the seabed; ``elevation``: the base's height
    above the seabed, m (moored or floating); ``pieces`` > 0: each object drawn is a cluster
    of that many pieces within ``spread`` m of its place; ``scour_depth``, ``scour_width``: a
    depression of the seabed under and ``scour_width`` m around the object.
    """

    kind: str
    label: str
    count: tuple[int, int]
    sizes: Mapping[str, Draw]
    burial: Draw
    x: Draw
    y: Draw
    yaw: Draw
    reflectivity: Draw
    file: str = ''
    place: str = 'xy'
    elevation: Draw = Draw()
    pieces: tuple[int, int] = (0, 0)
    spread: Draw = Draw()
    scour_depth: Draw = Draw()
    scour_width: Draw = Draw()


@dataclass(frozen=True)
class SequenceSpec:
    """Consecutive samples of one scene: ``length`` pings ``step`` m apart, along ``kind``."""

    length: int = 1
    step: float = 0.0
    kind: str = 'track'


@dataclass(frozen=True)
class WaterSpec:
    """The water: a sound-speed profile family, the sensor's depth, multipath on or off."""

    profile: Draw = Draw(choices=('isovelocity',))
    surface_speed: Draw = Draw(1500.0, 1500.0)
    gradient: Draw = Draw(0.0, 0.0)
    thermocline_depth: Draw = Draw(10.0, 30.0)
    thermocline_drop: Draw = Draw(5.0, 25.0)
    sensor_depth: Draw = Draw(20.0, 20.0)
    multipath: Draw = Draw(choices=(False,))


@dataclass(frozen=True)
class Spec:
    """A whole dataset spec (``docs/datasets.md``); ``source`` is its file, ``text`` its YAML."""

    seed: int
    sensor: SensorSpec
    seabed: SeabedSpec
    objects: tuple[ObjectSpec, ...]
    water: WaterSpec
    gain_db: Draw
    tvg: Draw
    speckle: Draw
    gain_stddev: Draw
    source: str
    text: str
    sequence: SequenceSpec = SequenceSpec()
    #: The display PNGs' channels: 1 (grayscale) or 3 (the gray value in each of R, G, B).
    channels: int = 1

    @property
    def classes(self) -> tuple[str, ...]:
        """The object classes, in the order of their first appearance among the objects."""
        return tuple(dict.fromkeys(o.label for o in self.objects))


# --- reading ------------------------------------------------------------------------------------


class _Reader:
    """Reads values out of the YAML tree, raising :class:`SpecError` at the key path."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, path: str, problem: str) -> SpecError:
        return SpecError(problem, file=self.source, element=path)

    def mapping(self, node: Any, path: str, known: Sequence[str]) -> Mapping[str, Any]:
        if node is None:
            return {}
        if not isinstance(node, Mapping):
            raise self.fail(path, f'must be a mapping of keys, got {_shown(node)}')
        for key in node:
            if key not in known:
                where = f'{path}.{key}' if path else str(key)
                raise self.fail(where, f'unknown key; known: {", ".join(known)}')
        return node

    def draw(
        self,
        node: Any,
        path: str,
        default: Draw,
        low: float = -math.inf,
        high: float = math.inf,
    ) -> Draw:
        """A number or ``[low, high]`` within the bounds; a default when absent."""
        if node is None:
            return default
        if _is_number(node):
            values = [float(node), float(node)]
        elif (
            isinstance(node, Sequence)
            and not isinstance(node, str)
            and len(node) == 2
            and all(_is_number(v) for v in node)
        ):
            values = [float(v) for v in node]
        else:
            raise self.fail(path, f'must be a number or [low, high], got {_shown(node)}')
        if not all(math.isfinite(v) for v in values) or values[0] > values[1]:
            raise self.fail(path, f'must be finite with low <= high, got {_shown(node)}')
        if values[0] < low or values[1] > high:
            raise self.fail(path, f'must be within [{low:g}, {high:g}], got {_shown(node)}')
        return Draw(values[0], values[1])

    def choice(self, node: Any, path: str, default: Draw, allowed: Sequence[Any]) -> Draw:
        """One of ``allowed``, or a list of them (one drawn per sample)."""
        if node is None:
            return default
        values = list(node) if isinstance(node, list) else [node]
        for value in values:
            if value not in allowed or isinstance(value, bool) != isinstance(allowed[0], bool):
                options = ', '.join(str(a).lower() for a in allowed)
                raise self.fail(
                    path, f'must be one of {options} (or a list of them), got {_shown(value)}'
                )
        if not values:
            raise self.fail(path, 'must name at least one choice, got []')
        return Draw(choices=tuple(values))

    def number(self, node: Any, path: str, default: float, low: float, high: float) -> float:
        if node is None:
            return default
        if not _is_number(node) or not (low <= float(node) <= high):
            raise self.fail(path, f'must be a number in [{low:g}, {high:g}], got {_shown(node)}')
        return float(node)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    return one_line(repr(value), 80)


_TOP = ('seed', 'sensor', 'seabed', 'objects', 'water', 'processing', 'sequence', 'output')
_SENSOR = (
    'preset',
    'echo_model',
    'settings',
    'vary',
    'min_range',
    'range',
    'altitude',
    'tilt',
    'heading',
)
_PROCESSING = ('gain_db', 'tvg', 'speckle', 'gain_stddev')
_FAMILY_PARAMETERS: dict[str, dict[str, tuple[float, float]]] = {
    'flat': {'roughness': (0.0, 0.02)},
    'ripples': {'wavelength': (0.8, 1.5), 'height': (0.04, 0.12)},
    'sand_waves': {'wavelength': (10.0, 25.0), 'height': (0.3, 1.0)},
    'rocky': {'height': (0.3, 1.2), 'scale': (1.5, 4.0)},
}
_OBJECT_COMMON = (
    'kind',
    'class',
    'count',
    'place',
    'x',
    'y',
    'yaw',
    'burial',
    'elevation',
    'cluster',
    'scour',
    'reflectivity',
    'file',
)
_WATER = tuple(WaterSpec.__dataclass_fields__)


def load_spec(path: str | Path) -> Spec:
    """The spec in the YAML file ``path``; ``SpecError`` (one line) if it cannot be used."""
    source = Path(path).name
    data = read_input_file(path, SpecError, what='dataset spec', limit=MAX_SPEC_BYTES)
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError as error:
        raise SpecError(f'not UTF-8 text: {error.reason}', file=str(path)) from None
    return parse_spec(text, source=source, base=Path(path).resolve().parent)


def parse_spec(text: str, *, source: str = '<spec>', base: Path | None = None) -> Spec:
    """The spec in the YAML ``text``; mesh files are relative to ``base`` (the spec's folder)."""
    r = _Reader(source)
    tree = load_tree(text, source, SpecError)
    top = r.mapping(tree, '', _TOP)
    seed = top.get('seed', 0)
    if not (isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2**63):
        raise r.fail('seed', f'must be an integer in [0, 2**63), got {_shown(seed)}')
    processing = r.mapping(top.get('processing'), 'processing', _PROCESSING)
    sensor = _sensor(r, top.get('sensor'))
    coherent = sensor.echo_model is EchoModelChoice.COHERENT
    objects = top.get('objects') or []
    if not isinstance(objects, list):
        raise r.fail('objects', f'must be a list, got {_shown(objects)}')
    return Spec(
        seed=seed,
        sensor=sensor,
        seabed=_seabed(r, top.get('seabed')),
        objects=tuple(_object(r, o, f'objects[{i}]', base) for i, o in enumerate(objects)),
        water=_water(r, top.get('water')),
        gain_db=r.draw(processing.get('gain_db'), 'processing.gain_db', Draw(), -60.0, 60.0),
        tvg=r.choice(
            processing.get('tvg'),
            'processing.tvg',
            Draw(choices=('40log',)),
            ('none', '20log', '40log'),
        ),
        speckle=_speckle(r, processing.get('speckle'), coherent),
        gain_stddev=r.draw(
            processing.get('gain_stddev'), 'processing.gain_stddev', Draw(), 0.0, 10.0
        ),
        source=source,
        text=text,
        sequence=_sequence(r, top.get('sequence'), sensor.preset),
        channels=_channels(r, top.get('output')),
    )


def _channels(r: _Reader, node: Any) -> int:
    """``output.channels``: 1 or 3."""
    output = r.mapping(node, 'output', ('channels',))
    channels = output.get('channels', 1)
    if channels not in (1, 3) or isinstance(channels, bool):
        raise r.fail('output.channels', f'must be 1 or 3, got {_shown(channels)}')
    return int(channels)


def _speckle(r: _Reader, node: Any, coherent: bool) -> Draw:
    """Speckle per bin on or off: on by default, off (and only off) with the coherent model."""
    speckle = r.choice(node, 'processing.speckle', Draw(choices=(not coherent,)), (False, True))
    if coherent and True in speckle.choices:
        raise r.fail(
            'processing.speckle',
            'the coherent model makes its own speckle (the phases of the scatterers): set false',
        )
    return speckle


def _echo_model(r: _Reader, model: Any) -> EchoModelChoice:
    """``model`` as the settings record's choice (``CoherentSettings.echo_model``)."""
    try:
        return EchoModelChoice(model)
    except (ValueError, TypeError):
        raise r.fail(
            'sensor.echo_model', f'must be {" or ".join(ECHO_MODELS)}, got {_shown(model)}'
        ) from None


def _sensor(r: _Reader, node: Any) -> SensorSpec:
    s = r.mapping(node, 'sensor', _SENSOR)
    preset = s.get('preset', 'fls')
    if preset not in PRESETS:
        raise r.fail('sensor.preset', f'must be {" or ".join(PRESETS)}, got {_shown(preset)}')
    model = _echo_model(r, s.get('echo_model', EchoModelChoice.INCOHERENT.value))
    settings = s.get('settings') or {}
    if not isinstance(settings, Mapping) or not all(isinstance(k, str) for k in settings):
        raise r.fail('sensor.settings', f'must be a mapping of settings, got {_shown(settings)}')
    fls = preset == 'fls'
    vary = _vary(r, s.get('vary'), fls, settings)
    return SensorSpec(
        preset=preset,
        echo_model=model,
        settings=dict(settings),
        min_range=r.number(s.get('min_range'), 'sensor.min_range', 0.5 if fls else 0.0, 0, 1e3),
        range=r.draw(
            s.get('range'), 'sensor.range', Draw(30.0, 30.0) if fls else Draw(50, 50), 0.5, 1e3
        ),
        altitude=r.draw(
            s.get('altitude'),
            'sensor.altitude',
            Draw(5.0, 5.0) if fls else Draw(10.0, 10.0),
            0.1,
            1e3,
        ),
        tilt=r.draw(s.get('tilt'), 'sensor.tilt', Draw(20.0, 20.0), 0.0, 89.0),
        heading=r.draw(s.get('heading'), 'sensor.heading', Draw(0.0, 360.0), -360.0, 720.0),
        vary=vary,
    )


def _vary(r: _Reader, node: Any, fls: bool, settings: Mapping[str, Any]) -> dict[str, Draw]:
    """The settings drawn per sample (:data:`VARIED`): ``[low, high]`` each."""
    given = r.mapping(node, 'sensor.vary', tuple(VARIED))
    drawn: dict[str, Draw] = {}
    for name, value in given.items():
        low, high, count = VARIED[name]
        path = f'sensor.vary.{name}'
        drawn[name] = r.draw(value, path, Draw(), low, high)
        if count and not all(float(v).is_integer() for v in (drawn[name].low, drawn[name].high)):
            raise r.fail(path, f'a count: must be whole numbers, got {_shown(value)}')
        if name in settings:
            raise r.fail(path, f'drawn here and set in sensor.settings.{name}: keep one')
    if not fls and 'beams' in drawn:
        raise r.fail('sensor.vary.beams', 'a side-scan has no beams to draw (an fls setting)')
    db_min, db_max = drawn.get('image_db_min'), drawn.get('image_db_max')
    if db_min is not None and db_max is not None and db_min.high >= db_max.low:
        raise r.fail(
            'sensor.vary.image_db_max',
            f'must stay above image_db_min (up to {db_min.high:g}), got from {db_max.low:g}',
        )
    return drawn


def _sequence(r: _Reader, node: Any, preset: str) -> SequenceSpec:
    """Consecutive pings of one scene (``sequence``): its length, step and kind."""
    q = r.mapping(node, 'sequence', ('length', 'kind', 'step', 'speed', 'interval'))
    length = q.get('length', 1)
    if not (isinstance(length, int) and not isinstance(length, bool) and 1 <= length <= 10_000):
        raise r.fail('sequence.length', f'must be an integer in [1, 10000], got {_shown(length)}')
    kind = q.get('kind', 'track')
    if kind not in SEQUENCES:
        raise r.fail('sequence.kind', f'must be track or approach, got {_shown(kind)}')
    if preset == 'sidescan' and kind == 'approach':
        raise r.fail('sequence.kind', 'a side-scan sequence is a track (block after block)')
    if 'step' in q and 'speed' in q:
        raise r.fail('sequence', 'give step, or speed and interval, not both')
    if 'interval' in q and 'speed' not in q:
        raise r.fail('sequence.interval', 'goes with speed (step = speed x interval)')
    if 'speed' in q:
        speed = r.number(q['speed'], 'sequence.speed', 0.0, 0.0, 100.0)
        step = speed * r.number(q.get('interval'), 'sequence.interval', 0.1, 1e-3, 3600.0)
    else:  # a side-scan's default: the block's own length (0)
        step = r.number(q.get('step'), 'sequence.step', 1.0 if preset == 'fls' else 0.0, 0, 1e3)
    return SequenceSpec(length=length, step=step, kind=kind)


def _seabed(r: _Reader, node: Any) -> SeabedSpec:
    s = r.mapping(node, 'seabed', ('family', 'cell', *SEABED_FAMILIES, 'reflectivity'))
    parameters: dict[str, dict[str, Draw]] = {}
    for family, defaults in _FAMILY_PARAMETERS.items():
        given = r.mapping(s.get(family), f'seabed.{family}', tuple(defaults))
        parameters[family] = {
            name: r.draw(given.get(name), f'seabed.{family}.{name}', Draw(*bounds), 0.0, 1e3)
            for name, bounds in defaults.items()
        }
    for family in ('ripples', 'sand_waves'):
        if parameters[family]['wavelength'].low <= 0.0:
            raise r.fail(f'seabed.{family}.wavelength', 'must be > 0')
    fields = tuple(ReflectivitySpec.__dataclass_fields__)
    m = r.mapping(s.get('reflectivity'), 'seabed.reflectivity', fields)
    base = ReflectivitySpec()
    reflectivity = ReflectivitySpec(
        **{
            name: r.draw(
                m.get(name),
                f'seabed.reflectivity.{name}',
                getattr(base, name),
                0.0,
                1e3 if name == 'patch_size' else 1.0,
            )
            for name in fields
        }
    )
    return SeabedSpec(
        family=r.choice(
            s.get('family'), 'seabed.family', Draw(choices=SEABED_FAMILIES), SEABED_FAMILIES
        ),
        cell=r.number(s.get('cell'), 'seabed.cell', 0.25, 0.02, 5.0),
        parameters=parameters,
        reflectivity=reflectivity,
    )


def _count(r: _Reader, node: Any, path: str) -> tuple[int, int]:
    if node is None:
        return (1, 1)
    values = node if isinstance(node, list) else [node, node]
    ok = len(values) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in values)
    if not ok or not 0 <= values[0] <= values[1] <= 100:
        raise r.fail(
            path, f'must be an integer or [low, high] within [0, 100], got {_shown(node)}'
        )
    return (values[0], values[1])


def _place(r: _Reader, o: Mapping[str, Any], path: str) -> tuple[str, Draw, Draw]:
    """``place`` and the ``x``, ``y`` draws: two uniform numbers when placed in view."""
    given = 'x' in o or 'y' in o
    place = o.get('place', 'xy' if given else 'view')
    if place not in PLACES:
        raise r.fail(f'{path}.place', f'must be view or xy, got {_shown(place)}')
    if place == 'view':
        if given:
            raise r.fail(f'{path}.place', 'view places the object itself: drop x and y')
        return place, Draw(0.0, 1.0), Draw(0.0, 1.0)
    x = r.draw(o.get('x'), f'{path}.x', Draw(5.0, 25.0), -1e3, 1e3)
    return place, x, r.draw(o.get('y'), f'{path}.y', Draw(-8.0, 8.0), -1e3, 1e3)


def _extras(r: _Reader, o: Mapping[str, Any], path: str) -> dict[str, Any]:
    """Elevation, clusters and scour of an object entry (:class:`ObjectSpec`)."""
    elevation = r.draw(o.get('elevation'), f'{path}.elevation', Draw(), 0.0, 1e3)
    if elevation.high > 0.0 and 'burial' in o:
        raise r.fail(f'{path}.burial', 'an object off the seabed (elevation) is not buried')
    cluster = r.mapping(o.get('cluster'), f'{path}.cluster', ('pieces', 'spread'))
    scour = r.mapping(o.get('scour'), f'{path}.scour', ('depth', 'width'))
    if scour and elevation.high > 0.0:
        raise r.fail(f'{path}.scour', 'an object off the seabed (elevation) digs no scour')
    pieces = (0, 0)
    if cluster:
        pieces = _count(r, cluster.get('pieces', [5, 15]), f'{path}.cluster.pieces')
        if pieces[0] < 1:
            raise r.fail(f'{path}.cluster.pieces', f'must be at least 1, got {pieces[0]}')
    return {
        'elevation': elevation,
        'pieces': pieces,
        'spread': r.draw(
            cluster.get('spread'), f'{path}.cluster.spread', Draw(1.0, 3.0), 0.0, 100.0
        ),
        'scour_depth': r.draw(
            scour.get('depth'), f'{path}.scour.depth', Draw(0.1, 0.3) if scour else Draw(), 0, 10
        ),
        'scour_width': r.draw(
            scour.get('width'), f'{path}.scour.width', Draw(0.5, 1.5) if scour else Draw(), 0, 100
        ),
    }


def _object(r: _Reader, node: Any, path: str, base: Path | None) -> ObjectSpec:
    kind = node.get('kind') if isinstance(node, Mapping) else None
    if not isinstance(kind, str) or kind not in OBJECT_KINDS:
        raise r.fail(
            f'{path}.kind', f'must be one of {", ".join(OBJECT_KINDS)}, got {_shown(kind)}'
        )
    sizes = OBJECT_KINDS[kind]
    o = r.mapping(node, path, (*_OBJECT_COMMON, *sizes))
    label = o.get('class', kind)
    if not (isinstance(label, str) and label and label not in ('none', 'seabed')):
        raise r.fail(
            f'{path}.class', f'must be a name other than none and seabed, got {_shown(label)}'
        )
    file = ''
    if kind == 'mesh':
        given = o.get('file')
        if not isinstance(given, str) or not given:
            raise r.fail(
                f'{path}.file', 'a mesh object needs the file of its mesh (OBJ, STL, DAE)'
            )
        resolved = (base / given) if base is not None else Path(given)
        if not resolved.exists():
            raise r.fail(f'{path}.file', f'no such mesh file: {_shown(str(resolved))}')
        problem = file_problem(resolved, limit=MAX_MESH_BYTES)
        if problem is not None:
            raise r.fail(f'{path}.file', f'mesh file {_shown(str(resolved))} {problem}')
        file = str(resolved)
    elif 'file' in o:
        raise r.fail(f'{path}.file', f'only a mesh object has a file, not a {kind}')
    place, x, y = _place(r, o, path)
    return ObjectSpec(
        kind=kind,
        label=label,
        count=_count(r, o.get('count'), f'{path}.count'),
        sizes={n: r.draw(o.get(n), f'{path}.{n}', Draw(*b), 1e-3, 1e3) for n, b in sizes.items()},
        burial=r.draw(o.get('burial'), f'{path}.burial', Draw(0.0, 0.0), 0.0, 1.0),
        x=x,
        y=y,
        yaw=r.draw(o.get('yaw'), f'{path}.yaw', Draw(0.0, 360.0), -720.0, 720.0),
        reflectivity=r.draw(o.get('reflectivity'), f'{path}.reflectivity', Draw(0.5, 0.9), 0, 1),
        file=file,
        place=place,
        **_extras(r, o, path),
    )


def _water(r: _Reader, node: Any) -> WaterSpec:
    w = r.mapping(node, 'water', _WATER)
    d = WaterSpec()
    water = WaterSpec(
        profile=r.choice(w.get('profile'), 'water.profile', d.profile, PROFILES),
        surface_speed=r.draw(
            w.get('surface_speed'), 'water.surface_speed', d.surface_speed, 1400.0, 1600.0
        ),
        gradient=r.draw(w.get('gradient'), 'water.gradient', d.gradient, -1.0, 1.0),
        thermocline_depth=r.draw(
            w.get('thermocline_depth'), 'water.thermocline_depth', d.thermocline_depth, 1.0, 1e3
        ),
        thermocline_drop=r.draw(
            w.get('thermocline_drop'), 'water.thermocline_drop', d.thermocline_drop, 0.0, 100.0
        ),
        sensor_depth=r.draw(w.get('sensor_depth'), 'water.sensor_depth', d.sensor_depth, 0.5, 1e4),
        multipath=r.choice(w.get('multipath'), 'water.multipath', d.multipath, (False, True)),
    )
    if True in water.multipath.choices and set(water.profile.choices) != {'isovelocity'}:
        raise r.fail(
            'water.multipath',
            'multipath needs straight rays: with it on, water.profile must be isovelocity '
            '(ghosts are not traced through a sound-speed profile)',
        )
    return water
