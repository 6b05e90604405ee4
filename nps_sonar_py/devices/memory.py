"""The memory a device's settings and requests imply, held to one stated budget.

Each kind names the allocations its settings size (``Kind.sizes``: rays, (beam, bin) cells,
the waterfall, the largest image), each a :class:`Size` priced with the bytes an element
costs (measured, rounded up); a pinging device does the same for a Ranger ``SetConfig``
(``PingingRanger.reconfigure``). Their sum over ``limits.MAX_DEVICE_BYTES`` is refused in one
line naming the biggest with its settings and the memory it needs (:func:`budget_problem`),
before anything is allocated. No rclpy here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from nps_sonar_py.limits import MAX_DEVICE_BYTES

__all__ = [
    'BEAM_PAIR_BYTES',
    'CELL_BYTES',
    'COHERENT_CELL_BYTES',
    'LEAK_BYTES',
    'PIXEL_BYTES',
    'RAY_BYTES',
    'Size',
    'budget_problem',
    'cell_size',
    'echo_sizes',
    'image_size',
    'line_array_sizes',
    'memory_text',
]

#: Bytes one ray costs from its cast to its echo, at the peak of a ping: its direction and
#: origin, Open3D's hit (distance, normal, ids), the per-ray echo's float32 and float64 passes.
#: Measured with tracemalloc on a fan of 46,080 rays: 173 bytes at build, 266 in a read, plus
#: Open3D's own buffers (about 60); rounded up.
RAY_BYTES = 512
#: Bytes one (beam, bin) cell of a ping costs: its profile (float64), its deposits, its range
#: statistics, the message's float32 and the labels' uint16. Measured: 19.3 bytes in a read of
#: a fan of 640 x 10,000 cells, before the message; rounded up.
CELL_BYTES = 32
#: Bytes a cell costs with the coherent model (its complex baseband, scatterers and matched
#: filter, at one sample per bin). Measured: 89 bytes (51 at build, 34 in a read) on 64 x
#: 10,000 cells; rounded up. More samples per bin (``sample_rate``) cost more, up to
#: ``echo.coherent.MAX_SAMPLES`` a beam.
COHERENT_CELL_BYTES = 128
#: Bytes a pair of beams costs in a fan's receive line array (``array_elements``): its
#: leakage matrix, built once. Measured: 65.6 bytes a pair at 1000 beams; rounded up.
BEAM_PAIR_BYTES = 80
#: Bytes one of a ping's strongest cells costs a beam as it leaks across the fan
#: (``leak_cells``): what every beam hears of it and where. Measured: 35 bytes; rounded up.
LEAK_BYTES = 48
#: Bytes one pixel of an image costs while it is drawn and published (its float64 grid, the
#: index of its cell and the message's pixel).
PIXEL_BYTES = 16


@dataclass(frozen=True)
class Size:
    """One allocation a kind's settings size: ``count`` elements of ``each`` bytes.

    ``settings``: the settings that size it with their values, as the refusal names them
    (``'beams 512 x range_bins 20000'``); ``what``: what is allocated.
    """

    settings: str
    what: str
    count: float
    each: int

    @property
    def bytes(self) -> float:
        """The memory it takes, bytes."""
        return self.count * self.each


def echo_sizes(
    beams: tuple[str, int], rays: tuple[str, int], bins: int, *, coherent: bool
) -> tuple[Size, ...]:
    """A ping's rays and its (beam, bin) cells: ``beams`` and ``rays`` as (setting text, count).

    ``rays``' count is every ray of a ping; ``bins``: ``range_bins``.
    """
    text, n = beams
    cells = cell_size(f'{text} x range_bins {bins}', n * bins, coherent)
    return (Size(rays[0], "a ping's rays", rays[1], RAY_BYTES), cells)


def cell_size(names: str, cells: int, coherent: bool) -> Size:
    """A ping's ``cells`` (beam, bin) cells, sized by the settings ``names`` says."""
    model = 'coherent ' if coherent else ''
    each = COHERENT_CELL_BYTES if coherent else CELL_BYTES
    return Size(names, f"a ping's {model}profiles", cells, each)


def image_size(pixels: int) -> Size:
    """An image at its largest, ``image_max_pixels``."""
    return Size(f'image_max_pixels {pixels}', 'an image at its largest', pixels, PIXEL_BYTES)


def line_array_sizes(beams: int, bins: int, elements: int, leak_cells: int) -> tuple[Size, ...]:
    """A coherent fan's receive line array: its leakage matrix and a ping's leaking cells."""
    if elements == 0:
        return ()
    leaking = min(leak_cells, beams * bins)  # at most every cell of a ping
    return (
        Size(
            f'beams {beams} with array_elements {elements}',
            "the line array's leakage matrix",
            beams * beams,
            BEAM_PAIR_BYTES,
        ),
        Size(
            f'leak_cells {leak_cells} x beams {beams}',
            "the leakage of a ping's strongest cells",
            leaking * beams,
            LEAK_BYTES,
        ),
    )


def budget_problem(sizes: Iterable[Size]) -> str | None:
    """Why these allocations are over ``MAX_DEVICE_BYTES``, naming the biggest, or ``None``."""
    sizes = tuple(sizes)
    total = sum(s.bytes for s in sizes)
    if total <= MAX_DEVICE_BYTES:
        return None
    worst = max(sizes, key=lambda s: s.bytes)
    return (
        f'{worst.settings}: {worst.what} would need {memory_text(worst.bytes)} '
        f'({memory_text(total)} in all), over the budget of {memory_text(MAX_DEVICE_BYTES)} '
        'per device (docs/ros-conventions.md, Memory)'
    )


def memory_text(n: float) -> str:
    """``n`` bytes in words: ``'3.05 GiB'``, ``'512 MiB'``."""
    return f'{n / 2**30:.3g} GiB' if n >= 2**30 else f'{n / 2**20:.3g} MiB'
