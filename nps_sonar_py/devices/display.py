"""A device's display chain as a stage after its echo: the image the real device stores.

:class:`DisplaySettings` names a display chain of ``echo/display_presets.py`` (``display``;
``none``: no stage) and the few settings a user of the device sets on it: how many samples
it stores over the range window, its fixed receive gain, and whether its image is published.
:class:`DisplayStage` is that chain on a device (a multibeam fan, a side-scan): each ping's
echo record (``EchoRecord.intensity``, linear, per beam and slant-range bin) goes through
the chain (``DisplayChain.apply``: sampling, water column, noise floor, gain and TVG, AGC,
compression, quantisation) into the device's codes, uint8 or uint16; the linear intensity
the echo gave stays in the record, untouched, and the chain's own linear samples are in the
result. The stage draws its noise from a generator of its own, so that the codes never
change what the device measured (``test/devices/test_echo_records.py``).

The chain follows the device: its range window's far end and its absorption (the TVG
restores the two-way absorption the echo model applied) are the device's at each ping, so a
new range window (a Ranger request) gets its chain. ``docs/display.md`` says what each
device stores and why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from nps_sonar_py.devices.kinds.base import Setup
from nps_sonar_py.devices.settings import BeamSettings
from nps_sonar_py.echo import EchoConfig
from nps_sonar_py.echo.display import DisplayChain, DisplayImage
from nps_sonar_py.echo.display_presets import DISPLAY_PRESETS, display_chain
from nps_sonar_py.records import Record, choice_text, setting

__all__ = ['NO_DISPLAY', 'DisplaySettings', 'DisplayStage', 'display_names', 'display_stage']

#: The value of ``display`` that puts no display chain after the echo.
NO_DISPLAY = 'none'
#: Most samples a display chain may store per beam over the range window.
MAX_DISPLAY_SAMPLES = 1_000_000
#: The display chain's random stream beside the echo's, of one ``seed``.
DISPLAY_STREAM = 34
#: Largest fixed gain, dB either way.
MAX_GAIN_DB = 300.0


def display_names() -> tuple[str, ...]:
    """The values ``display`` takes: ``none``, then every display chain preset."""
    return (NO_DISPLAY, *DISPLAY_PRESETS)


def _display_text() -> str:
    """``display``'s description, its choices read from the table of display presets."""
    return (
        "multibeam, sidescan: the device's display chain after the echo (docs/display.md): "
        f'{choice_text(display_names())}; its image on <device>/display_image (a fan) or '
        '<device>/display_line (a side-scan)'
    )


@dataclass(frozen=True)
class DisplaySettings(Record):
    """Which display chain a device runs after its echo, and the settings a user sets on it.

    The chain's other figures (its TVG law, compression, quantisation, noise floor) are the
    preset's: they are what the device does, not a user's choice.
    """

    display: str = setting(NO_DISPLAY, _display_text, choices=display_names)
    display_samples: int = setting(
        0,
        'display chain: samples stored per beam or channel over 0..max_range; 0: the '
        "preset's sample spacing (the device's sample rate) over the range window",
        1,
        MAX_DISPLAY_SAMPLES,
        zero=True,
    )
    display_gain_db: float = setting(
        0.0,
        "display chain: the device's fixed receive gain, added to the preset's [dB]; it sets "
        'where the echo falls between code 0 and full scale',
        -MAX_GAIN_DB,
        MAX_GAIN_DB,
    )
    publish_display: bool = setting(
        True,
        'with a display chain: publish its codes, <device>/display_image (a fan: mono8 or '
        'mono16, rows range far to near, columns beams port to starboard) or '
        '<device>/display_line (a side-scan: one mono16 row per ping, port far to near then '
        'starboard near to far)',
    )

    @property
    def on(self) -> bool:
        """Whether a display chain runs after the echo."""
        return self.display != NO_DISPLAY

    def chain(self, echo: EchoConfig) -> DisplayChain:
        """The chain of ``display`` over ``echo``'s range window and absorption.

        ``display_samples`` 0 keeps the preset's sample spacing (``max_range / samples``):
        a device samples at its rate whatever its range setting.
        """
        preset = DISPLAY_PRESETS[self.display]
        spacing = preset.max_range / preset.samples
        samples = self.display_samples or max(1, round(echo.max_range / spacing))
        return display_chain(
            self.display,
            samples=min(samples, MAX_DISPLAY_SAMPLES),
            max_range=echo.max_range,
            alpha=echo.effective_absorption,
            gain_db=preset.gain_db + self.display_gain_db,
        )


class DisplayStage:
    """A device's display chain after its echo; :meth:`image` of a reading, once per reading.

    The stage is made once per configuration (``DisplaySettings`` and the noise seed); its
    chain is rebuilt only when the device's range window or absorption changes. The image of
    the latest reading is kept, so that every output of one ping reads the same codes.
    """

    def __init__(self, settings: DisplaySettings, seed: int | None) -> None:
        self.settings = settings
        self._rng = np.random.default_rng(None if seed is None else (seed, DISPLAY_STREAM))
        self._chain: tuple[EchoConfig, DisplayChain] | None = None
        self._last: tuple[Any, DisplayImage] | None = None

    def chain(self, echo: EchoConfig) -> DisplayChain:
        """The chain over ``echo``'s window (kept while the window is the same)."""
        if self._chain is None or self._chain[0] != echo:
            self._chain = (echo, self.settings.chain(echo))
        return self._chain[1]

    def image(self, reading: Any, echo: EchoConfig) -> DisplayImage:
        """The device's image of ``reading``'s echo record (its beams' codes and linear samples).

        The record is read, never changed; the codes of one reading are made once.
        """
        if self._last is not None and self._last[0] is reading:
            return self._last[1]
        record = reading.echo
        image = self.chain(echo).apply(
            record.intensity, record.bin_edges, self._rng, coherent=record.coherent is not None
        )
        self._last = (reading, image)
        return image


def display_stage(setup: Setup) -> DisplayStage | None:
    """The stage of ``setup``'s ``DisplaySettings``, or ``None`` with ``display: none``.

    Its noise is seeded by ``seed`` (``BeamSettings``), on a stream of its own.
    """
    settings = setup[DisplaySettings]
    return DisplayStage(settings, setup[BeamSettings].noise_seed) if settings.on else None
