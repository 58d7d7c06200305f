"""Building a timeline allocates tens of thousands of small objects and no reference cycles; CPython's
cyclic collector then runs many passes over them for nothing. Measured here: half of loading a
10,000-event scenario (0.59 s → 0.27 s) and a quarter of simulating it (0.45 s → 0.34 s)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def without_cycle_collection() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block; its previous state is restored after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
