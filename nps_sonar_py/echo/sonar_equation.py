"""The active sonar equation, noise limited: the receiver's noise floor and a target's SNR.

In decibels (Urick, *Principles of Underwater Sound*, 3rd ed. 1983, ch. 2;
``docs/coherent.md#noise``):

    SNR = SL - 2 TL + TS - (NL - DI),    TL = 20 log10(r) + a r,    NL = N0 + 10 log10(B),

``SL`` the source level (dB re 1 uPa at 1 m), ``TL`` the one-way transmission loss
(spherical spreading and absorption ``a`` in dB/m, the echo model's), ``TS`` the target
strength, ``N0`` the ambient noise spectrum level (dB re 1 uPa^2/Hz), ``B`` the receiver's
bandwidth (the pulse's) and ``DI`` the receive directivity index.

The echo model's intensities are relative to the source at 1 m (``10 log10 I = -2 TL +
TS``), so the noise is put on the same scale: a mean noise power per range bin of
``10**((NL - DI - SL) / 10)``, which gives every bin the sonar equation's SNR.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from nps_sonar_py.records import Record, setting

__all__ = ['ReceiverNoise', 'noise_intensity', 'snr_db', 'transmission_loss_db']


@dataclass(frozen=True)
class ReceiverNoise(Record):
    """The ambient noise a receive beam hears, checked on creation (``nps_sonar_py.records``).

    Attributes:
        enabled: add the noise floor to the coherent echo.
        spectrum_level: ``N0``, dB re 1 uPa^2/Hz (sea state 3 is about 40 dB at 100 kHz,
            thermal noise ``-15 + 20 log10(f / 1 kHz)``, Mellen 1952: 40.6 dB at 600 kHz).
        directivity_index: ``DI`` of a receive beam, dB.
    """

    enabled: bool = setting(False, 'add the noise floor of the sonar equation')
    spectrum_level: float = setting(
        40.0, 'ambient noise spectrum level N0 [dB re 1 uPa^2/Hz]', -50.0, 150.0
    )
    directivity_index: float = setting(
        30.0, 'directivity index DI of a receive beam [dB]', 0.0, 60.0
    )


def transmission_loss_db(distance: float, absorption_db_per_m: float) -> float:
    """One-way ``TL = 20 log10(r) + a r``, dB, for ``r`` in m (> 0)."""
    return 20.0 * math.log10(distance) + absorption_db_per_m * distance


def snr_db(
    source_level: float,
    transmission_loss: float,
    target_strength: float,
    noise: ReceiverNoise,
    bandwidth: float,
) -> float:
    """``SL - 2 TL + TS - (N0 + 10 log10 B - DI)``, dB (module docstring)."""
    noise_level = noise.spectrum_level + 10.0 * math.log10(bandwidth)
    return (
        source_level
        - 2.0 * transmission_loss
        + target_strength
        - (noise_level - noise.directivity_index)
    )


def noise_intensity(noise: ReceiverNoise, source_level: float, bandwidth: float) -> float:
    """Mean noise power of a range bin relative to the source at 1 m, linear (module docs)."""
    level = noise.spectrum_level + 10.0 * math.log10(bandwidth) - noise.directivity_index
    return float(10.0 ** ((level - source_level) / 10.0))
