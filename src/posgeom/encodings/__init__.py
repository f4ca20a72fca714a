"""Positional encodings as numpy objects: absolute (sinusoidal, MDS, low-rank factors), relative (RoPE, ALiBi, T5)
with the one distance each induces between positions, and monotonicity measures of any encoding.
"""
from __future__ import annotations

from .absolute import (
    low_rank_factors,
    mds_encoding,
    sinusoidal_encoding,
    sinusoidal_frequencies,
)
from .monotonicity import (
    permutation_test,
    rank_correlations,
    triple_monotonicity,
)
from .relative import (
    alibi_slopes,
)
from .schemes import (
    SCHEMES,
    induced_distances,
)

__all__ = [
    "sinusoidal_frequencies",
    "sinusoidal_encoding",
    "mds_encoding",
    "low_rank_factors",
    "alibi_slopes",
    "SCHEMES",
    "induced_distances",
    "rank_correlations",
    "triple_monotonicity",
    "permutation_test",
]
