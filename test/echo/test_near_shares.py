"""The near bin and its share of a return (``EchoModel._near_shares``), and the cached bounds.

Bins of 1 m from 0 m to 10 m (``dr`` 1 m, so a width in bins is one in metres). A return at
range ``r`` with an interval ``u`` bins wide about it starts at ``a = r - u / 2``; its near
bin is ``k = floor(a)`` and that bin's share ``min((k + 1 - a) / u, 1)`` (a point, ``u = 0``:
``1 / 0``, the whole echo). Worked out here by hand.

The widths are bounded to [0, 1] against cached read-only arrays (``_filled``: numpy bounds
an array by an array faster than by a scalar), which keeps a width of -0.0 (a ray that starts
on the surface it hits: ``0 * -x``) as -0.0 where a scalar bound gave +0.0, and ``1 / -0.0``
is -inf: the model makes it +0.0 first. Controls: the same formula with the -0.0 kept is
-inf (which the tests reject); a cached bound written to would change every later ping, and
it refuses.
"""

from __future__ import annotations

import numpy as np
import pytest

from nps_sonar_py.echo import Absorption, EchoConfig, EchoModel
from nps_sonar_py.echo.model import _filled

DTYPES = [np.float32, np.float64]


def model() -> EchoModel:
    """Ten 1 m bins from 0 to 10 m over two rays."""
    config = EchoConfig(min_range=0.0, max_range=10.0, n_bins=10, absorption=Absorption.NONE)
    return EchoModel(config, np.zeros(2), np.full(2, 1e-4))


def near_shares(r: list[float], u: list[float], dtype: type) -> tuple[np.ndarray, ...]:
    """The near bins and shares of returns at ``r`` m, ``u`` bins wide; and ``u`` as bounded.

    Under the errstate the model's pings run in (``x / 0`` is how a point takes it all).
    """
    width = np.array(u, dtype=dtype)
    with np.errstate(divide='ignore', invalid='ignore'):
        k, share = model()._near_shares(np.array(r, dtype=dtype), width)
    return k, share, width


@pytest.mark.parametrize('dtype', DTYPES)
def test_a_width_of_minus_zero_is_a_point(dtype: type) -> None:
    """A ray on the surface it hits (r = 0, u = -0.0) and one at 6.3 m: the whole echo in
    bins 0 and 6 (``(k + 1 - a) / +0 = inf``, bounded to 1), the width made +0.0.

    Control: the share with the -0.0 kept is ``1 / -0.0 = -inf`` (a NaN in the image once
    the next bin takes ``echo - echo * share``).
    """
    k, share, width = near_shares([0.0, 6.3], [-0.0, -0.0], dtype)
    assert k.tolist() == [0.0, 6.0]
    assert share.tolist() == [1.0, 1.0]
    assert not np.signbit(width).any()
    with np.errstate(divide='ignore'):
        kept = (np.array([1.0], dtype=dtype) - 0.0) / np.array([-0.0], dtype=dtype)
    assert kept[0] == -np.inf  # control: what the shares would be without the +0.0


@pytest.mark.parametrize('dtype', DTYPES)
def test_widths_are_bounded_to_one_bin(dtype: type) -> None:
    """At 6.3 m: u NaN, inf and 2.5 read as one bin ([5.8, 6.8]: 0.2 in bin 5); u 0.4
    ([6.1, 6.5], inside bin 6) and u -0.3 (read as 0) give bin 6 the whole echo.

    Control: unbounded, u 2.5 would start at 5.05 and give bin 5 ``0.95 / 2.5 = 0.38``.
    """
    u = [np.nan, np.inf, 2.5, 0.4, -0.3]
    k, share, width = near_shares([6.3] * 5, u, dtype)
    assert width.tolist() == pytest.approx([1.0, 1.0, 1.0, 0.4, 0.0])
    assert k.tolist() == [5.0, 5.0, 5.0, 6.0, 6.0]
    assert share.tolist() == pytest.approx([0.2, 0.2, 0.2, 1.0, 1.0], abs=1e-6)
    unbounded = (5.0 + 1.0 - (6.3 - 2.5 / 2.0)) / 2.5
    assert share[2] != pytest.approx(unbounded, abs=1e-3)  # control


@pytest.mark.parametrize('dtype', DTYPES)
def test_the_cached_bounds_are_read_only(dtype: type) -> None:
    """``_filled`` hands out slices of one cached block (sizes 5 and 7 of a block of 8): a
    write into one, which would change every later ping's bounds, is refused, and a
    ``_near_shares`` call leaves them as they were.
    """
    five, seven = _filled(1.0, np.dtype(dtype), 5), _filled(1.0, np.dtype(dtype), 7)
    assert five.tolist() == [1.0] * 5
    assert seven.tolist() == [1.0] * 7
    assert five.dtype == dtype
    assert np.shares_memory(five, seven)
    with pytest.raises(ValueError, match='read-only'):
        seven[0] = 0.5
    with pytest.raises(ValueError, match='read-only'):
        np.fmin(np.zeros(5, dtype=dtype), 0.0, out=five)
    near_shares([6.3] * 5, [np.nan, np.inf, 2.5, 0.4, -0.3], dtype)
    assert _filled(1.0, np.dtype(dtype), 5).tolist() == [1.0] * 5
    assert _filled(0.0, np.dtype(dtype), 5).tolist() == [0.0] * 5
