"""The sensor records of a robot description: :class:`Sensor` and its ten typed specs.

A :class:`Sensor` is one ``<sensor>`` of either form (the URDF proposal's or Gazebo's, see
``sensor_reader``); ``Sensor.origin`` always means parent link <- optical frame (z forward,
x right, y down). Each typed child (``<sonar>``, ``<ray>``, ``<camera>``, ...) is a frozen
spec that checks its own fields when built, so a spec made in code is as valid as one read
from a file. Its fields declare where they sit in XML (:class:`XmlField`), which
``sensor_reader`` and ``sensor_writer`` follow. The field tables, defaults and constraints
are in ``docs/description.md``.
"""

from __future__ import annotations

import builtins
import math
from dataclasses import MISSING, Field, dataclass, field, replace
from enum import Enum
from typing import Any, TypeVar, Union

import numpy as np
from numpy.typing import NDArray

from nps_sonar_py.description.values import (
    ANGLE,
    POSITIVE,
    RATE,
    Bound,
    FieldError,
    RecordEq,
    as_transform,
    check_fields,
)
from nps_sonar_py.noise_type import NoiseType
from nps_sonar_py.transforms import BODY_FROM_OPTICAL, transform_from

__all__ = [
    'BODY_FROM_OPTICAL_TRANSFORM',
    'DEFAULT_RAY_MAX_RANGE',
    'MAX_NOISE',
    'MAX_RANGE',
    'MAX_SCAN_RAYS',
    'MAX_SCAN_RESOLUTION',
    'MAX_SCAN_SAMPLES',
    'OPTICAL_FROM_BODY_TRANSFORM',
    'SPEC_CLASSES',
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
    'ValueKind',
    'XmlField',
    'xml_field',
]

#: 4x4 transform body (x forward) <- optical (z forward):
#: ``parent<-body @ this = parent<-optical``.
BODY_FROM_OPTICAL_TRANSFORM: NDArray[np.float64] = transform_from(BODY_FROM_OPTICAL, np.zeros(3))
BODY_FROM_OPTICAL_TRANSFORM.flags.writeable = False
#: 4x4 transform optical <- body, the inverse of :data:`BODY_FROM_OPTICAL_TRANSFORM`.
OPTICAL_FROM_BODY_TRANSFORM: NDArray[np.float64] = transform_from(BODY_FROM_OPTICAL.T, np.zeros(3))
OPTICAL_FROM_BODY_TRANSFORM.flags.writeable = False


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

#: Largest mean, standard deviation or precision of a ``<noise>``, in the measurement's unit:
#: far beyond any sensor's noise, so that noisy readings and their squares stay finite.
MAX_NOISE = 1e6

_AT_LEAST_ONE = Bound(low=1.0)
_NOISE = Bound(low=-MAX_NOISE, high=MAX_NOISE)
_NOISE_SIZE = Bound(low=0.0, high=MAX_NOISE)
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


# Field declarations: each spec field says, in an `XmlField` under the metadata key 'xml', how
# its XML text is read and where the value may be written; 'bound' is checked on construction.


class ValueKind(Enum):
    """How the XML of a spec field is read."""

    FLOAT = 'float'  #: a finite number
    INT = 'int'  #: an integer, no fraction or exponent
    TEXT = 'text'  #: non-empty text, stripped
    CHOICE = 'choice'  #: one of an Enum's values
    SPEC = 'spec'  #: a nested spec, read from a child element


@dataclass(frozen=True)
class XmlField:
    """Where and how a spec field is written in XML (read by the sensor reader and writer).

    Attributes:
        kind: how the text is read.
        paths: the places the value may be written, alternatives, ``'/'`` between nested
            elements; the first is where the writer puts it. Empty: the field's name.
        choices: the Enum of a ``CHOICE`` field.
        required: must be written even though the field has a default (SDF's ``<noise type>``).

    """

    kind: ValueKind
    paths: tuple[str, ...] = ()
    choices: type[Enum] | None = None
    required: bool = False


def xml_field(f: Field[Any]) -> XmlField:
    """The XML declaration of the spec field ``f``, its ``paths`` filled in."""
    declared = f.metadata['xml']
    if not isinstance(declared, XmlField):
        raise TypeError(f'field {f.name!r} declares no XmlField')
    return declared if declared.paths else replace(declared, paths=(f.name,))


def _number(
    default: Any = MISSING, *, bound: Bound | None = None, xml: str | tuple[str, ...] = ()
) -> Any:
    return field(
        default=default, metadata={'xml': XmlField(ValueKind.FLOAT, _paths(xml)), 'bound': bound}
    )


def _integer(
    default: Any = MISSING, *, bound: Bound | None = None, xml: str | tuple[str, ...] = ()
) -> Any:
    return field(
        default=default, metadata={'xml': XmlField(ValueKind.INT, _paths(xml)), 'bound': bound}
    )


def _text(default: Any = MISSING, *, xml: str | tuple[str, ...] = ()) -> Any:
    return field(default=default, metadata={'xml': XmlField(ValueKind.TEXT, _paths(xml))})


def _choice(enum: type[Enum], *, required_in_xml: bool = False) -> dict[str, Any]:
    """Metadata of an Enum field, read by value."""
    return {'xml': XmlField(ValueKind.CHOICE, choices=enum, required=required_in_xml)}


def _nested(*, xml: str | tuple[str, ...] = ()) -> dict[str, Any]:
    """Metadata of a nested spec field; its class is the field's ``default_factory``."""
    return {'xml': XmlField(ValueKind.SPEC, _paths(xml))}


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
    ``type`` is required, as in SDF. Every value is at most ``MAX_NOISE`` in size.
    """

    type: NoiseType = field(
        default=NoiseType.NONE, metadata=_choice(NoiseType, required_in_xml=True)
    )
    mean: float = _number(0.0, bound=_NOISE)
    stddev: float = _number(0.0, bound=_NOISE_SIZE)
    bias_mean: float = _number(0.0, bound=_NOISE)
    bias_stddev: float = _number(0.0, bound=_NOISE_SIZE)
    precision: float = _number(0.0, bound=_NOISE_SIZE)

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
    ``max_angle`` (radians within ``limits.MAX_ANGLE``, ``max_angle >= min_angle``; one sample
    sits in the middle).
    ``resolution`` (in (0, ``MAX_SCAN_RESOLUTION``]) multiplies ``samples`` to give the number
    of rays cast, :attr:`rays` ``= max(1, round(samples * resolution))``: above 1 a reading is
    the mean of its rays, below 1 it is interpolated between its two neighbouring rays
    (``docs/ranger.md``). :class:`RaySpec` (and the scanner) limit the rays to
    ``MAX_SCAN_RAYS``.
    """

    samples: int = _integer(1, bound=Bound(low=1.0, high=MAX_SCAN_SAMPLES))
    resolution: float = _number(1.0, bound=Bound(low=0.0, high=MAX_SCAN_RESOLUTION, low_open=True))
    min_angle: float = _number(0.0, bound=ANGLE)
    max_angle: float = _number(0.0, bound=ANGLE)

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
        name: unique among the robot's sensors; no white space or control character, as it
            names the sensor's frame, topics and services.
        update_rate: Hz, in [``limits.MIN_RATE``, ``limits.MAX_RATE``]; ``None`` for every
            cycle (absent, or 0 as Gazebo writes it).
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
    update_rate: float | None = field(metadata={'bound': RATE})
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
        if any(c.isspace() or not c.isprintable() for c in self.name):
            raise FieldError(
                'name',
                f'{self.name!r} has white space or a control character; it names the '
                "sensor's frame and topics",
            )
        if not self.parent_link:
            raise FieldError('parent_link', 'must not be empty')
        check_fields(self)
        expected = SPEC_CLASSES[self.type]
        if type(self.spec) is not expected:
            raise FieldError('spec', f'a {self.type.value} sensor needs a {expected.__name__}')

    @property
    def body_origin(self) -> NDArray[np.float64]:
        """(4, 4) transform parent_link <- body frame (x forward, y left, z up; REP 103)."""
        return self.origin @ OPTICAL_FROM_BODY_TRANSFORM

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
