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
   so that equal targets look equally bright at every range.

These change the profiles (the image) only: a ping's ranges, totals and confidence are
those of the echo model, before any of them, so they keep their physical meaning
(intensity relative to the source at 1 m) whatever the display options.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.echo._validate import check, member

__all__ = ['ImagingConfig', 'Tvg', 'apply_imaging', 'tvg_gain']


class Tvg(Enum):
    """Time-varied gain: none, ``20 log R + 2 alpha R`` or ``40 log R + 2 alpha R``."""

    NONE = 'none'
    LOG20 = '20log'
    LOG40 = '40log'


#: The ``k`` of ``k log10(R)`` of each gain law.
_SPREADING_DB = {Tvg.NONE: 0.0, Tvg.LOG20: 20.0, Tvg.LOG40: 40.0}


@dataclass(frozen=True)
class ImagingConfig:
    """The image options of a multibeam ping, validated on creation, all off by default.

    Invalid values raise ``ConfigurationError('<field>: <reason>, got <value>')``.

    Attributes:
        tvg: time-varied gain law (``Tvg``, or its string value).
        cell_speckle: multiply each image cell by a unit-mean exponential number.
        side_lobe_db: level in dB, < 0, of each beam's echo leaking into every other beam;
            ``None`` is off.
    """

    tvg: Tvg = Tvg.NONE
    cell_speckle: bool = False
    side_lobe_db: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, 'tvg', member(Tvg, self.tvg, 'tvg'))
        check(
            isinstance(self.cell_speckle, bool),
            'cell_speckle',
            'must be a bool',
            self.cell_speckle,
        )
        level = self.side_lobe_db
        if level is not None:
            ok = isinstance(level, (int, float)) and not isinstance(level, bool)
            check(ok and math.isfinite(level), 'side_lobe_db', 'must be a finite number', level)
            check(level < 0.0, 'side_lobe_db', 'must be < 0 dB (None: off)', level)
            object.__setattr__(self, 'side_lobe_db', float(level))

    @property
    def enabled(self) -> bool:
        """Whether any option changes the profiles."""
        return self.tvg is not Tvg.NONE or self.cell_speckle or self.side_lobe_db is not None


def tvg_gain(tvg: Tvg, ranges: ArrayLike, absorption_db_per_m: float) -> NDArray[np.float64]:
    """Linear intensity gain ``10**((k log10 R + 2 alpha R) / 10)`` at ``ranges`` (m, > 0).

    >>> tvg_gain(Tvg.LOG40, [10.0], 0.0).tolist()  # 40 dB at 10 m
    [10000.0]
    """
    r = np.asarray(ranges, dtype=np.float64)
    if tvg is Tvg.NONE:
        return np.ones_like(r)
    gain_db = _SPREADING_DB[tvg] * np.log10(r) + 2.0 * absorption_db_per_m * r
    gain: NDArray[np.float64] = 10.0 ** (gain_db / 10.0)
    return gain


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
        gain: (n_bins,) ``tvg_gain`` at the bin centres, or ``None`` for no gain.
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
        out = out * gain
    return out
