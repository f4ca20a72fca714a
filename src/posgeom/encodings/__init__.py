"""Positional encodings as numpy objects: absolute (sinusoidal, MDS, low-rank factors), ALiBi's head slopes, and
monotonicity measures of any encoding. (The distances the relative schemes RoPE, ALiBi and T5 induce are private,
``_relative`` and ``_schemes``: the stress table and the models use them.)
"""
from __future__ import annotations

from ._relative import alibi_slopes
from .absolute import low_rank_factors, mds_encoding, sinusoidal_encoding
from .monotonicity import permutation_test, rank_correlations, triple_monotonicity

__all__ = [
    "sinusoidal_encoding",
    "mds_encoding",
    "low_rank_factors",
    "alibi_slopes",
    "rank_correlations",
    "triple_monotonicity",
    "permutation_test",
]
