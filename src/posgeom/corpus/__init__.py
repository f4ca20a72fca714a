"""Corpus statistics, the first step of the book's path (pure numpy/scipy).

``position_counts`` and ``position_distributions`` (the ``mu_i``), ``SequenceIncidence`` (the cell of every token
of every text); synthetic corpora with known ``mu_i``: ``REGIMES`` (``"stationary"``, ``"smooth"``, ``"abrupt"``),
``synthetic_distributions`` (a positional topic mixture), ``synthetic_corpus`` (sequences drawn from it),
``sample_sequences`` and ``sample_texts`` (sequences and texts of given lengths drawn from given ``mu_i``),
``zipf_distributions`` (large-vocabulary ``mu_i`` whose ranking drifts with the position).
"""
from __future__ import annotations

from .counts import position_counts, position_distributions
from .incidence import SequenceIncidence
from .synthetic import (
    REGIMES,
    sample_sequences,
    sample_texts,
    synthetic_corpus,
    synthetic_distributions,
    zipf_distributions,
)

__all__ = ["position_counts", "position_distributions", "SequenceIncidence", "sample_sequences", "REGIMES",
           "synthetic_distributions", "synthetic_corpus", "zipf_distributions", "sample_texts"]
