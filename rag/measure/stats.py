"""The one percentile rule every measurement uses (eval latencies, query and answer benchmarks)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """The value at share ``q`` of the sorted values (nearest rank, no interpolation); 0.0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def p50_p95(values: Sequence[float], digits: int = 1) -> tuple[float, float]:
    """(median, 95th percentile), rounded; (0.0, 0.0) for none."""
    if not values:
        return 0.0, 0.0
    return round(statistics.median(values), digits), round(percentile(values, 0.95), digits)
