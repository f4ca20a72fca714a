"""Chapter 6: the signal rank of ``B`` by :func:`parallel_analysis`, and its :func:`detection_curve`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_confidence, check_positive_int, check_rng
from ..geometry.hellinger import hellinger_distances
from ..geometry.mds import classical_mds

__all__ = ["parallel_analysis", "detection_curve"]


@dataclass(frozen=True)
class ParallelAnalysis:
    """Result of :func:`parallel_analysis`: the ``eigenvalues`` of ``B`` of the corpus (descending) and, for every
    rank ``k``, the ``null_quantile`` (``quantile`` over ``n_null`` null corpora) of the ``k``-th eigenvalue."""
    eigenvalues: np.ndarray
    null_quantile: np.ndarray
    quantile: float
    n_null: int

    @property
    def signal_rank(self) -> int:
        """Leading eigenvalues above their null quantile, counted until the first that is not (at most ``n - 1``)."""
        above = (self.eigenvalues > self.null_quantile)[:-1]
        return int(np.argmin(above)) if not above.all() else int(above.size)


def _distances(X, mask, V):
    """Hellinger distances of the unmasked tokens' positional distributions."""
    n = X.shape[1]
    keys = (np.arange(n)[None, :] * V + X)[~mask]
    C = np.bincount(keys, minlength=n * V).reshape(n, V).astype(float)
    return hellinger_distances(C / C.sum(axis=1, keepdims=True))


def _mask(X: np.ndarray, padding_mask) -> np.ndarray:
    """The padding mask, checked (all False if None)."""
    mask = np.zeros(X.shape, dtype=bool) if padding_mask is None else np.asarray(padding_mask, dtype=bool)
    if mask.shape != X.shape:
        raise ValueError(f"padding_mask must have shape {X.shape}, got {mask.shape}")
    return mask


def parallel_analysis(X: ArrayLike, vocab_size: int, *, rng: int | np.random.Generator,
                      padding_mask: ArrayLike | None = None, n_null: int = 100,
                      quantile: float = 0.95) -> ParallelAnalysis:
    """Signal rank of ``B`` against copies of the corpus with each sequence's tokens shuffled among its positions.

    Parameters
    ----------
    X : (N, n) int array of token ids, right-padded where ``padding_mask`` is True (pads neither counted nor shuffled)
    vocab_size, rng, padding_mask : int, int or numpy.random.Generator, (N, n) bool array or None
    n_null, quantile : int, float (null corpora; the quantile of the null eigenvalues a real one must exceed)

    Returns
    -------
    ParallelAnalysis

    Examples
    --------
    >>> from posgeom import synthetic_corpus
    >>> parallel_analysis(synthetic_corpus(2000, 12, 50, rng=0, regime="abrupt"), 50, rng=0, n_null=20).signal_rank
    3
    """
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[1] < 2 or not np.issubdtype(X.dtype, np.integer):
        raise ValueError(f"X must be an (N, n) integer array with n >= 2, got shape {X.shape}, dtype {X.dtype}")
    V = check_positive_int(vocab_size, "vocab_size")
    mask = _mask(X, padding_mask)
    real = X[~mask]
    if real.size and (real.min() < 0 or real.max() >= V):
        raise ValueError(f"token ids must lie in [0, {V})")
    if np.any(mask.all(axis=0)):
        raise ValueError("every position needs at least one token")
    B = check_positive_int(n_null, "n_null")
    quantile = check_confidence(quantile, "quantile")
    rng = check_rng(rng)
    # Shuffling within sequences keeps every sequence's tokens: renumber the tokens that occur 0..V'-1.
    present = np.bincount(real.astype(np.int64), minlength=V) > 0
    V = max(int(present.sum()), 1)
    X = np.where(mask, 0, (np.cumsum(present) - 1)[np.where(mask, 0, X)]).astype(np.int64)
    observed = classical_mds(_distances(X, mask, V)).eigenvalues
    null = np.empty((B, X.shape[1]))
    for b in range(B):
        keys = np.where(mask, 2.0, rng.random(X.shape))  # padding sorts last and stays in place
        shuffled = np.take_along_axis(X, np.argsort(keys, axis=1), axis=1)
        null[b] = classical_mds(_distances(shuffled, mask, V)).eigenvalues
    return ParallelAnalysis(observed, np.quantile(null, quantile, axis=0), quantile, B)


def detection_curve(X: ArrayLike, vocab_size: int, sizes: Sequence[int], *, rng: int | np.random.Generator,
                    padding_mask: ArrayLike | None = None, n_null: int = 40, repeats: int = 1) -> np.ndarray:
    """(len(sizes), repeats) signal ranks of :func:`parallel_analysis` on random subsamples of each size (<= N)."""
    X = np.asarray(X)
    mask = _mask(X, padding_mask)
    rng = check_rng(rng)
    out = np.empty((len(sizes), check_positive_int(repeats, "repeats")), dtype=int)
    for i, size in enumerate(sizes):
        if not 0 < size <= X.shape[0]:
            raise ValueError(f"every size must lie in [1, {X.shape[0]}] (the number of sequences), got {size}")
        for j in range(repeats):
            idx = rng.choice(X.shape[0], int(size), replace=False)
            out[i, j] = parallel_analysis(X[idx], vocab_size, padding_mask=mask[idx], rng=rng,
                                          n_null=n_null).signal_rank
    return out
