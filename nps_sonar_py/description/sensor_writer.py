"""Writing a sensor as a proposal-form ``<sensor>`` element, the inverse of ``sensor_reader``.

Each spec field is written at the first of its
:class:`~nps_sonar_py.description.sensor_specs.XmlField` paths, as an element.
"""

from __future__ import annotations

from dataclasses import fields
from enum import Enum
from typing import Any

from lxml import etree

from nps_sonar_py.description.sensor_specs import Sensor, SensorForm, ValueKind, xml_field
from nps_sonar_py.description.xml import only_child
from nps_sonar_py.transforms import matrix_to_rpy
from nps_sonar_py.xml_input import Element

__all__ = ['sensor_to_xml']


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
        declared = xml_field(f)
        *containers, leaf = declared.paths[0].split('/')
        node = el
        for segment in containers:
            existing = only_child(node, segment)
            node = existing if existing is not None else etree.SubElement(node, segment)
        child = etree.SubElement(node, leaf)
        if declared.kind is ValueKind.SPEC:
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
