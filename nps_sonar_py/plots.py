"""Pictures of sonar echoes as PNG files: one ping's intensity profile, and a sweep of many pings.

* ``draw_profile``: the level of each range bin of one ping against range, the range estimate
  marked; in dB (``SL + 10 log10(I)``) or linear. ``profile_ping`` picks the ping to draw.
* ``draw_sweep``: the profiles of a scanning sonar's pings at their head angles, as a fan
  (azimuth x range, the sensor at the apex, 0 rad = the sensor's x axis, counter-clockwise).
* ``draw_echogram``: the profiles of a fixed sonar's pings over time (time x range).
* ``draw_image``: a ``sensor_msgs/Image`` as published, pixel for pixel, in grey levels.
* ``draw_labelled``: labelled samples of a dataset (``sonar_dataset``): each display image
  beside its semantic and shadow masks, with the objects' boxes and oriented boxes.

Numpy and matplotlib (Agg, without pyplot) only; no ROS. Images in dB show ``dynamic_range``
dB below the strongest bin, weaker and empty bins at the floor colour. The style is
matplotlib's default whatever the user's ``matplotlibrc`` says, so that the same input gives
the same bytes. Each function returns the ``Figure`` it saved, for inspection.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import matplotlib.image
import matplotlib.style
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import QuadMesh
from matplotlib.figure import Figure
from matplotlib.projections.polar import PolarAxes
from matplotlib.ticker import FuncFormatter
from numpy.typing import ArrayLike, NDArray

__all__ = [
    'COLOUR_MAP',
    'DEFAULT_DYNAMIC_RANGE',
    'DPI',
    'PROFILE_AZIMUTH',
    'WATERFALL_ASPECT',
    'WATERFALL_WIDTH',
    'bin_edges',
    'draw_echogram',
    'draw_image',
    'draw_labelled',
    'draw_profile',
    'draw_sweep',
    'profile_ping',
    'readable_waterfall',
    'to_db',
    'waterfall_scale',
]

#: The head angle whose ping is drawn as the profile, rad: the sensor's x axis.
PROFILE_AZIMUTH = 0.0
#: dB shown below the strongest bin of a picture in dB.
DEFAULT_DYNAMIC_RANGE = 60.0
#: Pixels per inch of the PNG files.
DPI = 100
#: The colour map of the images in dB (perceptually uniform).
COLOUR_MAP = 'viridis'
_PROFILE_SIZE = (8.0, 4.5)  # inches
_SWEEP_SIZE = (7.0, 6.5)
_ECHOGRAM_SIZE = (8.0, 5.0)
_PROFILE_COLOUR = '#1f5fa8'
_ESTIMATE_COLOUR = '#d1495b'


def bin_edges(min_range: float, max_range: float, n_bins: int) -> NDArray[np.float64]:
    """(n_bins + 1,) range-bin edges, m, ``min_range`` to ``max_range``, as the echo model bins."""
    return np.linspace(min_range, max_range, n_bins + 1)


def to_db(intensity: ArrayLike, source_level: float = 0.0) -> NDArray[np.float64]:
    """Levels ``source_level + 10 log10(intensity)`` in dB; ``-inf`` where the intensity is 0.

    >>> to_db([1.0, 0.01, 0.0]).tolist()
    [0.0, -20.0, -inf]
    """
    with np.errstate(divide='ignore'):
        return source_level + 10.0 * np.log10(np.asarray(intensity, dtype=np.float64))


def profile_ping(azimuths: ArrayLike, azimuth: float = PROFILE_AZIMUTH) -> int:
    """Index of the ping to draw as the profile: the latest of those nearest ``azimuth`` (rad).

    A scanning sonar's last ping lies wherever its head was when the recording stopped; the
    ping nearest a fixed head angle (angles compared modulo 2 pi, ties within a microradian go
    to the latest) shows the same echo from one recording to the next. A fixed sonar's pings
    share one azimuth: its last ping.

    >>> profile_ping([3.1, -0.02, 0.01, 1.5, 0.01, -3.1])
    4
    """
    angles = np.asarray(azimuths, dtype=np.float64)
    if angles.ndim != 1 or angles.size == 0 or not np.all(np.isfinite(angles)):
        raise ValueError(f'Expected one or more finite azimuths, got shape {angles.shape}')
    off = np.abs(np.angle(np.exp(1j * (angles - azimuth))))
    return int(np.flatnonzero(off <= off.min() + 1e-6)[-1])


def draw_profile(
    path: str | Path,
    intensity: ArrayLike,
    edges: ArrayLike,
    *,
    range_estimate: float | None = None,
    db: bool = True,
    source_level: float = 0.0,
    dynamic_range: float = DEFAULT_DYNAMIC_RANGE,
    title: str = 'Intensity profile of one ping',
) -> Figure:
    """Draw one ping's profile, level against range, as a step line filled down to the floor.

    Args:
        path: the PNG to write.
        intensity: (m,) linear intensity of each range bin (relative to the source at 1 m).
        edges: (m + 1,) increasing bin edges, m.
        range_estimate: the ping's range, m, marked by a dashed line; REP 117 ``inf``/``nan``
            are written out instead; ``None`` marks nothing.
        db: levels in dB (``source_level + 10 log10 I``) or linear intensities.
        source_level: dB added to the levels (0: relative to the source).
        dynamic_range: dB shown below the strongest bin (``db`` only).
        title: the figure's title.
    """
    values, edges = _profile_input(intensity, edges)
    with matplotlib.style.context('default'):
        figure = Figure(figsize=_PROFILE_SIZE, dpi=DPI, layout='constrained')
        ax = figure.add_subplot()
        if db:
            shown, floor, top = _clipped_levels(
                to_db(values, source_level), dynamic_range, source_level
            )
            ax.set_ylim(floor, top + 0.05 * dynamic_range)
            ax.set_ylabel(_level_label(source_level))
        else:
            shown, floor = values, 0.0
            ax.set_ylim(0.0, 1.08 * max(float(values.max()), np.finfo(np.float64).tiny))
            ax.set_ylabel('intensity (linear, re source at 1 m)')
        ax.stairs(
            shown,
            edges,
            baseline=floor,
            fill=True,
            facecolor=_PROFILE_COLOUR,
            alpha=0.35,
            edgecolor=_PROFILE_COLOUR,
            label='profile',
        )
        ax.stairs(shown, edges, baseline=None, color=_PROFILE_COLOUR, linewidth=1.2)
        if range_estimate is not None:
            _mark_range(ax, range_estimate)
        if not np.any(values > 0.0):
            ax.text(0.5, 0.5, 'no echo in range', transform=ax.transAxes, ha='center', va='center')
        ax.set_xlim(edges[0], edges[-1])
        ax.set_xlabel('range (m)')
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend(loc='upper right')
        return _save(figure, path)


def draw_sweep(
    path: str | Path,
    intensities: ArrayLike,
    edges: ArrayLike,
    azimuths: ArrayLike,
    *,
    source_level: float = 0.0,
    dynamic_range: float = DEFAULT_DYNAMIC_RANGE,
    title: str = 'Sweep',
) -> Figure:
    """Draw the profiles of pings at their azimuths as a fan in dB, the sensor at the apex.

    Where pings repeat an azimuth (a head sweeping to and fro), the latest one is shown, as on a
    scanning sonar's display. A sector that crosses +-pi is drawn in one piece.

    Args:
        path: the PNG to write.
        intensities: (n, m) linear intensity of the m range bins of n pings, in ping order.
        edges: (m + 1,) increasing bin edges, m.
        azimuths: (n,) beam direction of each ping about the sensor's z axis, rad
            (0 along x, counter-clockwise; drawn pointing up, counter-clockwise to the left).
        source_level: dB added to the levels.
        dynamic_range: dB shown below the strongest bin.
        title: the figure's title.
    """
    grid, edges = _sweep_input(intensities, edges)
    angles = _vector(azimuths, 'azimuths', grid.shape[0])
    # The latest ping of each azimuth (to the microradian), in azimuth order, unwrapped.
    angles = np.mod(angles, 2 * math.pi)
    keys = np.round(angles, 6)
    _, last = np.unique(keys[::-1], return_index=True)
    latest = grid.shape[0] - 1 - last
    angles, grid, full_circle = _contiguous_sector(angles[latest], grid[latest])
    theta = _cell_edges(angles, default_step=math.radians(1.0))
    with matplotlib.style.context('default'):
        figure = Figure(figsize=_SWEEP_SIZE, dpi=DPI, layout='constrained')
        ax = figure.add_subplot(projection='polar')
        assert isinstance(ax, PolarAxes)  # (add_subplot is typed to return Axes)
        ax.set_theta_zero_location('N')  # the sensor's x axis up, +y (left) to the left
        levels, floor, top = _clipped_levels(
            to_db(grid, source_level), dynamic_range, source_level
        )
        mesh = ax.pcolormesh(
            theta, edges, levels.T, cmap=COLOUR_MAP, vmin=floor, vmax=top, shading='flat'
        )
        ax.set_rlim(0.0, edges[-1])
        if full_circle:
            ticks = np.arange(0, 360, 45)
            # (-180, 180]
            ax.set_thetagrids(ticks, labels=[f'{180 - (180 - t) % 360}°' for t in ticks])
            ax.set_thetalim(0.0, 2 * math.pi)
            ax.set_rlabel_position(67.5)  # clear of the 0 deg label
            # the range labels lie on the image, inside it
            ax.tick_params(axis='y', colors='white')
            ax.set_rticks([r for r in ax.get_yticks() if 0.0 < r < 0.95 * edges[-1]])
            extent = '360 deg'
        else:
            ax.set_thetamin(math.degrees(theta[0]))
            ax.set_thetamax(math.degrees(theta[-1]))
            extent = f'{math.degrees(angles[0]):.1f} to {math.degrees(angles[-1]):.1f} deg'
        ax.yaxis.set_major_formatter(FuncFormatter(lambda r, _: f'{r:g} m'))
        ax.set_xlabel(
            'azimuth (deg, 0 = sensor x axis, counter-clockwise); range (m) on the rings'
        )
        ax.grid(alpha=0.4)
        # a figure title: constrained layout keeps it clear of the polar labels (an axes title
        # sat on the sector's top label and was cut at the figure's edge)
        figure.suptitle(f'{title}: {grid.shape[0]} azimuths, {extent}')
        _colour_bar(figure, mesh, ax, source_level)
        return _save(figure, path)


def draw_echogram(
    path: str | Path,
    intensities: ArrayLike,
    edges: ArrayLike,
    times: ArrayLike,
    *,
    source_level: float = 0.0,
    dynamic_range: float = DEFAULT_DYNAMIC_RANGE,
    title: str = 'Echogram',
) -> Figure:
    """Draw the profiles of a fixed sonar's pings over time in dB: time across, range down.

    Args:
        path: the PNG to write.
        intensities: (n, m) linear intensity of the m range bins of n pings.
        edges: (m + 1,) increasing bin edges, m.
        times: (n,) increasing ping times, s (any origin: drawn from the first ping).
        source_level: dB added to the levels.
        dynamic_range: dB shown below the strongest bin.
        title: the figure's title.
    """
    grid, edges = _sweep_input(intensities, edges)
    t = _vector(times, 'times', grid.shape[0])
    if np.any(np.diff(t) <= 0.0):
        raise ValueError('times must increase')
    t = t - t[0]
    columns = _cell_edges(t, default_step=1.0)
    with matplotlib.style.context('default'):
        figure = Figure(figsize=_ECHOGRAM_SIZE, dpi=DPI, layout='constrained')
        ax = figure.add_subplot()
        levels, floor, top = _clipped_levels(
            to_db(grid, source_level), dynamic_range, source_level
        )
        mesh = ax.pcolormesh(
            columns, edges, levels.T, cmap=COLOUR_MAP, vmin=floor, vmax=top, shading='flat'
        )
        ax.set_ylim(edges[-1], edges[0])  # range increasing downwards, as echo sounders show it
        ax.set_xlabel('time since the first ping (s)')
        ax.set_ylabel('range (m)')
        ax.set_title(f'{title}: {grid.shape[0]} pings over {t[-1]:.2f} s')
        _colour_bar(figure, mesh, ax, source_level)
        return _save(figure, path)


def draw_image(
    path: str | Path,
    pixels: ArrayLike,
    encoding: str,
    *,
    dynamic_range: float = DEFAULT_DYNAMIC_RANGE,
) -> None:
    """Write a sonar image as a grey PNG of the same size, row 0 at the top, no axes.

    ``mono8`` pixels are written as they are (grey level = pixel), ``mono16`` by their high byte
    (``pixel >> 8``), ``32FC1`` linear intensities in dB over ``dynamic_range`` below the
    strongest pixel (NaN and silent pixels black).
    """
    values = np.asarray(pixels)
    if values.ndim != 2 or 0 in values.shape:
        raise ValueError(f'Expected an image of shape (rows, columns), got {values.shape}')
    if encoding == 'mono8':
        grey = values.astype(np.uint8)
    elif encoding == 'mono16':
        grey = (values.astype(np.uint16) >> 8).astype(np.uint8)
    elif encoding == '32FC1':
        with np.errstate(invalid='ignore'):
            loud = values > 0.0
        levels = np.full(values.shape, -np.inf)
        levels[loud] = to_db(values[loud])
        top = float(levels.max()) if loud.any() else 0.0
        scaled = (np.maximum(levels, top - dynamic_range) - top) / dynamic_range + 1.0
        grey = np.rint(scaled * 255.0).astype(np.uint8)
    else:
        raise ValueError(f'encoding must be mono8, mono16 or 32FC1, got {encoding!r}')
    no_software: dict[str, Any] = {'Software': None}  # None drops the run-dependent entry
    matplotlib.image.imsave(
        Path(path), np.repeat(grey[:, :, None], 3, axis=2), format='png', metadata=no_software
    )


#: The widest a waterfall picture is drawn, px, and the flattest (width / height) it is left.
WATERFALL_WIDTH = 1000
WATERFALL_ASPECT = 2.0


def waterfall_scale(rows: int, columns: int) -> tuple[int, int]:
    """``(row_repeat, column_block)`` that make a waterfall of that shape readable.

    Columns are averaged in blocks of ``column_block`` (at most :data:`WATERFALL_WIDTH` wide:
    a 2 x 2000-sample ping is 4000 samples); each row is repeated ``row_repeat`` times (at most
    4) so that the picture is no flatter than :data:`WATERFALL_ASPECT` (200 pings of 4000
    samples made a 4000 x 200 strip).
    """
    block = max(1, math.ceil(columns / WATERFALL_WIDTH))
    width = math.ceil(columns / block)
    repeat = min(4, max(1, math.ceil(width / WATERFALL_ASPECT / max(rows, 1))))
    return repeat, block


def readable_waterfall(pixels: ArrayLike) -> NDArray[Any]:
    """A waterfall's pixels resampled by :func:`waterfall_scale`, in their own dtype.

    Block means of the columns (the last block may be shorter), rounded for integer pixels;
    NaN-free input assumed (waterfall pixels are 0 where silent).
    """
    values = np.asarray(pixels)
    repeat, block = waterfall_scale(*values.shape)
    starts = np.arange(0, values.shape[1], block)
    sums = np.add.reduceat(values.astype(np.float64), starts, axis=1)
    means = sums / np.diff(np.append(starts, values.shape[1]))
    if np.issubdtype(values.dtype, np.integer):
        means = np.rint(means)
    return np.repeat(means.astype(values.dtype), repeat, axis=0)


#: Shadow in the mask pictures (RGB 0..1); the classes take :func:`_class_colour`.
_SHADOW_COLOUR = (0.1, 0.25, 0.9)
_SEABED_GREY = 0.55


#: ``tab10``'s hues other than its blue (the shadow's) and its grey (the seabed's).
_CLASS_HUES = (1, 2, 3, 4, 5, 6, 8, 9)
#: Legend entries a row at most (a dataset's classes and the shadow).
_LEGEND_COLUMNS = 10


def _class_colour(k: int) -> tuple[float, float, float]:
    """Class ``k``'s colour, RGB 0..1, distinct for 16 classes and from shadow and seabed.

    ``tab20``'s dark shades of :data:`_CLASS_HUES`, then their light shades.
    """
    hue, shade = _CLASS_HUES[k % len(_CLASS_HUES)], k // len(_CLASS_HUES) % 2
    r, g, b, _ = matplotlib.colormaps['tab20'](2 * hue + shade)
    return float(r), float(g), float(b)


def _mask_picture(
    display: NDArray[Any], semantic: NDArray[Any], shadow: NDArray[Any]
) -> NDArray[np.float64]:
    """RGB of the masks: nothing black, seabed grey, shadow blue, class ``k`` its colour."""
    rgb = np.zeros((*np.shape(display), 3))
    rgb[semantic == 1] = _SEABED_GREY
    rgb[np.asarray(shadow) > 0] = _SHADOW_COLOUR
    for value in np.unique(semantic):
        if value >= 2:
            rgb[semantic == value] = _class_colour(int(value) - 2)
    return rgb


def draw_labelled(
    path: str | Path,
    samples: list[dict[str, Any]],
    classes: tuple[str, ...],
    *,
    width: float = 12.0,
) -> Figure:
    """Labelled samples, a row each: the display image, then its masks with the boxes.

    Each sample: ``display`` (H, W) uint8, ``semantic`` (0 none, 1 seabed, ``2 + k`` class
    ``k`` of ``classes``), ``shadow`` (0/1), ``boxes`` (each ``bbox`` ``[x, y, w, h]``,
    ``obb_corners`` ``[x1, y1, .. x4, y4]``, ``category_id``: COCO's, ``1 + k``) and
    ``title``. Axis-aligned boxes dashed white, oriented boxes in the class's colour.
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Polygon, Rectangle

    with matplotlib.style.context('default'):
        height, image_width = np.shape(samples[0]['display'])
        row_height = width / 2 * height / image_width + 0.5
        figure = Figure(figsize=(width, row_height * len(samples) + 0.6), layout='constrained')
        axes = figure.subplots(len(samples), 2, squeeze=False)
        for row, sample in zip(axes, samples, strict=True):
            row[0].imshow(
                sample['display'], cmap='gray', vmin=0, vmax=255, interpolation='nearest'
            )
            row[0].set_title(sample['title'], fontsize=9)
            row[1].imshow(
                _mask_picture(sample['display'], sample['semantic'], sample['shadow']),
                interpolation='nearest',
            )
            row[1].set_title('semantic and shadow masks, boxes', fontsize=9)
            for box in sample['boxes']:
                colour = _class_colour(box['category_id'] - 1)  # COCO's id, 1 + class
                x, y, w, h = box['bbox']
                row[1].add_patch(
                    Rectangle(
                        (x, y), w, h, fill=False, edgecolor='white', linestyle='--', linewidth=0.8
                    )
                )
                corners = np.reshape(box['obb_corners'], (4, 2))
                row[1].add_patch(
                    Polygon(corners, closed=True, fill=False, edgecolor=colour, linewidth=1.2)
                )
            for ax in row:
                ax.set_xticks([])
                ax.set_yticks([])
        handles = [Line2D([], [], color=_SHADOW_COLOUR, linewidth=6, label='shadow')]
        handles += [
            Line2D([], [], color=_class_colour(k), linewidth=6, label=name)
            for k, name in enumerate(classes)
        ]
        figure.legend(
            handles=handles,
            loc='outside lower center',
            ncols=math.ceil(len(handles) / math.ceil(len(handles) / _LEGEND_COLUMNS)),
            fontsize=9,
            frameon=False,
        )
        return _save(figure, path)


def _profile_input(
    intensity: ArrayLike, edges: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    values = np.asarray(intensity, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f'Expected a profile of shape (m,) with m >= 1, got shape {values.shape}')
    return values, _edges(edges, values.size)


def _sweep_input(
    intensities: ArrayLike, edges: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    grid = np.asarray(intensities, dtype=np.float64)
    if grid.ndim != 2 or 0 in grid.shape:
        raise ValueError(
            f'Expected profiles of shape (n, m) with n, m >= 1, got shape {grid.shape}'
        )
    return grid, _edges(edges, grid.shape[1])


def _edges(edges: ArrayLike, n_bins: int) -> NDArray[np.float64]:
    e = np.asarray(edges, dtype=np.float64)
    if e.shape != (n_bins + 1,) or not np.all(np.isfinite(e)) or np.any(np.diff(e) <= 0.0):
        raise ValueError(f'Expected {n_bins + 1} finite increasing bin edges, got shape {e.shape}')
    return e


def _vector(values: ArrayLike, name: str, n: int) -> NDArray[np.float64]:
    v = np.asarray(values, dtype=np.float64)
    if v.shape != (n,) or not np.all(np.isfinite(v)):
        raise ValueError(f'Expected {n} finite {name}, got shape {v.shape}')
    return v


def _clipped_levels(
    levels: NDArray[np.float64],
    dynamic_range: float,
    source_level: float,
) -> tuple[NDArray[np.float64], float, float]:
    """Levels raised to the floor ``top - dynamic_range``, the floor and the top (strongest)."""
    if not dynamic_range > 0.0:
        raise ValueError(f'dynamic_range must be > 0 dB, got {dynamic_range}')
    finite = levels[np.isfinite(levels)]
    top = float(finite.max()) if finite.size else source_level
    floor = top - dynamic_range
    return np.maximum(levels, floor), floor, top


def _cell_edges(centres: NDArray[np.float64], default_step: float) -> NDArray[np.float64]:
    """(n + 1,) edges around increasing cell centres: midpoints, the ends half a step out."""
    if centres.size == 1:
        edges: NDArray[np.float64] = centres[0] + np.array([-0.5, 0.5]) * default_step
        return edges
    middle = 0.5 * (centres[:-1] + centres[1:])
    return np.concatenate(([2 * centres[0] - middle[0]], middle, [2 * centres[-1] - middle[-1]]))


def _contiguous_sector(
    angles: NDArray[np.float64],
    grid: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], bool]:
    """Angles in [0, 2 pi), increasing, made one contiguous sector; the rows of grid with them.

    The widest gap between neighbouring angles is left outside the sector, which is then centred
    on its middle direction's principal value. Angles without a gap wider than 1.5 steps cover the
    full circle: they are returned in (-pi, pi], with True.
    """
    gaps = np.diff(np.append(angles, angles[0] + 2 * math.pi))
    if angles.size >= 3 and gaps.max() <= 1.5 * np.median(gaps):
        principal = math.pi - np.mod(math.pi - angles, 2 * math.pi)
        order = np.argsort(principal)
        return principal[order], grid[order], True
    order = np.roll(np.arange(angles.size), -(int(np.argmax(gaps)) + 1))
    unwrapped = np.unwrap(angles[order])
    shift = 2 * math.pi * np.round(0.5 * (unwrapped[0] + unwrapped[-1]) / (2 * math.pi))
    return unwrapped - shift, grid[order], False


def _level_label(source_level: float) -> str:
    return (
        'echo level (dB re 1 µPa)' if source_level != 0.0 else 'echo level (dB re source at 1 m)'
    )


def _mark_range(ax: Axes, range_estimate: float) -> None:
    if math.isfinite(range_estimate):
        ax.axvline(
            range_estimate,
            color=_ESTIMATE_COLOUR,
            linestyle='--',
            linewidth=1.5,
            label=f'range estimate {range_estimate:.3f} m',
        )
        return
    reading = {True: '+Inf: no echo within max_range', False: '-Inf: echo nearer than min_range'}
    text = reading[range_estimate > 0] if math.isinf(range_estimate) else 'NaN: invalid'
    ax.text(0.02, 0.95, f'range {text}', transform=ax.transAxes, va='top')


def _colour_bar(figure: Figure, mesh: QuadMesh, ax: Axes, source_level: float) -> None:
    bar = figure.colorbar(mesh, ax=ax, extend='min', shrink=0.85)
    bar.set_label(_level_label(source_level))


def _save(figure: Figure, path: str | Path) -> Figure:
    """Write ``figure`` to ``path`` as a PNG with the Agg canvas, no run-dependent metadata."""
    FigureCanvasAgg(figure)
    figure.savefig(Path(path), format='png', dpi=DPI, metadata={'Software': None})
    return figure
