"""The echo protocol's two engines (``echo/engine.py``): one record each, the law evaluated once.

Each engine is held against the pieces it is made of, run by hand in the test: the incoherent
engine's record is the model's binned echoes (spread over the footprints it is given), the
coherent engine's is the coherent model run on the rays' law, with the law binned as the
incoherent engine bins it. Negative controls: the old way (the binned echoes and then the
rays' law again) evaluates the law twice; a coherent record is not the incoherent sums.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from coherent_scenes import seabed_model, seabed_rays
from numpy.typing import NDArray

from nps_sonar_py.echo import EchoModel
from nps_sonar_py.echo.coherent import CoherentModel
from nps_sonar_py.echo.engine import (
    CoherentEngine,
    IncoherentEngine,
    Returns,
    echo_engine,
)

N_RAYS = 400


class CountingModel(EchoModel):
    """An echo model that counts how often its law is evaluated."""

    calls = 0

    def _range_loss(
        self, per_ray: NDArray[np.floating], r: NDArray[np.floating]
    ) -> NDArray[np.floating]:
        CountingModel.calls += 1  # every path of the law ends in its range loss
        return super()._range_loss(per_ray, r)


def rays() -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Two beams of a seabed 10 m down: ranges (2, n), cosines (2, n), directions (2 n, 3)."""
    return seabed_rays(2, N_RAYS, 10.0)


def model() -> EchoModel:
    echo = seabed_model()[1]
    return CountingModel(echo, np.zeros(N_RAYS), np.full(N_RAYS, 1e-4), pattern=np.ones(N_RAYS))


def returns(footprint: Callable[[], NDArray[np.floating]] | None = None) -> Returns:
    r, cos, directions = rays()
    entity = np.zeros(r.shape, dtype=np.int64)
    return Returns(r, cos, 0.3, np.zeros(3), directions, entity, 1, footprint=footprint)


def test_the_engine_is_chosen_by_the_settings() -> None:
    echo = seabed_model()[1]
    plain = echo_engine(model(), None)
    assert isinstance(plain, IncoherentEngine)
    assert plain.grid is None
    assert plain.noise_power == 0.0
    coherent = echo_engine(model(), seabed_model()[0].config)
    assert isinstance(coherent, CoherentEngine)
    assert coherent.grid == CoherentModel(seabed_model()[0].config, echo).grid


def test_the_incoherent_record_is_the_binned_echoes_spread_over_the_footprints() -> None:
    r, cos, _ = rays()
    spread = np.full(r.shape, 0.35)
    engine = IncoherentEngine(model())
    CountingModel.calls = 0
    record = engine.ping(returns(lambda: spread))
    assert CountingModel.calls == 1  # the law once
    by_hand = model().echoes(
        r, cos, 0.3, entity=np.zeros(r.shape, np.int64), n_entities=1, spread=spread
    )
    assert np.array_equal(record.intensity, by_hand.intensity)
    assert np.array_equal(record.law.ranges, by_hand.ranges)
    assert record.law.labels is not None
    assert np.array_equal(record.law.labels, by_hand.labels)
    assert np.array_equal(record.totals, by_hand.totals)
    assert record.coherent is None
    # Control: without the footprints the profile is another.
    unspread = IncoherentEngine(model()).ping(returns())
    assert not np.array_equal(unspread.intensity, record.intensity)


def test_the_coherent_record_evaluates_the_law_once_and_bins_it_as_the_incoherent() -> None:
    r, cos, directions = rays()
    spread = np.full(r.shape, 0.35)
    coherent_model, _ = seabed_model()
    engine = CoherentEngine(model(), coherent_model)
    CountingModel.calls = 0
    record = engine.ping(returns(lambda: spread))
    hits = record.law.hits  # the law binned, when read
    assert CountingModel.calls == 1
    # By hand: the coherent model on the rays' law, and the law binned over the footprints.
    by_hand = seabed_model()[0].ping(
        model().ray_intensities(r, cos, 0.3), r, np.zeros(3), directions
    )
    entity = np.zeros(r.shape, np.int64)
    binned = model().echoes(r, cos, 0.3, entity=entity, n_entities=1, spread=spread)
    assert record.coherent is not None
    assert np.array_equal(record.intensity, by_hand.intensity)
    assert np.array_equal(record.coherent.baseband, by_hand.baseband)
    assert np.array_equal(hits, binned.hits)
    assert np.array_equal(record.law.totals, binned.totals)
    assert np.array_equal(record.law.ranges, binned.ranges)
    assert record.law.labels is not None
    assert binned.labels is not None
    assert np.array_equal(record.law.labels, binned.labels)
    # The incoherent engine's law of the same rays is the same: labels do not depend on it.
    plain = IncoherentEngine(model()).ping(returns(lambda: spread))
    assert np.array_equal(plain.law.totals, record.law.totals)
    # Negative controls: the old way evaluated the law twice; the point law is another; the
    # image is not the sums.
    CountingModel.calls = 0
    old = model()
    old.echoes(r, cos, 0.3)
    old.ray_intensities(r, cos, 0.3)
    assert CountingModel.calls == 2
    assert not np.array_equal(model().echoes(r, cos, 0.3).hits, hits)
    assert not np.array_equal(record.intensity, binned.intensity)


def test_a_beam_of_the_record_is_the_image_row_and_the_law() -> None:
    record = IncoherentEngine(model()).ping(returns())
    ping = record.beam(1)
    assert np.array_equal(ping.intensity, record.intensity[1])
    assert ping.total == float(record.totals[1])
    assert ping.range == float(record.law.ranges[1])
    assert math.isfinite(ping.range)
    assert ping.total == pytest.approx(float(record.intensity[1].sum()))
