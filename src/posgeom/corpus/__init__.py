"""Corpus statistics: counts of tokens per position, positional distributions ``mu_i``, sequence incidences
(which sequence put which token where), synthetic corpora with known ``mu_i``, and a shippable toy text.

The first step of the book's path; pure numpy/scipy.
"""
from __future__ import annotations

from .counts import (
    flat_tokens,
    merge_counts,
    pad_sequences,
    position_counts,
    position_distributions,
)
from .incidence import (
    SequenceIncidence,
)
from .synthetic import (
    REGIMES,
    sample_sequences,
    sample_texts,
    synthetic_corpus,
    synthetic_distributions,
    zipf_distributions,
)
from .toy_text import (
    tiny_reviews,
)

__all__ = [
    "pad_sequences",
    "flat_tokens",
    "position_counts",
    "merge_counts",
    "position_distributions",
    "SequenceIncidence",
    "sample_sequences",
    "REGIMES",
    "synthetic_distributions",
    "synthetic_corpus",
    "zipf_distributions",
    "sample_texts",
    "tiny_reviews",
]
