"""Positional encodings as numpy objects.

* :mod:`~posgeom.encodings.absolute`: sinusoidal, MDS and low-rank encodings.
* :mod:`~posgeom.encodings.monotonicity`: rank correlations, triple scores and a permutation test of monotonicity.
* ``alibi_slopes``: ALiBi's head slopes (the distances RoPE, ALiBi and T5 induce are private, ``_schemes``).
"""
from __future__ import annotations

from ._relative import alibi_slopes
from .absolute import low_rank_factors, mds_encoding, sinusoidal_encoding
from .monotonicity import permutation_test, rank_correlations, triple_monotonicity

__all__ = ["sinusoidal_encoding", "mds_encoding", "low_rank_factors", "alibi_slopes", "rank_correlations",
           "triple_monotonicity", "permutation_test"]
