"""Keep the per-reading arrays in the heap: no page faults for memory a node reuses every tick.

A fan ping allocates and frees arrays of a few MiB each (profiles, hits, the message's
``float32[]`` copies). glibc serves allocations above ``M_MMAP_THRESHOLD`` (128 KiB to
32 MiB, adaptive) by ``mmap`` and trims the heap's free top above ``M_TRIM_THRESHOLD``, so
such arrays come back from the kernel as fresh pages every tick: about 6000 page faults and
18 ms of system time per 512-beam ping, more than the echo model itself
(``benchmarks/bench_fan.py``). Raising both thresholds, as ROS 2's real-time guidance does
with ``mallopt`` (design.ros2.org, "Realtime design"), lets freed memory serve the next
reading. Memory freed stays with the process up to ``TRIM_THRESHOLD``; larger blocks (a
mesh, a heightmap) are still mapped and unmapped as before.
"""

from __future__ import annotations

import ctypes
import ctypes.util

__all__ = ['MMAP_THRESHOLD', 'TRIM_THRESHOLD', 'keep_heap']

#: Allocations up to this size come from the heap, bytes.
MMAP_THRESHOLD = 64 * 1024 * 1024
#: Free memory at the heap's top beyond this is given back to the kernel, bytes.
TRIM_THRESHOLD = 256 * 1024 * 1024

_M_TRIM_THRESHOLD = -1  # glibc's malloc.h
_M_MMAP_THRESHOLD = -3


def keep_heap() -> bool:
    """Raise glibc's mmap and trim thresholds for this process; False where there is no glibc."""
    name = ctypes.util.find_library('c')
    if name is None:
        return False
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to tune
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(
        mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
