"""What an imaging sonar does to its beams' profiles: gain over range, speckle, side lobes.

Options a multibeam (forward-looking) sonar's image shows, all off by default, applied to
the ``(N, n_bins)`` profiles of one ping (beam ``j``, range bin ``k`` at centre ``R_k``) in
this order:

1. **Side-lobe leakage** (``side_lobe_db = -X``): every beam also hears the echoes of all
   the other beams of the fan at ``L = 10**(-X / 10)`` of their level, as a receive pattern
   whose side lobes sit at a flat floor ``-X`` dB below the main lobe across the fan would:
   ``P'_jk = P_jk + L * sum_{i != j} P_ik``. A bright target thus draws the faint arc
   across the whole image that real sonar images show at its range.
2. **Speckle per image cell** (``cell_speckle``): each cell is multiplied by an independent
   unit-mean exponential number, ``P''_jk = P'_jk * E_jk`` with ``E ~ Exp(1)`` (mean 1,
   variance 1): fully developed speckle, the Rayleigh-amplitude statistics of an image cell
   that holds many scatterers. Drawn from the echo model's seeded generator.
3. **Time-varied gain** (``tvg``): ``G(R) = k log10(R) + 2 alpha R`` dB with ``k = 20`` (area
   targets: seabed, walls) or ``40`` (point targets), ``alpha`` the one-way absorption in dB/m
   and ``R`` in metres, evaluated at each bin centre: ``P'''_jk = P''_jk * 10**(G(R_k) / 10)
   = P''_jk * R_k**(k / 10) * 10**(alpha R_k / 5)``. It undoes spreading and absorption,
   so that equal targets look equally bright at every range. Only bins with an echo
   (``P'' > 0``) are multiplied: a bin without one stays exactly 0. A gain law whose largest
   gain, ``G(max_range)``, is over ``TVG_MAX_DB`` is refused (:func:`tvg_problem`).

These change the profiles (the image) only: a ping's ranges, totals and confidence are
those of the echo model, before any of them, so they keep their physical meaning
(intensity relative to the source at 1 m) whatever the display options.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.records import Record, setting

__all__ = [
    'TVG_MAX_DB',
    'ImagingConfig',
    'Tvg',
    'apply_imaging',
    'tvg_db',
    'tvg_gain',
    'tvg_problem',
]


class Tvg(Enum):
    """Time-varied gain: none, ``20 log R + 2 alpha R`` or ``40 log R + 2 alpha R``."""

    NONE = 'none'
    LOG20 = '20log'
    LOG40 = '40log'


#: The ``k`` of ``k log10(R)`` of each gain law.
_SPREADING_DB = {Tvg.NONE: 0.0, Tvg.LOG20: 20.0, Tvg.LOG40: 40.0}

#: Largest time-varied gain accepted, dB (``G(max_range)``; G grows with R). 10**25 keeps the
#: gain and ``echo * gain`` finite in float64 (up to 1.8e308), and the 32FC1 image (float32,
#: up to 3.4e38) finite for every bin value below 3.4e13 (135 dB). A perfect reflector (mu = 1)
#: filling a beam's whole solid angle (at most a hemisphere, 2 pi) at 1 m returns at most
#: 8 dB; leakage from 100000 beams (50 dB) and a cell-speckle draw (< 50: 17 dB) add 67 dB; the
#: 60 dB left is 1 / r**2 at 1 mm: only a return nearer than that could overflow. Real gain
#: laws stay far below: 40 log10(10 km) is 160 dB, 2 alpha R of 0.3 dB/m over 100 m is 60 dB.
#: Without a limit 10**(G / 10) is inf past 3083 dB (e.g. 5 dB/m over 400 m), and 0 * inf, or
#: an inf bin's interpolation weight 0, makes NaN.
TVG_MAX_DB = 250.0


@dataclass(frozen=True)
class ImagingConfig(Record):
    """The image options of a multibeam ping, validated on creation, all off by default.

    Invalid values raise ``ConfigurationError('<field> must be ..., got <value>')``
    (``records.check_record``).

    Attributes:
        tvg: time-varied gain law (``Tvg``, or its string value).
        cell_speckle: multiply each image cell by a unit-mean exponential number.
        side_lobe_db: level in dB, < 0, of each beam's echo leaking into every other beam;
            ``None`` is off.
    """

    tvg: Tvg = setting(Tvg.NONE, 'time-varied gain law')
    cell_speckle: bool = setting(False, 'unit-mean exponential speckle on each image cell')
    side_lobe_db: float | None = setting(None, 'side-lobe leakage level [dB], < 0; None: off')

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.side_lobe_db is not None and self.side_lobe_db >= 0.0:
            raise ConfigurationError(
                f'side_lobe_db must be < 0 dB (None: off), got {self.side_lobe_db!r}'
            )

    @property
    def enabled(self) -> bool:
        """Whether any option changes the profiles."""
        return self.tvg is not Tvg.NONE or self.cell_speckle or self.side_lobe_db is not None


def tvg_db(tvg: Tvg, ranges: ArrayLike, absorption_db_per_m: float) -> NDArray[np.float64]:
    """Gain ``G(R) = k log10 R + 2 alpha R`` in dB at ``ranges`` (m, > 0); 0 for ``NONE``."""
    r = np.asarray(ranges, dtype=np.float64)
    spreading = _SPREADING_DB[tvg]
    if spreading == 0.0:
        return np.zeros_like(r)
    gain_db: NDArray[np.float64] = spreading * np.log10(r) + 2.0 * absorption_db_per_m * r
    return gain_db


def tvg_gain(tvg: Tvg, ranges: ArrayLike, absorption_db_per_m: float) -> NDArray[np.float64]:
    """Linear intensity gain ``10**((k log10 R + 2 alpha R) / 10)`` at ``ranges`` (m, > 0).

    Unchecked: past 3083 dB it is inf; :func:`tvg_problem` refuses such a gain law first.

    >>> tvg_gain(Tvg.LOG40, [10.0], 0.0).tolist()  # 40 dB at 10 m
    [10000.0]
    """
    gain: NDArray[np.float64] = 10.0 ** (tvg_db(tvg, ranges, absorption_db_per_m) / 10.0)
    return gain


def tvg_problem(tvg: Tvg, max_range: float, absorption_db_per_m: float) -> str | None:
    """Why this gain law cannot be applied out to ``max_range`` (m), or ``None``.

    Its largest gain, ``G(max_range)``, must be at most ``TVG_MAX_DB`` (why: its comment).

    >>> tvg_problem(Tvg.LOG40, 400.0, 5.0)
    'tvg: 40log gain at max_range (400 m, absorption 5 dB/m) must be <= 250 dB, got 4104.1 dB'
    """
    if tvg is Tvg.NONE:
        return None
    largest = float(tvg_db(tvg, max_range, absorption_db_per_m))
    if largest <= TVG_MAX_DB:
        return None
    return (
        f'tvg: {tvg.value} gain at max_range ({max_range:g} m, absorption '
        f'{absorption_db_per_m:g} dB/m) must be <= {TVG_MAX_DB:g} dB, got {largest:.1f} dB'
    )


def apply_imaging(
    profiles: NDArray[np.float64],
    config: ImagingConfig,
    gain: NDArray[np.float64] | None,
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """The profiles ``(N, n_bins)`` with leakage, speckle and gain applied (module docstring).

    Args:
        profiles: (N, n_bins) intensity per beam and bin, linear; not modified.
        config: the options.
        gain: (n_bins,) ``tvg_gain`` at the bin centres, or ``None`` for no gain; applied
            only to bins > 0, so a bin without echo stays 0 whatever its gain.
        rng: the generator speckle draws ``N * n_bins`` exponentials from, row by row.

    Returns:
        A new (N, n_bins) float64 array, or ``profiles`` itself when every option is off.
    """
    out = profiles
    if config.side_lobe_db is not None:
        leakage = 10.0 ** (config.side_lobe_db / 10.0)
        # P + L (S - P): every beam hears the sum over the other beams at L.
        out = profiles * (1.0 - leakage) + leakage * profiles.sum(axis=0)
    if config.cell_speckle:
        out = out * rng.standard_exponential(out.shape)
    if gain is not None and config.tvg is not Tvg.NONE:
        echo = out > 0.0
        gained = np.zeros(out.shape)  # no echo: exactly 0, never 0 * gain (NaN for inf)
        np.multiply(out, gain, out=gained, where=echo)
        out = gained
    return out
