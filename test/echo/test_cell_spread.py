"""A fan cell's echo over the bins (``echo.cell_spread``) against a direct integral.

A cell ``D`` tall whose centre lies ``theta0`` from the foot of the perpendicular to a plane at
distance ``p`` (in the plane of the ray and its elevation tangent) meets it at ``R(theta) = p
/ cos(theta)``; the echo law gives it ``cos(theta)**3 exp(-2 a' R(theta))`` per unit angle.
Here that is integrated by brute force (200,000 midpoints over the cell, each binned at its
range), independently of the module's closed forms, and compared bin by bin.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.typing import NDArray

from nps_sonar_py.echo import Absorption, BeamPattern, EchoConfig, EchoModel
from nps_sonar_py.echo.cell_spread import (
    CellGeometry,
    exact_cells,
    exact_pieces,
    grazing_parts,
    quadratic_ramps,
)
from nps_sonar_py.echo.deposits import Ramps

MIN_RANGE, BIN, N_BINS = 0.5, 0.1, 400
HEIGHT = math.radians(20.0) / 24  # a cell of the default fan
ATTENUATION = 0.02  # two-way, nepers per metre


def _brute(r: float, tangent: float, echo: float, attenuation: float) -> NDArray[np.float64]:
    """(N_BINS,) the cell's echo per bin by midpoints over its angles, scaled to ``echo``."""
    centre = math.atan(tangent)
    foot = r * math.cos(centre)
    n = 200_000
    theta = centre + HEIGHT * ((np.arange(n) + 0.5) / n - 0.5)
    ranges = foot / np.cos(theta)
    weight = np.cos(theta) ** 3 * np.exp(-attenuation * ranges)
    bins = np.floor((ranges - MIN_RANGE) / BIN).astype(int)
    inside = (bins >= 0) & (bins < N_BINS)
    profile = np.bincount(bins[inside], weight[inside], N_BINS)
    return profile * echo / weight.sum()


def _ramp(r: float, tangent: float, echo: float) -> NDArray[np.float64]:
    ramps = quadratic_ramps(
        np.array([r]),
        np.array([tangent]),
        np.array([echo]),
        np.zeros(1, dtype=np.intp),
        1,
        height=HEIGHT,
        window=(MIN_RANGE, 1.0 / BIN, N_BINS),
        attenuation=ATTENUATION,
    )
    profile: NDArray[np.float64] = ramps.profile()[0]
    return profile


@pytest.mark.parametrize(('r', 'depression'), [(28.0, 10.0), (20.0, 15.0), (12.0, 35.0)])
def test_a_ramp_is_the_cells_echo_bin_by_bin(r: float, depression: float) -> None:
    """Over a seabed at ``depression`` (``theta0 = 90 deg - depression``): every bin holding
    more than 1 % of the peak within 0.5 % of the brute-force integral, the sum within 1e-9,
    the bins outside the cell exactly 0; a flat box over the same interval misses by > 2 %."""
    tangent = math.tan(math.radians(90.0 - depression))
    assert not exact_cells(np.array([tangent]), HEIGHT)[0]
    echo = 3e-9
    ramp, truth = _ramp(r, tangent, echo), _brute(r, tangent, echo, ATTENUATION)
    held = truth > 0.01 * truth.max()
    inner = held.copy()
    inner[np.flatnonzero(held)[[0, -1]]] = False  # the interval's partial end bins
    assert np.max(np.abs(ramp[inner] / truth[inner] - 1.0)) < 0.005
    assert ramp.sum() == pytest.approx(echo, rel=1e-9)
    assert np.all(ramp[truth == 0.0] == 0.0)
    box = np.where(truth > 0.0, echo / np.count_nonzero(truth > 0.0), 0.0)
    assert np.max(np.abs(box[inner] / truth[inner] - 1.0)) > 0.02


def test_exact_pieces_at_nadir_start_at_the_altitude() -> None:
    """A cell holding the normal (nadir, ``theta0 = 0``) with the plane on a bin edge: no echo
    before it, every bin within 1e-4 of the cell's echo of the brute force."""
    foot = MIN_RANGE + 75 * BIN
    for tangent in (0.0, 0.5 * math.tan(HEIGHT)):
        assert exact_cells(np.array([tangent]), HEIGHT)[0]
        r = foot * math.sqrt(1.0 + tangent * tangent)
        cells = CellGeometry.of(np.array([r]), np.array([tangent]), HEIGHT, 0.0)
        pieces = exact_pieces(
            cells, np.zeros(1, dtype=np.intp), min_range=MIN_RANGE, scale=1.0 / BIN, n_bins=N_BINS
        )
        profile = np.zeros(N_BINS)
        inside = (pieces.bin >= 0) & (pieces.bin < N_BINS)
        np.add.at(profile, pieces.bin[inside], pieces.fraction[inside])
        truth = _brute(r, tangent, 1.0, 0.0)
        assert np.all(profile[:75] == 0.0)
        np.testing.assert_allclose(profile, truth, atol=1e-4)
        if tangent > 0.0:  # the negative control: a box about the range starts before it
            assert r - 0.5 * r * tangent * HEIGHT < foot - 1e-6


def test_a_cell_from_past_the_window_lends_its_near_part() -> None:
    """A cell whose range lies 60 bins past the window's end and whose near end is 20 bins
    inside it (no cap on the footprint): the last bins hold the brute-force share; the old
    cap of 64 bins (32 either side) would have dropped the return whole."""
    config = EchoConfig(
        beam_width=0.5,
        pattern=BeamPattern.UNIFORM,
        n_way=1,
        absorption=Absorption.NONE,
        min_range=MIN_RANGE,
        max_range=MIN_RANGE + N_BINS * BIN,
        n_bins=N_BINS,
    )
    model = EchoModel(config, [0.0], [1.0], pattern=[1.0], cell_height=HEIGHT)
    r = config.max_range + 60 * BIN
    # The near end r / (cos h + t sin h) 20 bins inside the window: t from r and that end.
    half = 0.5 * HEIGHT
    near = config.max_range - 20 * BIN
    tangent = (r / near - math.cos(half)) / math.sin(half)
    assert tangent * HEIGHT * r / BIN > 64  # wider than the old cap
    echoes = model.echoes([[r]], [[1.0]], [[1.0]], spread=[[r * tangent * HEIGHT]])
    truth = _brute(r, tangent, 1.0 / r**2, 0.0)
    assert np.all(echoes.intensity[0, -19:] > 0.0)
    assert echoes.intensity[0].sum() == pytest.approx(truth.sum(), rel=0.01)


def _grazing_ramps(
    r: float, tangent: float, echo: float, window: tuple[float, float, int]
) -> tuple[Ramps, CellGeometry, NDArray[np.intp]]:
    """The quadratic ramps of one grazing cell alone in one beam (range ``r`` m, ``tan(theta0)
    = tangent``, ``echo``) cut into its parts (``grazing_parts``), over ``window`` (min range,
    bins per metre, bins); its cell and parts."""
    cells = CellGeometry.of(np.array([r]), np.array([tangent]), HEIGHT, ATTENUATION)
    parts = grazing_parts(cells)
    none, one = np.zeros(0), np.zeros(1, dtype=np.intp)
    ramps = quadratic_ramps(
        none,
        none,
        none,
        one[:0],
        1,
        height=HEIGHT,
        window=window,
        attenuation=ATTENUATION,
        grazing=(cells, parts, np.array([echo]), one),
    )
    return ramps, cells, parts


@pytest.mark.parametrize(('r', 'depression'), [(20.0, 3.0), (25.0, 1.5)])
def test_a_grazing_cell_in_parts_is_its_echo_bin_by_bin(r: float, depression: float) -> None:
    """A grazing cell (its far range 32 % and 77 % past its near one) cut into parts
    (``grazing_parts``), each a quadratic ramp: every bin holding more than 1 % of the peak
    within 0.5 % of the brute-force integral, the sum within 1e-9, the bins outside exactly 0,
    each bin counted once as a hit; the whole cell as one quadratic ramp misses by > 2 %."""
    tangent = math.tan(math.radians(90.0 - depression))
    assert exact_cells(np.array([tangent]), HEIGHT)[0]
    echo = 3e-9
    ramps, _, parts = _grazing_ramps(r, tangent, echo, (MIN_RANGE, 1.0 / BIN, N_BINS))
    assert parts[0] > 1
    split, truth = ramps.profile()[0], _brute(r, tangent, echo, ATTENUATION)
    held = truth > 0.01 * truth.max()
    inner = held.copy()
    inner[np.flatnonzero(held)[[0, -1]]] = False  # the interval's partial end bins
    assert np.max(np.abs(split[inner] / truth[inner] - 1.0)) < 0.005
    assert split.sum() == pytest.approx(echo, rel=1e-9)
    assert np.all(split[truth == 0.0] == 0.0)
    hits = ramps.coverage()[0]
    assert np.all(hits[truth > 0.0] == 1)
    assert np.all(hits[truth == 0.0] == 0)
    whole = _ramp(r, tangent, echo)  # the negative control
    assert np.max(np.abs(whole[inner] / truth[inner] - 1.0)) > 0.02


def test_parts_narrower_than_a_bin_stay_exact() -> None:
    """A grazing cell 1 m from the sonar in 1 m bins: its parts (5 % of a metre) are far
    narrower than a bin, so their ramps' differences are many times their echo; the unit
    comes from the differences, so the sums stay exact: the bins past the cell hold exactly
    0, none is negative, the sum is the echo. The control: the largest deposit is over 16
    times the echo (a unit taken from the echo, with room for 8 times it, would overflow
    float64's whole numbers and leave a residue in every bin after the cell)."""
    echo = 3e-9
    ramps, cells, _ = _grazing_ramps(1.0, math.tan(math.radians(87.0)), echo, (0.0, 1.0, 200))
    profile = ramps.profile()[0]
    far_bin = math.floor(float(cells.far[0]))
    assert np.all(profile[far_bin + 1 :] == 0.0)
    assert np.all(profile >= 0.0)
    assert profile.sum() == pytest.approx(echo, rel=1e-9)
    assert np.abs(ramps.weights).max() * ramps.unit[0] > 16.0 * echo
