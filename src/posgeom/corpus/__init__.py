"""Corpus statistics, the first step of the book's path (pure numpy/scipy).

=============================  ================================================================
``position_counts``            (position, token) counts of token id sequences
``position_distributions``     the positional distributions ``mu_i`` from counts
``SequenceIncidence``          which (position, token) cell every token of every text falls in
``REGIMES``                    the regimes of the synthetic model
``synthetic_distributions``    exact ``mu_i`` of the synthetic model
``synthetic_corpus``           token sequences drawn from them
``sample_sequences``           token sequences drawn from given ``mu_i``
``zipf_distributions``         large-vocabulary ``mu_i`` whose ranking drifts with the position
``sample_texts``               texts of given lengths drawn from given ``mu_i``
=============================  ================================================================
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

__all__ = [
    "position_counts",
    "position_distributions",
    "SequenceIncidence",
    "sample_sequences",
    "REGIMES",
    "synthetic_distributions",
    "synthetic_corpus",
    "zipf_distributions",
    "sample_texts",
]
