"""Presets of real multibeam sonars from their public figures: one setting, ``sonar_preset``.

A :class:`SonarPreset` holds the figures of one sensor as its public sources give them
(``docs/presets.md`` cites each one, and says which are derived and which were not found);
:func:`preset_settings` turns a preset into the multibeam's settings by parameter name: the
fan's beams, sector and vertical width, the range window's far end and its bins, the
carrier, the ping rate, and the coherent model (``echo_model: coherent``) with its pulse and
its receive line array. A figure the sources do not give is not invented: the preset leaves
that setting alone (its default, or the URDF's).

Precedence: a preset gives defaults. The node declares every other parameter with the
preset's value as its default (``ros/params.py``), so a parameter given in a parameter file
or with ``-p`` wins over the preset, and ``ros2 param get`` shows what the node uses; from
Python, ``records.read_records`` does the same with the values it is given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from nps_sonar_py.records import choice_text, refuse

__all__ = [
    'ARRAY_SPACING',
    'HALF_POWER_WIDTH',
    'NO_PRESET',
    'PRESETS',
    'SLOWEST_WATER',
    'SonarPreset',
    'preset_names',
    'preset_settings',
]

#: The value of ``sonar_preset`` that selects none.
NO_PRESET = 'none'
#: Slowest sea water a preset allows for (its ping rate, its bins), m/s.
SLOWEST_WATER = 1400.0
#: Element spacing of a preset's line array, wavelengths: no grating lobe at any steering.
ARRAY_SPACING = 0.5
#: -3 dB width of a uniform line array's factor, in ``sin(theta)``, times ``N d / lambda``,
#: by the elements' shading (Harris 1978, Table 1; ``docs/beamforming.md``).
HALF_POWER_WIDTH = {'none': 0.886, 'hann': 1.44, 'hamming': 1.30}


@dataclass(frozen=True)
class SonarPreset:
    """The public figures of one multibeam sonar in one operating mode (SI units, radians).

    ``None``: the sources reached give no such figure (``docs/presets.md``); the preset then
    sets nothing for it.

    Attributes:
        name: the value of ``sonar_preset`` that selects it.
        title: maker, model and mode.
        frequency: carrier, Hz.
        field_of_view: span of the beam axes across the fan, rad.
        beams: number of beams.
        vertical_beam_width: one-way -3 dB width across the fan (elevation), rad.
        horizontal_beam_width: one-way -3 dB width of a beam in azimuth, rad.
        bandwidth: swept bandwidth of the pulse, Hz (range resolution ``c / (2 B)``).
        max_range: farthest range, m.
        update_rate: fastest ping rate, Hz.
        display: the display chain of the device's stored image (``echo/display_presets.py``,
            ``devices/display.py``); ``None``: none.
        array_window: the shading of the receive array's elements (``array_window``).
        beam_spacing: how the device's beam axes are spaced (``beam_spacing``): ``sine`` where
            its bearing table is even in the sine (a line array's phase steering), ``angle``
            where no source says.
    """

    name: str
    title: str
    frequency: float
    field_of_view: float
    beams: int
    vertical_beam_width: float
    horizontal_beam_width: float | None
    bandwidth: float | None
    max_range: float
    update_rate: float
    display: str | None = None
    array_window: str = 'none'
    beam_spacing: str = 'angle'

    @property
    def array_elements(self) -> int | None:
        """Elements of a line array at ``ARRAY_SPACING`` whose -3 dB width is the beam's.

        At broadside the array factor's -3 dB width in ``sin(theta)`` is
        ``0.886 lambda / (N d)`` unshaded (``1.44`` Hann, ``1.30`` Hamming); a beam of full
        width ``w`` spans ``2 sin(w / 2)`` there.
        """
        if self.horizontal_beam_width is None:
            return None
        span = 2.0 * math.sin(0.5 * self.horizontal_beam_width)
        return round(HALF_POWER_WIDTH[self.array_window] / (ARRAY_SPACING * span))

    def range_bins(self, bandwidth: float) -> int:
        """Bins from 0 to ``max_range`` no wider than ``c / (2 B)`` in any sea water.

        ``c`` the slowest (``SLOWEST_WATER``): one complex baseband sample per bin then samples
        the pulse at its bandwidth whatever the water (``docs/coherent.md``, samples and bins).
        """
        return math.ceil(self.max_range * 2.0 * bandwidth / SLOWEST_WATER - 1e-9)

    @property
    def ping_rate(self) -> float:
        """The preset's pings per second: its fastest, or what the two-way time allows.

        ``c / (2 max_range)`` with ``c`` the slowest sea water (``SLOWEST_WATER``), rounded
        down to 0.1 Hz, so that the rate stands whatever the water's temperature and salinity.
        """
        travel = SLOWEST_WATER / (2.0 * self.max_range)
        return min(self.update_rate, math.floor(10.0 * travel) / 10.0)

    def settings(self) -> dict[str, Any]:
        """The multibeam's settings of this preset, by parameter name, as parameters hold them."""
        values: dict[str, Any] = {
            'echo_model': 'coherent',
            'frequency': self.frequency,
            'beams': self.beams,
            'min_angle': -0.5 * self.field_of_view,
            'max_angle': 0.5 * self.field_of_view,
            'beam_spacing': self.beam_spacing,
            'vertical_beam_width': self.vertical_beam_width,
            'max_range': self.max_range,
            'update_rate': self.ping_rate,
        }
        if self.bandwidth is not None:
            values['bandwidth'] = self.bandwidth
            values['range_bins'] = self.range_bins(self.bandwidth)
        if self.display is not None:
            values['display'] = self.display
        elements = self.array_elements
        if elements is not None:
            values['beam_width'] = self.horizontal_beam_width
            values['array_elements'] = elements
            values['array_spacing'] = ARRAY_SPACING
            values['array_window'] = self.array_window
        return values


#: Every preset, by name (the figures and their sources: ``docs/presets.md``).
PRESETS: dict[str, SonarPreset] = {
    preset.name: preset
    for preset in (
        SonarPreset(
            name='blueview_p900_130',
            title='Teledyne BlueView P900-130',
            frequency=900e3,
            field_of_view=math.radians(130.0),
            beams=768,
            vertical_beam_width=math.radians(20.0),
            horizontal_beam_width=None,
            bandwidth=29.9e3,
            max_range=100.0,
            update_rate=10.0,
        ),
        SonarPreset(
            name='oculus_m750d',
            title='Blueprint Subsea Oculus M750d, low-frequency mode (750 kHz)',
            frequency=750e3,
            field_of_view=math.radians(130.0),
            beams=512,
            vertical_beam_width=math.radians(20.0),
            horizontal_beam_width=math.radians(0.6 * 1.2e6 / 750e3),
            bandwidth=None,
            max_range=120.0,
            update_rate=40.0,
            beam_spacing='sine',
        ),
        SonarPreset(
            name='oculus_m1200d_hf',
            title='Blueprint Subsea Oculus M1200d, high-frequency mode (2.1 MHz)',
            frequency=2.1e6,
            field_of_view=math.radians(60.0),
            beams=256,
            vertical_beam_width=math.radians(12.0),
            horizontal_beam_width=math.radians(0.4),
            bandwidth=None,
            max_range=10.0,
            update_rate=40.0,
            display='oculus_m750d_hf',
            array_window='hann',
            beam_spacing='sine',
        ),
    )
}


def preset_names() -> tuple[str, ...]:
    """The values ``sonar_preset`` takes: ``none``, then every preset."""
    return (NO_PRESET, *PRESETS)


def preset_settings(name: Any) -> dict[str, Any]:
    """The settings preset ``name`` gives (none for ``none``); ``ConfigurationError``: unknown."""
    if name == NO_PRESET:
        return {}
    if not isinstance(name, str) or name not in PRESETS:
        refuse('sonar_preset', f'must be {choice_text(preset_names())}', name)
    return PRESETS[name].settings()
