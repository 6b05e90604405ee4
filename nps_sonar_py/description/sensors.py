"""Sensors of a robot description: the URDF ``<sensor>`` proposal and Gazebo's ``<sensor>``.

Two forms are read onto the same :class:`Sensor`:

- the proposal (``<robot><sensor name type id update_rate><parent link/><origin/>...``),
  whose ``<origin>`` is the sensor's optical frame (z forward, x right, y down);
- Gazebo's (``<gazebo reference="link"><sensor name type>`` with SDF ``<pose>``,
  ``<update_rate>``, ``<ray>``/``<lidar>`` or ``<sonar>``), whose pose is an x-forward body
  frame: it is turned into the optical frame with ``BODY_FROM_OPTICAL``, so that
  ``Sensor.origin`` always means parent link <- optical frame.

Each typed child (``<sonar>``, ``<ray>``, ``<camera>``, ...) becomes a frozen spec whose fields
map onto XML by name. A value may be an attribute or a child element's text
(``<sonar max="7"/>`` or ``<sonar><max>7</max></sonar>``), not both. The proposal form is
read strictly (an unknown element or attribute is an error, so a typo cannot silently
fall back to a default); the Gazebo form ignores what it does not read, as SDF has more.
The field tables, defaults and constraints are in ``docs/description.md``.
"""

from __future__ import annotations

import builtins
import math
from dataclasses import MISSING, dataclass, field, fields
from enum import Enum
from typing import Any, TypeVar, Union, cast

import numpy as np
from lxml import etree
from numpy.typing import NDArray

from nps_sonar_py.description.geometry import parse_origin
from nps_sonar_py.description.values import (
    NON_NEGATIVE,
    POSITIVE,
    Bound,
    FieldError,
    RecordEq,
    as_transform,
    check_fields,
)
from nps_sonar_py.description.xml import (
    Located,
    describe,
    fail,
    find_value,
    only_child,
    parse_float,
    parse_int,
    parse_vector,
    required_child,
    to_text,
)
from nps_sonar_py.errors import DescriptionError
from nps_sonar_py.noise_type import NoiseType
from nps_sonar_py.transforms import BODY_FROM_OPTICAL, matrix_to_rpy, rpy_to_matrix, transform_from
from nps_sonar_py.xml_input import Element, children, local_name, required_attribute, source_of

__all__ = [
    'BODY_TO_OPTICAL_TRANSFORM',
    'DEFAULT_RAY_MAX_RANGE',
    'MAX_RANGE',
    'MAX_SCAN_RAYS',
    'MAX_SCAN_RESOLUTION',
    'MAX_SCAN_SAMPLES',
    'OPTICAL_TO_BODY_TRANSFORM',
    'CameraSpec',
    'ContactSpec',
    'ForceTorqueFrame',
    'ForceTorqueSpec',
    'GpsSpec',
    'ImuSpec',
    'MagnetometerSpec',
    'MeasureDirection',
    'Noise',
    'NoiseType',
    'RangeSpec',
    'RaySpec',
    'RfidSpec',
    'RfidTagSpec',
    'ScanAxis',
    'Sensor',
    'SensorForm',
    'SensorFrame',
    'SensorSpec',
    'SensorType',
    'SonarSpec',
    'UnreadSensor',
    'parse_gazebo_sensor',
    'parse_sensor',
    'sensor_to_xml',
]

#: 4x4 transform body (x forward) <- optical (z forward):
#: ``parent<-body @ this = parent<-optical``.
OPTICAL_TO_BODY_TRANSFORM: NDArray[np.float64] = transform_from(BODY_FROM_OPTICAL, np.zeros(3))
OPTICAL_TO_BODY_TRANSFORM.flags.writeable = False
#: 4x4 transform optical <- body, the inverse of :data:`OPTICAL_TO_BODY_TRANSFORM`.
BODY_TO_OPTICAL_TRANSFORM: NDArray[np.float64] = transform_from(BODY_FROM_OPTICAL.T, np.zeros(3))
BODY_TO_OPTICAL_TRANSFORM.flags.writeable = False

#: Maximum range of a ``<ray>`` without ``<range><max>``, in metres (the proposal says only
#: "finite").
DEFAULT_RAY_MAX_RANGE = 10.0

#: Largest range, radius or range resolution of a sonar or ray sensor, in metres: 10 km,
#: beyond the reach of any sonar or range finder simulated here, and small enough that
#: ranges, their squares and the echo model's spreading and absorption stay finite.
MAX_RANGE = 1e4

#: Most rays a ray sensor may cast per scan, and most readings it may give: the
#: scanner's limit (``sensing.scan.MAX_RAYS`` is this), checked when the description is
#: read, before any array is made. At 4e6 rays a scan's arrays take about 100 MB.
MAX_SCAN_RAYS = 4_000_000

#: Most samples (readings) on one axis of a ray sensor: one axis may use all the rays.
MAX_SCAN_SAMPLES = MAX_SCAN_RAYS

#: Largest ``resolution`` of a scan axis: 1000 rays averaged into each reading. (Below 1
#: the rays are interpolated; any positive value is allowed there.)
MAX_SCAN_RESOLUTION = 1000.0

_AT_LEAST_ONE = Bound(low=1.0)
_RANGE = Bound(low=0.0, high=MAX_RANGE)
_POSITIVE_RANGE = Bound(low=0.0, high=MAX_RANGE, low_open=True)
_FIELD_OF_VIEW = Bound(low=0.0, high=2.0 * math.pi, low_open=True)


class SensorType(Enum):
    """The sensor types of the proposal; the value is the ``type`` attribute."""

    CAMERA = 'camera'
    RAY = 'ray'
    IMU = 'imu'
    MAGNETOMETER = 'magnetometer'
    GPS = 'gps'
    FORCE_TORQUE = 'force_torque'
    CONTACT = 'contact'
    SONAR = 'sonar'
    RFIDTAG = 'rfidtag'
    RFID = 'rfid'


class SensorForm(Enum):
    """Which form a sensor was read from."""

    URDF = 'urdf'  #: ``<robot><sensor>``, the proposal.
    GAZEBO = 'gazebo'  #: ``<gazebo reference="link"><sensor>``, SDF inside URDF.


class SensorFrame(Enum):
    """Which frame of a sensor a pose is asked for."""

    OPTICAL = 'optical'  #: z forward, x right, y down: the proposal's ``<origin>``.
    BODY = 'body'  #: x forward, y left, z up (REP 103): the frame of ``Range`` and ``LaserScan``.


class ForceTorqueFrame(Enum):
    """SDF ``<force_torque><frame>``: the frame the wrench is expressed in."""

    CHILD = 'child'
    PARENT = 'parent'
    SENSOR = 'sensor'


class MeasureDirection(Enum):
    """``<force_torque><measure_direction>``: which link's wrench on the other is measured."""

    PARENT_TO_CHILD = 'parent_to_child'
    CHILD_TO_PARENT = 'child_to_parent'


# Field declarations: 'kind' says how the XML text is read, 'xml' lists the paths the value may
# be found at (alternatives, '/' between nested elements), 'bound' is checked on construction.


def _number(
    default: Any = MISSING, *, bound: Bound | None = None, xml: str | tuple[str, ...] = ()
) -> Any:
    return field(default=default, metadata={'kind': 'float', 'bound': bound, 'xml': _paths(xml)})


def _integer(
    default: Any = MISSING, *, bound: Bound | None = None, xml: str | tuple[str, ...] = ()
) -> Any:
    return field(default=default, metadata={'kind': 'int', 'bound': bound, 'xml': _paths(xml)})


def _text(default: Any = MISSING, *, xml: str | tuple[str, ...] = ()) -> Any:
    return field(default=default, metadata={'kind': 'text', 'xml': _paths(xml)})


def _choice(enum: type[Enum], *, required_in_xml: bool = False) -> dict[str, Any]:
    """Metadata of an Enum field, read by value."""
    return {'kind': 'choice', 'enum': enum, 'required_in_xml': required_in_xml}


def _nested(*, xml: str | tuple[str, ...] = ()) -> dict[str, Any]:
    """Metadata of a nested spec field; its class is the field's ``default_factory``."""
    return {'kind': 'spec', 'xml': _paths(xml)}


def _paths(xml: str | tuple[str, ...]) -> tuple[str, ...]:
    return (xml,) if isinstance(xml, str) else xml


def _not_below(record: Any, low: str, high: str, *, strict: bool) -> None:
    a, b = getattr(record, low), getattr(record, high)
    if b < a or (strict and b == a):
        relation = '>' if strict else '>='
        raise FieldError(high, f'must be {relation} {low} ({a!r}), got {b!r}')


@dataclass(frozen=True)
class Noise:
    """SDF ``<noise>``: Gaussian noise added to a measurement, in the measurement's unit.

    ``precision`` quantises the result for ``gaussian_quantized`` (0: none). Inside ``<noise>``,
    ``type`` is required, as in SDF.
    """

    type: NoiseType = field(
        default=NoiseType.NONE, metadata=_choice(NoiseType, required_in_xml=True)
    )
    mean: float = _number(0.0)
    stddev: float = _number(0.0, bound=NON_NEGATIVE)
    bias_mean: float = _number(0.0)
    bias_stddev: float = _number(0.0, bound=NON_NEGATIVE)
    precision: float = _number(0.0, bound=NON_NEGATIVE)

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True)
class CameraSpec:
    """``<camera><image width height format hfov near far/>``: every field required.

    Sizes in pixels; ``format`` a sensor_msgs image encoding; ``hfov`` in radians in (0, 2 pi];
    clip distances in metres, ``0 < near <= far``.
    """

    width: int = _integer(bound=_AT_LEAST_ONE, xml='image/width')
    height: int = _integer(bound=_AT_LEAST_ONE, xml='image/height')
    format: str = _text(xml='image/format')
    hfov: float = _number(bound=_FIELD_OF_VIEW, xml='image/hfov')
    near: float = _number(bound=POSITIVE, xml='image/near')
    far: float = _number(bound=POSITIVE, xml='image/far')

    def __post_init__(self) -> None:
        check_fields(self)
        if not self.format.strip():
            raise FieldError('format', 'must not be empty')
        _not_below(self, 'near', 'far', strict=False)


@dataclass(frozen=True)
class ScanAxis:
    """``<horizontal>`` or ``<vertical>`` of a ray sensor: its readings and the rays cast for them.

    ``samples`` readings (1 to ``MAX_SCAN_SAMPLES``), evenly spaced from ``min_angle`` to
    ``max_angle`` (radians, ``max_angle >= min_angle``; one sample sits in the middle).
    ``resolution`` (in (0, ``MAX_SCAN_RESOLUTION``]) multiplies ``samples`` to give the number
    of rays cast, :attr:`rays` ``= max(1, round(samples * resolution))``: above 1 a reading is
    the mean of its rays, below 1 it is interpolated between its two neighbouring rays
    (``docs/ranger.md``). :class:`RaySpec` (and the scanner) limit the rays to
    ``MAX_SCAN_RAYS``.
    """

    samples: int = _integer(1, bound=Bound(low=1.0, high=MAX_SCAN_SAMPLES))
    resolution: float = _number(1.0, bound=Bound(low=0.0, high=MAX_SCAN_RESOLUTION, low_open=True))
    min_angle: float = _number(0.0)
    max_angle: float = _number(0.0)

    def __post_init__(self) -> None:
        check_fields(self)  # bounds samples and resolution, so `rays` is a small product
        _not_below(self, 'min_angle', 'max_angle', strict=False)

    @property
    def rays(self) -> int:
        """Rays cast on this axis: ``max(1, round(samples * resolution))``, no array made."""
        return max(1, round(self.samples * self.resolution))


@dataclass(frozen=True)
class RangeSpec:
    """``<ray><range>``: detection range in metres, ``0 <= min < max <= MAX_RANGE``.

    ``resolution`` is in metres (at most ``MAX_RANGE``), ``None`` when not given (no
    quantisation).
    """

    min: float = _number(0.0, bound=_RANGE)
    max: float = _number(DEFAULT_RAY_MAX_RANGE, bound=_POSITIVE_RANGE)
    resolution: float | None = _number(None, bound=_RANGE)

    def __post_init__(self) -> None:
        check_fields(self)
        _not_below(self, 'min', 'max', strict=True)


@dataclass(frozen=True)
class RaySpec:
    """``<ray>``: a scanning range finder.

    ``<horizontal>`` and ``<vertical>`` may also sit in a ``<scan>`` element, as in SDF;
    ``<noise>`` applies to each range, in metres. A scan casts at most ``MAX_SCAN_RAYS`` rays
    (horizontal rays x vertical rays) and gives at most as many readings (samples x samples).
    """

    horizontal: ScanAxis = field(
        default_factory=ScanAxis, metadata=_nested(xml=('horizontal', 'scan/horizontal'))
    )
    vertical: ScanAxis = field(
        default_factory=ScanAxis, metadata=_nested(xml=('vertical', 'scan/vertical'))
    )
    range: RangeSpec = field(default_factory=RangeSpec, metadata=_nested())
    noise: Noise = field(default_factory=Noise, metadata=_nested())

    def __post_init__(self) -> None:
        h, v = self.horizontal, self.vertical
        if not (isinstance(h, ScanAxis) and isinstance(v, ScanAxis)):
            return  # (a spec built in code with other objects; the scanner refuses it)
        for name, axis in (('horizontal', h), ('vertical', v)):
            if axis.rays > MAX_SCAN_RAYS:
                raise FieldError(
                    name,
                    f'samples x resolution = {axis.samples} x {axis.resolution!r} gives '
                    f'{axis.rays} rays, more than the {MAX_SCAN_RAYS} allowed per scan',
                )
        for what, a, b in (('rays', h.rays, v.rays), ('readings', h.samples, v.samples)):
            if a * b > MAX_SCAN_RAYS:
                raise FieldError(
                    what,
                    f'{a} horizontal x {b} vertical = {a * b} per scan, '
                    f'more than the {MAX_SCAN_RAYS} allowed',
                )


@dataclass(frozen=True)
class ImuSpec:
    """``<imu><gyro><noise/></gyro><acceleration><noise/></acceleration></imu>``."""

    gyro_noise: Noise = field(default_factory=Noise, metadata=_nested(xml='gyro/noise'))
    acceleration_noise: Noise = field(
        default_factory=Noise, metadata=_nested(xml='acceleration/noise')
    )


@dataclass(frozen=True)
class MagnetometerSpec:
    """``<magnetometer><noise/></magnetometer>``."""

    noise: Noise = field(default_factory=Noise, metadata=_nested())


@dataclass(frozen=True)
class GpsSpec:
    """``<gps><position_sensing><noise/></position_sensing><velocity_sensing>...``."""

    position_noise: Noise = field(
        default_factory=Noise, metadata=_nested(xml='position_sensing/noise')
    )
    velocity_noise: Noise = field(
        default_factory=Noise, metadata=_nested(xml='velocity_sensing/noise')
    )


@dataclass(frozen=True)
class ForceTorqueSpec:
    """``<force_torque><frame/><measure_direction/></force_torque>``; defaults as SDF."""

    frame: ForceTorqueFrame = field(
        default=ForceTorqueFrame.CHILD, metadata=_choice(ForceTorqueFrame)
    )
    measure_direction: MeasureDirection = field(
        default=MeasureDirection.CHILD_TO_PARENT,
        metadata=_choice(MeasureDirection),
    )


@dataclass(frozen=True)
class ContactSpec:
    """``<contact><collision>name</collision></contact>``: the collision element watched."""

    collision: str | None = _text(None)

    def __post_init__(self) -> None:
        if self.collision is not None and not self.collision.strip():
            raise FieldError('collision', 'must not be empty')


@dataclass(frozen=True)
class SonarSpec:
    """``<sonar>``: a sonar cone, SDF's defaults (min 0, max 1, radius 0.5).

    Range ``0 <= min < max <= MAX_RANGE`` in metres; ``radius`` (metres, in (0, ``MAX_RANGE``])
    is the cone's radius at ``max``.
    """

    min: float = _number(0.0, bound=_RANGE)
    max: float = _number(1.0, bound=_POSITIVE_RANGE)
    radius: float = _number(0.5, bound=_POSITIVE_RANGE)

    def __post_init__(self) -> None:
        check_fields(self)
        _not_below(self, 'min', 'max', strict=True)


@dataclass(frozen=True)
class RfidTagSpec:
    """``<rfidtag/>``: no fields."""


@dataclass(frozen=True)
class RfidSpec:
    """``<rfid/>``: no fields."""


SensorSpec = Union[  # noqa: UP007 (a runtime alias)
    CameraSpec,
    RaySpec,
    ImuSpec,
    MagnetometerSpec,
    GpsSpec,
    ForceTorqueSpec,
    ContactSpec,
    SonarSpec,
    RfidTagSpec,
    RfidSpec,
]

_Spec = TypeVar('_Spec')

#: The spec class of each sensor type; its typed child element is named after the type.
SPEC_CLASSES: dict[SensorType, type] = {
    SensorType.CAMERA: CameraSpec,
    SensorType.RAY: RaySpec,
    SensorType.IMU: ImuSpec,
    SensorType.MAGNETOMETER: MagnetometerSpec,
    SensorType.GPS: GpsSpec,
    SensorType.FORCE_TORQUE: ForceTorqueSpec,
    SensorType.CONTACT: ContactSpec,
    SensorType.SONAR: SonarSpec,
    SensorType.RFIDTAG: RfidTagSpec,
    SensorType.RFID: RfidSpec,
}


@dataclass(frozen=True, eq=False)
class Sensor(RecordEq):
    """One sensor of a robot, in either form.

    Attributes:
        name: unique among the robot's sensors.
        type: what it measures; ``spec`` is the matching ``*Spec``.
        id: the ``id`` attribute as written, ``None`` if absent.
        update_rate: Hz, > 0; ``None`` for every cycle (absent, or 0 as Gazebo writes it).
        parent_link: the link it is attached to.
        origin: (4, 4) float64 transform parent_link <- optical frame (z forward, x right,
            y down), read-only.
        spec: the typed parameters; also reachable as ``sensor.sonar``, ``sensor.ray``, ...
        gazebo: the raw XML of the proposal's ``<gazebo>`` child, or for the Gazebo form of
            the whole ``<sensor>`` element (with its plugins); ``None`` otherwise.
        source: the file (or ``'<robot_description>'``) it was read from.
        line: the line of its ``<sensor>`` element, ``None`` when built in code.
        form: which form it was read from.

    """

    name: str
    type: SensorType
    id: str | None
    update_rate: float | None = field(metadata={'bound': POSITIVE})
    parent_link: str
    origin: NDArray[np.float64]
    spec: SensorSpec
    gazebo: str | None = None
    source: str = '<code>'
    line: int | None = None
    form: SensorForm = SensorForm.URDF

    def __post_init__(self) -> None:
        object.__setattr__(self, 'origin', as_transform(self.origin, 'origin'))
        if not self.name.strip():
            raise FieldError('name', 'must not be empty')
        if not self.parent_link:
            raise FieldError('parent_link', 'must not be empty')
        check_fields(self)
        expected = SPEC_CLASSES[self.type]
        if type(self.spec) is not expected:
            raise FieldError('spec', f'a {self.type.value} sensor needs a {expected.__name__}')

    @property
    def body_origin(self) -> NDArray[np.float64]:
        """(4, 4) transform parent_link <- body frame (x forward, y left, z up; REP 103)."""
        return self.origin @ BODY_TO_OPTICAL_TRANSFORM

    def _typed(self, wanted: SensorType, cls: builtins.type[_Spec]) -> _Spec:
        if self.type is not wanted or not isinstance(self.spec, cls):
            raise AttributeError(
                f'sensor {self.name!r} is a {self.type.value} sensor, not {wanted.value}'
            )
        return self.spec

    @property
    def camera(self) -> CameraSpec:
        """The spec of a camera; ``AttributeError`` for other types."""
        return self._typed(SensorType.CAMERA, CameraSpec)

    @property
    def ray(self) -> RaySpec:
        """The spec of a ray sensor; ``AttributeError`` for other types."""
        return self._typed(SensorType.RAY, RaySpec)

    @property
    def imu(self) -> ImuSpec:
        """The spec of an IMU; ``AttributeError`` for other types."""
        return self._typed(SensorType.IMU, ImuSpec)

    @property
    def magnetometer(self) -> MagnetometerSpec:
        """The spec of a magnetometer; ``AttributeError`` for other types."""
        return self._typed(SensorType.MAGNETOMETER, MagnetometerSpec)

    @property
    def gps(self) -> GpsSpec:
        """The spec of a GPS; ``AttributeError`` for other types."""
        return self._typed(SensorType.GPS, GpsSpec)

    @property
    def force_torque(self) -> ForceTorqueSpec:
        """The spec of a force-torque sensor; ``AttributeError`` for other types."""
        return self._typed(SensorType.FORCE_TORQUE, ForceTorqueSpec)

    @property
    def contact(self) -> ContactSpec:
        """The spec of a contact sensor; ``AttributeError`` for other types."""
        return self._typed(SensorType.CONTACT, ContactSpec)

    @property
    def sonar(self) -> SonarSpec:
        """The spec of a sonar; ``AttributeError`` for other types."""
        return self._typed(SensorType.SONAR, SonarSpec)

    @property
    def rfidtag(self) -> RfidTagSpec:
        """The spec of an RFID tag; ``AttributeError`` for other types."""
        return self._typed(SensorType.RFIDTAG, RfidTagSpec)

    @property
    def rfid(self) -> RfidSpec:
        """The spec of an RFID reader; ``AttributeError`` for other types."""
        return self._typed(SensorType.RFID, RfidSpec)


@dataclass(frozen=True)
class UnreadSensor:
    """A Gazebo ``<sensor>`` of a type not read here (camera, imu, ...): listed, not parsed."""

    name: str
    type: str
    reference: str | None
    source: str
    line: int | None


# --- reading specs --------------------------------------------------------------------------


class _SpecReader:
    """Reads spec dataclasses from XML by their field declarations and remembers what it read.

    With ``strict``, :meth:`check_unknown` then rejects any element or attribute that no field
    asked for.
    """

    def __init__(self, *, strict: bool) -> None:
        self.strict = strict
        self._children: dict[Element, set[str]] = {}
        self._attributes: dict[Element, set[str]] = {}

    def _visit(self, el: Element) -> None:
        self._children.setdefault(el, set())
        self._attributes.setdefault(el, set())

    def _descend(self, el: Element, segments: list[str]) -> Element | None:
        node = el
        for segment in segments:
            self._visit(node)
            self._children[node].add(segment)
            child = only_child(node, segment)
            if child is None:
                return None
            node = child
        self._visit(node)
        return node

    def read(self, cls: type, el: Element) -> Any:
        """Read the spec ``cls`` from ``el``; fields not written keep their defaults."""
        self._visit(el)
        values: dict[str, Any] = {}
        where: dict[str, Element] = {}
        for f in fields(cls):
            meta = f.metadata
            paths = meta.get('xml') or (f.name,)
            found: list[tuple[str, Any]] = []
            for path in paths:
                *containers, leaf = path.split('/')
                node = self._descend(el, containers)
                if node is None:
                    continue
                self._children[node].add(leaf)
                if meta['kind'] == 'spec':
                    item: Any = only_child(node, leaf)
                else:
                    self._attributes[node].add(leaf)
                    item = find_value(node, leaf)
                if item is not None:
                    found.append((path, item))
            if len(found) > 1:
                second = found[1][1]
                fail(
                    second if meta['kind'] == 'spec' else second.element,
                    f'{f.name} given twice: as <{found[0][0]}> and as <{found[1][0]}>',
                )
            if not found:
                required = f.default is MISSING and f.default_factory is MISSING
                if required or meta.get('required_in_xml'):
                    self._missing(el, paths[0], spec=meta['kind'] == 'spec')
                continue
            item = found[0][1]
            if meta['kind'] == 'spec':
                values[f.name] = self.read(cast(type, f.default_factory), item)
                where[f.name] = item
            else:
                values[f.name] = self._convert(meta, item)
                where[f.name] = item.element
        try:
            return cls(**values)
        except FieldError as err:
            fail(where.get(err.field, el), f'{err.field}: {err.problem}')

    @staticmethod
    def _missing(el: Element, path: str, *, spec: bool) -> None:
        *containers, leaf = path.split('/')
        node = el
        for segment in containers:
            child = only_child(node, segment)
            if child is None:
                fail(node, f'missing <{segment}>')
            node = child
        fail(node, f'missing <{leaf}>' if spec else f'missing {leaf} (attribute or element)')

    @staticmethod
    def _convert(meta: Any, value: Located) -> Any:
        kind = meta['kind']
        if kind == 'float':
            return parse_float(value)
        if kind == 'int':
            return parse_int(value)
        text = value.text.strip()
        if kind == 'text':
            if not text:
                value.fail('must not be empty')
            return text
        enum = meta['enum']
        try:
            return enum(text)
        except ValueError:
            options = ', '.join(e.value for e in enum)
            value.fail(f'{text!r} is not one of {options}')

    def check_unknown(self) -> None:
        """Reject elements and attributes that no field read (strict reading only)."""
        if not self.strict:
            return
        for el, allowed in self._children.items():
            for child in children(el):
                if child.tag not in allowed:
                    expected = ', '.join(f'<{a}>' for a in sorted(allowed)) or 'no elements'
                    problem = f'unknown element <{local_name(child)}> in <{local_name(el)}>'
                    fail(child, f'{problem}; expected {expected}')
            for name in el.attrib:
                if name not in self._attributes[el]:
                    expected = ', '.join(sorted(self._attributes[el])) or 'no attributes'
                    fail(el, f'unknown attribute {name}; expected {expected}')


# --- reading sensors ------------------------------------------------------------------------

_URDF_ATTRIBUTES = frozenset({'name', 'type', 'id', 'update_rate'})


def _update_rate(value: Located | None) -> float | None:
    if value is None:
        return None
    rate = parse_float(value)
    if rate < 0.0:
        value.fail(f'must be >= 0 (0: every cycle), got {rate!r}')
    return rate if rate > 0.0 else None


def _sensor_type(el: Element, text: str) -> SensorType:
    try:
        return SensorType(text)
    except ValueError:
        options = ', '.join(t.value for t in SensorType)
        fail(el, f'unknown sensor type {text!r}; expected one of {options}')


def _check_parent(el: Element, link: str, links: frozenset[str] | set[str]) -> None:
    if link not in links:
        fail(el, f'unknown link {link!r}')


def _build(el: Element, **kwargs: Any) -> Sensor:
    try:
        return Sensor(**kwargs, source=source_of(el), line=el.sourceline)
    except FieldError as err:
        fail(el, f'{err.field}: {err.problem}')


def parse_sensor(el: Element, links: frozenset[str] | set[str]) -> Sensor:
    """Read a proposal-form ``<sensor>``; ``links``: the robot's link names (for ``<parent>``)."""
    for name in el.attrib:
        if name not in _URDF_ATTRIBUTES:
            fail(el, f'unknown attribute {name}; expected name, type, id, update_rate')
    name = required_attribute(el, 'name', DescriptionError, element=describe(el))
    if not name.strip():
        fail(el, 'name must not be empty')
    sensor_type = _sensor_type(
        el, required_attribute(el, 'type', DescriptionError, element=describe(el))
    )
    rate_text = el.get('update_rate')
    rate = _update_rate(
        None if rate_text is None else Located(rate_text, el, f'update_rate="{rate_text}"')
    )
    parent = required_child(el, 'parent')
    parent_link = required_attribute(parent, 'link', DescriptionError, element=describe(parent))
    _check_parent(parent, parent_link, links)
    origin = parse_origin(only_child(el, 'origin'))
    gazebo_el = only_child(el, 'gazebo')
    gazebo = (
        None
        if gazebo_el is None
        else etree.tostring(gazebo_el, encoding='unicode', with_tail=False)
    )

    typed = sensor_type.value
    for child in children(el):
        tag = local_name(child)
        if tag in ('parent', 'origin', 'gazebo', typed):
            continue
        if tag in {t.value for t in SensorType}:
            fail(child, f'<{tag}> does not belong in a {typed} sensor')
        fail(child, f'unknown element <{tag}>; expected <parent>, <origin>, <gazebo> or <{typed}>')
    cls = SPEC_CLASSES[sensor_type]
    typed_el = only_child(el, typed)
    if typed_el is None:
        if any(f.default is MISSING and f.default_factory is MISSING for f in fields(cls)):
            fail(el, f'missing <{typed}>')
        spec = cls()
    else:
        reader = _SpecReader(strict=True)
        spec = reader.read(cls, typed_el)
        reader.check_unknown()
    return _build(
        el,
        name=name,
        type=sensor_type,
        id=el.get('id'),
        update_rate=rate,
        parent_link=parent_link,
        origin=origin,
        spec=spec,
        gazebo=gazebo,
        form=SensorForm.URDF,
    )


#: Gazebo sensor types read, with the SensorType and the child elements holding their parameters.
_GAZEBO_TYPES: dict[str, tuple[SensorType, tuple[str, ...]]] = {
    'ray': (SensorType.RAY, ('ray', 'lidar')),
    'gpu_ray': (SensorType.RAY, ('ray', 'lidar')),
    'lidar': (SensorType.RAY, ('ray', 'lidar')),
    'gpu_lidar': (SensorType.RAY, ('ray', 'lidar')),
    'sonar': (SensorType.SONAR, ('sonar',)),
}


def _sdf_pose(el: Element | None, reference: str) -> NDArray[np.float64]:
    """4x4 transform of an SDF ``<pose>x y z roll pitch yaw</pose>``, from the reference link."""
    if el is None:
        return np.eye(4)
    for key in ('relative_to', 'frame'):
        frame = el.get(key)
        if frame not in (None, '', reference):
            fail(el, f'{key}="{frame}": only poses relative to the reference link are supported')
    rotation_format = el.get('rotation_format', 'euler_rpy')
    if rotation_format != 'euler_rpy':
        fail(el, f'rotation_format="{rotation_format}": only euler_rpy is supported')
    degrees = el.get('degrees', 'false').strip().lower()
    if degrees not in ('true', 'false', '1', '0'):
        fail(el, f'degrees="{degrees}" is not a boolean')
    x, y, z, roll, pitch, yaw = parse_vector(Located(to_text(el), el, ''), 6)
    rpy = np.array([roll, pitch, yaw])
    if degrees in ('true', '1'):
        rpy = np.radians(rpy)
    return transform_from(rpy_to_matrix(rpy), (x, y, z))


def parse_gazebo_sensor(
    el: Element,
    reference: str | None,
    links: frozenset[str] | set[str],
) -> Sensor | UnreadSensor:
    """Read a ``<sensor>`` inside ``<gazebo reference="...">``; only ray-like and sonar types."""
    name = required_attribute(el, 'name', DescriptionError, element=describe(el))
    type_text = required_attribute(el, 'type', DescriptionError, element=describe(el)).strip()
    if type_text not in _GAZEBO_TYPES:
        return UnreadSensor(name, type_text, reference, source_of(el), el.sourceline)
    if not name.strip():
        fail(el, 'name must not be empty')
    gazebo_el = el.getparent()
    if reference is None:
        fail(
            gazebo_el if gazebo_el is not None else el,
            'a Gazebo <sensor> needs <gazebo reference="link">',
        )
    if reference not in links:
        fail(gazebo_el if gazebo_el is not None else el, f'unknown link {reference!r}')
    sensor_type, tags = _GAZEBO_TYPES[type_text]
    typed = [c for c in children(el) if c.tag in tags]
    if len(typed) > 1:
        fail(typed[1], f'<{local_name(typed[1])}> given more than once')
    cls = SPEC_CLASSES[sensor_type]
    spec = _SpecReader(strict=False).read(cls, typed[0]) if typed else cls()
    rate_el = only_child(el, 'update_rate')
    rate = _update_rate(None if rate_el is None else Located(to_text(rate_el), rate_el, ''))
    origin = _sdf_pose(only_child(el, 'pose'), reference) @ OPTICAL_TO_BODY_TRANSFORM
    return _build(
        el,
        name=name,
        type=sensor_type,
        id=None,
        update_rate=rate,
        parent_link=reference,
        origin=origin,
        spec=spec,
        gazebo=etree.tostring(el, encoding='unicode', with_tail=False),
        form=SensorForm.GAZEBO,
    )


# --- writing --------------------------------------------------------------------------------


def _format(value: Any) -> str:
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _write_spec(spec: Any, el: Element) -> None:
    for f in fields(spec):
        value = getattr(spec, f.name)
        if value is None:
            continue
        path = (f.metadata.get('xml') or (f.name,))[0]
        *containers, leaf = path.split('/')
        node = el
        for segment in containers:
            existing = only_child(node, segment)
            node = existing if existing is not None else etree.SubElement(node, segment)
        child = etree.SubElement(node, leaf)
        if f.metadata['kind'] == 'spec':
            _write_spec(value, child)
        else:
            child.text = _format(value)


def sensor_to_xml(sensor: Sensor) -> str:
    """Write ``sensor`` as a proposal-form ``<sensor>``, values as elements; it reads back equal.

    A Gazebo-form sensor is written in the proposal form, without its Gazebo XML.
    """
    el = etree.Element('sensor', name=sensor.name, type=sensor.type.value)
    if sensor.id is not None:
        el.set('id', sensor.id)
    if sensor.update_rate is not None:
        el.set('update_rate', repr(float(sensor.update_rate)))
    etree.SubElement(el, 'parent', link=sensor.parent_link)
    xyz = sensor.origin[:3, 3]
    rpy = matrix_to_rpy(sensor.origin[:3, :3])
    etree.SubElement(
        el,
        'origin',
        xyz=' '.join(repr(float(v)) for v in xyz),
        rpy=' '.join(repr(float(v)) for v in rpy),
    )
    _write_spec(sensor.spec, etree.SubElement(el, sensor.type.value))
    if sensor.gazebo is not None and sensor.form is SensorForm.URDF:
        el.append(etree.fromstring(sensor.gazebo))
    return str(etree.tostring(el, encoding='unicode', pretty_print=True))
