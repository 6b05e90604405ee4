"""How real the package's images are: each real record against its simulation (issue 34).

For each real record in ``--real`` (default: the folder ``shared/real`` beside the
repository; never copied into it) the benchmark reads the record in its own format,
configures the package's sonar to the record's geometry (frequency, range, samples,
beams, altitude and speed from the file's navigation), renders it over a seabed of the
kind the record shows (``realism_scenes.py``), puts it through the device's display chain
(``nps_sonar_py.echo.display_presets``), writes the simulated record in the real one's format
into ``--out`` with a picture of both, and prints each measure (``nps_sonar_py.realism.metrics``,
``docs/realism.md``) real against real (the spread: side-scan port against starboard and first
half of the line against the second; the still Oculus ping's left beams against its right)
and simulation against record, with their ratio. A measure is within when the ratio is at
most 1; where the records give no spread (the one shadow) within means 3 dB of the record.

Last line: ``realism: within=<k>/<n> worst=<metric> ratio=<sim-real / real-real>``.
Run: ``scripts/run python benchmarks/realism.py [--real DIR] [--out DIR] [--save-figures [FILE]]``;
``--save-figures`` writes the figures (the date, the last line, every row) to FILE, by default
the package's ``nps_sonar_py/realism/measured.json``, which the dataset cards state.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from realism_scenes import (
    FAN_ARRAY,
    FAN_PRESET,
    FAN_VERTICAL,
    FAN_VERTICAL_PATTERN,
    SEED,
    SIDESCAN_ALONG_PATTERN,
    SIDESCAN_ALONG_WIDTH,
    SIDESCAN_SEABED,
    SIDESCAN_SEDIMENT,
    fan_beam_solid_angle,
    fan_geometry,
    flown_altitude,
    render_fan,
    render_sidescan,
    sidescan_along_cast,
    sidescan_beam,
)
from realism_views import FanViews, View, fan_views, sidescan_views

from nps_sonar_py.dataset.realism_card import MEASURED, figures_json, measure_figures
from nps_sonar_py.echo.absorption import francois_garrison
from nps_sonar_py.echo.display import DisplayChain, sample_bins
from nps_sonar_py.echo.display_presets import AMPLITUDE, display_chain, oculus_gamma
from nps_sonar_py.echo.reverberation import fan_solid_angle, surface_bounce
from nps_sonar_py.errors import NpsSonarError
from nps_sonar_py.formats.oculus import OculusPing, read_oculus, write_oculus
from nps_sonar_py.formats.xtf import SidescanRecord, read_sidescan, write_sidescan
from nps_sonar_py.realism.metrics import (
    LEVEL_BINS,
    contrast_db,
    earth_movers,
    grain_length,
    jensen_shannon,
    lbp_histogram,
    level_histogram,
    level_profile_db,
    speckle_by_band,
)
from nps_sonar_py.realism.range_law import RangeLaw, nearest_tvg, range_law
from nps_sonar_py.realism.speckle_law import speckle_law

REPOSITORY = Path(__file__).resolve().parents[1]
SIDESCAN = Path('sidescan/scotsman-iver2.xtf')
OCULUS = Path('fls/one_ping_8bit.raw')
#: Where a measure has no real spread: within this many dB of the record's own value.
NO_SPREAD_DB = 3.0
SOURCES = {
    'sidescan': 'CIDCO-dev/OpenSidescan @ ad778d8 : test/data/wrecks/scotsman-iver2.xtf (MIT)',
    'oculus': 'apl-ocean-engineering/liboculus @ 48ab1ae : test/data/ (BSD-3-Clause)',
}
Image = NDArray[np.float64]


@dataclass(frozen=True)
class Row:
    """One measure: its spread between real records, its simulated difference and their ratio."""

    name: str
    real: str
    sim: str
    spread: float
    difference: float

    @property
    def ratio(self) -> float:
        """``difference / spread``; with no spread, the difference over ``NO_SPREAD_DB``."""
        if math.isnan(self.spread):
            return self.difference / NO_SPREAD_DB
        return self.difference / self.spread if self.spread > 0.0 else math.inf


def _rms(values: Image) -> float:
    """Root mean square of finite ``values`` (0 for none)."""
    finite = values[np.isfinite(values)]
    return float(np.sqrt(np.mean(finite**2))) if finite.size else math.inf


def _text(value: Image | float) -> str:
    """A value or a short vector, two decimals."""
    array = np.atleast_1d(np.asarray(value, dtype=np.float64))
    return ' '.join(f'{v:.2f}' for v in array)


Value = Callable[[View], Image | float]
Distance = Callable[[View, View], float]

VALUES: dict[str, Value] = {
    'speckle_index_by_band': lambda v: speckle_by_band(v.seabed, 4),
    'grain_along_range_samples': lambda v: grain_length(v.seabed, 1),
    'grain_across_lines': lambda v: grain_length(v.seabed, 0),
    'water_to_seabed_db': lambda v: contrast_db(v.water, v.seabed, v.floor),
}
DISTANCES: dict[str, Distance] = {
    'level_histogram_js_bit': lambda a, b: jensen_shannon(
        level_histogram(a.seabed), level_histogram(b.seabed)
    ),
    'level_histogram_emd_db': lambda a, b: earth_movers(
        level_histogram(a.seabed), level_histogram(b.seabed), LEVEL_BINS
    ),
    'texture_lbp_js_bit': lambda a, b: jensen_shannon(
        lbp_histogram(a.seabed), lbp_histogram(b.seabed)
    ),
    'level_profile_rms_db': lambda a, b: _rms(
        level_profile_db(a.seabed, 8) - level_profile_db(b.seabed, 8)
    ),
}


def compare(real: View, sim: View, pairs: list[tuple[View, View]]) -> list[Row]:
    """Every measure of ``sim`` against ``real``, its spread the widest of the real ``pairs``."""
    rows = []
    for name, value in VALUES.items():
        spread = max(_rms(np.atleast_1d(value(a)) - np.atleast_1d(value(b))) for a, b in pairs)
        here, there = np.atleast_1d(value(real)), np.atleast_1d(value(sim))
        rows.append(Row(name, _text(here), _text(there), spread, _rms(there - here)))
    for name, distance in DISTANCES.items():
        spread = max(distance(a, b) for a, b in pairs)
        apart = distance(sim, real)
        rows.append(Row(name, '-', f'{apart:.3f}', spread, apart))
    if real.shadow is not None:
        here = contrast_db(real.shadow, real.seabed, real.floor)
        there = contrast_db(sim.shadow, sim.seabed, sim.floor) if sim.shadow is not None else 0.0
        rows.append(
            Row('shadow_to_seabed_db', f'{here:.2f}', f'{there:.2f}', math.nan, abs(there - here))
        )
    return rows


def calibrated(chain: DisplayChain, intensity: Image, edges: Image, codes: Image) -> DisplayChain:
    """``chain`` with the gain that puts the simulation's median seabed code on the record's.

    ``intensity`` is the coherent model's (its bins are stored samples, :func:`sample_bins`).
    The records do not give their absolute gain; every measure but the contrasts is
    relative, and those compare levels inside one image, so this only sets where the
    quantisation and the saturation fall.
    """
    gained = sample_bins(intensity, edges, chain.samples, chain.max_range) * chain.gain()
    lit = np.median(gained[:, chain.samples // 2 :])
    target = float(np.median(codes[:, chain.samples // 2 :])) / chain.full_scale
    reference = float(lit) / target ** (1.0 / chain.gamma)
    return dataclasses.replace(chain, reference=reference)


def _describe_sidescan(
    record: SidescanRecord,
    keep: NDArray[np.bool_],
    chain: DisplayChain,
    earliest: float,
    law: RangeLaw,
) -> None:
    """Print the side-scan record, the display chain assumed and the simulated water column."""
    print(
        f'side-scan record: {record.sonar_name}, {record.frequency / 1e3:g} kHz, '
        f'{record.samples} samples a side to {record.slant_range:.2f} m, {keep.sum()} pings, '
        f'altitude {record.altitude[keep].min():.1f}-{record.altitude[keep].max():.1f} m, '
        f"speed {np.median(record.speed[keep]):.2f} m/s (the file's knots)"
    )
    print(
        f'  chain assumed: samples = amplitude (intensity ** {chain.gamma:g}), '
        f'{chain.tvg.value} + 2 x {chain.alpha:.2f} dB/m r TVG, uint16 full scale '
        f'{chain.full_scale}; the metrics read intensity = decode(samples)'
    )
    print(
        f"  TVG law read from the record's seabed (range and grazing factors): n = "
        f'{law.exponent:.1f} (fit residual {law.residual_db:.1f} dB), nearest device law '
        f'{chain.tvg.value}'
    )
    print(
        f"  water column: Sv {chain.sv_db:g} dB in the beam's {chain.solid_angle:.4f} sr; "
        f'surface multipath from {earliest:.1f} m (median depth + altitude), '
        f'loss {chain.multipath_db:.1f} dB; seabed {SIDESCAN_SEDIMENT}, K shape '
        f'{SIDESCAN_SEABED.texture_shape}, ripples {SIDESCAN_SEABED.ripple_wavelength:g} m x '
        f'{SIDESCAN_SEABED.ripple_height:g} m'
    )
    print(
        f'  beam along track: {SIDESCAN_ALONG_PATTERN.value} of '
        f'{math.degrees(SIDESCAN_ALONG_WIDTH):g} deg (a line aperture), cast over its side '
        f'lobes to its third null, {math.degrees(sidescan_along_cast()):.2f} deg off its axis'
    )


def run_sidescan(real_dir: Path, out: Path) -> tuple[list[Row], dict[str, Image]]:
    """The side-scan record against its simulation; rows and the images to draw."""
    record = read_sidescan(real_dir / SIDESCAN)
    keep = record.altitude > 0.0  # the first ping's fields are zero
    beam = sidescan_beam()
    earliest, multipath_db = surface_bounce(
        float(np.median(record.depth[keep])),
        float(np.median(record.altitude[keep])),
        record.slant_range,
        beam.tilt,
        beam.vertical_width,
        beam.vertical_pattern,
    )
    chain = display_chain(
        'sidescan_600khz_xtf',
        samples=record.samples,
        max_range=record.slant_range,
        alpha=francois_garrison(record.frequency),
        solid_angle=fan_solid_angle(beam.horizontal_width, beam.vertical_width),
        multipath_db=multipath_db,
        multipath_from=earliest,
    )
    real = {
        'port': chain.decode(record.port[keep]),
        'starboard': chain.decode(record.starboard[keep]),
    }
    spacing = record.slant_range / record.samples
    law = range_law(
        np.concatenate((real['port'], real['starboard'])),
        (np.arange(record.samples) + 0.5) * spacing,
        np.concatenate((record.altitude[keep], record.altitude[keep])),
    )
    chain = dataclasses.replace(chain, tvg=nearest_tvg(law.exponent))
    _describe_sidescan(record, keep, chain, earliest, law)
    dt = np.diff(record.times[keep], prepend=record.times[keep][0])
    along = np.cumsum(record.speed[keep] * dt)
    altitude = flown_altitude(record.altitude[keep], record.times[keep])
    views = sidescan_views(real, altitude, spacing, chain)
    rendered = render_sidescan(
        record.frequency, record.slant_range, record.samples, altitude, along
    )
    stacked = np.concatenate(rendered.channels)
    tuned = calibrated(
        chain, stacked, rendered.bin_edges, np.concatenate((record.port, record.starboard))
    )
    rng = np.random.default_rng(SEED)
    codes = [
        tuned.apply(channel, rendered.bin_edges, rng=rng, coherent=True).codes
        for channel in rendered.channels
    ]
    write_sidescan(
        out / 'sim-scotsman-iver2.xtf',
        SidescanRecord(
            port=codes[0],
            starboard=codes[1],
            slant_range=record.slant_range,
            frequency=record.frequency,
            altitude=altitude,
            speed=record.speed[keep],
            depth=record.depth[keep],
            pitch=np.zeros(int(keep.sum())),
            times=record.times[keep],
            sonar_name='nps_sonar',
        ),
    )
    sim = {'port': tuned.decode(codes[0]), 'starboard': tuned.decode(codes[1])}
    sim_views = sidescan_views(sim, altitude, spacing, tuned)
    rows = compare(views.whole, sim_views.whole, views.pairs)
    return rows, {'record': _waterfall(real), 'simulation': _waterfall(sim)}


def _waterfall(channels: dict[str, Image]) -> Image:
    """Port (mirrored) beside starboard, pings down: the usual side-scan picture."""
    return np.hstack((channels['port'][:, ::-1], channels['starboard']))


def _describe_oculus(
    ping: OculusPing, chain: DisplayChain, views: FanViews, height: float, tilt: float
) -> None:
    """Print the Oculus record, the chain assumed, the record's speckle law and the fan."""
    ranges, beams = ping.image.shape
    print(
        f'Oculus record: {ping.frequency / 1e6:.4f} MHz, {beams} beams over '
        f'{math.degrees(ping.bearings[0]):.0f} to {math.degrees(ping.bearings[-1]):.0f} deg, '
        f'{ranges} rows of {ping.range_resolution * 1e3:.3f} mm, gain {ping.gain_percent:g} %'
    )
    print(
        f'  chain assumed: 8-bit codes = (amplitude) ** ({ping.gamma}/255), {chain.tvg.value} + '
        f'2 x {chain.alpha:.2f} dB/m r TVG, full scale 255; intensity = decode(codes)'
    )
    _print_speckle_law('record', chain.decode(ping.image.T))
    print(
        f"  water column: Sv {chain.sv_db:g} dB in the beam's {chain.solid_angle:.2e} sr; "
        'no surface multipath (the record gives no depth)'
    )
    print(
        f"  geometry from the record: seabed band from {views.band_start:.2f} m to the window's "
        f'end, {chain.max_range:.2f} m; the {math.degrees(FAN_VERTICAL):.0f} deg vertical '
        f"beam's -3 dB edges there: {height:.2f} m above the floor, tilted "
        f'{math.degrees(tilt):.1f} deg down'
    )
    print(
        f'  fan: {FAN_PRESET.name}, beams formed by {FAN_ARRAY.elements} elements half a '
        f'wavelength apart, {FAN_ARRAY.window.value}-shaded, over fixed scatterers; vertical '
        f'pattern {FAN_VERTICAL_PATTERN.value}, cast down to the floor'
    )


def _print_speckle_law(name: str, intensity: Image) -> None:
    """Print the speckle law (``realism.speckle_law``) of the far half of a decoded fan.

    Read as intensity (``gamma / 255`` on intensity) the codes would give the power times
    ``AMPLITUDE``: under 1 for the record, which no average of intensity gives (texture and
    averaging only raise the fitted power; ``docs/realism.md``).
    """
    law = speckle_law(intensity[:, intensity.shape[1] // 2 :])
    print(
        f"  the {name}'s speckle law (far half, decoded): intensity ** {law.power:.2f} of "
        f'{law.looks:.2f} looks (codes read as intensity: ** {law.power * AMPLITUDE:.2f})'
    )


def run_oculus(
    real_dir: Path, out: Path
) -> tuple[list[Row], dict[str, Image], tuple[Image, Image]]:
    """The Oculus ping against its simulation: rows, the images to draw, their fan's axes."""
    ping = read_oculus(real_dir / OCULUS)[0]
    ranges = ping.image.shape[0]
    chain = display_chain(
        'oculus_m750d_hf',
        samples=ranges,
        max_range=ranges * ping.range_resolution,
        alpha=francois_garrison(ping.frequency),
        gamma=oculus_gamma(ping.gamma),
        solid_angle=fan_beam_solid_angle(),
    )
    real = chain.decode(ping.image.T)
    views = fan_views(real, chain)
    height, tilt = fan_geometry(views.band_start, chain.max_range, FAN_VERTICAL)
    _describe_oculus(ping, chain, views, height, tilt)
    rendered = render_fan(ping.frequency, chain.max_range, ranges, ping.bearings, height, tilt)
    intensity = rendered.channels[0]
    tuned = calibrated(chain, intensity, rendered.bin_edges, ping.image.T)
    image = tuned.apply(
        intensity, rendered.bin_edges, rng=np.random.default_rng(SEED), coherent=True
    )
    write_oculus(
        out / 'sim-one_ping_8bit.raw',
        [
            OculusPing(
                image=image.codes.T.copy(),
                bearings=rendered.bearings,
                frequency=ping.frequency,
                range_resolution=ping.range_resolution,
                range=ping.range,
                gain_percent=ping.gain_percent,
                gamma=ping.gamma,
                speed_of_sound=ping.speed_of_sound,
            )
        ],
    )
    np.save(out / 'sim-one_ping_linear.npy', image.linear.T)
    simulated = tuned.decode(image.codes)
    _print_speckle_law('simulation', simulated)
    sim_views = fan_views(simulated, tuned)
    rows = compare(views.whole, sim_views.whole, views.pairs)
    shown = {'record': real.T, 'simulation': simulated.T}
    return rows, shown, (image.ranges, ping.bearings)


def draw(out: Path, images: dict[str, dict[str, Image]], fan: tuple[Image, Image]) -> Path:
    """Each record beside its simulation in dB, sources and licences under them.

    ``fan``: the forward-looking image's row ranges (m) and beam bearings (rad), to draw it
    as the fan it is.
    """
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    ranges, bearings = fan
    x = np.outer(ranges, np.sin(bearings))
    y = np.outer(ranges, np.cos(bearings))
    figure, axes = plt.subplots(2, 2, figsize=(11, 9))
    for row, (name, pair) in enumerate(images.items()):
        for column, (title, image) in enumerate(pair.items()):
            level = 10.0 * np.log10(np.maximum(image, 1e-12))
            top = float(np.percentile(level, 99.5))
            shade = {'cmap': 'copper', 'vmin': top - 40.0, 'vmax': top}
            axis = axes[row, column]
            if name == 'oculus':
                axis.pcolormesh(x, y, level, shading='auto', **shade)
                axis.set_aspect('equal')
            else:
                axis.imshow(level, aspect='auto', **shade)
            axis.set_title(f'{name}: {title}')
            axis.axis('off')
        axes[row, 0].text(
            0.0,
            -0.04,
            f'record: {SOURCES[name]}',
            transform=axes[row, 0].transAxes,
            fontsize=8,
            va='top',
        )
    figure.tight_layout()
    path = out / 'realism.png'
    figure.savefig(path, dpi=60)
    plt.close(figure)
    return path


def save_figures(path: Path, summary: str, rows: dict[str, list[Row]]) -> None:
    """Write the figures of ``rows`` (by record) and the ``summary`` line to ``path``, dated."""
    records = {
        record: {
            'source': SOURCES[record],
            'measures': {
                r.name: measure_figures(r.real, r.spread, r.sim, r.ratio) for r in record_rows
            },
        }
        for record, record_rows in rows.items()
    }
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    path.write_bytes(figures_json(today, summary, records))


def main() -> int:
    """Run both records, print the rows, the picture's path and the summary line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--real', type=Path, default=REPOSITORY.parent / 'shared' / 'real')
    parser.add_argument('--out', type=Path, default=Path('realism-out'))
    parser.add_argument('--save-figures', type=Path, nargs='?', const=MEASURED, default=None)
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    try:
        sidescan_rows, sidescan_images = run_sidescan(options.real, options.out)
        oculus_rows, oculus_images, fan = run_oculus(options.real, options.out)
    except (NpsSonarError, OSError) as error:
        print(f'realism: {error}', file=sys.stderr)
        return 1
    rows = [(f'sidescan.{r.name}', r) for r in sidescan_rows]
    rows += [(f'oculus.{r.name}', r) for r in oculus_rows]
    print('measure | real | spread (real-real) | sim | ratio (sim-real / real-real)')
    for name, row in rows:
        spread = 'none' if math.isnan(row.spread) else f'{row.spread:.3f}'
        print(f'{name} | {row.real} | {spread} | {row.sim} | {row.ratio:.2f}')
    picture = draw(options.out, {'sidescan': sidescan_images, 'oculus': oculus_images}, fan)
    print(f'picture: {picture}')
    within = sum(row.ratio <= 1.0 for _, row in rows)
    worst_name, worst = max(rows, key=lambda item: item[1].ratio)
    summary = f'realism: within={within}/{len(rows)} worst={worst_name} ratio={worst.ratio:.2f}'
    if options.save_figures is not None:
        save_figures(
            options.save_figures, summary, {'sidescan': sidescan_rows, 'oculus': oculus_rows}
        )
        print(f'figures: {options.save_figures}')
    print(summary)
    return 0


if __name__ == '__main__':
    sys.exit(main())
