"""Corpus statistics, the first step of the book's path (pure numpy/scipy).

``position_counts`` and ``position_distributions`` (the ``mu_i``), ``SequenceIncidence`` (the cell of every token
of every text), and synthetic corpora with known ``mu_i``: ``REGIMES``, ``synthetic_distributions``,
``synthetic_corpus``, ``sample_sequences``, ``zipf_distributions``, ``sample_texts``.
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
