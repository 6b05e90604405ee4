"""Optional randomness of a ping: range noise as SDF ``<noise>``, speckle and gain noise.

Everything here is off by default and draws only from the ``numpy.random.Generator`` it is
given, so that a seed reproduces a ping bit for bit (``docs/physics.md#noise-and-speckle``).

* Range noise follows gz-sensors ``GaussianNoiseModel``: a bias drawn once from
  ``N(bias_mean, bias_stddev)`` and negated with probability 1/2, then per value
  ``out = in + bias + N(mean, stddev)``, rounded to a multiple of ``precision`` when
  ``precision > 0`` (gazebosim/gz-sensors ``src/GaussianNoiseModel.cc``).
* Speckle is DAVE's coherent sum (Choi et al. 2021, Eq. 14): every return is given the
  complex amplitude ``sqrt(I_i) (xi_x + i xi_y) / sqrt(2)`` with independent standard
  normal ``xi``, and a bin's intensity is the squared modulus of their sum. Its mean is the
  incoherent sum; for many returns it is exponentially distributed (Rayleigh amplitude).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nps_sonar_py.errors import ConfigurationError
from nps_sonar_py.noise_type import NoiseType
from nps_sonar_py.records import Record, setting

__all__ = ['NoiseType', 'RangeNoise', 'coherent_speckle']


@dataclass(frozen=True)
class RangeNoise(Record):
    """Noise added to the scalar range of a ping, with the fields of SDF ``<noise>``, in metres.

    Checked on creation by ``records.check_record`` (``range_noise.<field> must be ...``).

    Attributes:
        type: ``NONE`` leaves the range untouched and draws nothing (a ``NoiseType`` member).
        mean: mean of the white noise, m.
        stddev: standard deviation of the white noise, m, >= 0.
        bias_mean: mean of the bias drawn once per model, m.
        bias_stddev: standard deviation of that bias, m, >= 0.
        precision: quantum the noisy range is rounded to, m, >= 0; 0 for none. Required (> 0)
            by ``GAUSSIAN_QUANTIZED``.
    """

    members_only = True
    prefix = 'range_noise.'

    type: NoiseType = setting(NoiseType.NONE, 'noise model')
    mean: float = setting(0.0, 'mean of the white noise [m]')
    stddev: float = setting(0.0, 'standard deviation of the white noise [m]', 0.0)
    bias_mean: float = setting(0.0, 'mean of the bias [m]')
    bias_stddev: float = setting(0.0, 'standard deviation of the bias [m]', 0.0)
    precision: float = setting(0.0, 'quantum of the noisy range [m], 0 for none', 0.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.type is NoiseType.GAUSSIAN_QUANTIZED and self.precision <= 0.0:
            raise ConfigurationError(
                'range_noise.precision must be > 0 for type gaussian_quantized, '
                f'got {self.precision!r}'
            )

    @property
    def enabled(self) -> bool:
        """Whether this noise changes anything (type is not ``NONE``)."""
        return self.type is not NoiseType.NONE

    def draw_bias(self, rng: np.random.Generator) -> float:
        """The constant bias, m: ``N(bias_mean, bias_stddev)``, negated with probability 1/2.

        Draws two numbers from ``rng`` (normal, then uniform), as gz-sensors does at load.
        """
        bias = float(rng.normal(self.bias_mean, self.bias_stddev))
        return -bias if rng.random() < 0.5 else bias

    def apply(self, value: float, bias: float, rng: np.random.Generator) -> float:
        """``value + bias + N(mean, stddev)``, quantised; infinities pass, drawing nothing.

        The one-value case of :meth:`apply_array`.

        >>> noise = RangeNoise(NoiseType.GAUSSIAN_QUANTIZED, precision=0.01)
        >>> noise.apply(1.234, 0.0, np.random.default_rng(0))
        1.23
        """
        return float(self.apply_array(np.array([value], dtype=np.float64), bias, rng)[0])

    def apply_array(
        self, values: NDArray[np.float64], bias: float, rng: np.random.Generator
    ) -> NDArray[np.float64]:
        """A copy of ``values``: ``bias + N(mean, stddev)`` added to the finite ones, quantised.

        Infinities pass unchanged and draw nothing; one normal number is drawn per finite
        value, in order. Returns ``values`` itself when the noise is off.
        """
        if not self.enabled:
            return values
        out = np.array(values, dtype=np.float64)
        finite = np.isfinite(out)
        noisy = out[finite] + bias + rng.normal(self.mean, self.stddev, int(finite.sum()))
        if self.precision > 0.0:
            noisy = np.round(noisy / self.precision) * self.precision
        out[finite] = noisy
        return out


def coherent_speckle(
    intensity: ArrayLike, bin_index: ArrayLike, n_bins: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """Speckled intensity per bin: ``|sum_i sqrt(I_i) (xi_x + i xi_y) / sqrt(2)|**2`` over the bin.

    Args:
        intensity: (m,) non-negative intensity of each return (linear, any unit).
        bin_index: (m,) bin of each return, integers in [0, n_bins).
        n_bins: number of bins.
        rng: source of the 2 m standard normal numbers (all x first, then all y).

    Returns:
        (n_bins,) float64 speckled intensity; its expectation is the plain per-bin sum.

    >>> out = coherent_speckle([1.0, 1.0], [0, 0], 2, np.random.default_rng(1))
    >>> out.shape, float(out[1])
    ((2,), 0.0)
    """
    amplitude = np.sqrt(np.asarray(intensity, dtype=np.float64))
    index = np.asarray(bin_index, dtype=np.intp)
    xi = rng.standard_normal((2, amplitude.shape[0]))
    real = np.bincount(index, weights=amplitude * xi[0], minlength=n_bins)
    imag = np.bincount(index, weights=amplitude * xi[1], minlength=n_bins)
    return 0.5 * (real * real + imag * imag)
