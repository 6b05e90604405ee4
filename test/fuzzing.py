"""How hard the property and fuzz tests search: short in CI, longer on request.

``NPS_FUZZ_SCALE=N`` multiplies every fuzz test's example count (hypothesis ``max_examples``)
by ``N``, e.g. ``NPS_FUZZ_SCALE=50 scripts/test -k 'corruption or properties or checks'``
for a long run of the reader and message fuzzers. CI runs the default, 1.
"""

from __future__ import annotations

import os

__all__ = ['SCALE', 'examples']

#: Factor on every fuzz test's example count.
SCALE = max(1, int(os.environ.get('NPS_FUZZ_SCALE', '1')))


def examples(count: int) -> int:
    """``count`` examples, times ``NPS_FUZZ_SCALE``."""
    return count * SCALE
