"""The display chain against closed forms (``docs/realism.md``), each with a negative control."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from nps_sonar_py.echo.display import (
    Compression,
    DisplayChain,
    Tvg,
    resample_bins,
    sample_bins,
    tvg_gain,
)
from nps_sonar_py.echo.display_presets import DISPLAY_PRESETS, display_chain, oculus_gamma
from nps_sonar_py.errors import ConfigurationError


def _profile(ranges: np.ndarray, spreading: float, alpha: float) -> np.ndarray:
    """Intensity ``r**-spreading * 10**(-2 alpha r / 10)``: spreading and two-way absorption."""
    return ranges ** (-spreading) * 10.0 ** (-0.2 * alpha * ranges)


@pytest.mark.parametrize(('law', 'spreading'), [(Tvg.SPREAD_20, 2.0), (Tvg.SPREAD_40, 4.0)])
def test_tvg_exactly_undoes_spreading_and_absorption(law: Tvg, spreading: float) -> None:
    r = np.linspace(0.5, 80.0, 400)
    flat = _profile(r, spreading, 0.12) * tvg_gain(r, law, 0.12)
    np.testing.assert_allclose(flat, 1.0, rtol=1e-12)
    # control: the other law (or no absorption) leaves a slope of 20 dB a decade or 2 alpha r
    other = Tvg.SPREAD_40 if law is Tvg.SPREAD_20 else Tvg.SPREAD_20
    wrong = _profile(r, spreading, 0.12) * tvg_gain(r, other, 0.12)
    assert abs(10 * np.log10(wrong[-1] / wrong[0])) > 30.0
    no_alpha = _profile(r, spreading, 0.12) * tvg_gain(r, law, 0.0)
    np.testing.assert_allclose(10 * np.log10(no_alpha[-1] / no_alpha[0]), -0.24 * (r[-1] - r[0]))


def test_resampling_keeps_the_mean_and_the_energy() -> None:
    edges = np.linspace(0.0, 30.0, 3001)  # 1 cm bins
    centres = 0.5 * (edges[1:] + edges[:-1])
    intensity = np.stack((1.0 + 0.5 * np.sin(centres), np.where(centres < 10.0, 0.0, 2.0)))
    out = resample_bins(intensity, edges, 1024, 30.0)
    step = 30.0 / 1024
    left = np.arange(1024) * step
    # closed form of the sine's mean over each sample: 1 + 0.5 (cos a - cos b) / step
    mean_sine = 1.0 + 0.5 * (np.cos(left) - np.cos(left + step)) / step
    np.testing.assert_allclose(out[0], mean_sine, atol=2e-4)  # bins are steps
    np.testing.assert_allclose(out.sum(axis=-1) * step, (intensity * 0.01).sum(axis=-1))
    # control: picking the nearest bin (no averaging) is not the mean of a step's sample
    step_sample = np.searchsorted(left, 10.0) - 1
    assert 0.0 < out[1, step_sample] < 2.0
    # samples beyond the last bin hold nothing
    short = resample_bins(np.ones(100), np.linspace(0.0, 10.0, 101), 30, 30.0)
    np.testing.assert_allclose(short[:10], 1.0)
    np.testing.assert_allclose(short[10:], 0.0)


def test_coherent_input_is_sampled_not_averaged() -> None:
    """A coherent image (one-look speckle, exponential) on the device's own samples passes
    unchanged (index 1); on bins twice as wide as the samples, each stored sample is the bin
    holding its centre, still one look (index 1 within four standard errors, ``2 / sqrt(n)``).
    Control: the incoherent resampling of bins half as wide averages two independent bins,
    index 1 / 2."""
    rng = np.random.default_rng(7)
    chain = DisplayChain('coherent', samples=500, max_range=50.0, compression=Compression.NONE)
    same = rng.exponential(1.0, (40, 500))
    image = chain.apply(same, np.linspace(0.0, 50.0, 501), coherent=True)
    np.testing.assert_array_equal(image.linear, same)
    coarse = rng.exponential(1.0, (40, 250))
    stored = chain.apply(coarse, np.linspace(0.0, 50.0, 251), coherent=True).linear
    np.testing.assert_array_equal(stored, np.repeat(coarse, 2, axis=-1))  # the bins held
    error = 2.0 / math.sqrt(coarse.size)
    assert float(stored.var() / stored.mean() ** 2) == pytest.approx(1.0, abs=4.0 * error)
    fine = rng.exponential(1.0, (40, 1000))
    averaged = chain.apply(fine, np.linspace(0.0, 50.0, 1001)).linear
    error = 2.0 / math.sqrt(averaged.size)
    assert float(averaged.var() / averaged.mean() ** 2) == pytest.approx(0.5, abs=4.0 * error)
    # beyond the bins: nothing
    np.testing.assert_array_equal(
        sample_bins(np.ones(10), np.linspace(0, 10, 11), 30, 30.0)[10:], 0.0
    )


def test_a_coarser_display_keeps_a_lone_coherent_echo_s_energy_wherever_it_lies() -> None:
    """Stored samples twice as wide as the coherent bins: a lone echo of energy ``E`` (one bin
    of intensity ``E / dr``) shows the energy ``E`` (sum of samples times their width) in
    whichever of the two bins it lies. Control: picking the bin at each sample's centre shows
    it in one of the two places only (0 or ``2 E``)."""
    chain = DisplayChain('coherent', samples=50, max_range=10.0, compression=Compression.NONE)
    edges = np.linspace(0.0, 10.0, 101)
    dr, spacing = 0.1, 0.2
    for place in range(40, 44):
        echo = np.zeros(100)
        echo[place] = 1.0 / dr
        shown = chain.apply(echo, edges, coherent=True).linear
        assert float(shown.sum() * spacing) == pytest.approx(1.0, rel=1e-12)
        picked = sample_bins(echo, edges, 50, 10.0)
        assert float(picked.sum() * spacing) in (0.0, pytest.approx(2.0, rel=1e-12))


def test_resampling_refuses_a_mismatch() -> None:
    with pytest.raises(ConfigurationError, match='bins but bin_edges'):
        resample_bins(np.ones(10), np.linspace(0, 1, 10), 5, 1.0)


@pytest.mark.parametrize('gamma', [127 / 255, 0.5, 1.0, 2.0])
def test_gamma_compression_round_trips_within_one_code(gamma: float) -> None:
    chain = DisplayChain('g', 100, 10.0, gamma=gamma, reference=3.0, full_scale=255)
    gained = np.geomspace(1e-3, 3.0, 500)
    codes = chain.encode(gained)
    assert codes.dtype == np.uint8
    back = chain.decode(codes)
    # one code step of the power law around each value bounds the error
    unit = (gained / 3.0) ** gamma
    upper = 3.0 * np.minimum(unit + 0.5 / 255, 1.0) ** (1 / gamma)
    lower = 3.0 * np.maximum(unit - 0.5 / 255, 0.0) ** (1 / gamma)
    assert np.all((back >= lower - 1e-12) & (back <= upper + 1e-12))
    # control: decoding with the wrong exponent misses the bound on most values
    wrong = dataclasses.replace(chain, gamma=gamma * 1.5).decode(codes)
    coded = codes >= 10  # where a code step is finer than the exponents' difference
    assert np.mean(((wrong >= lower) & (wrong <= upper))[coded]) < 0.5


def test_log_compression_maps_the_window_and_round_trips() -> None:
    chain = DisplayChain('l', 10, 1.0, compression=Compression.LOG, db_window=(-60.0, 0.0))
    levels_db = np.array([-80.0, -60.0, -30.0, 0.0, 10.0])
    codes = chain.encode(10.0 ** (levels_db / 10))
    np.testing.assert_array_equal(codes, [0, 0, 128, 255, 255])  # 127.5 rounds to even: 128
    inside = np.linspace(-59.0, -1.0, 50)
    back = 10 * np.log10(chain.decode(chain.encode(10.0 ** (inside / 10))))
    assert np.max(np.abs(back - inside)) <= 0.5 * 60.0 / 255 + 1e-9
    assert chain.encode(np.zeros(3)).tolist() == [0, 0, 0]  # log of 0: the bottom code


def test_quantisation_bounds_and_type() -> None:
    chain = display_chain('sidescan_600khz_xtf')
    assert chain.dtype == np.uint16
    assert chain.full_scale == 32767
    codes = chain.encode(np.array([-1.0, 0.0, 0.25, 1.0, 1e9, np.inf]))
    assert codes.tolist() == [0, 0, 16384, 32767, 32767, 32767]  # sqrt: 0.25 -> half scale
    # control: without the clip, 1e9 would wrap around in uint16
    assert int(np.uint16(np.int64(np.sqrt(1e9) * 32767) % 65536)) != 32767


def test_apply_recovers_a_flat_seabed_through_tvg_and_the_linear_stays() -> None:
    chain = DisplayChain(
        'flat', 200, 40.0, tvg=Tvg.SPREAD_40, alpha=0.1, gamma=0.5, reference=4.0, full_scale=65535
    )
    edges = np.linspace(0.0, 40.0, 4001)
    r = 0.5 * (edges[1:] + edges[:-1])
    echo = 2.0 * _profile(np.maximum(r, 1.0), 4.0, 0.1) * (r >= 1.0)
    image = chain.apply(echo[None, :], edges)
    lit = image.ranges > 5.0
    # after TVG the flat seabed is flat: 2 / 4 of full scale's intensity
    decoded = chain.decode(image.codes[0, lit])
    np.testing.assert_allclose(decoded, 2.0, rtol=2e-3)
    np.testing.assert_allclose(
        chain.linear_of(image.codes[0])[lit], image.linear[0, lit], rtol=3e-3
    )
    # the linear intensity is the echo on the device's samples, not gained
    np.testing.assert_allclose(image.linear[0, lit], resample_bins(echo, edges, 200, 40.0)[lit])
    # control: a chain with 20 log r leaves the far seabed 20 dB a decade down
    weak = dataclasses.replace(chain, tvg=Tvg.SPREAD_20).apply(echo[None, :], edges)
    assert weak.codes[0, -1] < 0.5 * image.codes[0, -1]


def test_noise_floor_agc_and_near_field() -> None:
    chain = DisplayChain('n', 1000, 10.0, noise_floor=0.5, reference=10.0, full_scale=65535)
    edges = np.linspace(0.0, 10.0, 1001)
    silent = np.zeros((200, 1000))
    image = chain.apply(silent, edges, np.random.default_rng(1))
    decoded = chain.decode(image.codes)
    assert abs(decoded.mean() - 0.5) < 0.01  # the noise's mean
    assert abs(decoded.var() / decoded.mean() ** 2 - 1.0) < 0.05  # exponential: SI 1
    mean_only = chain.apply(silent, edges)
    np.testing.assert_allclose(chain.decode(mean_only.codes), 0.5, rtol=1e-4)
    agc = dataclasses.replace(chain, noise_floor=0.0, agc_window=51, agc_level=0.25)
    ramp = np.linspace(1.0, 100.0, 1000)[None, :]
    level = agc.decode(agc.apply(ramp, edges).codes)[0]
    np.testing.assert_allclose(level[100:900], 2.5, rtol=1e-3)  # AGC flattens the ramp
    near = dataclasses.replace(chain, noise_floor=0.0, near_field=0.1, near_field_level=5.0)
    band = near.decode(near.apply(silent[:1], edges).codes)[0]
    np.testing.assert_allclose(band[:50], 5.0 * np.exp(-near.ranges[:50] / 0.1), atol=2e-4)
    assert band[-1] == 0.0


def test_presets_and_bad_settings() -> None:
    assert set(DISPLAY_PRESETS) >= {'oculus_m750d_hf', 'sidescan_600khz_xtf'}
    oculus = display_chain('oculus_m750d_hf', samples=703, max_range=2.0)
    assert oculus.dtype == np.uint8
    # The Oculus' gamma setting applies to amplitude (docs/realism.md): 127 is the gamma
    # 127/255 of amplitude, intensity ** (127/510); 255 is amplitude itself.
    assert oculus.gamma == pytest.approx(127 / 510)
    assert oculus_gamma(255) == 0.5
    with pytest.raises(ConfigurationError, match='not a preset'):
        display_chain('klein')
    with pytest.raises(
        ConfigurationError, match=r"^display chain 'oculus_m750d_hf' has no setting"
    ):
        display_chain('oculus_m750d_hf', sampels=703)  # a misspelt setting: no TypeError
    with pytest.raises(ConfigurationError, match='no setting dtype'):
        display_chain('oculus_m750d_hf', dtype=np.uint16)  # derived, not a setting
    with pytest.raises(ConfigurationError, match='samples must be >= 1'):
        DisplayChain('x', 0, 1.0)
    with pytest.raises(ConfigurationError, match='db_window'):
        DisplayChain('x', 1, 1.0, db_window=(0.0, -1.0))
    with pytest.raises(ConfigurationError, match='gamma correction'):
        oculus_gamma(0)
