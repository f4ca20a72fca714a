"""Monotonicity of an encoding: do positions that are closer in the sequence get closer vectors?

The **monotonicity conjecture** (Appendix A of :cite:`cirrincione2026`) says that learned position embeddings
``p_0..p_{n-1}`` tend to satisfy ``|i - j| < |i - k|  =>  ||p_i - p_j|| < ||p_i - p_k||``. This module measures how
far an encoding (or any position distance matrix) is from that ideal.

Conventions (used everywhere in the book):

* **Pairs.** Every measure is computed over the unordered pairs ``i < j`` of the positions considered: the first
  ``first`` positions (default all ``n``), optionally only the pairs with lag ``j - i <= max_lag``.
* **Rank correlations.** Spearman's ``rho`` and Kendall's ``tau_b`` (``scipy.stats.spearmanr`` / ``kendalltau``,
  ties handled by average ranks and the ``tau_b`` correction) of the distance ``D_ij`` with the lag ``|i - j|``.
  ``+1``: distances increase strictly with the lag; ``0``: no monotone relation; a random encoding gives about 0.
  The pairs share positions, so they are *not* independent: scipy's p-values do not apply, and the book uses the
  position-permutation test :func:`permutation_test` instead.
* **Triple score.** For an anchor ``i`` and two positions ``j, k`` on the *same side* of ``i`` with
  ``|i - j| < |i - k|``, the triple is *monotone* when ``D_ij <= D_ik`` (ties count as monotone). The score of
  position ``i`` is its fraction of monotone triples; the overall score pools all triples. ``1``: perfectly monotone;
  about ``0.5``: no relation.

Every function accepts an encoding ``P`` (rows = positions, ``kind="encoding"``, the default; distances are
Euclidean) or a precomputed distance matrix (``kind="distances"``, e.g. the distances induced by a relative scheme).
A constant distance vector has no defined rank correlation and raises a ValueError rather than returning NaN.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._validation import check_positive_int, check_rng

__all__ = [
    "MaskedLMData",
    "masked_lm_data",
]


@dataclass(frozen=True)
class MaskedLMData:
    """Masked-language-model training data over a compact vocabulary.

    Attributes
    ----------
    inputs : (N, L) int64 array
        Compact token ids, with the masked slots replaced by ``mask_id``.
    targets : (N, L) int64 array
        The original compact id at masked slots, ``-100`` (ignored by the loss) elsewhere.
    vocabulary : (K,) int64 array
        The original ids kept: compact id ``c < K`` stands for ``vocabulary[c]``; ``K`` is the shared id of every
        other token (``unk_id``) and ``K + 1`` is ``mask_id``.
    unk_id, mask_id : int
    n_classes : int
        ``K + 1``: the compact ids a masked slot can hold (``mask_id`` is never a target).
    """

    inputs: np.ndarray
    targets: np.ndarray
    vocabulary: np.ndarray
    unk_id: int
    mask_id: int

    @property
    def n_classes(self) -> int:
        return int(self.vocabulary.size + 1)

    @property
    def vocab_size(self) -> int:
        """Number of input ids, ``K + 2`` (kept tokens, ``unk_id``, ``mask_id``)."""
        return int(self.vocabulary.size + 2)


def masked_lm_data(sequences, *, n_kept: int, rng, mask_rate: float = 0.15,
                   protect=(0, -1)) -> MaskedLMData:
    """Static masked-language-model data: a compact vocabulary and one random mask per sequence.

    Parameters
    ----------
    sequences : (N, L) int array
        Token ids of equal-length sequences (e.g. ``[CLS] w_1 ... w_{L-2} [SEP]`` windows).
    n_kept : int
        ``K``: the ``K`` most frequent ids in ``sequences`` keep their own compact id (ties broken by the smaller
        id); every other id maps to ``unk_id = K``. This keeps the output layer small. If fewer than ``K`` distinct
        ids occur, all are kept and ``K`` is their number.
    rng : int or numpy.random.Generator
        Seed of the masks.
    mask_rate : float, default 0.15
        Probability that a slot is masked (independently per slot), as in BERT; masked slots are replaced by
        ``mask_id`` (BERT's 80/10/10 replacement rule is not used).
    protect : tuple of int, default (0, -1)
        Positions that are never masked (by default the ``[CLS]`` and ``[SEP]`` slots).

    Returns
    -------
    MaskedLMData
    """
    X = np.asarray(sequences)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 2:
        raise ValueError(f"sequences must be an (N, L) array with N >= 1 and L >= 2, got shape {X.shape}")
    if not np.issubdtype(X.dtype, np.integer):
        raise TypeError(f"sequences must hold integer token ids, got dtype {X.dtype}")
    if X.min() < 0:
        raise ValueError("token ids must be >= 0")
    K = check_positive_int(n_kept, "n_kept")
    rng = check_rng(rng)
    if not isinstance(mask_rate, numbers.Real) or not 0 < mask_rate < 1:
        raise ValueError(f"mask_rate must lie strictly between 0 and 1, got {mask_rate!r}")
    ids, counts = np.unique(X, return_counts=True)
    order = np.lexsort((ids, -counts))
    kept = ids[order[:K]].astype(np.int64)
    K = kept.size  # fewer distinct ids than n_kept: keep them all
    lookup = np.full(int(X.max()) + 1, K, dtype=np.int64)
    lookup[kept] = np.arange(kept.size)
    compact = lookup[X]
    mask = rng.random(X.shape) < mask_rate
    for p in protect:
        mask[:, p] = False
    inputs = np.where(mask, K + 1, compact)
    targets = np.where(mask, compact, -100)
    return MaskedLMData(inputs=inputs, targets=targets, vocabulary=kept, unk_id=K, mask_id=K + 1)
