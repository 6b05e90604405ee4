"""Display chains of real devices: a small table, by name (``docs/realism.md`` gives the reasons).

Each entry is the chain a device's stored record implies as far as its format and settings
say; what a record does not say (its TVG law, whether it stores amplitude or power) is an
assumption written next to it. ``display_chain(name, samples=..., max_range=...)`` gives a
preset for a record's own sample count and range.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from nps_sonar_py.echo.display import Compression, DisplayChain, Tvg
from nps_sonar_py.echo.reverberation import fan_solid_angle
from nps_sonar_py.errors import ConfigurationError

__all__ = ['AMPLITUDE', 'DISPLAY_PRESETS', 'display_chain', 'oculus_gamma']

#: The power of intensity that amplitude is.
AMPLITUDE = 0.5


def oculus_gamma(setting: int) -> float:
    """The power of intensity an Oculus code is, at ``gammaCorrection`` ``setting`` (1-255).

    The SDK's setting is the gamma ``setting / 255`` (255: 1.0, 127: 0.5); the record's
    speckle says it applies to amplitude (``realism.speckle_law``, ``docs/realism.md``), so
    a code is intensity to the power ``setting / 510``.
    """
    if not 1 <= setting <= 255:
        msg = f'Oculus gamma correction must be 1-255, not {setting!r}'
        raise ConfigurationError(msg)
    return AMPLITUDE * setting / 255.0


#: Each preset's chain (samples and range are the device's usual ones; records give their own).
DISPLAY_PRESETS: dict[str, DisplayChain] = {
    chain.name: chain
    for chain in (
        # Blueprint Subsea Oculus M750d in its high-frequency mode (1.2 MHz, 120 m window
        # down to 40 m): 8-bit codes of amplitude through the sonar's gamma (setting 127 by
        # default; amplitude as the record's speckle says), a 20 log r + 2 alpha r range
        # gain. The device shows a near-field band, but neither its level nor its extent is
        # in its records: off here (``near_field``).
        # alpha: Francois-Garrison at 1.2 MHz, 10 C, 35 PSU. The water column: coastal Sv
        # (the chain's default) in the device's 0.6 x 12 degree beam (its data sheet).
        DisplayChain(
            name='oculus_m750d_hf',
            samples=703,
            max_range=10.0,
            tvg=Tvg.SPREAD_20,
            alpha=0.50,
            compression=Compression.GAMMA,
            gamma=oculus_gamma(127),
            full_scale=255,
            solid_angle=fan_solid_angle(math.radians(0.6), math.radians(12.0)),
        ),
        # A generic 600 kHz side-scan recorded to XTF: uint16 samples saturating at 15 bits,
        # amplitude (the square root of intensity), 20 log r + 2 alpha r TVG: the law read
        # from the seabed of the one such record the package has (``realism.range_law``,
        # n = 24; docs/realism.md), not 40 log r.
        # alpha: Francois-Garrison at 600 kHz, 10 C, 35 PSU. The water column: coastal Sv
        # in a 0.5 x 50 degree beam (the package's side-scan defaults' vertical width).
        DisplayChain(
            name='sidescan_600khz_xtf',
            samples=1024,
            max_range=30.0,
            tvg=Tvg.SPREAD_20,
            alpha=0.16,
            compression=Compression.GAMMA,
            gamma=AMPLITUDE,
            full_scale=32767,
            solid_angle=fan_solid_angle(math.radians(0.5), math.radians(50.0)),
        ),
    )
}


def display_chain(name: str, **changes: Any) -> DisplayChain:
    """Preset ``name`` with ``changes`` (``samples``, ``max_range``, ...); unknown: an error."""
    if name not in DISPLAY_PRESETS:
        msg = f'display chain {name!r} is not a preset (presets: {", ".join(DISPLAY_PRESETS)})'
        raise ConfigurationError(msg)
    known = {f.name for f in dataclasses.fields(DisplayChain) if f.init}
    unknown = sorted(set(changes) - known)
    if unknown:
        msg = f'display chain {name!r} has no setting {", ".join(unknown)}'
        raise ConfigurationError(msg)
    return dataclasses.replace(DISPLAY_PRESETS[name], **changes)
