"""Positional encodings as numpy objects: absolute (sinusoidal, MDS, low-rank factors), relative (RoPE, ALiBi, T5)
with the one distance each induces between positions, and monotonicity measures of any encoding.
"""
from __future__ import annotations

from .absolute import (
    LowRankFactors,
    low_rank_factors,
    mds_encoding,
    orthonormal_frame,
    place_in_width,
    sinusoidal_encoding,
    sinusoidal_frequencies,
)
from .monotonicity import (
    RankCorrelation,
    TripleMonotonicity,
    bootstrap_dimensions,
    distance_lag_pairs,
    permutation_test,
    position_distances,
    rank_correlations,
    triple_monotonicity,
)
from .relative import (
    alibi_distances,
    alibi_slopes,
    rope_distances,
    t5_bucket,
    t5_bucket_distances,
)
from .schemes import (
    ENCODING_SCHEMES,
    INDUCED_SCHEMES,
    SCHEMES,
    induced_distances,
)

__all__ = [
    "sinusoidal_frequencies",
    "sinusoidal_encoding",
    "orthonormal_frame",
    "place_in_width",
    "mds_encoding",
    "LowRankFactors",
    "low_rank_factors",
    "alibi_slopes",
    "alibi_distances",
    "rope_distances",
    "t5_bucket",
    "t5_bucket_distances",
    "SCHEMES",
    "ENCODING_SCHEMES",
    "INDUCED_SCHEMES",
    "induced_distances",
    "RankCorrelation",
    "TripleMonotonicity",
    "position_distances",
    "distance_lag_pairs",
    "rank_correlations",
    "triple_monotonicity",
    "permutation_test",
    "bootstrap_dimensions",
]
