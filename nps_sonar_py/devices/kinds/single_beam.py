"""The single-beam sonar (``sonar_node``): one ``<sensor type="sonar">``, an array of one.

Its settings are its topics and output switches (:class:`SonarTopicSettings`) and the echo
model (``CoherentSettings``: ``echo_model: coherent``); the beam is the node's
``BeamSettings``. It publishes ``Range``, a one-element ``LaserScan`` and
``SonarPoint`` (``ros/outputs.py``, part ``single_beam``), and with the coherent model its
baseband (part ``baseband``).
"""

from __future__ import annotations

from dataclasses import dataclass

from nps_sonar_py.description import Robot
from nps_sonar_py.devices.kinds.base import FIXED_SCATTERERS, Built, Family, Kind, Setup, Unused
from nps_sonar_py.devices.memory import Size, echo_sizes
from nps_sonar_py.devices.sensors import located, one_sonar_mount, reading_rate
from nps_sonar_py.devices.settings import (
    LINE_ARRAY,
    BeamSettings,
    CoherentSettings,
    OutputSettings,
    SensorSettings,
)
from nps_sonar_py.devices.sonar import SingleBeamSonar
from nps_sonar_py.records import Record, setting

__all__ = ['KIND', 'SonarTopicSettings']


@dataclass(frozen=True)
class SonarTopicSettings(Record):
    """The single-beam sonar's topics and output switches."""

    range_topic: str = setting('', 'sensor_msgs/Range topic; empty: <sensor>/range')
    scan_topic: str = setting('', 'one-element sensor_msgs/LaserScan topic; empty: <sensor>/scan')
    sonar_point_topic: str = setting('', 'nps_sonar/SonarPoint topic; empty: <sensor>/sonar_point')
    publish_range: bool = setting(True, 'publish sensor_msgs/Range', runtime=True)
    publish_scan: bool = setting(
        True,
        'publish the one-element sensor_msgs/LaserScan (range and intensity)',
        runtime=True,
    )
    publish_sonar_point: bool = setting(
        True, 'publish nps_sonar/SonarPoint (range, intensity, profile)', runtime=True
    )


def build(robot: Robot, setup: Setup, _entities: int) -> Built:
    """The sonar named by ``sensor`` (or the first), in its own frame (or ``frame_id``)."""
    chosen, beam = setup[SensorSettings], setup[BeamSettings]
    sensor, mount = one_sonar_mount(robot, chosen.sensor, chosen.frame_id, (0.0, 0.0, 0.0))
    geometry = mount.geometry({})
    device = located(
        sensor,
        lambda: SingleBeamSonar(
            beam.echo_config(sensor.sonar),
            geometry.pose,
            geometry,
            n_rays=beam.rays,
            frequency=reading_rate(setup[OutputSettings], sensor),
            multipath=beam.multipath_config(),
            coherent=setup[CoherentSettings].coherent_config(),
        ),
    )
    return mount, device


def sizes(setup: Setup) -> tuple[Size, ...]:
    """A ping's rays and bins (``Kind.sizes``)."""
    beam = setup[BeamSettings]
    return echo_sizes(
        ('a beam', 1),
        (f'rays {beam.rays}', beam.rays),
        beam.range_bins,
        coherent=setup[CoherentSettings].is_coherent,
    )


KIND = Kind(
    name='single_beam',
    family=Family.SONAR,
    summary='one sonar beam',
    device=SingleBeamSonar,
    build=build,
    records=(SonarTopicSettings, CoherentSettings),
    outputs=('single_beam', 'baseband'),
    sizes=sizes,
    unused=(
        FIXED_SCATTERERS,
        Unused(
            LINE_ARRAY,
            'its one beam has no line array across beams to leak through',
        ),
    ),
)
